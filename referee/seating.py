"""Seats, partners, sides and the order of play.

Play goes counter-clockwise, S -> E -> N -> W -> S (:data:`PLAY_ORDER`); each
seat's 下家 (next seat) plays after it. Partners sit opposite: S-N and E-W. A
side is named by its two seats, ``"NS"`` or ``"EW"``. Seats are listed (in
forms, messages, docs/events.md) in the order E S W N: the order of :class:`Seat`
itself, :data:`SEATS`.

>>> next_seat(Seat.S), prev_seat(Seat.S), partner(Seat.E), side_of(Seat.N)
(<Seat.E: 'E'>, <Seat.W: 'W'>, <Seat.W: 'W'>, <Side.NS: 'NS'>)
>>> opponents(Side.NS), next_seat("S") == "E"
(<Side.EW: 'EW'>, True)
"""

from __future__ import annotations

import enum


class Seat(enum.StrEnum):
    """A seat at the table, named by its compass point (members in listing order)."""

    E = "E"
    """East: partner of W; plays after S."""
    S = "S"
    """South: partner of N; at the bottom of the camera's view."""
    W = "W"
    """West: partner of E; plays after N."""
    N = "N"
    """North: partner of S; plays after E."""


class Side(enum.StrEnum):
    """A partnership, named by its two seats."""

    NS = "NS"
    """North and South."""
    EW = "EW"
    """East and West."""


#: Every seat in listing order, E S W N (events, forms, zone names).
SEATS: tuple[Seat, ...] = tuple(Seat)
#: The counter-clockwise order of play from S; every "in play order" below means this.
PLAY_ORDER: tuple[Seat, ...] = (Seat.S, Seat.E, Seat.N, Seat.W)
#: Both sides, NS first (levels, ladders and score sheets list them so).
SIDES: tuple[Side, ...] = (Side.NS, Side.EW)

_NEXT = {s: PLAY_ORDER[(i + 1) % 4] for i, s in enumerate(PLAY_ORDER)}
_PREV = {s: PLAY_ORDER[(i - 1) % 4] for i, s in enumerate(PLAY_ORDER)}
_PARTNER = {Seat.S: Seat.N, Seat.N: Seat.S, Seat.E: Seat.W, Seat.W: Seat.E}
_SIDE = {Seat.S: Side.NS, Seat.N: Side.NS, Seat.E: Side.EW, Seat.W: Side.EW}
_OPPONENTS = {Side.NS: Side.EW, Side.EW: Side.NS}
_SEATS_OF = {side: (PLAY_ORDER[0], PLAY_ORDER[2]) if side is Side.NS else (PLAY_ORDER[1], PLAY_ORDER[3])
             for side in SIDES}
_SEAT_BY_NAME: dict[str, Seat] = {s.value: s for s in Seat}
_SIDE_BY_NAME: dict[str, Side] = {s.value: s for s in Side}


def seat_named(name: object) -> Seat | None:
    """The seat called ``name`` (``"S"`` or :attr:`Seat.S`), or None: a cheap check at the edge.

    >>> seat_named("N"), seat_named("Q")
    (<Seat.N: 'N'>, None)
    """
    return _SEAT_BY_NAME.get(name) if isinstance(name, str) else None


def side_named(name: object) -> Side | None:
    """The side called ``name`` (``"NS"`` or ``"EW"``), or None."""
    return _SIDE_BY_NAME.get(name) if isinstance(name, str) else None


def next_seat(seat: Seat) -> Seat:
    """The seat that acts after ``seat`` (its 下家)."""
    return _NEXT[seat]


def prev_seat(seat: Seat) -> Seat:
    """The seat that acts before ``seat`` (its 上家); also the next seat clockwise."""
    return _PREV[seat]


def partner(seat: Seat) -> Seat:
    """The seat opposite (对家)."""
    return _PARTNER[seat]


def side_of(seat: Seat) -> Side:
    """The side ``seat`` plays for."""
    return _SIDE[seat]


def opponents(side: Side) -> Side:
    """The other side."""
    return _OPPONENTS[side]


def seats_of(side: Side) -> tuple[Seat, Seat]:
    """The two seats of a side, in play order from S."""
    return _SEATS_OF[side]
