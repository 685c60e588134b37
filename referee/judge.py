"""Judging one play: is it a combination, which reading counts, does it beat
the play standing, and was it laid in the right order.

>>> j = judge("H2 S3 D3", level="2", previous="S4 D4 C4")
>>> j.legal, j.kind, j.code
(False, 'triple', 'does_not_beat')
>>> j.reason
'three 3s does not beat three 4s (牌点须大于上家)'
>>> judge("S5 D5", level="2", previous="S3").reason
'a pair cannot follow a single (对子不能压单张)'
>>> judge("H7 H7 S8 D8 C8", level="7").describe()
'a 5-card bomb of 8s'

Which reading counts: the laid order declares a reading when it is that
reading's canonical order (the rules make players put each wildcard where it
stands, 2023 rules §5(5)3(2)); without a declaration the strongest reading
counts. Following a play, the strongest declared reading that beats it counts;
failing that, any reading that beats it, with an arrangement warning.
"""

from __future__ import annotations

from typing import Any, Iterable, NamedTuple

from referee.cards import Card, CardError, CardsLike, check_copies, level_rank, parse_cards
from referee.combos import KIND_CN, Combination, beats, matches_pattern, parsed_readings

ILLEGAL_COMBINATION = "illegal_combination"
DOES_NOT_BEAT = "does_not_beat"


class Judgement(NamedTuple):
    """The verdict on one play.

    ``legal``: a valid combination, and with a previous play, one that beats
    it. ``reading``: the :class:`Combination` that counts (``None`` when no
    reading exists). ``code``: ``None``, ``'illegal_combination'`` or
    ``'does_not_beat'``. ``arrangement``: what is wrong with the laid order
    (出牌方式), for a warning; empty when it is right.
    """

    legal: bool
    kind: str | None
    reading: Combination | None
    reason: str
    code: str | None = None
    readings: tuple[Combination, ...] = ()
    arrangement: tuple[str, ...] = ()

    def describe(self) -> str:
        return self.reading.describe() if self.reading else "no combination"

    def to_dict(self) -> dict[str, Any]:
        return {
            "legal": self.legal,
            "kind": self.kind,
            "reason": self.reason,
            "code": self.code,
            "reading": self.reading.to_dict() if self.reading else None,
            "readings": [r.to_dict() for r in self.readings],
            "arrangement": list(self.arrangement),
        }


def _codes(cards: Iterable[Card]) -> str:
    return " ".join(c.code for c in cards)


WILD_MISPLACED = ("a wildcard is not at the place it stands for "
                  "(红心级牌应摆放在其所充当牌点的位置，同点数时放最右侧)")
ORDER_PROBLEM = {
    "full_house": "a full house goes triple left, pair right (三带对应三同张在左、对子在右)",
    "run": "cards are not laid from low to high, left to right (应按牌点大小从左到右排列)",
}


def _arrangement_problems(reading: Combination, level: int) -> tuple[str, ...]:
    """Why the laid order is not the reading's canonical order (empty if it is)."""
    if matches_pattern(reading, level):
        return ()
    laid = [c.rank for c in reading.cards if not (c.suit == "H" and c.rank == level)]
    # The natural cards' expected order: the pattern without wildcard slots.
    # Wildcards standing as level cards take some level entries; those are
    # interchangeable, so dropping any of them gives the same sequence.
    expected = [s for s in reading.pattern or () if s > 0]
    for _ in range(expected.count(level) - laid.count(level)):
        expected.remove(level)
    if laid == expected:
        return (WILD_MISPLACED,)
    if reading.kind == "full_house":
        return (ORDER_PROBLEM["full_house"],)
    return (ORDER_PROBLEM["run"],)


def _pick(readings: list[Combination], level: int) -> tuple[list[Combination], list[Combination]]:
    """Split readings into those the laid order declares and the rest, each strongest first."""
    declared: list[Combination] = []
    other: list[Combination] = []
    for r in readings:
        (declared if matches_pattern(r, level) else other).append(r)
    return declared, other


def counted_reading(cards: CardsLike, level: str | int) -> Combination | None:
    """The reading that counts for a play with no previous play to beat."""
    lv = level_rank(level)
    parsed = _parse(cards)
    rs = parsed_readings(parsed, lv)
    if not rs:
        return None
    declared, _ = _pick(rs, lv)
    return declared[0] if declared else rs[0]


def _parse(cards: CardsLike) -> tuple[Card, ...]:
    parsed = parse_cards(cards)
    if not parsed:
        raise CardError("a play needs at least one card")
    check_copies(parsed)
    return parsed


def judge(play: CardsLike, level: str | int,
          previous: CardsLike | Combination | None = None) -> Judgement:
    """Judge ``play`` (cards in the order laid, left to right) at ``level``.

    ``previous`` is the play it must beat: a :class:`Combination` (the reading
    that counted) or cards. Raises :class:`referee.cards.CardError` for input
    that is not a real set of cards (unknown code, a third copy, no cards).
    """
    lv = level_rank(level)
    cards = _parse(play)
    rs = parsed_readings(cards, lv)
    if not rs:
        return Judgement(False, None, None,
                         f"{_codes(cards)} is not a valid combination (不成牌型，出错牌)",
                         ILLEGAL_COMBINATION)
    declared, other = _pick(rs, lv)
    rs_t = tuple(rs)

    if previous is None:
        chosen = declared[0] if declared else rs[0]
        return Judgement(True, chosen.kind, chosen, f"{chosen.describe()} (领出)", None, rs_t,
                         _arrangement_problems(chosen, lv))

    if not isinstance(previous, Combination):
        prev = counted_reading(previous, lv)
        if prev is None:
            raise CardError(f"the previous play {previous!r} is not a valid combination")
    else:
        prev = previous

    for group in (declared, other):
        for r in group:
            if beats(r, prev):
                return Judgement(True, r.kind, r, f"{r.describe()} beats {prev.describe()} (压牌)",
                                 None, rs_t, _arrangement_problems(r, lv))

    chosen = declared[0] if declared else rs[0]
    return Judgement(False, chosen.kind, chosen, _why_not(chosen, prev, rs), DOES_NOT_BEAT, rs_t,
                     _arrangement_problems(chosen, lv))


def _why_not(play: Combination, prev: Combination, rs: list[Combination]) -> str:
    if prev.tier and not play.tier:
        return (f"{play.describe()} cannot beat {prev.describe()} "
                f"({KIND_CN[play.kind]}不能压{KIND_CN[prev.kind]})")
    if play.tier:
        return (f"{play.describe()} does not beat {prev.describe()} "
                "(炸弹张数多者大，同张数比牌点；王炸最大)")
    if not any(r.kind == prev.kind for r in rs):
        return (f"a {play.kind.replace('_', ' ')} cannot follow a {prev.kind.replace('_', ' ')} "
                f"({KIND_CN[play.kind]}不能压{KIND_CN[prev.kind]})")
    same = max((r for r in rs if r.kind == prev.kind), key=lambda r: r.value)
    return f"{same.describe()} does not beat {prev.describe()} (牌点须大于上家)"
