"""A scenario for every violation code and its penalty (《江苏省掼蛋竞赛规则（2023）》 七)."""

from referee.settings import Settings

from .helpers import Script, of_type, violations


def _south_down_to_three() -> Script:
    """S leads three 8-card bombs, every other seat passing: S holds 3, no report yet."""
    s = Script()
    s.start(leader="S")
    for cards in ["S3 S3 H3 H3 D3 D3 C3 C3", "S4 S4 H4 H4 D4 D4 C4 C4"]:
        s.play("S", cards)
        s.pass_round()
    s.play("S", "S5 S5 H5 H5 D5 D5 C5 C5")
    return s


def test_out_of_turn_play_is_an_infraction_and_the_cards_go_back():
    s = Script()
    s.start(leader="S")
    s.play("S", "S3")
    ds = s.play("N", "S9")
    assert violations(ds) == [("N", "out_of_turn_play", "infraction")]
    assert "越序出牌" in ds[0].message
    assert s.table.deal.counts["N"] == 27 and s.table.deal.turn == "E"
    (choice,) = [d for d in ds if d.code == "stop_choice"]
    assert choice.seat == "W" and choice.extra["offender"] == "N"


def test_out_of_turn_pass_is_a_warning():
    s = Script()
    s.start(leader="S")
    s.play("S", "S3")
    ds = s.pass_("W")
    assert violations(ds) == [("W", "out_of_turn_pass", "warning")]
    assert "越序表态" in ds[0].message and s.table.deal.turn == "E"


def test_illegal_combination_and_losing_play_are_infractions_taken_back():
    s = Script()
    s.start(leader="S")
    ds = s.play("S", "S3 D4")
    assert violations(ds) == [("S", "illegal_play", "infraction")]
    assert ds[0].extra["judged"] == "illegal_combination" and "出错牌" in ds[0].message
    s.play("S", "S9")
    ds = s.play("E", "S5")
    assert violations(ds) == [("E", "illegal_play", "infraction")]
    assert ds[0].extra["judged"] == "does_not_beat"
    assert s.table.deal.counts["E"] == 27 and s.table.deal.turn == "E"


def test_overtime_counts_down_then_warns():
    s = Script(Settings(play_limit=20, first_lead_limit=40, countdown=10))
    s.start(leader="S")        # t = 30
    assert s.ev("tick", dt=40.0) == []          # t = 70: exactly at the limit, in time
    ds = s.ev("tick", dt=5.0)                   # t = 75
    (cd,) = of_type(ds, "countdown")
    assert (cd.seat, cd.t, cd.extra["seconds"]) == ("S", 70.0, 10)
    ds = s.play("S", "S3", dt=10.0)              # t = 85 > 80: overtime, then the play counts
    assert violations(ds) == [("S", "overtime", "warning")]
    assert ds[0].t == 80.0 and s.table.deal.turn == "E"


def test_missing_report_within_one_play_is_a_warning():
    s = Script()
    s.start(leader="S")
    s.play("S", "S3 S3 H3 H3 D3 D3 C3 C3")
    s.pass_round()
    s.play("S", "S4 S4 H4 H4 D4 D4 C4 C4")
    ds = s.pass_("E")                 # S holds 11: nothing due
    assert violations(ds) == []
    s.pass_round()
    s.play("S", "S5 S5 H5 H5 D5 D5 C5 C5")   # 3 left, no report
    ds = s.pass_("E")
    assert violations(ds) == [("S", "missing_report", "warning")]
    ds = s.report("S", 3)
    assert [d.code for d in ds] == ["report_corrected"]
    assert violations(s.pass_round()) == []


def test_report_fault_left_until_a_player_acts_twice_is_an_infraction():
    """七(一)9 / 七(二)4: a warning while each player has acted (played or passed)
    at most once since the fault; 违例 when one acts a second time."""
    s = _south_down_to_three()      # 3 left, never reported
    assert violations(s.play("E", "ST ST HT HT DT DT CT CT")) == [("S", "missing_report", "warning")]
    assert violations(s.pass_("N")) == []
    assert violations(s.pass_("W")) == []
    assert violations(s.pass_("S")) == []        # every seat has acted once: still a warning
    ds = s.play("E", "SJ SJ HJ HJ DJ DJ CJ CJ")  # E's second action
    assert violations(ds) == [("S", "missing_report", "infraction")]
    assert "acted a second time" in ds[0].message
    assert violations(s.pass_("N")) == []        # one escalation only
    assert s.table.snapshot()["ladder"]["NS"] == {"warning": 1, "infraction": 1, "foul": 0}


