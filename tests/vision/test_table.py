"""Calibration from ArUco markers and zone rectification on generated frames."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision.reading.table import (ZONE_MARGIN_MM, ZONE_PX, GeometryError, TableGeometry, Zone, annotate, calibrate,
                                  default_layout)
from vision.training.synth_table import PX_PER_MM, TablePainter


@pytest.fixture(scope="module")
def painter(gen):
    return TablePainter(gen, np.random.default_rng(5))


def test_calibration_finds_the_zones_within_two_pixels(painter):
    frame, _ = painter.frame({})
    geo = calibrate(frame)
    truth = painter.top_to_frame @ np.diag([PX_PER_MM, PX_PER_MM, 1.0])
    for zone in geo.zones:
        got = geo.to_image(zone.corners_mm)
        want = cv2.perspectiveTransform(np.float32(zone.corners_mm).reshape(-1, 1, 2), truth).reshape(-1, 2)
        assert np.abs(got - want).max() < 2.0, zone.name


def test_rectified_zone_shows_the_players_cards_upright(painter, decks):
    frame, truth = painter.frame({"N-play": ["HA"]}, clean=True)
    geo = calibrate(frame)
    assert geo.rectify(frame, geo.zone("N-play")).shape[:2] == (ZONE_PX[1], ZONE_PX[0])
    # (the painter's truth is in the picture of the zone with its margin, as the watcher reads it)
    crop = geo.rectify(frame, geo.zone("N-play"), ZONE_MARGIN_MM)
    # N's card, seen from N's side: its red top-left index is in the upper left of the card
    red = (crop[:, :, 2].astype(int) - crop[:, :, 1]) > 80
    ys, xs = np.nonzero(red)
    (_, x0, y0, x1, y1), _ = sorted(truth["N-play"].labels, key=lambda l: l[2])
    assert ((xs >= x0 - 4) & (xs <= x1 + 4) & (ys >= y0 - 4) & (ys <= y1 + 4)).any()


def test_zones_do_not_overlap():
    geo = TableGeometry("T01", 900.0, default_layout(900.0))
    masks = []
    for z in geo.zones:
        m = np.zeros((900, 900), np.uint8)
        cv2.fillConvexPoly(m, np.int32(z.corners_mm), 1)
        masks.append(m)
    total = np.sum(masks, axis=0)
    # shared edges only (a line of pixels), never an area
    assert (total > 1).sum() < 2000


def test_geometry_round_trip(tmp_path, painter):
    frame, _ = painter.frame({})
    geo = calibrate(frame, table="T07")
    geo.save(tmp_path / "t.json")
    back = TableGeometry.load(tmp_path / "t.json")
    assert back.table == "T07" and back.zones == geo.zones
    assert np.allclose(back.homography, geo.homography) and back.image_size == geo.image_size
    assert annotate(frame, back).shape == frame.shape


def test_missing_markers_are_named(painter):
    frame, _ = painter.frame({})
    frame[: frame.shape[0] // 2] = 30      # hide the two top markers
    with pytest.raises(GeometryError, match="id 0, 1"):
        calibrate(frame)


@pytest.mark.parametrize("content, message", [
    ("not json", "not JSON"),
    (json.dumps({"size_mm": 900}), "malformed"),
    (json.dumps({"size_mm": 900, "zones": [{"seat": "X", "kind": "play", "corners_mm": []}]}), "bad seat"),
])
def test_bad_geometry_files(tmp_path, content, message):
    p = tmp_path / "g.json"
    p.write_text(content)
    with pytest.raises(GeometryError, match=message):
        TableGeometry.load(p)


def test_uncalibrated_geometry_cannot_rectify():
    geo = TableGeometry("T01", 900.0, default_layout(900.0))
    with pytest.raises(GeometryError, match="not calibrated"):
        geo.rectify(np.zeros((10, 10, 3), np.uint8), geo.zones[0])


def test_a_zone_rectified_with_a_margin_is_the_zone_and_the_cloth_around_it(painter):
    frame, _ = painter.frame({"S-play": ["HA", "S5"]}, clean=True)
    geo = calibrate(frame)
    zone = geo.zone("S-play")
    m = Zone.margin_px(ZONE_MARGIN_MM)
    plain, wide = geo.rectify(frame, zone), geo.rectify(frame, zone, ZONE_MARGIN_MM)
    assert wide.shape[:2] == (ZONE_PX[1] + 2 * m, ZONE_PX[0] + 2 * m)
    # the same scale: the middle is the zone's own picture
    diff = np.abs(wide[m:-m, m:-m].astype(int) - plain).mean()
    assert diff < 1.0
    # and the margin shows the table around the zone, not the zone stretched
    assert np.abs(wide[:m, m:-m].astype(int) - plain[:m]).mean() > 3 * diff


def test_calibrate_says_a_camera_too_coarse_to_read_cards(painter, tmp_path, capsys):
    """A USB camera opened without a size gives OpenCV's default, 640x480 on most:
    calibrated silently there before, with every card too small to read."""
    import json

    from commands import main
    from vision.reading.table import MIN_PX_PER_MM

    frame, _ = painter.frame({}, clean=True)
    small = cv2.resize(frame, (640, 480), interpolation=cv2.INTER_AREA)
    for name, picture in (("full", frame), ("small", small)):
        cv2.imwrite(str(tmp_path / f"{name}.png"), picture)
        assert main(["calibrate", str(tmp_path / f"{name}.png"), "--out", str(tmp_path / f"{name}.json")]) == 0
    out, err = capsys.readouterr()
    full, low = (json.loads(line)["px_per_mm"] for line in out.splitlines() if line.startswith("{"))
    assert full >= MIN_PX_PER_MM > low and abs(low / full - 640 / frame.shape[1]) < 0.02
    assert err.count("cards need 2 px/mm") == 1 and "(640x480 frames)" in err
