"""The broadcast overlay's data and routes: what its JSON holds for a scripted
match, its options (400 for a bad one), themes, and the broadcast delay."""

import json
import threading
import time

import pytest

from referee.settings import Settings
from referee.simulation import simulate_match
from tests.dashboard.conftest import make_app
from tests.dashboard.test_serving import Stream
from tests.dashboard.test_stream import _messages
from web_dashboard.overlay import OverlayParamError, overlay_view, parse_options
from web_dashboard.serving import DashboardServer

TEAMS = {"NS": "Nanjing", "EW": "Suzhou"}
PLAYERS = {"N": "Li Lei", "S": "Wang Fang", "E": "Zhao Min", "W": "Qian Jun"}


def scripted(players=True, teams=True, faults=(), countdown=15.0):
    """A one-deal match: its settings event (teams, players, a 15 s countdown
    unlike the dashboard's 10) then the simulator's events."""
    settings = {"match_format": "deals", "deals": 1, "countdown": countdown}
    head = {"t": 0.0, "table": "T01", "type": "settings", "settings": settings}
    if teams:
        head["teams"] = TEAMS
    if players:
        head["players"] = PLAYERS
    return [head] + [dict(e, table="T01") for e in
                     simulate_match(seed=3, settings=Settings.from_dict(settings), faults=faults)]


def last_reports(events):
    """Each seat's last count report since the deal began, read off the events."""
    out = {}
    for e in events:
        if e["type"] == "deal_start":
            out = {}
        elif e["type"] == "report":
            out[e["seat"]] = e["count"]
    return out


@pytest.fixture
def feed(live):
    def submit(events):
        for e in events:
            live.submit(e)
    return submit


def test_state_json_mid_deal(app, live, feed):
    events = scripted()
    feed(events[:61])
    state = app.test_client().get("/overlay/T01/state.json").get_json()
    snap = live.snapshot("T01")
    assert state["teams"] == TEAMS and state["players"] == PLAYERS
    assert state["levels"] == snap["levels"] and state["deal"] == 1 and state["phase"] == "play"
    assert state["turn"] == snap["deal"]["turn"]
    clock = state["clock"]
    assert clock["seat"] == state["turn"] and clock["limit"] in (20.0, 40.0)
    # the table's own countdown (the log's settings), not the dashboard's
    assert clock["countdown_end"] - clock["deadline"] == pytest.approx(15.0)
    for seat in "SENW":
        plays = [p for p in snap["deal"]["trick"] if p["seat"] == seat]
        want = None if not plays else {"pass": True} if plays[-1].get("pass") else {"cards": plays[-1]["cards"]}
        assert state["seats"][seat]["last"] == want
    reported = last_reports(events[:61])
    assert reported, "the script reports counts by event 61"
    assert {s: v["reported"] for s, v in state["seats"].items() if v["reported"] is not None} == reported
    assert any(v["last"] and "cards" in v["last"] for v in state["seats"].values())
    # nothing the referee alone sees
    assert not {"feed", "ladder", "open", "offline"} & set(state)


def test_players_are_optional_and_teams_fall_back_to_the_matches(app, feed):
    feed(scripted(players=False, teams=False)[:20])
    c = app.test_client()
    state = c.get("/overlay/T01/state.json").get_json()
    assert state["players"] == {}
    assert state["teams"] == {"NS": "Red", "EW": "Blue"}     # MATCHES in the test config
    assert c.get("/overlay/T01").status_code == 200


def test_a_corrected_or_voided_report_counts_as_the_referee_left_it(app, live, feed):
    events = scripted()
    feed(events[:61])
    reports = [e for e in live.events("T01") if e["type"] == "report"]
    last = reports[-1]
    t = live.last_time("T01")
    live.submit({"t": t, "table": "T01", "type": "referee", "action": "correct", "ref": last["id"],
                 "event": {"count": last["count"] - 1}, "source": "manual"})
    seats = app.test_client().get("/overlay/T01/state.json").get_json()["seats"]
    assert seats[last["seat"]]["reported"] == last["count"] - 1
    live.submit({"t": t, "table": "T01", "type": "referee", "action": "void", "ref": last["id"],
                 "source": "manual"})
    earlier = [e for e in reports[:-1] if e["seat"] == last["seat"]]
    seats = app.test_client().get("/overlay/T01/state.json").get_json()["seats"]
    assert seats[last["seat"]]["reported"] == (earlier[-1]["count"] if earlier else None)


