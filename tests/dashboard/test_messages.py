"""Every statement the referee's screen shows, in both languages: each code
has a template, every decision of a faulty match fills one, and the Chinese
text holds no English word."""

from __future__ import annotations

import pytest

from referee.codes import Confirm, Note, Violation
from referee.settings import Settings
from referee.simulation import FAULTS, simulate_match
from referee.table import Table
from tests.dashboard.visible_text import english_words
from web_dashboard.i18n import CATALOGUE
from web_dashboard.messages import TEMPLATES, format_message, message, placeholders, render
from web_dashboard.view_model import table_view


def test_every_code_has_a_template_and_a_name_in_both_languages():
    for code in [*Violation, *Confirm, *Note]:
        zh, en = CATALOGUE[f"code_{code.value}"]
        assert zh and en and zh != en, code
        variants = [k for k in TEMPLATES if k == f"msg_{code.value}" or k.startswith(f"msg_{code.value}_")]
        assert variants or code in (Violation.SIGNALLING, Violation.MANUAL), code
    for v in Violation:
        assert CATALOGUE[f"code_{v.value}"][0] == v.term        # the rules' own term


def test_both_languages_of_a_template_use_the_same_values():
    import re
    for key, (zh, en) in TEMPLATES.items():
        names = [set(re.findall(r"\{(\w+)", text)) for text in (zh, en)]
        assert names[0] == names[1], key
        assert placeholders(key) == names[0]


def _faulty_match(seed: int) -> tuple[Table, list[dict]]:
    """A match from the first seed from ``seed`` on that commits every scripted fault (as the demo's)."""
    for s in range(seed, seed + 200):
        injected: dict[str, int] = {}
        events = simulate_match(seed=s, faults=FAULTS, settings=Settings.parse_format("deals:2"),
                                injected=injected)
        if set(injected) == set(FAULTS):
            break
    table = Table("T01")
    said = []
    for e in events:
        out = table.feed_dict(e)
        said += [d.to_dict() for d in out]
        # and, as it is asked, counts the cards of the seat whose missing report waits on the camera's
        # count, and confirms the reads the illegal play rests on (the one it did not beat, and it)
        for d in out:
            if d.code == "camera_count" and d.extra["held"]["code"] == "missing_report":
                said += [x.to_dict() for x in table.feed_dict(
                    {"t": e["t"], "type": "referee", "action": "count", "ref": d.events[-1], "seat": d.seat,
                     "count": d.extra["counted"]})]
            if d.code == "camera_penalty" and d.extra["held"]["code"] == "illegal_play":
                for r in d.extra["reads"]:
                    said += [x.to_dict() for x in table.feed_dict(
                        {"t": e["t"], "type": "referee", "action": "confirm", "ref": r})]
    late = len(table.log) + 1        # the id the late entry gets
    for e in (
        {"t": 9000.0, "type": "referee", "action": "late", "side": "EW", "minutes": 3},
        {"t": 9001.0, "type": "referee", "action": "penalty", "side": "NS", "penalty": "warning",
         "code": "signalling", "reason": "举手示意"},
        {"t": 9002.0, "type": "device_status", "device": "P01", "online": False},
        {"t": 9003.0, "type": "play", "seat": "S", "cards": ["S3"], "source": "vision", "confidence": 0.3},
        # the referee voids the late penalty: a correction, the record judged again
        {"t": 9004.0, "type": "referee", "action": "void", "ref": late, "what": "penalty"},
    ):
        said += [d.to_dict() for d in table.feed_dict(e)]
    assert table.log[late - 1].get("action") == "late"
    return table, said


@pytest.mark.parametrize("seed", [1, 20, 40])
def test_every_decision_of_a_faulty_match_reads_in_chinese_without_english(seed):
    table, said = _faulty_match(seed)
    decisions = [d.to_dict() for d in table.decisions]
    events = [e.to_dict() for e in table.log]
    view = table_view("T01", table.snapshot(), decisions, events, 10.0)
    codes = set()
    for item in view["feed"]:
        zh, en = render(item["msg"], "zh"), render(item["msg"], "en")
        assert "{" not in zh and "{" not in en and zh != en, item["msg"]
        assert english_words(zh, ("P01",)) == [], (item.get("code"), zh)   # the device the test named
        codes.add(item.get("code"))
        # the specific template, not the generic fallback, wherever a code has one
        if item["type"] == "violation" and item["code"] not in ("signalling", "manual"):
            assert item["msg"]["key"] != "msg_violation", item
    # the scripted faults, the hand-entered rulings and a camera read to confirm all showed
    assert {"overtime", "illegal_play", "missing_report", "wrong_tribute", "late", "signalling",
            "low_confidence"} <= codes
    # every decision as it was said (corrections included) reads too
    by_id = {e["id"]: e for e in events}
    assert any(d["type"] == "correction" for d in said)
    assert any(d.get("code") == "camera_penalty" for d in said)      # held, as it was said
    assert any(d.get("code") == "camera_count" for d in said)
    assert any(d.get("code") == "counted" for d in said)              # the referee's count, noted
    for d in said:
        if d["type"] in ("note", "correction", "penalty", "device_offline") \
                or d.get("code") in ("camera_penalty", "camera_count"):
            zh = render(message(d, by_id), "zh")
            assert "{" not in zh and english_words(zh, ("P01",)) == [], d


