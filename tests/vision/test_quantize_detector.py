"""The detector quantised to 8 bits (vision.training.quantize_detector)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reading.detector import FLOAT_MODEL, CardDetector
from vision.reading.table import ZONE_PX, Zone
from vision.training import quantize_detector

MARGIN = Zone.margin_px(15)


def test_calibration_sees_what_the_detector_sees():
    """The blobs recorded are the detector's own inputs: four zones in one
    batch at the table's scale, and turned copies of turned zones."""
    feeds = quantize_detector.calibration_inputs(FLOAT_MODEL, zones=4, seed=3)
    assert all(list(f) == ["images"] for f in feeds)          # the model's input, by name
    blobs = [f["images"] for f in feeds]
    assert blobs[0].shape == (4, 3, 256, 352) and blobs[0].dtype == np.float32
    assert 0.0 <= blobs[0].min() and blobs[0].max() <= 1.0
    assert len(blobs) >= 2 and any(b.shape[2:] != (256, 352) for b in blobs[1:])     # a turned copy


def test_a_quantised_detector_reads_a_play(tmp_path, gen, monkeypatch):
    out = tmp_path / "int8.onnx"
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert quantize_detector.quantize(FLOAT_MODEL, out, zones=4, seed=3) >= 2
    assert list(work.iterdir()) == []         # no scratch files left where it was run
    assert 0 < out.stat().st_size < FLOAT_MODEL.stat().st_size / 2       # 8-bit weights
    det = CardDetector(out, hand_landmarks=False, hand_model=False, threads=1)
    rng = np.random.default_rng(41)
    cards = ["H3", "H4", "H5", "H6", "H7"]
    scene = gen.render(cards, rng, deck=gen.decks[0], margin=MARGIN)
    assert det.read_zones([scene.image], det.imgsz / max(ZONE_PX), MARGIN)[0].names == cards


def test_the_command_line_refuses_bad_arguments(tmp_path, capsys):
    with pytest.raises(SystemExit):
        quantize_detector.main(["--out", str(tmp_path / "x.onnx"), "--zones", "0"])
    assert "--zones must be 1-2000" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        quantize_detector.main(["--out", str(tmp_path / "x.onnx"), "--model", str(tmp_path / "none.onnx")])
    assert "no model at" in capsys.readouterr().err
    assert not (tmp_path / "x.onnx").exists()