def test_no_turn_after_the_match_ended(app, live, feed):
    feed(scripted())
    state = app.test_client().get("/overlay/T01/state.json").get_json()
    sheet = live.snapshot("T01")["score_sheet"]["result"]
    assert sheet and state["phase"] == "match_over"
    assert state["turn"] is None and state["clock"] is None
    assert state["result"]["winner"] == sheet["winner"]
    assert state["result"]["team"] == TEAMS[sheet["winner"]]
    assert state["result"]["levels"] == sheet["levels"]


def test_a_confirmed_ruling_is_shown_for_a_while_of_table_time(app, live, feed):
    events = scripted(faults=("overtime",))
    n = next(i for i in range(len(events)) if any(
        d["type"] == "violation" for d in live.submit(events[i]))) + 1
    c = app.test_client()
    assert c.get("/overlay/T01/state.json").get_json()["ruling"] is None     # open: not yet a ruling
    violation = [d for d in live.decisions("T01") if d["type"] == "violation"][-1]
    t = live.last_time("T01")
    live.submit({"t": t + 1, "table": "T01", "type": "referee", "action": "confirm",
                 "ref": violation["events"][-1], "source": "manual"})
    ruling = c.get("/overlay/T01/state.json").get_json()["ruling"]
    assert ruling["n"] == violation["n"] and ruling["seat"] == violation["seat"]
    assert ruling["penalty"] == violation["penalty"] and ruling["code"] == "overtime"
    assert ruling["term"] == "出牌/贡还牌超时" and ruling["clause"] == "七(一)5"
    assert ruling["team"] == TEAMS[violation["side"]]
    assert ruling["until"] == pytest.approx(t + 1 + 20.0)    # OVERLAY_RULING_SECONDS
    # the match goes on; once table time passes its end the banner is gone
    for e in events[n:]:
        if e["t"] >= ruling["until"]:
            break
        live.submit(e)
        assert c.get("/overlay/T01/state.json").get_json()["ruling"] == ruling
    live.submit({"t": ruling["until"], "table": "T01", "type": "tick"})
    assert c.get("/overlay/T01/state.json").get_json()["ruling"] is None


def test_a_voided_ruling_is_not_shown():
    decisions = [{"type": "violation", "n": 5, "t": 10.0, "seat": "S", "side": "NS", "code": "overtime",
                  "penalty": "warning", "events": [3]}]
    events = [{"id": 3, "t": 9.0, "type": "tick"},
              {"id": 4, "t": 11.0, "type": "referee", "action": "confirm", "ref": 3},
              {"id": 5, "t": 12.0, "type": "referee", "action": "void", "ref": 3, "what": "penalty"}]
    snap = {"deal": None, "levels": {}, "score_sheet": {}}
    assert overlay_view("T", snap, decisions, events[:2], 10, now=12.0)["ruling"]["t"] == 11.0
    assert overlay_view("T", snap, decisions, events, 10, now=12.0)["ruling"] is None


def test_stream_sends_the_overlay_state(app, feed):
    feed(scripted()[:30])
    c = app.test_client()
    r = c.get("/overlay/T01/stream", buffered=False)
    first = next(_messages(r))
    r.close()
    assert first == dict(c.get("/overlay/T01/state.json").get_json(), now=first["now"])
    assert first["version"] == 30 and first["teams"] == TEAMS


