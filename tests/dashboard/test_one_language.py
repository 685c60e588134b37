"""The referee's screen in one language, in a real browser (Debian's chromium).

A referee logs in and walks every page (login, overview, a table with open
violations, confirm requests and decisions, the score sheet, the standings)
in Chinese; any English word in the visible text fails the test, save the
allow-list of tests/dashboard/visible_text.py (seat letters, sides, card
codes, numbers and units, PDF/CSV, the language switch and the names this
test chose). Then the switch gives the same pages in English.
"""

from __future__ import annotations

import base64
import re

import cv2
import numpy as np
import pytest
from playwright.sync_api import expect

from tests.dashboard.pages import log_in
from tests.dashboard.test_browser import browser, server  # noqa: F401  (fixtures)
from tests.dashboard.test_messages import _faulty_match
from tests.dashboard.visible_text import english_words

# what the test chose: its tables, users, teams (T02's from the app's MATCHES) and a device
NAMES = ("T01", "T02", "li", "Green", "Gold", "P01")
TEAMS = {"NS": "南京队", "EW": "苏州队"}
PLAYERS = {"N": "张伟", "S": "李娜", "E": "王芳", "W": "刘洋"}


def _crop() -> str:
    """A small picture, as a camera event's zone crop (a data URL)."""
    img = np.full((60, 90, 3), 240, np.uint8)
    cv2.rectangle(img, (20, 10), (60, 50), (40, 40, 200), -1)
    ok, png = cv2.imencode(".png", img)
    assert ok
    return "data:image/png;base64," + base64.b64encode(png.tobytes()).decode()


def _play_the_match(live) -> None:
    """A settings event naming the teams and players, then a whole two-deal match with
    every scripted fault (open violations, confirm requests, penalties), a camera read
    to confirm with its picture, and a device gone silent."""
    table, _ = _faulty_match(1)
    live.submit({"t": 0.0, "table": "T01", "type": "settings",
                 "settings": {"match_format": "deals", "deals": 2}, "teams": TEAMS,
                 "players": PLAYERS, "captains": {"NS": "李娜", "EW": "王芳"}})
    crop = _crop()
    for e in table.log:
        d = {k: v for k, v in e.to_dict().items() if k != "id"}
        d["table"] = "T01"
        if "ref" in d:
            d["ref"] += 1             # the settings event comes first here
        if d["type"] in ("play", "tribute") and d.get("source") == "vision":
            d["crop"] = crop
        if d["type"] == "play" and d["t"] >= 9003.0:
            d["crop"] = crop          # the low-confidence read at the end
        live.submit(d)


def _login(page, base: str) -> None:
    log_in(page, base, "li", "pw-li")
    page.wait_for_url(base + "/")


def _no_english(page, where: str) -> None:
    text = page.inner_text("body")
    assert english_words(text, NAMES + tuple(TEAMS.values())) == [], (where, text)


