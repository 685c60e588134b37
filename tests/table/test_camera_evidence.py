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


def test_direct_camera_penalties_and_a_hand_entered_play_are_judged_at_once():
    from referee.settings import Settings
    _, ds = _pair_then_single(Settings(camera_penalties="direct"))
    assert violations(ds) == [("E", "illegal_play", "infraction")]
    s = Script()
    s.start(leader="S")
    s.play("S", "S3 H3")
    assert violations(s.play("E", "S5", source="manual")) == [("E", "illegal_play", "infraction")]
