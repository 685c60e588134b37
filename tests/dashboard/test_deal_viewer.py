"""The deal viewer page: who may see it when, what it shows, and stepping
through the demo's scripted deal in chromium."""

from __future__ import annotations


from dataclasses import replace

import pytest

from table_node.demo import make_script
from tests.dashboard.conftest import login, make_app
from tests.dashboard.pages import serving

SCRIPT = make_script(seed=3)
# the script's cards taken as laid: its penalties given at once (no referee here to confirm the camera's reads)
SETTINGS = {"t": 0.0, "table": "T01", "type": "settings",
            "settings": replace(SCRIPT.settings, camera_penalties="direct").to_dict(),
            "teams": {"NS": "Nanjing", "EW": "Suzhou"}}
# the demo's first deal ends with its 146th event (N goes out as the third)
DEAL1 = [SETTINGS, *SCRIPT.events[:146]]


def _end_of_deal(live, number):
    return next(d for d in live.decisions("T01") if d["type"] == "deal_end" and d["deal"] == number)


def _app(tmp_path, **config):
    app = make_app(tmp_path, **config)
    return app, app.extensions["guandan_venue"]


def test_public_sees_a_deal_only_after_it_ended_and_the_delay_passed(tmp_path):
    app, live = _app(tmp_path, OVERLAY_DELAY=30)
    try:
        for e in DEAL1[:100]:
            live.submit(e)
        c = app.test_client()
        r = c.get("/tables/T01/deals/1")
        assert r.status_code == 403 and 'id="not-public"' in r.get_data(as_text=True)
        assert "♠" not in r.get_data(as_text=True)           # no card of the deal leaks
        for e in DEAL1[100:]:
            live.submit(e)
        end = _end_of_deal(live, 1)["t"]
        r = c.get("/tables/T01/deals/1")                    # ended, but inside the broadcast delay
        assert r.status_code == 403 and "30" in r.get_data(as_text=True)
        live.submit({"t": end + 29, "table": "T01", "type": "tick"})
        assert c.get("/tables/T01/deals/1").status_code == 403
        live.submit({"t": end + 31, "table": "T01", "type": "tick"})
        r = c.get("/tables/T01/deals/1")
        assert r.status_code == 200
        html = r.get_data(as_text=True)
        assert 'id="trick-3"' in html and 'data-code="illegal_play"' in html
    finally:
        live.close()


def test_without_a_delay_the_deal_is_public_once_it_ended(tmp_path):
    app, live = _app(tmp_path)
    try:
        for e in DEAL1[:-1]:
            live.submit(e)
        c = app.test_client()
        assert c.get("/tables/T01/deals/1").status_code == 403
        live.submit(DEAL1[-1])
        assert c.get("/tables/T01/deals/1").status_code == 200
        assert c.get("/tables/T01/deals/2").status_code == 404
        assert c.get("/tables/T09/deals/1").status_code == 404
    finally:
        live.close()


def test_the_deal_record_download_waits_for_the_matchs_end(tmp_path):
    from services.deal_files import parse_record
    app, live = _app(tmp_path)
    try:
        for e in [SETTINGS, *SCRIPT.events[:200]]:
            live.submit(e)
        c = app.test_client()
        assert c.get("/tables/T01/record.json").status_code == 403     # deal 2 is in play
        li = app.test_client()
        login(li, "li", "pw-li")
        assert li.get("/tables/T01/record.json").status_code == 200
        for e in SCRIPT.events[200:]:
            live.submit(e)
        r = c.get("/tables/T01/record.json")
        assert r.status_code == 200 and "deal-record-T01.json" in r.headers["Content-Disposition"]
        record = parse_record(r.get_data(), "download")            # a valid record, deals as replayed
        assert [d["deal"] for d in record.data["deals"]] == [1, 2]
        assert 'href="/tables/T01/record.json"' in c.get("/tables/T01/deals/1").get_data(as_text=True)
    finally:
        live.close()


def test_the_tables_referee_sees_the_deal_in_play_others_do_not(tmp_path):
    app, live = _app(tmp_path, OVERLAY_DELAY=30)
    try:
        for e in DEAL1[:60]:
            live.submit(e)
        li = app.test_client()
        login(li, "li", "pw-li")
        r = li.get("/tables/T01/deals/1")
        assert r.status_code == 200 and 'data-code="overtime"' in r.get_data(as_text=True)
        wang = app.test_client()
        login(wang, "wang", "pw-wang")                         # a referee of another table
        assert wang.get("/tables/T01/deals/1").status_code == 403
        # the table page and the score sheet link to the deal
        assert 'href="/tables/T01/deals/1"' in li.get("/tables/T01").get_data(as_text=True)
        for e in DEAL1[60:]:
            live.submit(e)
        assert 'href="/tables/T01/deals/1"' in li.get("/sheets/T01").get_data(as_text=True)
    finally:
        live.close()


def test_page_in_chinese_and_english(tmp_path):
    app, live = _app(tmp_path)
    try:
        for e in [*DEAL1, *SCRIPT.events[146:160]]:
            live.submit(e)
        c = app.test_client()
        zh = c.get("/tables/T01/deals/1").get_data(as_text=True)
        assert "第 3 轮" in zh and "出错牌, §七(二)3" in zh and "违例" in zh and "手牌还原" in zh
        assert "does not beat" not in zh                        # the English message only in English
        c.set_cookie("lang", "en")
        en = c.get("/tables/T01/deals/1").get_data(as_text=True)
        assert "Trick 3" in en and "does not beat" in en and "Hands reconstructed" in en
        # every text through the catalogue: a key it lacks would show as itself
        for page in (zh, en):
            assert "dv_" not in page.replace('"dv_', "")   # the script's catalogue block names keys
        assert c.get("/tables/T01/deals/2").status_code == 403      # in play: not public
        login(c, "li", "pw-li")                                     # the table's referee
        for lang, words in (("zh", ("进贡与还贡", "贡错牌", "大王")), ("en", ("Tribute and return", "Big joker"))):
            c.set_cookie("lang", lang)
            page = c.get("/tables/T01/deals/2").get_data(as_text=True)
            assert all(w in page for w in words) and "dv_" not in page.replace('"dv_', "")
    finally:
        live.close()


