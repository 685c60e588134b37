"""The index classifier quantised to 8 bits (vision.training.quantize_classifier)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reading.classes import HAND_CLASS
from vision.reading.detector import CardDetector
from vision.reading.index_classifier import CROP_H, CROP_W, EIGHT_BIT_MODEL, FLOAT_MODEL, IndexClassifier, crop
from vision.reading.runtime import shipped_model
from vision.reading.table import ZONE_PX, Zone
from vision.training import quantize_classifier

MARGIN = Zone.margin_px(15)


def test_calibration_sees_the_crops_the_classifier_is_handed():
    feeds = quantize_classifier.calibration_inputs(zones=4, seed=3)
    assert feeds and all(list(f) == ["crops"] for f in feeds)        # the model's input, by name
    blobs = [f["crops"] for f in feeds]
    assert all(b.shape[1:] == (3, CROP_H, CROP_W) and b.dtype == np.float32 for b in blobs)
    assert sum(len(b) for b in blobs) >= 8          # four zones' indices, at least two a zone
    assert all(0.0 <= b.min() and b.max() <= 1.0 for b in blobs)


def test_the_calibration_zones_are_the_training_decks_many_ways_laid():
    pictures = quantize_classifier.zone_pictures(quantize_classifier.training_scenes(), np.random.default_rng(5), 6, MARGIN)
    assert len(pictures) == 6
    assert all(p.shape == (ZONE_PX[1] + 2 * MARGIN, ZONE_PX[0] + 2 * MARGIN, 3) for p in pictures)


def test_a_quantised_classifier_reads_a_play_and_keeps_its_features(tmp_path, gen, monkeypatch):
    out = tmp_path / "int8.onnx"
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert quantize_classifier.quantize(out, zones=4, seed=3) >= 8
    assert list(work.iterdir()) == []         # no scratch files left where it was run
    assert 0 < out.stat().st_size < FLOAT_MODEL.stat().st_size        # 8-bit convolutions
    clf = IndexClassifier(out, threads=1)
    assert clf.features == 256        # deck profiles still get their features (its embedding output)
    det = CardDetector(classifier=out, hand_landmarks=False, threads=1)
    rng = np.random.default_rng(41)
    cards = ["H3", "H4", "H5", "H6", "H7"]
    scene = gen.render(cards, rng, deck=gen.decks[0], margin=MARGIN)
    assert det.read_zones([scene.image], det.imgsz / max(ZONE_PX), MARGIN)[0].names == cards


def test_the_shipped_8_bit_classifier_is_made_from_the_float_one(gen):
    assert EIGHT_BIT_MODEL != FLOAT_MODEL and EIGHT_BIT_MODEL.is_file() and FLOAT_MODEL.is_file()
    # (a table runs it where the CPU sums 8-bit products exactly, else the float one)
    assert IndexClassifier(threads=1).model_path == shipped_model(EIGHT_BIT_MODEL, FLOAT_MODEL)
    shipped, source = IndexClassifier(EIGHT_BIT_MODEL, threads=1), IndexClassifier(FLOAT_MODEL, threads=1)
    assert shipped.features == source.features == 256
    scene = gen.render(["S9", "HQ", "D4", "CA"], np.random.default_rng(8), deck=gen.decks[1], margin=MARGIN)
    crops = [crop(scene.image, label[1:]) for label in scene.labels if label[0] != HAND_CLASS]
    assert len(crops) >= 4
    # the same network: on an index's crop both name the same face, with nearly the same probability
    a, b = source.probabilities(crops), shipped.probabilities(crops)
    assert (a.argmax(axis=1) == b.argmax(axis=1)).all() and np.abs(a - b).max() < 0.1


def test_the_command_line_refuses_bad_arguments(tmp_path, capsys):
    with pytest.raises(SystemExit):
        quantize_classifier.main(["--out", str(tmp_path / "x.onnx"), "--zones", "2001"])
    assert "--zones must be 1-2000" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        quantize_classifier.main(["--out", str(tmp_path / "x.onnx"), "--model", str(tmp_path / "none.onnx")])
    assert "no model at" in capsys.readouterr().err
    assert not (tmp_path / "x.onnx").exists()