def test_wrong_report_is_a_warning_and_offender_going_out_as_shangyou_is_a_foul():
    s = _south_down_to_three()
    ds = s.report("S", 4)
    assert violations(ds) == [("S", "wrong_report", "warning")]
    assert "报错牌" in ds[0].message
    s.pass_round()          # E, N and W pass once each: still the warning
    ds = s.play("S", "S6 H6 D6")
    assert violations(ds) == [("S", "wrong_report", "foul")]
    (end,) = of_type(ds, "deal_end")
    assert end.extra["ended_by"] == "foul" and end.extra["winner"] == "EW"


def test_offender_going_out_not_shangyou_after_report_fault_is_an_infraction_taken_back():
    s = Script()
    s.start(leader="S")
    s.dump_out("S")                      # S is 上游; N leads (接风)
    s.play("N", "S7")
    s.play("W", "SK HK HK DK DK CK CK")
    s.pass_round()
    s.play("W", "SA SA HA HA DA DA CA CA")
    s.pass_round()
    s.play("W", "S2 S2 D2 D2 C2 C2")
    s.report("W", 6)
    s.pass_round()
    s.play("W", "LJ LJ BJ BJ")
    assert violations(s.report("W", 3)) == [("W", "wrong_report", "warning")]
    ds = s.pass_round()                  # E and N pass once each: still the warning
    assert violations(ds) == []
    ds = s.play("W", "H2 H2")            # out, not 上游: taken back, 违例
    assert violations(ds) == [("W", "wrong_report", "infraction")]
    assert s.table.deal.order == ["S"] and s.table.deal.counts["W"] == 2
    assert s.table.snapshot()["ladder"]["EW"] == {"warning": 1, "infraction": 1, "foul": 0}
    s.report("W", 2)                     # put right
    ds = s.play("W", "H2 H2")            # now W goes out, 二游
    assert violations(ds) == [] and s.table.deal.order == ["S", "W"]


def test_repeat_report_is_a_warning():
    s = _south_down_to_three()
    assert violations(s.report("S", 3)) == []
    ds = s.report("S", 3)
    assert violations(ds) == [("S", "repeat_report", "warning")]
    assert "反复报牌" in ds[0].message
    s.ev("report_clear", seat="S")
    assert violations(s.report("S", 3)) == []   # shown again after the device was cleared


def test_arrangement_is_a_warning_and_the_play_stands():
    s = Script()
    s.start(leader="S")
    ds = s.play("S", "S7 S5 S3 S6 S4")
    assert violations(ds) == [("S", "arrangement", "warning")]
    assert "出牌方式" in ds[0].message
    assert s.table.deal.counts["S"] == 22 and s.table.deal.turn == "E"


def test_a_third_copy_asks_the_referee():
    s = Script()
    s.start(leader="S")
    s.play("S", "SA SA")
    s.pass_round()
    ds = s.play("S", "SA")
    assert [(d.type, d.code) for d in ds] == [("confirm_request", "too_many_copies")]
    assert s.table.deal.counts["S"] == 25


def test_low_confidence_vision_is_asked_about_then_confirmed():
    s = Script()
    s.start(leader="S")
    ds = s.play("S", "S3", source="vision", confidence=0.4)
    assert [(d.type, d.code) for d in ds] == [("confirm_request", "low_confidence")]
    assert s.table.deal.counts["S"] == 27
    ref = len(s.table.log)
    ds = s.referee("confirm", ref=ref)
    assert ds[0].type == "correction"
    assert s.table.deal.counts["S"] == 26 and s.table.deal.turn == "E"


