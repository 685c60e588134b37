"""The hand model on real photographs: hands raise a hand, bare tables do not.

The hand model is the second stage when MediaPipe's models are turned off
(``CardDetector(hand_landmarks=False)``); the default, MediaPipe's models,
is tested on the same photographs in test_hand_landmarks.py.

The photographs in tests/data/real (licences in its LICENSE.md) are from the
sets' validation and test splits, or from the two sets seen from above
(overhead, rps), never trained on.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.reading.detector import FLOAT_MODEL, CardDetector, DetectorError
from vision.reading.hand_model import INPUT, HandModel, crop
from vision.training.real_photos import (HAND_COVER, OVERHEAD_KINDS, RPS_GESTURES, RealPhotosError,
                                         green_cloth_photos, hand_photos, held_out_hands, off_green_box, overhead_photos,
                                         zone_view)

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
MARGIN = 32


def _zone_picture(path: Path, hands=()) -> tuple[np.ndarray, float]:
    """The photograph's middle as a zone picture with its margin, as the table watcher reads one."""
    return zone_view(cv2.imread(str(path), cv2.IMREAD_COLOR), hands, margin=MARGIN)


def _hands() -> list:
    """The test photographs of hands, with their boxes (laid out as the dataset's split folders)."""
    from vision.training.real_photos import Photo, _obb_boxes

    out = []
    for p in sorted((REAL / "hands").glob("*.jpg")):
        img = cv2.imread(str(p))
        out.append(Photo(p, _obb_boxes(p.with_suffix(".txt"), img.shape[1], img.shape[0])))
    return out


@pytest.fixture(scope="module")
def det() -> CardDetector:
    # the float detector: its boxes are the same on every CPU (the 8-bit one's
    # differ where the CPU sums 8-bit products in 16 bits, vision.reading.runtime)
    return CardDetector(FLOAT_MODEL, threads=1, hand_landmarks=False)


@pytest.mark.parametrize("path", sorted((REAL / "tables").glob("*.jpg")), ids=lambda p: p.name[:24])
def test_a_real_table_without_a_hand_raises_none(det, path):
    zone, _ = _zone_picture(path)
    read = det.read_zones([zone], margin=MARGIN)[0]
    assert read.hand is False
    assert read.hand_probability is not None and read.hand_probability < det.hand_threshold


# (the hand model misses 4.3 % of real hands, models/MODEL_CARD.md; 100IMG, one of
# these, scores 0.49 on the float detector's hand box, 0.5 or more on the 8-bit one's)
@pytest.mark.parametrize("photo", [pytest.param(p, marks=pytest.mark.xfail(
    strict=True, reason="one of the hand model's misses: 0.49 on the float detector's box"))
    if p.path.name.startswith("100IMG") else p for p in _hands()], ids=lambda p: p.path.name[:12])
def test_a_real_hand_over_the_zone_raises_one(det, photo):
    zone, cover = _zone_picture(photo.path, photo.hands)
    assert cover >= HAND_COVER          # the hand is in the zone-shaped middle
    assert det.read_zones([zone], margin=MARGIN)[0].hand is True


@pytest.mark.parametrize("name", ["04.jpg", "41.jpg"])
def test_an_arm_reaching_in_seen_from_above_raises_a_hand(det, name):
    """The table camera's own view: a bare arm holding a hammer, a gloved hand."""
    zone, _ = _zone_picture(REAL / "overhead" / name)
    assert det.read_zones([zone], margin=MARGIN)[0].hand is True


# (on the float detector's hand boxes; on the 8-bit one's, 2026-12-02, arm 01 scored
# 0.28 and a bare table 0.49, where float gives 0.50 and 0.38: over the real-hands bench
# the hand model's false alarms and misses moved both ways, models/MODEL_CARD.md,
# "Speed over many tables")
def test_every_arm_seen_from_above_looks_more_like_a_hand_than_any_bare_table(det):
    arms = [_zone_picture(p)[0] for p in sorted((REAL / "overhead").glob("*.jpg"))]
    tables = [_zone_picture(p)[0] for p in sorted((REAL / "tables").glob("*.jpg"))]
    p_arms = [r.hand_probability for r in det.read_zones(arms, margin=MARGIN)]
    p_tables = [r.hand_probability for r in det.read_zones(tables, margin=MARGIN)]
    assert len(p_arms) == 4 and len(p_tables) == 4
    assert min(p_arms) > max(p_tables)


