"""The script that makes models/hanzi-jokers.npz, run end to end on a few crops."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reading.deck_profile import DeckProfile
from vision.reading.index_classifier import LABELS
from vision.training.joker_head import main


def test_the_joker_layer_is_fitted_and_saved_as_a_profile_with_its_own_curve(tmp_path, detector):
    rng = np.random.default_rng(4)
    crops = rng.integers(0, 255, (120, 48, 32, 3), dtype=np.uint8)
    np.savez(tmp_path / "crops_1.npz", x=crops, y=rng.integers(0, len(LABELS), 120))
    allowed = np.zeros((40, len(LABELS)), bool)
    allowed[:, -1] = True                                   # NONE, as a real crop off every index is
    np.savez(tmp_path / "real.npz", x=crops[:40], allowed=allowed, photo=np.repeat([f"p{k}" for k in range(10)], 4))
    out = tmp_path / "hanzi.npz"
    assert main([str(tmp_path / "crops_1.npz"), "--real", str(tmp_path / "real.npz"), "--out", str(out),
                 "--calibration-plays", "2", "--threads", "1"]) == 0
    clf = detector.classifier
    profile = DeckProfile.load(out, clf.model_path, clf.features)
    assert profile.weight.shape == (len(LABELS), clf.features) and not profile.none_gate
    assert profile.calibration["plays"] == 6 and "made_by" in profile.meta


def test_bad_arguments_are_refused_with_the_reason(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main([str(tmp_path / "none.npz"), "--real", str(tmp_path / "r.npz"), "--out", str(tmp_path / "p.npz")])
    assert exc.value.code == 2 and "does not exist" in capsys.readouterr().err
