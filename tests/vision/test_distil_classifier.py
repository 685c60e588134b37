"""A narrower index classifier learns the shipped one's answers (distillation)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")

from vision.reading.index_classifier import FLOAT_MODEL, LABELS, IndexClassifier, to_blob  # noqa: E402
from vision.training.distil_classifier import main as distil_main  # noqa: E402


def test_a_narrow_student_learns_the_teachers_answers(tmp_path, capsys):
    from vision.training.index_classifier import main as clf_main

    data = tmp_path / "crops"
    assert clf_main([str(data), "--scenes", "12", "--seed", "3"]) == 0
    labelled = np.load(data / "crops_3.npz")
    # crops with no label at all, as the reader records them: the teacher alone says what they are
    np.savez(tmp_path / "recorded.npz", x=labelled["x"][::-1][:40].copy())
    assert distil_main(["train", str(data), str(tmp_path / "recorded.npz"), "--width", "8", "--epochs", "6",
                        "--batch", "16", "--to", str(tmp_path / "m"), "--max-lr", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "epoch 6/6" in out and "agrees with the teacher" in out

    student = IndexClassifier(tmp_path / "m" / "index-classifier.onnx", threads=1)
    assert student.features == 64                  # 8 times the width: deck enrollment fits its head on these
    teacher = IndexClassifier(FLOAT_MODEL, threads=1)
    x = list(labelled["x"])
    said = teacher.probabilities(x).argmax(1)
    agree = float((student.probabilities(x).argmax(1) == said).mean())
    majority = np.bincount(said, minlength=len(LABELS)).max() / len(said)
    assert agree > majority + 0.1, (agree, majority)   # it learnt more than the commonest answer
    state = torch.load(tmp_path / "m" / "index-classifier.pt")
    assert state["0.weight"].shape[0] == 8
    logits, emb = student.logits_and_features(x[:3])
    assert logits.shape == (3, len(LABELS)) and emb.shape == (3, 64)
    assert to_blob(x[:1]).shape == (1, 3, 48, 32)


def test_missing_or_malformed_crops_are_clear_errors(tmp_path, capsys):
    assert distil_main(["train", str(tmp_path / "none.npz"), "--to", str(tmp_path / "m")]) == 2
    assert "not a folder or an existing .npz file" in capsys.readouterr().err
    assert distil_main(["train", str(tmp_path), "--to", str(tmp_path / "m")]) == 2
    assert "no .npz crop files" in capsys.readouterr().err
    np.savez(tmp_path / "bad.npz", x=np.zeros((2, 40, 40, 3), np.uint8))
    assert distil_main(["train", str(tmp_path / "bad.npz"), "--to", str(tmp_path / "m")]) == 2
    assert "must be N x 48 x 32 x 3 uint8" in capsys.readouterr().err
    np.savez(tmp_path / "ok.npz", x=np.zeros((2, 48, 32, 3), np.uint8))
    assert distil_main(["train", str(tmp_path / "ok.npz"), "--to", str(tmp_path / "m"), "--temperature", "0"]) == 2
    assert "temperature in (0, 10]" in capsys.readouterr().err
    assert not (tmp_path / "m").exists()            # nothing written for bad input


def test_the_reader_records_the_crops_it_cuts_from_plays_and_phone_photographs(tmp_path, capsys):
    import shutil
    from pathlib import Path

    from vision.training.real_piles import PHONE_DIR

    assert distil_main(["record", "--scenes", "3", "--seed", "5", str(tmp_path / "plays.npz")]) == 0
    plays = np.load(tmp_path / "plays.npz")["x"]
    assert plays.ndim == 4 and plays.shape[1:] == (48, 32, 3) and len(plays) >= 3
    assert f"{len(plays)} crops -> " in capsys.readouterr().out
    assert distil_main(["record", "--scenes", "3", "--seed", "5", str(tmp_path / "again.npz")]) == 0
    assert np.array_equal(np.load(tmp_path / "again.npz")["x"], plays)     # the same seed, the same crops

    real = Path(__file__).resolve().parents[1] / "data" / "real"
    root = tmp_path / "phone"
    shutil.copytree(real / "phone_train", root / PHONE_DIR / "train")
    shutil.copy(real / "phone" / PHONE_DIR / "data.yaml", root / PHONE_DIR / "data.yaml")
    assert distil_main(["record", "--phone", str(root), str(tmp_path / "phone.npz")]) == 0
    assert "1/1 read" in capsys.readouterr().out
    assert len(np.load(tmp_path / "phone.npz")["x"]) >= 4       # a photograph of several cards, each index cut

    # the benchmark's photographs (valid, test) are never recorded: a set without a train split says so
    assert distil_main(["record", "--phone", str(real / "phone"), str(tmp_path / "none.npz")]) == 2
    assert "no photographs under" in capsys.readouterr().err
    assert distil_main(["record", "--scenes", "0", str(tmp_path / "none.npz")]) == 2
    assert "--scenes must be 1 to 1,000,000" in capsys.readouterr().err
    assert not (tmp_path / "none.npz").exists()
