"""Live updates pushed to the browser as server-sent events.

Each message carries the page's whole new state (small: one table), so a
client never has to merge, and a reconnecting client catches up from the
first message it gets. Messages are sent as soon as a decision exists: the
stream waits on the venue's change feed, not on a timer.
"""

from __future__ import annotations

import json
import time
from collections import deque

from flask import Blueprint, Flask, Response, current_app, stream_with_context

from web_dashboard.auth import login_required, table_access
from web_dashboard.views import live, overview_state, require_table, table_state

bp = Blueprint("stream", __name__)


def init_app(app: Flask) -> None:
    """Add the live-update streams."""
    app.register_blueprint(bp)


def _sse(event: str, data, ident: int | None = None) -> str:
    head = f"id: {ident}\n" if ident is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _stream(tables: list[str], render, delay: float = 0.0) -> Response:
    """Send ``render()`` whenever one of ``tables`` changes; with ``delay``,
    each state is held back that many seconds (public broadcast delay)."""
    keepalive = float(current_app.config["SSE_KEEPALIVE"])
    lv = live()

    @stream_with_context
    def generate():
        versions = {t: -1 for t in tables}
        pending: deque[tuple[float, str]] = deque()
        yield "retry: 1000\n\n"
        while True:
            now = time.monotonic()
            while pending and pending[0][0] + delay <= now:
                yield pending.popleft()[1]
            current = {t: lv.version(t) for t in tables}
            if current != versions:
                versions = current
                message = _sse("state", render())
                if delay:
                    pending.append((now, message))
                else:
                    yield message
                continue
            timeout = keepalive if not pending else max(0.0, pending[0][0] + delay - now)
            if not lv.wait(tables, versions, timeout) and not pending:
                yield ": keepalive\n\n"

    return Response(generate(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@bp.route("/tables/<table>/stream")
@table_access
def table_stream(table):
    return _stream([table], lambda: table_state(table))


@bp.route("/overview/stream")
@login_required
def overview_stream():
    return _stream(live().tables, overview_state)


@bp.route("/overlay/<table>/stream")
def overlay_stream(table):
    require_table(table)
    delay = float(current_app.config["OVERLAY_DELAY"])
    return _stream([table], lambda: table_state(table, public=True), delay)
