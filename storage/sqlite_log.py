"""The venue's event log: append-only SQLite in WAL mode, one stream per table
(an :class:`storage.EventLog`).

Events are only ever appended; triggers make the database itself refuse
UPDATE and DELETE, so a correction is a new ``referee`` event and the state
is recomputed from the log. Each table's stream numbers its events 1, 2, 3...
(``Event.id``); an event carrying a ``uid`` already stored for its table is a
duplicate (a source sending twice, a restarted feeder) and is not stored again.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "venue.sqlite")
>>> store = EventStore(path)
>>> store.append(Event.from_dict({"t": 0, "table": "T01", "type": "tick", "uid": "a"})).id
1
>>> store.append(Event.from_dict({"t": 1, "table": "T01", "type": "tick", "uid": "a"})) is None
True
>>> [e.id for e in store.stream("T01")], store.tables()
([1], ['T01'])
>>> store.close()
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from typing import TYPE_CHECKING

from referee.events import Event
from storage import Closing, EventLog

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    tbl  TEXT    NOT NULL,
    seq  INTEGER NOT NULL,
    uid  TEXT,
    body TEXT    NOT NULL,
    PRIMARY KEY (tbl, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS events_uid ON events (tbl, uid) WHERE uid IS NOT NULL;
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
    BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
"""


class StoreError(RuntimeError):
    """The log file cannot be opened or written; the message names it."""


class EventStore(Closing):
    """One venue's log (one SQLite file)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = path
        try:
            # one connection shared by threads; callers serialise access (services.live)
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            # WAL + FULL: a committed append survives a killed process and a power
            # cut (the WAL is synced at each commit: about 0.2 ms an event here).
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open event log {path!r}: {exc}") from None
        if mode.lower() != "wal":
            raise StoreError(f"event log {path!r} cannot use WAL mode (got {mode!r})")
        self._next: dict[str, int] = dict(
            self._db.execute("SELECT tbl, MAX(seq) + 1 FROM events GROUP BY tbl").fetchall())

    def append(self, event: Event) -> Event | None:
        """Store ``event`` at the end of its table's stream; return it with its ``id``,
        or None when its ``uid`` is already stored."""
        seq = self._next.get(event.table, 1)
        d = event.to_dict()
        d["id"] = seq
        stored = Event.from_dict(d)
        try:
            self._db.execute("INSERT INTO events (tbl, seq, uid, body) VALUES (?, ?, ?, ?)",
                             (event.table, seq, event.uid, stored.to_json()))
        except sqlite3.IntegrityError:
            if event.uid is not None and self.has_uid(event.table, event.uid):
                return None
            raise
        self._next[event.table] = seq + 1
        return stored

    def has_uid(self, table: str, uid: str) -> bool:
        return self._db.execute("SELECT 1 FROM events WHERE tbl = ? AND uid = ?",
                                (table, uid)).fetchone() is not None

    def stream(self, table: str, after: int = 0, limit: int | None = None) -> Iterator[Event]:
        """The table's events in order (those with ``id > after``; at most ``limit``)."""
        rows = self._db.execute(
            "SELECT body FROM events WHERE tbl = ? AND seq > ? ORDER BY seq LIMIT ?",
            (table, after, -1 if limit is None else limit)).fetchall()
        for (body,) in rows:
            yield Event.from_json(body)

    def tables(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT DISTINCT tbl FROM events ORDER BY tbl")]

    def count(self, table: str | None = None) -> int:
        n: int
        if table is None:
            n = self._db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        else:
            n = self._db.execute("SELECT COUNT(*) FROM events WHERE tbl = ?", (table,)).fetchone()[0]
        return n

    def close(self) -> None:
        self._db.close()


if TYPE_CHECKING:
    _: type[EventLog] = EventStore      # mypy checks that it has every EventLog method
