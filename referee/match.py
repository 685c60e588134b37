"""The match (一场): levels of both sides, deals played, when it ends, the
result and the score sheet.

Formats (《江苏省掼蛋竞赛规则（2023）》 五(九); 2022 text 第十二条): by game
(first past A), by deals, by time, by time and deals (whichever limit comes
first). Passing A ends the match in every format. At the end the higher
level wins; equal levels are a draw, or, with the ``extra_deal`` tie rule,
one extra deal from the first-deal procedure that 上游's side wins (its
levels do not count). A deal running when the time limit passes is played
to its end.

>>> from referee.settings import Settings
>>> from referee.seating import Side
>>> m = Match(Settings.parse_format("deals:2"))
>>> m.deal_level()
'2'
>>> m.record_deal(1, order=["S", "N"], t_start=0, t_end=300).levels_after
{<Side.NS: 'NS'>: '5', <Side.EW: 'EW'>: '2'}
>>> m.deal_level(), m.result is None
('5', True)
>>> _ = m.record_deal(2, order=["E", "S", "W", "N"], t_start=300, t_end=600)
>>> m.result.winner, m.result.points[Side.NS], m.result.level_points == {"NS": 14, "EW": 12}
(<Side.NS: 'NS'>, 2, True)
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any, Sequence

from referee.codes import DocumentedEnum
from referee.scoring import (ABANDONMENT_POINTS, ACE, MATCH_POINTS, PAST_A, START_LEVEL,
                             deal_upgrade, forfeit_levels, level_difference_points,
                             level_label, levels_gained, raise_level)
from referee.seating import SIDES, Seat, Side, opponents, side_of
from referee.settings import Settings


class EndedBy(DocumentedEnum):
    """How a deal ended (``ended_by`` on the score sheet and in ``deal_end``)."""

    PLAY = "play", "Played out."
    FOUL = "foul", "A foul (犯规): the offending side is recorded 双下."
    EXTRA = "extra", "The extra deal that breaks a tie: 上游's side wins, levels unchanged."


class Reason(DocumentedEnum):
    """Why a match ended (``reason`` of its result)."""

    PAST_A = "past_a", "A side passed A (过A)."
    DEALS = "deals", "The number of deals was played."
    TIME = "time", "The time limit passed."
    EXTRA_DEAL = "extra_deal", "The extra deal after a tie decided it."
    FORFEIT = "forfeit", "A side lost by 判负 (two fouls, or a referee's forfeit)."
    ABANDONMENT = "abandonment", "A side came ten minutes or more late (弃权)."


@dataclass
class DealRow:
    """One row of the score sheet."""

    deal: int
    level: str                      # the level played
    order: list[Seat]               # finishing order, 上游 first (双上: the other two in play order)
    winner: Side | None             # side of 上游 (None for an unfinished deal)
    upgrade: int
    levels_after: dict[Side, str]
    t_start: float
    t_end: float
    ended_by: EndedBy = EndedBy.PLAY
    penalties: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"deal": self.deal, "level": self.level, "order": list(self.order),
                "winner": self.winner, "upgrade": self.upgrade,
                "levels_after": dict(self.levels_after), "ended_by": self.ended_by,
                "t_start": self.t_start, "t_end": self.t_end,
                "penalties": [dict(p) for p in self.penalties]}


@dataclass
class MatchResult:
    winner: Side | None             # None for a draw
    reason: Reason
    levels: dict[Side, int]         # recorded levels (after forfeit scoring)
    points: dict[Side, int]         # match points 2/1/0
    level_points: dict[Side, int]   # 级差分
    levels_gained: dict[Side, int]  # 升级数
    t: float

    def to_dict(self) -> dict[str, Any]:
        return {"winner": self.winner, "reason": self.reason,
                "levels": {s: level_label(v) for s, v in self.levels.items()},
                "points": dict(self.points), "level_points": dict(self.level_points),
                "levels_gained": dict(self.levels_gained), "t": self.t}


class Match:
    """Levels and deals of one match at one table."""

    def __init__(self, settings: Settings, levels: dict[Side, int] | None = None) -> None:
        self.settings = settings
        self.levels: dict[Side, int] = dict(levels or {s: START_LEVEL for s in SIDES})
        self.rows: list[DealRow] = []
        self.owner: Side | None = None        # side whose level is played (won the last deal)
        self.started_at: float | None = None
        self.extra_deal = False              # the next deal decides a tie
        self.result: MatchResult | None = None

    # -- the deal to come -------------------------------------------------
    def deal_level(self) -> str:
        """The level of the next deal: the level of the last deal's winning side
        (2 for the first deal and for an extra deal)."""
        if self.extra_deal or self.owner is None:
            return level_label(START_LEVEL)
        return level_label(min(self.levels[self.owner], 14))

    def start(self, t: float) -> None:
        if self.started_at is None:
            self.started_at = t

    def time_up(self, t: float) -> bool:
        """True once a timed match's limit has passed at ``t``."""
        s = self.settings
        if s.minutes is None or self.started_at is None or s.match_format not in ("time", "time_deals"):
            return False
        return t >= self.started_at + s.minutes * 60.0

    # -- recording ----------------------------------------------------------
    def record_deal(self, deal: int, order: Sequence[Seat], t_start: float, t_end: float,
                    ended_by: EndedBy = EndedBy.PLAY, penalties: list[dict[str, Any]] | None = None) -> DealRow:
        """Score a finished deal (``order``: 上游 first; for a foul, the non-offending
        side's seats first) and end the match if a limit is reached."""
        level = self.deal_level()
        if self.extra_deal:
            winner = side_of(order[0])
            row = DealRow(deal, level, list(order), winner, 0,
                          {s: level_label(v) for s, v in self.levels.items()}, t_start, t_end,
                          EndedBy.EXTRA, list(penalties or []))
            self.rows.append(row)
            self._finish(winner, Reason.EXTRA_DEAL, t_end)
            return row
        winner, up = deal_upgrade(order)
        # the deal was played at the owner's level: a side at A passes it only at its own A
        played = START_LEVEL if self.owner is None else min(self.levels[self.owner], ACE)
        self.levels[winner] = raise_level(self.levels[winner], up,
                                          at_own_level=self.levels[winner] == played)
        self.owner = winner
        row = DealRow(deal, level, list(order), winner, up,
                      {s: level_label(v) for s, v in self.levels.items()}, t_start, t_end,
                      ended_by, list(penalties or []))
        self.rows.append(row)
        self._check_end(t_end)
        return row

    def record_penalty(self, entry: dict[str, Any]) -> None:
        """A penalty given between deals: it goes on the last deal's row (none before the first)."""
        if self.rows:
            self.rows[-1].penalties.append(entry)

    def _check_end(self, t: float) -> None:
        owner = self.owner
        assert owner is not None      # record_deal named it
        if self.levels[owner] == PAST_A:
            self._finish(owner, Reason.PAST_A, t)
            return
        s = self.settings
        reason = None
        if s.match_format in ("deals", "time_deals") and len(self.rows) >= (s.deals or 0):
            reason = Reason.DEALS
        elif self.time_up(t):
            reason = Reason.TIME
        if reason is not None:
            self._decide(reason, t)

    def close_on_time(self, t: float) -> None:
        """End a timed match whose limit passed between deals."""
        if self.result is None and not self.extra_deal and self.time_up(t):
            self._decide(Reason.TIME, t)

    def _decide(self, reason: Reason, t: float) -> None:
        """The higher level wins; equal levels draw or go to an extra deal."""
        s = self.settings
        a, b = SIDES
        if self.levels[a] != self.levels[b]:
            self._finish(a if self.levels[a] > self.levels[b] else b, reason, t)
        elif s.tie == "extra_deal":
            self.extra_deal = True
        else:
            self._finish(None, reason, t)

    def _finish(self, winner: Side | None, reason: Reason, t: float,
                levels: dict[Side, int] | None = None) -> None:
        levels = dict(levels or self.levels)
        if winner is None:
            points = {s: MATCH_POINTS["draw"] for s in SIDES}
        else:
            points = {winner: MATCH_POINTS["win"], opponents(winner): MATCH_POINTS["loss"]}
        a, b = SIDES
        if reason is Reason.ABANDONMENT and winner is not None:
            lp = {winner: ABANDONMENT_POINTS[0], opponents(winner): ABANDONMENT_POINTS[1]}
        else:
            lp = {a: level_difference_points(levels[a], levels[b]),
                  b: level_difference_points(levels[b], levels[a])}
        self.result = MatchResult(winner, reason, levels, points, lp,
                                  {s: levels_gained(levels[s]) for s in SIDES}, t)

    def forfeit(self, offender: Side, t: float, abandonment: bool = False) -> MatchResult:
        """End the match against ``offender`` (two fouls: 判负; or 弃权)."""
        winner = opponents(offender)
        levels = dict(self.levels)
        if not abandonment:
            levels[winner], levels[offender] = forfeit_levels(levels[winner], levels[offender])
        self._finish(winner, Reason.ABANDONMENT if abandonment else Reason.FORFEIT, t, levels)
        assert self.result is not None
        return self.result

    # -- the score sheet ------------------------------------------------------
    def score_sheet(self) -> dict[str, Any]:
        """The sheet as a JSON-ready dict: format, one row per deal, the result."""
        return {"format": self.settings.describe_format(),
                "rows": [r.to_dict() for r in self.rows],
                "levels": {s: level_label(v) for s, v in self.levels.items()},
                "result": self.result.to_dict() if self.result else None}

    def score_sheet_csv(self) -> str:
        """The sheet as CSV text: one row per deal."""
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["deal", "level", "order", "winner", "upgrade", "NS_after", "EW_after",
                    "ended_by", "penalties"])
        for r in self.rows:
            pens = "; ".join(f"{p['side']} {p['penalty']} {p['code']}" for p in r.penalties)
            w.writerow([r.deal, r.level, " ".join(r.order), r.winner or "", r.upgrade,
                        r.levels_after[Side.NS], r.levels_after[Side.EW], r.ended_by, pens])
        if self.result:
            res = self.result
            w.writerow(["result", "", "", res.winner or "draw", "",
                        level_label(res.levels[Side.NS]), level_label(res.levels[Side.EW]), res.reason,
                        f"points NS {res.points[Side.NS]} EW {res.points[Side.EW]}; "
                        f"级差分 NS {res.level_points[Side.NS]} EW {res.level_points[Side.EW]}"])
        return out.getvalue()
