"""The broadcast overlay in chromium at 1920×1080, as an OBS browser source
draws it: screenshots with a transparent background, every element where it
belongs, live from the stream."""

import re
from contextlib import ExitStack
from pathlib import Path

import cv2
import numpy as np
import pytest
from playwright.sync_api import expect

from tests.dashboard.conftest import make_app
from tests.dashboard.pages import serving
from tests.dashboard.test_browser import ARTIFACTS, browser  # noqa: F401 (a fixture)
from tests.dashboard.test_overlay import PLAYERS, TEAMS, scripted
from tests.dashboard.test_security_browser import _csp_errors

W, H = 1920, 1080
MID = 61     # the scripted match mid-deal: cards on the table, counts reported, a clock running


@pytest.fixture
def serve(tmp_path):
    """``serve(**config)``: an app on a real server; returns (app, live, base URL)."""
    with ExitStack() as stack:
        def start(**config):
            app = make_app(tmp_path, **config)
            stack.callback(app.extensions["guandan_venue"].close)
            return app, app.extensions["guandan_venue"], stack.enter_context(serving(app))
        yield start


@pytest.fixture
def page(browser):  # noqa: F811 (the imported fixture)
    p = browser.new_page(viewport={"width": W, "height": H})
    yield p
    p.close()


def open_overlay(page, base, live, query=""):
    page.goto(f"{base}/overlay/T01{query}")
    expect(page.locator("body")).to_have_attribute("data-version", str(live.version("T01")))


def box(locator):
    b = locator.bounding_box()
    assert b is not None, locator
    return b


def overlaps(a, b):
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def inside_frame(b):
    return b["x"] >= 0 and b["y"] >= 0 and b["x"] + b["width"] <= W and b["y"] + b["height"] <= H


def screenshot(page, tmp_path, name):
    """A 1080p screenshot with a transparent background, kept under the test's
    tmp dir and test-artifacts/; returns the image (height × width × BGRA)."""
    png = page.screenshot(omit_background=True)
    (tmp_path / name).write_bytes(png)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / name).write_bytes(png)
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_UNCHANGED)
    assert img.shape == (H, W, 4)
    return img


def test_mid_deal_at_1080p(serve, page, tmp_path):
    app, live, base = serve()
    events = scripted()
    for e in events[:MID]:
        live.submit(e)
    open_overlay(page, base, live)
    snap = live.snapshot("T01")
    for name in [*TEAMS.values(), *PLAYERS.values()]:
        expect(page.get_by_text(name, exact=True)).to_be_visible()
    expect(page.locator("#ov-level-NS")).to_have_text(snap["levels"]["NS"])
    expect(page.locator("#ov-level-EW")).to_have_text(snap["levels"]["EW"])
    expect(page.locator("#ov-deal")).to_contain_text("第 1 副")
    # whose turn, with the clock running down (seat name, m:ss)
    turn = snap["deal"]["turn"]
    seat_zh = {"S": "南", "E": "东", "N": "北", "W": "西"}[turn]
    expect(page.locator("#ov-turn")).to_have_text(re.compile(rf"^{seat_zh} (读秒 )?\d:\d\d$"))
    expect(page.locator(f"#ov-seat-{turn}")).to_have_class(re.compile(r"\bto-act\b"))
    # each seat's last play as cards: the very cards of the trick
    trick = snap["deal"]["trick"]
    shown = 0
    for seat in "SENW":
        plays = [p for p in trick if p["seat"] == seat]
        cards = page.locator(f"#ov-play-{seat} .ov-card")
        if plays and not plays[-1].get("pass"):
            want = plays[-1]["cards"]
            expect(cards).to_have_count(len(want))
            assert [cards.nth(i).get_attribute("data-card") for i in range(len(want))] == want
            expect(cards.first).to_be_visible()
            shown += 1
        else:
            expect(cards).to_have_count(0)
    assert shown
    # cards left as the seats reported them
    reports = {}
    for e in events[:MID]:
        if e["type"] == "report":
            reports[e["seat"]] = e["count"]
    for seat, count in reports.items():
        expect(page.locator(f"#ov-left-{seat}")).to_have_text(f"剩 {count} 张")

    img = screenshot(page, tmp_path, "overlay-1080p.png")
    # transparent where nothing is drawn, opaque where a panel is
    assert img[0, 0, 3] == 0 and img[0, W - 1, 3] == 0
    b = box(page.locator("#ov-team-NS"))
    assert img[int(b["y"] + b["height"] / 2), int(b["x"] + b["width"] / 2), 3] > 150
    # nothing overlaps: a seat's label and its first card, the panels, the score bar
    for seat in "SENW":
        first = page.locator(f"#ov-play-{seat} .ov-card").first
        if first.count():
            assert not overlaps(box(page.locator(f"#ov-seat-{seat} .ov-seat-label")), box(first)), seat
    panels = [box(page.locator(f"#ov-seat-{s}")) for s in "SENW"] + [box(page.locator("#ov-score"))]
    assert all(inside_frame(p) for p in panels)
    assert not any(overlaps(a, b) for i, a in enumerate(panels) for b in panels[i + 1:])


