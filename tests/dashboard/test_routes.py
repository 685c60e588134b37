"""Every route, role and bad request through the Flask test client."""

import csv
import io
import re

import pytest

from tests.dashboard.conftest import csrf_of, login, open_violation


def test_pages_need_login(app):
    c = app.test_client()
    for path in ["/", "/overview.json", "/tables/T01", "/tables/T01/state.json", "/tables/T01/stream",
                 "/overview/stream", "/cameras", "/cameras.json"]:
        r = c.get(path)
        assert r.status_code == 302 and "/login" in r.headers["Location"], path


def test_public_pages_need_no_login(app, live, match_events):
    for e in match_events:
        live.submit(e)
    c = app.test_client()
    for path in ["/overlay/T01", "/sheets/T01", "/sheets/T01.json", "/sheets/T01.csv", "/sheets/T01.pdf",
                 "/standings", "/standings.json", "/login"]:
        assert c.get(path).status_code == 200, path


def test_bad_password(app):
    c = app.test_client()
    r = login(c, "li", "nope")
    assert r.status_code == 401 and "用户名或密码错误" in r.get_data(as_text=True)
    assert c.get("/").status_code == 302


def test_login_rejects_offsite_next(app):
    c = app.test_client()
    token = csrf_of(c)
    r = c.post("/login?next=//evil.example/", data={"username": "li", "password": "pw-li", "csrf_token": token})
    assert r.status_code == 302 and r.headers["Location"] == "/"


def test_referee_sees_only_assigned_tables(app):
    c = app.test_client()
    login(c, "li", "pw-li")
    assert c.get("/tables/T01").status_code == 200
    r = c.get("/tables/T02")
    assert r.status_code == 403 and "li 未被分配到牌桌 T02" in r.get_data(as_text=True)
    c.get("/lang/en")
    assert "li is not assigned to table T02" in c.get("/tables/T02").get_data(as_text=True)
    assert c.get("/tables/T02/state.json").status_code == 403
    assert c.get("/tables/T99").status_code == 404


def test_head_referee_sees_all(app):
    c = app.test_client()
    login(c, "head", "pw-head")
    for t in ("T01", "T02"):
        assert c.get(f"/tables/{t}").status_code == 200
    rows = c.get("/overview.json").get_json()
    assert [r["table"] for r in rows] == ["T01", "T02"]


def test_unknown_table_on_public_pages(app):
    c = app.test_client()
    for path in ["/overlay/T99", "/sheets/T99", "/sheets/T99.pdf", "/sheets/T99.csv", "/overlay/T99/stream"]:
        r = c.get(path)
        assert r.status_code == 404 and "T99" in r.get_data(as_text=True), path


def _act(c, table, **form):
    token = csrf_of(c, f"/tables/{table}") if "csrf_token" not in form else form.pop("csrf_token")
    return c.post(f"/tables/{table}/action", data=dict(form, csrf_token=token),
                  headers={"Accept": "application/json"})


def test_manual_penalty_is_recorded_with_who(app, live, match_events):
    for e in match_events[:10]:
        live.submit(e)
    c = app.test_client()
    login(c, "li", "pw-li")
    r = _act(c, "T01", action="penalty", seat="N", code="signalling", penalty="infraction")
    assert r.status_code == 200
    d, choice = r.get_json()["decisions"]
    assert (d["type"], d["seat"], d["penalty"], d["code"]) == ("violation", "N", "infraction", "signalling")
    last = live.events("T01")[-1]
    assert last["who"] == "li" and last["action"] == "penalty"
    # an infraction lets the offender's 下家 stop the offender's next play: the referee records it
    assert (choice["type"], choice["code"], choice["seat"]) == ("confirm_request", "stop_choice", "W")
    state = c.get("/tables/T01/state.json").get_json()
    assert [f["status"] for f in state["feed"] if f["code"] == "stop_choice"] == ["open"]
    assert _act(c, "T01", action="choice", seat="N", choice="stop_next_play").status_code == 200
    state = c.get("/tables/T01/state.json").get_json()
    assert [f["status"] for f in state["feed"] if f["code"] == "stop_choice"] == ["chosen"]
    assert "N" in state["stopped"]


