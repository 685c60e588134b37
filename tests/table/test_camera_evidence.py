"""A camera read is evidence, not a verdict (issue: rules fidelity, point 6):
while a low-confidence read of the deal awaits confirmation, a violation is
held as a request to confirm and carries no penalty; confirming or
correcting the read judges the log again."""

from .helpers import Script, of_type, violations


def _held(ds):
    return [d for d in ds if d.type == "confirm_request" and d.code == "held_violation"]


def _low_confidence_lead():
    s = Script()
    s.start(leader="S")
    ds = s.play("S", "S3", source="vision", confidence=0.47)
    (ask,) = of_type(ds, "confirm_request")
    assert ask.code == "low_confidence"
    return s, ask.events[0]


def test_a_violation_after_an_unconfirmed_read_is_held_without_penalty():
    s, read = _low_confidence_lead()
    ds = s.play("E", "S5")               # S's play was not counted: E seems out of turn
    assert violations(ds) == []
    (held,) = _held(ds)
    assert held.seat == "E" and held.extra["held"]["code"] == "out_of_turn_play"
    assert held.extra["reads"] == [read] and f"#{read}" in held.message
    assert s.table.snapshot()["ladder"]["EW"] == {"warning": 0, "infraction": 0, "foul": 0}


def test_confirming_the_read_judges_again_and_the_held_violation_goes():
    s, read = _low_confidence_lead()
    s.play("E", "S5")
    ds = s.referee("confirm", ref=read)
    assert of_type(ds, "correction")
    assert violations(s.table.decisions) == [] and _held(s.table.decisions) == []
    assert s.table.deal.counts["S"] == 26 and s.table.deal.counts["E"] == 26
    assert s.table.deal.turn == "N"


def test_correcting_the_read_to_what_makes_the_violation_true_gives_the_penalty():
    s, read = _low_confidence_lead()
    s.play("E", "S5")
    # the referee sees on the evidence picture that S laid a pair, not a single
    s.referee("correct", ref=read, event={"cards": ["S3", "D3"], "confidence": 1.0})
    # S's pair stands; E's single S5 does not beat it: 出错牌, now a real penalty
    assert violations(s.table.decisions) == [("E", "illegal_play", "infraction")]
    assert _held(s.table.decisions) == []


def test_a_referee_ruling_is_never_held():
    s, _ = _low_confidence_lead()
    ds = s.referee("penalty", side="EW", penalty="warning", code="signalling")
    assert violations(ds) == [("E", "signalling", "warning")]


def test_a_read_of_the_last_deal_does_not_hold_violations_in_the_next():
    s, _ = _low_confidence_lead()
    s.start(deal=2, level="2", leader="S")          # the referee restarted (deal 1 dropped)
    ds = s.play("E", "S5")
    assert violations(ds) == [("E", "out_of_turn_play", "infraction")]


# A penalty found in the cards a sure camera read: held until the referee confirms the read
# (setting camera_penalties "confirm", the default). On real card faces the camera misses a
# card of a pair and stays sure of the other: models/MODEL_CARD.md, "Laid as players lay them".

def _pair_then_single(settings=None, **read):
    from referee.settings import Settings
    s = Script(settings or Settings())
    s.start(leader="S")
    s.play("S", "S3 H3")
    ds = s.play("E", "S5", source="vision", confidence=0.99, **read)   # a single on a pair: 出错牌
    return s, ds


def test_an_illegal_play_the_camera_is_sure_of_waits_for_the_referee():
    s, ds = _pair_then_single()
    assert violations(ds) == []
    (ask,) = [d for d in ds if d.code == "camera_penalty"]
    read = ask.extra["reads"][0]
    assert ask.seat == "E" and ask.events[-1] == read and ask.extra["held"] == {
        "code": "illegal_play", "penalty": "infraction", "side": "EW"}
    assert "no penalty yet" in ask.message and f"#{read}" in ask.message
    assert s.table.snapshot()["ladder"]["EW"] == {"warning": 0, "infraction": 0, "foul": 0}
    assert s.table.deal.turn == "E" and s.table.deal.counts["E"] == 27     # taken back either way
    # the referee looks and confirms: the infraction stands, as it would have at once
    s.referee("confirm", ref=read)
    assert violations(s.table.decisions) == [("E", "illegal_play", "infraction")]
    assert [d for d in s.table.decisions if d.code == "camera_penalty"] == []


def test_the_read_corrected_to_the_pair_laid_is_judged_legal():
    s, ds = _pair_then_single()
    read = next(d for d in ds if d.code == "camera_penalty").extra["reads"][0]
    s.referee("correct", ref=read, event={"cards": ["S5", "H5"]})     # the camera missed the second five
    assert violations(s.table.decisions) == []
    assert [d for d in s.table.decisions if d.type == "confirm_request"] == []
    assert s.table.deal.counts["E"] == 25 and s.table.deal.turn == "N"


