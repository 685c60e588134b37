"""Tribute and return: single, double, equal ranks, anti-tribute, wrong cards, clocks."""

from referee.settings import Settings

from .helpers import Script, of_type, violations


def after(previous_order, levels=None, settings=None):
    """A table whose log starts at deal 2 after a deal that finished in ``previous_order``."""
    s = Script(settings)
    ds = s.start(deal=2, level="5", leader=None, previous_order=previous_order,
                 levels=levels or {"NS": "5", "EW": "2"})
    return s, ds


def test_single_tribute_and_return_then_the_tributer_leads():
    s, ds = after(["S", "E", "N", "W"])
    (start,) = of_type(ds, "deal_start")
    assert start.extra["tributers"] == ["W"] and start.extra["level"] == "5"
    assert [(d.seat, d.extra["limit"]) for d in of_type(ds, "turn")] == [("W", 20)]
    ds = s.ev("tribute", seat="W", card="BJ")
    (assigned,) = of_type(ds, "tribute_assigned")
    assert assigned.extra["gives_to"] == {"W": "S"} and assigned.extra["leader"] == "W"
    assert [(d.seat, d.extra["limit"]) for d in of_type(ds, "turn")] == [("S", 40)]
    assert s.table.deal.counts["W"] == 26 and s.table.deal.counts["S"] == 28
    ds = s.ev("return", seat="S", card="S3")
    assert [(d.seat, d.extra["purpose"], d.extra["limit"]) for d in of_type(ds, "turn")] == [("W", "lead", 40)]
    assert s.table.deal.counts == {"S": 27, "E": 27, "N": 27, "W": 27}
    assert violations(s.out) == []


def test_double_tribute_higher_card_to_shangyou_and_its_giver_leads():
    s, ds = after(["S", "N", "E", "W"])
    assert of_type(ds, "deal_start")[0].extra["tributers"] == ["E", "W"]
    s.ev("tribute", seat="E", card="SA")
    ds = s.ev("tribute", seat="W", card="BJ")
    (assigned,) = of_type(ds, "tribute_assigned")
    assert assigned.extra["gives_to"] == {"W": "S", "E": "N"} and assigned.extra["leader"] == "W"
    s.ev("return", seat="N", card="D4")
    ds = s.ev("return", seat="S", card="S3")
    assert of_type(ds, "turn")[0].seat == "W" and s.table.deal.phase == "play"


def test_double_tribute_equal_ranks_go_clockwise():
    s, _ = after(["N", "S", "W", "E"])
    s.ev("tribute", seat="E", card="SA")
    ds = s.ev("tribute", seat="W", card="HA")
    (assigned,) = of_type(ds, "tribute_assigned")
    # clockwise: each tributer gives to its 上家 (E -> S, W -> N); N is 上游, so W leads
    assert assigned.extra["gives_to"] == {"E": "S", "W": "N"} and assigned.extra["leader"] == "W"


def test_anti_tribute_single_and_double():
    s, _ = after(["S", "E", "N", "W"])
    ds = s.ev("anti_tribute", seat="W", cards=["BJ", "BJ"])
    (anti,) = of_type(ds, "anti_tribute")
    assert anti.extra["leader"] == "S" and s.table.deal.turn == "S" and "抗贡" in anti.message
    s, _ = after(["S", "N", "E", "W"])
    assert s.ev("anti_tribute", seat="E", cards=["BJ"]) == []
    ds = s.ev("anti_tribute", seat="W", cards=["BJ"])
    assert of_type(ds, "anti_tribute")[0].extra["leader"] == "S"
    s, _ = after(["S", "E", "N", "W"])
    ds = s.ev("anti_tribute", seat="W", cards=["LJ", "BJ"])
    assert [d.code for d in ds] == ["bad_anti_tribute"]


def test_heart_level_card_as_tribute_is_a_warning_and_given_again():
    s, _ = after(["S", "E", "N", "W"])
    ds = s.ev("tribute", seat="W", card="H5")
    assert violations(ds) == [("W", "wrong_tribute", "warning")] and "贡错牌" in ds[0].message
    assert s.table.deal.phase == "tribute"
    ds = s.ev("tribute", seat="W", card="S5")     # a level card (not hearts) is fine
    assert of_type(ds, "tribute_assigned")


def test_a_higher_card_played_later_proves_a_wrong_tribute_foul():
    s, _ = after(["S", "E", "N", "W"])
    s.ev("tribute", seat="W", card="SK")
    s.ev("return", seat="S", card="S3")
    assert violations(s.play("W", "S3")) == []       # the card it was handed back proves nothing
    s.pass_round()
    assert violations(s.play("W", "H5")) == []       # a heart level card is excepted
    s.pass_round()
    ds = s.play("W", "SA")
    assert violations(ds) == [("W", "wrong_tribute", "foul")]
    (end,) = of_type(ds, "deal_end")
    assert end.extra["ended_by"] == "foul" and end.extra["winner"] == "NS"
    assert s.table.match.levels["NS"] == 8


def test_a_low_card_played_later_proves_a_wrong_return_foul():
    s, _ = after(["S", "E", "N", "W"])
    s.ev("tribute", seat="W", card="BJ")
    s.ev("return", seat="S", card="SJ")      # above 10: right only if S held nothing lower
    s.play("W", "D3")
    assert violations(s.play("S", "BJ")) == []   # the tribute it took proves nothing
    s.pass_round()
    ds = s.play("S", "S4")
    assert violations(ds) == [("S", "wrong_return", "foul")] and "还错牌" in ds[0].message
    assert of_type(ds, "deal_end")[0].extra["winner"] == "EW"


def test_tribute_overtime():
    s, _ = after(["S", "E", "N", "W"], settings=Settings(tribute_limit=20, countdown=10))
    ds = s.ev("tick", dt=31.0)     # 31 s after the deal started
    assert [d.type for d in ds] == ["countdown", "violation"]
    assert violations(ds) == [("W", "overtime", "warning")]


def test_a_reminder_zone_card_from_a_receiver_during_return_is_the_return():
    """Vision cannot tell a tribute from a return: it reports one card laid in a
    reminder zone as ``tribute``; in the return phase, from a receiver, it is the return."""
    from referee.events import Event
    from referee.settings import Settings
    from referee.simulation import simulate_match
    from referee.table import Table

    settings = Settings.parse_format("deals:2")
    events = simulate_match(seed=3, settings=settings)
    as_vision = [dict(e, type="tribute", source="vision", confidence=0.97) if e["type"] == "return" else e
                 for e in events]
    assert any(e["type"] == "return" for e in events)
    plain, seen = Table("T01", settings), Table("T01", settings)
    a = [d.to_dict() for d in plain.replay(Event.from_dict(e) for e in events)]
    b = [d.to_dict() for d in seen.replay(Event.from_dict(e) for e in as_vision)]
    strip = lambda ds: [{k: v for k, v in d.items() if k != "message"} for d in ds]
    assert strip(a) == strip(b)
    assert plain.snapshot()["score_sheet"] == seen.snapshot()["score_sheet"]
