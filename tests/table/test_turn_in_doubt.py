"""A seat the turn waits for may be out: its count rests on camera reads.

A camera that reads a seat's last pair as a single leaves that seat holding a
card it does not hold: the turn then waits for a seat that is out, and the
next seat, acting in turn, seems to act before it (越序出牌, 越序表态). Under
``camera_penalties`` ``confirm`` (the default) such an act is held while the
waited-for seat's count rests on reads neither confirmed nor corrected; the
referee counts that seat's cards, and a count of 0 says it went out with its
last play."""

from referee.settings import Settings

from .helpers import Script, of_type, violations

SEEN = {"source": "vision", "confidence": 0.99}    # a camera read it is sure of


def _count_requests(ds):
    return [d for d in ds if d.type == "confirm_request" and d.code == "camera_count"]


def _s_leads_three_bombs(settings: Settings | None = None, report: bool = True) -> Script:
    """S leads three 8-card bombs as sure camera reads, the others passing,
    and reports its 3 cards left (unless ``report`` is false: S went out with
    the third): S holds 3 by the reads and is to lead again."""
    s = Script(settings)
    s.start(leader="S")
    for cards in ("S3 S3 H3 H3 D3 D3 C3 C3", "S4 S4 H4 H4 D4 D4 C4 C4", "S5 S5 H5 H5 D5 D5 C5 C5"):
        s.play("S", cards, **SEEN)
        if cards.startswith("S5") and report:
            s.report("S", 3)
        s.pass_round()
    return s


def test_a_seat_that_went_out_on_a_misread_play_is_counted_out_and_the_turn_follows():
    s = Script()
    s.start(leader="S")
    # S's 27 cards: three bombs and a triple; the triple read as a pair (D6 missed)
    reads = []
    for cards in ("S3 S3 H3 H3 D3 D3 C3 C3", "S4 S4 H4 H4 D4 D4 C4 C4", "S5 S5 H5 H5 D5 D5 C5 C5"):
        s.play("S", cards, **SEEN)
        reads.append(len(s.table.log))
        s.pass_round()
    s.report("S", 3)
    s.play("S", "S6 H6", **SEEN)                  # truly S6 H6 D6: S is out (上游)
    last = len(s.table.log)
    reads.append(last)
    assert s.table.deal.counts["S"] == 1 and s.table.deal.order == []
    s.play("E", "S9 S9")                          # a hand-entered play, in turn
    s.pass_("N")
    s.pass_("W")
    # truly the trick is E's (S is out); the table waits for S and E's lead seems out of turn
    ds = s.play("E", "SK")
    assert violations(ds) == []
    (held,) = [d for d in _count_requests(ds) if d.extra.get("offender") == "E"]
    assert held.seat == "S" and held.extra["counted"] == 1
    assert held.extra["held"] == {"code": "out_of_turn_play", "penalty": "infraction", "side": "EW"}
    assert held.extra["reads"] == reads
    assert held.events == (len(s.table.log),)
    # what follows is held too: N plays over E's lead, in turn
    ds = s.play("N", "SA")
    assert violations(ds) == [] and [d.code for d in ds if d.type == "confirm_request"] == ["held_violation"]
    # the referee finds S's hand empty: S went out with its last play
    s.referee("count", ref=held.events[-1], seat="S", count=0)
    assert violations(s.table.decisions) == [] and _count_requests(s.table.decisions[-6:]) == []
    assert s.table.deal.order == ["S"] and s.table.deal.counts["S"] == 0
    (out,) = [d for d in s.table.decisions if d.code == "out"]
    assert out.seat == "S" and out.events == (last,) and out.extra["place"] == 1
    (note,) = [d for d in s.table.decisions if d.code == "counted"]
    assert note.events == (last,) and note.extra["count"] == 0 and note.extra["was"] == 3
    assert s.table.deal.turn == "W"               # E led, N played: W is to act


def test_a_true_out_of_turn_play_waits_for_the_count_and_is_given_on_it():
    s = _s_leads_three_bombs()
    ds = s.play("E", "SK")                         # S is to lead
    assert violations(ds) == []
    (held,) = _count_requests(ds)
    assert held.seat == "S" and held.extra["offender"] == "E" and held.extra["counted"] == 3
    s.referee("count", ref=held.events[-1], seat="S", count=3)
    assert violations(s.table.decisions) == [("E", "out_of_turn_play", "infraction")]
    (v,) = of_type(s.table.decisions, "violation")
    assert v.extra["expected"] == "S" and v.events == (held.events[-1],)
    assert s.table.deal.turn == "S" and s.table.deal.counts["E"] == 27


