"""The dashboard's protections, one group per row of the security review
(open redirect, PDF markup, non-finite numbers, request size, change of
penalty, login, session, debug) and the headers. The browser side is in
test_security_browser.py, the fuzz test in test_fuzz_forms.py."""

import json
import re
import zlib

import pytest

from referee.events import EventError
from tests.dashboard.conftest import USERS, csrf_of, login, make_app
from web_dashboard.auth import User
from web_dashboard.security import LoginThrottle, safe_next


def _act(c, table, **form):
    token = csrf_of(c, f"/tables/{table}")
    return c.post(f"/tables/{table}/action", data=dict(form, csrf_token=token),
                  headers={"Accept": "application/json"})


def _strict(text):
    """JSON as a browser's JSON.parse reads it: NaN and Infinity are errors."""
    def refuse(name):
        raise ValueError(f"{name} in JSON")
    return json.loads(text, parse_constant=refuse)


def _record(live, table="T01"):
    return len(live.events(table)), json.dumps(live.snapshot(table), sort_keys=True, default=str)


def _dir(tmp_path, name):
    (tmp_path / name).mkdir()
    return tmp_path / name


def _wrong_seat_play(live, match_events, **extra):
    """Three events of the match, then a play out of turn (an infraction)."""
    for e in match_events[:3]:
        live.submit(e)
    turn = live.snapshot("T01")["deal"]["turn"]
    wrong = {"S": "N", "E": "S", "N": "E", "W": "S"}[turn]
    live.submit(dict({"t": match_events[2]["t"] + 1, "table": "T01", "type": "play", "seat": wrong,
                      "cards": ["BJ"]}, **extra))
    return wrong


# ------------------------------------------------------------ open redirect
@pytest.mark.parametrize("target,expected", [
    ("/tables/T01", "/tables/T01"),
    ("/sheets/T01?x=1#top", "/sheets/T01?x=1#top"),
    ("/\t/evil.example", "/"),            # Werkzeug and browsers drop the tab: //evil.example
    ("/\n/evil.example", "/"),
    ("/\r\n/evil.example", "/"),
    ("\t//evil.example", "/"),
    (" //evil.example", "/"),
    ("/\\evil.example", "/"),             # browsers read \\ as /
    ("\\\\evil.example", "/"),
    ("//evil.example", "/"),
    ("https://evil.example/", "/"),
    ("javascript:alert(1)", "/"),
    ("/x\x00y", "/"),
    ("", "/"),
    (None, "/"),
])
def test_safe_next_judges_the_normalised_target(target, expected):
    assert safe_next(target) == expected


@pytest.mark.parametrize("query", ["/%09/evil.example", "/%0a/evil.example", "/%5C/evil.example",
                                   "%09//evil.example", "https:/%09/evil.example"])
def test_login_and_language_switch_never_redirect_off_site(app, query):
    c = app.test_client()
    token = csrf_of(c)
    r = c.post(f"/login?next={query}", data={"username": "li", "password": "pw-li", "csrf_token": token})
    assert r.status_code == 302 and r.headers["Location"] == "/"
    r = c.get(f"/lang/en?next={query}")
    assert r.status_code == 302 and r.headers["Location"] == "/"


def test_login_keeps_a_local_next(app):
    c = app.test_client()
    token = csrf_of(c)
    r = c.post("/login?next=/tables/T01", data={"username": "li", "password": "pw-li", "csrf_token": token})
    assert r.headers["Location"] == "/tables/T01"


# ------------------------------------------------------- PDF markup injection
def _pdf_objects(pdf: bytes) -> bytes:
    """The PDF with its compressed streams inflated, to look for images and links."""
    out = [pdf]
    for m in re.finditer(rb"stream\r?\n(.*?)endstream", pdf, re.S):
        try:
            out.append(zlib.decompress(m.group(1)))
        except zlib.error:
            pass
    return b"\n".join(out)


def test_the_detector_sees_an_image_and_a_link_in_reportlab_markup(tmp_path, monkeypatch):
    """What the next test looks for does show when markup is not escaped."""
    import io

    monkeypatch.chdir(tmp_path)
    import cv2
    import numpy as np
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    cv2.imwrite("crop1.jpg", np.zeros((20, 20, 3), np.uint8))
    img = "crop1.jpg"
    buf = io.BytesIO()
    SimpleDocTemplate(buf).build([Paragraph(f"<img src='{img}' width='10' height='10'/>"
                                            "<a href='https://evil.example/'>x</a>")])
    raw = _pdf_objects(buf.getvalue())
    assert b"/Subtype /Image" in raw and b"/URI" in raw


