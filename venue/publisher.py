"""A table node's publisher: copies its local log to Redis Streams.

The table node referees from its own SQLite log (it keeps working with the
network down); the publisher follows that log and appends each event, in
order, to the table's stream ``guandan:events:<table>`` under the stream id
``<position>-1`` (its position in the node's log: a re-sent entry Redis still
holds is refused as a duplicate, so re-sending is harmless).

The node forgets an event only once the central service has *recorded* it:
the central publishes per table the last recorded position in the hash
``guandan:recorded``. The node keeps a copy of that cursor in its SQLite
file and trims the stream up to it. Each batch is appended by a script
that first checks the stream still holds the node's previous entry (its
last-generated id survives trimming); when Redis lost entries it had
accepted (a restart without its files, with or without the central
running), the node sends again from the recorded cursor, and the central
skips what it recorded already. Correctness does not depend on Redis
persistence.

With a ``key``, each message carries an HMAC of table, position and event
(docs/architecture.md, 'The venue': authentication).

TLS: a ``rediss://`` URL, and ``ca_file``, the CA that signed the Redis
server's certificate (else the system's CAs); the server's name or address
must be in its certificate.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import sqlite3
import ssl
import threading
import time
from typing import TYPE_CHECKING

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from storage.sqlite_log import EventStore
from venue.secrets import redact

if TYPE_CHECKING:
    from referee.events import Event

STREAM_PREFIX = "guandan:events:"
RECORDED_KEY = "guandan:recorded"      # hash: table -> last position recorded in PostgreSQL
log = logging.getLogger(__name__)

# Append a table's batch only if the stream still holds (or held, before
# trimming) the node's previous entry: else Redis lost entries it had accepted,
# and the node must send again from the recorded position (reply LOST).
# Entries Redis already has (a re-send) are skipped. ARGV: previous position,
# node, send time, then (position, event, signature) per event.
_APPEND = """
local prev = tonumber(ARGV[1])
local top = 0
local info = redis.pcall('XINFO', 'STREAM', KEYS[1])
if type(info) == 'table' and not info.err then
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then top = tonumber(string.match(info[i + 1], '^(%d+)')) end
  end
end
if top < prev then return redis.error_reply('LOST entries up to ' .. prev) end
local n = 0
for i = 4, #ARGV, 3 do
  if tonumber(ARGV[i]) > top then
    redis.call('XADD', KEYS[1], ARGV[i] .. '-1', 'event', ARGV[i + 1], 'node', ARGV[2],
               'sent', ARGV[3], 'seq', ARGV[i], 'sig', ARGV[i + 2])
    n = n + 1
  end
end
return n
"""


def check_redis_url(url: str, ca_file: object = None) -> str:
    """``url`` if it is a Redis URL this venue can use (and TLS when a CA file
    is given); else ValueError naming what to give.

    >>> check_redis_url("rediss://central@venue:6380/0", ca_file="ca.pem")
    'rediss://central@venue:6380/0'
    >>> check_redis_url("redis://venue:6379/0", ca_file="ca.pem")
    Traceback (most recent call last):
    ...
    ValueError: a Redis CA file is for TLS: give a rediss:// URL, not redis://venue:6379/0
    """
    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme not in ("redis", "rediss", "unix"):
        raise ValueError(f"not a Redis URL: {redact(url)} (give redis://HOST:6379/0, or rediss:// for TLS)")
    if ca_file is not None and scheme != "rediss":
        raise ValueError(f"a Redis CA file is for TLS: give a rediss:// URL, not {redact(url)}")
    return url


def connect_redis(url: str, timeout: float = 5.0, password: str | None = None,
                  ca_file: str | None = None) -> redis.Redis:
    """A client for ``url`` (``rediss://`` for TLS, checked against ``ca_file``, or
    the system's CAs without it; the host name is checked too)."""
    # redis-py retries a command on a dropped connection itself (with backoff);
    # a longer outage reaches the caller, which waits and reconnects.
    check_redis_url(url, ca_file)
    kw: dict[str, str] = {"password": password} if password else {}
    if ca_file is not None:
        kw["ssl_ca_certs"] = ca_file
    return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=2, **kw,
                                retry=Retry(ExponentialBackoff(cap=0.5, base=0.02), 3),
                                retry_on_error=[redis.ConnectionError, redis.TimeoutError])


