"""Combinations (牌型): every legal reading of a play, and which play beats which.

A play may read several ways once the two heart level cards (红心级牌, 逢人配)
are wild: at level 7, ``H7 H7 S8 D8 C8`` is a five-card bomb of 8s (the
wildcards stand for 8s) or a full house of 8s with a pair of 7s (the
wildcards as themselves). :func:`readings` returns them all, strongest first.

>>> [r.kind for r in readings("H7 H7 S8 D8 C8", "7")]
['bomb', 'full_house']
>>> beats(readings("S4 D4", "2")[0], readings("S3 D3", "2")[0])
True

Ranks: singles, pairs, triples, full houses and bombs use the single order
with the level rank above A (:func:`referee.cards.single_value`); straights,
tubes, plates and straight flushes use natural ranks, A counting low
(A2345, AA2233, AAA222) or high, with no wrap-around.

The arrangement rules (出牌方式, 2023 rules §5(5)3(2)) are encoded as each
reading's canonical order (its ``pattern``): runs ascending left to right, the
triple left of the pair, a wildcard at the place it stands for and rightmost
among equal ranks.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any, NamedTuple, Sequence

from referee.cards import (BJ_RANK, LEVEL_VALUE, LJ_RANK, RANK_NAMES, Card,
                           CardsLike, check_copies, level_rank, parse_cards)

KINDS = ("single", "pair", "triple", "full_house", "straight", "tube", "plate",
         "bomb", "straight_flush", "joker_bomb")
BOMB_KINDS = frozenset(("bomb", "straight_flush", "joker_bomb"))

KIND_CN = {
    "single": "单张", "pair": "对子", "triple": "三同张", "full_house": "三带对",
    "straight": "顺子", "tube": "三连对", "plate": "二连三(钢板)", "bomb": "炸弹",
    "straight_flush": "同花顺", "joker_bomb": "王炸(四大天王)",
}

# Bomb-class tiers (2023 rules §5(5)2(3)-(5)): 4-bomb < 5-bomb < straight
# flush < 6-bomb < ... < 10-bomb < joker bomb. Tier 0 is every other kind.
TIER_SF = 3
TIER_JOKER_BOMB = 9


def bomb_tier(size: int) -> int:
    """Tier of a bomb of ``size`` cards: 4 -> 1, 5 -> 2, 6 -> 4 ... 10 -> 8."""
    return size - 3 if size <= 5 else size - 2


# Among readings of different non-bomb kinds (only a tube and a plate can
# collide, e.g. 3344 with two wildcards) the rules give no order. When the
# laid order declares neither, take the tube: both peer engines in
# tests/data/guandan-world read these plays as tubes.
_KIND_PREF = {"tube": 1}


class Combination(NamedTuple):
    """One reading of a play.

    ``value`` orders readings of the same kind: the single order (level rank =
    15, LJ = 16, BJ = 17) for singles, pairs, triples, full houses (the triple)
    and bombs; the lowest natural rank (A low = 1) for runs. ``tier`` is 0 for
    ordinary kinds and the bomb-class tier otherwise. ``pattern`` is the
    canonical laid order: one entry per card, the card rank a natural card
    must have there, or ``-rank`` for a wildcard standing for that rank (a
    wildcard standing for its own level rank is written as the plain rank);
    ``None`` means any order.
    """

    kind: str
    cards: tuple[Card, ...]
    value: int
    tier: int
    pattern: tuple[int, ...] | None

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def is_bomb_class(self) -> bool:
        return self.tier > 0

    @property
    def key(self) -> tuple[int, int, int]:
        """Sort key: stronger readings sort higher."""
        return (self.tier, _KIND_PREF.get(self.kind, 0), self.value)

    def describe(self) -> str:
        """A short English description, e.g. 'a pair of 8s', 'a straight 10-A'."""
        return describe(self.kind, self.value, self.size)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "cards": [c.code for c in self.cards],
                "value": self.value, "tier": self.tier, "description": self.describe()}


def _rank_name(value: int, level: int | None = None) -> str:
    if value == LEVEL_VALUE:
        return "level cards" if level is None else RANK_NAMES[level] + "s"
    if value in (LJ_RANK, BJ_RANK):
        return {LJ_RANK: "little jokers", BJ_RANK: "big jokers"}[value]
    return ("10" if value == 10 else RANK_NAMES[value]) + "s"


def _run_name(low: int, length: int) -> str:
    def name(r: int) -> str:
        return "A" if r in (1, 14) else ("10" if r == 10 else RANK_NAMES[r])
    return f"{name(low)}-{name(low + length - 1)}"


@lru_cache(maxsize=4096)
def describe(kind: str, value: int, size: int) -> str:
    if kind == "single":
        return {LJ_RANK: "the little joker", BJ_RANK: "the big joker"}.get(
            value, "a single " + ("level card" if value == LEVEL_VALUE else _rank_name(value)[:-1]))
    if kind == "pair":
        return "a pair of " + _rank_name(value)
    if kind == "triple":
        return "three " + _rank_name(value)
    if kind == "full_house":
        return "a full house of " + _rank_name(value)
    if kind == "bomb":
        return f"{'an' if size == 8 else 'a'} {size}-card bomb of " + _rank_name(value)
    if kind == "joker_bomb":
        return "the joker bomb"
    if kind == "straight":
        return "a straight " + _run_name(value, 5)
    if kind == "straight_flush":
        return "a straight flush " + _run_name(value, 5)
    if kind == "tube":
        return "a tube " + _run_name(value, 3)
    if kind == "plate":
        return "a plate " + _run_name(value, 2)
    raise ValueError(kind)


# ---------------------------------------------------------------------------
# Shapes: readings computed once per rank signature (suits aside).

class _Shape(NamedTuple):
    kind: str
    value: int
    tier: int
    pattern: tuple[int, ...] | None


def _group(rank: int, naturals: int, wilds: int, level: int) -> tuple[int, ...]:
    """Pattern of a same-rank group: naturals first, wildcards rightmost."""
    if rank == level:   # wildcards standing for their own rank are just level cards
        return (rank,) * (naturals + wilds)
    return (rank,) * naturals + (-rank,) * wilds


def _same_rank_value(rank: int, level: int) -> int:
    return LEVEL_VALUE if rank == level else rank


def _shapes(n: int, w: int, lj: int, bj: int, ranks: tuple[int, ...], level: int) -> list[_Shape]:
    """All readings (ignoring straight flushes) of a play with ``w`` wildcards,
    ``lj``/``bj`` jokers and the other cards' ``ranks`` (sorted)."""
    out: list[_Shape] = []
    counts = Counter(ranks)
    jokers = lj + bj
    if n == 1:
        if jokers:
            r = LJ_RANK if lj else BJ_RANK
            out.append(_Shape("single", r, 0, None))
        else:
            r = ranks[0] if ranks else level
            out.append(_Shape("single", _same_rank_value(r, level), 0, None))
        return out

    # pair / triple / bomb: all one rank
    if jokers:
        if n == 2 and (lj == 2 or bj == 2):
            r = LJ_RANK if lj else BJ_RANK
            out.append(_Shape("pair", r, 0, (r, r)))
        if n == 4 and lj == 2 and bj == 2:
            out.append(_Shape("joker_bomb", 0, TIER_JOKER_BOMB, None))
    elif len(counts) <= 1 and n <= 10:
        r = ranks[0] if ranks else level
        pattern = _group(r, len(ranks), w, level)
        value = _same_rank_value(r, level)
        if n == 2:
            out.append(_Shape("pair", value, 0, pattern))
        elif n == 3:
            out.append(_Shape("triple", value, 0, pattern))
        elif n >= 4:
            out.append(_Shape("bomb", value, bomb_tier(n), pattern))

    if n == 5:
        out.extend(_full_houses(w, lj, bj, counts, level))
        if not jokers and all(c == 1 for c in counts.values()):
            out.extend(_runs("straight", 5, 1, w, counts, level))
    elif n == 6 and not jokers:
        if all(c <= 2 for c in counts.values()):
            out.extend(_runs("tube", 3, 2, w, counts, level))
        if all(c <= 3 for c in counts.values()):
            out.extend(_runs("plate", 2, 3, w, counts, level))
    out.sort(key=lambda s: (s.tier, _KIND_PREF.get(s.kind, 0), s.value), reverse=True)
    return out


