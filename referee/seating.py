"""Seats, partners, sides and the order of play.

Play goes counter-clockwise, S -> E -> N -> W -> S; each seat's 下家 (next
seat) plays after it. Partners sit opposite: S-N and E-W. A side is named by
its two seats, ``"NS"`` or ``"EW"``.

>>> next_seat("S"), prev_seat("S"), partner("E"), side_of("N")
('E', 'W', 'W', 'NS')
>>> opponents("NS")
'EW'
"""

from __future__ import annotations

PLAY_ORDER = ("S", "E", "N", "W")
SIDES = ("NS", "EW")

_NEXT = {s: PLAY_ORDER[(i + 1) % 4] for i, s in enumerate(PLAY_ORDER)}
_PREV = {s: PLAY_ORDER[(i - 1) % 4] for i, s in enumerate(PLAY_ORDER)}
_PARTNER = {"S": "N", "N": "S", "E": "W", "W": "E"}
_SIDE = {"S": "NS", "N": "NS", "E": "EW", "W": "EW"}


def next_seat(seat: str) -> str:
    """The seat that acts after ``seat`` (its 下家)."""
    return _NEXT[seat]


def prev_seat(seat: str) -> str:
    """The seat that acts before ``seat`` (its 上家); also the next seat clockwise."""
    return _PREV[seat]


def partner(seat: str) -> str:
    """The seat opposite (对家)."""
    return _PARTNER[seat]


def side_of(seat: str) -> str:
    """``"NS"`` or ``"EW"``."""
    return _SIDE[seat]


def opponents(side: str) -> str:
    """The other side."""
    return "EW" if side == "NS" else "NS"


def seats_of(side: str) -> tuple[str, str]:
    """The two seats of a side, in play order from S."""
    return tuple(s for s in PLAY_ORDER if _SIDE[s] == side)  # type: ignore[return-value]
