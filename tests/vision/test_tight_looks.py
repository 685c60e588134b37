"""A box the detector is sure of that the classifier leaves unnamed is looked at again, cut tighter.

At the zone's scale the detector boxes a real card's index, turned back
upright, about a quarter too large; the crop then holds the index with
the card's edge and a pip, and the classifier names it no index.  Cut
again a fifth smaller about its middle, it names the face; a face named so surely is read (never a joker: a pip or a
picture cut small may look like one).  models/MODEL_CARD.md, "A sure box
looked at again, tighter"."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.reading.detector import DOUBT_BOX, TIGHT_SURE, CardDetector
from vision.reading.index_classifier import LABELS, NONE
from vision.reading.pairing import IndexDetection
from vision.training.card_faces import zone_picture

from tests.vision.conftest import REAL_FACES, read_alone as _read


@pytest.mark.parametrize("name, face, angles", [("eight_of_diamonds_090.jpg", "D8", (40.0, -40.0)),
                                                ("nine_of_clubs_055.jpg", "C9", (40.0,))])
def test_a_real_card_turned_40_degrees_whose_index_is_boxed_loosely_is_read(
        detector, detector_setting, bench_wood, name, face, angles):
    # real faces (CC0, tests/data/real/faces_more) from the card-face set's training split
    card = cv2.imread(str(REAL_FACES / name))
    assert _read(detector, zone_picture(card, bench_wood, 0.0)).names == [face]
    for angle in angles:
        assert _read(detector, zone_picture(card, bench_wood, angle)).names == [face]
    # before: read as nothing
    without = detector_setting("tight_looks", False)
    assert [_read(without, zone_picture(card, bench_wood, angle)).names for angle in angles] == [[]] * len(angles)


class _Classifier:
    """Names each crop by what is painted at its middle (a stand-in for the
    network, to test the decision alone): grey level g -> label g // 4
    at ``p``, the rest to NONE."""

    def __init__(self, p: float):
        self.p = p

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        out = np.zeros((len(crops), len(LABELS)), np.float32)
        for n, c in enumerate(crops):
            g = int(c[c.shape[0] // 2, c.shape[1] // 2, 0])
            out[n, NONE] = 1.0
            if g:
                out[n, g // 4] = self.p
                out[n, NONE] = 1.0 - self.p
        return out


def _looked(p: float, grey: int, box_conf: float, named: list[IndexDetection] | None = None,
            index_conf: float = 0.25):
    det = CardDetector.__new__(CardDetector)      # the decision alone: no models loaded
    det.classifier, det.index_conf = _Classifier(p), index_conf
    image = np.zeros((200, 200, 3), np.uint8)
    image[60:100, 40:70] = grey
    box = IndexDetection("INDEX", box_conf, (35.0, 50.0, 75.0, 110.0))
    nameds, unnameds = [list(named or [])], [[box]]
    det._looked_at_tighter([image], nameds, unnameds, [box])
    return nameds[0], unnameds[0]


def test_a_sure_unnamed_box_named_surely_cut_tighter_is_read_with_its_box():
    named, unnamed = _looked(0.9, 4 * LABELS.index("S7"), DOUBT_BOX)
    assert [(d.name, round(d.confidence, 2), d.box) for d in named] == [("S7", 0.9, (35.0, 50.0, 75.0, 110.0))]
    assert unnamed == [] and named[0].alternatives[0][0] == "NONE"


@pytest.mark.parametrize("p, grey, box_conf", [
    (TIGHT_SURE - 0.05, 4 * LABELS.index("S7"), 0.9),      # named, but not surely enough
    (0.99, 4 * LABELS.index("BJ"), 0.9),                    # a joker: never taken from a tighter cut
    (0.99, 4 * LABELS.index("LJ"), 0.9),
    (0.99, 4 * LABELS.index("S7"), DOUBT_BOX - 0.01),       # a faint box: not looked at again
])
def test_a_box_stays_unnamed(p, grey, box_conf):
    named, unnamed = _looked(p, grey, box_conf)
    assert named == [] and len(unnamed) == 1


def test_a_face_under_the_detectors_own_naming_threshold_is_not_taken():
    named, unnamed = _looked(0.9, 4 * LABELS.index("S7"), 0.9, index_conf=0.95)
    assert named == [] and len(unnamed) == 1


def test_a_box_the_classifier_is_sure_is_no_index_is_not_looked_at_again():
    det = CardDetector.__new__(CardDetector)
    det.classifier, det.index_conf = _Classifier(0.99), 0.25
    image = np.zeros((200, 200, 3), np.uint8)
    image[60:100, 40:70] = 4 * LABELS.index("S7")
    box = IndexDetection("INDEX", 0.9, (35.0, 50.0, 75.0, 110.0))
    nameds, unnameds = [[]], [[box]]
    det._looked_at_tighter([image], nameds, unnameds, [])      # (not among the unsure: a pip, a picture)
    assert nameds == [[]] and unnameds == [[box]]


def test_a_box_on_an_index_already_named_is_not_looked_at_again():
    there = IndexDetection("H5", 0.95, (36.0, 52.0, 74.0, 108.0))
    named, unnamed = _looked(0.99, 4 * LABELS.index("S7"), 0.9, [there])
    assert named == [there] and len(unnamed) == 1


@pytest.mark.parametrize("there, taken", [
    (("S7", 140.0), False),     # the same face a card's corner away: another corner of that card
    (("S7", 300.0), True),      # the same face farther than a card's diagonal: another card
    (("H7", 140.0), True),      # another face beside it: another card
])
def test_a_face_named_tighter_beside_a_card_of_its_name_is_that_cards_corner(there, taken):
    # (a deck printing four corners: the loose crop showed its other two corners beside
    # the card's edge, which the classifier names no index; cut tighter they read as the card)
    name, x = there
    read = IndexDetection(name, 0.95, (x, 50.0, x + 40.0, 110.0))
    named, unnamed = _looked(0.9, 4 * LABELS.index("S7"), 0.9, [read])
    assert [d.name for d in named] == ([name, "S7"] if taken else [name]) and len(unnamed) == (0 if taken else 1)