def test_a_seat_counted_out_whose_partner_leads_by_jiefeng_leaves_the_play_out_of_turn():
    s = _s_leads_three_bombs(report=False)
    (held,) = _count_requests(s.play("E", "SK"))
    # S counted out: it went out with its third bomb (three cards missed);
    # the others had passed, so N leads by 接风 and E's lead is out of turn, given at once
    s.referee("count", ref=held.events[-1], seat="S", count=0)
    assert s.table.deal.order == ["S"]
    assert violations(s.table.decisions) == [("E", "out_of_turn_play", "infraction")]
    (v,) = of_type(s.table.decisions, "violation")
    assert v.extra["expected"] == "N"


def test_a_pass_before_a_seat_in_doubt_is_held_too_and_under_the_2022_rule():
    for variant in ("warning", "sit_out_trick"):
        s = _s_leads_three_bombs(Settings(out_of_turn_pass=variant))
        s.play("S", "S6", **SEEN)                 # S leads a single: E to act (N holds 27)
        s.pass_("E")
        ds = s.pass_("W")                         # before N, whose count rests on no read: given at once
        assert violations(ds) == [("W", "out_of_turn_pass", None if variant == "sit_out_trick" else "warning")]
        s = _s_leads_three_bombs(Settings(out_of_turn_pass=variant))
        ds = s.pass_("E")                         # S is to lead, and S's count rests on its reads
        assert violations(ds) == [], variant
        (held,) = _count_requests(ds)
        assert held.extra["held"]["code"] == "out_of_turn_pass" and held.seat == "S"
        assert s.table.deal.barred == set()


def test_direct_penalties_and_a_seat_counted_by_hand_give_the_act_at_once():
    s = _s_leads_three_bombs(Settings(camera_penalties="direct"))
    assert violations(s.play("E", "SK")) == [("E", "out_of_turn_play", "infraction")]
    s = Script()
    s.start(leader="S")
    s.play("S", "S3 S3 H3 H3 D3 D3 C3 C3", source="manual")
    s.pass_round()
    assert violations(s.play("E", "SK")) == [("E", "out_of_turn_play", "infraction")]


def test_a_count_of_none_for_a_seat_whose_count_rests_on_no_read_is_asked_about_and_changes_nothing():
    s = _s_leads_three_bombs()
    (held,) = _count_requests(s.play("E", "SK"))
    before = list(s.table.decisions)
    ds = s.referee("count", ref=held.events[-1], seat="W", count=0)
    (ask,) = of_type(ds, "confirm_request")
    assert ask.code == "bad_correction" and "W holds 27 by plays no camera read leaves in doubt" in ask.message
    assert [d for d in s.table.decisions if d.code != "bad_correction"] == before


def test_a_third_copy_the_referee_confirmed_counts_an_earlier_read_was_wrong():
    s = Script()
    s.start(leader="S")
    s.play("S", "ST", **SEEN)                      # truly S9, read as a ten
    s.play("E", "SJ", source="manual")
    s.play("N", "SQ", source="manual")
    s.passes("W", "S", "E")                        # N won the trick and leads
    ds = s.play("N", "ST ST", **SEEN)              # a pair of tens: a third ten by the reads
    assert [d.code for d in ds if d.type == "confirm_request"] == ["too_many_copies"]
    assert s.table.deal.counts["N"] == 26
    s.referee("confirm", ref=len(s.table.log))     # the referee looked: N laid two tens
    deal = s.table.deal
    assert deal.counts["N"] == 24 and deal.seen["ST"] == 3 and deal.turn == "W"
    assert "too_many_copies" not in [d.code for d in s.table.decisions if d.type == "confirm_request"]


def test_a_seat_holding_more_than_ten_by_the_reads_is_not_taken_for_out():
    s = Script()
    s.start(leader="S")
    for cards in ("S3 S3 H3 H3 D3 D3 C3 C3", "S4 S4 H4 H4 D4 D4 C4 C4"):
        s.play("S", cards, **SEEN)
        s.pass_round()
    assert s.table.deal.counts["S"] == 11
    assert violations(s.play("E", "SK")) == [("E", "out_of_turn_play", "infraction")]


