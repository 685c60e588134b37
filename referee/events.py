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

from referee.seating import SEATS, SIDES, Seat
from referee.settings import Settings, SettingsError

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
    "settings": ("settings",),             # the match's settings from here on; optional: teams, players, captains
}


class EventError(ValueError):
    """A malformed event: the message names the field at fault."""


_NO_EXTRA: Mapping[str, Any] = MappingProxyType({})
_SEAT_BY_NAME: dict[Any, Seat] = {s.value: s for s in SEATS}
_SOURCE_SET = frozenset(SOURCES)
_CORE = frozenset(("type", "t", "table", "seat", "cards", "card", "count",
                   "source", "confidence", "id", "uid"))
_INF = float("inf")
# Bounds on what a source may send: a hand holds at most 28 cards (27 and a
# tribute), names and reasons are short; anything larger is a broken or hostile source.
MAX_CARDS = 28
MAX_TEXT = 200
MAX_EXTRA_TEXT = 2000
MAX_EXTRA_ITEMS = 64
MAX_EXTRA_DEPTH = 4


def _check_value(etype: object, name: str, value: Any, depth: int = 0) -> None:
    """An extra field's value: finite numbers, short strings without NUL, small
    containers (the log, JSON and PostgreSQL must all hold it as it is)."""
    if isinstance(value, float):
        if not -_INF < value < _INF:
            raise EventError(f"{etype}: field {name!r} must be a finite number, got {value!r}")
    elif isinstance(value, str):      # str-valued enums (a Seat) included
        if len(value) > MAX_EXTRA_TEXT or "\x00" in value:
            raise EventError(f"{etype}: field {name!r} must be text of at most {MAX_EXTRA_TEXT} "
                             f"characters without NUL")
    elif isinstance(value, (list, tuple, Mapping)):
        if depth >= MAX_EXTRA_DEPTH or len(value) > MAX_EXTRA_ITEMS:
            raise EventError(f"{etype}: field {name!r} is nested too deep or too long")
        if isinstance(value, Mapping):
            for k, v in value.items():
                if not isinstance(k, str):
                    raise EventError(f"{etype}: field {name!r} has a key that is not text")
                _check_value(etype, f"{name}.{k}", v, depth + 1)
        else:
            for v in value:
                _check_value(etype, name, v, depth + 1)
    elif value is not None and not isinstance(value, int):    # bool is an int
        raise EventError(f"{etype}: field {name!r} must be JSON data, got {type(value).__name__}")


def _text(etype: object, name: str, value: Any) -> None:
    if value.__class__ is not str or not 0 < len(value) <= MAX_TEXT or "\x00" in value:
        raise EventError(f"{etype}: {name!r} must be text of 1-{MAX_TEXT} characters, got {value!r:.60}")


def _check_settings(d: Mapping[str, Any]) -> None:
    """A ``settings`` event: known settings with valid values; teams and captains
    named per side, players per seat (who may sign the score sheet)."""
    values = d.get("settings")
    if not isinstance(values, Mapping):
        raise EventError("settings: 'settings' must be an object of match settings")
    try:
        Settings.from_dict(values)
    except (SettingsError, TypeError) as exc:
        raise EventError(f"settings: {exc}") from None
    _check_names(d, "teams", SIDES, "team", '{"NS": "...", "EW": "..."}')
    _check_names(d, "captains", SIDES, "captain", '{"NS": "...", "EW": "..."}')
    _check_names(d, "players", SEATS, "player", '{"N": "...", "E": "...", "S": "...", "W": "..."}')


def _check_names(d: Mapping[str, Any], field: str, keys: tuple[str, ...], what: str,
                 example: str) -> None:
    """An optional ``settings`` field naming one person or team per seat or side."""
    names = d.get(field)
    if names is None:
        return
    if not isinstance(names, Mapping) or any(k not in keys for k in names):
        raise EventError(f"settings: {field!r} must name a {what} by "
                         f"{'seat' if keys is SEATS else 'side'}, e.g. {example}")
    for name in names.values():
        _text("settings", what, name)


def _reject_constant(name: str) -> Any:
    raise EventError(f"not valid JSON: {name} is not a number")


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
        """The event a decoded JSON object describes, every field checked; raises
        :class:`EventError` naming the first bad one.

        Longer than 60 lines on purpose: it runs once per event on the replay
        path, where a helper call per core field costs about a tenth of the
        throughput; exact type tests (``bool`` is not a number here) and one pass
        over the keys keep it cheap. Rare fields are checked by helpers."""
        if not isinstance(d, Mapping):
            raise EventError("an event must be a JSON object")
        etype = d.get("type")
        required = EVENT_FIELDS.get(etype) if isinstance(etype, str) else None
        if required is None:
            raise EventError(f"unknown event type {etype!r}")
        t = d.get("t")
        if t.__class__ is not float and t.__class__ is not int:
            raise EventError(f"{etype}: field 't' must be a number of seconds, got {t!r}")
        if not 0 <= t < _INF:     # NaN fails every comparison
            raise EventError(f"{etype}: field 't' must be a finite number of seconds >= 0, got {t!r}")
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
            if not isinstance(cards, (list, tuple)) or len(cards) > MAX_CARDS \
                    or any(c.__class__ is not str or len(c) > 3 for c in cards):
                raise EventError(f"{etype}: 'cards' must be a list of at most {MAX_CARDS} card codes")
            cards = tuple(cards)
        card = d.get("card")
        if card is not None and (card.__class__ is not str or len(card) > 3):
            raise EventError(f"{etype}: 'card' must be a card code, got {card!r:.60}")
        count = d.get("count")
        if count is not None and (count.__class__ is not int or not 0 <= count <= MAX_CARDS):
            raise EventError(f"{etype}: 'count' must be a whole number of cards 0-{MAX_CARDS}, got {count!r}")
        conf = d.get("confidence")
        if conf is not None:
            if conf.__class__ is not float and conf.__class__ is not int or not 0 <= conf <= 1:
                raise EventError(f"{etype}: 'confidence' must be a number 0-1, got {conf!r}")
            conf = float(conf)
        ident, uid = d.get("id"), d.get("uid")
        if ident is not None and (ident.__class__ is not int or ident < 1):
            raise EventError(f"{etype}: 'id' must be a log position >= 1, got {ident!r}")
        if uid is not None:
            _text(etype, "uid", uid)
        extra = _NO_EXTRA
        for k in d:
            if k not in _CORE:
                extra = {k: v for k, v in d.items() if k not in _CORE}
                for name, value in extra.items():
                    _check_value(etype, name, value)
                break
        if etype == "settings":
            _check_settings(d)
        table = d.get("table", "T01")
        if table.__class__ is not str:
            table = str(table)
        _text(etype, "table", table)
        return cls(etype, float(t), table, seat, cards, card, count, source, conf, ident, uid, extra)

    @classmethod
    def from_json(cls, line: str) -> "Event":
        try:
            # NaN and Infinity are not JSON, though Python's decoder takes them by default
            d = json.loads(line, parse_constant=_reject_constant)
        except json.JSONDecodeError as exc:
            raise EventError(f"not valid JSON: {exc.msg} at column {exc.colno}") from None
        return cls.from_dict(d)