def test_every_referee_page_is_in_chinese(server, browser):  # noqa: F811
    app, base = server
    live = app.extensions["guandan_venue"]
    _play_the_match(live)
    page = browser.new_page()

    page.goto(base + "/login")
    expect(page.locator("#login-submit")).to_be_visible()
    _no_english(page, "login")
    page.fill("#username", "li")
    page.fill("#password", "wrong")
    page.click("#login-submit")
    expect(page.locator("#login-error")).to_be_visible()
    _no_english(page, "login refused")
    _login(page, base)

    expect(page.locator("#overview tbody tr")).to_have_count(2)
    expect(page.locator("#live-flag:not(.down)")).to_be_visible()
    _no_english(page, "overview")
    row = page.locator("#overview tr[data-table='T01']")
    expect(row.locator(".turn")).to_have_text("")                    # the match is over
    expect(row.locator(".levels")).to_contain_text(TEAMS["NS"])

    page.goto(base + "/tables/T01")
    expect(page.locator("#live-flag:not(.down)")).to_be_visible()
    expect(page.locator("#feed li.violation.open").first).to_be_visible()
    for kind in ("li.violation", "li.confirm_request", "li.penalty", "li.device_offline"):
        expect(page.locator(f"#feed {kind}").first).to_be_visible()
    _no_english(page, "table")
    # nothing shown as a live turn once the match is over
    expect(page.locator("#phase")).to_have_text("比赛结束")
    expect(page.locator("#turn")).to_have_text("—")
    expect(page.locator(".seat.to-act")).to_have_count(0)
    # the rule's own words and clause; evidence in words, the tribute's card drawn
    overtime = page.locator("#feed li.violation[data-code='overtime']")
    expect(overtime.locator("code")).to_have_text("出牌/贡还牌超时 §七(一)5")
    expect(overtime.locator(".status")).to_have_text("待处理")
    expect(overtime.locator(".evidence")).to_contain_text(re.compile(r"#\d+ (过牌|出牌|计时) "))
    tribute = page.locator("#feed li.violation[data-code='wrong_tribute']")
    expect(tribute.locator(".ev[data-type='tribute'] .card")).to_have_count(1)
    expect(page.locator("#team-NS")).to_have_text(TEAMS["NS"])

    # an evidence picture enlarges on click and closes with Escape
    crop = page.locator("#feed img.crop").first
    crop.scroll_into_view_if_needed()
    small = crop.bounding_box()
    crop.click()
    big = page.locator("#lightbox img")
    expect(page.locator("#lightbox")).to_be_visible()
    assert big.bounding_box()["width"] >= 4 * small["width"]
    page.keyboard.press("Escape")
    expect(page.locator("#lightbox")).to_be_hidden()

    # signing: the form offers the side's registered players and captain only
    options = page.locator("#sign-NS select[name=name] option")
    expect(options).to_have_text(["张伟", "李娜"])
    page.select_option("#sign-NS select[name=name]", "李娜")
    page.click("#sign-NS button[type=submit]")
    expect(page.locator("#action-error")).to_have_text("")

    page.goto(base + "/sheets/T01")
    expect(page.locator("#signatures")).to_contain_text("李娜")
    expect(page.locator("#teams")).to_contain_text(TEAMS["EW"])
    expect(page.locator("#result")).to_be_visible()
    _no_english(page, "score sheet")

    page.goto(base + "/standings")
    expect(page.locator("#standings tbody tr")).to_have_count(2)
    expect(page.locator("#standings")).to_contain_text(TEAMS["NS"])
    _no_english(page, "standings")

    page.click("nav.top a[href='/cameras']")
    expect(page.locator("#camera-checks tbody tr")).to_have_count(2)
    _no_english(page, "camera checks")


def test_the_english_switch_gives_english(server, browser):  # noqa: F811
    app, base = server
    live = app.extensions["guandan_venue"]
    _play_the_match(live)
    page = browser.new_page()
    _login(page, base)
    page.goto(base + "/tables/T01")
    expect(page.locator("#feed li.violation").first).to_be_visible()
    page.click("#lang-switch")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("#feed li.violation").first).to_be_visible()
    overtime = page.locator("#feed li.violation[data-code='overtime']")
    expect(overtime.locator("code")).to_have_text("Overtime §七(一)5")
    expect(overtime.locator(".status")).to_have_text("open")
    expect(overtime.locator(".message")).to_contain_text("still had not acted after the play limit")
    expect(overtime.locator(".evidence")).to_contain_text(re.compile(r"#\d+ (Pass|Play|Clock tick) "))
    expect(page.locator("#phase")).to_have_text("Match over")
    # the messages hold no Chinese (the record's words are translated, not mixed),
    # save the reason the referee typed for a ruling (shown as typed)
    expect(page.locator("#feed li[data-code='signalling'] .message")).to_have_text("S: 举手示意")
    for text in page.locator("#feed li:not([data-code='signalling']) .message").all_inner_texts():
        assert not re.search(r"[\u4e00-\u9fff]", text), text
    page.goto(base + "/sheets/T01")
    expect(page.locator("#sheet-head")).to_contain_text("2 deals")
    expect(page.locator("#result")).to_contain_text("deals played")
    page.goto(base + "/login")
    expect(page.locator("h1")).to_have_text("Log in")


@pytest.mark.parametrize("text,words", [
    ("南北 S3 BJ H10 20s 0.97 PDF English T01", []),
    ("待处理 open #57 tick manual", ["open", "tick", "manual"]),
    ("li English lime", ["lime"]),                 # a chosen name excuses itself only
])
def test_the_allow_list_lets_notation_through_and_catches_words(text, words):
    assert english_words(text, ("T01", "li")) == words