def test_values_fill_the_template():
    d = {"type": "violation", "code": "out_of_turn_play", "seat": "N", "expected": "E",
         "penalty": "infraction", "events": [3]}
    by_id = {3: {"id": 3, "type": "play", "seat": "N", "cards": ["BJ", "S3"]}}
    m = message(d, by_id)
    assert render(m, "zh") == "N 在轮到 E 时出牌 BJ S3，牌收回"
    assert render(m, "en") == "N played BJ S3 before E; the cards are taken back"
    # a value missing: the generic template, still in the reader's language
    m = message(dict(d, expected=None), {})
    assert render(m, "zh") == "N：越序出牌"


def test_a_doubted_camera_read_tells_the_referee_why():
    # the tracker's doubt codes (a sure read asked about) are each worded in both languages
    from vision.reading.tracker import (JOKER_NO_COMBINATION, LEFT_OUT, NO_COMBINATION, THIRD_COPY, UNEXPLAINED,
                                        UNREAD, ZoneTracker)
    from vision.reading.detector import CardRead, ZoneRead
    from web_dashboard.messages import DOUBTS
    assert {THIRD_COPY, JOKER_NO_COMBINATION, NO_COMBINATION, LEFT_OUT, UNREAD, UNEXPLAINED} == set(DOUBTS)
    table = Table("T01", Settings())
    table.feed_dict({"t": 0.0, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"})
    tracker = ZoneTracker("S", table="T01")
    read = ZoneRead([CardRead(n, 0.99, (0, 0, 1, 1), ()) for n in ("H7", "LJ", "C7", "S7", "HK", "CK")])
    (play,) = [e for k in range(5) for e in tracker.update(1.0 + 0.1 * k, read)]
    assert play.get("doubt") == JOKER_NO_COMBINATION
    (ask,) = [d for d in table.feed(play) if d.type == "confirm_request"]
    by_id = {e.id: e.to_dict() for e in table.log}
    m = message(ask.to_dict(), by_id)
    assert m["key"] == "msg_low_confidence_doubt"
    assert "含王但不成任何牌型" in render(m, "zh") and not english_words(render(m, "zh"))
    assert "a joker in cards that make no combination" in render(m, "en")
    # cards with one missing (no combination, no joker): worded too
    worded = message(ask.to_dict(), {i: dict(e, doubt=NO_COMBINATION) for i, e in by_id.items()})
    assert "不成任何牌型" in render(worded, "zh") and "cards that make no combination" in render(worded, "en")
    # a card another turn of the zone saw, left out of the read: worded too
    worded = message(ask.to_dict(), {i: dict(e, doubt=LEFT_OUT) for i, e in by_id.items()})
    assert "未计入的牌" in render(worded, "zh") and not english_words(render(worded, "zh"))
    assert "another view of the cards saw one more card" in render(worded, "en")
    # more laid in the zone than the cards read cover: worded too
    worded = message(ask.to_dict(), {i: dict(e, doubt=UNEXPLAINED) for i, e in by_id.items()})
    assert "比识别出的多" in render(worded, "zh") and not english_words(render(worded, "zh"))
    assert "more lies in the zone than the cards read" in render(worded, "en")
    # a code the dashboard does not know (an event from elsewhere) is not worded: the plain request
    by_id = {i: dict(e, doubt="<script>") for i, e in by_id.items()}
    assert message(ask.to_dict(), by_id)["key"] == "msg_low_confidence"


def test_an_unread_play_asks_the_referee_for_the_cards_and_holds_the_next_players_fault():
    # a card the camera cannot read (face down) in S's zone: an unread play, and
    # E's play after it is no out-of-turn penalty until the referee says what S laid
    from vision.reading.tracker import UNREAD, ZoneTracker
    from vision.reading.detector import ZoneRead
    table = Table("T01", Settings())
    table.feed_dict({"t": 0.0, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"})
    tracker = ZoneTracker("S", table="T01")
    (play,) = [e for k in range(12) for e in tracker.update(1.0 + 0.1 * k, ZoneRead(unread=True))]
    assert play.type == "play" and play.cards == () and play.confidence == 0.0 and play.get("doubt") == UNREAD
    (ask,) = [d for d in table.feed(play) if d.type == "confirm_request"]
    m = message(ask.to_dict(), {e.id: e.to_dict() for e in table.log})
    assert m["key"] == "msg_unread"
    assert "认不出" in render(m, "zh") and not english_words(render(m, "zh"))
    assert render(m, "en").startswith("S's play zone holds something new the camera cannot read")
    later = table.feed_dict({"t": 6.0, "type": "play", "seat": "E", "cards": ["H9"], "source": "vision",
                             "confidence": 0.97})
    assert not [d for d in later if d.penalty] and [d.code for d in later] == ["held_violation"]
    # the referee says S laid H5: judged again, E's H9 beats it in turn
    ref = next(e.id for e in table.log if e.type == "play" and e.seat == "S")
    fixed = table.feed_dict({"t": 9.0, "type": "referee", "action": "correct", "ref": ref,
                             "event": {"cards": ["H5"]}})
    assert not [d for d in fixed if d.type == "violation"]
    assert table.deal.turn == "N"


def test_a_count_asked_because_a_seat_may_be_out_reads_in_both_languages():
    # each way a seat's count is asked about when the camera's reads may have it wrong about being out
    from tests.table import test_turn_in_doubt as scenes
    asks = {}
    s = scenes._s_leads_three_bombs()
    asks["turn"] = s.play("E", "SK")                                   # a play before a seat that may be out
    s = scenes._deal_the_reads_leave_unfinished()
    asks["deal"] = s.start(deal=2, level="5", leader=None)            # a deal the reads left unfinished
    s = scenes._s_leads_three_bombs()
    s.play("S", "S6 H6 D6", **scenes.SEEN)
    s.passes("E", "N", "W")
    asks["out"] = s.play("S", "D6")                                    # a seat out by the reads plays on
    tables = {kind: s.table for kind in asks}
    s, asks["laid"] = scenes._s_lays_more_than_read()                 # more laid than the reads leave
    tables["laid"] = s.table
    keys = {"turn": "msg_camera_count_turn", "deal": "msg_camera_count_deal", "out": "msg_camera_count_out",
            "laid": "msg_camera_count_laid"}
    for kind, ds in asks.items():
        by_id = {e.id: e.to_dict() for e in tables[kind].log}
        found = [message(d.to_dict(), by_id) for d in ds if d.code == "camera_count"]
        assert keys[kind] in [m["key"] for m in found], (kind, found)
        for m in found:
            zh, en = render(m, "zh"), render(m, "en")
            assert "{" not in zh + en and not english_words(zh) and "S" in zh and "S" in en, m


def test_the_match_format_reads_in_both_languages():
    m = format_message(Settings.parse_format("time_deals:40,2").to_dict())
    assert render(m, "zh") == "40 分钟或 2 副" and render(m, "en") == "40 minutes or 2 deals"
    assert render(format_message(Settings.parse_format("deals:2").to_dict()), "zh") == "2 副"


def test_no_chinese_text_of_the_catalogue_holds_an_english_word():
    import re
    for key, (zh, _en) in CATALOGUE.items():
        if key == "language":           # the switch names the other language: "English"
            continue
        fixed = re.sub(r"\{\w+(?:@\w*)?\}", " ", zh)
        assert english_words(fixed) == [], (key, zh)


def test_a_refused_form_is_told_in_the_pages_language(app, live):
    from tests.dashboard.conftest import csrf_of, login
    c = app.test_client()
    login(c, "li", "pw-li")
    form = {"action": "penalty", "seat": "X", "code": "manual", "penalty": "warning",
            "csrf_token": csrf_of(c, "/tables/T01")}
    r = c.post("/tables/T01/action", data=form, headers={"Accept": "application/json"})
    assert r.status_code == 400 and r.get_json()["error"] == "方位须为 E S W N 之一"
    assert r.get_json()["detail"] == "'seat' must be one of E S W N"
    c.get("/lang/en")
    r = c.post("/tables/T01/action", data=form, headers={"Accept": "application/json"})
    assert r.get_json()["error"] == "'seat' must be one of E S W N"
    assert live.events("T01") == []