def test_the_demo_names_each_deals_page_at_the_end():
    import io
    from table_node.demo import _finish, _Violations
    found = _Violations()
    for d in [{"type": "deal_end", "deal": 1}, {"type": "violation", "code": "overtime"},
              {"type": "deal_end", "deal": 2}, {"type": "deal_end", "deal": 2}]:
        found(d)
    out = io.StringIO()
    _finish(found, "http://127.0.0.1:8000/", False, out)
    assert out.getvalue().splitlines()[-1] == ("demo: each deal trick by trick, its rulings in place: "
                                               "http://127.0.0.1:8000/tables/T01/deals/1 "
                                               "http://127.0.0.1:8000/tables/T01/deals/2")


# ---------------------------------------------------------------- in chromium
pytest.importorskip("playwright.sync_api")
from playwright.sync_api import expect  # noqa: E402

from tests.dashboard.test_browser import ARTIFACTS, browser  # noqa: E402,F401  (the chromium fixture)


@pytest.fixture
def demo_server(tmp_path):
    app, live = _app(tmp_path)
    for e in [SETTINGS, *SCRIPT.events]:
        live.submit(e)
    with serving(app) as base:
        yield base
    live.close()


def test_browser_steps_through_the_demo_deal_to_its_rulings(demo_server, browser):  # noqa: F811
    page = browser.new_page()
    problems = []
    # a script error or a CSP refusal (the browser's own favicon request may 404)
    page.on("console", lambda m: problems.append(m.text)
            if m.type == "error" and "favicon" not in (m.location or {}).get("url", "") else None)
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.goto(demo_server + "/tables/T01/deals/1")          # public: the match is over
    first = page.locator("#trick-1")
    expect(first).to_be_visible()
    expect(page.locator("#trick-2")).to_be_hidden()
    expect(page.locator("#step-prev")).to_be_disabled()
    # trick 1: the overtime, before S's late pass
    expect(first.locator("li.ruling.violation[data-code='overtime']")).to_be_visible()
    page.click("#step-next")
    expect(page.locator("#trick-2")).to_be_visible()
    expect(page.locator("#trick-1")).to_be_hidden()
    page.keyboard.press("ArrowRight")
    third = page.locator("#trick-3")
    expect(third).to_be_visible()
    expect(page).to_have_url(demo_server + "/tables/T01/deals/1#trick-3")
    ruling = third.locator("ol.steps li.ruling.violation[data-code='illegal_play']")
    expect(ruling).to_be_visible()
    expect(ruling).to_contain_text("出错牌")
    # the play taken back, right before it, by W
    expect(third.locator("ol.steps li").nth(_index_before(third, "illegal_play"))).to_have_attribute(
        "class", "action play not-counted")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#trick-2")).to_be_visible()
    expect(page.locator("#step-label")).to_contain_text("第 2 轮")

    # a link to a trick opens that trick: the missing report of trick 5
    page.goto(demo_server + "/tables/T01/deals/1#trick-5")
    expect(page.locator("#trick-5 li.ruling.violation[data-code='missing_report']")).to_be_visible()
    expect(page.locator("#trick-3")).to_be_hidden()
    # the last stage: the result and the four hands
    page.click(".stage-index a[href='#hands']")
    expect(page.locator("#hands-table tr")).to_have_count(4)
    expect(page.locator("#step-next")).to_be_disabled()

    # deal 2: its tribute stage first, with the wrong tribute
    page.goto(demo_server + "/tables/T01/deals/2")
    expect(page.locator("#tribute li.ruling[data-code='wrong_tribute']")).to_be_visible()
    # printed, every stage shows
    page.emulate_media(media="print")
    expect(page.locator("#trick-2")).to_be_visible()
    expect(page.locator("#stepper")).to_be_hidden()
    assert problems == []
    if ARTIFACTS.parent.exists():
        ARTIFACTS.mkdir(exist_ok=True)
        page.emulate_media(media="screen")
        page.goto(demo_server + "/tables/T01/deals/1#trick-3")
        page.screenshot(path=str(ARTIFACTS / "deal-viewer.png"), full_page=True)


def _index_before(stage, code: str) -> int:
    items = stage.locator("ol.steps > li")
    codes = [items.nth(i).get_attribute("data-code") for i in range(items.count())]
    return codes.index(code) - 1


def test_a_referees_count_of_a_hand_shows_where_it_was_made(tmp_path):
    from tests.dashboard.test_routes import camera_count_events
    app, live = _app(tmp_path)
    try:
        events = camera_count_events()
        for e in events:
            live.submit(e)
        live.submit({"t": 99.0, "table": "T01", "type": "referee", "action": "count", "ref": len(events),
                     "seat": "S", "count": 3})
        c = app.test_client()
        login(c, "li", "pw-li")
        for lang, words in (("zh", ("清点手牌", "S 3", "报错牌")), ("en", ("count of the hand", "S 3", "Wrong count"))):
            c.set_cookie("lang", lang)
            page = c.get("/tables/T01/deals/1").get_data(as_text=True)
            assert all(w in page for w in words), (lang, [w for w in words if w not in page])
            assert 'data-code="counted"' in page and "dv_" not in page.replace('"dv_', "")
    finally:
        live.close()