def test_correct_a_misread_play_recomputes_from_the_log():
    s = Script()
    s.start(leader="S")
    s.play("S", "S9")
    ds = s.play("E", "S5")
    assert violations(ds) == [("E", "illegal_play", "infraction")]
    misread = len(s.table.log) - 1         # S's play was really a 3
    ds = s.referee("correct", ref=misread, event={"cards": ["S3"]})
    assert ds[0].type == "correction" and ds[0].extra["restated_from"] > 0
    assert violations(s.table.decisions) == []
    assert s.table.deal.counts["E"] == 26 and s.table.deal.turn == "N"
    assert len(s.table.log) == 4            # nothing deleted: the correction is appended


def test_void_an_event():
    s = Script()
    s.start(leader="S")
    s.play("S", "S3")
    s.pass_("W")                            # a device glitch
    ref = len(s.table.log)
    s.referee("void", ref=ref)
    assert violations(s.table.decisions) == []
    assert s.table.snapshot()["ladder"]["EW"]["warning"] == 0


def test_device_offline_and_back():
    s = Script()
    ds = s.ev("device_status", device="pass-E", online=False, seat="E")
    assert [(d.type, d.seat, d.extra["device"]) for d in ds] == [("device_offline", "E", "pass-E")]
    assert s.ev("device_status", device="pass-E", online=False) == []
    assert [d.type for d in s.ev("device_status", device="pass-E", online=True)] == ["device_online"]


def test_a_camera_offline_asks_for_the_plays_by_hand():
    # (a camera whose frames stopped, or knocked with too few markers in view: vision.reading.camera_shift)
    from web_dashboard.messages import message, render

    s = Script()
    (d,) = s.ev("device_status", device="camera 0", online=False, source="vision",
                reason="the camera moved (30 mm) and only 2 of the table's markers are in view")
    assert (d.type, d.extra["device"], d.extra.get("camera")) == ("device_offline", "camera 0", True)
    assert "enter plays and tributes by hand" in d.message
    msg = message(d.to_dict(), {})
    assert msg["key"] == "msg_camera_offline"
    assert render(msg, "zh") == "摄像头 camera 0 离线：请人工录入出牌和进贡"
    (d,) = s.ev("device_status", device="pass-E", online=False, seat="E")
    assert message(d.to_dict(), {})["key"] == "msg_device_offline" and "camera" not in d.extra


def test_a_camera_that_moved_and_found_its_table_again_is_noted_for_the_technician():
    from web_dashboard.messages import message, render

    s = Script()
    (d,) = s.ev("device_status", device="camera 0", online=True, source="vision", moved_mm=31.5,
                reason="the camera moved (32 mm): the table found again from 4 markers")
    assert (d.type, d.code, d.extra["device"], d.extra["moved_mm"]) == ("note", "camera_moved", "camera 0", 31.5)
    assert render(message(d.to_dict(), {}), "en") == ("camera camera 0 moved 31.5 mm and found the table again "
                                                     "from its markers: have it recalibrated")
    # a camera back online after its video stopped, a device that says it moved, a move of nothing: no note
    assert s.ev("device_status", device="camera 1", online=True, source="vision") == []
    assert s.ev("device_status", device="pass-E", online=True, moved_mm=30.0) == []
    assert s.ev("device_status", device="camera 0", online=True, source="vision", moved_mm=0.0) == []


def test_a_camera_whose_picture_stays_soft_is_noted_for_the_technician():
    from web_dashboard.messages import message, render

    s = Script()
    (d,) = s.ev("device_status", device="camera 0", online=True, source="vision", soft=True,
                reason="the picture has been soft for 5 s")
    assert (d.type, d.code, d.extra["device"]) == ("note", "camera_soft", "camera 0")
    assert render(message(d.to_dict(), {}), "zh") == "摄像头 camera 0 画面持续模糊：请技术人员手动对焦"
    # sharp again, a device that is no camera, a soft that is not true: no note
    assert s.ev("device_status", device="camera 0", online=True, source="vision", soft=False) == []
    assert s.ev("device_status", device="pass-E", online=True, soft=True) == []
    assert s.ev("device_status", device="camera 0", online=True, source="vision", soft="yes") == []


