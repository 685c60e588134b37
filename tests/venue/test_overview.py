"""The overview shows the venue central's dead letters and lag (issue: venue,
poison messages 'shown on the overview'): a real poison message through
real Redis and PostgreSQL, then the page, in Chinese and English, and in
Debian's chromium."""

import pytest
import redis

from tests.dashboard.conftest import USERS, login, make_app
from tests.dashboard.pages import log_in, serving
from tests.dashboard.test_browser import browser  # noqa: F401  (the chromium fixture)
from tests.services import wait_until
from tests.venue.test_faults import Central, _send, count, feeds
from web_dashboard import create_app, venue_status

TABLES = ("T01", "T02")


@pytest.fixture
def central_with_poison(fresh):
    """A central that recorded T01's and T02's first events and dead-lettered
    one poison message on T01's stream (a non-finite number)."""
    redis_srv, pg = fresh
    central = Central(redis_srv, pg, tables=TABLES)
    r = redis.Redis.from_url(redis_srv.url)
    f = feeds(TABLES)
    _send(r, "T01", 1, dict(f["T01"][0], uid="T01/1"))
    _send(r, "T01", 2, raw='{"type": "tick", "t": NaN, "table": "T01", "uid": "bad"}')
    _send(r, "T02", 1, dict(f["T02"][0], uid="T02/1"))
    wait_until(lambda: count(pg) == 2 and central.service.dead == 1, what="the poison message dead-lettered")
    app = create_app({"USERS": USERS, "TESTING": True, "SETTINGS": {"match_format": "deals", "deals": 1}},
                     live=central.service.live)
    venue_status.init_app(app, central.service)
    yield app, central
    central.close()


def test_the_overview_shows_the_dead_letters_and_lag_in_both_languages(central_with_poison):
    app, central = central_with_poison
    c = app.test_client()
    assert c.get("/venue/dead-letters").status_code in (302, 401)     # data for logged-in users only
    login(c, "li", "pw-li")
    html = c.get("/").get_data(as_text=True)
    assert 'id="venue-central"' in html and "无法记录的消息（死信）" in html and "各桌积压" in html
    assert '<span id="dead-letter-count" class="error">1</span>' in html
    row = html[html.index('<table class="grid" id="dead-letters">'):]
    row = row[:row.index("</table>")]
    assert row.count('<tr data-table="T01">') == 1
    assert "guandan:events:T01" in row and "NaN" in row and '<td class="position">2</td>' in row
    assert '<tr data-table="T01"><td>T01</td>' in html and '<tr data-table="T02"><td>T02</td>' in html  # lag rows
    c.get("/lang/en")
    html = c.get("/").get_data(as_text=True)
    assert "Messages that could not be recorded (dead letters)" in html and "Lag per table" in html
    assert "NaN" in html
    assert c.get("/venue/dead-letters").get_json()["dead_letters"][0]["stream"] == "guandan:events:T01"
    assert c.get("/venue/health").get_json()["dead_letters"] == 1


def test_the_overview_still_shows_the_tables_while_postgresql_is_down(central_with_poison, fresh):
    app, _ = central_with_poison
    _, pg = fresh
    c = app.test_client()
    login(c, "head", "pw-head")
    pg.stop()
    try:
        html = c.get("/").get_data(as_text=True)
    finally:
        pg.start()
    assert '<tr data-table="T01">' in html and '<tr data-table="T02">' in html      # the tables
    assert '(<span id="dead-letter-count" class="">暂时无法读取</span>)' in html


def test_a_dashboard_without_a_central_shows_no_venue_part(tmp_path):
    app = make_app(tmp_path)
    try:
        c = app.test_client()
        login(c, "head", "pw-head")
        html = c.get("/").get_data(as_text=True)
        assert 'id="overview"' in html and "venue-central" not in html
        assert c.get("/venue/health").status_code == 404
    finally:
        app.extensions["guandan_venue"].close()


def test_the_head_referee_sees_the_dead_letter_in_chromium(central_with_poison, browser):  # noqa: F811
    from playwright.sync_api import expect

    app, _ = central_with_poison
    with serving(app) as base:
        page = browser.new_page()
        log_in(page, base, "head", "pw-head")
        page.wait_for_url(base + "/")
        row = page.locator("#dead-letters tbody tr[data-table='T01']")
        expect(row).to_be_visible()
        expect(row.locator(".reason")).to_contain_text("NaN")
        expect(row.locator(".stream")).to_have_text("guandan:events:T01")
        expect(page.locator("#dead-letter-count")).to_have_text("1")
        expect(page.locator("#dead-letters-head")).to_contain_text("死信")
        page.click("#lang-switch")
        expect(page.locator("#dead-letters-head")).to_contain_text("dead letters")
        expect(page.locator("#venue-lag tr[data-table='T02']")).to_be_visible()
