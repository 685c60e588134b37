"""The demo's script: every fault once, and cards on the table long enough to be seen."""

from collections import Counter
from dataclasses import replace

import pytest

from referee.events import Event
from referee.table import Table
from table_node.demo import LAY_AHEAD, make_script


@pytest.fixture(scope="module")
def script():
    return make_script()


def test_the_script_holds_each_fault_once(script):
    # judged as laid (its penalties at once): each fault once
    direct = replace(script.settings, camera_penalties="direct")
    decisions = Table("T01", direct).replay([Event.from_dict(e) for e in script.events])
    assert Counter(d.code for d in decisions if d.type == "violation") == Counter(
        {"overtime": 1, "illegal_play": 1, "missing_report": 1, "wrong_tribute": 1})
    # under the table's default those resting on the camera wait for the referee: the illegal
    # play for the read to be confirmed, the missing report for the seat's cards to be counted
    held = Table("T01", script.settings).replay([Event.from_dict(e) for e in script.events])
    assert script.settings.camera_penalties == "confirm"
    assert Counter(d.code for d in held if d.type == "violation") == Counter(
        {"overtime": 1, "wrong_tribute": 1})
    assert [d.extra["held"]["code"] for d in held if d.code == "camera_penalty"] == ["illegal_play"]
    assert [d.extra["held"]["code"] for d in held if d.code == "camera_count"] == ["missing_report"]


def test_cards_stay_down_long_enough_for_the_camera(script):
    """A play's cards are laid LAY_AHEAD before its time and stay at least until
    then: a finished trick is cleared before the next cards go down."""
    shown: dict[str, tuple[float, tuple]] = {}
    for c in script.changes:
        if c.cards is None and c.zone in shown:
            laid_at, cards = shown.pop(c.zone)
            assert c.t - laid_at >= LAY_AHEAD + 0.5, (c.zone, cards, laid_at, c.t)
        elif c.cards is not None:
            shown[c.zone] = (c.t, c.cards)
    seen = [(c.zone, c.cards) for c in script.changes if c.cards is not None and c.zone.endswith("play")]
    plays = [(f"{e['seat']}-play", tuple(e["cards"])) for e in script.events if e["type"] == "play"]
    assert seen == plays
