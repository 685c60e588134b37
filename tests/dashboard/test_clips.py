"""A ruling's clip on the dashboard (served with its type and byte ranges, played in
chromium) and its appeal bundle's download."""

import io
import zipfile

import numpy as np
import pytest

from services.evidence import clip_stem
from table_node.clips import ClipRecorder, ClipSettings
from tests.dashboard.conftest import login, make_app, open_violation
from tests.dashboard.pages import log_in, serving
from tests.dashboard.test_browser import browser  # noqa: F401  (the fixture)


def _clip_for(folder, violation):
    """A real clip of the violation (2.5 s, 320x240), as the table node writes it."""
    rec = ClipRecorder(folder, ClipSettings(before_s=1.5, after_s=1.0, width=320))
    ring = rec.ring("camera 0", background=False)
    t = violation["t"]
    for k in range(-20, 12):
        f = np.full((240, 320, 3), 60, np.uint8)
        f[:, : 10 * (k + 21)] = 200
        ring.push(t + k / 10, f)
    rec.request(clip_stem(violation), [t])
    rec.close()
    return folder / f"{clip_stem(violation)}.webm"


@pytest.fixture
def clip_app(tmp_path, match_events):
    app = make_app(tmp_path, EVIDENCE_DIR=str(tmp_path / "ev"))
    live = app.extensions["guandan_venue"]
    open_violation(live, match_events)
    violation = next(d for d in live.decisions("T01") if d["type"] == "violation")
    yield app, violation
    live.close()


def test_the_state_links_the_clip_which_is_served_in_ranges(clip_app, tmp_path):
    app, violation = clip_app
    client = app.test_client()
    login(client, "li", "pw-li")
    item = next(i for i in client.get("/tables/T01/state.json").get_json()["feed"] if i["n"] == violation["n"])
    assert item["clips"] == []                                   # not written yet
    assert item["appeal"] == f"/tables/T01/appeal/{violation['n']}.zip"
    clip = _clip_for(tmp_path / "ev" / "T01", violation)
    item = next(i for i in client.get("/tables/T01/state.json").get_json()["feed"] if i["n"] == violation["n"])
    assert item["clips"] == [f"/tables/T01/evidence/{clip.name}"]
    data = clip.read_bytes()
    r = client.get(item["clips"][0], headers={"Range": "bytes=100-199"})
    assert r.status_code == 206 and r.mimetype == "video/webm"
    assert r.headers["Content-Range"] == f"bytes 100-199/{len(data)}" and r.data == data[100:200]
    assert client.get(item["clips"][0]).data == data
    # the appeal bundle, for the table's referee
    r = client.get(item["appeal"])
    assert r.status_code == 200 and r.mimetype == "application/zip"
    assert f"appeal-T01-{violation['n']}.zip" in r.headers["Content-Disposition"]
    with zipfile.ZipFile(io.BytesIO(r.data)) as z:
        assert f"clips/{clip.name}" in z.namelist() and "ruling.json" in z.namelist()
        assert z.read(f"clips/{clip.name}") == data
    assert client.get("/tables/T01/appeal/9999.zip").status_code == 404


def test_only_the_tables_referees_get_its_clips_and_bundles(clip_app, tmp_path):
    app, violation = clip_app
    clip = _clip_for(tmp_path / "ev" / "T01", violation)
    anonymous = app.test_client()
    assert anonymous.get(f"/tables/T01/appeal/{violation['n']}.zip").status_code in (302, 401)
    assert anonymous.get(f"/tables/T01/evidence/{clip.name}").status_code in (302, 401)
    other = app.test_client()
    login(other, "wang", "pw-wang")                              # T02's referee
    assert other.get(f"/tables/T01/appeal/{violation['n']}.zip").status_code == 403
    assert other.get(f"/tables/T01/evidence/{clip.name}").status_code == 403


def test_a_violations_clip_plays_in_the_dashboard(clip_app, tmp_path, browser):  # noqa: F811
    from playwright.sync_api import expect

    app, violation = clip_app
    with serving(app) as base:
        page = browser.new_page()
        log_in(page, base, "li", "pw-li")
        page.wait_for_url(base + "/")
        page.goto(base + "/tables/T01")
        page.wait_for_selector("#live-flag:not(.down)")
        item = page.locator(f"#feed li.violation[data-n='{violation['n']}']")
        video = item.locator("video.clip")
        expect(item).to_have_count(1)
        expect(video).to_have_count(0)                 # not written yet
        # the table node writes the clip and wakes the table's pages: it appears without a reload
        _clip_for(tmp_path / "ev" / "T01", violation)
        app.extensions["guandan_venue"].touch("T01")
        expect(video).to_have_count(1)
        expect(item.locator(".clip-label")).to_have_text("录像")
        expect(item.locator("a.appeal")).to_have_text(f"下载申诉材料 #{violation['n']}")
        # decoded by the browser: its size and length known, then played to the end
        expect(video).to_have_js_property("videoWidth", 320)
        expect(video).to_have_js_property("videoHeight", 240)
        expect(video).to_have_js_property("paused", True)
        video.click()                          # the native controls: a click plays
        expect(video).to_have_js_property("paused", False)
        # the feed is drawn again on every change: the clip being watched goes on playing
        version = page.locator("body").get_attribute("data-version")
        app.extensions["guandan_venue"].touch("T01")
        expect(page.locator("body")).not_to_have_attribute("data-version", version)
        expect(video).to_have_js_property("ended", True, timeout=15000)
        assert page.locator("#feed video.clip").count() == 1
