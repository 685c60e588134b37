"""referee.deal_record.deals_of on the demo's scripted match (two deals, a
tribute, an overtime, an illegal play, a missing report and a wrong tribute)
and on small logs for corrections."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from referee.deal_record import deals_of, record_of
from referee.events import Event
from referee.table import Table
from table_node.demo import make_script


@pytest.fixture(scope="module")
def demo():
    script = make_script(seed=3)
    table = Table("T01", replace(script.settings, camera_penalties="direct"))     # the script's cards as laid
    table.replay([Event.from_dict(e) for e in script.events])
    return table, deals_of(table.log, table.decisions)


def _steps(deal):
    for stage in ([deal["tribute"]] if deal["tribute"] else []) + deal["tricks"]:
        yield from ((stage, s) for s in stage["steps"])


def _ruling(deal, code):
    found = [(stage, s) for stage, s in _steps(deal)
             if s["kind"] == "ruling" and s["type"] == "violation" and s.get("code") == code]
    assert len(found) == 1, f"{code}: {len(found)} rulings"
    return found[0]


def _trick_of(table, event_id):
    """Which trick of its deal an event falls in, counted from the record's own
    trick_end decisions (independently of deals_of)."""
    starts = [d for d in table.decisions if d.type == "deal_start" and d.events[0] <= event_id]
    start = starts[-1].events[0]
    ends = [d for d in table.decisions if d.type == "trick_end" and start < d.events[0] < event_id]
    return len(ends) + 1


def test_two_deals_with_levels_and_results(demo):
    table, view = demo
    deals = view["deals"]
    assert [d["deal"] for d in deals] == [1, 2]
    assert deals[0]["levels"] == {"NS": "2", "EW": "2"} and deals[0]["tribute"] is None
    ends = [d for d in table.decisions if d.type == "deal_end"]
    for deal, end in zip(deals, ends):
        assert deal["result"]["order"] == [str(s) for s in end.extra["order"]]
        assert deal["end"] == end.t
    # the second deal is played at the levels the first left
    assert deals[1]["levels"] == deals[0]["result"]["levels"]
    assert view["rulings"] == []


def test_illegal_play_lands_on_its_trick_taken_back(demo):
    table, view = demo
    stage, ruling = _ruling(view["deals"][0], "illegal_play")
    beaten, event_id = ruling["events"]      # the play it did not beat, and the play
    assert stage["number"] == _trick_of(table, event_id) == _trick_of(table, beaten)
    steps = stage["steps"]
    i = steps.index(ruling)
    play = steps[i - 1]           # the ruling follows the play it is about
    assert play["kind"] == "play" and play["event"] == event_id and play["seat"] == "W"
    assert play["counted"] is False
    # the trick is still won by the play that stood, not by the one taken back
    counted = [s for s in steps if s["kind"] == "play" and s["counted"]]
    assert stage["won_by"] == counted[-1]["seat"] != "W"


def test_overtime_stands_before_the_late_pass_with_its_clock(demo):
    table, view = demo
    stage, overtime = _ruling(view["deals"][0], "overtime")
    steps = stage["steps"]
    i = steps.index(overtime)
    assert steps[i - 1]["type"] == "countdown" and steps[i - 1]["seat"] == overtime["seat"]
    late = steps[i + 1]
    assert late["kind"] == "pass" and late["seat"] == overtime["seat"] and late["counted"]
    assert late["used"] > late["limit"] + table.settings.countdown
    assert overtime["t"] < late["t"]


def test_missing_report_lands_where_play_went_on(demo):
    table, view = demo
    stage, ruling = _ruling(view["deals"][0], "missing_report")
    assert ruling["seat"] == "N"
    assert stage["number"] == _trick_of(table, ruling["events"][-1])
    reports = [s for s in stage["steps"] if s["kind"] == "report" and s["seat"] == "N"]
    assert reports and reports[0]["count"] == 10
    # the ladder's step it caused (two warnings make 违例) stands with it
    i = stage["steps"].index(ruling)
    assert stage["steps"][i + 1]["type"] == "penalty" and stage["steps"][i + 1]["penalty"] == "infraction"


def test_tribute_stage_wrong_tribute_then_the_right_card(demo):
    table, view = demo
    deal = view["deals"][1]
    tribute = deal["tribute"]
    assert tribute["gives_to"] == {"W": "E"} and not tribute["anti_tribute"]
    kinds = [(s["kind"], s.get("seat"), s.get("card") or s.get("code"), s.get("counted")) for s in tribute["steps"]]
    assert kinds == [("tribute", "W", "H3", False), ("ruling", "W", "wrong_tribute", None),
                     ("tribute", "W", "BJ", True), ("return", "E", "H5", True)]
    assert tribute["steps"][2]["to"] == "E" and tribute["steps"][3]["to"] == "W"
    assert deal["leader"] == deal["tricks"][0]["leader"]


def test_hands_reconstructed_from_the_plays(demo):
    table, view = demo
    for deal in view["deals"]:
        hands = deal["hands"]
        out = [s["seat"] for _, s in _steps(deal) if s["kind"] == "ruling" and s.get("code") == "out"]
        assert len(out) >= 2
        seen = Counter()
        for seat, h in hands.items():
            # laid: the seat's counted plays, in order
            plays = [c for _, s in _steps(deal) if s["kind"] == "play" and s["seat"] == seat
                     and s["counted"] for c in s["cards"]]
            assert h["laid"] == plays
            assert len(h["dealt"]) + h["unknown"] == 27
            seen.update(h["dealt"])
        # two decks: no card dealt more than twice across the four hands
        assert max(seen.values()) <= 2
        # a seat that went out showed its whole hand
        for seat in out:
            assert hands[seat]["unknown"] == 0, (deal["deal"], seat)
    # the tributer's dealt hand holds the tribute it gave, not the return it got
    w = view["deals"][1]["hands"]["W"]
    assert Counter(w["dealt"]) == Counter(w["laid"]) + Counter(["BJ"]) - Counter(["H5"])
    e = view["deals"][1]["hands"]["E"]
    assert Counter(e["dealt"]) == Counter(e["laid"]) + Counter(["H5"]) - Counter(["BJ"])


def _table(*events):
    t = Table("T01")
    for e in events:
        t.feed_dict(e)
    return t


def test_a_voided_play_and_its_correction_in_place():
    t = _table({"t": 0, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"},
               {"t": 2, "type": "play", "seat": "S", "cards": ["S3"]},
               {"t": 4, "type": "play", "seat": "E", "cards": ["S9"]},
               {"t": 5, "type": "referee", "action": "void", "ref": 3, "who": "li"},
               {"t": 6, "type": "play", "seat": "E", "cards": ["S5"]},
               {"t": 8, "type": "referee", "action": "correct", "ref": 5, "event": {"cards": ["S6"]}})
    steps = deals_of(t.log, t.decisions)["deals"][0]["tricks"][0]["steps"]
    assert [(s["kind"], s.get("cards"), s.get("counted"), s.get("voided"), s.get("corrected"))
            for s in steps if s["kind"] == "play"] == [
        ("play", ["S3"], True, None, None), ("play", ["S9"], False, True, None),
        ("play", ["S6"], True, None, True)]
    corrections = [(s["action"], s["ref"], s.get("who")) for s in steps if s["kind"] == "correction"]
    assert corrections == [("void", 3, "li"), ("correct", 5, None)]


def test_rulings_outside_any_deal_and_an_unfinished_deal():
    t = _table({"t": 0, "type": "referee", "action": "late", "side": "EW", "minutes": 3},
               {"t": 1, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"},
               {"t": 2, "type": "play", "seat": "S", "cards": ["S3"]})
    view = deals_of(t.log, t.decisions)
    assert [r["code"] for r in view["rulings"]] == ["late"]
    deal = view["deals"][0]
    assert deal["result"] is None and deal["end"] is None
    assert deal["hands"]["S"] == {"laid": ["S3"], "dealt": ["S3"], "unknown": 26, "left": []}


def test_record_carries_settings_teams_players_and_the_log():
    t = _table({"t": 0, "type": "settings", "settings": {"match_format": "deals", "deals": 1},
                "teams": {"NS": "Nanjing", "EW": "Suzhou"},
                "players": {"N": "Li", "S": "Wang", "E": "Zhao", "W": "Qian"}},
               {"t": 1, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"})
    r = record_of(t)
    assert r["match"]["teams"] == {"NS": "Nanjing", "EW": "Suzhou"}
    assert r["match"]["players"]["N"] == "Li" and r["match"]["settings"]["deals"] == 1
    assert [e["id"] for e in r["events"]] == [1, 2] and len(r["deals"]) == 1


def test_first_deal_without_a_named_leader_and_a_correction_naming_nothing():
    t = _table({"t": 0, "type": "deal_start", "deal": 1, "level": "2"},
               {"t": 3, "type": "play", "seat": "E", "cards": ["S3"]},
               {"t": 4, "type": "referee", "action": "void", "ref": 99})
    deal = deals_of(t.log, t.decisions)["deals"][0]
    assert deal["leader"] == "E" and deal["tricks"][0]["leader"] == "E"
    steps = deal["tricks"][0]["steps"]
    assert [s["kind"] for s in steps] == ["play", "ruling"]       # the correction named no event
    assert steps[1]["code"] == "bad_reference"
