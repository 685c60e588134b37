"""A venue on loopback: many tables -> Redis Streams -> central service(s) -> PostgreSQL.

    python benchmarks/bench_venue.py [--tables 300] [--seconds 20] [--rates 1,5] [--centrals 1,3] [--nodes 4]

Starts private redis-server and PostgreSQL servers (Debian's packages), then
for each rate (events per second per table) and each number of centrals
(`guandan-ref central` processes sharing the tables by lease): ``--nodes``
table-node processes sharing the tables, each refereeing its tables from its
own SQLite log and publishing it to Redis, while simulated matches feed every
table. After ``--seconds`` the feeding stops and the venue drains. One line
per run: recorded/sent, lost (must be 0), doubled (must be 0: events recorded
twice, counted by uid and by content, i.e. the same table, position in the
node's log, or body), and the lag from an event entering its table node to
its record (with its decisions) in PostgreSQL: p50, p99, max.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
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
    # let the publisher send what is left, until the central recorded it, then stop
    deadline = time.time() + 60
    while time.time() < deadline and any(pub.recorded(t) < ids[t] for t in tables):
        time.sleep(0.05)
    stop.set()
    th.join(5)
    Path(out_path).write_text(json.dumps(sent))


def settled(redis_url: str, names: list[str], n_centrals: int, timeout: float = 60.0) -> None:
    """Wait until the centrals are up and each table is held by the one the stable hash gives it."""
    import redis

    from venue.central import CENTRALS_KEY, LEASE_PREFIX, _stable_owner
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    deadline = time.time() + timeout
    while time.time() < deadline:
        live = sorted(r.zrange(CENTRALS_KEY, 0, -1))
        if len(live) == n_centrals:
            holders = r.mget([LEASE_PREFIX + t for t in names])
            if all(h == _stable_owner(t, live) for t, h in zip(names, holders)):
                return
        time.sleep(0.1)
    raise RuntimeError("the centrals did not take their tables")


def run_once(args, redis_srv, pg, work: Path, rate: float, n_centrals: int) -> dict:
    import psycopg
    import redis

    redis.Redis.from_url(redis_srv.url).flushall()
    with psycopg.connect(pg.dsn, autocommit=True) as db:
        db.execute("DROP TABLE IF EXISTS decisions, events, dead_letters, schema_migrations CASCADE")
    run_dir = Path(tempfile.mkdtemp(prefix=f"r{rate}-c{n_centrals}-", dir=work))
    names = [f"T{i:03d}" for i in range(1, args.tables + 1)]
    centrals = [subprocess.Popen([sys.executable, "-m", "commands", "central", "--redis", redis_srv.url,
                                  "--pg", pg.dsn, "--port", "0", "--tables", ",".join(names),
                                  "--consumer", f"central-{i + 1}"], cwd=ROOT,
                                 stdout=subprocess.DEVNULL, stderr=open(run_dir / f"central{i}.log", "w"))
                for i in range(n_centrals)]
    settled(redis_srv.url, names, n_centrals)
    groups = [names[i::args.nodes] for i in range(args.nodes)]
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=node_main, args=(i, g, redis_srv.url, str(run_dir), args.seconds, rate,
                                                 str(run_dir / f"sent{i}.json")))
             for i, g in enumerate(groups)]
    try:
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        sent: dict[str, float] = {}
        for i in range(args.nodes):
            sent.update(json.loads((run_dir / f"sent{i}.json").read_text()))
        deadline = time.time() + 120
        while time.time() < deadline:
            with psycopg.connect(pg.dsn) as db:
                if db.execute("SELECT COUNT(*) FROM events").fetchone()[0] >= len(sent):
                    break
            time.sleep(0.5)
        with psycopg.connect(pg.dsn) as db:
            rows = db.execute("SELECT uid, EXTRACT(EPOCH FROM pg_xact_commit_timestamp(xmin)) FROM events").fetchall()
            twice = sum(db.execute(q).fetchone()[0] for q in (
                # the same event twice: by uid, by the node's position, by content (uid and id aside)
                "SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) n FROM events GROUP BY tbl, uid) x",
                "SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) n FROM events "
                "WHERE src_seq IS NOT NULL GROUP BY tbl, src_seq) x",
                "SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) n FROM events "
                "GROUP BY tbl, body - 'id' - 'uid') x"))
            dead = db.execute("SELECT COUNT(*) FROM dead_letters").fetchone()[0]
        alive = all(c.poll() is None for c in centrals)
    finally:
        for c in centrals:
            c.terminate()
        for c in centrals:
            c.wait(30)
    recorded = {uid: float(at) for uid, at in rows}
    lat = sorted(recorded[u] - t0 for u, t0 in sent.items() if u in recorded)
    pct = (lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000) if lat else (lambda q: float("nan"))
    return {"rate": rate, "centrals": n_centrals, "sent": len(sent), "recorded": len(recorded),
            "lost": sum(1 for u in sent if u not in recorded), "doubled": int(twice), "dead": dead,
            "p50": pct(0.5), "p99": pct(0.99), "max": lat[-1] * 1000 if lat else float("nan"),
            "centrals_alive": alive}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=300)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--rates", default="1,5", help="events per second per table, one run each")
    ap.add_argument("--centrals", default="1,3", help="numbers of central processes, one run each")
    ap.add_argument("--nodes", type=int, default=4, help="table-node processes sharing the tables")
    args = ap.parse_args()

    from tests.services import PostgresServer, RedisServer

    work = Path(tempfile.mkdtemp(prefix="bench-venue-"))
    redis_srv = RedisServer(work / "redis").start()
    # the lag ends at the commit (the central commits a batch at once; recorded_at is its start)
    pg = PostgresServer(work / "pg").start("-c track_commit_timestamp=on")
    print(f"{args.tables} tables on {args.nodes} node processes, {args.seconds:.0f} s per run", flush=True)
    print(f"{'ev/s/table':>10} {'centrals':>8} {'recorded/sent':>15} {'lost':>5} {'doubled':>7} {'dead':>4} "
          f"{'p50 ms':>7} {'p99 ms':>7} {'max ms':>7}", flush=True)
    try:
        for rate in [float(x) for x in args.rates.split(",")]:
            for n in [int(x) for x in args.centrals.split(",")]:
                r = run_once(args, redis_srv, pg, work, rate, n)
                print(f"{r['rate']:>10g} {r['centrals']:>8} {r['recorded']:>7}/{r['sent']:<7} {r['lost']:>5} "
                      f"{r['doubled']:>7} {r['dead']:>4} {r['p50']:>7.0f} {r['p99']:>7.0f} {r['max']:>7.0f}"
                      + ("" if r["centrals_alive"] else "  (a central exited)"), flush=True)
    finally:
        redis_srv.stop()
        pg.stop()


if __name__ == "__main__":
    main()