def test_out_of_turn_pass_2022_variant_sits_out_the_trick():
    s = Script(Settings(out_of_turn_pass="sit_out_trick"))
    s.start(leader="S")
    s.play("S", "S3")
    ds = s.pass_("N")
    (v,) = of_type(ds, "violation")
    assert (v.seat, v.code, v.penalty) == ("N", "out_of_turn_pass", None) and "本圈不得跟牌" in v.message
    ds = s.play("E", "S5")                     # N's turn is skipped: W is next
    assert s.table.deal.turn == "W" and "N" in s.table.deal.passed
    s.pass_("W")
    ds = s.pass_("S")                          # E wins the trick; N may play again next trick
    assert of_type(ds, "trick_end")[0].extra["leader"] == "E"
    s.play("E", "S6")
    assert s.table.deal.turn == "N"
    assert s.table.snapshot()["ladder"]["NS"]["warning"] == 0


def test_a_later_void_cancels_an_earlier_void():
    s = Script()
    s.start(leader="S")
    s.play("S", "S3")
    s.pass_("W")                                   # out of turn: warning
    s.referee("void", ref=3)                       # event 4
    assert violations(s.table.decisions) == []
    ds = s.referee("void", ref=4)                  # the void was a mistake
    assert ds[0].type == "correction"
    assert violations(s.table.decisions) == [("W", "out_of_turn_pass", "warning")]
    ds = s.referee("void", ref=99)
    assert [(d.type, d.code) for d in ds] == [("confirm_request", "bad_reference")]
    ds = s.referee("correct", ref=2, event={"type": "nonsense"})
    assert [(d.type, d.code) for d in ds] == [("confirm_request", "bad_correction")]


def test_a_true_report_that_was_not_due_is_no_violation_but_a_false_one_is():
    s = Script()
    s.start(leader="S")
    s.play("S", "S3 S3 H3 H3 D3 D3 C3 C3")      # 19 left: nothing due
    assert s.report("S", 19) == []
    ds = s.report("S", 9)
    assert violations(ds) == [("S", "wrong_report", "warning")]


def test_an_overtime_while_a_camera_was_offline_is_asked_not_given():
    """七(一)5 overtime is a warning. A play laid while its camera saw nothing (covered,
    dark, frozen, stalled: vision.reading.picture_loss) is reported when the picture
    is back, late by the camera: the referee is asked, and no warning is given."""
    from web_dashboard.messages import message, render

    def first_lead_overtime(offline_at=None, back_at=None, source="vision"):
        s = Script(Settings(first_lead_limit=40, countdown=10))
        s.start()                                                  # t = 30: S to lead within 40 s
        for at, online in ((offline_at, False), (back_at, True)):
            if at is not None:
                s.ev("device_status", dt=at - s.t, device="camera 0", online=online, source=source)
        return s, s.ev("tick", dt=90.0 - s.t)                      # the countdown ended at 80

    # offline through the end of the countdown, and offline only in the middle of the limit
    for offline_at, back_at in ((35.0, None), (35.0, 45.0)):
        s, ds = first_lead_overtime(offline_at, back_at)
        assert violations(ds) == [] and s.table.snapshot()["ladder"]["NS"]["warning"] == 0
        (ask,) = of_type(ds, "confirm_request")
        assert (ask.seat, ask.code, ask.t, ask.extra["purpose"]) == ("S", "overtime_unseen", 80.0, "lead")
        assert ask.extra["cameras"] == (["camera 0"] if back_at is None else [])
        assert render(message(ask.to_dict(), {}), "en").startswith("S was not seen to act within the lead limit")
        assert "摄像头离线" in render(message(ask.to_dict(), {}), "zh")
    # a camera back before the limit began, and a pass device offline: the warning as always
    s = Script(Settings(first_lead_limit=40, countdown=10))
    s.ev("device_status", dt=5.0, device="camera 0", online=False, source="vision")
    s.ev("device_status", dt=5.0, device="camera 0", online=True, source="vision")
    s.start()                                                      # t = 40
    assert violations(s.ev("tick", dt=51.0)) == [("S", "overtime", "warning")]
    _, ds = first_lead_overtime(35.0, None, source="device")
    assert violations(ds) == [("S", "overtime", "warning")] and of_type(ds, "confirm_request") == []
