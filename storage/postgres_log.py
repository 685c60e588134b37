"""The venue's record in PostgreSQL: every event, once, and the decisions it led to.

An :class:`storage.EventLog` like :class:`storage.sqlite_log.EventStore`, so a
:class:`services.venue.Venue` folds it the same way, and a
:class:`storage.DecisionLog`: with
:meth:`PostgresEventStore.record_decisions`, an event and its decisions are
committed in one transaction, so after any crash either both are recorded or
neither (and the event is processed again). An event's ``uid`` is unique per
table: a redelivered event is recognised and not recorded twice.

For the venue's central service it also keeps the dead letters (messages
that cannot be recorded, with why), each event's position in its node's log
(``src_seq``, from which the nodes' recorded cursor is republished), and a
batch mode: with ``batch`` set, events and decisions are copied in at
:meth:`PostgresEventStore.commit`, one transaction. The schema is
:data:`MIGRATIONS`, applied in order, each once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import psycopg

from referee.decisions import Decision
from referee.events import Event
from storage import Closing, DecisionLog

# Schema migrations, applied in order, each once (its number is recorded in
# schema_migrations); a database made by an older version is brought up to date
# on open. Append new steps; never edit a released one.
MIGRATIONS: tuple[str, ...] = (
    # 1: the record: events and decisions, append-only
    """
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
""",
    # 2: the node's own position of each event (the recorded cursor nodes read),
    # and the dead letters: messages that cannot be recorded, with the reason
    """
