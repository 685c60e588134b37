"""The penalty ladder, kept per side per match (《江苏省掼蛋竞赛规则（2023）》 七).

警告 warning -> two warnings in a match make a 违例 infraction -> two
infractions a 犯规 foul -> two fouls a 判负 forfeit. A penalty given directly
(an infraction for playing out of turn, a foul for a wrong tribute already
followed by play) counts on the same ladder.

>>> ladder = Ladder()
>>> ladder.add("NS", "warning")
[]
>>> ladder.add("NS", "warning")      # the second warning: an infraction
['infraction']
>>> ladder.add("NS", "infraction")   # the second infraction: a foul
['foul']
>>> ladder.counts("NS")
{'warning': 2, 'infraction': 2, 'foul': 1}
"""

from __future__ import annotations

PENALTIES = ("warning", "infraction", "foul", "forfeit")
PENALTY_CN = {"warning": "警告", "infraction": "违例", "foul": "犯规", "forfeit": "判负"}
_NEXT_STEP = {"warning": "infraction", "infraction": "foul", "foul": "forfeit"}


class Ladder:
    """Counts of penalties per side; :meth:`add` returns the steps they trigger."""

    __slots__ = ("_counts",)

    def __init__(self) -> None:
        self._counts: dict[str, dict[str, int]] = {}

    def add(self, side: str, penalty: str) -> list[str]:
        """Record ``penalty`` for ``side``; return the further steps it makes
        (each second warning an infraction, and so on up), lowest first."""
        if penalty not in PENALTIES:
            raise ValueError(f"unknown penalty {penalty!r} (expected one of {', '.join(PENALTIES)})")
        counts = self._counts.setdefault(side, {"warning": 0, "infraction": 0, "foul": 0})
        steps: list[str] = []
        while penalty != "forfeit":
            counts[penalty] += 1
            if counts[penalty] % 2:
                break
            penalty = _NEXT_STEP[penalty]
            steps.append(penalty)
        return steps

    def counts(self, side: str) -> dict[str, int]:
        return dict(self._counts.get(side, {"warning": 0, "infraction": 0, "foul": 0}))
