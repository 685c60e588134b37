"""Deals and the combinations a hand can make.

Used by the demo's scripted players, the benchmarks and the property tests.
Pure: randomness comes in as a :class:`random.Random`.

>>> import random
>>> hands = deal(random.Random(1))
>>> sorted(len(h) for h in hands.values())
[27, 27, 27, 27]
>>> plays = combinations_in(parse_cards("S3 D3 C3 H3 S4 S5 S6 S7"), "2")
>>> ("bomb", 4) in {(r.kind, r.size) for r in plays}
True
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable

from referee.cards import Card, full_deck, level_rank, parse_cards  # noqa: F401 (used in the examples)
from referee.combos import Combination, parsed_readings
from referee.seating import PLAY_ORDER, Seat

Play = tuple[Card, ...]


def deal(rng: random.Random, first: Seat = Seat.S) -> dict[Seat, list[Card]]:
    """Shuffle two decks and deal 27 cards to each seat, one at a time from ``first``."""
    deck = full_deck()
    rng.shuffle(deck)
    start = PLAY_ORDER.index(first)
    order = PLAY_ORDER[start:] + PLAY_ORDER[:start]
    hands: dict[Seat, list[Card]] = {s: [] for s in order}
    for i, card in enumerate(deck):
        hands[order[i % 4]].append(card)
    return hands


def combinations_in(hand: Iterable[Card], level: str | int, max_bomb: int = 10) -> list[Combination]:
    """Distinct combinations the hand can lay (each in its canonical order, so
    its reading is declared), wildcards included. Not exhaustive over which
    physical copy or suit is used; one representative per shape."""
    lv = level_rank(level)
    h = _Sorted.of(list(hand), lv)
    plays = [*_singles_and_jokers(h), *_same_rank(h, max_bomb), *_full_houses(h),
             *_runs(h), *_straight_flushes(h)]
    out: dict[tuple[str, int, int], Combination] = {}
    for p in plays:
        for r in parsed_readings(p, lv):
            out.setdefault((r.kind, r.value, r.size), r)
            break
    return list(out.values())


@dataclass
class _Sorted:
    """A hand sorted for building plays: wildcards (heart level cards), the
    other cards by rank and by (suit, rank), and jokers by rank."""

    hand: list[Card]
    wilds: list[Card]
    by_rank: dict[int, list[Card]] = field(default_factory=lambda: defaultdict(list))
    by_suit_rank: dict[tuple[str, int], list[Card]] = field(default_factory=lambda: defaultdict(list))
    jokers: dict[int, list[Card]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def of(cls, hand: list[Card], lv: int) -> _Sorted:
        h = cls(hand, [c for c in hand if c.suit == "H" and c.rank == lv])
        for c in hand:
            if c.suit is None:
                h.jokers[c.rank].append(c)
            elif not (c.suit == "H" and c.rank == lv):
                h.by_rank[c.rank].append(c)
                h.by_suit_rank[(c.suit, c.rank)].append(c)
        return h

    def group(self, rank: int, n: int, w_left: int) -> tuple[Play, int] | None:
        """n cards standing for ``rank``: the naturals held, and how many wildcards
        must complete them (None if more than ``w_left``)."""
        have = self.by_rank.get(rank, [])[:n]
        need = n - len(have)
        if need > w_left:
            return None
        return tuple(have), need


_RANKS = range(2, 15)


def _singles_and_jokers(h: _Sorted) -> list[Play]:
    """Each distinct card alone, joker pairs, and the joker bomb."""
    plays: list[Play] = [(c,) for c in {c.code: c for c in h.hand}.values()]
    plays += [tuple(j) for j in h.jokers.values() if len(j) == 2]
    if sum(len(j) for j in h.jokers.values()) == 4:
        plays.append(tuple(h.jokers[16] + h.jokers[17]))
    return plays


def _same_rank(h: _Sorted, max_bomb: int) -> list[Play]:
    """Pairs, triples and bombs of each rank (wildcards filling in), and the wildcard pair."""
    plays: list[Play] = []
    for r in _RANKS:
        for n in range(2, max_bomb + 1):
            g = h.group(r, n, len(h.wilds))
            if g is None:
                break
            have, need = g
            plays.append(have + tuple(h.wilds[:need]))
    if len(h.wilds) == 2:
        plays.append(tuple(h.wilds))
    return plays


def _full_houses(h: _Sorted) -> list[Play]:
    """A triple of each rank with each pair it can take (jokers included)."""
    plays: list[Play] = []
    wilds = h.wilds
    for t in _RANKS:
        gt = h.group(t, 3, len(wilds))
        if gt is None:
            continue
        triple = gt[0] + tuple(wilds[:gt[1]])
        for p in [*_RANKS, 16, 17]:
            if p == t:
                continue
            if p > 15:
                if len(h.jokers.get(p, [])) == 2:
                    plays.append(triple + tuple(h.jokers[p]))
                continue
            gp = h.group(p, 2, len(wilds) - gt[1])
            if gp is None:
                continue
            plays.append(triple + gp[0] + tuple(wilds[gt[1]:gt[1] + gp[1]]))
    return plays


def _runs(h: _Sorted) -> list[Play]:
    """Straights, tubes and plates (A low or high), wildcards filling the gaps."""
    plays: list[Play] = []
    for length, width in ((5, 1), (3, 2), (2, 3)):
        for low in range(1, 16 - length):
            cards: Play = ()
            used = 0
            for s in range(low, low + length):
                r = 14 if s == 1 else s
                have = tuple(h.by_rank.get(r, [])[:width])
                need = width - len(have)
                cards += have + tuple(h.wilds[used:used + need])
                used += need
            if used <= len(h.wilds):
                plays.append(cards)
    return plays


def _straight_flushes(h: _Sorted) -> list[Play]:
    """Five consecutive ranks of one suit, wildcards filling the gaps."""
    plays: list[Play] = []
    for suit in "SHDC":
        for low in range(1, 11):
            cards: Play = ()
            used = 0
            for s in range(low, low + 5):
                r = 14 if s == 1 else s
                have = tuple(h.by_suit_rank.get((suit, r), [])[:1])
                cards += have if have else tuple(h.wilds[used:used + 1])
                used += 0 if have else 1
            if used <= len(h.wilds) and len(cards) == 5:
                plays.append(cards)
    return plays
