"""Table nodes -> Redis Streams -> central service -> PostgreSQL, with faults.

Real servers (private redis-server and PostgreSQL from Debian's packages),
a real central process killed with SIGKILL, and a check after each fault
that every event is recorded exactly once, with its decisions.
"""

import signal
import subprocess
import sys
import threading
from contextlib import contextmanager

import psycopg

from referee.settings import Settings
from referee.simulation import simulate_match
from services.live import LiveVenue
from services.venue import Venue
from tests.services import wait_until
from tests.venue.test_faults import assert_same_as
from venue.central import CentralService
from venue.publisher import Publisher

TABLES = ("T01", "T02", "T03")


def feeds(n_deals=1):
    return {t: [dict(e, table=t) for e in simulate_match(seed=i + 10, settings=Settings.parse_format(f"deals:{n_deals}"))]
            for i, t in enumerate(TABLES)}


class Node:
    """A table node: referees locally from its SQLite log and publishes it."""

    def __init__(self, path, redis_url):
        self.live = LiveVenue(Venue(str(path)))
        self.publisher = Publisher(str(path), redis_url, node="node-A")
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.publisher.run, args=(self.stop, 0.02, 0.2), daemon=True)
        self.thread.start()

    def close(self):
        self.stop.set()
        self.thread.join(5)
        self.publisher.close()
        self.live.close()


@contextmanager
def node_and_central(redis_srv, pg, tmp_path):
    """A table node and a central service (in a thread), stopped afterwards."""
    node = Node(tmp_path / "node.sqlite", redis_srv.url)
    central = CentralService(redis_srv.url, pg.dsn, tables=TABLES)
    stop = threading.Event()
    worker = threading.Thread(target=central.run, args=(stop,), daemon=True)
    worker.start()
    try:
        yield node, central
    finally:
        stop.set()
        worker.join(5)
        central.close()
        node.close()


def interleaved(f, limit=400):
    """The tables' events in the order a venue sees them: one from each table in turn."""
    return [f[t][k] for k in range(limit) for t in TABLES if k < len(f[t])]


def through_outage(node, events, recorded, stop, noticed, start):
    """Feed a third of ``events``, wait until ``recorded()`` has them, ``stop()`` a
    server, feed the next third (the table goes on: local log, local referee),
    wait until ``noticed()``, ``start()`` it again and feed the rest."""
    third = len(events) // 3
    for e in events[:third]:
        node.live.submit(e)
    wait_until(lambda: recorded() == third, what="first third recorded")
    stop()
    for e in events[third:2 * third]:
        node.live.submit(e)
    assert node.live.decisions("T01")     # still judging
    wait_until(noticed, what="the outage noticed")
    start()
    for e in events[2 * third:]:
        node.live.submit(e)




def recorded(pg):
    with psycopg.connect(pg.dsn) as db:
        rows = db.execute("SELECT tbl, uid, seq FROM events").fetchall()
        decisions = db.execute("SELECT tbl, COUNT(*) FROM decisions GROUP BY tbl").fetchall()
    return rows, dict(decisions)


def assert_exactly_once(pg, node):
    rows, decisions = recorded(pg)
    uids = [(t, u) for t, u, _ in rows]
    assert len(uids) == len(set(uids)), "an event was recorded twice"
    for table in TABLES:
        local = node.live.events(table)
        mine = sorted(seq for t, _, seq in rows if t == table)
        assert mine == [e["id"] for e in local], f"{table}: recorded {len(mine)} of {len(local)}"
        assert decisions.get(table, 0) == len(node.live.decisions(table)) or any(
            d["type"] == "correction" for d in node.live.decisions(table))


def test_events_flow_to_postgres_once_with_their_decisions(fresh, tmp_path):
    redis_srv, pg = fresh
    with node_and_central(redis_srv, pg, tmp_path) as (node, central):
        events = interleaved(feeds())
        for e in events:
            node.live.submit(e)
        wait_until(lambda: central.recorded == len(events), what="all events recorded")
        assert central.duplicates == 0
        assert_exactly_once(pg, node)
        assert_same_as(pg, node.live)      # in the node's order, with its decisions
        # the central referee agrees with the node's, decision for decision
        for t in TABLES:
            assert central.live.decisions(t) == node.live.decisions(t)
            assert central.live.snapshot(t)["score_sheet"] == node.live.snapshot(t)["score_sheet"]


def test_node_keeps_refereeing_without_redis_and_backfills(fresh, tmp_path):
    redis_srv, pg = fresh
    with node_and_central(redis_srv, pg, tmp_path) as (node, central):
        events = interleaved(feeds(), 200)
        # the network to the venue goes down, and comes back
        through_outage(node, events, lambda: central.recorded, redis_srv.stop,
                       lambda: not node.publisher.connected, redis_srv.start)
        wait_until(lambda: central.recorded == len(events), timeout=60, what="backfill")
        assert_exactly_once(pg, node)
        assert_same_as(pg, node.live)      # in the node's order, with its decisions


def _central_process(redis_srv, pg):
    return subprocess.Popen([sys.executable, "-m", "commands", "central", "--redis", redis_srv.url,
                             "--pg", pg.dsn, "--port", "0", "--tables", ",".join(TABLES)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _count(pg):
    try:
        with psycopg.connect(pg.dsn) as db:
            return db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    except psycopg.Error:
        return -1


def test_central_killed_and_restarted_records_every_event_once(fresh, tmp_path):
    redis_srv, pg = fresh
    node = Node(tmp_path / "node.sqlite", redis_srv.url)
    proc = _central_process(redis_srv, pg)
    try:
        events = interleaved(feeds(2))
        half = len(events) // 2
        for e in events[:half]:
            node.live.submit(e)
        wait_until(lambda: _count(pg) > half // 3, what="central recording")
        proc.send_signal(signal.SIGKILL)      # mid-stream, maybe mid-transaction
        proc.wait(10)
        for e in events[half:]:
            node.live.submit(e)
        proc = _central_process(redis_srv, pg)
        wait_until(lambda: _count(pg) == len(events), timeout=90, what="all recorded after restart")
        assert_exactly_once(pg, node)
        assert_same_as(pg, node.live)      # in the node's order, with its decisions
    finally:
        proc.kill()
        proc.wait(10)
        node.close()


def test_postgres_restart_mid_run_records_every_event_once(fresh, tmp_path):
    redis_srv, pg = fresh
    with node_and_central(redis_srv, pg, tmp_path) as (node, central):
        events = interleaved(feeds(), 200)
        # the database goes away without a clean shutdown, and comes back
        through_outage(node, events, lambda: _count(pg), lambda: pg.stop(mode="immediate"),
                       lambda: not central.healthy, pg.start)
        wait_until(lambda: _count(pg) == len(events), timeout=90, what="all recorded after restart")
        assert_exactly_once(pg, node)
        assert_same_as(pg, node.live)      # in the node's order, with its decisions
        for t in TABLES:
            assert central.live.decisions(t) == node.live.decisions(t)