# seen from above a green cloth, the shipped model misses 34 % of hands (models/MODEL_CARD.md,
# "Hands from above a green cloth"): a fist and a flat hand seen edge-on are among them (p 0.11, 0.09)
GREEN_CLOTH_MISSES = {"rock_0NDYNEoDui7o64gU.png", "paper_0cb6cVL8pkfi4wF6.png"}


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.xfail(
    strict=True, reason="a hand from above the shipped hand model misses")) if p.name in GREEN_CLOTH_MISSES else p
    for p in sorted((REAL / "rps").glob("*.png"))], ids=lambda p: p.stem)
def test_a_hand_seen_from_above_a_green_cloth_raises_a_hand(det, path):
    """A flat hand and two fingers over a green cloth, as over a felt table (p 0.99 both)."""
    zone, _ = _zone_picture(path)
    assert det.read_zones([zone], margin=MARGIN)[0].hand is True


def test_green_cloth_photographs_are_read_by_gesture(tmp_path):
    folder = tmp_path / "rps" / "data"
    for gesture in RPS_GESTURES:
        (folder / gesture).mkdir(parents=True)
    (folder / "rock" / "b.png").write_bytes(b"")
    (folder / "rock" / "a.png").write_bytes(b"")
    (folder / "paper" / "c.png").write_bytes(b"")
    (folder / "README_rpc-cv-images.txt").write_text("notice")
    assert [p.path.name for p in green_cloth_photos(tmp_path, "rock")] == ["a.png", "b.png"]
    assert [p.path.name for p in green_cloth_photos(tmp_path, "paper")] == ["c.png"]
    assert green_cloth_photos(tmp_path, "scissors") == []
    assert all(p.hands == () for p in green_cloth_photos(tmp_path, "rock"))   # no boxes: a hand over every middle
    with pytest.raises(ValueError):
        green_cloth_photos(tmp_path, "lizard")
    with pytest.raises(RealPhotosError):
        green_cloth_photos(tmp_path / "nowhere", "rock")


def test_green_cloth_photographs_split_a_held_out_third_first_by_name(tmp_path):
    folder = tmp_path / "rps" / "data" / "rock"
    folder.mkdir(parents=True)
    for name in ("f", "a", "e", "b", "d", "c"):
        (folder / f"{name}.png").write_bytes(b"")
    test = [p.path.name for p in green_cloth_photos(tmp_path, "rock", "test")]
    train = [p.path.name for p in green_cloth_photos(tmp_path, "rock", "train")]
    assert test == ["a.png", "b.png"]          # the copies in tests/data/real/rps are of this third
    assert train == ["c.png", "d.png", "e.png", "f.png"]
    with pytest.raises(ValueError):
        green_cloth_photos(tmp_path, "rock", "valid")


def test_the_hand_on_a_green_cloth_is_boxed_by_what_is_not_cloth():
    """The rps set has no labels: its hands are boxed by colour, on every test copy."""
    for path in sorted((REAL / "rps").glob("*.png")):
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        box = off_green_box(img)
        assert box is not None
        h, w = img.shape[:2]
        # each hand reaches in from the right edge and covers a fifth to two thirds of the picture
        assert box[2] == w
        assert 0.2 < (box[2] - box[0]) * (box[3] - box[1]) / (w * h) < 0.7


def test_overhead_photographs_are_sorted_by_what_the_hand_wears(tmp_path):
    numbers = [n for kind in OVERHEAD_KINDS.values() for n in kind]
    assert sorted(numbers) == list(range(1, 61))            # each of the 60 once
    folder = tmp_path / "overhead" / "data" / "workspace_images"
    folder.mkdir(parents=True)
    for n in (1, 12, 24, 60):
        (folder / f"{n:02d}.png").write_bytes(b"")
    (folder / "notes.png").write_bytes(b"")
    assert [p.path.name for p in overhead_photos(tmp_path, "bare")] == ["01.png"]
    assert [p.path.name for p in overhead_photos(tmp_path, "opaque glove")] == ["12.png", "60.png"]
    assert [p.path.name for p in overhead_photos(tmp_path, "clear glove")] == ["24.png"]
    with pytest.raises(ValueError):
        overhead_photos(tmp_path, "mittens")
    with pytest.raises(RealPhotosError):
        overhead_photos(tmp_path / "nowhere", "bare")