def test_while_a_held_illegal_play_awaits_the_referee_what_follows_is_held_too():
    # E's pair read as a single: held, and taken back, so the turn stays with E; N then lays
    # its pair in turn (if the camera missed a card) or out of turn (if it did not): not known yet
    s, ds = _pair_then_single()
    read = next(d for d in ds if d.code == "camera_penalty").extra["reads"][0]
    ds = s.play("N", "S7 H7", source="vision", confidence=0.99)
    assert violations(ds) == []
    (held,) = _held(ds)
    assert held.seat == "N" and held.extra["held"]["code"] == "out_of_turn_play" and held.extra["reads"] == [read]
    # the camera missed E's second five: the pair stands, and N played in turn
    s.referee("correct", ref=read, event={"cards": ["S5", "H5"]})
    assert violations(s.table.decisions) == [] and _held(s.table.decisions) == []
    assert s.table.deal.counts["N"] == 25 and s.table.deal.turn == "W"


def test_a_held_illegal_play_confirmed_gives_what_followed_its_penalty_too():
    s, ds = _pair_then_single()
    read = next(d for d in ds if d.code == "camera_penalty").extra["reads"][0]
    s.play("N", "S7 H7", source="vision", confidence=0.99)
    s.referee("confirm", ref=read)       # E did lay a single: taken back, and N played before E
    assert violations(s.table.decisions) == [("E", "illegal_play", "infraction"),
                                             ("N", "out_of_turn_play", "infraction")]


def test_a_held_arrangement_warning_holds_nothing_after_it():
    # a play's arrangement changes nothing that follows: a later violation is given at once
    s = Script()
    s.start(leader="S")
    ds = s.play("S", "S7 S5 S3 S6 S4", source="vision", confidence=0.99)     # a straight laid unsorted
    assert [d.extra["held"]["code"] for d in ds if d.code == "camera_penalty"] == ["arrangement"]
    assert violations(s.play("N", "S8 S9 ST SJ SQ", source="manual")) == [("N", "out_of_turn_play", "infraction")]


def _tribute_then_higher(tribute_read: dict, play_read: dict):
    """W's tribute SK (as read), the return, and W's later SA: proof that the tribute was wrong."""
    s = Script()
    s.start(deal=2, level="5", leader=None, previous_order=["S", "E", "N", "W"], levels={"NS": "5", "EW": "2"})
    s.ev("tribute", seat="W", card="SK", **tribute_read)
    tribute = len(s.table.log)
    s.ev("return", seat="S", card="S3", source="manual")
    return s, tribute, s.play("W", "SA", **play_read)


def test_a_wrong_tribute_proved_on_a_camera_read_tribute_waits_for_that_read():
    # the play is entered by hand, the tribute was the camera's: the tribute's read may be the mistake
    sure = {"source": "vision", "confidence": 0.99}
    s, tribute, ds = _tribute_then_higher(sure, {"source": "manual"})
    assert violations(ds) == []
    (ask,) = [d for d in ds if d.code == "camera_penalty"]
    assert ask.extra["reads"] == [tribute] and ask.events[-1] == tribute and f"#{tribute}" in ask.message
    assert s.table.deal.phase == "play"           # the deal goes on meanwhile
    s.referee("confirm", ref=tribute)
    assert violations(s.table.decisions) == [("W", "wrong_tribute", "foul")]


def test_with_tribute_and_play_both_read_each_is_confirmed_in_turn():
    sure = {"source": "vision", "confidence": 0.99}
    s, tribute, ds = _tribute_then_higher(sure, sure)
    (ask,) = [d for d in ds if d.code == "camera_penalty"]
    play = len(s.table.log)
    assert ask.extra["reads"] == [tribute, play] and ask.events == (tribute, play)
    s.referee("confirm", ref=play)        # the dashboard's confirm names the last: the play
    (ask,) = [d for d in s.table.decisions if d.code == "camera_penalty"]
    assert ask.extra["reads"] == [tribute] and ask.events[-1] == tribute
    s.referee("confirm", ref=tribute)
    assert violations(s.table.decisions) == [("W", "wrong_tribute", "foul")]
    # had the camera misread the tribute (W gave its ace), the correction clears it
    s.referee("correct", ref=tribute, event={"card": "SA"})
    assert violations(s.table.decisions) == []


def test_direct_camera_penalties_and_a_hand_entered_play_are_judged_at_once():
    from referee.settings import Settings
    _, ds = _pair_then_single(Settings(camera_penalties="direct"))
    assert violations(ds) == [("E", "illegal_play", "infraction")]
    s = Script()
    s.start(leader="S")
    s.play("S", "S3 H3")
    assert violations(s.play("E", "S5", source="manual")) == [("E", "illegal_play", "infraction")]


def test_a_read_refused_as_impossible_holds_what_follows_until_it_is_answered():
    # N's pair of queens read with a ten for a queen, both tens of spades already laid: refused (a
    # third copy), so the turn stays with N; W's pair in turn is held, not 越序出牌
    s = Script()
    s.start(leader="S")
    s.play("S", "ST ST", source="manual")
    s.play("E", "SJ HJ", source="manual")
    ds = s.play("N", "SQ ST", source="vision", confidence=0.9)
    assert [d.code for d in ds if d.type == "confirm_request"] == ["too_many_copies"]
    read = len(s.table.log)
    ds = s.play("W", "SK HK", source="manual")
    assert violations(ds) == [] and _held(ds)[0].extra["reads"] == [read]
    s.referee("correct", ref=read, event={"cards": ["SQ", "HQ"]})
    assert violations(s.table.decisions) == [] and _held(s.table.decisions) == []
    assert s.table.deal.turn == "S"
