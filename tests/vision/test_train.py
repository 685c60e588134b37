"""A tiny training run proves the training script and the export work."""

from __future__ import annotations

import numpy as np
import pytest

ultralytics = pytest.importorskip("ultralytics", reason="the train extra (ultralytics) is not installed")

from vision.reading.detector import CardDetector  # noqa: E402
from vision.training.make_dataset import main as make_dataset  # noqa: E402
from vision.training.train import export, main as train_main  # noqa: E402


def test_one_epoch_on_a_few_images_then_export(tmp_path, gen):
    assert make_dataset([str(tmp_path / "ds"), "--train", "6", "--val", "2", "--seed", "9"]) == 0
    assert train_main([str(tmp_path / "ds" / "data.yaml"), "--project", str(tmp_path / "runs"),
                       "--name", "tiny", "--epochs", "1", "--imgsz", "160", "--batch", "2",
                       "--workers", "0", "--cache", "none"]) == 0
    best = tmp_path / "runs" / "tiny" / "weights" / "best.pt"
    assert best.exists()
    pt, onnx = export(best, tmp_path / "models", imgsz=160)
    assert pt.exists() and onnx.exists()
    det = CardDetector(onnx)
    assert det.imgsz == 160
    read = det.read_zone(gen.render(["S5"], np.random.default_rng(1)).image)
    assert all(c.name for c in read.cards)     # runs end to end; an untrained model finds little


def test_resume_without_a_run_is_a_clear_error(tmp_path, capsys):
    assert train_main(["--resume", "--project", str(tmp_path), "--name", "none"]) == 2
    assert "nothing to resume" in capsys.readouterr().err


@pytest.mark.parametrize("hours", ["0", "-1", "241", "nan"])
def test_a_time_limit_out_of_range_is_a_clear_error(tmp_path, capsys, hours):
    assert train_main([str(tmp_path / "data.yaml"), "--hours", hours]) == 2
    assert "--hours must be above 0 and at most 240" in capsys.readouterr().err


@pytest.mark.parametrize("extra", [[], ["--reshape"]])
def test_index_classifier_trains_and_exports(tmp_path, gen, decks, extra):
    from vision.reading.index_classifier import LABELS, IndexClassifier
    from vision.training.index_classifier import main as clf_main

    data = tmp_path / "crops"
    assert clf_main([str(data), "--scenes", "6", "--seed", "1"]) == 0
    assert clf_main([str(data), "--scenes", "3", "--seed", "2"]) == 0
    assert clf_main([str(data), "--train", "--epochs", "1", "--to", str(tmp_path / "m")] + extra) == 0
    clf = IndexClassifier(tmp_path / "m" / "index-classifier.onnx")
    scene = gen.render(["S5", "HK"], np.random.default_rng(2), deck=decks[0], clean=True)
    out = clf.classify(scene.image, [l[1:] for l in scene.labels])
    assert len(out) == len(scene.labels) and all(n in LABELS and 0 <= p <= 1 for n, p in out)


def test_index_classifier_needs_a_validation_file(tmp_path, capsys):
    from vision.training.index_classifier import main as clf_main

    assert clf_main([str(tmp_path), "--train"]) == 2
    assert "need two or more crops_" in capsys.readouterr().err


def test_reshaped_crops_keep_their_size_and_ink_each_their_own_way():
    import torch

    from vision.reading.index_classifier import CROP_H, CROP_W
    from vision.training.index_classifier import reshape_batch

    x = torch.ones(8, 3, CROP_H, CROP_W)
    x[:, :, 16:32, 10:22] = 0.0                      # the same dark mark on white in every crop
    torch.manual_seed(3)
    y = reshape_batch(x)
    assert y.shape == x.shape
    assert torch.allclose(reshape_batch(x, 0, 0, 0, 0), x, atol=1e-5)   # no limits: unchanged
    assert not torch.allclose(y, x, atol=1e-2)
    assert all(not torch.allclose(y[0], y[k], atol=1e-2) for k in range(1, 8))  # each its own way
    ink = (1 - x).sum(dim=(1, 2, 3))
    assert torch.all(((1 - y).sum(dim=(1, 2, 3)) / ink - 1).abs() < 0.3)       # a turn, not a new mark
    assert y.min() >= 0 and y.max() <= 1
