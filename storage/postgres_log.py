"""The venue's record in PostgreSQL: every event, once, and the decisions it led to.

An :class:`storage.EventLog` like :class:`storage.sqlite_log.EventStore`, so a
:class:`services.venue.Venue` folds it the same way, and a
:class:`storage.DecisionLog`: with
:meth:`PostgresEventStore.record_decisions`, an event and its decisions are
committed in one transaction, so after any crash either both are recorded or
neither (and the event is processed again). An event's ``uid`` is unique per
table: a redelivered event is recognised and not recorded twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import psycopg

from referee.decisions import Decision
from referee.events import Event
from storage import Closing, DecisionLog

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    tbl  TEXT    NOT NULL,
    seq  INTEGER NOT NULL,
    uid  TEXT    NOT NULL,
    body JSONB   NOT NULL,
    recorded_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (tbl, seq),
    UNIQUE (tbl, uid)
);
CREATE TABLE IF NOT EXISTS decisions (
    tbl   TEXT    NOT NULL,
    seq   INTEGER NOT NULL,     -- the event that produced it
    k     INTEGER NOT NULL,     -- its place among that event's decisions
    body  JSONB   NOT NULL,
    PRIMARY KEY (tbl, seq, k),
    FOREIGN KEY (tbl, seq) REFERENCES events (tbl, seq)
);
CREATE OR REPLACE FUNCTION guandan_append_only() RETURNS trigger AS $$
BEGIN RAISE EXCEPTION 'the venue record is append-only'; END $$ LANGUAGE plpgsql;
DROP TRIGGER IF EXISTS events_append_only ON events;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION guandan_append_only();
DROP TRIGGER IF EXISTS decisions_append_only ON decisions;
CREATE TRIGGER decisions_append_only BEFORE UPDATE OR DELETE ON decisions
    FOR EACH ROW EXECUTE FUNCTION guandan_append_only();
"""


class PostgresEventStore(Closing):
    """The venue's record (one PostgreSQL database, one connection)."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self._db = psycopg.connect(dsn, autocommit=False)
        with self._db.transaction():
            self._db.execute("SELECT pg_advisory_xact_lock(47110815)")  # one schema writer at a time
            self._db.execute(SCHEMA)
        self._next: dict[str, int] = {}
        for tbl, nxt in self._db.execute("SELECT tbl, MAX(seq) + 1 FROM events GROUP BY tbl"):
            self._next[tbl] = nxt
        self._db.commit()
        self._open = False

    # -- the EventLog protocol ----------------------------------------------------
    def append(self, event: Event) -> Event | None:
        """Insert ``event`` (uncommitted until :meth:`record_decisions`); None if its uid is recorded."""
        if event.uid is None:
            raise ValueError("venue events need a uid (the table node sets one)")
        seq = self._next.get(event.table, 1)
        d = event.to_dict()
        d["id"] = seq
        stored = Event.from_dict(d)
        row = self._db.execute(
            "INSERT INTO events (tbl, seq, uid, body) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (tbl, uid) DO NOTHING RETURNING seq",
            (event.table, seq, event.uid, json.dumps(stored.to_dict(), ensure_ascii=False))).fetchone()
        if row is None:
            self._db.rollback()
            return None
        self._open = True
        return stored

    def record_decisions(self, event: Event, decisions: Sequence[Decision]) -> None:
        """Record the decisions of the event just appended and commit both."""
        seq = event.id
        if seq is None:
            raise ValueError("record_decisions takes the event append returned (it has an id)")
        with self._db.cursor() as cur:
            cur.executemany(
                "INSERT INTO decisions (tbl, seq, k, body) VALUES (%s, %s, %s, %s)",
                [(event.table, seq, k, json.dumps(d.to_dict(), ensure_ascii=False))
                 for k, d in enumerate(decisions)])
        self._db.commit()
        self._open = False
        self._next[event.table] = seq + 1

    def rollback(self) -> None:
        """Forget an append whose decisions could not be recorded."""
        if not self._db.closed:
            self._db.rollback()
        self._open = False

    def has_uid(self, table: str, uid: str) -> bool:
        row = self._db.execute("SELECT 1 FROM events WHERE tbl = %s AND uid = %s", (table, uid)).fetchone()
        self._db.commit()
        return row is not None

    def stream(self, table: str, after: int = 0, limit: int | None = None) -> Iterator[Event]:
        rows = self._db.execute(
            "SELECT body FROM events WHERE tbl = %s AND seq > %s ORDER BY seq LIMIT %s",
            (table, after, limit)).fetchall()
        self._db.commit()
        for (body,) in rows:
            yield Event.from_dict(body)

    def tables(self) -> list[str]:
        rows = self._db.execute("SELECT DISTINCT tbl FROM events ORDER BY tbl").fetchall()
        self._db.commit()
        return [r[0] for r in rows]

    def count(self, table: str | None = None) -> int:
        if table is None:
            row = self._db.execute("SELECT COUNT(*) FROM events").fetchone()
        else:
            row = self._db.execute("SELECT COUNT(*) FROM events WHERE tbl = %s", (table,)).fetchone()
        self._db.commit()
        assert row is not None          # COUNT(*) always gives one row
        n: int = row[0]
        return n

    def decisions(self, table: str) -> list[dict[str, Any]]:
        rows = self._db.execute("SELECT body FROM decisions WHERE tbl = %s ORDER BY seq, k",
                                (table,)).fetchall()
        self._db.commit()
        return [r[0] for r in rows]

    def close(self) -> None:
        self._db.close()


if TYPE_CHECKING:
    _: type[DecisionLog] = PostgresEventStore   # mypy checks that it has every DecisionLog method
