"""Standings: match points and the tie-break order of the rules.

《江苏省掼蛋竞赛规则（2023）》 附 二、积分排名办法: a win scores 2 match points,
a draw 1, a loss 0; more total points rank higher. Equal totals compare, in
turn, cumulative points (累进分, Swiss; optionally from round 2, 去首累进分)
or head-to-head points (直胜, round robin), rounds won (胜轮数),
level-difference points (级差分, 13 levels / 26 points per match) and levels
gained (升级数); still equal, lots (抽签) decide: here a draw seeded by the
event's name, so the order is reproducible and shown as decided by lots.

>>> results = [MatchResult(1, "A", "B", 2, 0, 16, 10, 6, 3),
...            MatchResult(1, "C", "D", 1, 1, 14, 12, 4, 4)]
>>> [(row.rank, row.team, row.points, row.decided_by) for row in standings(results)]
[(1, 'A', 2, ''), (2, 'C', 1, 'points'), (3, 'D', 1, 'level_points'), (4, 'B', 0, 'points')]
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal


@dataclass(frozen=True)
class MatchResult:
    """One match between two teams, as the score sheet ends it."""

    round: int
    team_a: str
    team_b: str
    points_a: int          # match points 2/1/0
    points_b: int
    level_points_a: int    # 级差分 0..26
    level_points_b: int
    levels_gained_a: int   # 升级数
    levels_gained_b: int


@dataclass
class Standing:
    team: str
    points: int = 0
    cumulative: int = 0           # 累进分 (Swiss)
    head_to_head: int = 0         # 直胜, among the teams tied on points
    rounds_won: int = 0           # 胜轮数
    level_points: int = 0         # 级差分
    levels_gained: int = 0        # 升级数
    matches: int = 0
    rank: int = 0
    decided_by: str = ""          # the criterion that separated it from the team above
    by_round: dict[int, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "by_round"}


CRITERIA_SWISS = ("points", "cumulative", "rounds_won", "level_points", "levels_gained")
CRITERIA_ROUND_ROBIN = ("points", "head_to_head", "rounds_won", "level_points", "levels_gained")


def standings(results: Iterable[MatchResult],
              system: Literal["swiss", "round_robin"] = "swiss",
              cumulative_from_round: int = 1,
              lots_seed: str = "") -> list[Standing]:
    """Rank the teams of ``results``; see the module docstring for the order."""
    results = list(results)
    table: dict[str, Standing] = {}
    for r in results:
        for team, pts, lp, lg in ((r.team_a, r.points_a, r.level_points_a, r.levels_gained_a),
                                  (r.team_b, r.points_b, r.level_points_b, r.levels_gained_b)):
            s = table.setdefault(team, Standing(team))
            s.points += pts
            s.level_points += lp
            s.levels_gained += lg
            s.rounds_won += pts == 2
            s.matches += 1
            s.by_round[r.round] = s.by_round.get(r.round, 0) + pts
    # 累进分: the sum over rounds of the running total after each round
    for s in table.values():
        running = 0
        for rnd in sorted(s.by_round):
            running += s.by_round[rnd]
            if rnd >= cumulative_from_round:
                s.cumulative += running
    if system == "round_robin":
        by_points: dict[int, set[str]] = {}
        for s in table.values():
            by_points.setdefault(s.points, set()).add(s.team)
        for r in results:
            tied = by_points[table[r.team_a].points]
            if r.team_b in tied:
                table[r.team_a].head_to_head += r.points_a
                table[r.team_b].head_to_head += r.points_b
    criteria = CRITERIA_ROUND_ROBIN if system == "round_robin" else CRITERIA_SWISS
    lots = random.Random(lots_seed)
    draw = {team: lots.random() for team in sorted(table)}

    def key(s: Standing) -> tuple[Any, ...]:
        return tuple(getattr(s, c) for c in criteria) + (draw[s.team],)

    ordered = sorted(table.values(), key=key, reverse=True)
    for i, s in enumerate(ordered):
        s.rank = i + 1
        if i:
            above = ordered[i - 1]
            s.decided_by = next((c for c in criteria if getattr(s, c) != getattr(above, c)), "lots")
    return ordered
