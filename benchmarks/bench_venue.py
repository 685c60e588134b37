"""A venue on loopback: many tables -> Redis Streams -> central service -> PostgreSQL.

    python benchmarks/bench_venue.py [--tables 300] [--seconds 60] [--rate 0.5] [--nodes 4]

Starts private redis-server and PostgreSQL servers (Debian's packages), the
central service (`guandan-ref central`, its own process), and ``--nodes``
table-node processes sharing the tables. Each node referees its tables from
its own SQLite log and publishes the log to Redis, while simulated matches
feed every table ``--rate`` events per second (players act every few
seconds). After ``--seconds`` the feeding stops and the central service
drains. Prints events fed, recorded, lost (must be 0) and recorded twice
(must be 0), and the latency from an event entering its table node to its
record (with its decisions) in PostgreSQL, when the dashboard has it too.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def node_main(index: int, tables: list[str], redis_url: str, workdir: str, seconds: float,
              rate: float, out_path: str) -> None:
    import threading

    from referee.settings import Settings
    from referee.simulation import simulate_match
    from services.live import LiveVenue
    from services.venue import Venue
    from venue.publisher import Publisher

    log = f"{workdir}/node{index}.sqlite"
    live = LiveVenue(Venue(log))
    pub = Publisher(log, redis_url, node=f"node{index}")
    stop = threading.Event()
    th = threading.Thread(target=pub.run, args=(stop, 0.02), daemon=True)
    th.start()
    feeds = {t: simulate_match(seed=int(t[1:]), settings=Settings.parse_format("deals:20"), table=t)
             for t in tables}
    sent: dict[str, float] = {}
    ids = {t: 0 for t in tables}
    interval = 1.0 / (rate * len(tables))
    start = time.time()
    i = 0
    while time.time() - start < seconds:
        t = tables[i % len(tables)]
        k = i // len(tables)
        if k < len(feeds[t]):
            ids[t] += 1
            sent[f"node{index}/{t}/{ids[t]}"] = time.time()
            live.submit(feeds[t][k])
        i += 1
        delay = start + i * interval - time.time()
        if delay > 0:
            time.sleep(delay)
    # let the publisher send what is left, then stop
    deadline = time.time() + 60
    while time.time() < deadline and any(pub.cursor(t) < ids[t] for t in tables):
        time.sleep(0.05)
    stop.set()
    th.join(5)
    Path(out_path).write_text(json.dumps(sent))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=300)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--rate", type=float, default=0.5, help="events per second per table")
    ap.add_argument("--nodes", type=int, default=4, help="table-node processes sharing the tables")
    args = ap.parse_args()

    import psycopg

    from tests.services import PostgresServer, RedisServer

    work = Path(tempfile.mkdtemp(prefix="bench-venue-"))
    redis_srv = RedisServer(work / "redis").start()
    pg = PostgresServer(work / "pg").start()
    central = subprocess.Popen([sys.executable, "-m", "commands", "central", "--redis", redis_srv.url,
                                "--pg", pg.dsn, "--port", "0"], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    names = [f"T{i:03d}" for i in range(1, args.tables + 1)]
    groups = [names[i::args.nodes] for i in range(args.nodes)]
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=node_main, args=(i, g, redis_srv.url, str(work), args.seconds, args.rate,
                                                 str(work / f"sent{i}.json")))
             for i, g in enumerate(groups)]
    print(f"{args.tables} tables on {args.nodes} node processes, {args.rate} events/s per table "
          f"for {args.seconds:.0f} s ...", flush=True)
    try:
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        sent: dict[str, float] = {}
        for i in range(args.nodes):
            sent.update(json.loads((work / f"sent{i}.json").read_text()))
        deadline = time.time() + 120
        count = -1
        while time.time() < deadline:
            with psycopg.connect(pg.dsn) as db:
                count = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
            if count >= len(sent):
                break
            time.sleep(0.5)
        with psycopg.connect(pg.dsn) as db:
            rows = db.execute("SELECT uid, EXTRACT(EPOCH FROM recorded_at) FROM events").fetchall()
            twice = db.execute("SELECT COUNT(*) FROM (SELECT tbl, body->>'id' FROM events "
                               "GROUP BY 1, 2 HAVING COUNT(*) > 1) x").fetchone()[0]
            decisions = db.execute("SELECT COUNT(*) FROM decisions").fetchone()[0]
        recorded = {uid: float(at) for uid, at in rows}
        lost = [u for u in sent if u not in recorded]
        lat = sorted(recorded[u] - t0 for u, t0 in sent.items() if u in recorded)
        print(f"events fed {len(sent)} ({len(sent) / args.seconds:.0f}/s), recorded {len(recorded)}, "
              f"decisions recorded {decisions}")
        print(f"lost {len(lost)} (must be 0), recorded twice {twice} (must be 0)")
        if lat:
            p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
            print(f"event -> recorded with its decisions (and on the dashboard): "
                  f"median {statistics.median(lat) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, "
                  f"max {lat[-1] * 1000:.0f} ms")
    finally:
        central.terminate()
        central.wait(30)
        redis_srv.stop()
        pg.stop()


if __name__ == "__main__":
    main()
