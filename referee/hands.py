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
from typing import Iterable

from referee.cards import Card, full_deck, level_rank, parse_cards  # noqa: F401 (used in the examples)
from referee.combos import Combination, _readings

SEATS_IN_ORDER = ("S", "E", "N", "W")   # counter-clockwise play order


def deal(rng: random.Random, first: str = "S") -> dict[str, list[Card]]:
    """Shuffle two decks and deal 27 cards to each seat, one at a time from ``first``."""
    deck = full_deck()
    rng.shuffle(deck)
    start = SEATS_IN_ORDER.index(first)
    order = SEATS_IN_ORDER[start:] + SEATS_IN_ORDER[:start]
    hands: dict[str, list[Card]] = {s: [] for s in order}
    for i, card in enumerate(deck):
        hands[order[i % 4]].append(card)
    return hands


def combinations_in(hand: Iterable[Card], level: str | int, max_bomb: int = 10) -> list[Combination]:
    """Distinct combinations the hand can lay (each in its canonical order, so
    its reading is declared), wildcards included. Not exhaustive over which
    physical copy or suit is used; one representative per shape."""
    lv = level_rank(level)
    hand = list(hand)
    wilds = [c for c in hand if c.suit == "H" and c.rank == lv]
    by_rank: dict[int, list[Card]] = defaultdict(list)
    by_suit_rank: dict[tuple[str, int], list[Card]] = defaultdict(list)
    jokers = defaultdict(list)
    for c in hand:
        if c.suit is None:
            jokers[c.rank].append(c)
        elif not (c.suit == "H" and c.rank == lv):
            by_rank[c.rank].append(c)
            by_suit_rank[(c.suit, c.rank)].append(c)
    plays: list[tuple[Card, ...]] = []

    def group(rank: int, n: int, w_left: int):
        """n cards standing for ``rank``: naturals then wildcards."""
        have = by_rank.get(rank, [])[:n]
        need = n - len(have)
        if need > w_left:
            return None
        return tuple(have), need

    for c in {c.code: c for c in hand}.values():
        plays.append((c,))
    for j in jokers.values():
        if len(j) == 2:
            plays.append(tuple(j))
    if sum(len(j) for j in jokers.values()) == 4:
        plays.append(tuple(jokers[16] + jokers[17]))
    ranks = range(2, 15)
    for r in ranks:
        for n in range(2, max_bomb + 1):
            g = group(r, n, len(wilds))
            if g is None:
                break
            have, need = g
            plays.append(have + tuple(wilds[:need]))
    if len(wilds) == 2:
        plays.append(tuple(wilds))
    # full houses
    for t in ranks:
        gt = group(t, 3, len(wilds))
        if gt is None:
            continue
        for p in list(ranks) + [16, 17]:
            if p == t:
                continue
            if p > 15:
                if len(jokers.get(p, [])) == 2:
                    plays.append(gt[0] + tuple(wilds[:gt[1]]) + tuple(jokers[p]))
                continue
            gp = group(p, 2, len(wilds) - gt[1])
            if gp is None:
                continue
            plays.append(gt[0] + tuple(wilds[:gt[1]]) + gp[0] + tuple(wilds[gt[1]:gt[1] + gp[1]]))
    # runs: straights, tubes, plates (and straight flushes per suit)
    for length, width in ((5, 1), (3, 2), (2, 3)):
        for low in range(1, 16 - length):
            cards: tuple[Card, ...] = ()
            used = 0
            for s in range(low, low + length):
                r = 14 if s == 1 else s
                have = tuple(by_rank.get(r, [])[:width])
                need = width - len(have)
                cards += have + tuple(wilds[used:used + need])
                used += need
            if used <= len(wilds):
                plays.append(cards)
    for suit in "SHDC":
        for low in range(1, 11):
            cards, used = (), 0
            for s in range(low, low + 5):
                r = 14 if s == 1 else s
                have = tuple(by_suit_rank.get((suit, r), [])[:1])
                cards += have if have else tuple(wilds[used:used + 1])
                used += 0 if have else 1
            if used <= len(wilds) and len(cards) == 5:
                plays.append(cards)
    out: dict[tuple, Combination] = {}
    for p in plays:
        for r in _readings(p, lv):
            out.setdefault((r.kind, r.value, r.size), r)
            break
    return list(out.values())
