"""The venue's hard faults, one test per row of the fault table (issue: the
venue loses data on hard faults): Redis killed (with its files kept, and
lost with the central up, and with it down first), table nodes killed
(three times, and during a backfill), poison messages, forged sources, a
worker error, two and three centrals (the central killed and PostgreSQL
stopped: tests/venue/test_venue.py). Each ends with the record in
PostgreSQL equal to each node's own log: every event once, in order, with
the same decisions.
"""

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time

import psycopg
import pytest
import redis

from referee.settings import Settings
from referee.simulation import simulate_match
from services.live import LiveVenue
from services.venue import Venue
from tests.services import kill_and_lose_files, wait_until
from venue.central import CentralService, _stable_owner
from venue.publisher import RECORDED_KEY, Publisher, signature, stream_key

TABLES = ("T01", "T02", "T03")


def feeds(tables=TABLES, deals=1):
    return {t: [dict(e, table=t) for e in simulate_match(seed=i + 20, settings=Settings.parse_format(f"deals:{deals}"))]
            for i, t in enumerate(tables)}


def interleaved(f, limit=400):
    tables = sorted(f)
    return [f[t][k] for k in range(limit) for t in tables if k < len(f[t])]




class Node:
    def __init__(self, path, redis_url, name="node-A", key=None, **kw):
        self.live = LiveVenue(Venue(str(path)))
        self.publisher = Publisher(str(path), redis_url, node=name, key=key, check_interval=0.1, **kw)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.publisher.run, args=(self.stop, 0.01, 0.1), daemon=True)
        self.thread.start()

    def feed(self, events):
        for e in events:
            self.live.submit(e)

    def accepted(self):
        """Whether Redis accepted every event of this node's log."""
        return all(self.publisher.cursor(t) == len(self.live.events(t)) for t in self.live.tables)

    def close(self):
        self.stop.set()
        self.thread.join(5)
        self.publisher.close()
        self.live.close()


class Central:
    """A central service in a thread; ``crash()`` stops it without any goodbye
    (its leases and pending messages stay behind, as after kill -9)."""

    def __init__(self, redis_srv, pg, tables=TABLES, consumer="central-1", **kw):
        self.service = CentralService(redis_srv.url, pg.dsn, tables=tables, consumer=consumer, **kw)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            self.service.run(self.stop)
        except Exception:   # kept in service.error; the test looks at it
            pass

    def crash(self):
        self.stop.set()
        self.thread.join(10)
        self.service.store.close()

    def close(self):
        self.stop.set()
        self.thread.join(10)
        self.service.close()


def _plain(x):
    return json.loads(json.dumps(x))


def record(pg, table):
    with psycopg.connect(pg.dsn) as db:
        events = [r[0] for r in db.execute("SELECT body FROM events WHERE tbl = %s ORDER BY seq", (table,))]
        decisions = [r[0] for r in db.execute("SELECT body FROM decisions WHERE tbl = %s ORDER BY seq, k",
                                              (table,))]
    return events, decisions


def count(pg):
    try:
        with psycopg.connect(pg.dsn) as db:
            return db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    except psycopg.Error:
        return -1


def dead_letters(pg):
    with psycopg.connect(pg.dsn) as db:
        return db.execute("SELECT stream, tbl, reason FROM dead_letters ORDER BY id").fetchall()


def strip(e):
    return {k: v for k, v in e.items() if k not in ("id", "uid")}


def assert_same_as(pg, reference: LiveVenue, tables=TABLES):
    """PostgreSQL holds each table's events once, in the reference's order, with its decisions."""
    for t in tables:
        events, decisions = record(pg, t)
        mine = reference.events(t)
        assert [strip(e) for e in events] == [strip(_plain(e)) for e in mine], f"{t}: events differ"
        assert [e["id"] for e in events] == list(range(1, len(mine) + 1))
        assert decisions == _plain(reference.decisions(t)), f"{t}: decisions differ"