def test_forged_form_is_refused_and_changes_nothing(app, live):
    c = app.test_client()
    login(c, "li", "pw-li")
    before = len(live.events("T01"))
    r = c.post("/tables/T01/action", data={"action": "penalty", "seat": "N", "code": "manual",
                                           "penalty": "foul", "csrf_token": "forged"})
    assert r.status_code == 400 and "表单已失效" in r.get_data(as_text=True)
    r = c.post("/tables/T01/action", data={"action": "penalty", "seat": "N", "code": "manual",
                                           "penalty": "foul"})
    assert r.status_code == 400
    assert len(live.events("T01")) == before


def test_wrong_role_cannot_act(app, live):
    c = app.test_client()
    login(c, "wang", "pw-wang")
    before = len(live.events("T01"))
    r = _act(c, "T02", action="penalty", seat="N", code="manual", penalty="warning")
    assert r.status_code == 200
    token = csrf_of(c, "/tables/T02")
    r = c.post("/tables/T01/action", data={"action": "penalty", "seat": "N", "code": "manual",
                                           "penalty": "foul", "csrf_token": token})
    assert r.status_code == 403
    assert len(live.events("T01")) == before


def test_anonymous_cannot_act(app, live):
    c = app.test_client()
    token = csrf_of(c)
    r = c.post("/tables/T01/action", data={"action": "penalty", "seat": "N", "penalty": "foul",
                                           "csrf_token": token})
    assert r.status_code == 302
    assert live.events("T01") == []


@pytest.mark.parametrize("form,message", [
    ({"action": "explode"}, "unknown action"),
    ({"action": "penalty", "seat": "X", "code": "manual", "penalty": "warning"}, "'seat'"),
    ({"action": "penalty", "seat": "N", "code": "manual", "penalty": "death"}, "'penalty'"),
    ({"action": "penalty", "seat": "N", "code": "bribery", "penalty": "warning"}, "'code'"),
    ({"action": "penalty", "seat": "N", "code": "late", "minutes": "soon"}, "'minutes'"),
    ({"action": "confirm", "ref": "abc"}, "'ref'"),
    ({"action": "correct", "ref": "3", "kind": "play", "cards": "S3 ZZ"}, "unknown card 'ZZ'"),
    ({"action": "correct", "ref": "3", "kind": "play", "cards": ""}, "needs its cards"),
    ({"action": "void", "ref": "3", "what": "everything"}, "'what'"),
    ({"action": "sign", "side": "XX"}, "'side'"),
    ({"action": "count", "ref": "3", "seat": "S", "count": "-1"}, "'count'"),
    ({"action": "count", "ref": "3", "seat": "S", "count": "28"}, "'count'"),
    ({"action": "count", "ref": "3", "seat": "Q", "count": "3"}, "'seat'"),
])
def test_bad_forms_get_a_clear_400_and_change_nothing(app, live, form, message):
    c = app.test_client()
    login(c, "li", "pw-li")
    before = len(live.events("T01"))
    r = _act(c, "T01", **form)
    out = r.get_json()
    # the English text in ``detail``; the referee reads ``error`` in the page's language (Chinese)
    assert r.status_code == 400 and message in out["detail"]
    assert out["error"] and re.search(r"[\u4e00-\u9fff]", out["error"]), out
    assert len(live.events("T01")) == before


def test_confirm_and_void_a_violation(app, live, match_events):
    for e in match_events[:3]:
        live.submit(e)
    # N plays out of turn
    turn = live.snapshot("T01")["deal"]["turn"]
    wrong = {"S": "N", "E": "S", "N": "E", "W": "S"}[turn]
    live.submit({"t": match_events[2]["t"] + 1, "table": "T01", "type": "play", "seat": wrong,
                 "cards": ["BJ"]})
    c = app.test_client()
    login(c, "li", "pw-li")
    state = c.get("/tables/T01/state.json").get_json()
    (v,) = [f for f in state["feed"] if f["type"] == "violation"]
    assert v["code"] == "out_of_turn_play" and v["status"] == "open"
    # open: the violation and the 下家's choice it gives (an infraction, 七(二))
    assert state["open"] == 2
    assert v["evidence"][0]["cards"] == ["BJ"]
    ref = v["events"][-1]
    assert _act(c, "T01", action="confirm", ref=str(ref)).status_code == 200
    state = c.get("/tables/T01/state.json").get_json()
    assert [f["status"] for f in state["feed"] if f["type"] == "violation"] == ["confirmed"]
    assert state["open"] == 1
    assert _act(c, "T01", action="void", ref=str(ref), what="penalty").status_code == 200
    state = c.get("/tables/T01/state.json").get_json()
    assert state["ladder"][{"N": "NS", "S": "NS", "E": "EW", "W": "EW"}[wrong]]["infraction"] == 0


