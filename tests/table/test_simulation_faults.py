"""The simulator's scripted faults: each is committed once and the referee catches it."""

import pytest

from referee.events import Event
from referee.settings import Settings
from referee.simulation import FAULTS, simulate_match
from referee.table import Table


@pytest.mark.parametrize("seed", [3, 4])
def test_each_fault_is_caught_once_and_the_match_ends(seed):
    settings = Settings.parse_format("deals:2")
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


def test_without_faults_there_are_no_violations():
    settings = Settings.parse_format("deals:2")
    table = Table("T01", settings)
    decisions = table.replay(Event.from_dict(e) for e in simulate_match(seed=3, settings=settings))
    assert not [d for d in decisions if d.type in ("violation", "confirm_request")]


def test_unknown_fault_is_refused():
    with pytest.raises(ValueError, match="unknown faults"):
        simulate_match(seed=1, faults=("cheating",))
