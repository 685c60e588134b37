"""MediaPipe's hand models (the default hand cue) on real photographs and on
generated zones with real hands laid in: hands raise a hand, tables and
cards do not, a hand only over the margin does not cover the zone.

The photographs in tests/data/real (licences in its LICENSE.md) are from
the sets' validation and test splits, the held-out third of the rps set,
or the overhead set, none used to choose the thresholds.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.reading.detector import CardDetector, DetectorError
from vision.reading.hand_landmarks import PALM_ENV, Hand, HandLandmarks, hand_square
from vision.training.real_photos import _obb_boxes, zone_view
from vision.training.synth import SceneGenerator

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
MARGIN = 32


def _zone(path: Path, hands=()) -> np.ndarray:
    """The photograph's middle as a zone picture with its margin, as the table watcher reads one."""
    return zone_view(cv2.imread(str(path), cv2.IMREAD_COLOR), hands, margin=MARGIN)[0]


def _read(detector: CardDetector, picture: np.ndarray, margin: int = MARGIN):
    return detector.read_zones([picture], margin=margin)[0]


@pytest.mark.parametrize("path", sorted((REAL / "tables").glob("*.jpg")) + sorted(
    (REAL / "edje" / "images" / "train").glob("*.[jJ]*")), ids=lambda p: p.name[:20])
def test_real_tables_and_cards_without_a_hand_raise_none(detector, path):
    """Wooden blocks on wood and white tables, real cards on carpet: the
    detector proposes a hand on each, MediaPipe's models find none."""
    read = _read(detector, _zone(path))
    assert read.hand_boxes                    # proposed: the question was asked
    assert read.hand is False and read.hand_presence == 0.0


@pytest.mark.parametrize("path", sorted((REAL / "hands").glob("*.jpg")), ids=lambda p: p.name[:12])
def test_a_real_hand_over_the_zone_raises_one(detector, path):
    """Including 100IMG, which the hand model misses (test_hand_model.py)."""
    img = cv2.imread(str(path))
    boxes = _obb_boxes(path.with_suffix(".txt"), img.shape[1], img.shape[0])
    read = _read(detector, _zone(path, boxes))
    assert read.hand is True and read.hand_presence >= 0.5


OPAQUE_GLOVE = "41.jpg"     # an orange work glove: MediaPipe's models learnt bare hands (MODEL_CARD)


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.xfail(
    strict=True, reason="an opaque work glove")) if p.name == OPAQUE_GLOVE else p
    for p in sorted((REAL / "overhead").glob("*.jpg"))], ids=lambda p: p.name)
def test_an_arm_reaching_in_seen_from_above_raises_a_hand(detector, path):
    """The table camera's own view: bare arms and a clear plastic glove."""
    assert _read(detector, _zone(path)).hand is True


@pytest.mark.parametrize("path", sorted((REAL / "rps").glob("*.png")), ids=lambda p: p.stem)
def test_a_hand_seen_from_above_a_green_cloth_raises_a_hand(detector, path):
    """A fist, flat hands and two fingers over a green cloth (the hand model misses the fist)."""
    assert _read(detector, _zone(path)).hand is True


def test_real_hands_laid_into_generated_zones_are_seen_and_cards_alone_are_not(decks, detector, cutouts):
    with_hand = SceneGenerator(decks, hand_rate=1.0, empty_rate=0.0, hand_cutouts=cutouts)
    without = SceneGenerator(decks, hand_rate=0.0, empty_rate=0.0, hand_cutouts=cutouts)
    scenes = [with_hand.random_scene(np.random.default_rng([5, i])) for i in range(10)]
    assert all(s.hand for s in scenes)
    assert sum(detector.read_zone(s.image).hand for s in scenes) >= 9
    bare = [without.random_scene(np.random.default_rng([6, i])).image for i in range(10)]
    assert not any(r.hand for r in detector.read_zones(bare))


