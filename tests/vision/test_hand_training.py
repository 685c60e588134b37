"""The hand model's data and a tiny training run: the crops carry the right
labels, training exports a model the reader loads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")

from vision.reading.detector import CardDetector  # noqa: E402
from vision.reading.hand_model import INPUT, HandModel  # noqa: E402
from vision.training.hand_model import PROPOSALS, _Crops, _covers, green_cloth_crops, train  # noqa: E402


def test_a_proposal_on_a_drawn_hand_is_a_hand_and_one_off_it_is_not(gen):
    from vision.reading.classes import HAND_CLASS

    det = CardDetector(threads=1, classifier=False, hand_model=False, hand_conf=PROPOSALS)
    crops = _Crops(det)
    rng = np.random.default_rng(4)
    pictures = []
    for hand in (True, False, True):
        scene = gen.render(["S5", "H5"], rng, hand=hand, margin=32)
        truths = [tuple(lab[1:]) for lab in scene.labels if lab[0] == HAND_CLASS]
        assert bool(truths) == hand
        pictures.append((scene.image, truths, True, "generated"))
    crops.add(pictures, rng)
    assert crops.x and all(x.shape == (INPUT, INPUT, 3) for x in crops.x)
    assert sum(crops.y) >= 2             # at least each drawn hand's jittered box
    assert set(crops.src) == {"generated"}
    assert _covers((0, 0, 10, 10), (5, 0, 20, 10)) == 0.5 and _covers((0, 0, 1, 1), (2, 2, 3, 3)) == 0.0


def test_green_cloth_training_crops_come_from_the_training_rest_and_are_hands(tmp_path: Path):
    """The rps hands (``--green-cloth``): only the part never measured is cropped,
    and every crop is of the hand (boxes off it are left out, as in hand photographs)."""
    import shutil

    real = Path(__file__).resolve().parents[1] / "data" / "real" / "rps"
    folder = tmp_path / "rps" / "data"
    for gesture in ("rock", "paper", "scissors"):
        (folder / gesture).mkdir(parents=True)
    # three copies of one fist: the first (by name) is the held-out third, two are trained on
    for name in ("a", "b", "c"):
        shutil.copy(real / "rock_0NDYNEoDui7o64gU.png", folder / "rock" / f"{name}.png")
    det = CardDetector(threads=1, classifier=False, hand_model=False, hand_conf=PROPOSALS)
    crops = _Crops(det)
    green_cloth_crops(crops, tmp_path, np.random.default_rng(0), windows=1)
    assert crops.y and set(crops.y) == {1} and set(crops.src) == {"rps"}
    # two photographs trained on: each gives its jittered true box at least once; the held-out
    # one would add one more window's crops (the split itself: test_hand_model.py)
    assert 2 <= len(crops.y) <= 2 * 6


def test_one_epoch_exports_a_model_the_reader_loads(tmp_path: Path):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 255, (300, INPUT, INPUT, 3), dtype=np.uint8)
    y = (np.arange(300) % 2).astype(np.uint8)
    x[y == 1, 16:48, 16:48] = 255          # something to learn
    np.savez(tmp_path / "crops.npz", x=x, y=y, source=np.array(["generated", "hands"] * 150))
    train(tmp_path / "crops.npz", 1, tmp_path / "out")
    model = HandModel(tmp_path / "out" / "hand-classifier.onnx", threads=1)
    p = model.probabilities([(x[0], (0.0, 0.0, 64.0, 64.0)), (x[1], (0.0, 0.0, 64.0, 64.0))])
    assert p.shape == (2,) and np.isfinite(p).all()
    assert (tmp_path / "out" / "hand-classifier.pt").exists()


def test_colour_free_training_turns_crops_and_takes_their_colour_away_sometimes():
    from vision.training.hand_model import augment

    red = np.zeros((200, 64, 64, 3), np.uint8)
    red[:, :, :, 2] = 200                   # pure red (BGR): light and noise alone never make it blue or green
    recoloured = lambda img: float(img[:, :, :2].mean()) > 40
    plain = augment(red, np.random.default_rng(3), colour_free=False)
    free = augment(red, np.random.default_rng(3), colour_free=True)
    assert not any(recoloured(img) for img in plain)
    assert 50 <= sum(recoloured(img) for img in free) <= 150    # swapped, hue turned or grey: about half

    # flips alone never lay a bar along the top down a side; a quarter turn does
    bar = np.zeros((100, 64, 64, 3), np.uint8)
    bar[:, :8] = 255
    along_a_side = lambda img: float(img[:, :8].mean()) > 150 and float(img[:8, 16:48].mean()) < 100
    assert not any(along_a_side(img) for img in augment(bar, np.random.default_rng(5), colour_free=False))
    assert sum(along_a_side(img) for img in augment(bar, np.random.default_rng(5), colour_free=True)) >= 10
