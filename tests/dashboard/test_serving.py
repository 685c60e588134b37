"""The production server (uvicorn) on a loopback port: streams share one
serialisation per change and an idle viewer costs no thread; the
development server only with --dev."""

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.dashboard.conftest import make_app
from web_dashboard.fanout import fanout
from web_dashboard.serving import DashboardServer

ROOT = Path(__file__).resolve().parents[2]


class Stream:
    """A browser's event stream over a raw socket: the states it receives."""

    def __init__(self, port: int, path: str, cookie: str | None = None) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        head = f"GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n"
        if cookie:
            head += f"Cookie: {cookie}\r\n"
        self.sock.sendall((head + "\r\n").encode())
        self.file = self.sock.makefile("rb")
        status = self.file.readline()
        assert b" 200 " in status, status
        self.headers = {}
        while (line := self.file.readline()) not in (b"\r\n", b""):
            k, _, v = line.decode().partition(":")
            self.headers[k.strip().lower()] = v.strip()

    def state(self) -> dict:
        """The next state message (blocks; the socket's timeout is the deadline)."""
        while True:
            line = self.file.readline()
            assert line, "stream closed"
            if line.startswith(b"data: "):
                return json.loads(line[6:])

    def state_at(self, version: int) -> dict:
        while (s := self.state())["version"] < version:
            pass
        return s

    def close(self) -> None:
        self.file.close()
        self.sock.close()


@pytest.fixture
def served(tmp_path):
    app = make_app(tmp_path)
    srv = DashboardServer(app, "127.0.0.1", 0)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    yield app, srv
    srv.shutdown()
    th.join(10)
    assert not th.is_alive()
    app.extensions["guandan_venue"].close()


