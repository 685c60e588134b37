"""The watcher reads a zone again only when its picture changed."""

import numpy as np

from vision.reading.detector import CardRead, ZoneRead
from vision.reading.table import TABLE_MM, TableGeometry, default_layout
from vision.reading.watch import TableWatcher


class CountingDetector:
    """Stands in for the ONNX model: says every zone holds S5 S5, and counts reads."""

    imgsz = 320

    def __init__(self):
        self.calls = 0

    def read_zone(self, image):
        self.calls += 1
        return ZoneRead([CardRead("S5", 0.95, (0, 0, 1, 1), ()), CardRead("S5", 0.95, (2, 0, 3, 1), ())])

    def read_zones(self, images, scale=None, margin=0, empties=None):
        return [self.read_zone(image) for image in images]


def _geometry():
    px = 1.0
    n = int(TABLE_MM * px)
    return TableGeometry(table="T01", size_mm=TABLE_MM, zones=default_layout(TABLE_MM),
                         homography=np.diag([px, px, 1.0]), image_size=(n, n))


def test_unchanged_zones_are_not_read_again_and_changes_are():
    geo = _geometry()
    det = CountingDetector()
    watcher = TableWatcher(geo, det, zones=["S-play", "N-play"])
    rng = np.random.default_rng(1)
    frame = rng.integers(20, 60, (geo.image_size[1], geo.image_size[0], 3), dtype=np.uint8)
    events = []
    for i in range(5):
        noisy = np.clip(frame.astype(np.int16) + rng.integers(-2, 3, frame.shape), 0, 255).astype(np.uint8)
        events += watcher.process(i * 0.2, noisy)
    assert det.calls == 2                      # once per zone: sensor noise is not a change
    assert [(e.type, e.seat, e.cards) for e in events] == [("play", "S", ("S5", "S5")), ("play", "N", ("S5", "S5"))]
    # something is laid in S's zone: only that zone is read again
    zone = geo.zone("S-play")
    x0, y0 = np.min(np.array(zone.corners_mm), axis=0).astype(int)
    changed = frame.copy()
    changed[y0 + 5:y0 + 60, x0 + 5:x0 + 80] = 230
    watcher.process(1.2, changed)
    assert det.calls == 3


def test_reuse_can_be_switched_off():
    geo = _geometry()
    det = CountingDetector()
    watcher = TableWatcher(geo, det, zones=["S-play"], reuse_below=0)
    frame = np.full((geo.image_size[1], geo.image_size[0], 3), 40, np.uint8)
    for i in range(4):
        watcher.process(i * 0.2, frame)
    assert det.calls == 4


class HandThenCards(CountingDetector):
    """Sees a hand over S5 S5 on its first read, then the cards alone."""

    def read_zone(self, image):
        read = super().read_zone(image)
        read.hand = self.calls == 1
        return read


def test_a_read_that_saw_a_hand_is_not_reused():
    """Fingers leaving a zone's edge barely change its picture: the zone is
    read again until no hand is seen, so the play is reported."""
    geo = _geometry()
    det = HandThenCards()
    watcher = TableWatcher(geo, det, zones=["S-play"], stable_s=0.2, stable_frames=3)
    frame = np.full((geo.image_size[1], geo.image_size[0], 3), 40, np.uint8)
    events = []
    for i in range(6):
        events += watcher.process(i * 0.2, frame)
    assert det.calls == 2                       # the hand read, then one without it, then reuse
    assert [(e.type, e.cards) for e in events] == [("play", ("S5", "S5"))]


def test_every_zone_goes_to_the_detector_at_the_play_zones_scale():
    """A reminder zone is not blown up to the model's input: its cards stay
    the size the model learnt (blown up, a joker's picture was taken for a hand)."""
    from vision.reading.table import ZONE_MARGIN_MM, ZONE_PX, Zone

    class ScaleRecorder(CountingDetector):
        def read_zones(self, images, scale=None, margin=0, empties=None):
            self.scales = getattr(self, "scales", []) + [scale]
            self.margins = getattr(self, "margins", []) + [margin]
            self.sizes = [im.shape[1::-1] for im in images]
            return super().read_zones(images, scale, margin)

    geo = _geometry()
    det = ScaleRecorder()
    watcher = TableWatcher(geo, det, zones=["S-play", "S-reminder"])
    watcher.read(np.full((geo.image_size[1], geo.image_size[0], 3), 40, np.uint8))
    assert det.scales == [det.imgsz / max(ZONE_PX)]
    assert det.sizes[1][0] < det.sizes[0][0]          # the reminder zone is the smaller picture
    # each picture carries the cloth around its zone, and the detector is told how much
    m = Zone.margin_px(ZONE_MARGIN_MM)
    assert det.margins == [m] and m > 0
    assert det.sizes[0] == (ZONE_PX[0] + 2 * m, ZONE_PX[1] + 2 * m)