@pytest.mark.parametrize("name", [
    "<img src='{img}' width='100' height='100'/>",     # the relative path works from the cwd
    "<a href='https://evil.example/'>official</a>",
    "<b>unclosed",
    "&bogus; </para> <font name='nope'>",
])
def test_signature_markup_is_text_in_the_pdf(tmp_path, match_events, name, monkeypatch):
    import cv2
    import numpy as np

    monkeypatch.chdir(tmp_path)

    evidence = tmp_path / "evidence" / "T01"
    evidence.mkdir(parents=True)
    img = evidence / "crop1.jpg"
    cv2.imwrite(str(img), np.zeros((20, 20, 3), np.uint8))
    app = make_app(tmp_path, EVIDENCE_DIR=str(tmp_path / "evidence"))
    live = app.extensions["guandan_venue"]
    try:
        for e in match_events:
            live.submit(dict(e, table="T02"))
        c = app.test_client()
        login(c, "wang", "pw-wang")
        name = name.format(img=img.relative_to(tmp_path))
        assert _act(c, "T02", action="sign", side="NS", name=name).status_code == 200
        r = app.test_client().get("/sheets/T02.pdf")
        assert r.status_code == 200 and r.data.startswith(b"%PDF")
        raw = _pdf_objects(r.data)
        assert b"/Subtype /Image" not in raw and b"/URI" not in raw and b"/Annot" not in raw
        # the HTML sheet shows the same text, escaped
        html = app.test_client().get("/sheets/T02").get_data(as_text=True)
        from markupsafe import escape
        assert str(escape(name)) in html and name not in html
    finally:
        live.close()


def test_pdf_text_is_escaped_and_shortened():
    from web_dashboard.pdf import score_sheet_pdf, text

    assert text("<a href='x'>y</a>") == "&lt;a href='x'&gt;y&lt;/a&gt;"
    assert len(text("名" * 5000)) == 100
    pdf = score_sheet_pdf("<T>", {"rows": [], "levels": {}}, {"NS": "<b>" * 10000},
                          {"NS": "<i>Red", "EW": "Blue</i>"})
    assert pdf.startswith(b"%PDF") and len(pdf) < 200_000


# ---------------------------------------------------------- non-finite numbers
@pytest.mark.parametrize("minutes", ["nan", "NaN", "inf", "-inf", "1e309", "-1", "601", "", "7 min",
                                     "9" * 400])
def test_late_minutes_must_be_a_finite_number_in_range(app, live, minutes):
    c = app.test_client()
    login(c, "li", "pw-li")
    before = _record(live)
    r = _act(c, "T01", action="penalty", code="late", seat="N", minutes=minutes)
    assert r.status_code == 400 and "'minutes'" in r.get_json()["detail"]
    assert _record(live) == before
    _strict(c.get("/tables/T01/state.json").get_data(as_text=True))


def test_late_minutes_in_range_are_recorded(app, live):
    c = app.test_client()
    login(c, "li", "pw-li")
    assert _act(c, "T01", action="penalty", code="late", seat="N", minutes="3.5").status_code == 200
    assert live.events("T01")[-1]["minutes"] == 3.5
    state = _strict(c.get("/tables/T01/state.json").get_data(as_text=True))
    assert state["result"] is None     # a warning, not a forfeit


def test_events_refuse_non_finite_numbers_at_the_edge(live):
    """The one validation layer the forms go through (Event.from_dict)."""
    for bad in (float("nan"), float("inf")):
        with pytest.raises(EventError, match="finite"):
            live.submit({"t": 1, "table": "T01", "type": "referee", "action": "late", "side": "NS",
                         "minutes": bad})
    assert live.events("T01") == []


