"""The central service: reads the configured tables' streams with a consumer
group, records each event and its decisions in PostgreSQL, and keeps the
venue's referees (one per table) for the dashboard of all tables.

Delivery, end to end (docs/architecture.md, 'The venue'):

- the table comes from the stream's name; only configured tables' streams
  are read, and a message whose body names another table is refused;
- an event is acknowledged to Redis only after its row and its decisions
  are committed; then the table's position in the node's log is published
  in the hash ``guandan:recorded`` (the node forgets, and trims, only what
  is there), and republished from PostgreSQL after Redis lost its data;
- a message that cannot be recorded (undecodable, invalid, forged, or
  refused by PostgreSQL as data) goes to the ``dead_letters`` table with its
  reason and is acknowledged; every other event keeps flowing. Only a lost
  connection is an outage (wait, reconnect, take the unacknowledged again);
- a vanished consumer group (Redis restarted without its files) is created
  again; the nodes backfill from the recorded positions;
- several centrals share the tables: each table is held by one central at a
  time (a lease in Redis, tables spread by a stable hash over the live
  centrals' heartbeats in ``guandan:centrals``), which claims the pending messages of the
  previous holder (``XAUTOCLAIM``) before reading on.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import math
import threading
import time
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

import psycopg
import redis
from redis.typing import EncodableT, FieldT, KeyT, StreamIdT

from referee.cards import CardError, parse_card
from referee.events import Event, EventError
from referee.settings import Settings
from services.live import LiveVenue
from services.venue import Venue
from storage.postgres_log import PostgresEventStore, is_connection_error
from venue.publisher import (RECORDED_KEY, STREAM_PREFIX, connect_redis, signature, stream_key,
                             tls_trust_error)
from venue.secrets import redact

GROUP = "central"
CENTRALS_KEY = "guandan:centrals"      # sorted set: consumer -> last heartbeat (ms)
LEASE_PREFIX = "guandan:lease:"
FIELDS = frozenset((b"event", b"node", b"sent", b"seq", b"sig"))
log = logging.getLogger(__name__)

# take a lease if free, or renew it while it is ours
_HOLD = ("local v = redis.call('get', KEYS[1]) "
         "if v == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end "
         "if not v then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end return 0")
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"


class Outage(Exception):
    """Redis or PostgreSQL cannot be reached: wait and retry."""


class Refused(Exception):
    """This message cannot be recorded: it goes to the dead letters."""


class LostTable(Exception):
    """Another central wrote this table: let it go and refold."""


# what XREADGROUP gives (RESP2, bytes): per stream, its messages (id, fields)
Messages = list[tuple[bytes, dict[bytes, bytes]]]
Replies = list[tuple[bytes, Messages]]


def _replies(reply: object) -> Replies:
    """XREADGROUP's reply, checked to be the RESP2 shape the central asks for
    (redis-py types it as the union of every protocol's shapes)."""
    if reply is None:
        return []
    if not isinstance(reply, list):
        raise TypeError(f"unexpected XREADGROUP reply {type(reply).__name__} (RESP3?)")
    return [(bytes(key), list(messages)) for key, messages in reply]


class BatchFailed(Exception):
    """PostgreSQL refused something in a batch: roll it back, do it again one by one."""


def _stable_owner(table: str, centrals: list[str]) -> str:
    """Rendezvous hashing: each table to one live central, few moves when one comes or goes."""
    return max(centrals, key=lambda c: hashlib.sha256(f"{c}\0{table}".encode()).digest())


class CentralService:
    def __init__(self, redis_url: str, pg_dsn: str, settings: Settings | None = None,
                 consumer: str = "central-1", tables: Iterable[str] = (),
                 matches: Mapping[str, Any] | None = None, lease_ms: int = 3000,
                 node_keys: Mapping[str, bytes] | None = None, redis_password: str | None = None,
                 redis_ca_file: str | None = None) -> None:
        """``tables``: the tables to record (required: other streams are never read).
        ``lease_ms``: how long a table's lease lasts unrenewed: a central that dies
        leaves its tables to the others after this long. Every central takes
        leases, so two started by mistake never fold one table both.
        ``node_keys``: per table, the key its node signs with (HMAC-SHA256);
        without, the Redis ACL is the authentication (docs/architecture.md).
        TLS: a ``rediss://`` URL with ``redis_ca_file`` (the CA of Redis's
        certificate), and ``sslmode=verify-full sslrootcert=CA`` in ``pg_dsn``."""
        self.tables = sorted(set(tables))
        if not self.tables:
            raise ValueError("no tables configured: the central reads only configured tables' streams")
        self.redis_url, self.pg_dsn = redis_url, pg_dsn
        self.settings = settings or Settings()
        self.consumer = consumer
        # lease holder: unique per run, so two centrals started with one name never both hold a table
        self.holder = f"{consumer}/{uuid.uuid4().hex[:8]}"
        self.lease_ms = lease_ms
        self.node_keys = dict(node_keys or {})
        self.redis = connect_redis(redis_url, password=redis_password, ca_file=redis_ca_file)
        self.store = PostgresEventStore(pg_dsn)
        self.live = LiveVenue(Venue(self.store, self.settings), self.tables, dict(matches or {}))
        self.owned: set[str] = set()
        self.cursor: dict[str, str] = {}       # owned table -> '0' (our pending first) or '>'
        self.position = self.store.recorded_positions(self.tables)   # table -> node position handled
        self._published = False                # positions republished to Redis since (re)start
        self._next_lease = 0.0
        self._careful = False                  # the next batch one event per transaction
        self._uncommitted: dict[str, int] = {}  # counts of the batch not yet committed
        self.recorded = self.duplicates = self.dead = 0
        self.latencies: list[float] = []       # node send -> decisions recorded, seconds
        self.healthy = True
        self.last_error: str | None = None
        self.error: BaseException | None = None   # what ended the worker, if anything

    # ------------------------------------------------------------ streams
    def _setup(self, table: str) -> None:
        """Start reading a table: the group (again, if Redis lost it), the pending
        messages of a previous holder, and the table as PostgreSQL has it."""
        key = stream_key(table)
        try:
            self.redis.xgroup_create(key, GROUP, id="0", mkstream=True)
        except redis.ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        start = "0-0"
        while True:      # a dead or former holder's unacknowledged messages become ours
            # (not justid: redis-py then drops the cursor from the reply)
            reply = self.redis.xautoclaim(key, GROUP, self.consumer, min_idle_time=0,
                                          start_id=start, count=1000)
            start = reply[0].decode() if isinstance(reply[0], bytes) else reply[0]
            if start == "0-0":
                break
        self.store.reload(table)
        if self.store.next_seq(table) != len(self.live.venue.table(table).log) + 1:
            self.live.refold(table)        # another central moved it on since we folded it
        self.position.update(self.store.recorded_positions([table]))
        self.cursor[table] = "0"

    def _lost_data(self) -> None:
        """Redis lost its data (a consumer group vanished): start every stream again
        and republish the recorded positions, from which the nodes backfill."""
        log.warning("central %s: Redis lost the consumer group; recreating it, nodes backfill", self.consumer)
        self.cursor.clear()
        self._published = False

    def _publish_positions(self) -> None:
        mine: dict[FieldT, EncodableT] = {t: p for t, p in self.position.items() if t in self.owned}
        if mine:
            self.redis.hset(RECORDED_KEY, mapping=mine)
        self._published = True

    def _leases(self) -> None:
        """Heartbeat, then hold the tables the stable hash gives us among the live centrals."""
        now_ms = int(time.time() * 1000)
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(CENTRALS_KEY, {self.holder: now_ms})
        pipe.zremrangebyscore(CENTRALS_KEY, 0, now_ms - 3 * self.lease_ms)
        pipe.zrangebyscore(CENTRALS_KEY, now_ms - self.lease_ms, "+inf")
        live = sorted(m.decode() for m in pipe.execute()[2])
        mine = {t for t in self.tables if _stable_owner(t, live) == self.holder}
        pipe = self.redis.pipeline(transaction=False)
        order = sorted(self.tables)
        for t in order:
            if t in self.owned:
                if t in mine:
                    pipe.eval(_HOLD, 1, LEASE_PREFIX + t, self.holder, self.lease_ms)
                else:
                    pipe.eval(_RELEASE, 1, LEASE_PREFIX + t, self.holder)
            elif t in mine:
                pipe.eval(_HOLD, 1, LEASE_PREFIX + t, self.holder, self.lease_ms)
            else:
                pipe.echo("")
        for t, ok in zip(order, pipe.execute()):
            if t in self.owned and (t not in mine or not ok):
                self.owned.discard(t)          # released, or taken over: stop folding it
                self.cursor.pop(t, None)
            elif t not in self.owned and t in mine and ok:
                self.owned.add(t)
        self._next_lease = time.monotonic() + self.lease_ms / 3000

    def step(self, block_ms: int = 100, count: int = 200) -> int:
        """Read and record one batch; returns how many messages were handled."""
        if time.monotonic() >= self._next_lease:
            self._leases()
        for table in sorted(self.owned - self.cursor.keys()):
            self._setup(table)
        if not self._published:
            self._publish_positions()
        if not self.cursor:
            time.sleep(block_ms / 1000)
            return 0
        streams: dict[KeyT, StreamIdT] = {stream_key(t): c for t, c in self.cursor.items()}
        replies = _replies(self.redis.xreadgroup(GROUP, self.consumer, streams, count=count,
                                                 block=None if "0" in streams.values() else block_ms))
        # a batch is one transaction; if PostgreSQL refuses any of it, it is rolled
        # back and done again one event per transaction, to find the one at fault
        careful, self._careful = self._careful, False
        self.store.batch = not careful
        counts = (self.recorded, self.duplicates, self.dead, len(self.latencies))
        try:
            if not self.store.batch:
                return self._batch(replies)
            try:
                return self._batch(replies)
            except psycopg.Error as exc:
                if is_connection_error(exc, self.store.connection):
                    raise
                raise BatchFailed() from exc
        except BatchFailed:
            self.store.rollback()
            self.recorded, self.duplicates, self.dead, n = counts
            self._uncommitted.clear()
            del self.latencies[n:]
            touched = {k.decode()[len(STREAM_PREFIX):] for k, _ in replies} & self.cursor.keys()
            for t in touched:
                self.store.reload(t)
                self.live.refold(t)
                self.cursor[t] = "0"
            fresh = self.store.recorded_positions(sorted(touched))
            for t in touched:
                self.position[t] = fresh.get(t, 0)
            self._careful = True
            return 0
        finally:
            self.store.batch = False

    def _batch(self, replies: Replies) -> int:
        handled = 0
        acks: dict[str, list[bytes]] = {}
        done: dict[FieldT, EncodableT] = {}
        for key_b, messages in replies:
            key = key_b.decode()
            table = key[len(STREAM_PREFIX):]
            if table not in self.cursor:
                continue
            if not messages and self.cursor[table] == "0":
                self.cursor[table] = ">"          # pending backlog done: new messages now
                continue
            for msg_id, fields in messages:
                try:
                    seq = self._handle(table, key, msg_id, fields)
                except LostTable:
                    self.cursor.pop(table, None)   # set up again (refolded) before reading on
                    self.owned.discard(table)
                    break
                acks.setdefault(key, []).append(msg_id)
                if seq is not None:
                    done[table] = seq
                handled += 1
        if self.store.batch:
            self.store.commit()
            self.store.batch = False     # committed: an error from here on is Redis's
            # the counters show what is committed (tests and the health endpoint wait on them)
            self.recorded += self._uncommitted.pop("recorded", 0)
            self.dead += self._uncommitted.pop("dead", 0)
        if acks:
            # after the commit: acknowledge and tell the nodes how far is recorded, one round trip
            pipe = self.redis.pipeline(transaction=False)
            for key, ids in acks.items():
                pipe.xack(key, GROUP, *ids)
            if done:
                pipe.hset(RECORDED_KEY, mapping=done)
            pipe.execute()
        return handled

    # ----------------------------------------------------------- messages
    def _refuse(self, key: str, msg_id: bytes, table: str, fields: Mapping[bytes, bytes],
                reason: str, seq: int | None, uid: str | None) -> int | None:
        raw = json.dumps({k.decode("utf-8", "replace"): v.decode("utf-8", "replace")
                          for k, v in fields.items()}, ensure_ascii=True).encode()
        try:
            self.store.dead_letter(key, msg_id.decode(), table, seq, uid, reason, raw)
        except psycopg.Error as exc:
            if is_connection_error(exc, self.store.connection):
                raise
            if self.store.batch:
                raise BatchFailed() from exc
            log.error("central: dead letter %s refused too (%s)", msg_id, exc)
        self._count("dead")
        log.error("central: message %s on %s to the dead letters: %s", msg_id.decode(), key, reason)
        if seq is not None and seq > self.position.get(table, 0):
            self.position[table] = seq
            return seq
        return None

    def _handle(self, table: str, key: str, msg_id: bytes, fields: Mapping[bytes, bytes]) -> int | None:
        """Record one message (or refuse it); returns the node position it settles."""
        seq: int | None = None
        uid: str | None = None
        try:
            unknown = set(fields) - FIELDS
            if unknown:
                raise Refused(f"unknown message fields {sorted(unknown)!r:.200}")
            try:
                seq = int(fields[b"seq"])
            except (KeyError, ValueError) as exc:
                raise Refused(f"no position in the node's log: {exc!r:.200}") from None
            if seq <= self.position.get(table, 0):
                # settled before (recorded or dead-lettered): a node re-sent it, or we
                # stopped before acknowledging
                self.duplicates += 1
                return None
            try:
                text = fields[b"event"].decode()
            except (KeyError, UnicodeDecodeError) as exc:
                raise Refused(f"unreadable message: {exc!r:.200}") from None
            key_bytes = self.node_keys.get(table)
            if key_bytes is not None and not hmac.compare_digest(
                    fields.get(b"sig", b"").decode("ascii", "replace"),
                    signature(key_bytes, table, seq, text)):
                raise Refused("bad or missing signature: not from this table's node")
            try:
                event = Event.from_json(text)
                for c in [*(event.cards or ()), *([event.card] if event.card else [])]:
                    parse_card(c)
            except (EventError, CardError, ValueError, TypeError) as exc:
                raise Refused(f"invalid event: {exc}") from None
            uid = event.uid
            if event.table != table:
                raise Refused(f"the event names table {event.table!r:.60} on the stream of {table!r}")
            if uid is None:
                raise Refused("event without uid")
        except Refused as exc:
            return self._refuse(key, msg_id, table, fields, str(exc), seq, uid)
        self.store.src_seq = seq
        try:
            self.live.submit(event)
        except psycopg.Error as exc:
            if is_connection_error(exc, self.store.connection):
                raise
            if self.store.batch:
                raise BatchFailed() from exc
            self.store.rollback()
            self.store.reload(table)
            self.live.refold(table)
            if isinstance(exc, psycopg.errors.UniqueViolation) and "pkey" in str(
                    getattr(exc.diag, "constraint_name", "") or ""):
                raise LostTable(table) from None      # another central appended to it
            return self._refuse(key, msg_id, table, fields, f"refused by PostgreSQL: {exc}", seq, uid)
        except Exception as exc:   # noqa: BLE001 - a referee failure on one event must not stop the venue
            if self.store.batch:
                raise BatchFailed() from exc
            self.store.rollback()
            self.store.reload(table)
            self.live.refold(table)
            return self._refuse(key, msg_id, table, fields, f"referee error: {exc!r}", seq, uid)
        if not self.store.appended:
            # its uid was recorded under another position: someone else wrote it; refold
            self.duplicates += 1
            self.store.reload(table)
            self.live.refold(table)
        else:
            self._count("recorded")
        self.position[table] = seq
        try:
            sent = float(fields.get(b"sent", b""))
            if math.isfinite(sent):
                self.latencies.append(time.time() - sent)
        except ValueError:
            pass                        # a clock reading is informative only
        return seq

    def _count(self, what: str) -> None:
        if self.store.batch:
            self._uncommitted[what] = self._uncommitted.get(what, 0) + 1
        else:
            setattr(self, what, getattr(self, what) + 1)

    # ------------------------------------------------------------- health
    def health(self) -> dict[str, Any]:
        """Lag per table (entries not yet delivered, and delivered but unacknowledged),
        dead letters and the last error; for the health endpoint and the overview."""
        out: dict[str, Any] = {"consumer": self.consumer, "healthy": self.healthy and self.error is None,
                               "last_error": self.last_error, "recorded": self.recorded,
                               "duplicates": self.duplicates, "dead_letters": self.dead,
                               "tables": sorted(self.owned), "lag": {}}
        try:
            pipe = self.redis.pipeline(transaction=False)
            owned = sorted(list(self.owned))
            for t in owned:
                pipe.xinfo_groups(stream_key(t))
            for t, groups in zip(owned, pipe.execute(raise_on_error=False)):
                if isinstance(groups, Exception):
                    out["lag"][t] = None
                    continue
                g = next((g for g in groups if g.get("name") in (GROUP, GROUP.encode())), None)
                out["lag"][t] = None if g is None else {"undelivered": g.get("lag"), "pending": g.get("pending")}
        except redis.RedisError as exc:
            out["lag_error"] = redact(str(exc))
        return out

    def recent_dead_letters(self, limit: int = 50) -> list[dict[str, Any]]:
        """The latest dead letters (a connection of its own: the worker's is busy)."""
        with PostgresEventStore(self.pg_dsn) as store:
            return store.dead_letters(limit)

    def dead_letter_summary(self, limit: int = 20) -> tuple[int, list[dict[str, Any]]]:
        """How many dead letters there are in all, and the latest ``limit`` (for the overview)."""
        with PostgresEventStore(self.pg_dsn) as store:
            return store.dead_letter_count(), store.dead_letters(limit)

    # -------------------------------------------------------------- loop
    def run(self, stop: threading.Event) -> None:
        """Record until ``stop``; ride out Redis or PostgreSQL outages. Anything
        else ends the worker (the exception is kept in ``error`` and raised)."""
        try:
            while not stop.is_set():
                try:
                    self.step()
                    if not self.healthy:
                        log.warning("central: connections back")
                    self.healthy = True
                except (redis.AuthenticationError, redis.exceptions.AuthorizationError):
                    raise                   # wrong credentials: no outage, a fault to fix
                except (redis.ConnectionError, redis.TimeoutError) as exc:
                    trust = tls_trust_error(exc)
                    if trust:              # like a wrong password: a setting to fix, no outage
                        raise redis.ConnectionError(f"Redis: {trust}") from None
                    self._unhealthy("Redis", exc, stop)
                except redis.ResponseError as exc:
                    if "NOGROUP" not in str(exc):
                        raise
                    self._lost_data()       # wherever Redis tells us: never a reason to stop
                except psycopg.Error as exc:
                    if not is_connection_error(exc, self.store.connection):
                        raise
                    self._unhealthy("PostgreSQL", exc, stop)
                    self._rebuild(stop)
        except BaseException as exc:
            self.error = exc
            self.last_error = redact(f"{type(exc).__name__}: {exc}")
            log.error("central: worker stopped: %s", self.last_error)
            raise

    def _unhealthy(self, what: str, exc: Exception, stop: threading.Event) -> None:
        self.last_error = redact(f"{what}: {exc}")
        if self.healthy:
            log.warning("central: %s unavailable (%s); retrying", what, self.last_error)
        self.healthy = False
        self._uncommitted.clear()       # a batch cut short is read again
        for table in self.cursor:
            self.cursor[table] = "0"   # take our unacknowledged messages again
        stop.wait(0.2)

    def _rebuild(self, stop: threading.Event) -> None:
        """Reconnect to PostgreSQL and refold every table from what it holds."""
        while not stop.is_set():
            try:
                store = PostgresEventStore(self.pg_dsn)
                positions = store.recorded_positions(self.tables)
            except psycopg.Error:
                stop.wait(0.2)
                continue
            try:
                self.store.close()
            except psycopg.Error:
                pass
            self.store = store
            self.position = positions
            self.live.replace_venue(Venue(store, self.settings))
            return

    def close(self) -> None:
        try:
            for t in self.owned:
                self.redis.eval(_RELEASE, 1, LEASE_PREFIX + t, self.holder)
            self.redis.zrem(CENTRALS_KEY, self.holder)
        except redis.RedisError:
            pass
        self.live.close()
        self.redis.close()
