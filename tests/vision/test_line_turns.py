"""A card's turn from its own straight edges (CardDetector(line_turns=True),
vision.reading.orientation.line_turns): where the zone's edge histogram misses a
card's angle and the read is empty or unsure, the angle of its longest straight
edges is tried too.  On EdjeElectronics' test photographs kept in
tests/data/real/edje (Apache-2.0): cards on their side, the photograph turned
30-35 degrees more, which read as nothing before."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.reading.orientation import line_turns
from vision.reading.table import ZONE_PX
from vision.training.real_crops import RANKS, load_labels, scaled_photo

EDJE = Path(__file__).resolve().parents[1] / "data" / "real" / "edje"


@pytest.fixture
def lines(detector_setting):
    """The shared detector with line turns on or off (restored after)."""
    return lambda on: detector_setting("line_turns", on)


def _turned(name: str, degrees: float) -> tuple[np.ndarray, list[str]]:
    boxes = load_labels(EDJE, "test")[name]
    img, _ = scaled_photo(cv2.imread(str(EDJE / "images" / "test" / name)), boxes)
    h, w = img.shape[:2]
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    return cv2.warpAffine(img, turn, (w, h), borderMode=cv2.BORDER_REFLECT), [RANKS[b["class"]] for b in boxes]


@pytest.mark.parametrize("name, degrees", [("IMG_2463.JPG", 30), ("IMG_2463.JPG", -30), ("IMG_2550.JPG", -35)])
def test_a_card_the_edge_histogram_misses_is_read_at_its_edges_angle(lines, name, degrees):
    picture, ranks = _turned(name, degrees)
    scale = lines(True).imgsz / max(ZONE_PX)
    assert lines(False).read_zones([picture], scale, 0)[0].names == []
    read = lines(True).read_zones([picture], scale, 0)[0]
    assert [n[1] for n in read.names] == ranks and all(c.confidence >= 0.8 for c in read.cards)


def test_straight_edges_give_a_turn_only_where_long_and_untried():
    img = np.full((448, 640, 3), 60, np.uint8)
    card = cv2.boxPoints(((320, 224), (130, 188), 40)).astype(np.int32)
    _ = cv2.fillConvexPoly(img, card, (235, 235, 235))
    turns = line_turns(img, tried=(0.0,))
    assert len(turns) == 2 and min(abs(t - 40) for t in turns) < 3 and min(abs(t + 50) for t in turns) < 3
    assert line_turns(img, tried=(0.0, 40.0)) == []                   # that angle was tried already
    small = np.full((448, 640, 3), 60, np.uint8)
    _ = cv2.fillConvexPoly(small, cv2.boxPoints(((320, 224), (25, 35), 40)).astype(np.int32), (235, 235, 235))
    assert line_turns(small, tried=(0.0,)) == []                      # a pip's edges are too short
    assert line_turns(np.full((448, 640, 3), 60, np.uint8)) == []     # nothing straight at all
