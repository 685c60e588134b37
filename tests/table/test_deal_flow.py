"""Whole scripted deals: tricks, 接风, finishing order, 双上, reports, the deal end."""

from referee.settings import Settings

from .helpers import Script, of_type, types, violations


def test_trick_ends_after_three_passes_and_the_last_player_leads():
    s = Script()
    s.start(leader="S")
    s.play("S", "S3")
    s.play("E", "S5")
    assert s.table.deal.turn == "N"
    ds = s.passes("N", "W", "S")
    ends = of_type(ds, "trick_end")
    assert [(d.extra["leader"], d.extra["jiefeng"]) for d in ends] == [("E", False)]
    assert s.table.deal.turn == "E" and s.table.deal.standing is None


def test_leader_cannot_pass():
    s = Script()
    s.start(leader="S")
    ds = s.pass_("S")
    assert [(d.type, d.code) for d in ds] == [("confirm_request", "leader_pass")]
    assert s.table.deal.turn == "S"


def test_jiefeng_partner_leads_after_a_player_goes_out():
    s = Script()
    s.start(leader="S")
    for cards in ["S3 S3 H3 H3 D3 D3 C3 C3", "S4 S4 H4 H4 D4 D4 C4 C4", "S5 S5 H5 H5 D5 D5 C5 C5"]:
        s.play("S", cards)
        s.passes("E", "N", "W")
    s.report("S", 3)
    s.play("S", "S6 H6 D6")
    assert s.table.deal.order == ["S"]
    ds = s.passes("E", "N", "W")
    (end,) = of_type(ds, "trick_end")
    assert end.extra["leader"] == "N" and end.extra["jiefeng"] is True
    assert s.table.deal.turn == "N"


def test_whole_deal_double_up_scores_three_and_next_deal_is_double_tribute():
    s = Script()
    s.start(leader="S")
    s.dump_out("S")
    ds = s.dump_out("N")
    (end,) = of_type(ds, "deal_end")
    assert end.extra["order"][:2] == ["S", "N"] and end.extra["double_down"] is True
    assert end.extra["winner"] == "NS" and end.extra["upgrade"] == 3
    assert s.table.match.levels == {"NS": 5, "EW": 2}
    assert violations(s.out) == []
    ds = s.start(deal=2, level="5", leader=None)
    (start,) = of_type(ds, "deal_start")
    assert start.extra["tributers"] == ["E", "W"] and start.extra["receivers"] == ["S", "N"]


def test_whole_deal_three_out_partner_last_scores_one():
    s = Script()
    s.start(leader="S")
    s.dump_out("S")
    # 接风: N leads a small card, E bombs it and then plays out
    s.play("N", "S7")
    s.pass_("W")      # S is out: after W comes E
    s.play("E", "ST ST HT HT DT DT CT CT")
    s.pass_round()
    s.play("E", "SJ SJ HJ HJ DJ DJ CJ CJ")
    s.pass_round()
    s.play("E", "SQ SQ HQ HQ DQ DQ CQ CQ")
    s.report("E", 3)
    s.pass_round()
    s.play("E", "H6 D6")
    s.report("E", 1)
    s.pass_round()
    s.play("E", "SK")
    ds = s.pass_round()     # E out: its partner W leads (接风)
    assert of_type(ds, "trick_end")[-1].extra == {"leader": "W", "jiefeng": True}
    assert s.table.deal.turn == "W"
    for cards in ["SK HK HK DK DK CK CK", "SA SA HA HA DA DA CA CA"]:
        s.play("W", cards)
        s.pass_round()
    s.play("W", "S2 S2 D2 D2 C2 C2")
    s.report("W", 6)
    s.pass_round()
    s.play("W", "LJ LJ BJ BJ")
    s.report("W", 2)
    s.pass_round()
    ds = s.play("W", "H2 H2")
    (end,) = of_type(ds, "deal_end")
    assert end.extra["order"] == ["S", "E", "W", "N"]
    assert (end.extra["winner"], end.extra["upgrade"]) == ("NS", 1)
    assert violations(s.out) == []


def test_play_limits_and_turn_decisions():
    s = Script(Settings(play_limit=20, first_lead_limit=40))
    ds = s.start(leader="W")
    (turn,) = of_type(ds, "turn")
    assert (turn.seat, turn.extra["limit"]) == ("W", 40)
    ds = s.play("W", "S3")
    (turn,) = of_type(ds, "turn")
    assert (turn.seat, turn.extra["limit"]) == ("S", 20)
