"""A count report fault rests on the seat's count, and the count on every play
of the deal the camera read: a card it missed leaves one too many, and a true
report then looks wrong. Under ``camera_penalties`` ``confirm`` (the default)
such a fault is held until the referee counts the seat's cards (referee
action ``count``) or confirms the reads; the count then judges the log again."""

from referee.settings import Settings

from .helpers import DUMPS, Script, of_type, violations

SEEN = {"source": "vision", "confidence": 0.99}    # a camera read it is sure of


def _held(ds):
    return [d for d in ds if d.type == "confirm_request" and d.code == "camera_count"]


def _s_down_to(last: str = "S5 S5 H5 H5 D5 D5 C5 C5", settings: Settings | None = None, **read) -> Script:
    """S leads its three bombs as camera reads (the others pass after the
    first two), the third read as ``last``: S truly holds 3 cards (S6 H6 D6)
    once it is down, and E is to act."""
    s = Script(settings)
    s.start(leader="S")
    reads = []
    for cards in (*DUMPS["S"][:2], last):
        if reads:
            s.pass_round()
        s.play("S", cards, **(read or SEEN))
        reads.append(len(s.table.log))
    s.reads = reads
    return s


def test_a_true_report_on_a_camera_count_one_too_many_is_held_and_the_count_clears_it():
    # the camera missed a 5 of S's last bomb (seven read): it counts 4 where S holds 3
    s = _s_down_to("S5 S5 H5 H5 D5 D5 C5")
    ds = s.report("S", 3)
    assert violations(ds) == []
    (held,) = _held(ds)
    assert held.seat == "S" and held.extra["held"] == {"code": "wrong_report", "penalty": "warning", "side": "NS"}
    assert held.extra["reads"] == s.reads and held.extra["counted"] == 4 and held.extra["count"] == 3
    assert held.events == (len(s.table.log),)        # the report: what the referee's count names
    # the referee counts S's hand: 3 cards; the report was true
    ds = s.referee("count", ref=held.events[-1], seat="S", count=3)
    assert of_type(ds, "correction") and violations(s.table.decisions) == [] and _held(s.table.decisions) == []
    (note,) = [d for d in s.table.decisions if d.code == "counted"]
    assert note.seat == "S" and note.extra == {"count": 3, "was": 4, "counted_at": len(s.table.log)}
    assert s.table.deal.counts["S"] == 3
    # and S's count rests on no read now: a report of 3 again is a repeat, given at once
    assert violations(s.report("S", 3)) == [("S", "repeat_report", "warning")]


def test_the_count_confirms_a_wrong_report_and_the_warning_is_given():
    s = _s_down_to()
    (held,) = _held(s.report("S", 4))              # S holds 3
    assert held.extra["counted"] == 3
    s.referee("count", ref=held.events[-1], seat="S", count=3)
    assert violations(s.table.decisions) == [("S", "wrong_report", "warning")]
    (v,) = of_type(s.table.decisions, "violation")
    assert v.extra["count"] == 4 and v.extra["holds"] == 3
    assert s.table.snapshot()["ladder"]["NS"]["warning"] == 1


def test_a_missing_report_is_held_until_counted_and_a_count_above_ten_owes_none():
    s = _s_down_to()
    ds = s.pass_("E")                 # S left 3 and did not report before E acted
    (held,) = _held(ds)
    assert held.extra["held"]["code"] == "missing_report" and held.extra["actor"] == "E"
    assert held.events == (len(s.table.log),)
    # counted as the camera says: the warning stands
    s.referee("count", ref=held.events[-1], seat="S", count=3)
    assert violations(s.table.decisions) == [("S", "missing_report", "warning")]
    # counted again (the latest count wins): 11 cards, nothing was due
    s.referee("count", ref=held.events[-1], seat="S", count=11)
    assert violations(s.table.decisions) == [] and _held(s.table.decisions) == []
    assert s.table.deal.counts["S"] == 11 and s.table.deal.reports_due == {}


