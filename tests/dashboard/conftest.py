import pytest

from referee.settings import Settings
from referee.simulation import simulate_match
from web_dashboard import create_app
from web_dashboard.auth import user_entry

USERS = [user_entry("li", "pw-li", "referee", ["T01"]),
         user_entry("wang", "pw-wang", "referee", ["T02"]),
         user_entry("head", "pw-head", "head", [])]


def make_app(tmp_path, **extra):
    config = {"DATABASE": str(tmp_path / "venue.sqlite"), "TABLES": ["T01", "T02"],
              "USERS": USERS, "MATCHES": {"T01": {"round": 1, "NS": "Red", "EW": "Blue"},
                                          "T02": {"round": 1, "NS": "Green", "EW": "Gold"}},
              "SETTINGS": {"match_format": "deals", "deals": 1},
              "SSE_KEEPALIVE": 0.5, "TESTING": True}
    config.update(extra)
    return create_app(config)


@pytest.fixture
def app(tmp_path):
    app = make_app(tmp_path)
    yield app
    app.extensions["guandan_venue"].close()


@pytest.fixture
def live(app):
    return app.extensions["guandan_venue"]


@pytest.fixture
def match_events():
    """A whole one-deal match (no violations), as events for table T01."""
    return [dict(e, table="T01") for e in
            simulate_match(seed=3, settings=Settings.parse_format("deals:1"))]


def login(client, name, password):
    page = client.get("/login")
    token = _csrf(page.get_data(as_text=True))
    return client.post("/login", data={"username": name, "password": password, "csrf_token": token})


def _csrf(html: str) -> str:
    marker = 'name="csrf-token" content="'
    i = html.index(marker) + len(marker)
    return html[i:html.index('"', i)]


def csrf_of(client, path="/login") -> str:
    return _csrf(client.get(path).get_data(as_text=True))


def open_violation(live, match_events, **fields):
    """The first three events of the match, then a play out of turn (an open
    violation for the actions on it); ``fields`` go on that play."""
    for e in match_events[:3]:
        live.submit(e)
    turn = live.snapshot("T01")["deal"]["turn"]
    wrong = {"S": "N", "E": "S", "N": "E", "W": "S"}[turn]
    live.submit({"t": match_events[2]["t"] + 1, "table": "T01", "type": "play", "seat": wrong,
                 "cards": ["BJ"], **fields})
