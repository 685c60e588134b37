"""The simulator's scripted faults: each is committed once and the referee catches it."""

import pytest

from referee.events import Event
from referee.settings import Settings
from referee.simulation import FAULTS, simulate_match
from referee.table import Table


@pytest.mark.parametrize("seed", [3, 4])
def test_each_fault_is_caught_once_and_the_match_ends(seed):
    # penalties given at once, as the rules make them of the script (the camera's reads taken as true)
    settings = Settings.parse_format("deals:2", camera_penalties="direct")
    injected: dict[str, int] = {}
    events = simulate_match(seed=seed, settings=settings, faults=FAULTS, injected=injected)
    assert set(injected) == set(FAULTS)
    table = Table("T01", settings)
    found: dict[str, list[int]] = {}
    for i, e in enumerate(events):
        for d in table.feed(Event.from_dict(e)):
            if d.type == "violation":
                found.setdefault(d.code, []).append(i)
    assert {code: len(v) for code, v in found.items()} == {
        "overtime": 1, "illegal_play": 1, "missing_report": 1, "wrong_tribute": 1}
    # each is caught where it was committed (a missing report: when the next seat acts)
    assert found["overtime"] == [injected["overtime"]]
    assert found["illegal_play"] == [injected["illegal_play"]]
    assert found["wrong_tribute"] == [injected["wrong_tribute"]]
    assert found["missing_report"][0] in (injected["missing_report"], injected["missing_report"] + 1)
    assert table.decisions[-1].type == "match_end"


@pytest.mark.parametrize("seed", [3, 4])
def test_a_penalty_in_the_cameras_read_waits_for_the_referee_to_confirm_it(seed):
    settings = Settings.parse_format("deals:2")     # camera_penalties "confirm", the default
    injected: dict[str, int] = {}
    events = simulate_match(seed=seed, settings=settings, faults=FAULTS, injected=injected)
    at = injected["illegal_play"]
    assert events[at]["source"] == "vision"
    table = Table("T01", settings)
    said = [d for i, e in enumerate(events) if i <= at for d in table.feed(Event.from_dict(e))]
    held = [d for d in said if d.code == "camera_penalty"]
    # (a single that does not beat the single standing: it rests on that play's read as well)
    (standing,) = [i + 1 for i, e in enumerate(events[:at]) if e["type"] == "play"][-1:]
    assert len(held) == 1 and held[0].events == (standing, at + 1) and held[0].extra["held"]["code"] == "illegal_play"
    assert held[0].extra["reads"] == [standing, at + 1] and "no penalty yet" in held[0].message
    assert not [d for d in said if d.type == "violation" and d.code == "illegal_play"]
    # the referee looks and confirms the reads, in turn: the log is judged again and the infraction stands
    out = table.feed(Event.from_dict({"t": events[at]["t"] + 1, "table": "T01", "type": "referee",
                                      "action": "confirm", "ref": at + 1}))
    assert [d.extra["reads"] for d in out if d.code == "camera_penalty"] == [[standing]]
    out = table.feed(Event.from_dict({"t": events[at]["t"] + 1, "table": "T01", "type": "referee",
                                      "action": "confirm", "ref": standing}))
    assert [d.code for d in out if d.type == "violation"] == ["illegal_play"]
    assert not [d for d in table.decisions if d.code == "camera_penalty"]
    # corrected instead (the camera misread the cards): the cards laid are judged, certain
    table2 = Table("T01", settings)
    for e in events[:at + 1]:
        table2.feed(Event.from_dict(e))
    table2.feed(Event.from_dict({"t": events[at]["t"] + 1, "table": "T01", "type": "referee",
                                 "action": "correct", "ref": at + 1, "event": {"cards": events[at]["cards"]}}))
    out = table2.feed(Event.from_dict({"t": events[at]["t"] + 1, "table": "T01", "type": "referee",
                                       "action": "confirm", "ref": standing}))
    assert [d.code for d in out if d.type == "violation"] == ["illegal_play"]
    # and with the setting "direct", as before: at once
    direct = Table("T01", Settings.parse_format("deals:2", camera_penalties="direct"))
    for e in events[:at]:
        direct.feed(Event.from_dict(e))
    now = direct.feed(Event.from_dict(events[at]))
    assert [d.code for d in now if d.type == "violation"] == ["illegal_play"]


def test_without_faults_there_are_no_violations():
    settings = Settings.parse_format("deals:2")
    table = Table("T01", settings)
    decisions = table.replay(Event.from_dict(e) for e in simulate_match(seed=3, settings=settings))
    assert not [d for d in decisions if d.type in ("violation", "confirm_request")]


def test_unknown_fault_is_refused():
    with pytest.raises(ValueError, match="unknown faults"):
        simulate_match(seed=1, faults=("cheating",))
