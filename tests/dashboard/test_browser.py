"""The dashboard in a real headless browser (Debian's chromium via Playwright)."""

import os
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.dashboard.conftest import make_app
from tests.dashboard.pages import log_in, serving

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture
def server(tmp_path):
    app = make_app(tmp_path)
    with serving(app) as base:
        yield app, base
    app.extensions["guandan_venue"].close()


@pytest.fixture
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"Debian's chromium is needed at {CHROMIUM} (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield b
        b.close()


def test_referee_sees_violation_live_confirms_it_and_gets_the_sheet(server, browser, match_events):
    app, base = server
    live = app.extensions["guandan_venue"]
    for e in match_events[:3]:
        live.submit(e)
    page = browser.new_page(accept_downloads=True)
    log_in(page, base, "li", "pw-li")
    page.wait_for_url(base + "/")
    page.goto(base + "/tables/T01")
    page.wait_for_selector("#live-flag:not(.down)")
    assert page.locator("#feed li.violation").count() == 0

    # An out-of-turn play arrives from the table: it must show up without a reload.
    turn = live.snapshot("T01")["deal"]["turn"]
    wrong = {"S": "N", "E": "S", "N": "E", "W": "S"}[turn]
    live.submit({"t": match_events[2]["t"] + 1, "table": "T01", "type": "play", "seat": wrong,
                 "cards": ["BJ"], "source": "vision", "confidence": 0.97})
    item = page.wait_for_selector("#feed li.violation.open[data-code='out_of_turn_play']", timeout=5000)
    assert "BJ" in item.inner_html()
    item.query_selector("button.confirm").click()
    page.wait_for_selector("#feed li.violation.confirmed", timeout=5000)

    # The rest of the match is played: the score sheet gains its row and result.
    page.goto(base + "/sheets/T01")
    assert page.locator("#sheet tbody tr").count() == 0
    for e in match_events[3:]:
        live.submit(e)
    page.reload()
    assert page.locator("#sheet tbody tr").count() == 1
    assert page.locator("#result").count() == 1
    with page.expect_download() as dl:
        page.click("#pdf-link")
    pdf = dl.value.path()
    assert Path(pdf).read_bytes().startswith(b"%PDF")


def test_overview_updates_live_and_links_through(server, browser, match_events):
    app, base = server
    live = app.extensions["guandan_venue"]
    page = browser.new_page()
    page.goto(base + "/login")
    page.fill("#username", "head")
    page.fill("#password", "pw-head")
    page.click("#login-submit")
    page.wait_for_selector("#overview tbody tr[data-table='T02']")
    live.submit(dict(match_events[0], table="T02"))
    # expect() polls without eval, which the page's CSP (script-src 'self') refuses
    expect(page.locator("#overview tr[data-table='T02'] .deal")).to_have_text("1", timeout=5000)
    row = page.locator("#overview tr[data-table='T02']")
    assert row.locator("a", has_text="T02").get_attribute("href") == "/tables/T02"
    assert row.locator("a[href='/sheets/T02']").count() == 1
    row.locator("a", has_text="T02").click()
    page.wait_for_url(base + "/tables/T02")
    page.wait_for_selector("#turn:not(:empty)")


def _table_in_play(server, browser, match_events):
    """T01 three events into its match, its table page open live for its referee: (venue, page, seat on turn)."""
    app, base = server
    live = app.extensions["guandan_venue"]
    for e in match_events[:3]:
        live.submit(e)
    page = browser.new_page()
    log_in(page, base, "li", "pw-li")
    page.wait_for_url(base + "/")
    page.goto(base + "/tables/T01")
    page.wait_for_selector("#live-flag:not(.down)")
    return live, page, live.snapshot("T01")["deal"]["turn"]


