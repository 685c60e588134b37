"""Real photographs teach the index classifier: crops with label sets, and their loss.

The photographs are three of the train split of EdjeElectronics' card set
(Apache-2.0, commit c164582; ``tests/data/real/edje/README.md``): an ace the
previous classifier read as a big joker, two aces and a queen, and a king, a
ten and an ace whose king it read as a little joker.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.reading.index_classifier import CROP_H, CROP_W, LABELS, NONE
from vision.training.real_crops import allowed_labels, build, main, rank_mask

EDJE = Path(__file__).resolve().parents[1] / "data" / "real" / "edje"
JOKERS = [LABELS.index("BJ"), LABELS.index("LJ")]


def _names(mask: np.ndarray) -> set[str]:
    return {LABELS[k] for k in np.flatnonzero(mask)}


def test_a_card_allows_its_ranks_four_suits_or_nothing_and_its_middle_nothing():
    cards = [("9", (0.0, 0.0, 100.0, 140.0)), ("K", (80.0, 0.0, 180.0, 140.0))]
    assert _names(allowed_labels((2, 2, 22, 40), cards)) == {"S9", "H9", "D9", "C9", "NONE"}
    # on both cards' edges (one lies over the other): either card's rank
    assert _names(allowed_labels((85, 100, 95, 130), cards)) == {"S9", "H9", "D9", "C9", "SK", "HK", "DK", "CK", "NONE"}
    assert _names(allowed_labels((120, 55, 140, 85), cards)) == {"NONE"}     # the king's middle
    assert _names(allowed_labels((300, 0, 320, 30), cards)) == {"NONE"}      # off every card
    assert _names(rank_mask("T")) == {"ST", "HT", "DT", "CT"}


THREE = ["IMG_2447.JPG", "IMG_2582.JPG", "IMG_2603.JPG"]    # (the folder's other two are test_two_rows.py's)


@pytest.fixture(scope="module")
def crops():
    return build(EDJE, "train", seed=3, photos=THREE)


def test_crops_of_real_photos_are_the_classifiers_crops_with_sets_and_never_a_joker(crops):
    x, allowed, photo = crops["x"], crops["allowed"], crops["photo"]
    assert x.shape[1:] == (CROP_H, CROP_W, 3) and x.dtype == np.uint8
    assert len(x) == len(allowed) == len(photo) and set(photo) == {"IMG_2447.JPG", "IMG_2582.JPG", "IMG_2603.JPG"}
    assert allowed[:, NONE].all()
    assert not allowed[:, JOKERS].any()
    # the ranks allowed are each photograph's own
    for name, ranks in (("IMG_2447.JPG", {"A"}), ("IMG_2582.JPG", {"A", "Q"}), ("IMG_2603.JPG", {"K", "T", "A"})):
        mine = allowed[photo == name, :NONE]
        assert {LABELS[k][1] for k in np.flatnonzero(mine.any(axis=0))} == ranks, name
    lone = photo == "IMG_2447.JPG"
    assert {LABELS[k] for k in np.flatnonzero(allowed[lone, :NONE].any(axis=0))} == {"SA", "HA", "DA", "CA"}
    # the detector's boxes on the cards' corners, and boxes that can only be nothing
    may_be_index = allowed[:, :NONE].any(axis=1)
    assert may_be_index.sum() >= 4 and (~may_be_index).sum() >= 4


def test_the_same_folder_gives_the_same_crops(crops):
    again = build(EDJE, "train", seed=3, photos=["IMG_2447.JPG"])
    mine = crops["photo"] == "IMG_2447.JPG"
    assert np.array_equal(again["x"], crops["x"][mine]) and np.array_equal(again["allowed"], crops["allowed"][mine])


def test_the_test_split_is_never_cropped():
    with pytest.raises(ValueError, match="measuring only"):
        build(EDJE, "test")


def test_a_folder_without_labels_is_a_clear_error(tmp_path, capsys):
    assert main([str(tmp_path), str(tmp_path / "out.npz")]) == 2
    assert "train_labels.csv not found" in capsys.readouterr().err
    assert not (tmp_path / "out.npz").exists()


def test_partial_label_loss_is_low_when_the_mass_lies_in_the_set():
    torch = pytest.importorskip("torch", reason="the train extra (PyTorch) is not installed")
    from vision.training.index_classifier import partial_label_loss

    nines = torch.from_numpy(rank_mask("9")).clone()
    nines[NONE] = True
    only_none = torch.zeros(len(LABELS), dtype=torch.bool)
    only_none[NONE] = True

    def peaked(*names):
        z = torch.full((len(LABELS),), -4.0)
        for n in names:
            z[LABELS.index(n)] = 4.0
        return z

    logits = torch.stack([peaked("H9"), peaked("NONE"), peaked("S9", "C9"), peaked("SK"), peaked("LJ"),
                          peaked("NONE"), peaked("BJ")])
    allowed = torch.stack([nines] * 5 + [only_none] * 2)
    loss = partial_label_loss(logits, allowed)
    assert loss.shape == (7,)
    # any way of putting the mass in {S9, H9, D9, C9, NONE} is cheap; a king or a joker is not
    assert max(loss[:3]) < 0.05 and min(loss[3:5]) > 5
    assert loss[5] < 0.05 and loss[6] > 5
    # the loss of a one-label set is ordinary cross-entropy
    y = torch.full((7,), NONE)
    ce = torch.nn.functional.cross_entropy(logits, y, reduction="none")
    assert torch.allclose(partial_label_loss(logits, torch.stack([only_none] * 7)), ce, atol=1e-5)


def test_the_shipped_models_read_no_joker_on_the_real_photos():
    """Each photograph was read with a phantom joker (an ace's picture as a
    big joker; a queen's and a king's as little ones) before the classifier
    learnt from real crops that a card's face is never a joker."""
    import cv2

    from vision.reading.detector import CardDetector
    from vision.reading.table import ZONE_PX
    from vision.training.real_crops import RANKS, load_labels, scaled_photo

    det = CardDetector(threads=1)
    read = 0
    for name, boxes in sorted(load_labels(EDJE, "train").items()):
        img, _ = scaled_photo(cv2.imread(str(EDJE / "images" / "train" / name)), boxes)
        names = det.read_zones([img], det.imgsz / max(ZONE_PX), 0)[0].names
        assert not {"BJ", "LJ"} & set(names), (name, names)
        # what is read is the photograph's ranks (a card may be missed, none made up)
        assert {n[1] for n in names} <= {RANKS[b["class"]] for b in boxes}, (name, names)
        read += len(names)
    assert read >= 4
