"""What a table's referee corrections say about its log: which events are
voided, corrected (and to what) or confirmed, and the seats' cards the
referee counted.

Corrections never edit the log (docs/events.md, "Referee actions"): they are
appended as ``referee`` events naming the event they act on (``ref``). This
reads them as :class:`referee.table.Table` does, from the newest back, so a
later void cancels an earlier void, correction or confirmation, and the
latest correction of an event wins. A correction that names no event of the
log, or whose corrected event is malformed, counts for nothing (the table
asks the referee about it instead).

>>> from referee.events import Event
>>> log = [Event.from_dict(d) for d in (
...     {"id": 1, "t": 5, "table": "T01", "type": "play", "seat": "S", "cards": ["S3"], "confidence": 0.5},
...     {"id": 2, "t": 6, "table": "T01", "type": "play", "seat": "W", "cards": ["S4"], "confidence": 0.6},
...     {"id": 3, "t": 7, "table": "T01", "type": "play", "seat": "N", "cards": ["S5"], "confidence": 0.7},
...     {"id": 4, "t": 9, "table": "T01", "type": "referee", "action": "confirm", "ref": 1},
...     {"id": 5, "t": 9, "table": "T01", "type": "referee", "action": "correct", "ref": 2,
...      "event": {"cards": ["S4", "S4"]}},
...     {"id": 6, "t": 9, "table": "T01", "type": "referee", "action": "void", "ref": 3},
...     {"id": 7, "t": 9, "table": "T01", "type": "referee", "action": "void", "ref": 99},
...     {"id": 8, "t": 9, "table": "T01", "type": "referee", "action": "count", "ref": 2, "seat": "N",
...      "count": 26})]
>>> o = overrides(log)
>>> sorted(o.confirmed), o.corrected[2].cards, sorted(o.voided), o.counted == {8: (2, "N", 26)}
([1], ('S4', 'S4'), [3], True)
>>> o.corrected[2].confidence is None      # a referee's correction is certain
True
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple, Sequence

from referee.deal import HAND_SIZE
from referee.events import Event, EventError
from referee.seating import SEATS, Seat

# the referee actions that change how an event of the log counts
META_ACTIONS = ("void", "correct", "confirm", "count")


class Overrides(NamedTuple):
    """The referee's word on a log's events, by event id."""

    voided: set[int]                # the event did not happen
    corrected: dict[int, Event]     # the event as the referee restated it
    confirmed: set[int]             # a low-confidence observation counts as seen
    waived: set[int]                # the event stands, its penalties do not
    counted: dict[int, tuple[int, Seat, int]]  # a count's id -> the event it answers, the seat, its cards


def referee_count(m: Event) -> tuple[Seat, int]:
    """The seat and number of cards of a referee's ``count`` (the cards the
    referee counted in that seat's hand when the count was entered;
    ``ref`` names the event of the fault it answers); :class:`ValueError`
    names what is wrong.

    A count of 0 says the seat is out: it went out with its last play that
    counted (the reads of its plays missed cards).

    >>> referee_count(Event.from_dict({"t": 1, "table": "T01", "type": "referee", "action": "count",
    ...                                "ref": 4, "seat": "E", "count": 0}))
    (<Seat.E: 'E'>, 0)
    >>> referee_count(Event.from_dict({"t": 1, "table": "T01", "type": "referee", "action": "count",
    ...                                "ref": 4, "seat": "E", "count": 28}))
    Traceback (most recent call last):
    ...
    ValueError: referee count needs the 'count' of cards E holds (0-27; 0: E is out)
    """
    seat, count = m.get("seat"), m.get("count")
    if seat not in SEATS:
        raise ValueError(f"referee count needs the 'seat' whose cards were counted (one of {' '.join(SEATS)})")
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= HAND_SIZE:
        raise ValueError(f"referee count needs the 'count' of cards {seat} holds (0-{HAND_SIZE}; 0: {seat} is out)")
    return seat, count


def corrected_event(target: Event, fields: Any) -> Event:
    """``target`` with the corrected ``fields`` of a referee's ``correct``
    (its id, time and table kept). Without a ``confidence`` among the fields
    the corrected event has none: a referee's correction is certain.
    Raises :class:`ValueError` (an :class:`referee.events.EventError` among
    them) if the fields are no object or make a malformed event."""
    if not isinstance(fields, Mapping):
        raise ValueError("referee correct needs an 'event' object with the corrected fields")
    merged = {**target.to_dict(), **fields, "id": target.id, "t": target.t, "table": target.table}
    if "confidence" not in fields:
        merged.pop("confidence", None)
    return Event.from_dict(merged)


def overrides(log: Sequence[Event]) -> Overrides:
    """The :class:`Overrides` of one table's ``log`` (its events in order, with ids)."""
    by_id = {e.id: e for e in log if e.id is not None}
    voided: set[int] = set()
    corrected: dict[int, Event] = {}
    confirmed: set[int] = set()
    waived: set[int] = set()
    counted: dict[int, tuple[int, Seat, int]] = {}
    for m in reversed(log):
        if m.type != "referee" or m.get("action") not in META_ACTIONS or m.id in voided:
            continue
        action, ref = m.get("action"), m.get("ref")
        try:
            target = by_id.get(ref)
        except TypeError:                 # (a list, an object: no event's number)
            target = None
        if target is None or target.id is None:
            continue                      # names nothing: the table asks about it instead
        ref = target.id
        if action == "void" and m.get("what", "event") == "penalty":
            waived.add(ref)
        elif action == "void":
            voided.add(ref)
        elif action == "confirm":
            confirmed.add(ref)
        elif action == "count":
            try:
                seat, count = referee_count(m)
            except ValueError:
                continue                  # malformed: asked about, counts for nothing
            if m.id is not None:
                counted[m.id] = (ref, seat, count)      # each stands where it was entered
        elif ref not in corrected:
            try:
                corrected[ref] = corrected_event(target, m.get("event"))
            except (ValueError, EventError):
                continue                  # malformed: asked about, counts for nothing
    return Overrides(voided, corrected, confirmed, waived, counted)