@pytest.fixture
def node(fresh, tmp_path):
    redis_srv, _ = fresh
    n = Node(tmp_path / "node.sqlite", redis_srv.url)
    yield n
    n.close()


# --------------------------------------------------------------- Redis killed

def test_redis_killed_with_its_files_kept_loses_nothing(fresh, node):
    redis_srv, pg = fresh
    central = Central(redis_srv, pg)
    try:
        events = interleaved(feeds())
        third = len(events) // 3
        node.feed(events[:third])
        wait_until(lambda: count(pg) == third, what="first third recorded")
        redis_srv.proc.kill()                     # kill -9; its append-only file stays
        redis_srv.proc.wait(20)
        node.feed(events[third:2 * third])        # the table goes on, Redis down
        redis_srv.start()
        node.feed(events[2 * third:])
        wait_until(lambda: count(pg) == len(events), what="all recorded")
        assert_same_as(pg, node.live)
        assert central.service.error is None and central.service.dead == 0
    finally:
        central.close()


# --------------------------------------------------------------- table nodes killed

class NodeProcess:
    """tests/venue/node_process.py: a table node killed with SIGKILL and started again."""

    def __init__(self, tmp_path, redis_url, events):
        self.log = tmp_path / "node.sqlite"
        self.feed = tmp_path / "feed.jsonl"
        self.feed.write_text("".join(json.dumps(dict(e, uid=f"feed/{k}")) + "\n" for k, e in enumerate(events)))
        self.stderr = tmp_path / "node.err"
        self.redis_url = redis_url
        self.proc = None

    def start(self, upto):
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
        with open(self.stderr, "w") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "tests.venue.node_process", str(self.log),
                                          self.redis_url, str(self.feed), str(upto)],
                                         stdout=subprocess.DEVNULL, stderr=err, cwd=root, env=env)

    def kill(self):
        self.proc.kill()
        self.proc.wait(20)

    def _query(self, sql):
        if not self.log.exists():
            return 0
        db = sqlite3.connect(f"file:{self.log}?mode=ro", uri=True)
        try:
            return db.execute(sql).fetchone()[0] or 0
        except sqlite3.OperationalError:      # a table not made yet
            return 0
        finally:
            db.close()

    def logged(self):
        """Events in the node's log."""
        return self._query("SELECT COUNT(*) FROM events")

    def accepted(self):
        """Whether Redis accepted the whole log."""
        return self._query("SELECT SUM(last) FROM publish_cursor") == self.logged() > 0