def test_an_overtime_waits_while_the_seat_to_act_may_be_out():
    s = _s_leads_three_bombs()
    ds = s.ev("tick", dt=45.0)                     # S's lead limit and its countdown ran out
    assert violations(ds) == []
    (held,) = _count_requests(ds)
    assert held.seat == "S" and held.extra["offender"] == "S" and held.extra["held"]["code"] == "overtime"
    # S holds its three cards: the warning is S's
    s.referee("count", ref=held.events[-1], seat="S", count=3)
    assert violations(s.table.decisions) == [("S", "overtime", "warning")]
    # S holds none: it went out with its third bomb, N was to lead (接风), and the warning is N's
    s = _s_leads_three_bombs(report=False)
    (held,) = _count_requests(s.ev("tick", dt=45.0))
    s.referee("count", ref=held.events[-1], seat="S", count=0)
    assert s.table.deal.order == ["S"]
    assert violations(s.table.decisions) == [("N", "overtime", "warning")]


def _deal_the_reads_leave_unfinished() -> Script:
    """N goes out first (its plays entered by hand); then S lays its 27 cards as
    camera reads, the last (S6 H6 D6) read as S6 H6: truly 上游 and 二游 are
    N and S, 双上, and the deal is over; by the reads S holds a card."""
    s = Script()
    s.start(leader="N")
    s.dump_out("N")
    for cards in ("S3 S3 H3 H3 D3 D3 C3 C3", "S4 S4 H4 H4 D4 D4 C4 C4", "S5 S5 H5 H5 D5 D5 C5 C5"):
        s.play("S", cards, **SEEN)
        if cards.startswith("S5"):
            s.report("S", 3)
        s.pass_round()
    s.play("S", "S6 H6", **SEEN)
    s.report("S", 1)
    assert s.table.deal.order == ["N"] and s.table.deal.counts["S"] == 1
    return s


def test_a_deal_the_reads_leave_unfinished_is_scored_once_the_seat_is_counted_out():
    s = _deal_the_reads_leave_unfinished()
    ds = s.start(deal=2, level="5", leader=None)
    # (E's turn had run out too: held on the same count)
    (held,) = [d for d in _count_requests(ds) if "deal_unfinished" in d.extra]
    assert held.seat == "S" and held.extra["deal_unfinished"] == 1 and held.extra["counted"] == 1
    assert "deal_unfinished" not in [d.code for d in ds]        # the count request says it
    assert s.table.match.rows == []                             # dropped unscored meanwhile
    s.referee("count", ref=held.events[-1], seat="S", count=0)
    (row,) = s.table.match.rows
    assert row.order[:2] == ["N", "S"] and row.upgrade == 3
    assert s.table.deal.number == 2 and s.table.deal.tributers        # and deal 2 opens with tribute
    assert _count_requests(s.table.decisions) == []
    assert [d.code for d in s.table.decisions if d.type == "confirm_request"
            and d.code in ("deal_unfinished", "level_mismatch")] == []


def test_a_deal_truly_unfinished_is_dropped_as_before_once_counted():
    s = _deal_the_reads_leave_unfinished()
    (held,) = [d for d in _count_requests(s.start(deal=2, level="2", leader="S")) if "deal_unfinished" in d.extra]
    s.referee("count", ref=held.events[-1], seat="S", count=1)         # S did hold a card
    assert s.table.match.rows == [] and s.table.deal.number == 2
    assert [d.code for d in s.table.decisions if d.type == "note" and d.code == "counted"] == ["counted"]
    assert violations(s.table.decisions) == [("E", "overtime", "warning")]     # E's turn had run out
    assert _count_requests(s.table.decisions) == []


def test_a_seat_the_reads_put_out_early_is_counted_back_in():
    s = _s_leads_three_bombs()                   # S holds S6 H6 D6
    s.play("S", "S6 H6 D6", **SEEN)              # truly the pair S6 H6: a phantom D6 read in
    last = len(s.table.log)
    s.report("S", 1)                             # (its report of the card left: wrong by the reads, held)
    assert s.table.deal.order == ["S"]
    s.passes("E", "N", "W")                      # (by the reads N leads, 接风)
    # truly S won the trick and leads its D6: refused (out by the reads), and asked
    ds = s.play("S", "D6", source="manual")
    (held,) = _count_requests(ds)
    assert held.seat == "S" and held.extra["seat_out"] is True and held.extra["counted"] == 0
    s.referee("count", ref=held.events[-1], seat="S", count=0)  # it just laid its last card
    (note,) = [d for d in s.table.decisions if d.code == "counted"]
    assert note.events == (last,) and note.extra["count"] == 1    # after the pair it held the D6
    (out,) = [d for d in s.table.decisions if d.code == "out"]
    assert out.events == (len(s.table.log) - 1,) and s.table.deal.order == ["S"]
    assert [d.code for d in s.table.decisions if d.code in ("seat_out", "camera_count")] == []
    assert violations(s.table.decisions) == []


