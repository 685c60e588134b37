"""Events: what sources (vision, devices, a referee's hand, a replay) observed.

The shape follows docs/events.md: one flat JSON object per event, ``t`` in seconds.
An :class:`Event` is a small immutable value; :meth:`Event.from_dict` checks a
decoded JSON object and raises :class:`EventError` naming the bad field.

>>> e = Event.from_dict({"t": 12.3, "table": "T01", "type": "play",
...                      "seat": "S", "cards": ["S3", "D3"]})
>>> e.seat, e.cards, e.source
(<Seat.S: 'S'>, ('S3', 'D3'), 'manual')
>>> e.to_dict()["cards"]
['S3', 'D3']
"""

from __future__ import annotations

import collections
import json
from types import MappingProxyType
from typing import Any, Mapping

from referee.seating import SEATS, Seat

__all__ = ["SEATS", "SOURCES", "EVENT_FIELDS", "EventError", "Event"]
SOURCES = ("vision", "device", "manual", "replay")

# type -> fields it must carry (beyond t, table, type)
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "deal_start": ("deal", "level"),       # optional: leader
    "tribute": ("seat", "card"),
    "return": ("seat", "card"),
    "anti_tribute": ("seat", "cards"),
    "play": ("seat", "cards"),
    "pass": ("seat",),
    "report": ("seat", "count"),
    "report_clear": ("seat",),             # report card taken back (device CLEAR)
    "zone_clear": ("seat",),               # a play zone cleared (end of trick)
    "tick": (),                            # time moves on, nothing else happened
    "device_status": ("device", "online"), # a device came online / went silent
    "referee": ("action",),                # void, penalty, correct, choice, ...
}


class EventError(ValueError):
    """A malformed event: the message names the field at fault."""


_NO_EXTRA: Mapping[str, Any] = MappingProxyType({})
_SEAT_BY_NAME: dict[Any, Seat] = {s.value: s for s in SEATS}
_SOURCE_SET = frozenset(SOURCES)
_CORE = frozenset(("type", "t", "table", "seat", "cards", "card", "count",
                   "source", "confidence", "id", "uid"))


# The tuple underneath Event. Built with collections.namedtuple because the field
# ``count`` shadows tuple.count, which typing.NamedTuple's type check refuses;
# the annotations on Event give every field its type.
_EventTuple = collections.namedtuple(
    "_EventTuple", ("type", "t", "table", "seat", "cards", "card", "count", "source",
                    "confidence", "id", "uid", "extra"),
    defaults=("T01", None, None, None, None, "manual", None, None, None, _NO_EXTRA))


class Event(_EventTuple):
    """One observed event. A named tuple: cheap to make, immutable, compared by value."""

    __slots__ = ()

    type: str
    t: float
    table: str
    seat: Seat | None
    cards: tuple[str, ...] | None
    card: str | None
    count: int | None
    source: str
    confidence: float | None
    id: int | None               # position in the table's log, set by the store
    uid: str | None              # globally unique id from the source, for de-duplication
    extra: Mapping[str, Any]     # type-specific fields

    def with_id(self, id: int) -> "Event":
        """This event at position ``id`` of its table's log (cheaper than ``_replace``)."""
        return tuple.__new__(Event, (*self[:9], id, *self[10:]))

    def get(self, name: str, default: Any = None) -> Any:
        """A field by name, core or extra."""
        if name in _CORE:
            value = getattr(self, name)
            return default if value is None else value
        return self.extra.get(name, default)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"t": self.t, "table": self.table, "type": self.type}
        for name in ("seat", "cards", "card", "count", "source", "confidence", "id", "uid"):
            value = getattr(self, name)
            if value is not None:
                out[name] = list(value) if name == "cards" else value
        if self.extra:
            out.update(self.extra)
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Event":
        # On the replay path: exact type tests (bool is not a number here) and
        # one pass over the keys keep it cheap.
        if not isinstance(d, Mapping):
            raise EventError("an event must be a JSON object")
        etype = d.get("type")
        required = EVENT_FIELDS.get(etype) if isinstance(etype, str) else None
        if required is None:
            raise EventError(f"unknown event type {etype!r}")
        t = d.get("t")
        if t.__class__ is not float and t.__class__ is not int:
            raise EventError(f"{etype}: field 't' must be a number of seconds, got {t!r}")
        for name in required:
            if name not in d:
                raise EventError(f"{etype}: missing field {name!r}")
        seat_name = d.get("seat")
        seat = None
        if seat_name is not None:
            # decoded to a Seat here, once, so the fold compares and keys members
            seat = _SEAT_BY_NAME.get(seat_name)
            if seat is None:
                raise EventError(f"{etype}: bad seat {seat_name!r} (expected one of E S W N)")
        source = d.get("source", "manual")
        if source not in _SOURCE_SET:
            raise EventError(f"{etype}: bad source {source!r}")
        cards = d.get("cards")
        if cards is not None:
            if cards.__class__ is str:
                cards = cards.split()
            if not isinstance(cards, (list, tuple)) or any(c.__class__ is not str for c in cards):
                raise EventError(f"{etype}: 'cards' must be a list of card codes")
            cards = tuple(cards)
        count = d.get("count")
        if count is not None and count.__class__ is not int:
            raise EventError(f"{etype}: 'count' must be an integer")
        conf = d.get("confidence")
        if conf is not None:
            if conf.__class__ is not float and conf.__class__ is not int:
                raise EventError(f"{etype}: 'confidence' must be a number")
            conf = float(conf)
        extra = _NO_EXTRA
        for k in d:
            if k not in _CORE:
                extra = {k: v for k, v in d.items() if k not in _CORE}
                break
        table = d.get("table", "T01")
        return cls(etype, float(t), table if table.__class__ is str else str(table), seat, cards,
                   d.get("card"), count, source, conf, d.get("id"), d.get("uid"), extra)

    @classmethod
    def from_json(cls, line: str) -> "Event":
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EventError(f"not valid JSON: {exc.msg} at column {exc.colno}") from None
        return cls.from_dict(d)
