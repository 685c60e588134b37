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
from vision.reading.index_classifier import LABELS, NONE, IndexClassifier
from vision.reading.pairing import IndexDetection
from vision.training.card_faces import zone_picture

from tests.vision.conftest import REAL_FACES, read_alone as _read


# (the eight of clubs, eight_of_clubs_115.jpg, showed this at 40 degrees until session 57, the six
# of diamonds at 35 and the nine of hearts at 40 until session 60: the classifiers shipped since
# read them otherwise; a line-drawn four of clubs and an art deck's jack of clubs show it now)
@pytest.mark.parametrize("name, face, angles", [("four_of_clubs_040.jpg", "C4", (40.0,)),
                                                ("jack_of_clubs_124.jpg", "CJ", (40.0,))])
def test_a_real_card_turned_35_to_40_degrees_whose_index_is_boxed_loosely_is_read(
        detector, detector_setting, bench_wood, name, face, angles):
    # real faces (CC0, tests/data/real/faces_more) from the card-face set's training split
    card = cv2.imread(str(REAL_FACES / name))
    assert _read(detector, zone_picture(card, bench_wood, 0.0)).names == [face]
    for angle in angles:
        assert _read(detector, zone_picture(card, bench_wood, angle)).names == [face]
    # before: read as nothing
    without = detector_setting("tight_looks", False)
    assert [_read(without, zone_picture(card, bench_wood, angle)).names for angle in angles] == [[]] * len(angles)


class _Classifier(IndexClassifier):
    """Names each crop by what is painted at its middle (a stand-in for the
    network, to test the decision alone): grey level g -> label g // 4
    at ``p``, the rest to NONE; a crop whose top-left corner is marked red
    (the loose box's margin reaches the mark, the tighter one's does not)
    is NONE at ``loose_none``, the rest spread over the faces."""

    def __init__(self, p: float, loose_none: float = 0.5):      # (no network loaded)
        self.p, self.loose_none = p, loose_none

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        out = np.zeros((len(crops), len(LABELS)), np.float32)
        for n, c in enumerate(crops):
            g = int(c[c.shape[0] // 2, c.shape[1] // 2, 0])
            out[n, NONE] = 1.0
            if c[0, 0, 2] > 127:
                out[n, :NONE], out[n, NONE] = (1.0 - self.loose_none) / NONE, self.loose_none
            elif g:
                out[n, g // 4] = self.p
                out[n, NONE] = 1.0 - self.p
        return out


BOX = (35.0, 50.0, 75.0, 110.0)


def _picture(grey: int, marked: bool = False) -> np.ndarray:
    image = np.zeros((200, 200, 3), np.uint8)
    image[60:100, 40:70] = grey
    if marked:      # about where a crop of BOX with the classifier's margin has its top-left corner
        image[36:46, 24:34] = (0, 0, 255)
    return image


def _detector(classifier: _Classifier, index_conf: float = 0.25) -> CardDetector:
    det = CardDetector.__new__(CardDetector)      # the decision alone: no models loaded
    det.classifier, det.index_conf, det.tight_looks, det.joker_looks = classifier, index_conf, True, False
    return det


def _looked(p: float, grey: int, box_conf: float, named: list[IndexDetection] | None = None,
            index_conf: float = 0.25):
    box = IndexDetection("INDEX", box_conf, BOX)
    nameds, unnameds = [list(named or [])], [[box]]
    _detector(_Classifier(p), index_conf)._looked_at_tighter([_picture(grey)], nameds, unnameds, [(0, box)])
    return nameds[0], unnameds[0]


def test_a_sure_unnamed_box_named_surely_cut_tighter_is_read_with_its_box():
    named, unnamed = _looked(0.9, 4 * LABELS.index("S7"), DOUBT_BOX)
    assert [(d.name, round(d.confidence, 2), d.box) for d in named] == [("S7", 0.9, BOX)]
    assert unnamed == [] and named[0].alternatives[0][0] == "NONE"


@pytest.mark.parametrize("p, grey", [
    (TIGHT_SURE - 0.05, 4 * LABELS.index("S7")),      # named, but not surely enough
    (0.99, 4 * LABELS.index("BJ")),                    # a joker: never taken from a tighter cut
    (0.99, 4 * LABELS.index("LJ")),
])
def test_a_box_stays_unnamed(p, grey):
    named, unnamed = _looked(p, grey, 0.9)
    assert named == [] and len(unnamed) == 1


def test_a_face_under_the_detectors_own_naming_threshold_is_not_taken():
    named, unnamed = _looked(0.9, 4 * LABELS.index("S7"), 0.9, index_conf=0.95)
    assert named == [] and len(unnamed) == 1


@pytest.mark.parametrize("box_conf, loose_none, read", [
    (0.9, 0.5, ["S7"]),                  # a sure box the loose crop names no index unsurely: read
    (0.9, 0.995, []),                    # the loose crop sure it is no index (a pip, a picture): not looked at
    (DOUBT_BOX - 0.01, 0.5, []),         # a faint box: not looked at
])
def test_which_boxes_the_classifier_leaves_unnamed_are_looked_at_again(box_conf, loose_none, read):
    det = _detector(_Classifier(0.9, loose_none))
    found = [IndexDetection("INDEX", box_conf, BOX)]
    assert [d.name for d in det._name_indices_many([_picture(4 * LABELS.index("S7"), marked=True)], [found])[0]] \
        == read
    det.tight_looks = False
    assert det._name_indices_many([_picture(4 * LABELS.index("S7"), marked=True)], [found]) == [[]]


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