def test_an_unread_play_is_asked_about_without_a_confirm_button_and_corrected(server, browser, match_events):
    # the camera saw something laid in the zone of the seat on turn that it
    # cannot read (vision.reading.laid): the referee types the cards laid
    live, page, turn = _table_in_play(server, browser, match_events)
    live.submit({"t": match_events[2]["t"] + 1, "table": "T01", "type": "play", "seat": turn, "cards": [],
                 "source": "vision", "confidence": 0.0, "zone": f"{turn}-play", "doubt": "unread",
                 "warning": "something new lies in the zone that the camera cannot read"})
    item = page.wait_for_selector("#feed li.confirm_request.open[data-code='low_confidence']", timeout=5000)
    assert "认不出" in item.inner_text() or "cannot read" in item.inner_text()
    assert item.query_selector("button.confirm") is None and item.query_selector("button.void") is not None
    ref = live.snapshot("T01")["events"]          # the log's length: the unread play is its last event
    page.fill("#manual-correct input[name=ref]", str(ref))
    page.fill("#manual-correct input[name=cards]", " ".join(match_events[3]["cards"]))   # what was laid
    page.click("#manual-correct button[type=submit]")
    # judged again from the log: the request is answered, the play counted and the turn moved on
    page.wait_for_selector("#feed li.confirm_request.open[data-code='low_confidence']", state="detached",
                           timeout=5000)
    assert live.snapshot("T01")["deal"]["turn"] != turn


def test_a_penalty_found_in_a_sure_camera_read_waits_for_the_referees_confirm(server, browser, match_events):
    # the camera is sure (0.99) of cards that make no combination: 出错牌, but held (camera_penalties)
    live, page, turn = _table_in_play(server, browser, match_events)
    live.submit({"t": match_events[2]["t"] + 1, "table": "T01", "type": "play", "seat": turn,
                 "cards": ["S3", "H5"], "source": "vision", "confidence": 0.99})
    item = page.wait_for_selector("#feed li.confirm_request.open[data-code='camera_penalty']", timeout=5000)
    assert "出错牌" in item.inner_text() or "illegal" in item.inner_text().lower()
    assert page.locator("#feed li.violation[data-code='illegal_play']").count() == 0
    # taken back meanwhile, so the turn stays: the next seat's play waits on that read too, and its
    # entry has no confirm of its own (the read's entry answers it)
    nxt = {"S": "E", "E": "N", "N": "W", "W": "S"}[turn]
    live.submit({"t": match_events[2]["t"] + 2, "table": "T01", "type": "play", "seat": nxt,
                 "cards": ["BJ"], "source": "manual"})
    waiting = page.wait_for_selector("#feed li.confirm_request.open[data-code='held_violation']", timeout=5000)
    assert waiting.query_selector("button.confirm") is None and waiting.query_selector("button.void") is not None
    # (the feed was drawn again: the read's entry found afresh) the cards on the table are the cards read
    page.click("#feed li.confirm_request.open[data-code='camera_penalty'] button.confirm")
    page.wait_for_selector("#feed li.violation[data-code='illegal_play']", timeout=5000)
    page.wait_for_selector("#feed li.violation[data-code='out_of_turn_play']", timeout=5000)
    for code in ("camera_penalty", "held_violation"):
        page.wait_for_selector(f"#feed li.confirm_request.open[data-code='{code}']", state="detached",
                               timeout=5000)


def _table_page_with(server, browser, events):
    """A referee's page of table T01, live, and ``events`` submitted to it."""
    app, base = server
    live = app.extensions["guandan_venue"]
    page = browser.new_page()
    log_in(page, base, "li", "pw-li")
    page.wait_for_url(base + "/")
    page.goto(base + "/tables/T01")
    page.wait_for_selector("#live-flag:not(.down)")
    for e in events:
        live.submit(e)
    return live, page


def _enter_count(page, live, item, count, then):
    """``count`` typed in the entry's box and entered: the violation ``then``
    is given, no count is asked any more, and the log holds that one count."""
    item.query_selector("input.count-hand").fill(str(count))
    item.query_selector("button.count").click()
    page.wait_for_selector(f"#feed li.violation[data-code='{then}']", timeout=5000)
    page.wait_for_selector("#feed li.confirm_request.open[data-code='camera_count']", state="detached",
                           timeout=5000)
    assert [e.get("count") for e in live.events("T01") if e.get("action") == "count"] == [count]