def _full_houses(w: int, lj: int, bj: int, counts: Counter[int], level: int) -> list[_Shape]:
    out: list[_Shape] = []
    if lj or bj:
        # the pair may be two of the same joker; the triple is made of the rest
        if (lj, bj) in ((2, 0), (0, 2)) and len(counts) <= 1:
            j = LJ_RANK if lj else BJ_RANK
            t = next(iter(counts)) if counts else level
            if t == level or counts.get(t, 0) + w == 3:
                out.append(_Shape("full_house", _same_rank_value(t, level), 0,
                                  _group(t, counts.get(t, 0), w, level) + (j, j)))
        return out
    present = list(counts)
    if len(present) == 2:
        pairs = [(present[0], present[1]), (present[1], present[0])]
    elif len(present) == 1 and w == 2:
        # three naturals; the two wildcards as themselves make the pair
        pairs = [(present[0], level)]
    else:
        pairs = []
    for t, p in pairs:
        if t == p:
            continue
        need_t, need_p = 3 - counts.get(t, 0), 2 - counts.get(p, 0)
        if need_t < 0 or need_p < 0 or need_t + need_p != w:
            continue
        pattern = _group(t, counts.get(t, 0), need_t, level) + _group(p, counts.get(p, 0), need_p, level)
        out.append(_Shape("full_house", _same_rank_value(t, level), 0, pattern))
    return out