def test_confirming_every_read_the_count_rests_on_gives_the_penalty_too():
    s = _s_down_to()
    s.report("S", 4)
    for r in s.reads[:-1]:
        s.referee("confirm", ref=r)
    assert violations(s.table.decisions) == []
    (held,) = _held(s.table.decisions)
    assert held.extra["reads"] == s.reads[-1:]
    s.referee("confirm", ref=s.reads[-1])
    assert violations(s.table.decisions) == [("S", "wrong_report", "warning")]


def test_direct_and_hand_entered_counts_give_the_penalty_at_once():
    s = _s_down_to(settings=Settings(camera_penalties="direct"))
    assert violations(s.report("S", 4)) == [("S", "wrong_report", "warning")]
    s = _s_down_to(source="manual")
    assert violations(s.report("S", 4)) == [("S", "wrong_report", "warning")]


def test_a_low_confidence_read_confirmed_is_the_referees_and_the_count_rests_on_it():
    # the last bomb read at 0.5: asked, confirmed; the count then rests on no unsure read
    s = Script()
    s.start(leader="S")
    for cards in DUMPS["S"][:2]:
        s.play("S", cards, source="manual")
        s.pass_round()
    s.play("S", DUMPS["S"][2], source="vision", confidence=0.5)
    s.referee("confirm", ref=len(s.table.log))
    s.pass_round()
    assert violations(s.report("S", 4)) == [("S", "wrong_report", "warning")]


def test_going_out_with_a_fault_held_on_the_count_goes_out_until_its_reads_are_answered():
    s = _s_down_to()
    (held,) = _held(s.pass_("E"))     # the missing report, held (and not counted in time)
    s.pass_round()
    ds = s.play("S", "S6 H6 D6", **SEEN)     # S leads its last three: out as 上游
    (out_held,) = _held(ds)
    assert out_held.extra["went_out"] is True and out_held.extra["held"]["penalty"] == "foul"
    assert violations(ds) == [] and s.table.deal.order == ["S"]
    # let out meanwhile: what follows rests on the count too (N before E: held, not given)
    ds = s.play("N", "S7 H7 D7", source="manual")
    assert violations(ds) == [] and [d.extra["held"]["code"] for d in ds if d.code == "held_violation"] == [
        "out_of_turn_play"]
    # S holds no cards to count now: asked about, nothing changes
    ds = s.referee("count", ref=held.events[-1], seat="S", count=3)
    assert "bad_correction" in [d.code for d in ds] and violations(s.table.decisions) == []
    # the reads answered one by one: the missing report stands, and so does going out on it
    for r in out_held.extra["reads"]:
        s.referee("confirm", ref=r)
    assert violations(s.table.decisions) == [("S", "missing_report", "warning"), ("S", "missing_report", "foul")]
    (end,) = of_type(s.table.decisions, "deal_end")
    assert end.extra["ended_by"] == "foul" and end.extra["winner"] == "EW"


def test_counted_before_going_out_the_fault_and_going_out_on_it_are_given():
    s = _s_down_to()
    (held,) = _held(s.pass_("E"))
    s.referee("count", ref=held.events[-1], seat="S", count=3)      # at once: S's three cards
    assert violations(s.table.decisions) == [("S", "missing_report", "warning")]
    s.pass_round()
    ds = s.play("S", "S6 H6 D6", **SEEN)
    assert violations(ds) == [("S", "missing_report", "foul")]


