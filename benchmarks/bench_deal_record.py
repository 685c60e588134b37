"""The deal viewer and the deal record on a long match: how long a deal page's
data takes, and a record file's export and checked import.

    python benchmarks/bench_deal_record.py [--deals 12] [--repeat 5]

Simulates a match of ``--deals`` deals with a tick every second (as a table
node logs it), folds it, then prints: events; ``deals_of`` (what every deal
page computes, per request), median ms; ``record_of`` + JSON (export), ms;
the record's size; ``parse_record`` (an import's whole check: JSON, schema,
every event, the replay that must give the same deals), median s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.deal_record import deals_of, record_of  # noqa: E402
from referee.settings import Settings  # noqa: E402
from referee.simulation import simulate_match  # noqa: E402
from referee.table import Table  # noqa: E402
from services.deal_files import parse_record  # noqa: E402


def _timed(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=12)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    settings = Settings.parse_format(f"deals:{args.deals}")
    events, last = [], 0.0
    for e in simulate_match(seed=1, settings=settings):
        while last + 1 < e["t"]:
            last += 1
            events.append({"t": last, "type": "tick"})
        events.append(e)
        last = e["t"]
    table = Table("T01", settings)
    for e in events:
        table.feed_dict(e)
    page = _timed(lambda: deals_of(table.log, table.decisions), args.repeat)
    export = _timed(lambda: json.dumps(record_of(table), ensure_ascii=False), args.repeat)
    text = json.dumps(record_of(table), ensure_ascii=False)
    check = _timed(lambda: parse_record(text), max(1, args.repeat // 2))
    print(f"match: {args.deals} deals, {len(table.log)} events, {len(table.decisions)} decisions")
    print(f"deals_of (a deal page's data): {page * 1000:.1f} ms")
    print(f"export (record_of + JSON): {export * 1000:.1f} ms, {len(text.encode()) / 1024:.0f} KiB")
    print(f"import check (parse_record): {check:.2f} s")


if __name__ == "__main__":
    main()
