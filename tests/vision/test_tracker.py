"""The zone tracker: stable plays only, hands hold it back, clears reported."""

from __future__ import annotations

from vision.reading.detector import CardRead, ZoneRead
from vision.reading.tracker import ZoneTracker


def read(*names, hand=False, conf=0.9):
    return ZoneRead([CardRead(n, conf, (0, 0, 1, 1), ()) for n in names], hand=hand)


def feed(tracker, reads, t0=0.0, dt=0.1):
    out = []
    for k, r in enumerate(reads):
        out += tracker.update(t0 + k * dt, r)
    return out


def test_play_reported_once_when_stable():
    tr = ZoneTracker("E", stable_s=0.3, stable_frames=3)
    events = feed(tr, [read("S5", "S5")] * 8)
    assert [(e.type, e.seat, e.cards, e.source) for e in events] == [("play", "E", ("S5", "S5"), "vision")]
    assert events[0].t == 0.3 and events[0].get("zone") == "E-play"


def test_nothing_reported_while_a_hand_covers_the_cards():
    tr = ZoneTracker("S", stable_s=0.3, stable_frames=3)
    assert feed(tr, [read("S5", hand=True)] * 10) == []
    # hand gone, the player still adds a card: only the final play is reported
    events = feed(tr, [read("S5")] * 2 + [read("S5", "H5", hand=True)] * 3 + [read("S5", "H5")] * 5, t0=1.0)
    assert [e.cards for e in events] == [("S5", "H5")]


def test_flicker_resets_the_window():
    tr = ZoneTracker("N", stable_s=0.2, stable_frames=3)
    assert feed(tr, [read("HA"), read("HA"), read("DA"), read("HA"), read("DA")]) == []


def test_trick_cleared_then_next_play():
    tr = ZoneTracker("W", stable_s=0.2, stable_frames=3)
    events = feed(tr, [read("C3", "C3")] * 4 + [read()] * 4 + [read("DK")] * 4)
    assert [e.type for e in events] == ["play", "zone_clear", "play"]
    assert events[2].cards == ("DK",)


def test_empty_zone_at_start_is_not_a_clear():
    tr = ZoneTracker("W", stable_s=0.2, stable_frames=3)
    assert feed(tr, [read()] * 10) == []


def test_confidence_is_the_weakest_seen():
    # the raw score (calibrated, it is mapped monotonically: tests/vision/test_confidence.py)
    tr = ZoneTracker("S", stable_s=0.2, stable_frames=3, calibration=None)
    events = feed(tr, [read("S5", conf=0.9), read("S5", conf=0.4), read("S5", conf=0.8)])
    assert events[0].confidence == 0.4


def test_reminder_zone_reports_a_card():
    tr = ZoneTracker("N", kind="reminder", stable_s=0.2, stable_frames=3)
    events = feed(tr, [read("BJ")] * 3)
    assert [(e.type, e.card) for e in events] == [("tribute", "BJ")]


def printed(*names):
    return ZoneRead([], printed=tuple(names))


def test_printed_pass_and_count_cards():
    tr = ZoneTracker("E", kind="reminder", stable_s=0.2, stable_frames=3)
    events = feed(tr, [printed("PASS")] * 4 + [printed()] * 4 + [printed("COUNT7")] * 4
                  + [printed("COUNT6")] * 4 + [printed()] * 4)
    assert [(e.type, e.count) for e in events] == [("pass", None), ("report", 7), ("report", 6),
                                                   ("report_clear", None)]
    assert all(e.seat == "E" and e.source == "vision" for e in events)


def test_third_copy_of_a_card_is_flagged():
    tr = ZoneTracker("S", stable_s=0.2, stable_frames=3, calibration=None)
    events = feed(tr, [read("S5", "S5", "S5")] * 3)
    assert events[0].confidence == 0.45 and "more than two of S5" in events[0].get("warning")


UNREAD_LOOK = ZoneRead(unread=True)     # empty, but something new lies there (vision.reading.laid)


def test_something_laid_that_the_camera_cannot_read_is_an_unread_play_once_it_has_held():
    from vision.reading.tracker import UNREAD
    tr = ZoneTracker("S", stable_s=0.3, stable_frames=3, unread_s=1.0)
    # (a shadow or a passing look that holds under unread_s is nothing)
    assert feed(tr, [read()] * 3 + [UNREAD_LOOK] * 9 + [read()] * 3) == []
    events = feed(tr, [UNREAD_LOOK] * 30, t0=2.0)
    assert [(e.type, e.cards, e.confidence, e.get("doubt")) for e in events] == [("play", (), 0.0, UNREAD)]
    assert events[0].t == 3.0 and "cannot read" in events[0].get("warning")
    # taken away: the zone is clear again
    assert [e.type for e in feed(tr, [read()] * 5, t0=6.0)] == ["zone_clear"]


def test_an_unread_look_becomes_cards_read_and_a_reminder_zone_reports_none():
    tr = ZoneTracker("S", stable_s=0.3, stable_frames=3)
    events = feed(tr, [UNREAD_LOOK] * 15 + [read("S5", "S5")] * 5)
    assert [(e.type, e.cards) for e in events] == [("play", ()), ("play", ("S5", "S5"))]
    reminder = ZoneTracker("S", kind="reminder", stable_s=0.3, stable_frames=3)
    assert feed(reminder, [UNREAD_LOOK] * 30) == []
    # a hand over the zone holds it back as for cards
    assert feed(ZoneTracker("S"), [ZoneRead(unread=True, hand=True)] * 30) == []


def test_the_unread_hold_is_checked():
    import pytest
    assert ZoneTracker("S", stable_s=2.0).unread_s == 2.0 and ZoneTracker("S").unread_s == 1.0
    for bad in (0.1, float("nan"), 601.0):
        with pytest.raises(ValueError, match="unread_s"):
            ZoneTracker("S", stable_s=0.4, unread_s=bad)