def test_a_deal_a_phantom_card_ended_goes_on_once_the_seat_is_counted_back_in():
    s = Script()
    s.start(leader="N")
    s.dump_out("N")                              # N 上游 (entered by hand)
    for cards in ("S3 S3 H3 H3 D3 D3 C3 C3", "S4 S4 H4 H4 D4 D4 C4 C4", "S5 S5 H5 H5 D5 D5 C5 C5"):
        s.play("S", cards, **SEEN)
        if cards.startswith("S5"):
            s.report("S", 3)
        s.pass_round()
    s.play("S", "S6 H6 D6", **SEEN)              # truly the pair S6 H6: a phantom D6 read in
    assert [d.type for d in s.table.decisions].count("deal_end") == 1      # 双上 by the reads
    (held,) = _count_requests(s.report("S", 1))  # its report of the card it holds: after the deal, asked
    assert held.seat == "S" and held.extra["seat_out"] is True and "deal over" in held.message
    # asked once: the next acts after the deal the reads ended are plain requests
    assert [d.code for d in s.passes("E", "W") if d.type == "confirm_request"] == ["no_deal", "no_deal"]
    s.play("S", "D6", source="manual")           # truly S won the trick and leads its last card
    s.referee("count", ref=held.events[-1], seat="S", count=0)      # it just laid its last card
    (end,) = [d for d in s.table.decisions if d.type == "deal_end"]
    assert end.events == (len(s.table.log) - 1,) and end.extra["order"][:2] == ["N", "S"]
    assert violations(s.table.decisions) == [] and _count_requests(s.table.decisions) == []


def test_a_hand_counted_after_the_seats_own_late_play_is_the_hand_after_that_play():
    # S runs over and then leads a pair: the overtime, found at that play, waits for S's count
    s = _s_leads_three_bombs()
    ds = s.play("S", "S6 H6", dt=45.0, source="manual")
    (held,) = _count_requests(ds)
    assert held.extra["held"]["code"] == "overtime" and held.seat == "S" and held.extra["counted"] == 3
    assert s.table.deal.counts["S"] == 1
    s.report("S", 3)                               # its true count (held: the reads leave it 1)
    # the reads had missed two of S's cards: it holds 3 after the pair (5 before it); the warning
    # stands, and the report was true
    s.referee("count", ref=held.events[-1], seat="S", count=3)
    assert violations(s.table.decisions) == [("S", "overtime", "warning")]
    assert s.table.deal.counts["S"] == 3


def _s_lays_more_than_read() -> tuple[Script, list]:
    """S's first pair read with a phantom third card: S's reads leave it one
    card too few, and its last pair, SA SA, is more than they leave it
    (its reports true throughout); the decisions of that last play."""
    s = Script()
    s.start(leader="S")
    s.play("S", "S9 S9 H9", **SEEN)               # truly the pair S9 S9: a phantom H9 read in
    s.pass_round()
    for cards in ("S3 S3 H3 H3 D3 D3 C3 C3", "S4 S4 H4 H4 D4 D4 C4 C4"):
        s.play("S", cards, **SEEN)
        s.pass_round()
    s.report("S", 9)                              # true (the reads leave 8: held on S's count)
    s.play("S", "S6 H6 D6", **SEEN)
    s.report("S", 6)
    s.pass_round()
    s.play("S", "S2 H2 D2 C2", **SEEN)
    s.report("S", 2)
    s.pass_round()
    assert s.table.deal.counts["S"] == 1          # truly 2: SA SA
    return s, s.play("S", "SA SA", **SEEN)


def test_a_seat_laying_more_than_the_reads_leave_it_is_counted_and_goes_out_with_that_play():
    s, ds = _s_lays_more_than_read()              # more than the reads leave S: asked as S's count
    (held,) = [d for d in _count_requests(ds) if d.extra.get("laid")]
    assert held.seat == "S" and held.extra["laid"] == 2 and held.extra["counted"] == 1
    s.referee("count", ref=held.events[-1], seat="S", count=0)     # S laid its last two
    assert s.table.deal.order == ["S"]
    (out,) = [d for d in s.table.decisions if d.code == "out"]
    assert out.events == (held.events[-1],) and out.extra["place"] == 1
    assert violations(s.table.decisions) == []