def _runs(kind: str, length: int, width: int, w: int, counts: Counter[int], level: int) -> list[_Shape]:
    """Runs of ``length`` consecutive ranks, ``width`` cards each (natural ranks, A low or high)."""
    out = []
    for low in range(1, 16 - length):
        slots = range(low, low + length)
        # a natural A sits in slot 1 when the run starts at A, else in slot 14
        placed = {}
        ok = True
        for r, c in counts.items():
            slot = 1 if (r == 14 and low == 1) else r
            if slot not in slots:
                ok = False
                break
            placed[slot] = c
        if not ok:
            continue
        if sum(width - placed.get(s, 0) for s in slots) != w:
            continue
        pattern: tuple[int, ...] = ()
        for s in slots:
            card_rank = 14 if s == 1 else s
            have = placed.get(s, 0)
            pattern += _group(card_rank, have, width - have, level)
        out.append(_Shape(kind, low, 0, pattern))
    return out


_SHAPE_CACHE: dict[tuple[int, int, int, int, tuple[int, ...], int], list[_Shape]] = {}


def _shapes_for(cards: Sequence[Card], level: int) -> tuple[list[_Shape], bool]:
    """Cached shapes of a play, and whether its natural cards share one suit."""
    w = lj = bj = 0
    ranks = []
    suits = set()
    for c in cards:
        r = c.rank
        if r == LJ_RANK:
            lj += 1
        elif r == BJ_RANK:
            bj += 1
        elif r == level and c.suit == "H":
            w += 1
        else:
            ranks.append(r)
            suits.add(c.suit)
    ranks.sort()
    sig = (len(cards), w, lj, bj, tuple(ranks), level)
    shapes = _SHAPE_CACHE.get(sig)
    if shapes is None:
        shapes = _shapes(len(cards), w, lj, bj, tuple(ranks), level) if 0 < len(cards) <= 10 else []
        if len(_SHAPE_CACHE) > 200_000:   # bound memory on adversarial input
            _SHAPE_CACHE.clear()
        _SHAPE_CACHE[sig] = shapes
    return shapes, len(suits) <= 1


def parsed_readings(cards: tuple[Card, ...], level: int) -> list[Combination]:
    """Every legal reading, strongest first, of cards already parsed and
    copy-checked, at a level given as its rank number (:func:`readings` for any input)."""
    shapes, one_suit = _shapes_for(cards, level)
    out = [Combination(s.kind, cards, s.value, s.tier, s.pattern) for s in shapes]
    if one_suit and len(cards) == 5:
        flushes = [Combination("straight_flush", cards, s.value, TIER_SF, s.pattern)
                   for s in shapes if s.kind == "straight"]
        if flushes:
            out = sorted(out + flushes, key=lambda r: r.key, reverse=True)
    return out


def readings(cards: CardsLike, level: str | int) -> list[Combination]:
    """Every legal reading of ``cards`` at ``level``, strongest first (empty if none).

    Raises :class:`referee.cards.CardError` for unreadable codes or more copies
    of a card than two decks hold.

    >>> [(r.kind, r.describe()) for r in readings("SA CA H5 H5 H2 D2", "5")]
    [('tube', 'a tube A-3'), ('plate', 'a plate A-2')]
    >>> readings("S3 D4", "2")
    []
    """
    parsed = parse_cards(cards)
    check_copies(parsed)
    return parsed_readings(parsed, level_rank(level))


def matches_pattern(reading: Combination, level: int) -> bool:
    """True when the cards were laid in the reading's canonical order."""
    pattern = reading.pattern
    if pattern is None:
        return True
    for card, slot in zip(reading.cards, pattern):
        if card.suit == "H" and card.rank == level:       # a wildcard
            if slot >= 0 and slot != level:
                return False
        elif slot != card.rank:
            return False
    return True


def beats(a: Combination, b: Combination) -> bool:
    """True when ``a`` may be played on ``b``.

    Same kind and number of cards and a strictly higher rank, or a bomb-class
    play above ``b`` in the order joker bomb > 6+ card bombs > straight flush >
    5-card bomb > 4-card bomb > everything else. Suits never break ties.
    """
    if a.tier or b.tier:
        return a.tier > b.tier or (a.tier == b.tier and a.value > b.value)
    return a.kind == b.kind and len(a.cards) == len(b.cards) and a.value > b.value