@pytest.mark.parametrize("form,message", [
    ({"action": "event", "type": "deal_start", "deal": "1e3", "level": "2"}, "'deal'"),
    ({"action": "event", "type": "deal_start", "deal": "99999999999", "level": "2"}, "'deal'"),
    ({"action": "event", "type": "report", "seat": "S", "count": "29"}, "'count'"),
    ({"action": "event", "type": "report", "seat": "S", "count": "-1"}, "'count'"),
    ({"action": "confirm", "ref": "0"}, "'ref'"),
    ({"action": "confirm", "ref": "9" * 30}, "'ref'"),
    ({"action": "void", "ref": "nan"}, "'ref'"),
])
def test_other_numbers_are_checked_for_range(app, live, form, message):
    c = app.test_client()
    login(c, "li", "pw-li")
    before = _record(live)
    r = _act(c, "T01", **form)
    assert r.status_code == 400 and message in r.get_json()["detail"]
    assert _record(live) == before


# ----------------------------------------------------------------- request size
def test_a_huge_request_gets_a_clean_413_and_changes_nothing(app, live, match_events):
    for e in match_events:
        live.submit(e)
    c = app.test_client()
    login(c, "li", "pw-li")
    before = _record(live)
    token = csrf_of(c, "/tables/T01")
    r = c.post("/tables/T01/action", data={"action": "sign", "side": "NS", "name": "x" * (20 << 20),
                                           "csrf_token": token}, headers={"Accept": "application/json"})
    assert r.status_code == 413 and "too large" in r.get_json()["error"]
    r = c.post("/tables/T01/action", data={"action": "sign", "side": "NS", "name": "x" * (1 << 17),
                                           "csrf_token": token})
    assert r.status_code == 413 and "Traceback" not in r.get_data(as_text=True)
    assert _record(live) == before


def test_request_limit_is_configurable(tmp_path):
    app = make_app(tmp_path, MAX_CONTENT_LENGTH=2048)
    try:
        c = app.test_client()
        login(c, "li", "pw-li")
        r = _act(c, "T01", action="penalty", seat="N", code="manual", penalty="warning", note="n" * 3000)
        assert r.status_code == 413
    finally:
        app.extensions["guandan_venue"].close()


@pytest.mark.parametrize("name,status", [("x" * 100, 200), ("x" * 101, 400), ("a\nb", 400),
                                         ("赵" * 100, 200)])
def test_signature_names_are_1_to_100_characters(app, live, match_events, name, status):
    for e in match_events:
        live.submit(e)
    c = app.test_client()
    login(c, "li", "pw-li")
    r = _act(c, "T01", action="sign", side="NS", name=name)
    assert r.status_code == status
    if status == 400:
        assert "'name'" in r.get_json()["detail"]


def test_a_long_name_already_in_the_log_is_shortened_on_the_sheets(app, live, match_events):
    for e in match_events:
        live.submit(e)
    # written before names were limited (the event edge allows 2000 characters)
    live.submit({"t": match_events[-1]["t"], "table": "T01", "type": "referee", "action": "sign",
                 "side": "NS", "name": "长" * 2000})
    c = app.test_client()
    assert len(c.get("/sheets/T01.json").get_json()["signatures"]["NS"]) == 100
    assert c.get("/sheets/T01.pdf").status_code == 200


# -------------------------------------------------------------- change penalty
def test_change_penalty_keeps_the_evidence_and_is_not_open_again(app, live, match_events):
    wrong = _wrong_seat_play(live, match_events)
    play_id = live.events("T01")[-1]["id"]
    c = app.test_client()
    login(c, "li", "pw-li")
    r = _act(c, "T01", action="change_penalty", ref=str(play_id), seat=wrong, code="out_of_turn_play",
             penalty="warning")
    assert r.status_code == 200, r.get_json()
    feed = c.get("/tables/T01/state.json").get_json()["feed"]
    original, changed = [f for f in feed if f["type"] == "violation"]
    assert original["status"] == "voided"
    assert changed["status"] == "confirmed" and changed["penalty"] == "warning"
    assert changed["changes"] == play_id and changed["events"][0] == play_id
    assert [e["id"] for e in changed["evidence"]][0] == play_id
    assert changed["evidence"][0]["cards"] == ["BJ"]
    # changed again: the changed item's own event is the reference
    r = _act(c, "T01", action="change_penalty", ref=str(changed["events"][-1]), penalty="infraction")
    assert r.status_code == 200, r.get_json()