def test_jokers_passes_and_the_wild_card_are_drawn(serve, page, tmp_path):
    app, live, base = serve()
    live.submit(scripted()[0])
    live.submit({"t": 1.0, "table": "T01", "type": "deal_start", "deal": 1, "level": "2", "leader": "S"})
    live.submit({"t": 2.0, "table": "T01", "type": "play", "seat": "S", "cards": ["BJ", "BJ", "LJ", "LJ"]})
    live.submit({"t": 3.0, "table": "T01", "type": "pass", "seat": "E"})
    open_overlay(page, base, live)
    jokers = page.locator("#ov-play-S .ov-card.joker")
    expect(jokers).to_have_count(4)
    expect(jokers.first).to_have_class(re.compile(r"\bred\b"))
    expect(jokers.last).to_have_class(re.compile(r"\bblack\b"))
    expect(jokers.first).to_contain_text("JOKER")
    expect(page.locator("#ov-play-E .ov-pass")).to_have_text("过")
    screenshot(page, tmp_path, "overlay-jokers.png")
    # everyone passes, S leads a pair of 3s made with the heart 2 (the level's wild card)
    live.submit({"t": 4.0, "table": "T01", "type": "pass", "seat": "N"})
    live.submit({"t": 5.0, "table": "T01", "type": "pass", "seat": "W"})
    live.submit({"t": 6.0, "table": "T01", "type": "play", "seat": "S", "cards": ["H2", "S3"]})
    expect(page.locator("body")).to_have_attribute("data-version", str(live.version("T01")))
    cards = page.locator("#ov-play-S .ov-card")
    expect(cards).to_have_count(2)
    expect(cards.first).to_have_class(re.compile(r"\bwild\b"))
    expect(cards.last).not_to_have_class(re.compile(r"\bwild\b"))
    expect(cards.last).to_contain_text("3")


@pytest.mark.parametrize("layout", ["bottom", "top", "corners"])
def test_layouts(serve, page, tmp_path, layout):
    app, live, base = serve()
    for e in scripted()[:MID]:
        live.submit(e)
    open_overlay(page, base, live, f"?layout={layout}")
    expect(page.locator("body")).to_have_class(re.compile(rf"\blayout-{layout}\b"))
    screenshot(page, tmp_path, f"overlay-{layout}.png")
    score = box(page.locator("#ov-score"))
    seats = {s: box(page.locator(f"#ov-seat-{s}")) for s in "SENW"}
    centre = lambda b: (b["x"] + b["width"] / 2, b["y"] + b["height"] / 2)  # noqa: E731
    if layout == "bottom":
        assert centre(score)[1] > H * 0.85 and all(H / 2 < centre(b)[1] < score["y"] for b in seats.values())
    elif layout == "top":
        assert centre(score)[1] < H * 0.15 and all(score["y"] < centre(b)[1] < H / 2 for b in seats.values())
    else:
        quadrant = {s: (centre(b)[0] > W / 2, centre(b)[1] > H / 2) for s, b in seats.items()}
        assert quadrant == {"N": (False, False), "E": (True, False), "S": (True, True), "W": (False, True)}
    panels = [*seats.values(), score]
    assert all(inside_frame(p) for p in panels)
    assert not any(overlaps(a, b) for i, a in enumerate(panels) for b in panels[i + 1:])