def test_a_hand_only_in_the_margin_does_not_cover_the_zone(gen, decks, detector, cutouts):
    """A real hand reaching in from the right: it covers the zone while the
    zone's edge lies left of its fingertips, not once all of it is in the margin."""
    scene = gen.render(["S5"], np.random.default_rng(3), deck=decks[0], clean=True).image
    # cloth around it: room for a margin as wide as the hand reaches
    picture = cv2.copyMakeBorder(scene, 226, 226, 230, 230, cv2.BORDER_REFLECT).astype(np.float32)
    hand = cv2.resize(cutouts[0], (240, 160))
    h, w = picture.shape[:2]
    alpha = hand[:, :, 3:] / np.float32(255)
    region = picture[(h - 160) // 2:(h + 160) // 2, w - 240:]
    region[:] = region * (1 - alpha) + hand[:, :, :3] * alpha
    picture = picture.astype(np.uint8)
    found, = HandLandmarks(threads=1).hands(picture)
    reach = found.box[0]                     # the fingertips' x
    assert w - 240 <= reach < w - 150
    assert _read(detector, picture, int(w - reach) - 10).hand        # reaches into the zone
    assert not _read(detector, picture, int(w - reach) + 5).hand     # only over the margin


def test_zones_searched_together_find_what_each_finds_alone(detector):
    """A table's zones are searched side by side: the same hands (palm
    scores, presence, joints) as one by one, each in its own zone."""
    paths = sorted((REAL / "hands").glob("*.jpg"))[:2] + sorted((REAL / "tables").glob("*.jpg"))[:1]
    pictures = []
    for path in paths:
        img = cv2.imread(str(path))
        pictures.append(_zone(path, _obb_boxes(path.with_suffix(".txt"), img.shape[1], img.shape[0])
                              if path.with_suffix(".txt").exists() else ()))
    finder = detector.hand_landmarks
    together = finder.hands_many(pictures)
    assert together == [finder.hands(p) for p in pictures]
    assert [bool(h) for h in together] == [True, True, False]
    reads = detector.read_zones(pictures, margin=MARGIN)
    assert [r.hand for r in reads] == [True, True, False]
    assert [r.to_dict() for r in reads] == [_read(detector, p).to_dict() for p in pictures]
    assert finder.hands_many([]) == []


def test_no_hand_proposed_means_no_palm_search(detector):
    picture = np.full((512, 704, 3), 40, np.uint8)   # a bare dark cloth: nothing for the detector to box
    read = _read(detector, picture)
    assert read.hand_boxes == () and read.hand is False and read.hand_presence == 0.0
    assert read.hand_probability is None             # the hand model is not loaded


def test_the_palm_square_turns_with_the_hand():
    """A hand pointing left (wrist right of the middle finger's root): the
    square is turned a quarter and moved towards the fingers."""
    cx, cy, side, turn = hand_square(np.array([40.0, 40.0, 60.0, 60.0]),
                                     np.array([[60.0, 50.0], [0, 0], [40.0, 50.0]]))
    assert (round(cx, 1), round(cy, 1), round(side, 1), round(np.degrees(turn))) == (40.0, 50.0, 52.0, -90)


def test_a_hand_is_over_a_box_when_a_joint_is():
    hand = Hand(0.9, 0.99, ((100.0, 10.0), (150.0, 20.0)))
    assert hand.box == (100.0, 10.0, 150.0, 20.0)
    assert hand.reaches((140.0, 0.0, 200.0, 50.0)) and not hand.reaches((0.0, 0.0, 99.0, 50.0))


def test_not_a_picture_is_a_value_error():
    finder = HandLandmarks(threads=1)
    with pytest.raises(ValueError, match="BGR picture"):
        finder.hands(np.zeros((10, 10), np.uint8))
    assert finder.hands(np.zeros((100, 140, 3), np.uint8)) == []


def test_missing_or_broken_hand_models_are_detector_errors(tmp_path, monkeypatch):
    monkeypatch.setenv(PALM_ENV, str(tmp_path / "none.onnx"))
    with pytest.raises(DetectorError, match="palm detector not found"):
        CardDetector(threads=1)
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    monkeypatch.setenv(PALM_ENV, str(bad))
    with pytest.raises(DetectorError, match="cannot load MediaPipe's hand models"):
        CardDetector(threads=1)


def test_the_hand_model_is_chosen_instead_of_mediapipes_not_beside_them():
    with pytest.raises(DetectorError, match="hand_landmarks=False"):
        CardDetector(threads=1, hand_model=True)
    with pytest.raises(DetectorError, match="hand_landmarks=False"):
        CardDetector(threads=1, hand_threshold=0.7)


def _wheel(path: Path, members: dict[str, bytes]) -> Path:
    import zipfile

    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def test_the_export_takes_only_the_wheel_the_models_were_made_from(tmp_path, capsys):
    from vision.training.hand_landmarks_export import MODELS, ExportError, extract, main

    with pytest.raises(ExportError, match="has no mediapipe/modules/palm_detection"):
        extract(_wheel(tmp_path / "empty.whl", {"README": b""}), tmp_path)
    changed = _wheel(tmp_path / "other.whl", {member: b"another model" for member, _, _ in MODELS})
    with pytest.raises(ExportError, match="not the file the shipped models were made from"):
        extract(changed, tmp_path)
    (tmp_path / "not.whl").write_bytes(b"not a zip")
    assert main([str(tmp_path / "not.whl"), "--out", str(tmp_path)]) == 1
    assert "cannot read the wheel" in capsys.readouterr().err
    assert list(tmp_path.glob("*.onnx")) == []