@pytest.mark.parametrize("form,message", [
    ({"penalty": "warning", "code": "bribery"}, "'code'"),
    ({"penalty": "death"}, "'penalty'"),
    ({"penalty": "warning", "seat": "X"}, "'seat'"),
])
def test_change_penalty_needs_a_known_code_and_penalty(app, live, match_events, form, message):
    _wrong_seat_play(live, match_events)
    play_id = live.events("T01")[-1]["id"]
    c = app.test_client()
    login(c, "li", "pw-li")
    before = _record(live)
    r = _act(c, "T01", action="change_penalty", ref=str(play_id), **form)
    assert r.status_code == 400 and message in r.get_json()["detail"]
    assert _record(live) == before


def test_change_penalty_refuses_a_plain_play_and_a_voided_violation(app, live, match_events):
    _wrong_seat_play(live, match_events)
    events = live.events("T01")
    c = app.test_client()
    login(c, "li", "pw-li")
    before = _record(live)
    plain = events[1]["id"]     # the lead: no violation
    r = _act(c, "T01", action="change_penalty", ref=str(plain), penalty="foul", code="manual")
    assert r.status_code == 400 and "not the evidence of a violation" in r.get_json()["detail"]
    r = _act(c, "T01", action="change_penalty", ref="999", penalty="foul")
    assert r.status_code == 400
    assert _record(live) == before
    assert _act(c, "T01", action="void", ref=str(events[-1]["id"]), what="penalty").status_code == 200
    before = _record(live)
    r = _act(c, "T01", action="change_penalty", ref=str(events[-1]["id"]), penalty="foul")
    assert r.status_code == 400 and "voided" in r.get_json()["detail"]
    assert _record(live) == before


def test_no_penalty_after_the_match_ended(app, live, match_events):
    wrong = _wrong_seat_play(live, match_events)
    play_id = live.events("T01")[-1]["id"]
    for e in match_events[3:]:
        live.submit(e)
    sheet = live.snapshot("T01")["score_sheet"]
    assert sheet["result"] is not None
    c = app.test_client()
    login(c, "li", "pw-li")
    before = _record(live)
    for form in ({"action": "change_penalty", "ref": str(play_id), "seat": wrong, "penalty": "foul",
                  "code": "out_of_turn_play"},
                 {"action": "penalty", "seat": "N", "code": "signalling", "penalty": "foul"},
                 {"action": "penalty", "seat": "N", "code": "late", "minutes": "7"},
                 {"action": "event", "type": "deal_start", "deal": "2", "level": "3"}):
        r = _act(c, "T01", **form)
        assert r.status_code == 400 and "match is over" in r.get_json()["detail"], form
    assert _record(live) == before
    # the sides still sign the finished sheet
    assert _act(c, "T01", action="sign", side="NS", name="Zhao").status_code == 200


def test_a_foul_after_the_match_scores_no_phantom_deal(live, match_events):
    """The rules engine itself: a foul logged after the result (an old log,
    another source) scores no further deal and changes no level."""
    for e in match_events:
        live.submit(e)
    sheet = live.snapshot("T01")["score_sheet"]
    live.submit({"t": match_events[-1]["t"] + 1, "table": "T01", "type": "referee",
                 "action": "penalty", "seat": "N", "penalty": "foul", "code": "signalling"})
    after = live.snapshot("T01")["score_sheet"]
    assert len(after["rows"]) == len(sheet["rows"])
    assert after["levels"] == sheet["levels"] and after["result"] == sheet["result"]
    assert not any(d["type"] == "deal_end" and d.get("deal", 0) > len(sheet["rows"])
                   for d in live.decisions("T01"))


# ----------------------------------------------------------------------- login
def _try(c, name, password, addr="10.0.0.1"):
    token = csrf_of(c)
    return c.post("/login", data={"username": name, "password": password, "csrf_token": token},
                  environ_base={"REMOTE_ADDR": addr})


def test_login_is_throttled_per_account(app):
    c = app.test_client()
    for i in range(5):
        assert _try(c, "li", f"wrong{i}", addr=f"10.0.0.{i}").status_code == 401
    r = _try(c, "li", "pw-li", addr="10.0.1.1")      # the right one, from another address
    assert r.status_code == 429 and 0 < int(r.headers["Retry-After"]) <= 900
    assert "Too many" in r.get_data(as_text=True) or "过多" in r.get_data(as_text=True)
    assert c.get("/").status_code == 302              # not logged in
    # another account is not locked by li's failures
    assert _try(app.test_client(), "wang", "pw-wang", addr="10.0.1.2").status_code == 302


