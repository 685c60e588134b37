"""The central service: reads every table's stream with a consumer group,
records each event and its decisions in PostgreSQL, and keeps the venue's
referees (one per table) for the dashboard of all tables.

Exactly once: an event is acknowledged to Redis only after its row and its
decisions are committed; a message seen again (after a crash, or re-sent by a
node) carries a uid already recorded and is skipped. When PostgreSQL fails
mid-event, the service rebuilds its referees from what PostgreSQL holds and
takes the unacknowledged messages again.
"""

from __future__ import annotations

import logging
import threading
import time

import psycopg
import redis

from referee.events import Event, EventError
from referee.settings import Settings
from services.live import LiveVenue
from services.venue import Venue
from storage.postgres_log import PostgresEventStore
from venue.publisher import STREAM_PREFIX

GROUP = "central"
log = logging.getLogger(__name__)


class CentralService:
    def __init__(self, redis_url: str, pg_dsn: str, settings: Settings | None = None,
                 consumer: str = "central-1", tables=(), matches=None) -> None:
        self.redis_url, self.pg_dsn = redis_url, pg_dsn
        self.settings = settings or Settings()
        self.consumer = consumer
        self.redis = redis.Redis.from_url(redis_url, socket_timeout=5, socket_connect_timeout=2)
        self.live = LiveVenue(Venue(PostgresEventStore(pg_dsn), self.settings), tables, matches)
        self.streams: dict[str, str] = {}      # stream key -> next id to read ('0': pending first)
        self.recorded = 0
        self.duplicates = 0
        self.bad = 0
        self.latencies: list[float] = []       # node send -> decisions recorded, seconds
        self.healthy = True

    # ------------------------------------------------------------ streams
    def discover(self) -> None:
        for key in self.redis.scan_iter(match=STREAM_PREFIX + "*", count=1000):
            key = key.decode()
            if key in self.streams:
                continue
            try:
                self.redis.xgroup_create(key, GROUP, id="0", mkstream=True)
            except redis.ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise
            self.streams[key] = "0"   # our pending (delivered, never acknowledged) entries first

    def step(self, block_ms: int = 100, count: int = 500) -> int:
        """Read and record one batch; returns how many messages were handled."""
        self.discover()
        if not self.streams:
            time.sleep(block_ms / 1000)
            return 0
        replies = self.redis.xreadgroup(GROUP, self.consumer, dict(self.streams), count=count,
                                        block=None if any(v == "0" for v in self.streams.values())
                                        else block_ms)
        handled = 0
        for key, messages in replies or []:
            key = key.decode()
            if not messages and self.streams[key] == "0":
                self.streams[key] = ">"          # pending backlog done: new messages now
                continue
            for msg_id, fields in messages:
                self._record(key, msg_id, fields)
                handled += 1
        return handled

    def _record(self, key: str, msg_id: bytes, fields: dict) -> None:
        try:
            event = Event.from_json(fields[b"event"].decode())
        except (KeyError, EventError, UnicodeDecodeError) as exc:
            log.error("central: unreadable message %s on %s: %s (acknowledged, not recorded)", msg_id, key, exc)
            self.bad += 1
            self.redis.xack(key, GROUP, msg_id)
            return
        if event.uid is None:
            log.error("central: event without uid on %s (acknowledged, not recorded)", key)
            self.bad += 1
        elif self.live.venue.store.has_uid(event.table, event.uid):
            # recorded before: a node re-sent it, or we stopped before acknowledging
            self.duplicates += 1
        else:
            try:
                self.live.submit(event)
            except psycopg.Error:
                self.live.venue.store.rollback()
                raise
            self.recorded += 1
            sent = fields.get(b"sent")
            if sent:
                self.latencies.append(time.time() - float(sent))
        self.redis.xack(key, GROUP, msg_id)

    # -------------------------------------------------------------- loop
    def run(self, stop: threading.Event) -> None:
        """Record until ``stop``; ride out Redis or PostgreSQL outages."""
        while not stop.is_set():
            try:
                self.step()
                if not self.healthy:
                    log.warning("central: connections back")
                self.healthy = True
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                self._unhealthy("Redis", exc, stop)
            except psycopg.Error as exc:
                self._unhealthy("PostgreSQL", exc, stop)
                self._rebuild(stop)

    def _unhealthy(self, what: str, exc: Exception, stop: threading.Event) -> None:
        if self.healthy:
            log.warning("central: %s unavailable (%s); retrying", what, exc)
        self.healthy = False
        for key in self.streams:
            self.streams[key] = "0"   # take our unacknowledged messages again
        stop.wait(0.5)

    def _rebuild(self, stop: threading.Event) -> None:
        """Reconnect to PostgreSQL and refold every table from what it holds."""
        while not stop.is_set():
            try:
                store = PostgresEventStore(self.pg_dsn)
            except psycopg.Error:
                stop.wait(0.5)
                continue
            try:
                self.live.venue.store.close()
            except psycopg.Error:
                pass
            self.live.replace_venue(Venue(store, self.settings))
            return

    def close(self) -> None:
        self.live.close()
        self.redis.close()

