"""Events per second replayed through the table referee (one core, one process).

Simulated whole matches (referee.simulation) are replayed into fresh Tables;
the figure counts every event from the JSON line to the decisions, and also
the fold alone (events already decoded). Every timing starts with the judge's
memo empty.

    python benchmarks/bench_replay.py [--matches 20]
"""

from __future__ import annotations

import argparse
import json
import time

from referee.events import Event
from referee.settings import Settings
from referee.simulation import simulate_match
from referee.table import Table, _judge


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3, help="best of N timings")
    args = ap.parse_args()
    settings = Settings()
    logs = [[json.dumps(e) for e in simulate_match(seed=i, settings=settings, table=f"T{i:02d}")]
            for i in range(args.matches)]
    n = sum(len(l) for l in logs)
    decoded = [[Event.from_json(line) for line in log] for log in logs]

    def from_json() -> int:
        count = 0
        for log in logs:
            table = Table(log and json.loads(log[0])["table"], settings)
            for line in log:
                count += len(table.feed(Event.from_json(line)))
        return count

    def fold_only() -> int:
        count = 0
        for log in decoded:
            table = Table(log[0].table, settings)
            for e in log:
                count += len(table.feed(e))
        return count

    for name, fn in (("JSON line -> decisions", from_json), ("decoded event -> decisions", fold_only)):
        wall = cpu = float("inf")
        for _ in range(args.repeat):
            _judge.cache_clear()      # every timing starts cold: no play judged before
            w0, c0 = time.perf_counter(), time.process_time()
            decisions = fn()
            wall = min(wall, time.perf_counter() - w0)
            cpu = min(cpu, time.process_time() - c0)
        # CPU time is what one core spends; wall time also counts waiting for a shared core.
        print(f"{name}: {n} events ({args.matches} whole matches, {decisions} decisions): "
              f"{n / cpu:,.0f} events per CPU-second, {n / wall:,.0f} events/s wall "
              f"(best of {args.repeat})")


if __name__ == "__main__":
    main()