@pytest.mark.parametrize("query, message", [
    ("layout=left", "'layout' must be one of bottom, top, corners"),
    ("layout=top&layout=bottom", "'layout' is given 2 times"),
    ("show=teams,score", "unknown 'score'"),
    ("show=", "(got none)"),
    ("scale=0.1", "'scale' must be a number from 0.5 to 2"),
    ("scale=nan", "'scale' must be a number from 0.5 to 2"),
    ("theme=../../etc/passwd", "'theme' must be a theme's name"),
    ("theme=nosuch", "no theme 'nosuch'"),
    ("lang=fr", "'lang' must be zh or en"),
    ("delay=601", "'delay' must be a number from 0 to 600 seconds"),
    ("delay=-1", "'delay' must be a number from 0 to 600 seconds"),
    ("layuot=top", "unknown parameter 'layuot'"),
])
def test_bad_parameters_get_a_clear_400(app, query, message):
    r = app.test_client().get(f"/overlay/T01?{query}")
    assert r.status_code == 400
    assert message in r.get_data(as_text=True).replace("&#39;", "'")


def test_bad_stream_parameters_get_a_400(app):
    c = app.test_client()
    assert c.get("/overlay/T01/stream?delay=abc").status_code == 400
    assert c.get("/overlay/T01/stream?layout=top").status_code == 400


def test_options_pick_elements_layout_scale_and_language(app):
    opts = parse_options({"show": "clock, teams", "scale": "1.25"}, None)
    assert opts.show == ("teams", "clock") and opts.scale == 1.25 and opts.layout == "bottom"
    with pytest.raises(OverlayParamError):
        parse_options({"theme": "light"}, None)     # no theme directory: no theme
    html = app.test_client().get("/overlay/T01?layout=corners&show=teams,cards&scale=1.5&lang=en")
    page = html.get_data(as_text=True)
    assert 'class="ov layout-corners"' in page and '<html lang="en">' in page
    data = json.loads(page.split('id="overlay-data">')[1].split("</script>")[0])
    assert data["show"] == ["teams", "cards"] and data["scale"] == 1.5
    # what is not picked is not drawn
    assert 'id="ov-level-NS" hidden' in page and 'id="ov-team-NS">' in page
    assert ">South<" in page


def test_themes_come_from_the_configured_directory(tmp_path):
    themes = tmp_path / "themes"
    themes.mkdir()
    (themes / "club.css").write_text(":root { --ov-accent: #0f0; }\n")
    app = make_app(tmp_path, OVERLAY_THEMES=str(themes))
    try:
        c = app.test_client()
        page = c.get("/overlay/T01?theme=club").get_data(as_text=True)
        assert 'href="/overlay/theme/club.css"' in page
        css = c.get("/overlay/theme/club.css")
        assert css.status_code == 200 and css.mimetype == "text/css" and b"--ov-accent" in css.data
        # the directory replaces the shipped themes
        assert c.get("/overlay/T01?theme=light").status_code == 400
        assert c.get("/overlay/theme/light.css").status_code == 404
        assert c.get("/overlay/theme/..%2Fclub.css").status_code == 404
    finally:
        app.extensions["guandan_venue"].close()


def test_shipped_theme(app):
    c = app.test_client()
    assert c.get("/overlay/T01?theme=light").status_code == 200
    assert b"--ov-panel-bg" in c.get("/overlay/theme/light.css").data


@pytest.mark.parametrize("config, message", [
    ({"OVERLAY_DELAY": -1}, "OVERLAY_DELAY must be a number of seconds from 0 to 600"),
    ({"OVERLAY_DELAY": "5"}, "OVERLAY_DELAY must be a number"),
    ({"OVERLAY_RULING_SECONDS": float("nan")}, "OVERLAY_RULING_SECONDS must be"),
    ({"OVERLAY_THEMES": "/no/such/dir"}, "OVERLAY_THEMES must be a directory"),
    ({"OVERLAY_THEMES": 5}, "OVERLAY_THEMES must be a directory"),
])
def test_bad_overlay_settings_stop_the_app(tmp_path, config, message):
    with pytest.raises(ValueError, match=message):
        make_app(tmp_path, **config)


def test_while_delayed_the_state_is_only_on_the_stream(tmp_path):
    app = make_app(tmp_path, OVERLAY_DELAY=30)
    try:
        c = app.test_client()
        r = c.get("/overlay/T01/state.json")
        assert r.status_code == 403 and "delayed 30 s" in r.get_data(as_text=True)
        page = c.get("/overlay/T01?delay=10").get_data(as_text=True)
        # a shorter delay asked for is the venue's: the stream URL asks for nothing less
        assert 'data-delay="30"' in page and '"stream": "/overlay/T01/stream"' in page
        page = c.get("/overlay/T01?delay=45").get_data(as_text=True)
        assert 'data-delay="45"' in page and '"stream": "/overlay/T01/stream?delay=45"' in page
    finally:
        app.extensions["guandan_venue"].close()