def test_a_count_made_after_the_seat_played_again_vouches_for_the_reads_or_leaves_the_fault_held():
    # S reports 3 (held on the reads: S holds 3); the referee gets there after S played a single
    s = _s_down_to("S5 S5 H5 H5 D5 D5 C5")     # the reads leave 4 (a five missed)
    (held,) = _held(s.report("S", 3))
    s.pass_round()
    s.play("S", "S6", **SEEN)                        # S leads a single: 2 cards truly, 3 by the reads
    # counted 2 now, the reads say 3, and S played since: which read missed a card is not known
    ds = s.referee("count", ref=held.events[-1], seat="S", count=2)
    (note,) = [d for d in ds if d.code == "counted"]
    assert note.extra["was"] == 3 and "has played since" in note.message
    assert violations(s.table.decisions) == [] and [d.extra["held"]["code"] for d in _held(s.table.decisions)] == [
        "wrong_report"]
    assert s.table.deal.counts["S"] == 2            # the count stands from there on
    # a seat whose reads leave what the referee counts later: they vouch for every read before it
    s = _s_down_to()
    (held,) = _held(s.report("S", 4))                # S holds 3 and reports 4
    s.pass_round()
    s.play("S", "S6", **SEEN)
    s.referee("count", ref=held.events[-1], seat="S", count=2)
    assert violations(s.table.decisions) == [("S", "wrong_report", "warning")]


def test_an_escalation_is_held_on_the_count_as_well():
    s = _s_down_to()
    (missing,) = _held(s.pass_("E"))
    s.play("N", DUMPS["N"][0], source="manual")       # N's bomb of 7s beats S's 5s
    s.pass_("W")
    s.pass_("S")
    (escalated,) = _held(s.pass_("E"))                 # E's second action: 七(二)4
    assert escalated.extra["escalated"] is True and escalated.extra["held"]["penalty"] == "infraction"
    assert violations(s.table.decisions) == []
    s.referee("count", ref=missing.events[-1], seat="S", count=3)
    assert violations(s.table.decisions) == [("S", "missing_report", "warning"),
                                             ("S", "missing_report", "infraction")]


def test_a_count_that_cannot_be_is_asked_about_and_changes_nothing():
    s = _s_down_to()
    (held,) = _held(s.report("S", 4))
    ref = held.events[-1]
    before = list(s.table.decisions)
    for bad, says in (({"seat": "S", "count": 28}, "0-27"),
                      ({"seat": "X", "count": 3}, "'seat'")):
        try:
            ds = s.referee("count", ref=ref, **bad)
        except ValueError as exc:                   # refused at the edge (Event.from_dict)
            assert "seat" in str(exc) or "count" in str(exc)
            continue
        (ask,) = of_type(ds, "confirm_request")
        assert ask.code == "bad_correction" and says in ask.message, ask.message
    (ask,) = of_type(s.referee("count", ref=999, seat="S", count=3), "confirm_request")
    assert ask.code == "bad_reference"
    assert [d for d in s.table.decisions if d.code not in ("bad_correction", "bad_reference")] == before
    assert s.table.deal.counts["S"] == 3
    # a seat out by plays no camera read leaves in doubt has no hand to count
    s = _s_down_to()
    for r in s.reads:
        s.referee("confirm", ref=r)
    s.report("S", 3)
    s.pass_round()
    s.play("S", "S6 H6 D6", source="manual")
    s.pass_("E")
    before = list(s.table.decisions)
    ds = s.referee("count", ref=len(s.table.log), seat="S", count=2)     # at E's pass, after S went out
    (ask,) = [d for d in ds if d.type == "confirm_request"]
    assert ask.code == "bad_correction" and "S is out by plays no camera read leaves in doubt" in ask.message
    assert [d for d in s.table.decisions if d.code != "bad_correction"] == before


def test_a_count_whose_penalty_ends_the_deal_is_not_asked_about_afterwards():
    # NS has a warning and an infraction: S's missing report, once counted, climbs to a foul
    s = _s_down_to()
    s.referee("penalty", side="NS", penalty="warning", code="manual")
    s.referee("penalty", side="NS", penalty="infraction", code="manual")
    (held,) = _held(s.pass_("E"))
    ds = s.referee("count", ref=held.events[-1], seat="S", count=3)
    assert ("S", "missing_report", "warning") in violations(s.table.decisions)
    (end,) = of_type(s.table.decisions, "deal_end")
    assert end.extra["ended_by"] == "foul"
    # the count made after the deal ended on what it settled: no request about it
    assert "bad_correction" not in [d.code for d in ds]
