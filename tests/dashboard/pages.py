"""The browser tests' shared steps: the dashboard on a real server, and logging in."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from werkzeug.serving import make_server


@contextmanager
def serving(app) -> Iterator[str]:
    """``app`` on a free loopback port in a thread of its own; yields its base URL."""
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}"
    finally:
        srv.shutdown()


def log_in(page, base: str, name: str, password: str, query: str = "") -> None:
    """Fill in and send the login form (``query``: e.g. ``?next=...``); the
    caller waits for where it should land."""
    page.goto(base + "/login" + query)
    page.fill("#username", name)
    page.fill("#password", password)
    page.click("#login-submit")