def test_show_scale_theme_and_language(serve, page, tmp_path):
    themes = tmp_path / "themes"
    themes.mkdir()
    (themes / "club.css").write_text(":root { --ov-panel-bg: rgb(1, 2, 3); --ov-accent: rgb(0, 200, 0); }\n")
    app, live, base = serve(OVERLAY_THEMES=str(themes))
    for e in scripted()[:MID]:
        live.submit(e)
    errors = _csp_errors(page)
    open_overlay(page, base, live, "?show=teams,clock,cards&scale=1.5&theme=club&lang=en")
    expect(page.locator("body")).to_have_css("font-size", "30px")
    expect(page.locator(".ov-team").first).to_have_css("background-color", "rgb(1, 2, 3)")
    expect(page.locator("#ov-turn")).to_have_css("color", "rgb(0, 200, 0)")
    expect(page.locator("#ov-team-NS")).to_have_text(TEAMS["NS"])
    expect(page.locator("#ov-seat-S .ov-seat-label")).to_have_text("South")
    for hidden in ["#ov-level-NS", "#ov-deal", "#ov-player-S", "#ov-left-S"]:
        expect(page.locator(hidden)).to_be_hidden()
    expect(page.locator(".ov-card").first).to_be_visible()
    screenshot(page, tmp_path, "overlay-themed.png")
    assert errors == []     # the theme, the scale and the script all run under the CSP


def test_a_bad_parameter_is_a_clear_400(serve, page):
    app, live, base = serve()
    r = page.goto(f"{base}/overlay/T01?layout=sideways")
    assert r.status == 400
    expect(page.locator("body")).to_contain_text("'layout' must be one of bottom, top, corners")


def test_ruling_banner_comes_with_the_confirmation_and_goes_with_table_time(serve, page, tmp_path):
    app, live, base = serve()
    events = scripted(faults=("overtime",))
    i = 0
    while not any(d["type"] == "violation" for d in live.submit(events[i])):
        i += 1
    open_overlay(page, base, live)
    banner = page.locator("#ov-ruling")
    expect(banner).to_be_hidden()      # an open violation is not a ruling yet
    violation = [d for d in live.decisions("T01") if d["type"] == "violation"][-1]
    t = live.last_time("T01")
    live.submit({"t": t, "table": "T01", "type": "referee", "action": "confirm",
                 "ref": violation["events"][-1], "source": "manual"})
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("出牌/贡还牌超时")
    expect(banner).to_contain_text("警告")
    expect(banner).to_contain_text(TEAMS[violation["side"]])
    screenshot(page, tmp_path, "overlay-ruling.png")
    assert not overlaps(box(banner), box(page.locator("#ov-seats")))
    # table time passes the banner's end (20 s): the next state has no ruling
    live.submit({"t": t + 20.0, "table": "T01", "type": "tick"})
    expect(page.locator("body")).to_have_attribute("data-version", str(live.version("T01")))
    expect(banner).to_be_hidden()