def test_table_node_killed_three_times_and_during_a_backfill(fresh, tmp_path):
    redis_srv, pg = fresh
    events = interleaved(feeds())
    half, most = len(events) // 2, len(events) * 3 // 4
    node = NodeProcess(tmp_path, redis_srv.url, events)
    central = Central(redis_srv, pg)
    try:
        node.start(half)
        wait_until(lambda: node.logged() >= half // 3, what="the node refereeing")
        node.kill()                                           # 1: mid-feed
        node.start(half)
        wait_until(lambda: node.logged() >= 2 * half // 3, what="the node refereeing again")
        node.kill()                                           # 2: mid-feed
        node.start(half)
        wait_until(lambda: count(pg) == node.logged() == half, what="the first half recorded")
        central.crash()
        node.kill()                                           # 3
        node.start(most)
        wait_until(lambda: node.logged() == most and node.accepted(), what="Redis accepted, nobody recorded")
        node.kill()
        kill_and_lose_files(redis_srv)                        # and Redis comes back empty
        redis_srv.start()
        node.start(len(events))
        wait_until(lambda: "sending again" in node.stderr.read_text(), what="the node backfilling")
        node.kill()                                           # 4: during the backfill
        node.start(len(events))
        central = Central(redis_srv, pg)
        wait_until(lambda: node.logged() == len(events) and count(pg) == len(events), timeout=60,
                   what="every event recorded")
        node.kill()
        reference = LiveVenue(Venue(str(node.log)))
        try:
            assert_same_as(pg, reference)
            assert [e["uid"] for t in TABLES for e in reference.events(t)] == \
                [f"feed/{k}" for t in TABLES for k, e in enumerate(events) if e["table"] == t]
        finally:
            reference.close()
        assert central.service.error is None and central.service.dead == 0
    finally:
        if node.proc and node.proc.poll() is None:
            node.kill()
        central.close()


# --------------------------------------------------------------- Redis loses its files

def test_redis_killed_with_its_files_lost_central_recreates_the_group(fresh, node):
    redis_srv, pg = fresh
    central = Central(redis_srv, pg)
    try:
        events = interleaved(feeds())
        third = len(events) // 3
        node.feed(events[:third])
        wait_until(lambda: count(pg) == third, what="first third recorded")
        kill_and_lose_files(redis_srv)
        node.feed(events[third:2 * third])
        redis_srv.start()                         # empty: no streams, no group (NOGROUP)
        node.feed(events[2 * third:])
        wait_until(lambda: count(pg) == len(events), what="all recorded")
        assert central.thread.is_alive() and central.service.error is None
        assert_same_as(pg, node.live)
        assert central.service.dead == 0
    finally:
        central.close()


def test_redis_loses_its_files_while_the_central_is_down(fresh, node):
    redis_srv, pg = fresh
    central = Central(redis_srv, pg)
    events = interleaved(feeds())
    third = len(events) // 3
    node.feed(events[:third])
    wait_until(lambda: count(pg) == third, what="first third recorded")
    central.crash()
    node.feed(events[third:2 * third])
    wait_until(node.accepted, what="Redis accepted the second third")    # but nobody recorded it
    kill_and_lose_files(redis_srv)
    redis_srv.start()
    node.feed(events[2 * third:])
    central = Central(redis_srv, pg)
    try:
        wait_until(lambda: count(pg) == len(events), what="all recorded")
        assert_same_as(pg, node.live)
        assert node.publisher.backfills >= 1
        # the node learns how far is recorded, and Redis keeps no more than it must
        r = redis.Redis.from_url(redis_srv.url)
        wait_until(lambda: all(int(r.hget(RECORDED_KEY, t) or 0) == len(node.live.events(t)) for t in TABLES),
                   what="recorded positions published")
        wait_until(lambda: all(node.publisher.recorded(t) == len(node.live.events(t)) for t in TABLES),
                   what="the node's recorded cursor")
        node.feed([{"type": "tick", "table": events[0]["table"], "t": events[-1]["t"]}])
        wait_until(lambda: r.xlen(stream_key(events[0]["table"])) <= 2, what="stream trimmed")
    finally:
        central.close()


# ----------------------------------------------------------------- poison and forgery

def _send(r, table, seq, event=None, raw=None, key=None, **fields):
    """A message as a node sends it (stream id = its position), or a crafted one."""
    text = raw if raw is not None else json.dumps(event, ensure_ascii=False)
    body = {"event": text, "node": "node-X", "sent": repr(time.time()), "seq": str(seq), **fields}
    if key is not None:
        body["sig"] = signature(key, table, seq, text)
    r.xadd(stream_key(table), body, id=f"{seq}-1")


def test_poison_messages_go_to_dead_letters_and_every_other_event_flows(fresh, tmp_path):
    redis_srv, pg = fresh
    r = redis.Redis.from_url(redis_srv.url)
    reference = LiveVenue(Venue(str(tmp_path / "reference.sqlite")))
    central = Central(redis_srv, pg)
    try:
        f = feeds()
        seq = {t: 0 for t in TABLES}
        poison = {
            5: dict(raw='{"type": "tick", "t": NaN, "table": "T01"}'),                 # non-finite number
            9: dict(raw='{"type": "tick", "t": 1, "table": "T01", "uid": "u9", "x\\u0000": 1}'),  # PostgreSQL refuses
            13: dict(raw='{"type": "tick", "t": 1, "table": "T01", "uid": "u13", "why": "a\\u0000b"}'),  # NUL
            17: dict(raw='{"type": "play", "t": 1, "table": "T01", "seat": "E", "cards": ["ZZ"], "uid": "b"}'),
            21: dict(raw=b"\xff\xfe not utf-8"),                                       # undecodable
            25: dict(raw='{"type": "tick", "t": 1, "table": "T01", "uid": "u25"}', extra="?"),  # unknown field
        }
        for k, e in enumerate(interleaved(f)):
            t = e["table"]
            seq[t] += 1
            if t == "T01" and seq[t] in poison:
                _send(r, t, seq[t], **poison[seq[t]])
                seq[t] += 1
            reference.submit(dict(e, uid=f"u/{t}/{seq[t]}"))
            extra = {"sent": "yesterday"} if k == 7 else {}
            _send(r, t, seq[t], dict(e, uid=f"u/{t}/{seq[t]}"), **extra)
        total = sum(len(v) for v in f.values())
        wait_until(lambda: count(pg) == total and central.service.dead == len(poison), what="all handled")
        assert central.service.error is None
        assert_same_as(pg, reference)
        reasons = [reason for _, _, reason in dead_letters(pg)]
        assert len(reasons) == len(poison)
        assert any("NaN" in x for x in reasons) and any("PostgreSQL" in x for x in reasons)
        assert any("unknown message fields" in x for x in reasons) and any("card" in x.lower() for x in reasons)
        # the recorded position counts dead letters as settled: the node need not resend them
        wait_until(lambda: int(r.hget(RECORDED_KEY, "T01")) == seq["T01"], what="T01 position")
        health = central.service.health()
        assert health["dead_letters"] == len(poison) and set(health["lag"]) == set(TABLES)
        assert [d["reason"] for d in central.service.recent_dead_letters()] == reasons[::-1]
    finally:
        central.close()
        reference.close()


def test_forged_sources_are_refused(fresh, tmp_path):
    redis_srv, pg = fresh
    r = redis.Redis.from_url(redis_srv.url)
    keys = {"T01": b"k1", "T02": b"k2"}
    central = Central(redis_srv, pg, tables=("T01", "T02"), node_keys=keys)
    reference = LiveVenue(Venue(str(tmp_path / "reference.sqlite")))
    try:
        f = feeds(("T01", "T02"))
        e1, e2 = f["T01"][0], f["T02"][0]
        _send(r, "T01", 1, dict(e2, uid="x1"), key=b"k1")           # T002's event on T001's stream
        _send(r, "T01", 2, dict(e1, uid="x2"), key=b"k2")           # signed with another node's key
        _send(r, "T01", 3, dict(e1, uid="x3"))                      # not signed
        _send(r, "T999", 1, dict(e1, table="T999", uid="x4"))       # a table nobody configured
        r.xadd("guandan:events:EVIL", {"event": json.dumps(dict(e1, uid="x5"))})
        for t, seq0 in (("T01", 4), ("T02", 1)):
            for k, e in enumerate(f[t]):
                reference.submit(dict(e, uid=f"{t}/{k}"))
                _send(r, t, seq0 + k, dict(e, uid=f"{t}/{k}"), key=keys[t])
        total = len(f["T01"]) + len(f["T02"])
        wait_until(lambda: count(pg) == total and central.service.dead == 3, what="all handled")
        assert_same_as(pg, reference, ("T01", "T02"))
        letters = dead_letters(pg)
        assert [s for s, _, _ in letters] == ["guandan:events:T01"] * 3
        assert "names table 'T02'" in letters[0][2] and "signature" in letters[1][2] and "signature" in letters[2][2]
        with psycopg.connect(pg.dsn) as db:
            assert db.execute("SELECT DISTINCT tbl FROM events ORDER BY tbl").fetchall() == [("T01",), ("T02",)]
        assert r.xinfo_groups("guandan:events:EVIL") == []          # never even read
    finally:
        central.close()
        reference.close()


def test_a_node_acl_user_may_write_only_its_own_stream(fresh):
    """Redis ACL per node (docs/architecture.md, 'Authentication'): the node of
    T01 can append to its stream and read the recorded positions, nothing else."""
    redis_srv, _ = fresh
    admin = redis.Redis.from_url(redis_srv.url)
    admin.acl_setuser("node-T01", enabled=True, passwords=["+pw-T01"],
                      keys=["~guandan:events:T01", "%R~guandan:recorded"],
                      commands=["+xadd", "+xinfo|stream", "+xtrim", "+hmget", "+evalsha", "+eval",
                                "+script|load", "+script|exists", "+ping"])
    try:
        node = redis.Redis(host="127.0.0.1", port=redis_srv.port, username="node-T01", password="pw-T01")
        node.xadd("guandan:events:T01", {"event": "{}"}, id="1-1")
        for forged in (lambda: node.xadd("guandan:events:T02", {"event": "{}"}),
                       lambda: node.hset(RECORDED_KEY, "T01", 99),
                       lambda: node.xadd("guandan:events:EVIL", {"event": "{}"})):
            with pytest.raises(redis.exceptions.NoPermissionError):
                forged()
    finally:
        admin.acl_deluser("node-T01")


# -------------------------------------------------------------------------- supervision

def test_a_worker_error_ends_the_central_process_non_zero(fresh):
    redis_srv, pg = fresh
    r = redis.Redis.from_url(redis_srv.url)
    r.set(stream_key("T01"), "not a stream")        # WRONGTYPE: no outage, a fault to restart on
    proc = subprocess.run([sys.executable, "-m", "commands", "central", "--redis", redis_srv.url, "--pg", pg.dsn,
                           "--port", "0", "--tables", "T01"], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "WRONGTYPE" in proc.stdout + proc.stderr


def test_passwords_are_never_printed(fresh, monkeypatch):
    redis_srv, pg = fresh
    url = f"redis://central:s3cret-pw@127.0.0.1:{redis_srv.port}/0"    # no such user: refused
    proc = subprocess.run([sys.executable, "-m", "commands", "central", "--redis", url,
                           "--pg", pg.dsn + " password=pg-s3cret", "--port", "0", "--tables", "T01"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "s3cret" not in proc.stdout + proc.stderr


# ----------------------------------------------------------------------- several centrals

@pytest.mark.parametrize("n", [2, 3])
def test_several_centrals_record_what_one_would(fresh, tmp_path, n):
    redis_srv, pg = fresh
    tables = tuple(f"T{i:02d}" for i in range(1, 11))
    node = Node(tmp_path / "node.sqlite", redis_srv.url)
    centrals = [Central(redis_srv, pg, tables=tables, consumer=f"c{i}", lease_ms=600) for i in range(n)]
    busiest = None
    try:
        holders = sorted(c.service.holder for c in centrals)

        def shared():      # each table with exactly the central the stable hash gives it
            return all(t in c.service.owned for t in tables for c in centrals
                       if _stable_owner(t, holders) == c.service.holder) \
                and sum(len(c.service.owned) for c in centrals) == len(tables)

        wait_until(shared, what="tables shared by the stable hash")
        events = interleaved(feeds(tables), 60)
        half = len(events) // 2
        node.feed(events[:half])
        wait_until(lambda: count(pg) == half, what="first half recorded")
        busiest = max(centrals, key=lambda c: len(c.service.owned))
        busiest.crash()                                    # its tables move on after the lease
        node.feed(events[half:])
        wait_until(lambda: count(pg) == len(events), what="all recorded")
        assert_same_as(pg, node.live, tables)
        assert all(c.service.error is None for c in centrals)
    finally:
        for c in centrals:
            if c is not busiest:
                c.close()
        node.close()
