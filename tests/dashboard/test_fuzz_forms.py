"""Fuzz (hypothesis) of every form and JSON endpoint of the dashboard: no
answer is a 5xx, a refused request changes neither the log nor the state, the
state stays strict JSON (no NaN or Infinity) and redirects stay on the site."""

import json
from urllib.parse import quote, urlsplit

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.dashboard.conftest import csrf_of, login, make_app, open_violation
from web_dashboard.views import MANUAL_EVENTS

ACTIONS = ["confirm", "void", "change_penalty", "penalty", "correct", "choice", "event", "sign"]
FIELDS = ["seat", "code", "penalty", "minutes", "note", "ref", "what", "kind", "cards", "choice",
          "type", "card", "count", "deal", "level", "leader", "side", "name"]
NASTY = ["", "nan", "NaN", "inf", "-inf", "Infinity", "1e309", "-1", "0", "1", "4", "5", "601",
         "9" * 40, "1_0", " 3 ", "\x00", "<img src=x>", "<a href='//x'>y</a>", "S3 D3", "BJ", "H10",
         "N", "S", "E", "W", "NS", "EW", "late", "manual", "signalling", "out_of_turn_play", "foul",
         "warning", "infraction", "forfeit", "penalty", "event", "play", "pass", "2", "A",
         "stop_next_play", "waive", *MANUAL_EVENTS, "名" * 101, "x" * 3000]
values = st.one_of(st.sampled_from(NASTY), st.text(max_size=40),
                   st.integers(min_value=-10 ** 20, max_value=10 ** 20).map(str),
                   st.floats(allow_nan=True, allow_infinity=True).map(repr))
# Valid forms for the table of _setup (event 4 is the violation's evidence), each
# then given up to three fields of nasty values; and wholly random forms.
VALID = [{"action": "confirm", "ref": "4"}, {"action": "void", "ref": "4", "what": "penalty"},
         {"action": "void", "ref": "2", "what": "event"},
         {"action": "change_penalty", "ref": "4", "penalty": "warning", "code": "out_of_turn_play"},
         {"action": "penalty", "seat": "N", "code": "signalling", "penalty": "warning", "note": "x"},
         {"action": "penalty", "seat": "E", "code": "late", "minutes": "3"},
         {"action": "correct", "ref": "2", "kind": "play", "cards": "S3"},
         {"action": "correct", "ref": "3", "kind": "pass"},
         {"action": "choice", "seat": "N", "choice": "waive"},
         {"action": "event", "type": "pass", "seat": "E"},
         {"action": "event", "type": "report", "seat": "E", "count": "20"},
         {"action": "event", "type": "deal_start", "deal": "2", "level": "3"},
         {"action": "sign", "side": "NS", "name": "Zhao"}]
mutated = st.tuples(st.sampled_from(VALID), st.dictionaries(st.sampled_from(FIELDS), values, max_size=3)
                    ).map(lambda p: {**p[0], **p[1]})
forms = st.one_of(
    mutated, mutated,
    st.fixed_dictionaries({"action": st.one_of(st.sampled_from(ACTIONS), st.text(max_size=12))},
                          optional={f: values for f in FIELDS}))
json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                           lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.sampled_from(["action", *FIELDS]), inner, max_size=6),
                           max_leaves=12)


def _strict(text):
    def refuse(name):
        raise AssertionError(f"{name} in the state JSON")
    return json.loads(text, parse_constant=refuse)


def _setup(tmp_path, match_events):
    app = make_app(tmp_path)
    live = app.extensions["guandan_venue"]
    open_violation(live, match_events)
    c = app.test_client()
    login(c, "li", "pw-li")
    return app, live, c, csrf_of(c, "/tables/T01")


def _record(live, c):
    state = c.get("/tables/T01/state.json")
    assert state.status_code == 200
    _strict(state.get_data(as_text=True))
    return len(live.events("T01")), state.get_data()


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


def test_fuzz_action_forms(tmp_path, match_events):
    app, live, c, token = _setup(tmp_path, match_events)

    @FUZZ
    @given(form=forms, as_json=st.booleans())
    def check(form, as_json):
        before = _record(live, c)
        headers = {"Accept": "application/json"} if as_json else {}
        r = c.post("/tables/T01/action", data=dict(form, csrf_token=token), headers=headers)
        assert r.status_code < 500, (form, r.get_data(as_text=True)[:300])
        event(f"{form['action']!r:.20} -> {r.status_code}")    # --hypothesis-show-statistics
        if r.status_code >= 400:
            assert _record(live, c) == before, form
            if as_json:
                assert r.get_json()["error"]
        else:
            _record(live, c)

    try:
        check()
    finally:
        live.close()


def test_fuzz_json_bodies_to_the_action_endpoint(tmp_path, match_events):
    """The action endpoint takes forms; a JSON body is refused and changes nothing."""
    app, live, c, token = _setup(tmp_path, match_events)

    @FUZZ
    @given(body=json_values)
    def check(body):
        before = _record(live, c)
        r = c.post("/tables/T01/action", data=json.dumps(body), content_type="application/json",
                   headers={"Accept": "application/json", "X-CSRFToken": token})
        assert r.status_code == 400, r.get_data(as_text=True)[:300]
        assert _record(live, c) == before

    try:
        check()
    finally:
        live.close()


def test_fuzz_login_and_language_forms(tmp_path):
    app = make_app(tmp_path)
    c = app.test_client()
    token = csrf_of(c)
    base = "http://localhost"

    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
    @given(name=values, password=values, nxt=st.one_of(values, st.sampled_from(
        ["/\t/evil", "\\\\evil", "/\\evil", " //evil", "\n/\n/evil", "https://evil", "//evil"])),
        lang=st.sampled_from(["en", "zh", "fr", "%00"]))
    def check(name, password, nxt, lang):
        r = c.post("/login?next=" + quote(nxt, safe=""),
                   data={"username": name, "password": password, "csrf_token": token})
        assert r.status_code in (200, 302, 401, 429), r.status_code
        r = c.get(f"/lang/{lang}?next=" + quote(nxt, safe=""))
        assert r.status_code in (302, 404)
        if r.status_code == 302:
            location = r.headers["Location"]
            # on the site: one slash, and nothing a browser would turn into a host
            assert location.startswith("/") and not location.startswith("//")
            assert not any(ch in location for ch in "\\\t\r\n")
            assert urlsplit(base + location).netloc == "localhost"

    try:
        check()
    finally:
        app.extensions["guandan_venue"].close()
