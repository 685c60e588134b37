"""The state of one deal (一副牌) and the tribute procedure.

The referee cannot see hands, so a deal holds what the table shows: how many
cards each seat holds (27 after the draw; tribute and return swap one card
each way), the trick (the play standing, who passed), the finishing order,
count reports due, and the tribute facts that a later play can prove wrong.

Tribute (《江苏省掼蛋竞赛规则（2023）》 五(四)): after a deal, its 下游 gives
上游 the highest card (heart level cards excepted); after 双下 both losers
give, 上游 takes the higher card and the partner the lower; equal ranks go
clockwise (each tributer to the opponent on its clockwise side, its 上家) and
whoever gave to 上游 leads; if the tribute side holds both big jokers there is
no tribute (抗贡) and 上游 leads.

>>> tribute_plan(["S", "E", "N", "W"])      # single: 下游 W gives to 上游 S
(('W',), ('S',))
>>> tribute_plan(["S", "N", "E", "W"])      # 双下: E and W give
(('E', 'W'), ('S', 'N'))
>>> from referee.cards import parse_card
>>> assign_tributes({"E": parse_card("SA"), "W": parse_card("BJ")}, ["S", "N", "E", "W"], "5")
{'W': 'S', 'E': 'N'}
>>> assign_tributes({"E": parse_card("SA"), "W": parse_card("HA")}, ["S", "N", "E", "W"], "5")
{'E': 'S', 'W': 'N'}
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from referee.cards import Card, single_value
from referee.combos import Combination
from referee.seating import PLAY_ORDER, next_seat, partner, prev_seat, side_of

HAND_SIZE = 27


def is_double_down(order: list[str] | tuple[str, ...]) -> bool:
    """True when 上游 and 二游 are partners (the other side is 双下)."""
    return len(order) >= 2 and partner(order[0]) == order[1]


def complete_order(order: list[str]) -> list[str]:
    """A full finishing order: seats not yet out follow in play order from the last one out."""
    out = list(order)
    seat = out[-1] if out else "S"
    for _ in range(4):
        seat = next_seat(seat)
        if seat not in out:
            out.append(seat)
    return out


def tribute_plan(prev_order: list[str] | tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(tributers, receivers) for a deal after one that finished in ``prev_order``."""
    order = complete_order(list(prev_order))
    if is_double_down(order):
        return tuple(sorted(order[2:], key=PLAY_ORDER.index)), (order[0], order[1])
    return (order[3],), (order[0],)


def assign_tributes(tributes: dict[str, Card], prev_order: list[str], level: str) -> dict[str, str]:
    """Who receives each tribute card: {tributer: receiver}."""
    order = complete_order(list(prev_order))
    if len(tributes) == 1:
        (giver,) = tributes
        return {giver: order[0]}
    (a, ca), (b, cb) = sorted(tributes.items(), key=lambda kv: PLAY_ORDER.index(kv[0]))
    va, vb = single_value(ca, level), single_value(cb, level)
    if va == vb:
        # 贡牌牌点相同，则按顺时针方向进贡: each gives to the seat clockwise of it (its 上家).
        return {a: prev_seat(a), b: prev_seat(b)}
    high, low = (a, b) if va > vb else (b, a)
    return {high: order[0], low: order[1]}


@dataclass
class ReportFault:
    """A missing or wrong count report not yet put right (七(一)9, 七(二)4, 七(三)4)."""
    code: str                 # 'missing_report' or 'wrong_report'
    events: list[int]
    actions: int = 0          # plays and passes since the fault
    escalated: bool = False


@dataclass
class Deal:
    number: int
    level: str
    t_start: float
    phase: str = "play"                      # 'tribute', 'return', 'play', 'finished'
    counts: dict[str, int] = field(default_factory=lambda: {s: HAND_SIZE for s in PLAY_ORDER})
    order: list[str] = field(default_factory=list)
    turn: str | None = None                  # seat to act; None while the first leader is unknown
    standing: Combination | None = None      # the play to beat; None when the trick is empty
    standing_seat: str | None = None
    passed: set[str] = field(default_factory=set)
    trick: list[dict] = field(default_factory=list)  # this trick's plays and passes, in order
    first_lead_done: bool = False
    seen: Counter = field(default_factory=Counter)   # card codes played this deal
    # tribute
    prev_order: list[str] = field(default_factory=list)
    tributers: tuple[str, ...] = ()
    receivers: tuple[str, ...] = ()
    tributes: dict[str, Card] = field(default_factory=dict)
    tribute_events: dict[str, int] = field(default_factory=dict)
    gives_to: dict[str, str] = field(default_factory=dict)      # tributer -> receiver
    returns: dict[str, Card] = field(default_factory=dict)      # receiver -> card returned
    jokers_shown: dict[str, int] = field(default_factory=dict)  # big jokers shown for 抗贡
    leader_after_tribute: str | None = None
    # facts a later play can prove wrong: seat -> (card given, card received, event id)
    tribute_checks: dict[str, tuple[Card, Card, int]] = field(default_factory=dict)
    return_checks: dict[str, tuple[Card, Card, int]] = field(default_factory=dict)
    # count reports
    reports_due: dict[str, tuple[int, int]] = field(default_factory=dict)  # seat -> (count, event id)
    reported: dict[str, int | None] = field(default_factory=dict)
    report_faults: dict[str, ReportFault] = field(default_factory=dict)
    stopped: set[str] = field(default_factory=set)   # seats whose next play is stopped (违例 choice)
    penalties: list[dict] = field(default_factory=list)

    def active(self) -> list[str]:
        """Seats still holding cards, in play order from S."""
        return [s for s in PLAY_ORDER if self.counts[s] > 0]

    def next_active(self, seat: str) -> str:
        s = next_seat(seat)
        while self.counts[s] == 0:
            s = next_seat(s)
        return s

    def over(self) -> bool:
        """Three out, or 上游 and 二游 partners (双上)."""
        return len(self.order) >= 3 or is_double_down(self.order)

    def side_done(self) -> str | None:
        return side_of(self.order[0]) if self.order else None

    def summary(self) -> dict:
        return {"deal": self.number, "level": self.level, "phase": self.phase,
                "counts": dict(self.counts), "order": list(self.order), "turn": self.turn,
                "standing": [c.code for c in self.standing.cards] if self.standing else None,
                "standing_seat": self.standing_seat, "passed": sorted(self.passed),
                "trick": [dict(p) for p in self.trick],
                "reports_due": {s: c for s, (c, _) in self.reports_due.items()},
                "report_faults": sorted(self.report_faults), "stopped": sorted(self.stopped)}
