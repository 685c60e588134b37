"""Live updates pushed to the browser as server-sent events.

Each message carries the page's whole new state (small: one table), so a
client never has to merge, and a reconnecting client catches up from the
first message it gets. Messages are sent as soon as a decision exists: the
fan-out (:mod:`web_dashboard.fanout`) renders each page's state once per
change and every viewer sends the same bytes.

The views here check access and say which channel to read. Under the
production server (:mod:`web_dashboard.serving`) they return at once and the
async layer streams the channel without holding a thread; under the
development server or the test client a thread streams it.
"""

from __future__ import annotations

import time
from collections import deque

from flask import Blueprint, Flask, Response, current_app, request

from web_dashboard.auth import login_required, table_access
from web_dashboard.fanout import Key, fanout
from web_dashboard.views import require_table

bp = Blueprint("stream", __name__)

# set in the WSGI environ by the async server: it streams the channel itself
ASYNC_STREAMS = "guandan.async_streams"
STREAM_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


def init_app(app: Flask) -> None:
    """Add the live-update streams."""
    app.register_blueprint(bp)


def _stream(key: Key, delay: float = 0.0) -> Response:
    """Send channel ``key``'s message whenever it changes; with ``delay``,
    each message is held back that many seconds (public broadcast delay)."""
    handoff = request.environ.get(ASYNC_STREAMS)
    if handoff is not None:
        # the async server streams it; the view has done its job (access)
        handoff(key, delay)
        return Response(b"", mimetype="text/event-stream", headers=STREAM_HEADERS)
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    keepalive = float(app.config["SSE_KEEPALIVE"])
    fan = fanout(app)

    def generate():
        ch = fan.subscribe(key)
        try:
            seen = 0
            pending: deque[tuple[float, bytes]] = deque()
            yield b"retry: 1000\n\n"
            while True:
                now = time.monotonic()
                while pending and pending[0][0] + delay <= now:
                    yield pending.popleft()[1]
                timeout = keepalive if not pending else max(0.0, pending[0][0] + delay - now)
                seq, message = fan.wait(ch, seen, timeout)
                if seq != seen:
                    seen = seq
                    if delay:
                        pending.append((time.monotonic(), message))
                    else:
                        yield message
                elif not pending:
                    yield b": keepalive\n\n"
        finally:
            fan.unsubscribe(ch)

    return Response(generate(), mimetype="text/event-stream", headers=STREAM_HEADERS)


@bp.route("/tables/<table>/stream")
@table_access
def table_stream(table):
    return _stream(("table", table))


@bp.route("/overview/stream")
@login_required
def overview_stream():
    return _stream(("overview",))


@bp.route("/overlay/<table>/stream")
def overlay_stream(table):
    from web_dashboard.overlay import stream_delay

    require_table(table)
    # OVERLAY_DELAY at least, whatever the page asks for
    return _stream(("public", table), stream_delay())
