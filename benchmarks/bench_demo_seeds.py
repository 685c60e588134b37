"""The demo end to end over several scripted matches: does the referee catch
exactly each script's faults from the rendered video and the simulated devices?

    python benchmarks/bench_demo_seeds.py --seeds 3 5 11 [--keep DIR]

For each seed: the headless demo at full speed (video rendered, or taken
from the cache), then its log judged again and compared with the script
judged on its own (what the camera and devices gave against what was
scripted).  Printed per seed: the violations found and scripted, whether
they agree, the confirm requests raised by code beside the script's own, the
events, and the seconds it took.  Generated video: the figures say how the
pipeline reads its own renders, not a real table.  A few minutes a seed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.events import Event  # noqa: E402
from referee.settings import Settings  # noqa: E402
from referee.table import Table  # noqa: E402
from storage.sqlite_log import EventStore  # noqa: E402


def one_seed(seed: int, workdir: Path, cache: Path) -> dict:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "commands", "demo", "--headless", "--speed", "0", "--seed", str(seed),
                        "--dir", str(workdir)], capture_output=True, text=True,
                       env=dict(os.environ, XDG_CACHE_HOME=str(cache)))
    took = time.perf_counter() - t0
    if r.returncode != 0:
        return {"seed": seed, "error": r.stderr.strip().splitlines()[-1:], "seconds": round(took)}
    settings = Settings.parse_format("deals:2")
    with EventStore(str(workdir / "demo.sqlite")) as store:
        events = list(store.stream("T01"))
    decisions = Table("T01", settings).replay(events)
    script = [Event.from_dict(json.loads(line))
              for line in (workdir / "script.jsonl").read_text(encoding="utf-8").splitlines()]
    # the script judged as laid: its penalties at once (the node's camera reads waited for the
    # demo's referee to confirm them: setting camera_penalties)
    judged = Table("T01", Settings.parse_format("deals:2", camera_penalties="direct")).replay(script)
    found = Counter(d.code for d in decisions if d.type == "violation")
    scripted = Counter(d.code for d in judged if d.type == "violation")
    # by code, beside the script's own (a stop choice after an infraction is scripted; a
    # low_confidence one is the camera's doubt)
    return {"seed": seed, "agree": found == scripted, "found": dict(found), "scripted": dict(scripted),
            "confirm_requests": dict(Counter(d.code for d in decisions if d.type == "confirm_request")),
            "confirm_requests_scripted": dict(Counter(d.code for d in judged if d.type == "confirm_request")),
            "events": len(events), "seconds": round(took)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[3, 5, 11])
    ap.add_argument("--keep", type=Path, default=None, help="keep each seed's folder here (default: a temp dir)")
    args = ap.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="demo-seeds-"))
    results = []
    for seed in args.seeds:
        folder = root / f"seed-{seed}"
        folder.mkdir(parents=True, exist_ok=True)
        results.append(one_seed(seed, folder, root / "cache"))
        print(json.dumps(results[-1]), flush=True)
    agreed = sum(bool(r.get("agree")) for r in results)
    print(json.dumps({"seeds": len(results), "agree": agreed, "source": "generated video (the demo's renders)"}))
    return 0 if agreed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
