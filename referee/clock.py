"""Clocks for the tribute, return and play limits, driven only by event time.

Each running limit is a :class:`Timer`. When its limit runs out the referee
counts down (读秒, ``countdown`` seconds); when the countdown ends too, the
seat is overtime (出牌/贡还牌超时: a warning, 《江苏省掼蛋竞赛规则（2023）》
七(一)5). Limits are inclusive ("20 秒（含）以内"): acting exactly at the
limit is in time, so a step fires only once time has passed it.

>>> clocks = Clocks(countdown=10)
>>> clocks.start(Purpose.PLAY, Seat.E, t=0.0, limit=20)
>>> clocks.advance(20.0)
[]
>>> [(s.t, s.kind, s.seat) for s in clocks.advance(25.0)]
[(20.0, 'countdown', <Seat.E: 'E'>)]
>>> [(s.t, s.kind, s.seat) for s in clocks.advance(41.0)]
[(30.0, 'overtime', <Seat.E: 'E'>)]
>>> clocks.advance(99.0)
[]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from referee.codes import DocumentedEnum
from referee.seating import Seat


class Purpose(DocumentedEnum):
    """What a seat's limit is for (``purpose`` of ``turn`` and ``countdown`` decisions)."""

    TRIBUTE = "tribute", "贡牌: give tribute (20 s after the deal starts)."
    RETURN = "return", "还牌: return a card (40 s after the tribute)."
    LEAD = "lead", "领出: lead a trick (40 s for the first lead of a deal, else the play limit)."
    PLAY = "play", "跟牌: play or pass on the trick (20 s)."


class ClockStep(NamedTuple):
    t: float          # when it happened (the limit or the end of the countdown)
    kind: str         # 'countdown' or 'overtime'
    seat: Seat
    purpose: Purpose
    started: float    # when the limit began


@dataclass(slots=True)
class Timer:
    purpose: Purpose
    seat: Seat
    started: float
    limit: float
    stage: int = 0    # 0 running, 1 counting down, 2 overtime given

    def next_step(self, countdown: float) -> tuple[float, str] | None:
        if self.stage == 0:
            return self.started + self.limit, "countdown"
        if self.stage == 1:
            return self.started + self.limit + countdown, "overtime"
        return None


class Clocks:
    """The running timers of one table, keyed by seat (one limit per seat at a time)."""

    __slots__ = ("countdown", "_timers")

    def __init__(self, countdown: float) -> None:
        self.countdown = countdown
        self._timers: dict[Seat, Timer] = {}

    def start(self, purpose: Purpose, seat: Seat, t: float, limit: float) -> None:
        """Start (or restart) ``seat``'s limit at time ``t``."""
        self._timers[seat] = Timer(purpose, seat, t, limit)

    def stop(self, seat: Seat) -> Timer | None:
        """Stop ``seat``'s timer (it acted); returns it, or None if none ran."""
        return self._timers.pop(seat, None)

    def clear(self) -> None:
        self._timers.clear()

    def running(self) -> list[Timer]:
        return list(self._timers.values())

    def advance(self, t: float) -> list[ClockStep]:
        """Every countdown and overtime step due strictly before ``t``, in time order."""
        steps: list[ClockStep] = []
        if not self._timers:
            return steps
        for timer in self._timers.values():
            while True:
                nxt = timer.next_step(self.countdown)
                if nxt is None or nxt[0] >= t:
                    break
                steps.append(ClockStep(nxt[0], nxt[1], timer.seat, timer.purpose, timer.started))
                timer.stage += 1
        steps.sort(key=lambda s: (s.t, s.seat))
        return steps