def camera_count_events(table: str = "T01", missed: bool = False) -> list[dict]:
    """S leads its three bombs as sure camera reads (the others pass after the
    first two): S holds 3 and reports 4, a wrong report held on the camera's count.
    ``missed``: the camera read the last bomb a five short, and S reports its 3 truly."""
    from tests.table.helpers import DUMPS
    events = [{"t": 1.0, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"}]
    for k, cards in enumerate(DUMPS["S"][:3]):
        if k:
            events += [{"type": "pass", "seat": seat} for seat in "ENW"]
        read = cards.split()[:7] if missed and k == 2 else cards.split()
        events.append({"type": "play", "seat": "S", "cards": read, "source": "vision", "confidence": 0.99})
    events.append({"type": "report", "seat": "S", "count": 3 if missed else 4, "source": "device"})
    return [dict(e, table=table, t=1.0 + 2 * i) for i, e in enumerate(events)]


def turn_in_doubt_events(table: str = "T01") -> list[dict]:
    """S leads three bombs as sure camera reads, the others passing each, and
    reports nothing: S holds 3 by the reads (its missing report held on that
    count) and is to lead; E leads instead, before a seat the reads may leave
    holding cards it does not hold."""
    from tests.table.helpers import DUMPS
    events: list[dict] = [{"type": "deal_start", "deal": 1, "level": "2", "leader": "S"}]
    for cards in DUMPS["S"][:3]:
        events.append({"type": "play", "seat": "S", "cards": cards.split(), "source": "vision", "confidence": 0.99})
        events += [{"type": "pass", "seat": seat} for seat in "ENW"]
    events.append({"type": "play", "seat": "E", "cards": ["SK"], "source": "manual"})
    return [dict(e, table=table, t=1.0 + 2 * i) for i, e in enumerate(events)]


def _referee_sees(app, live, events):
    """``events`` submitted to T01; a referee's client and the table's state."""
    for e in events:
        live.submit(e)
    c = app.test_client()
    login(c, "li", "pw-li")
    return c, c.get("/tables/T01/state.json").get_json()


def test_a_count_of_none_is_a_count_the_form_takes(app, live):
    c, state = _referee_sees(app, live, turn_in_doubt_events())
    (held,) = [f for f in state["feed"] if f.get("code") == "camera_count" and f.get("offender")]
    assert held["seat"] == "S" and held["offender"] == "E" and held["counted"] == 3
    assert held["msg"]["key"] == "msg_camera_count_turn" and held["msg"]["values"]["offender"] == "E"
    assert not [f for f in state["feed"] if f["type"] == "violation"]
    assert _act(c, "T01", action="count", ref=str(held["events"][-1]), seat="S", count="0").status_code == 200
    state = c.get("/tables/T01/state.json").get_json()
    assert state["counts"]["S"] == 0
    assert [(f["code"], f["seat"]) for f in state["feed"] if f["type"] == "violation"] == [("out_of_turn_play", "E")]


def test_a_count_that_cannot_settle_the_fault_leaves_its_request_open(app, live):
    # the camera missed a card and S reports its 3 truly; the referee counts after S played again
    events = camera_count_events(missed=True)
    t = events[-1]["t"]
    events += [{"type": "pass", "seat": seat} for seat in "ENW"]
    events.append({"type": "play", "seat": "S", "cards": ["S6"], "source": "vision", "confidence": 0.99})
    for k, e in enumerate(events):
        live.submit(dict(e, table="T01", t=e.get("t", t + k)))
    c = app.test_client()
    login(c, "li", "pw-li")
    (held,) = [f for f in c.get("/tables/T01/state.json").get_json()["feed"] if f.get("code") == "camera_count"]
    assert _act(c, "T01", action="count", ref=str(held["events"][-1]), seat="S", count="2").status_code == 200
    state = c.get("/tables/T01/state.json").get_json()
    (still,) = [f for f in state["feed"] if f.get("code") == "camera_count"]
    assert still["status"] == "open" and not [f for f in state["feed"] if f["type"] == "violation"]
    assert state["counts"]["S"] == 2


def test_the_referee_counts_the_hand_a_report_fault_waits_on(app, live):
    c, state = _referee_sees(app, live, camera_count_events())
    (held,) = [f for f in state["feed"] if f.get("code") == "camera_count"]
    assert held["status"] == "open" and held["counted"] == 3 and held["seat"] == "S"
    assert not [f for f in state["feed"] if f["type"] == "violation"]
    # a count naming no event of the log: refused, nothing entered
    before = len(live.events("T01"))
    r = _act(c, "T01", action="count", ref="999", seat="S", count="3")
    assert r.status_code == 400 and "999" in r.get_json()["detail"] and len(live.events("T01")) == before
    assert _act(c, "T01", action="count", ref=str(held["events"][-1]), seat="S", count="3").status_code == 200
    (entry,) = [e for e in live.events("T01")[before:] if e.get("action") == "count"]
    assert entry["seat"] == "S" and entry["count"] == 3 and entry["who"] == "li"
    state = c.get("/tables/T01/state.json").get_json()
    # the warning is given, open like any violation (to confirm or void), and nothing is held
    assert [(f["code"], f["status"]) for f in state["feed"] if f["type"] == "violation"] == [
        ("wrong_report", "open")]
    assert not [f for f in state["feed"] if f.get("code") == "camera_count"] and state["open"] == 1
    # and the cameras page sets the count beside the one the reads left (the same here)
    cams = c.get("/cameras.json").get_json()
    assert cams["tables"]["T01"]["hands_counted"] == cams["all"]["hands_counted"] == {
        "counts": 1, "off": 0, "off_by": {}}
    assert 'class="hands-off">0/1<' in c.get("/cameras").get_data(as_text=True)


def test_change_penalty(app, live, match_events):
    for e in match_events[:3]:
        live.submit(e)
    turn = live.snapshot("T01")["deal"]["turn"]
    wrong = {"S": "N", "E": "S", "N": "E", "W": "S"}[turn]
    side = "NS" if wrong in "NS" else "EW"
    live.submit({"t": match_events[2]["t"] + 1, "table": "T01", "type": "play", "seat": wrong, "cards": ["BJ"]})
    c = app.test_client()
    login(c, "li", "pw-li")
    v = [f for f in c.get("/tables/T01/state.json").get_json()["feed"] if f["type"] == "violation"][0]
    assert v["penalty"] == "infraction"
    r = _act(c, "T01", action="change_penalty", ref=str(v["events"][-1]), seat=wrong,
             code=v["code"], penalty="warning")
    assert r.status_code == 200
    ladder = c.get("/tables/T01/state.json").get_json()["ladder"][side]
    assert (ladder["warning"], ladder["infraction"]) == (1, 0)


def test_correct_a_misread_play(app, live, match_events):
    for e in match_events[:2]:
        live.submit(e)
    lead = live.events("T01")[-1]
    assert lead["type"] == "play"
    c = app.test_client()
    login(c, "li", "pw-li")
    r = _act(c, "T01", action="correct", ref=str(lead["id"]), kind="pass")
    assert r.status_code == 200
    types = [d["type"] for d in r.get_json()["decisions"]]
    assert types[0] == "correction"
    # the lead cannot be a pass: the corrected record asks the referee
    assert any(d["type"] == "confirm_request" for d in live.decisions("T01"))
    assert [e["type"] for e in live.events("T01")][:2] == ["deal_start", "play"]   # nothing deleted


def test_score_sheet_formats(app, live, match_events):
    for e in match_events:
        live.submit(e)
    c = app.test_client()
    sheet = c.get("/sheets/T01.json").get_json()
    assert len(sheet["rows"]) == 1 and sheet["result"] is not None
    assert sheet["teams"] == {"NS": "Red", "EW": "Blue"}     # MATCHES: the log names none
    rows = list(csv.reader(io.StringIO(c.get("/sheets/T01.csv").get_data(as_text=True))))
    assert rows[0][0] == "deal" and rows[1][0] == "1"
    assert rows[-1][0] == "teams" and rows[-1][5:7] == ["Red", "Blue"]
    pdf = c.get("/sheets/T01.pdf")
    assert pdf.data.startswith(b"%PDF") and pdf.headers["Content-Type"] == "application/pdf"
    html = c.get("/sheets/T01").get_data(as_text=True)
    assert "记分表" in html and sheet["levels"]["NS"] in html


def test_signatures_on_the_sheet(app, live, match_events):
    for e in match_events:
        live.submit(e)
    c = app.test_client()
    login(c, "li", "pw-li")
    assert c.get("/sheets/T01.json").get_json()["signatures"] == {}
    assert _act(c, "T01", action="sign", side="NS", name="Zhao").status_code == 200
    assert c.get("/sheets/T01.json").get_json()["signatures"] == {"NS": "Zhao"}
    assert not any(d["type"] == "confirm_request" for d in live.decisions("T01"))


SETTINGS = {"t": 0.0, "table": "T01", "type": "settings", "settings": {"match_format": "deals", "deals": 1},
            "teams": {"NS": "Nanjing", "EW": "Suzhou"},
            "players": {"N": "Zhang", "S": "Li Na", "E": "Wang", "W": "Liu"},
            "captains": {"NS": "Coach Ma"}}


def test_the_logs_teams_name_the_sheet_and_the_standings(app, live, match_events):
    live.submit(SETTINGS)
    for e in match_events:
        live.submit(e)
    c = app.test_client()
    assert c.get("/sheets/T01.json").get_json()["teams"] == {"NS": "Nanjing", "EW": "Suzhou"}
    html = c.get("/sheets/T01").get_data(as_text=True)
    assert "Nanjing" in html and "Suzhou" in html
    rows = list(csv.reader(io.StringIO(c.get("/sheets/T01.csv").get_data(as_text=True))))
    assert rows[-1][5:7] == ["Nanjing", "Suzhou"]
    assert {r["team"] for r in c.get("/standings.json").get_json()} == {"Nanjing", "Suzhou"}


def test_only_a_registered_player_or_captain_signs_for_a_side(app, live, match_events):
    live.submit(SETTINGS)
    for e in match_events:
        live.submit(e)
    c = app.test_client()
    login(c, "li", "pw-li")
    page = c.get("/tables/T01").get_data(as_text=True)
    assert "<option>Li Na</option>" in page and "<option>Coach Ma</option>" in page
    for side, name in (("NS", "Wang"), ("NS", "Zhao"), ("EW", "Li Na"), ("NS", "")):
        r = _act(c, "T01", action="sign", side=side, name=name)
        assert r.status_code == 400, (side, name)
        assert f"registered player or captain of {side}" in r.get_json()["detail"]
        assert "已登记的队员或队长" in r.get_json()["error"]
    assert c.get("/sheets/T01.json").get_json()["signatures"] == {}     # refused: nothing stored
    assert _act(c, "T01", action="sign", side="NS", name="Coach Ma").status_code == 200
    assert _act(c, "T01", action="sign", side="EW", name="Wang").status_code == 200
    assert c.get("/sheets/T01.json").get_json()["signatures"] == {"NS": "Coach Ma", "EW": "Wang"}


def test_no_live_turn_once_the_match_is_over(app, live, match_events):
    live.submit(SETTINGS)
    for e in match_events:
        live.submit(e)
    c = app.test_client()
    login(c, "li", "pw-li")
    state = c.get("/tables/T01/state.json").get_json()
    assert state["phase"] == "match_over" and state["turn"] is None and state["clock"] is None
    assert state["players"]["S"] == "Li Na" and state["teams"]["NS"] == "Nanjing"
    assert [r["turn"] for r in c.get("/overview.json").get_json() if r["table"] == "T01"] == [None]
    assert 'id="player-S">Li Na<' in c.get("/tables/T01").get_data(as_text=True)


def test_a_side_with_nobody_registered_signs_with_any_name_and_is_told_so(app, live, match_events):
    live.submit(dict(SETTINGS, players={"N": "Zhang", "S": "Li Na"}, captains={}))
    c = app.test_client()
    login(c, "li", "pw-li")
    page = c.get("/tables/T01").get_data(as_text=True)
    assert page.count('class="sign-free"') == 1       # EW: no players or captain registered
    assert _act(c, "T01", action="sign", side="EW", name="Anyone").status_code == 200
    assert _act(c, "T01", action="sign", side="NS", name="Anyone").status_code == 400


def test_standings_from_finished_matches(app, live, match_events):
    for e in match_events:
        live.submit(e)
    rows = app.test_client().get("/standings.json").get_json()
    assert {r["team"] for r in rows} == {"Red", "Blue"}
    assert rows[0]["points"] >= rows[1]["points"] and rows[0]["rank"] == 1


def test_language_switch(app):
    c = app.test_client()
    assert "登录" in c.get("/login").get_data(as_text=True)
    r = c.get("/lang/en?next=/login")
    assert r.status_code == 302 and r.headers["Location"] == "/login"
    assert "Log in" in c.get("/login").get_data(as_text=True)
    assert c.get("/lang/fr").status_code == 404
    assert c.get("/lang/en?next=https://evil.example").headers["Location"] == "/"


def test_overlay_state_has_no_hidden_information(app, live, match_events):
    for e in match_events[:20]:
        live.submit(e)
    from web_dashboard.views import table_state
    with app.test_request_context():
        public = table_state("T01", public=True)
    assert "feed" not in public and "ladder" not in public
    assert set(public) >= {"trick", "levels", "order", "turn"}


def test_vision_evidence_crop_is_served_to_the_assigned_referee(tmp_path, match_events):
    import cv2
    import numpy as np

    from tests.dashboard.conftest import make_app

    evidence = tmp_path / "evidence"
    (evidence / "T01").mkdir(parents=True)
    img = np.zeros((40, 80, 3), np.uint8)
    cv2.imwrite(str(evidence / "T01" / "e4.jpg"), img)
    app = make_app(tmp_path, EVIDENCE_DIR=str(evidence))
    live = app.extensions["guandan_venue"]
    open_violation(live, match_events, source="vision", confidence=0.95, crop="e4.jpg")
    c = app.test_client()
    login(c, "li", "pw-li")
    v = [f for f in c.get("/tables/T01/state.json").get_json()["feed"] if f["type"] == "violation"][0]
    url = v["evidence"][0]["crop"]
    assert url == "/tables/T01/evidence/e4.jpg"
    r = c.get(url)
    assert r.status_code == 200 and r.data[:2] == b"\xff\xd8"
    assert c.get("/tables/T01/evidence/../../etc/passwd").status_code == 404
    c2 = app.test_client()
    login(c2, "wang", "pw-wang")
    assert c2.get(url).status_code == 403
    live.close()


def test_manual_entry_of_a_deal_when_no_camera_or_device_sees_it(app, live):
    c = app.test_client()
    login(c, "li", "pw-li")
    r = _act(c, "T01", action="event", type="deal_start", deal="1", level="2", leader="S")
    assert r.status_code == 200, r.get_json()
    assert [d["type"] for d in r.get_json()["decisions"]] == ["deal_start", "turn"]
    assert _act(c, "T01", action="event", type="play", seat="S", cards="S3, D3").status_code == 200
    assert _act(c, "T01", action="event", type="pass", seat="E").status_code == 200
    state = c.get("/tables/T01/state.json").get_json()
    assert state["level"] == "2" and state["turn"] == "N"
    assert state["trick"] == [{"seat": "S", "cards": ["S3", "D3"], "kind": "pair"}, {"seat": "E", "pass": True}]
    events = live.events("T01")
    assert [e["source"] for e in events] == ["manual"] * 3 and {e["who"] for e in events} == {"li"}


@pytest.mark.parametrize("form,message", [
    ({"type": "shuffle"}, "'type'"),
    ({"type": "deal_start", "deal": "x", "level": "2"}, "'deal'"),
    ({"type": "deal_start", "deal": "1", "level": "1"}, "unknown level"),
    ({"type": "play", "seat": "S", "cards": ""}, "needs its cards"),
    ({"type": "play", "seat": "S", "cards": "S3 QQ"}, "unknown card 'QQ'"),
    ({"type": "tribute", "seat": "S", "card": "X1"}, "unknown card"),
    ({"type": "report", "seat": "S", "count": "many"}, "'count'"),
    ({"type": "pass", "seat": "Q"}, "'seat'"),
])
def test_bad_manual_events_get_a_clear_400(app, live, form, message):
    c = app.test_client()
    login(c, "li", "pw-li")
    r = _act(c, "T01", action="event", **form)
    assert r.status_code == 400 and message in r.get_json()["detail"]
    assert live.events("T01") == []