def test_login_is_throttled_per_address(app):
    c = app.test_client()
    for i in range(5):
        assert _try(c, f"nobody{i}", "x", addr="10.9.9.9").status_code == 401
    assert _try(c, "wang", "pw-wang", addr="10.9.9.9").status_code == 429
    assert _try(app.test_client(), "wang", "pw-wang", addr="10.9.9.8").status_code == 302


def test_throttle_window_passes():
    th = LoginThrottle(limit=5, window=900)
    for i in range(5):
        th.fail(["user:li"], now=100.0 + i)
    assert th.retry_after(["user:li"], now=110.0) == 891
    assert th.retry_after(["user:li"], now=999.5) == 1     # the oldest failure leaves at 1000
    assert th.retry_after(["user:li"], now=1000.0) == 0
    th.clear("user:li")
    assert th.retry_after(["user:li"], now=110.0) == 0
    small = LoginThrottle(limit=5, window=900, max_keys=3)
    for i in range(10):
        small.fail([f"user:{i}"], now=1.0)
    assert len(small._failures) == 3


def test_unknown_user_costs_the_same_hash_check(app, monkeypatch):
    """No timing oracle: an unknown name is checked against a dummy hash made
    with the same method and cost as the users' hashes."""
    import web_dashboard.auth as auth

    calls = []
    real = auth.check_password_hash
    monkeypatch.setattr(auth, "check_password_hash",
                        lambda h, pw: calls.append(h.split("$")[0]) or real(h, pw))
    _try(app.test_client(), "li", "wrong", addr="10.1.1.1")
    _try(app.test_client(), "nobody", "wrong", addr="10.1.1.2")
    assert len(calls) == 2 and calls[0] == calls[1]      # same method and parameters
    dummy = app.extensions["guandan_dummy_hash"]
    assert dummy.split("$")[0] == USERS[0]["password_hash"].split("$")[0]


# --------------------------------------------------------------------- session
def test_a_saved_cookie_is_refused_after_logout(app):
    c = app.test_client()
    login(c, "li", "pw-li")
    saved = c.get_cookie("session").value
    assert c.get("/tables/T01").status_code == 200
    token = csrf_of(c, "/tables/T01")
    assert c.post("/logout", data={"csrf_token": token}).status_code == 302
    thief = app.test_client()
    thief.set_cookie("session", saved)
    r = thief.get("/tables/T01")
    assert r.status_code == 302 and "/login" in r.headers["Location"]
    # logging in again works and gives a new session
    c2 = app.test_client()
    login(c2, "li", "pw-li")
    assert c2.get("/tables/T01").status_code == 200


def test_a_password_change_ends_saved_sessions(app):
    from werkzeug.security import generate_password_hash

    c = app.test_client()
    login(c, "li", "pw-li")
    assert c.get("/tables/T01").status_code == 200
    users = app.extensions["guandan_users"]
    users["li"] = User("li", generate_password_hash("new"), "referee", ("T01",))
    assert c.get("/tables/T01").status_code == 302


def test_session_cookie_attributes(tmp_path):
    app = make_app(tmp_path)
    try:
        c = app.test_client()
        r = login(c, "li", "pw-li")
        cookie = r.headers["Set-Cookie"]
        assert "SameSite=Lax" in cookie and "HttpOnly" in cookie and "Secure" not in cookie
        # a proxy that says https (trusted with PROXY_FIX) makes it Secure
        r = app.test_client().get("/login", headers={"X-Forwarded-Proto": "https"})
        assert "Secure" not in r.headers["Set-Cookie"]     # not trusted without PROXY_FIX
    finally:
        app.extensions["guandan_venue"].close()
    app = make_app(_dir(tmp_path, "p"), PROXY_FIX=1)
    try:
        r = app.test_client().get("/login", headers={"X-Forwarded-Proto": "https"})
        assert "Secure" in r.headers["Set-Cookie"]
    finally:
        app.extensions["guandan_venue"].close()
    app = make_app(_dir(tmp_path, "t"), TLS=True)
    try:
        r = app.test_client().get("/login")
        assert "Secure" in r.headers["Set-Cookie"] and "SameSite=Lax" in r.headers["Set-Cookie"]
    finally:
        app.extensions["guandan_venue"].close()


