"""Live dashboard under a crowd: referee latency, overlay latency, server cost.

    python benchmarks/bench_dashboard.py [--tables 50] [--viewers 1000] [--seconds 20]
                                         [--rate 1.0] [--actions 10] [--server uvicorn|dev]

Starts the dashboard in a subprocess on 127.0.0.1 (``uvicorn``, the
production server, or ``dev``, Werkzeug's threaded development server),
opens one referee stream per table (logged in as the head referee) and
``--viewers`` anonymous overlay streams spread over the tables, then for
``--seconds``:

- the server feeds every table simulated match events at ``--rate`` events
  per second per table (the decisions the overlay shows);
- the referee posts ``--actions`` actions per second in all (round robin over
  the tables, each a score-sheet signature through ``/tables/T/action``).

It prints, in one run: referee action (POST sent) -> that referee's stream
showing it, p50/p99; decision (event judged) -> each overlay viewer showing
it, p50/p99; the server's memory (RSS, peak) and threads with every stream
open. Everything talks to 127.0.0.1 only, the run is bounded by
``--seconds`` (plus connection set-up, at most ``--connect-timeout``) and the
server is stopped at the end. Clocks: both processes read
``time.perf_counter`` (CLOCK_MONOTONIC, one clock for the machine).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import http.client
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VERSION = re.compile(rb'"version": (\d+)')


def _raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# ---------------------------------------------------------------- server side
def serve(args) -> None:
    """The subprocess: the dashboard plus the event feeder; a log of every
    submission (table, version, time, by referee) on stdout at the end."""
    _raise_fd_limit()
    import logging
    logging.getLogger("werkzeug").setLevel(logging.WARNING)   # no line per request
    from referee.settings import Settings
    from referee.simulation import simulate_match
    from web_dashboard import create_app
    from web_dashboard.auth import user_entry
    from web_dashboard.serving import make_server

    names = [f"T{i:02d}" for i in range(1, args.tables + 1)]
    tmp = tempfile.mkdtemp(prefix="bench-dash-")
    app = create_app({"DATABASE": f"{tmp}/venue.sqlite", "TABLES": names,
                      "USERS": [user_entry("head", "bench", "head", [])], "SSE_KEEPALIVE": 5})
    live = app.extensions["guandan_venue"]
    log: list[tuple[str, int, float, bool, float]] = []
    submit = live.submit

    def logged_submit(event):
        t0 = time.perf_counter()
        # the version this event made, read under the venue's (re-entrant) lock
        with live._cond:
            decisions = submit(event)
            table = event["table"] if isinstance(event, dict) else event.table
            version = live.version(table)
        kind = event["type"] if isinstance(event, dict) else event.type
        t1 = time.perf_counter()
        # with how long storing (a synced SQLite commit) and judging took
        log.append((table, version, t1, kind == "referee", t1 - t0))
        return decisions

    live.submit = logged_submit
    srv = make_server(app, "127.0.0.1", 0, dev=args.server == "dev")
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    feeds = {t: [dict(e, table=t) for e in simulate_match(seed=i, settings=Settings.parse_format("deals:3"))]
             for i, t in enumerate(names)}
    print(f"PORT {srv.server_port}", flush=True)
    sys.stdin.readline()   # "go": every stream is open
    interval = 1.0 / (args.rate * len(names))
    start = time.perf_counter()
    i = 0
    while time.perf_counter() - start < args.seconds:
        table = names[i % len(names)]
        k = i // len(names)
        if k < len(feeds[table]):
            live.submit(feeds[table][k])
        i += 1
        delay = start + i * interval - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
    print("LOG " + json.dumps(log), flush=True)
    sys.stdin.readline()   # "stop"
    srv.shutdown()


# ---------------------------------------------------------------- client side
def login(port: int) -> tuple[str, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
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
    cookie = r.getheader("Set-Cookie").split(";")[0]
    conn.request("GET", "/tables/T01", headers={"Cookie": cookie})
    r = conn.getresponse()
    token = re.search(r'name="csrf-token" content="([^"]+)"', r.read().decode()).group(1)
    conn.close()
    return cookie, token


async def viewer(port: int, path: str, cookie: str | None, seen: list, opened: asyncio.Event,
                 count: list, want: int, stop: asyncio.Event) -> None:
    """One browser's stream: (arrival time, version) of every state it gets."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = f"GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
    if cookie:
        head += f"Cookie: {cookie}\r\n"
    writer.write((head + "\r\n").encode())
    try:
        first = True
        while not stop.is_set():
            line = await reader.readline()
            if not line:
                break
            if first and line.startswith(b"retry"):
                first = False
                count[0] += 1
                if count[0] == want:
                    opened.set()
            if line.startswith(b"data: "):
                now = time.perf_counter()
                m = VERSION.search(line)
                if m:
                    seen.append((now, int(m.group(1))))
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