ALTER TABLE events ADD COLUMN IF NOT EXISTS src_seq BIGINT;
CREATE TABLE IF NOT EXISTS dead_letters (
    id       BIGSERIAL PRIMARY KEY,
    stream   TEXT NOT NULL,
    msg_id   TEXT NOT NULL,
    tbl      TEXT,
    src_seq  BIGINT,
    uid      TEXT,
    reason   TEXT NOT NULL,
    raw      BYTEA NOT NULL,        -- the message as received (it may hold NUL or bad UTF-8)
    at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- a message re-sent after Redis lost its data is dead-lettered once
CREATE UNIQUE INDEX IF NOT EXISTS dead_letters_once ON dead_letters (tbl, uid) WHERE uid IS NOT NULL;
""",
)


def is_connection_error(exc: BaseException, conn: psycopg.Connection[Any] | None = None) -> bool:
    """Whether a psycopg error means the server is unreachable (an outage, retry)
    rather than a refusal of this data (a dead letter)."""
    if isinstance(exc, (psycopg.OperationalError, psycopg.InterfaceError)):
        return True
    return conn is not None and (conn.closed or conn.broken)


def migrate(db: psycopg.Connection[Any]) -> int:
    """Bring the schema up to date (one writer at a time); returns its version."""
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(47110815)")
        db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
                   "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
        row = db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").fetchone()
        done: int = row[0] if row else 0
        for version, sql in enumerate(MIGRATIONS[done:], start=done + 1):
            db.execute(sql.encode())      # bytes: several statements, no parameters
            db.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
    return len(MIGRATIONS)


class PostgresEventStore(Closing):
    """The venue's record (one PostgreSQL database, one connection)."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self._db = psycopg.connect(dsn, autocommit=False)
        migrate(self._db)
        self._next: dict[str, int] = {}
        for tbl, nxt in self._db.execute("SELECT tbl, MAX(seq) + 1 FROM events GROUP BY tbl"):
            self._next[tbl] = nxt
        self._db.commit()
        self._open = False
        # the node's position of the next event appended (set by the central service)
        self.src_seq: int | None = None
        self.appended = False       # whether the last append inserted (else: its uid was there)
        # batch: record_decisions and dead_letter leave the commit to commit(), so a
        # batch of events costs one commit (the central service, see venue/central.py)
        self.batch = False
        self._rows: list[tuple[Any, ...]] = []
        self._decision_rows: list[tuple[Any, ...]] = []

    @property
    def connection(self) -> psycopg.Connection[Any]:
        return self._db

    # -- the EventLog protocol ----------------------------------------------------
    def append(self, event: Event) -> Event | None:
        """Insert ``event`` (uncommitted until :meth:`record_decisions`); None if its uid is recorded."""
        if event.uid is None:
            raise ValueError("venue events need a uid (the table node sets one)")
        seq = self._next.get(event.table, 1)
        d = event.to_dict()
        d["id"] = seq
        stored = Event.from_dict(d)
        args = (event.table, seq, event.uid, json.dumps(stored.to_dict(), ensure_ascii=False), self.src_seq)
        if self.batch:
            # kept until commit(), which copies the batch in one go: a uid recorded
            # before fails the batch, which the caller does again event by event
            self._rows.append(args)
            self.appended = True
            return stored
        row = self._db.execute(
            "INSERT INTO events (tbl, seq, uid, body, src_seq) VALUES (%s, %s, %s, %s, %s) "
            "ON CONFLICT (tbl, uid) DO NOTHING RETURNING seq", args).fetchone()
        self.appended = row is not None
        if row is None:
            if not self.batch:
                self._db.rollback()
            return None
        self._open = True
        return stored

    def record_decisions(self, event: Event, decisions: Sequence[Decision]) -> None:
        """Record the decisions of the event just appended and commit both."""
        seq = event.id
        if seq is None:
            raise ValueError("record_decisions takes the event append returned (it has an id)")
        rows = [(event.table, seq, k, json.dumps(d.to_dict(), ensure_ascii=False))
                for k, d in enumerate(decisions)]
        if self.batch:
            self._decision_rows.extend(rows)
        else:
            with self._db.cursor() as cur:
                cur.executemany("INSERT INTO decisions (tbl, seq, k, body) VALUES (%s, %s, %s, %s)", rows)
            self._db.commit()
            self._open = False
        self._next[event.table] = seq + 1

    def commit(self) -> None:
        """Commit a batch (see ``batch``): its events and decisions copied in, one transaction."""
        rows, decision_rows = self._rows, self._decision_rows
        self._rows, self._decision_rows = [], []
        with self._db.cursor() as cur:
            if rows:
                with cur.copy("COPY events (tbl, seq, uid, body, src_seq) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
            if decision_rows:
                with cur.copy("COPY decisions (tbl, seq, k, body) FROM STDIN") as copy:
                    for row in decision_rows:
                        copy.write_row(row)
        self._db.commit()
        self._open = False

    def rollback(self) -> None:
        """Forget an append whose decisions could not be recorded (or a batch)."""
        self._rows, self._decision_rows = [], []
        if not self._db.closed:
            self._db.rollback()
        self._open = False

    def reload(self, table: str) -> None:
        """Take the table's next position from the database (another writer, or a
        rolled-back append, may have moved it)."""
        row = self._db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE tbl = %s",
                               (table,)).fetchone()
        self._db.commit()
        self._next[table] = row[0] if row else 1

    def next_seq(self, table: str) -> int:
        return self._next.get(table, 1)

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

    # -- the central service's bookkeeping ------------------------------------------
    def recorded_positions(self, tables: Sequence[str] | None = None) -> dict[str, int]:
        """Per table, the highest node position handled (recorded or dead-lettered)."""
        rows = self._db.execute(
            "SELECT tbl, MAX(s) FROM (SELECT tbl, src_seq AS s FROM events UNION ALL "
            "SELECT tbl, src_seq FROM dead_letters WHERE tbl IS NOT NULL) x "
            "WHERE s IS NOT NULL AND (%s::text[] IS NULL OR tbl = ANY(%s::text[])) GROUP BY tbl",
            (None if tables is None else list(tables),) * 2).fetchall()
        self._db.commit()
        return {t: int(s) for t, s in rows}

    def dead_letter(self, stream: str, msg_id: str, table: str | None, src_seq: int | None,
                    uid: str | None, reason: str, raw: bytes) -> None:
        """Keep a message that cannot be recorded, with why (committed at once, or
        with the batch)."""
        if not self.batch:
            self.rollback()
        # the reason may quote the message: PostgreSQL text holds no NUL
        self._db.execute(
            "INSERT INTO dead_letters (stream, msg_id, tbl, src_seq, uid, reason, raw) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            [v.replace("\x00", "\\0") if isinstance(v, str) else v
             for v in (stream, msg_id, table, src_seq, uid, reason[:2000], raw)])
        if not self.batch:
            self._db.commit()

    def dead_letters(self, limit: int = 50) -> list[dict[str, Any]]:
        """The latest dead letters, newest first."""
        rows = self._db.execute(
            "SELECT id, stream, msg_id, tbl, src_seq, uid, reason, at FROM dead_letters "
            "ORDER BY id DESC LIMIT %s", (limit,)).fetchall()
        self._db.commit()
        keys = ("id", "stream", "msg_id", "table", "src_seq", "uid", "reason", "at")
        return [dict(zip(keys, r[:-1]), at=r[-1].isoformat()) for r in rows]

    def dead_letter_count(self) -> int:
        row = self._db.execute("SELECT COUNT(*) FROM dead_letters").fetchone()
        self._db.commit()
        return int(row[0]) if row else 0

    def close(self) -> None:
        self._db.close()


if TYPE_CHECKING:
    _: type[DecisionLog] = PostgresEventStore   # mypy checks that it has every DecisionLog method