# ----------------------------------------------------------------------- debug
def test_debug_from_the_config_is_ignored(tmp_path, monkeypatch):
    path = tmp_path / "dash.toml"
    path.write_text("DEBUG = true\n")
    monkeypatch.setenv("GUANDAN_DASHBOARD_CONFIG", str(path))
    monkeypatch.setenv("FLASK_DEBUG", "1")
    app = make_app(tmp_path, TESTING=False, DEBUG=True)
    try:
        assert app.debug is False and app.config["DEBUG"] is False

        @app.route("/boom")
        def boom():
            raise RuntimeError("secret detail")

        r = app.test_client().get("/boom")
        body = r.get_data(as_text=True)
        assert r.status_code == 500
        assert "Traceback" not in body and "secret detail" not in body and "Werkzeug" not in body
        assert ".py" not in body
    finally:
        app.extensions["guandan_venue"].close()


def test_the_debugger_is_never_served_to_the_network(tmp_path, monkeypatch):
    import werkzeug.serving

    served = []
    monkeypatch.setattr(werkzeug.serving, "run_simple",
                        lambda host, port, app, **kw: served.append((host, kw)))
    monkeypatch.setenv("FLASK_DEBUG", "1")
    app = make_app(tmp_path, DEBUG=True)
    try:
        app.run(host="0.0.0.0", port=8000, threaded=True)      # what `guandan-ref dashboard` does
        assert served[-1][0] == "0.0.0.0" and served[-1][1]["use_debugger"] is False
        assert served[-1][1]["use_evalex"] is False
        with pytest.raises(RuntimeError, match="DEV_MODE"):
            app.run(host="127.0.0.1", debug=True)
    finally:
        app.extensions["guandan_venue"].close()
    dev = make_app(_dir(tmp_path, "dev"), DEBUG=True, DEV_MODE=True)
    try:
        assert dev.debug is True
        with pytest.raises(RuntimeError, match="127.0.0.1"):
            dev.run(host="0.0.0.0", port=8000)
        dev.run(host="127.0.0.1", port=8000)
        assert served[-1][0] == "127.0.0.1" and served[-1][1]["use_debugger"] is True
    finally:
        dev.extensions["guandan_venue"].close()


# --------------------------------------------------------------------- headers
PAGES = ["/login", "/sheets/T01", "/sheets/T01.pdf", "/sheets/T01.json", "/standings",
         "/standings.json", "/static/dashboard.js", "/lang/en", "/nope"]


def test_security_headers_on_every_response(app):
    c = app.test_client()
    login(c, "head", "pw-head")
    for path in PAGES + ["/", "/tables/T01", "/tables/T01/state.json", "/overview.json"]:
        r = c.get(path)
        csp = r.headers.get("Content-Security-Policy", "")
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp, path
        assert "frame-ancestors 'none'" in csp and r.headers["X-Frame-Options"] == "DENY", path
        assert r.headers["X-Content-Type-Options"] == "nosniff", path
        assert r.headers["Referrer-Policy"] == "same-origin", path


def test_the_overlay_may_be_framed(tmp_path, app):
    r = app.test_client().get("/overlay/T01")
    assert "frame-ancestors *" in r.headers["Content-Security-Policy"]
    assert "X-Frame-Options" not in r.headers
    app2 = make_app(_dir(tmp_path, "f"), OVERLAY_FRAME_ANCESTORS="'self' https://obs.example")
    try:
        r = app2.test_client().get("/overlay/T01")
        assert "frame-ancestors 'self' https://obs.example" in r.headers["Content-Security-Policy"]
    finally:
        app2.extensions["guandan_venue"].close()


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>", re.I)


def test_no_page_has_inline_script(app, live, match_events):
    for e in match_events[:5]:
        live.submit(e)
    c = app.test_client()
    login(c, "head", "pw-head")
    for path in ["/login", "/", "/tables/T01", "/overlay/T01", "/sheets/T01", "/standings"]:
        html = c.get(path).get_data(as_text=True)
        assert not INLINE_SCRIPT.search(html), path
        assert not re.search(r"<[^>]+\son[a-z]+=", html), path     # no inline event handlers


@pytest.mark.parametrize("action", ["confirm", "void", "correct"])
def test_a_correction_must_name_an_event_of_the_log(app, live, match_events, action):
    for e in match_events[:3]:
        live.submit(e)
    c = app.test_client()
    login(c, "li", "pw-li")
    before = _record(live)
    r = _act(c, "T01", action=action, ref="99", kind="pass")
    assert r.status_code == 400 and "no event 99" in r.get_json()["detail"]
    assert _record(live) == before
