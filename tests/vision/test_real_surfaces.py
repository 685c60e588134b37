"""Hands on a real surface: a bare wooden table must not hold a zone.

The table top is a real photograph of wooden boards from Debian's
``mate-backgrounds`` (GPL-2+; ``apt-get install mate-backgrounds``), not
generated cloth.  The shipped detector sees a "hand" in the grain of some
of its zones; the watcher believes a hand only while the zone's picture
moves (:class:`vision.reading.watch.HandGate`).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.reading.table import ZONE_MARGIN_MM, ZONE_PX, Zone, calibrate
from vision.reading.watch import HandGate, TableWatcher, thumbnail
from vision.training.real_surfaces import LIGHTS, WOOD, relight
from vision.training.synth_table import TablePainter

pytestmark = pytest.mark.skipif(not WOOD.exists(), reason=f"{WOOD} absent: apt-get install mate-backgrounds")

ZONES = ["S-play", "E-play", "N-play", "W-play"]


@pytest.fixture(scope="module")
def wood():
    return cv2.imread(str(WOOD))[:, 320:2240]      # the middle, square


@pytest.mark.parametrize("hand_model", [False, None, "landmarks"],
                         ids=["detector alone", "with the hand model", "with MediaPipe's models"])
def test_a_bare_wooden_table_raises_no_hand(gen, detector, wood, hand_model):
    """Four play zones on bare wood (seed 1: the detector alone takes W-play's
    grain for a hand in every frame): after the gate's second, no zone waits; a
    play then laid there is reported.  With the hand model judging the
    detector's boxes, or MediaPipe's models (the default), no zone waits at all."""
    from vision.reading.detector import CardDetector

    det = detector if hand_model == "landmarks" else CardDetector(threads=1, hand_model=hand_model,
                                                                   hand_landmarks=False)
    painter = TablePainter(gen, np.random.default_rng(1), top=wood)
    first, _ = painter.frame({})
    watcher = TableWatcher(calibrate(first), det, zones=ZONES)
    events, waiting = [], []
    for i in range(36):
        t = i / 10
        frame, _ = painter.frame({"W-play": ["C7", "C7"]} if t >= 2.0 else {})
        events += watcher.process(t, frame)
        waiting.append((t, sorted(z for z, h in watcher.hands.hand.items() if h)))
    still = [(t, z) for t, z in waiting if z and not 1.9 < t < 3.05]   # laying the cards moved W-play at 2.0
    assert [(t, z) for t, z in still if t > watcher.hands.hand_still_s + 0.05] == []
    if hand_model is False:
        assert watcher.hands.ignored > 0        # the detector alone would have held a zone
    else:
        assert [(t, z) for t, z in waiting if z and not 1.9 < t < 3.05] == []
    assert [(e.type, e.seat, e.cards) for e in events] == [("play", "W", ("C7", "C7"))]


@pytest.mark.parametrize("light", [l for l in LIGHTS if l != "as_shot"])
def test_a_still_zone_under_another_light_waits_no_longer_than_the_gate(light, gen, detector, wood):
    """Whatever the detector says about a still wooden zone under a warm, cold,
    dim light or a hard shadow band, a hand is believed for one second at most."""
    rng = np.random.default_rng(7)
    m = Zone.margin_px(ZONE_MARGIN_MM)
    size = (ZONE_PX[0] + 2 * m, ZONE_PX[1] + 2 * m)
    crop = cv2.resize(wood[200:200 + size[1] * 2, 300:300 + size[0] * 2], size, interpolation=cv2.INTER_AREA)
    picture = gen.render(["D9", "DT", "DJ", "DQ", "DK"], rng, background=relight(crop, light, rng), margin=m).image
    read = detector.read_zones([picture], detector.imgsz / max(ZONE_PX), m)[0]
    gate = HandGate()
    believed = []
    for i in range(20):
        frame = np.clip(picture + rng.normal(0, 2, picture.shape), 0, 255).astype(np.uint8)
        believed.append(gate("S-play", i / 10, thumbnail(frame), read).hand)
    assert not any(believed[11:])
    assert believed[:11] == [read.hand] * 11     # what the detector says, while the zone may still move
