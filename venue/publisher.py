"""A table node's publisher: copies its local log to Redis Streams.

The table node referees from its own SQLite log (it keeps working with the
network down); the publisher follows that log and appends each event, in
order, to the table's stream ``guandan:events:<table>``. Its cursor (the last
event id Redis accepted) is kept in the same SQLite file, so after a crash or
an outage it resumes where it stopped and backfills what Redis missed. It
delivers at least once; every event carries a ``uid``, and the central
service records each uid once, so every event is recorded exactly once.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time

import redis

from storage.sqlite_log import EventStore

STREAM_PREFIX = "guandan:events:"
log = logging.getLogger(__name__)


def stream_key(table: str) -> str:
    return STREAM_PREFIX + table


def event_uid(node: str, event) -> str:
    """The event's uid: the source's own (devices set one) or node/table/id."""
    return event.uid or f"{node}/{event.table}/{event.id}"


class Publisher:
    def __init__(self, log_path: str, redis_url: str, node: str, batch: int = 500) -> None:
        self.log_path = log_path
        self.node = node
        self.batch = batch
        self.redis = redis.Redis.from_url(redis_url, socket_timeout=2, socket_connect_timeout=2)
        self._store = EventStore(log_path)
        self._db = sqlite3.connect(log_path, isolation_level=None, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS publish_cursor (tbl TEXT PRIMARY KEY, last INTEGER NOT NULL)")
        self.published = 0
        self.connected = True

    def cursor(self, table: str) -> int:
        row = self._db.execute("SELECT last FROM publish_cursor WHERE tbl = ?", (table,)).fetchone()
        return row[0] if row else 0

    def publish_pending(self) -> int:
        """Send what Redis has not yet accepted; returns how many events were sent.
        Raises redis.ConnectionError / TimeoutError while Redis is unreachable."""
        sent = 0
        # the referee appends through its own connection; each read here sees its commits (WAL)
        for table in self._store.tables():
            while True:
                after = self.cursor(table)
                events = list(self._store.stream(table, after=after, limit=self.batch))
                if not events:
                    break
                pipe = self.redis.pipeline(transaction=False)
                now = time.time()
                for e in events:
                    body = e.to_dict()
                    body["uid"] = event_uid(self.node, e)
                    pipe.xadd(stream_key(table), {"event": json.dumps(body, ensure_ascii=False),
                                                  "node": self.node,
                                                  "sent": repr(now)})
                pipe.execute()
                self._db.execute("INSERT INTO publish_cursor (tbl, last) VALUES (?, ?) "
                                 "ON CONFLICT (tbl) DO UPDATE SET last = excluded.last",
                                 (table, events[-1].id))
                sent += len(events)
        self.published += sent
        return sent

    def run(self, stop: threading.Event, interval: float = 0.05, max_backoff: float = 5.0) -> None:
        """Publish until ``stop`` is set; wait and retry while Redis is down."""
        backoff = interval
        while not stop.is_set():
            try:
                self.publish_pending()
                if not self.connected:
                    log.warning("publisher %s: Redis is back, backfilled", self.node)
                self.connected = True
                backoff = interval
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                if self.connected:
                    log.warning("publisher %s: Redis unreachable (%s); refereeing goes on locally", self.node, exc)
                self.connected = False
                backoff = min(max_backoff, backoff * 2)
            stop.wait(backoff)

    def close(self) -> None:
        self._db.close()
        self._store.close()
        self.redis.close()

