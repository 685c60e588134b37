"""Decision-to-browser latency of the live dashboard with many tables streaming.

    python benchmarks/bench_dashboard.py [--tables 50] [--seconds 20] [--rate 1.0]

Starts the dashboard (threaded WSGI server on loopback), opens one
server-sent-events connection per table as the head referee would (one
browser tab per table), and feeds every table simulated match events at
``--rate`` events per second per table. For each event it measures the time
from handing the event to the referee to the moment the new state is read
off the socket by the client. Prints the count, median and p99.
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from werkzeug.serving import make_server  # noqa: E402

from referee.settings import Settings  # noqa: E402
from referee.simulation import simulate_match  # noqa: E402
from web_dashboard import create_app  # noqa: E402
from web_dashboard.auth import user_entry  # noqa: E402


def login(port: int) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port)
    conn.request("GET", "/login")
    r = conn.getresponse()
    html = r.read().decode()
    cookie = r.getheader("Set-Cookie").split(";")[0]
    token = re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)
    body = f"username=head&password=bench&csrf_token={token}"
    conn.request("POST", "/login", body, {"Content-Type": "application/x-www-form-urlencoded",
                                          "Cookie": cookie})
    r = conn.getresponse()
    r.read()
    return r.getheader("Set-Cookie").split(";")[0]


def reader(port: int, cookie: str, table: str, sent: dict, latencies: list, stop: threading.Event):
    conn = http.client.HTTPConnection("127.0.0.1", port)
    conn.request("GET", f"/tables/{table}/stream", headers={"Cookie": cookie})
    r = conn.getresponse()
    while not stop.is_set():
        chunk = r.fp.readline()
        if not chunk:
            break
        if chunk.startswith(b"data: "):
            now = time.perf_counter()
            version = json.loads(chunk[6:])["version"]
            t0 = sent.get((table, version))
            if t0 is not None:
                latencies.append(now - t0)
    conn.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--rate", type=float, default=1.0, help="events per second per table")
    args = ap.parse_args()
    names = [f"T{i:02d}" for i in range(1, args.tables + 1)]
    tmp = tempfile.mkdtemp()
    app = create_app({"DATABASE": f"{tmp}/venue.sqlite", "TABLES": names,
                      "USERS": [user_entry("head", "bench", "head", [])], "SSE_KEEPALIVE": 5})
    live = app.extensions["guandan_venue"]
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    port = srv.server_port
    cookie = login(port)
    feeds = {t: [dict(e, table=t) for e in simulate_match(seed=i, settings=Settings.parse_format("deals:3"))]
             for i, t in enumerate(names)}
    sent: dict = {}
    latencies: list[float] = []
    stop = threading.Event()
    readers = [threading.Thread(target=reader, args=(port, cookie, t, sent, latencies, stop), daemon=True)
               for t in names]
    for th in readers:
        th.start()
    time.sleep(1.0)   # let every stream connect before feeding
    interval = 1.0 / (args.rate * len(names))
    start = time.perf_counter()
    i = 0
    fed = 0
    while time.perf_counter() - start < args.seconds:
        table = names[i % len(names)]
        events = feeds[table]
        k = i // len(names)
        if k < len(events):
            sent[(table, live.version(table) + 1)] = time.perf_counter()
            live.submit(events[k])
            fed += 1
        i += 1
        next_at = start + i * interval
        delay = next_at - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
    time.sleep(1.0)   # let the last messages arrive
    stop.set()
    srv.shutdown()
    if not latencies:
        print("no messages received")
        return
    lat = sorted(latencies)
    p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
    print(f"{args.tables} tables, {fed} events fed in {args.seconds:.0f} s "
          f"({fed / args.seconds:.0f}/s), {len(lat)} states received")
    print(f"decision-to-client latency: median {statistics.median(lat) * 1000:.1f} ms, "
          f"p99 {p99 * 1000:.1f} ms, max {lat[-1] * 1000:.1f} ms (aim: within 200 ms)")


if __name__ == "__main__":
    main()