def test_after_the_match_the_result_and_no_turn(serve, page, tmp_path):
    app, live, base = serve()
    events = scripted()
    for e in events[:MID]:
        live.submit(e)
    open_overlay(page, base, live)
    expect(page.locator(".ov-seat.to-act")).to_have_count(1)
    for e in events[MID:]:
        live.submit(e)
    expect(page.locator("body")).to_have_attribute("data-phase", "match_over")
    winner = live.snapshot("T01")["score_sheet"]["result"]["winner"]
    expect(page.locator("#ov-result")).to_be_visible()
    expect(page.locator("#ov-result")).to_contain_text(f"{TEAMS[winner]} 获胜")
    expect(page.locator("#ov-turn")).to_have_text("")
    expect(page.locator(".ov-seat.to-act")).to_have_count(0)
    screenshot(page, tmp_path, "overlay-result.png")
    text = page.inner_text("body")     # what the stream shows: no referee-only facts
    assert "违规" not in text and "处罚" not in text


def test_delay_holds_the_latest_events_back(serve, page):
    """With a broadcast delay the page shows the table as it was: an event
    reaches it no sooner than the delay after it happened."""
    import time

    app, live, base = serve(OVERLAY_DELAY=1.0)
    events = scripted()
    for e in events[:MID]:
        live.submit(e)
    t0 = time.monotonic()
    page.goto(f"{base}/overlay/T01")
    expect(page.locator("body")).to_have_attribute("data-version", str(MID))
    assert time.monotonic() - t0 >= 1.0
    t1 = time.monotonic()
    live.submit(events[MID])
    expect(page.locator("body")).to_have_attribute("data-version", str(MID + 1))
    assert time.monotonic() - t1 >= 1.0
    # the page cannot be asked for less
    r = page.goto(f"{base}/overlay/T01?delay=0")
    assert r.status == 200 and page.get_attribute("body", "data-delay") == "1"


def test_overlay_page_allows_framing_and_no_inline_script(serve):
    app, live, base = serve()
    r = app.test_client().get("/overlay/T01")
    assert "frame-ancestors *" in r.headers["Content-Security-Policy"]
    assert "<script>" not in r.get_data(as_text=True)
    assert Path(app.static_folder, "overlay.js").is_file()


def test_the_clock_turns_to_the_countdown_past_the_limit(serve, page):
    app, live, base = serve()
    for e in scripted()[:MID]:
        live.submit(e)
    open_overlay(page, base, live)
    turn = page.locator("#ov-turn")
    expect(turn).not_to_have_class(re.compile(r"\bcounting\b"))
    clock = app.test_client().get("/overlay/T01/state.json").get_json()["clock"]
    # table time passes the limit (the log's 15 s countdown runs): 读秒, in its colour
    live.submit({"t": clock["deadline"] + 1.0, "table": "T01", "type": "tick"})
    expect(page.locator("body")).to_have_attribute("data-version", str(live.version("T01")))
    expect(turn).to_have_class(re.compile(r"\bcounting\b"))
    seat_zh = {"S": "南", "E": "东", "N": "北", "W": "西"}[clock["seat"]]
    expect(turn).to_have_text(re.compile(rf"^{seat_zh} 读秒 0:\d\d$"))


def test_in_tribute_the_clock_names_who_is_to_act(serve, page):
    from referee.settings import Settings
    from referee.simulation import simulate_match

    app, live, base = serve(SETTINGS={"match_format": "deals", "deals": 2})
    events = [dict(e, table="T01") for e in simulate_match(seed=3, settings=Settings.parse_format("deals:2"))]
    second = next(i for i, e in enumerate(events) if e["type"] == "deal_start" and e["deal"] == 2)
    for e in events[:second + 1]:
        live.submit(e)
    open_overlay(page, base, live)
    expect(page.locator("body")).to_have_attribute("data-phase", "tribute")
    state = app.test_client().get("/overlay/T01/state.json").get_json()
    seat = state["clock"]["seat"]
    assert state["turn"] is None and state["clock"]["purpose"] == "tribute"
    expect(page.locator(".ov-seat.to-act")).to_have_count(1)
    expect(page.locator(f"#ov-seat-{seat}")).to_have_class(re.compile(r"\bto-act\b"))
    expect(page.locator("#ov-turn")).to_have_attribute("data-seat", seat)
    expect(page.locator("#ov-deal")).to_contain_text("第 2 副")
