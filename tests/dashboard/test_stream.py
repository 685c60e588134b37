"""Server-sent events: each message is the whole state; reconnecting catches up."""

import json

from tests.dashboard.conftest import login


def _messages(response):
    """Parse SSE 'state' messages from a streamed test-client response, lazily."""
    buf = ""
    for chunk in response.response:
        buf += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buf:
            block, buf = buf.split("\n\n", 1)
            lines = dict(line.split(": ", 1) for line in block.splitlines()
                         if ": " in line and not line.startswith(":"))
            if lines.get("event") == "state":
                yield json.loads(lines["data"])


def test_stream_sends_each_change_and_reconnect_catches_up(app, live, match_events):
    c = app.test_client()
    login(c, "li", "pw-li")
    for e in match_events[:4]:
        live.submit(e)
    r = c.get("/tables/T01/stream", buffered=False)
    assert r.mimetype == "text/event-stream"
    msgs = _messages(r)
    first = next(msgs)
    assert first["version"] == 4 and first["deal"] == 1
    live.submit(match_events[4])
    second = next(msgs)
    assert second["version"] == 5
    assert second["trick"][-1]["seat"] == match_events[4]["seat"]
    r.close()

    # the client was away while three more events came: a new connection has them all
    for e in match_events[5:8]:
        live.submit(e)
    r = c.get("/tables/T01/stream", buffered=False)
    again = next(_messages(r))
    assert again["version"] == 8
    assert again == dict(json.loads(c.get("/tables/T01/state.json").data), now=again["now"])
    r.close()


def test_overview_stream_covers_all_tables(app, live, match_events):
    c = app.test_client()
    login(c, "head", "pw-head")
    r = c.get("/overview/stream", buffered=False)
    msgs = _messages(r)
    rows = next(msgs)
    assert [row["table"] for row in rows] == ["T01", "T02"]
    live.submit(dict(match_events[0], table="T02"))
    rows = next(msgs)
    assert rows[1]["deal"] == 1 and rows[0]["deal"] is None
    r.close()
