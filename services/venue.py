"""A venue node: the event log plus one :class:`~referee.table.Table` per stream.

Opening a venue replays every stored stream, so a restarted process
continues exactly where the last one stopped; :meth:`Venue.ingest` stores an
event first and then lets its table judge it.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "venue.sqlite")
>>> with Venue(path) as v:
...     [d.type for d in v.ingest(Event.from_dict({"t": 0, "table": "T02", "type": "deal_start",
...                                                  "deal": 1, "level": "2", "leader": "E"}))]
['deal_start', 'turn']
>>> with Venue(path) as v:                       # a new process: the log is replayed
...     v.tables["T02"].deal.turn
<Seat.E: 'E'>
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from referee.decisions import Decision
from referee.events import Event
from referee.settings import Settings
from referee.table import Table
from storage import Closing, DecisionLog, EventLog
from storage.sqlite_log import EventStore


class Venue(Closing):
    """``store``: a path to the SQLite log, or any :class:`storage.EventLog`
    (the central service passes its PostgreSQL store, a
    :class:`storage.DecisionLog`, which also records each event's decisions
    atomically)."""

    def __init__(self, store: str | os.PathLike[str] | EventLog,
                 settings: Settings | None = None, log_settings: bool = True) -> None:
        self.settings = settings or Settings()
        self.log_settings = log_settings     # False: ignore the logs' own settings events
        self.store: EventLog = EventStore(store) if isinstance(store, (str, os.PathLike)) else store
        # asked once, not per event: isinstance against a Protocol takes tens of µs
        self._record_decisions: Callable[[Event, Sequence[Decision]], None] | None = (
            self.store.record_decisions if isinstance(self.store, DecisionLog) else None)
        self.tables: dict[str, Table] = {}
        for name in self.store.tables():
            self.table(name).replay(self.store.stream(name))

    def table(self, name: str) -> Table:
        tb = self.tables.get(name)
        if tb is None:
            tb = self.tables[name] = Table(name, self.settings, self.log_settings)
        return tb

    def refold(self, name: str) -> Table:
        """Rebuild one table from the log (after an event was refused half-way, or
        another writer moved it on)."""
        tb = self.tables[name] = Table(name, self.settings)
        tb.replay(self.store.stream(name))
        return tb

    def ingest(self, event: Event) -> list[Decision]:
        """Store ``event`` (skipped as a duplicate if its uid is stored) and judge it."""
        return self.ingest_new(event) or []

    def ingest_new(self, event: Event) -> list[Decision] | None:
        """As :meth:`ingest`, but None when ``event`` was a duplicate and skipped."""
        stored = self.store.append(event)
        if stored is None:
            return None
        decisions = self.table(stored.table).feed(stored)
        if self._record_decisions is not None:
            self._record_decisions(stored, decisions)
        return decisions

    def close(self) -> None:
        self.store.close()
