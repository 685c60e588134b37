"""Deal results and match scoring: upgrades, the A rule, 级差分, forfeits.

Levels are rank numbers: 2..14 for 2..A, and ``PAST_A`` (15) once a side has
played and won its A deal (打过A). Rule references: 《江苏省掼蛋竞赛规则（2023）》.

Upgrades (五(七) 升级): only 上游's side goes up; partner 二游 +3, 三游 +2,
下游 +1. A must be played (A级必打): a side never jumps past A, and a side at A
passes it only with 上游 and the partner 二游 or 三游.

>>> deal_upgrade(["S", "N", "E", "W"])
(<Side.NS: 'NS'>, 3)
>>> deal_upgrade(["E", "S", "N", "W"])
(<Side.EW: 'EW'>, 1)
>>> next_levels({"NS": 12, "EW": 5}, ["S", "N"])    # Q +3 stops at A
{'NS': 14, 'EW': 5}
>>> next_levels({"NS": 14, "EW": 5}, ["S", "E", "W", "N"])["NS"]   # A, partner 下游: not past
14
>>> next_levels({"NS": 14, "EW": 5}, ["S", "E", "N", "W"])["NS"]   # A, partner 三游: 过A
15
>>> next_levels({"NS": 14, "EW": 5}, ["S", "N"], played=5)["NS"]   # 双上 at EW's 5: still A
14

级差分 (第四章 二, 13 levels / 26 points): each side scores 13 plus its own
level minus the opponents', clamped to 0..26; past A counts one above A.

>>> level_difference_points(14, 9), level_difference_points(9, 14)
(18, 8)

Forfeit (七(四) 判负): the winner is recorded at the offender's level + 4,
the offender's level first lowered to J if higher; a winner already leading by
more than 4 keeps the table score. An abandonment (弃权) scores 级差分 17:0.

>>> forfeit_levels(winner=6, offender=13)   # K lowered to J, winner J+4 = past A
(15, 11)
>>> forfeit_levels(winner=12, offender=5)   # already 7 ahead: table score stands
(12, 5)
"""

from __future__ import annotations

from typing import Sequence

from referee.cards import level_name as _rank_name
from referee.seating import Seat, Side, partner, side_of

START_LEVEL = 2
ACE = 14
PAST_A = 15
JACK = 11
UPGRADE_BY_PARTNER_PLACE = {2: 3, 3: 2, 4: 1}   # partner's finishing place -> levels up
MATCH_POINTS = {"win": 2, "draw": 1, "loss": 0}
ABANDONMENT_POINTS = (17, 0)


def level_label(level: int) -> str:
    """'2'..'A', or 'A+' for a side that has passed A.

    >>> level_label(10), level_label(15)
    ('10', 'A+')
    """
    return "A+" if level == PAST_A else _rank_name(level)


def deal_upgrade(order: Sequence[Seat]) -> tuple[Side, int]:
    """(winning side, levels up) from a finishing order, 上游 first.

    ``order`` needs 上游 and enough places to find the partner; a deal that
    ended 双上 may list only the first two seats.
    """
    if len(order) < 2:
        raise ValueError(f"a finishing order needs at least 上游 and 二游, got {list(order)}")
    first = order[0]
    mate = partner(first)
    place = order.index(mate) + 1 if mate in order else 4
    return side_of(first), UPGRADE_BY_PARTNER_PLACE[place]


def raise_level(level: int, up: int, at_own_level: bool = True) -> int:
    """The level after going up ``up`` levels, with the A rule: a side below A
    stops at A; a side at A passes only in a deal played at its own A
    (``at_own_level``) and with ``up >= 2`` (partner not 下游): 2023 五(七)
    "A 级必打，获得上游，且对家获得二游或三游，才能打过 A 级"; 2022 第二条13
    "打A级的一方一家为上游". A side at A that wins at the opponents' level stays at A.

    >>> raise_level(14, 3), raise_level(14, 3, at_own_level=False), raise_level(14, 1)
    (15, 14, 14)
    """
    if level >= ACE:
        return PAST_A if up >= 2 and at_own_level else level
    return min(ACE, level + up)


def next_levels(levels: dict[Side, int], order: Sequence[Seat], played: int | None = None) -> dict[Side, int]:
    """Both sides' levels after a deal played at level ``played`` (default: the
    winning side's own) finished in ``order``."""
    side, up = deal_upgrade(order)
    out = dict(levels)
    own = played is None or min(levels[side], ACE) == played
    out[side] = raise_level(levels[side], up, at_own_level=own)
    return out


def level_difference_points(own: int, opponent: int) -> int:
    """级差分 on the 13-level / 26-point scale: 13 + own - opponent, within 0..26."""
    return max(0, min(26, 13 + own - opponent))


def forfeit_levels(winner: int, offender: int) -> tuple[int, int]:
    """(winner's level, offender's level) recorded for a match lost by 判负."""
    if winner - offender > 4:
        return winner, offender
    off = min(offender, JACK)
    return off + 4, off


def levels_gained(level: int) -> int:
    """升级数: levels gained from the start at 2 (past A = 13)."""
    return level - START_LEVEL
