"""The watcher's hand gate: a hand is believed while the zone moves, and movement counts as a hand."""

from __future__ import annotations

import numpy as np

from vision.reading.detector import CardRead, ZoneRead
from vision.reading.tracker import ZoneTracker
from vision.reading.watch import HandGate

RNG = np.random.default_rng(3)
STILL = np.full((64, 64), 100, np.int16)


def noisy(thumb, sd=1.0):
    return (thumb + RNG.normal(0, sd, thumb.shape)).astype(np.int16)


def cards(hand=False):
    return ZoneRead([CardRead("S5", 0.99, (0, 0, 1, 1), ())], hand=hand)


def test_a_hand_on_a_still_zone_is_dropped_after_the_gate_time():
    gate = HandGate(hand_still_s=1.0)
    believed = [gate("S-play", i / 10, noisy(STILL), cards(hand=True)).hand for i in range(20)]
    assert believed == [True] * 11 + [False] * 9
    assert gate.ignored == 9 and gate.still["S-play"]


def test_a_hand_that_keeps_moving_is_believed():
    gate = HandGate(hand_still_s=1.0)
    thumbs = [STILL + (i % 2) * 6 for i in range(30)]          # changes every frame
    assert all(gate("S-play", i / 10, t, cards(hand=True)).hand for i, t in enumerate(thumbs))


def test_a_moving_zone_holds_the_tracker_even_when_the_detector_sees_no_hand():
    """Cards going down under a hand the detector missed: the zone changes a
    lot from frame to frame, so the tracker waits until it is still."""
    gate, tracker = HandGate(), ZoneTracker("S", stable_s=0.2, stable_frames=3, calibration=None)
    events = []
    for i in range(12):
        t = i / 10
        thumb = STILL + (20 * (i % 2) if i < 6 else 0)        # moving for 0.5 s, then still
        events += [(t, e) for e in tracker.update(t, gate("S-play", t, noisy(thumb), cards()))]
    # the last change is at 0.6 (back to still); then 3 still frames over 0.2 s
    assert [(t, e.type) for t, e in events] == [(0.9, "play")]
    assert gate.moving == 6


def test_sensor_noise_is_not_movement_and_zero_believes_the_detector_alone():
    gate = HandGate()
    assert not any(gate("S-play", i / 10, noisy(STILL, sd=3.0), cards()).hand for i in range(10))
    alone = HandGate(hand_still_s=0)
    assert all(alone("S-play", i / 10, noisy(STILL), cards(hand=True)).hand for i in range(30))