def test_a_report_fault_on_the_cameras_count_waits_for_the_referee_to_count_the_hand(server, browser):
    from tests.dashboard.test_routes import camera_count_events
    # S reports 4, the camera's reads leave it 3
    live, page = _table_page_with(server, browser, camera_count_events())
    item = page.wait_for_selector("#feed li.confirm_request.open[data-code='camera_count']", timeout=5000)
    assert item.query_selector("button.confirm") is None         # confirming a report says nothing
    assert len(item.query_selector_all("button.confirm-read")) == 3      # but its three reads, one by one
    box = item.query_selector("input.count-hand")
    assert box.input_value() == "3"                               # the count the reads leave, to check
    _enter_count(page, live, item, 3, "wrong_report")             # the referee counted S's three cards


def test_a_play_before_a_seat_that_may_be_out_waits_and_a_count_of_none_puts_it_out(server, browser):
    from tests.dashboard.test_routes import turn_in_doubt_events
    # S's three bombs read, unreported; E leads before S
    live, page = _table_page_with(server, browser, turn_in_doubt_events())
    # two entries wait on S's count: its missing report, and E's play before it
    expect(page.locator("#feed li.confirm_request.open[data-code='camera_count']")).to_have_count(2, timeout=5000)
    assert page.locator("#feed li.violation").count() == 0
    item = page.query_selector("#feed li.confirm_request.open[data-code='camera_count']")
    box = item.query_selector("input.count-hand")
    assert box.input_value() == "3" and box.get_attribute("min") == "0"
    # S holds none: it went out with its third bomb; then N leads by 接风, and E's lead was out of turn
    _enter_count(page, live, item, 0, "out_of_turn_play")


def test_the_camera_checks_page_shows_what_the_referees_found(server, browser):
    """Camera reads asked about and answered: the page counts them per table and for the venue."""
    app, base = server
    live = app.extensions["guandan_venue"]
    t = 5.0
    reads = []
    for k, (table, conf) in enumerate((("T01", 0.55), ("T01", 0.62), ("T01", 0.97), ("T02", 0.4))):
        live.submit({"t": t + 1 + k, "table": table, "type": "play", "seat": "S", "cards": ["H3"],
                     "source": "vision", "confidence": conf, "raw_confidence": conf + 0.1})
        reads.append((table, len(live.events(table))))
    # T01's first read is corrected to other cards, its second confirmed; T02's is voided
    live.submit({"t": t + 9, "table": "T01", "type": "referee", "action": "correct", "ref": reads[0][1],
                 "event": {"cards": ["H3", "D3"]}})
    live.submit({"t": t + 9, "table": "T01", "type": "referee", "action": "confirm", "ref": reads[1][1]})
    live.submit({"t": t + 9, "table": "T02", "type": "referee", "action": "void", "ref": reads[3][1]})
    page = browser.new_page()
    log_in(page, base, "head", "pw-head")
    page.wait_for_url(base + "/")
    page.click("nav.top a[href='/cameras']")
    t01 = page.locator("#camera-checks tr[data-table='T01']")
    expect(t01.locator(".reads")).to_have_text("3")
    expect(t01.locator(".asked")).to_have_text("2")
    expect(t01.locator(".answered-wrong")).to_have_text("50.0% (1/2)")
    expect(page.locator("#camera-checks tr[data-table='T02'] .answered-wrong")).to_have_text("100.0% (1/1)")
    venue = page.locator("#camera-checks tfoot tr")
    expect(venue.locator(".reads")).to_have_text("4")
    expect(venue.locator(".answered-wrong")).to_have_text("66.7% (2/3)")
    expect(venue.locator(".fit-reads")).to_have_text("3")