def tls_trust_error(exc: BaseException) -> str | None:
    """A clear sentence when ``exc`` is (or was caused by) a server certificate
    that the CA file does not vouch for: a setting to fix, not an outage."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLCertVerificationError):
            return ("the server's TLS certificate is not trusted: it is not signed by the CA file "
                    f"given (or names another host): {seen.verify_message or seen.reason}")
        seen = seen.__cause__ or seen.__context__
    return None


def stream_key(table: str) -> str:
    return STREAM_PREFIX + table


def event_uid(node: str, event: Event) -> str:
    """The event's uid: the source's own (devices set one) or node/table/id."""
    return event.uid or f"{node}/{event.table}/{event.id}"


def signature(key: bytes, table: str, seq: int, event_json: str) -> str:
    """The HMAC-SHA256 a node signs each message with (hex)."""
    return hmac.new(key, f"{table}\n{seq}\n{event_json}".encode(), hashlib.sha256).hexdigest()


class Publisher:
    def __init__(self, log_path: str, redis_url: str, node: str, batch: int = 500,
                 key: bytes | None = None, check_interval: float = 0.5,
                 password: str | None = None, ca_file: str | None = None) -> None:
        self.log_path = log_path
        self.node = node
        self.batch = batch
        self.key = key
        self.check_interval = check_interval
        self.redis = connect_redis(redis_url, timeout=2, password=password, ca_file=ca_file)
        self._store = EventStore(log_path)      # makes the events table if the log is new
        self._db = sqlite3.connect(log_path, isolation_level=None, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS publish_cursor (tbl TEXT PRIMARY KEY, last INTEGER NOT NULL)")
        self._db.execute("CREATE TABLE IF NOT EXISTS recorded_cursor (tbl TEXT PRIMARY KEY, last INTEGER NOT NULL)")
        self._next_check = 0.0
        self._resync: set[str] = set()
        self._append = self.redis.register_script(_APPEND)
        self.published = 0
        self.backfills = 0
        self.connected = True

    def cursor(self, table: str) -> int:
        """The last position Redis accepted."""
        row = self._db.execute("SELECT last FROM publish_cursor WHERE tbl = ?", (table,)).fetchone()
        return row[0] if row else 0

    def recorded(self, table: str) -> int:
        """The last position the central service recorded (as far as this node knows)."""
        row = self._db.execute("SELECT last FROM recorded_cursor WHERE tbl = ?", (table,)).fetchone()
        return row[0] if row else 0

    def _set(self, which: str, values: dict[str, int]) -> None:
        self._db.executemany(f"INSERT INTO {which} (tbl, last) VALUES (?, ?) "
                             "ON CONFLICT (tbl) DO UPDATE SET last = excluded.last",
                             list(values.items()))

    def publish_pending(self) -> int:
        """Send what Redis has not yet accepted; returns how many events were sent.
        Raises redis.ConnectionError / TimeoutError while Redis is unreachable."""
        if time.monotonic() >= self._next_check:
            self.check()
        sent = 0
        while True:
            # one query for every table's unsent events; the referee appends through its
            # own connection, and each read here sees its commits (WAL)
            rows = self._db.execute(
                "SELECT e.tbl, e.seq, e.uid, e.body, COALESCE(c.last, 0) FROM events e "
                "LEFT JOIN publish_cursor c ON c.tbl = e.tbl "
                "WHERE e.seq > COALESCE(c.last, 0) ORDER BY e.tbl, e.seq LIMIT ?", (self.batch,)).fetchall()
            if not rows:
                break
            batches: dict[str, list[str]] = {}
            prev: dict[str, int] = {}
            last: dict[str, int] = {}
            for table, seq, uid, body, cursor in rows:
                text = self._body(body, uid or f"{self.node}/{table}/{seq}")
                sig = signature(self.key, table, seq, text) if self.key is not None else ""
                batches.setdefault(table, []).extend((str(seq), text, sig))
                # after a loss, send without asking for the entries Redis no longer has
                prev[table] = 0 if table in self._resync else cursor
                last[table] = seq
            pipe = self.redis.pipeline(transaction=False)
            now = repr(time.time())
            for table, args in batches.items():
                self._append(keys=[stream_key(table)], args=[prev[table], self.node, now, *args], client=pipe)
            lost = {}
            for table, reply in zip(batches, pipe.execute(raise_on_error=False)):
                if isinstance(reply, redis.ConnectionError):
                    raise reply
                if isinstance(reply, redis.ResponseError):
                    if "LOST" not in str(reply):
                        raise reply
                    lost[table] = self.recorded(table)
                    del last[table]
                else:
                    self._resync.discard(table)
            self._set("publish_cursor", last)
            sent += sum(len(batches[t]) // 3 for t in last)
            if lost:
                self._lost(lost)
        self.published += sent
        return sent

    def _lost(self, tables: dict[str, int]) -> None:
        """Redis lost entries it had accepted: send again from what the central recorded."""
        self.check()                            # the freshest recorded positions
        back = {t: self.recorded(t) for t in tables}
        self.backfills += 1
        log.warning("publisher %s: Redis lost entries of %d tables; sending again from the recorded "
                    "positions", self.node, len(back))
        self._set("publish_cursor", back)
        self._resync.update(back)

    @staticmethod
    def _body(body: str, uid: str) -> str:
        d = json.loads(body)
        d["uid"] = uid
        return json.dumps(d, ensure_ascii=False)

    def check(self) -> None:
        """Learn how far the central recorded, and trim the streams up to there."""
        self._next_check = time.monotonic() + self.check_interval
        tables = [r[0] for r in self._db.execute("SELECT tbl FROM publish_cursor ORDER BY tbl")]
        if not tables:
            return
        mine = dict(self._db.execute("SELECT tbl, last FROM recorded_cursor").fetchall())
        remote = self.redis.hmget(RECORDED_KEY, tables)
        recorded = {t: int(r) for t, r in zip(tables, remote) if r and int(r) > mine.get(t, 0)}
        if recorded:
            pipe = self.redis.pipeline(transaction=False)
            for t, r in recorded.items():
                # the central has these in PostgreSQL: Redis need not keep them
                pipe.xtrim(stream_key(t), minid=f"{r}-2")
            pipe.execute()
            self._set("recorded_cursor", recorded)

    def run(self, stop: threading.Event, interval: float = 0.05, max_backoff: float = 5.0) -> None:
        """Publish until ``stop`` is set; wait and retry while Redis is down."""
        backoff = interval
        while not stop.is_set():
            try:
                self.publish_pending()
                if not self.connected:
                    log.warning("publisher %s: Redis is back, backfilled", self.node)
                    self._next_check = 0.0
                self.connected = True
                backoff = interval
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                if self.connected:
                    trust = tls_trust_error(exc)
                    if trust:       # a setting to fix: said as an error (and retried: it may be fixed)
                        log.error("publisher %s: %s; refereeing goes on locally", self.node, trust)
                    else:
                        log.warning("publisher %s: Redis unreachable (%s); refereeing goes on locally",
                                    self.node, redact(str(exc)))
                self.connected = False
                backoff = min(max_backoff, backoff * 2)
            stop.wait(backoff)

    def close(self) -> None:
        self._db.close()
        self._store.close()
        self.redis.close()
