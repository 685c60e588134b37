"""The penalty ladder, kept per side per match (《江苏省掼蛋竞赛规则（2023）》 七).

警告 warning -> two warnings in a match make a 违例 infraction -> two
infractions a 犯规 foul -> two fouls a 判负 forfeit. A penalty given directly
(an infraction for playing out of turn, a foul for a wrong tribute already
followed by play) counts on the same ladder.

>>> ladder = Ladder()
>>> ladder.add(Side.NS, Penalty.WARNING)
[]
>>> ladder.add(Side.NS, Penalty.WARNING)      # the second warning: an infraction
[<Penalty.INFRACTION: 'infraction'>]
>>> ladder.add(Side.NS, Penalty.INFRACTION)   # the second infraction: a foul
[<Penalty.FOUL: 'foul'>]
>>> ladder.counts(Side.NS) == {"warning": 2, "infraction": 2, "foul": 1}
True
>>> Penalty.FOUL.cn, Penalty.FOUL.next_step
('犯规', <Penalty.FORFEIT: 'forfeit'>)
"""

from __future__ import annotations

import enum
from typing import Self

from referee.seating import Side


class Penalty(enum.StrEnum):
    """A rung of the ladder, lowest first; ``cn`` is the rules' term."""

    cn: str

    def __new__(cls, value: str, cn: str = "", doc: str = "") -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.cn, member.__doc__ = cn, doc
        return member

    WARNING = "warning", "警告", "警告: counted; a second one in the match makes an infraction."
    INFRACTION = "infraction", "违例", "违例: in play, the offender's 下家 may stop its next play."
    FOUL = "foul", "犯规", "犯规: the deal ends with the offending side 双下, no tribute next deal."
    FORFEIT = "forfeit", "判负", "判负: the match is lost (abandonment, 弃权, for lateness)."

    @property
    def next_step(self) -> Penalty | None:
        """What two of this penalty in one match make (None for a forfeit)."""
        return _NEXT_STEP.get(self)


#: Every penalty, lowest first.
PENALTIES: tuple[Penalty, ...] = tuple(Penalty)
#: Penalty -> its Chinese term.
PENALTY_CN: dict[Penalty, str] = {p: p.cn for p in Penalty}
_NEXT_STEP = {Penalty.WARNING: Penalty.INFRACTION, Penalty.INFRACTION: Penalty.FOUL,
              Penalty.FOUL: Penalty.FORFEIT}
_COUNTED = (Penalty.WARNING, Penalty.INFRACTION, Penalty.FOUL)


class Ladder:
    """Counts of penalties per side; :meth:`add` returns the steps they trigger."""

    __slots__ = ("_counts",)

    def __init__(self) -> None:
        self._counts: dict[Side, dict[Penalty, int]] = {}

    def add(self, side: Side, penalty: Penalty) -> list[Penalty]:
        """Record ``penalty`` for ``side``; return the further steps it makes
        (each second warning an infraction, and so on up), lowest first."""
        if penalty not in PENALTIES:
            raise ValueError(f"unknown penalty {penalty!r} (expected one of {', '.join(PENALTIES)})")
        counts = self._counts.setdefault(side, dict.fromkeys(_COUNTED, 0))
        steps: list[Penalty] = []
        step: Penalty | None = Penalty(penalty)
        while step is not None and step is not Penalty.FORFEIT:
            counts[step] += 1
            if counts[step] % 2:
                break
            step = _NEXT_STEP[step]
            steps.append(step)
        return steps

    def counts(self, side: Side) -> dict[Penalty, int]:
        """How many of each penalty (but forfeit) ``side`` has had this match."""
        return dict(self._counts.get(side, dict.fromkeys(_COUNTED, 0)))
