"""Every step of the penalty ladder, per side per match, and the referee's hand."""

from .helpers import Script, of_type, violations


def test_two_warnings_make_an_infraction_with_the_stop_choice():
    s = Script()
    s.start(leader="S")
    s.play("S", "S3")
    s.pass_("N")                                   # out of turn: warning 1 (NS)
    ds = s.pass_("N")                              # warning 2 -> infraction
    (step,) = of_type(ds, "penalty")
    assert (step.penalty, step.extra["side"]) == ("infraction", "NS")
    assert step.extra["ladder"] == {"warning": 2, "infraction": 1, "foul": 0}
    (choice,) = [d for d in ds if d.code == "stop_choice"]
    assert (choice.seat, choice.extra["offender"]) == ("W", "N")


def test_stop_choice_skips_the_offenders_next_play():
    s = Script()
    s.start(leader="S")
    s.play("S", "S3")
    s.play("N", "S9")                      # out of turn: infraction, W may stop N
    s.referee("choice", seat="N", stop=True)
    s.play("E", "S4")
    ds = s.table.deal
    assert ds.turn == "W" and "N" in ds.passed          # N's turn counted as a pass
    assert [d.code for d in s.out if d.type == "note"][-2:] == ["stop_recorded", "stopped"]


def test_two_infractions_make_a_foul_the_deal_ends_and_no_tribute_follows():
    s = Script()
    s.start(leader="S")
    s.play("S", "S3")
    s.play("W", "S9")                      # infraction 1 (EW)
    ds = s.play("W", "S9 S8")              # out of turn again: infraction 2 -> foul
    assert violations(ds) == [("W", "out_of_turn_play", "infraction")]
    steps = of_type(ds, "penalty")
    assert [d.penalty for d in steps] == ["foul"]
    (end,) = of_type(ds, "deal_end")
    assert end.extra["ended_by"] == "foul" and end.extra["order"] == ["S", "N", "E", "W"]
    assert s.table.match.levels == {"NS": 5, "EW": 2}
    ds = s.start(deal=2, level="5", leader="E")     # the leader must come from NS
    assert [d.code for d in ds if d.type == "confirm_request"] == ["leader_side"]
    assert of_type(ds, "deal_start")[0].extra["phase"] == "play"   # no tribute
    row = s.table.match.rows[0]
    assert [p["code"] for p in row.penalties] == ["out_of_turn_play", "out_of_turn_play"]


def test_two_fouls_forfeit_the_match():
    s = Script()
    s.start(leader="S")
    s.referee("penalty", side="EW", penalty="foul", code="signalling", reason="EW signalled (传递非法信息)")
    assert s.table.match.levels == {"NS": 5, "EW": 2}
    s.start(deal=2, level="5", leader="S")
    ds = s.referee("penalty", seat="E", penalty="foul", code="signalling")
    steps = of_type(ds, "penalty")
    assert [d.penalty for d in steps] == ["forfeit"]
    (end,) = of_type(ds, "match_end")
    res = end.extra["result"]
    # after deal 2 (NS 8): NS leads by 6 > 4, the table score stands
    assert res["winner"] == "NS" and res["reason"] == "forfeit"
    assert res["levels"] == {"NS": "8", "EW": "2"} and res["points"] == {"NS": 2, "EW": 0}
    assert [d.code for d in s.start(deal=3)] == ["match_over"]


def test_forfeit_scores_offender_level_plus_four():
    s = Script()
    s.start(deal=1, leader="S", levels={"NS": "Q", "EW": "K"})   # a log starting mid-match
    s.referee("penalty", side="NS", penalty="forfeit", code="manual", reason="refused to sign")
    res = s.table.match.result
    # Q lowered to J (11), the winner recorded at J + 4 = past A
    assert (res.winner, res.levels) == ("EW", {"NS": 11, "EW": 15})
    assert res.level_points == {"NS": 9, "EW": 17}


def test_late_arrival_warning_foul_abandonment():
    s = Script()
    ds = s.referee("late", side="EW", minutes=3)
    assert violations(ds) == [("E", "late", "warning")]
    s2 = Script()
    ds = s2.referee("late", side="EW", minutes=7)
    assert violations(ds) == [("E", "late", "foul")]
    assert of_type(ds, "deal_end")[0].extra["winner"] == "NS"
    s3 = Script()
    ds = s3.referee("late", side="NS", minutes=12)
    (end,) = of_type(ds, "match_end")
    assert end.extra["result"]["reason"] == "abandonment"
    assert end.extra["result"]["level_points"] == {"EW": 17, "NS": 0}


def test_void_a_penalty_keeps_the_event():
    s = Script()
    s.start(leader="S")
    s.play("S", "S7 S5 S3 S6 S4")          # arrangement warning
    ref = len(s.table.log)
    ds = s.referee("void", ref=ref, what="penalty")
    assert ds[0].type == "correction"
    (v,) = [d for d in s.table.decisions if d.type == "violation"]
    assert v.penalty is None and "voided" in v.message
    assert s.table.deal.counts["S"] == 22
    assert s.table.snapshot()["ladder"]["NS"]["warning"] == 0


def test_a_stopped_leader_hands_the_lead_to_the_non_offending_side():
    s = Script()
    s.start(leader="S")
    s.play("S", "S9")
    s.play("E", "SJ")
    s.pass_("N")
    s.play("W", "SK")
    s.pass_("S")
    s.play("W", "S3")                      # out of turn: infraction, S (W's 下家) may stop W
    s.referee("choice", seat="W", stop=True)
    ds = s.passes("E", "N")                # W wins the trick, but its lead is stopped
    (note,) = [d for d in ds if d.code == "stopped"]
    assert note.seat == "S" and s.table.deal.turn == "S"