def test_the_detector_alone_still_says_hands_when_asked(det):
    zone, _ = _zone_picture(_hands()[0].path, _hands()[0].hands)
    alone = CardDetector(threads=1, hand_model=False, hand_landmarks=False)
    read = alone.read_zones([zone], margin=MARGIN)[0]
    assert read.hand_probability is None
    assert read.hand == (read.hand_confidence >= alone.hand_conf)


def test_a_missing_hand_model_is_a_detector_error(tmp_path):
    with pytest.raises(DetectorError, match="hand model not found"):
        CardDetector(threads=1, hand_model=tmp_path / "none.onnx", hand_landmarks=False)


def test_a_file_that_is_no_model_is_a_detector_error(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(DetectorError, match="cannot load hand model"):
        CardDetector(threads=1, hand_model=bad, hand_landmarks=False)


def test_the_model_judges_the_box_it_is_given():
    img = np.zeros((200, 300, 3), np.uint8)
    img[50:100, 100:200] = 255                        # a white box, black around it
    inside = crop(img, (110.0, 60.0, 190.0, 90.0))
    assert inside.shape == (INPUT, INPUT, 3) and inside.min() == 255
    assert crop(img, (0.0, 0.0, 40.0, 40.0)).max() == 0
    model = HandModel()
    assert model.probabilities([]).shape == (0,)
    p = model.probabilities([(img, (110.0, 60.0, 190.0, 90.0)), (img, (0.0, 0.0, 40.0, 40.0))])
    assert p.shape == (2,) and ((0 <= p) & (p <= 1)).all()


def test_no_hand_box_means_no_hand_whatever_the_model(det):
    img = np.full((512, 704, 3), 40, np.uint8)       # a bare dark cloth: nothing for the detector to box
    read = det.read_zones([img], margin=MARGIN)[0]
    assert read.hand_boxes == () and read.hand is False and read.hand_probability == 0.0


def test_oriented_labels_become_boxes_around_them(tmp_path):
    from vision.training.real_photos import _obb_boxes

    label = tmp_path / "a.txt"
    label.write_text("0 0.5 0.1 0.9 0.5 0.5 0.9 0.1 0.5\nnot a label\n")
    assert _obb_boxes(label, 200, 100) == ((20.0, 10.0, 180.0, 90.0),)


def test_held_out_hands_leave_out_copies_of_trained_photographs(tmp_path):
    src = REAL / "hands" / "11IMG__jpg.rf.e95750d28b3c05995262c63e5b38040e.jpg"
    for split, name in (("train", "11IMG__jpg.rf.aaa"), ("valid", "11IMG__jpg.rf.bbb"), ("valid", "12IMG__jpg.rf.ccc")):
        for sub in ("images", "labels"):
            (tmp_path / "hands" / split / sub).mkdir(parents=True, exist_ok=True)
        (tmp_path / "hands" / split / "images" / f"{name}.jpg").write_bytes(src.read_bytes())
        (tmp_path / "hands" / split / "labels" / f"{name}.txt").write_text(src.with_suffix(".txt").read_text())
    (tmp_path / "hands" / "test" / "images").mkdir(parents=True)
    assert [p.path.name for p in held_out_hands(tmp_path)] == ["12IMG__jpg.rf.ccc.jpg"]
    assert len(hand_photos(tmp_path, "train")) == 1
    with pytest.raises(ValueError):
        hand_photos(tmp_path, "everything")
    with pytest.raises(RealPhotosError, match="not found"):
        hand_photos(tmp_path / "nowhere", "train")


def test_random_windows_stay_inside_the_photograph_and_say_how_much_hand_they_hold():
    rng = np.random.default_rng(3)
    img = np.zeros((640, 480, 3), np.uint8)
    for _ in range(50):
        view, cover = zone_view(img, ((0.0, 0.0, 480.0, 640.0),), rng)
        assert view.shape == (448, 640, 3)
        assert cover == 1.0
        _, none = zone_view(img, ((-100.0, -100.0, -1.0, -1.0),), rng, scale=(0.3, 0.6))
        assert none == 0.0