def test_unknown_table(app):
    c = app.test_client()
    for path in ["/overlay/T99/state.json", "/overlay/T99?layout=top"]:
        r = c.get(path)
        assert r.status_code == 404 and "T99" in r.get_data(as_text=True)


@pytest.mark.parametrize("configured, asked", [(0.0, 0.4), (0.4, 0.0)])
def test_the_stream_holds_the_latest_events_back(tmp_path, configured, asked):
    """The server holds each message back OVERLAY_DELAY, or the longer delay asked
    for: a state reaches the viewer no sooner than that after its event."""
    events = scripted()
    app = make_app(tmp_path, OVERLAY_DELAY=configured)
    live = app.extensions["guandan_venue"]
    for e in events[:10]:
        live.submit(e)
    srv = DashboardServer(app, "127.0.0.1", 0)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    try:
        t0 = time.monotonic()
        s = Stream(srv.server_port, f"/overlay/T01/stream?delay={asked}")
        assert s.state()["version"] == 10
        assert time.monotonic() - t0 >= 0.4 - 0.01
        t1 = time.monotonic()
        live.submit(events[10])
        state = s.state()
        assert state["version"] == 11 and time.monotonic() - t1 >= 0.4 - 0.01
        s.close()
    finally:
        srv.shutdown()
        th.join(10)
        live.close()


def test_every_overlay_text_is_in_the_catalogue_in_both_languages():
    import re
    from pathlib import Path

    from referee.penalties import PENALTIES
    from web_dashboard.i18n import CATALOGUE

    root = Path(__file__).resolve().parents[2] / "web_dashboard"
    script = (root / "static" / "overlay.js").read_text()
    template = (root / "templates" / "overlay.html").read_text()
    keys = set(re.findall(r'\bT\("([a-z_A-Z]+)"[,)]', script)) | set(re.findall(r"_\('([a-z_A-Z]+)'\)", template))
    # the keys made from data: seats, places, sides, penalties
    keys |= {f"seat_{s}" for s in "SENW"} | {f"ov_place_{n}" for n in range(1, 5)} | {"NS", "EW"}
    keys |= set(PENALTIES)
    assert len(keys) > 20
    missing = sorted(k for k in keys if k not in CATALOGUE or not all(CATALOGUE[k]))
    assert missing == []


@pytest.mark.parametrize("line, message", [
    ("overlay_delay = -5", "OVERLAY_DELAY must be a number of seconds from 0 to 600 (got -5)"),
    ('overlay_themes = "/no/such/dir"', "OVERLAY_THEMES must be a directory"),
])
def test_the_dashboard_command_says_a_bad_overlay_setting_in_one_line(tmp_path, line, message):
    import subprocess
    import sys

    make_app(tmp_path).extensions["guandan_venue"].close()     # an event log to serve
    (tmp_path / "dashboard.toml").write_text(line + "\n")
    r = subprocess.run([sys.executable, "-m", "commands", "dashboard", "--db", str(tmp_path / "venue.sqlite"),
                        "--config", str(tmp_path / "dashboard.toml"), "--port", "0"],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_player_names_from_the_table_state_or_the_settings_event_and_only_names():
    snap = {"deal": None, "levels": {}, "score_sheet": {}}
    settings = {"id": 1, "t": 0.0, "type": "settings", "players": {"N": "Li", "X": "nobody", "E": 7, "W": "  "}}
    assert overlay_view("T", snap, [], [settings], 10, 0.0)["players"] == {"N": "Li"}
    with_state = dict(snap, players={"S": "Wang", "N": "x" * 100})
    assert overlay_view("T", with_state, [], [settings], 10, 0.0)["players"] == {"S": "Wang", "N": "x" * 40}
    assert overlay_view("T", snap, [], [], 10, 0.0)["players"] == {}