def referee_actions(port: int, cookie: str, token: str, names: list[str], per_second: float,
                    seconds: float, sent: dict, answered: list) -> None:
    """Post signatures round robin over the tables; the send time of each."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    start = time.perf_counter()
    i = 0
    while time.perf_counter() - start < seconds:
        table = names[i % len(names)]
        body = "action=sign&side=NS&name=bench"
        t0 = time.perf_counter()
        conn.request("POST", f"/tables/{table}/action", body,
                     {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie,
                      "X-CSRFToken": token, "Accept": "application/json"})
        r = conn.getresponse()
        r.read()
        if r.status == 200:
            sent.setdefault(table, []).append(t0)
            answered.append(time.perf_counter() - t0)
        i += 1
        delay = start + i / per_second - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
    conn.close()


def latencies(submitted: dict[str, list[tuple[int, float]]], streams: list[tuple[str, list]]) -> list[float]:
    """For each stream and each version submitted on its table: the time from
    submission to the first state at or past that version."""
    out = []
    for table, seen in streams:
        versions = [v for _, v in seen]
        for version, t0 in submitted.get(table, ()):
            j = bisect.bisect_left(versions, version)
            if j < len(seen):
                out.append(seen[j][0] - t0)
    return out


def memory(pid: int) -> tuple[float, float, int]:
    """RSS and peak RSS (MiB) and threads of a process."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            fields[k] = v.strip()
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024,
            int(fields["Threads"]))


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (seconds)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] * 1000