def _login(port: int, name: str, password: str) -> str:
    import http.client
    import re
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/login")
    r = conn.getresponse()
    token = re.search(r'name="csrf-token" content="([^"]+)"', r.read().decode()).group(1)
    cookie = r.getheader("Set-Cookie").split(";")[0]
    conn.request("POST", "/login", f"username={name}&password={password}&csrf_token={token}",
                 {"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie})
    r = conn.getresponse()
    r.read()
    assert r.status == 302
    conn.close()
    return r.getheader("Set-Cookie").split(";")[0]


def test_many_viewers_share_one_serialisation_per_change(served, match_events):
    app, srv = served
    live = app.extensions["guandan_venue"]
    fan = fanout(app)
    cookie = _login(srv.server_port, "li", "pw-li")
    overlays = [Stream(srv.server_port, "/overlay/T01/stream") for _ in range(30)]
    referees = [Stream(srv.server_port, "/tables/T01/stream", cookie) for _ in range(3)]
    try:
        for s in overlays + referees:
            assert s.state()["version"] == 0
        assert referees[0].headers["content-type"].startswith("text/event-stream")
        assert "content-length" not in referees[0].headers
        before = fan.renders
        for n, e in enumerate(match_events[:5], 1):
            live.submit(e)
            # every viewer sees each change ...
            states = [s.state_at(n) for s in overlays + referees]
            assert {s["version"] for s in states} == {n}
        # ... made once per page per change: the public state and the referee's
        assert fan.renders - before == 2 * 5
        # the public state hides what the referee's shows
        assert states[0] != states[-1]
    finally:
        for s in overlays + referees:
            s.close()


def test_an_idle_viewer_costs_no_thread(served, match_events):
    app, srv = served
    live = app.extensions["guandan_venue"]
    warm = [Stream(srv.server_port, "/overlay/T01/stream") for _ in range(20)]
    for s in warm:
        s.state()
    before = threading.active_count()
    crowd = [Stream(srv.server_port, f"/overlay/T0{1 + i % 2}/stream") for i in range(200)]
    try:
        for s in crowd:
            s.state()
        during = threading.active_count()
        # at most the bounded request pools can have grown (16 + 4 threads), not 200
        assert during - before <= 20, (before, during)
        live.submit(match_events[0])
        for s in crowd[::2]:
            assert s.state_at(1)["version"] == 1
    finally:
        for s in warm + crowd:
            s.close()
    # the viewers left: no stream is counted any more
    deadline = time.monotonic() + 10
    while fanout(app).subscribers() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert fanout(app).subscribers() == 0


def _dashboard(tmp_path, *extra, sigint_ignored=False):
    from storage.sqlite_log import EventStore
    EventStore(str(tmp_path / "venue.sqlite")).close()     # the dashboard serves an existing log only
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys, commands; sys.exit(commands.main())", "dashboard",
         "--db", str(tmp_path / "venue.sqlite"), "--port", "0", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None)
    line = proc.stdout.readline()
    assert line.startswith("dashboard on http://127.0.0.1:"), (line, proc.stderr.read())
    url = line.split()[2]
    return proc, url, line


@pytest.mark.parametrize("ignored", [False, True], ids=["", "started-with-SIGINT-ignored"])
@pytest.mark.parametrize("dev", [False, True])
def test_the_development_server_only_with_dev(tmp_path, dev, ignored):
    """Either server answers and stops on Ctrl-C, also when started as a
    script's background job, which inherits SIGINT ignored (the development
    server then never stopped)."""
    proc, url, line = _dashboard(tmp_path, *(["--dev"] if dev else []), sigint_ignored=ignored)
    try:
        with urllib.request.urlopen(url + "login", timeout=30) as r:
            server = r.headers.get("Server") or ""
            assert r.status == 200
        if dev:
            assert "Werkzeug development server" in line and "Werkzeug" in server
        else:
            assert "uvicorn" in line and "Werkzeug" not in server
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            rc = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            # it would not stop: fail with where each thread waits
            proc.send_signal(signal.SIGUSR1)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            proc.kill()
            pytest.fail("the dashboard did not stop on Ctrl-C within 30 s; its threads:\n"
                        + proc.stderr.read()[-6000:])
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.stdout.close()
            proc.stderr.close()
    assert rc in (0, 130)


@pytest.mark.skipif(not hasattr(signal, "SIGUSR1"), reason="POSIX signal")
def test_a_running_dashboard_tells_where_its_threads_wait_on_sigusr1(tmp_path):
    """An operator's way into a dashboard that hangs: `kill -USR1 PID`."""
    proc, url, _ = _dashboard(tmp_path)
    try:
        with urllib.request.urlopen(url + "login", timeout=30) as r:
            assert r.status == 200
        proc.send_signal(signal.SIGUSR1)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) in (0, 130)
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        proc.stderr.close()
    assert "most recent call first" in err and "serve_forever" in err


def test_an_idle_stream_gets_keepalives_and_the_overlay_its_delay(tmp_path, match_events):
    app = make_app(tmp_path, OVERLAY_DELAY=0.3)
    srv = DashboardServer(app, "127.0.0.1", 0)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    try:
        s = Stream(srv.server_port, "/overlay/T01/stream")
        assert s.state()["version"] == 0   # held back OVERLAY_DELAY, then sent
        t0 = time.monotonic()
        app.extensions["guandan_venue"].submit(match_events[0])
        assert s.state()["version"] == 1
        assert time.monotonic() - t0 >= 0.3 - 0.01
        # nothing changes: comment lines keep the connection (and a proxy) awake
        while (line := s.file.readline()) != b": keepalive\n":
            assert line, "stream closed"
        s.close()
    finally:
        srv.shutdown()
        th.join(10)
        app.extensions["guandan_venue"].close()


@pytest.mark.parametrize("proxies", [0, 1])
def test_forwarded_headers_are_trusted_only_with_proxy_fix(tmp_path, proxies):
    from flask import request
    app = make_app(tmp_path, PROXY_FIX=proxies)
    app.add_url_rule("/_scheme", "scheme", lambda: f"{request.scheme} {request.remote_addr}")
    r = app.test_client().get("/_scheme", headers={"X-Forwarded-Proto": "https",
                                                  "X-Forwarded-For": "203.0.113.7"})
    assert r.get_data(as_text=True) == ("https 203.0.113.7" if proxies else "http 127.0.0.1")
    app.extensions["guandan_venue"].close()