async def run(args) -> None:
    names = [f"T{i:02d}" for i in range(1, args.tables + 1)]
    cmd = [sys.executable, __file__, "--serve", "--server", args.server, "--tables", str(args.tables),
           "--seconds", str(args.seconds), "--rate", str(args.rate)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stdout.readline()
        if not line.startswith("PORT "):
            raise SystemExit(f"server did not start: {line!r}")
        port = int(line.split()[1])
        idle = memory(proc.pid)
        cookie, token = login(port)
        stop = asyncio.Event()
        opened = asyncio.Event()
        count = [0]
        want = args.tables + args.viewers
        referee_streams = [(t, []) for t in names]
        overlay_streams = [(names[i % len(names)], []) for i in range(args.viewers)]
        t_connect = time.perf_counter()
        tasks = [asyncio.create_task(viewer(port, f"/tables/{t}/stream", cookie, seen, opened, count, want, stop))
                 for t, seen in referee_streams]
        for t, seen in overlay_streams:
            tasks.append(asyncio.create_task(viewer(port, f"/overlay/{t}/stream", None, seen, opened,
                                                    count, want, stop)))
        try:
            await asyncio.wait_for(opened.wait(), args.connect_timeout)
        except asyncio.TimeoutError:
            raise SystemExit(f"only {count[0]} of {want} streams opened in {args.connect_timeout:.0f} s")
        connect_s = time.perf_counter() - t_connect
        crowd = memory(proc.pid)
        sent: dict[str, list[float]] = {}
        answered: list[float] = []
        cpu0 = cpu_seconds(proc.pid)
        client0 = time.process_time()
        proc.stdin.write("go\n")
        proc.stdin.flush()
        acting = asyncio.get_running_loop().run_in_executor(
            None, referee_actions, port, cookie, token, names, args.actions, args.seconds, sent, answered)
        peak_threads = crowd[2]
        log_line = asyncio.get_running_loop().run_in_executor(None, proc.stdout.readline)
        while not log_line.done():
            await asyncio.sleep(0.5)
            peak_threads = max(peak_threads, memory(proc.pid)[2])
        await acting
        await asyncio.sleep(1.0)   # the last states in flight
        end = memory(proc.pid)
        cpu = cpu_seconds(proc.pid) - cpu0
        client_cpu = time.process_time() - client0
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        log = json.loads(log_line.result()[4:])
    finally:
        try:
            proc.stdin.write("stop\n")
            proc.stdin.flush()
            proc.wait(timeout=15)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()

    fed: dict[str, list[tuple[int, float]]] = {}
    acted: dict[str, list[tuple[int, float]]] = {}
    for table, version, t, by_referee, _ in log:
        (acted if by_referee else fed).setdefault(table, []).append((version, t))
    # a referee action's clock starts when its POST was sent (k-th action on a table, k-th POST)
    posted = {table: [(v, t0) for (v, _), t0 in zip(acted.get(table, []), sent.get(table, []))]
              for table in acted}
    ref = latencies(posted, referee_streams)
    ovl = latencies(fed, overlay_streams)
    load = os.getloadavg()
    print(f"server: {args.server}; {args.tables} tables, {args.viewers} overlay viewers + "
          f"{args.tables} referee streams (opened in {connect_s:.1f} s), {args.seconds:.0f} s, "
          f"load average {load[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"events fed: {sum(len(v) for v in fed.values())}, referee actions: "
          f"{sum(len(v) for v in posted.values())}")
    if ref:
        print(f"referee action -> referee's browser: p50 {pct(ref, 0.5):.1f} ms, p99 {pct(ref, 0.99):.1f} ms, "
              f"max {max(ref) * 1000:.1f} ms ({len(ref)} samples; aim p99 < 100 ms)")
    if answered:
        print(f"  the action's own request (POST -> its answer): p50 {pct(answered, 0.5):.1f} ms, "
              f"p99 {pct(answered, 0.99):.1f} ms")
    if ovl:
        print(f"decision -> overlay: p50 {pct(ovl, 0.5):.1f} ms, p99 {pct(ovl, 0.99):.1f} ms, "
              f"max {max(ovl) * 1000:.1f} ms ({len(ovl)} samples; aim p99 < 250 ms)")
    stored = [entry[4] for entry in log]
    print(f"store + judge (LiveVenue.submit, in the server): p50 {pct(stored, 0.5):.1f} ms, "
          f"p99 {pct(stored, 0.99):.1f} ms, max {max(stored) * 1000:.1f} ms")
    print(f"server memory: idle {idle[0]:.0f} MiB, with every stream open {crowd[0]:.0f} MiB, "
          f"end {end[0]:.0f} MiB, peak {end[1]:.0f} MiB")
    print(f"server CPU while fed: {cpu:.1f} s in {args.seconds + 1:.0f} s "
          f"({100 * cpu / (args.seconds + 1):.0f}% of one core); the measuring client's: "
          f"{client_cpu:.1f} s (it shares the machine)")
    print(f"server threads: idle {idle[2]}, with every stream open {crowd[2]}, peak {peak_threads}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--viewers", type=int, default=1000, help="overlay streams in all")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--rate", type=float, default=1.0, help="events per second per table")
    ap.add_argument("--actions", type=float, default=10.0, help="referee actions per second in all")
    ap.add_argument("--server", choices=("uvicorn", "dev"), default="uvicorn")
    ap.add_argument("--connect-timeout", type=float, default=120.0)
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args)
        return
    _raise_fd_limit()
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
