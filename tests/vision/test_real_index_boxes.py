"""Real training photographs boxed at their indices (vision.training.real_piles), on the
four phone photographs kept in tests/data/real/phone and phone_train (CC BY 4.0), laid out
as a train split, and on the five EdjeElectronics training photographs kept in
tests/data/real/edje (Apache-2.0)."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.reading.detector import CardDetector
from vision.training.real_crops import RANKS, load_labels
from vision.training.real_piles import (PHONE_DIR, RealPilesError, index_boxes, main, phone_photographs,
                                        rank_index_boxes, read_as_zone, read_edje, write_index_boxes)

PHONE = Path(__file__).resolve().parents[1] / "data" / "real" / "phone"
COMPLETE = PHONE.with_name("phone_train")    # one the shipped reader reads completely
EDJE = PHONE.with_name("edje")


@pytest.fixture(scope="module")
def train_folder(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("phone")
    (root / PHONE_DIR).mkdir(parents=True)
    shutil.copy(PHONE / PHONE_DIR / "data.yaml", root / PHONE_DIR / "data.yaml")
    for kind in ("images", "labels"):
        (root / PHONE_DIR / "train" / kind).mkdir(parents=True)
        for src in (PHONE / PHONE_DIR / "valid", PHONE / PHONE_DIR / "test", COMPLETE):
            for f in (src / kind).iterdir():
                shutil.copy(f, root / PHONE_DIR / "train" / kind / f.name)
    return root


@pytest.fixture(scope="module")
def det() -> CardDetector:
    return CardDetector(threads=1)


def test_only_photographs_read_completely_are_kept_with_every_index_boxed(train_folder, det, tmp_path):
    seen = []
    tally = write_index_boxes(train_folder, tmp_path / "ds", det=det, progress=lambda k, n: seen.append((k, n)))
    assert tally["photographs"] == 4 and seen[-1] == (4, 4)
    kept = sorted((tmp_path / "ds" / "labels" / "train").glob("*.txt"))
    assert len(kept) == tally["kept"] >= 1
    rows = 0
    for path, labels in phone_photographs(train_folder, ("train",)):
        picture, read = read_as_zone(det, cv2.imread(str(path)), labels)
        boxes = index_boxes(read, {f for f, _, _ in labels if f})
        label_file = tmp_path / "ds" / "labels" / "train" / f"{path.stem}.txt"
        assert label_file.exists() == (boxes is not None)      # kept exactly when read completely
        if boxes is None:
            continue
        assert sorted(read.names) == sorted(f for f, _, _ in labels)
        half = cv2.imread(str(tmp_path / "ds" / "images" / "train" / f"{path.stem}.jpg"))
        assert half.shape[:2] == (picture.shape[0] // 2, picture.shape[1] // 2)   # halved, as generated zones
        values = np.array([[float(v) for v in line.split()] for line in label_file.read_text().splitlines()])
        assert len(values) == len(boxes) >= len(labels) and (values[:, 0] == 0).all()   # INDEX, a box an index
        assert ((values[:, 1:] > 0) & (values[:, 1:] < 1)).all()
        rows += len(values)
    assert rows == tally["index_boxes"]


def test_a_read_with_a_face_too_many_or_missing_is_not_kept():
    from vision.reading.detector import ZoneRead
    from vision.reading.pairing import CardRead, IndexDetection

    card = lambda n, x, h=40: CardRead(n, 0.95, (0, 0, 1, 1), (IndexDetection(n, 0.95, (x, 10, x + 20, 10 + h)),))
    assert index_boxes(ZoneRead([card("S5", 0), card("S5", 60)]), {"S5"}) is None       # read twice
    assert index_boxes(ZoneRead([card("S5", 0), card("BJ", 60)]), {"S5"}) is None       # a phantom joker
    assert index_boxes(ZoneRead([card("S5", 0)]), {"S5", "H6"}) is None                 # a card missed
    # a box mapped back from a turned read is larger than an index: its index is not boxed tightly
    assert index_boxes(ZoneRead([card("S5", 0), card("H6", 60), card("C7", 120, 80)]), {"S5", "H6", "C7"}) is None


def test_the_command_line_refuses_a_measuring_split_and_an_empty_folder(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main([str(tmp_path), str(tmp_path / "out"), "--split", "valid"])
    assert "invalid choice" in capsys.readouterr().err
    (tmp_path / PHONE_DIR).mkdir(parents=True)
    shutil.copy(PHONE / PHONE_DIR / "data.yaml", tmp_path / PHONE_DIR / "data.yaml")
    assert main([str(tmp_path), str(tmp_path / "out"), "--threads", "1"]) == 2
    assert "no photographs under" in capsys.readouterr().err
    with pytest.raises(RealPilesError, match="no class names"):
        phone_photographs(tmp_path / "nowhere")


def test_a_two_corner_deck_labelled_by_rank_keeps_photographs_whose_every_card_shows_two_indices(det, tmp_path):
    tally = write_index_boxes(EDJE, tmp_path / "ds", det=det, kind="edje")
    assert tally["photographs"] == 5
    kept = {p.stem for p in (tmp_path / "ds" / "labels" / "train").glob("*.txt")}
    assert len(kept) == tally["kept"] >= 1
    rows = 0
    for name, labelled in load_labels(EDJE, "train").items():
        _, read = read_edje(det, cv2.imread(str(EDJE / "images" / "train" / name)), labelled)
        ranks = Counter(RANKS[b["class"]] for b in labelled)
        boxes = rank_index_boxes(read, ranks)
        assert (Path(name).stem in kept) == (boxes is not None)
        if boxes is None:
            continue
        assert Counter(n[1] for n in read.names) == ranks
        values = np.loadtxt(tmp_path / "ds" / "labels" / "train" / f"{Path(name).stem}.txt", ndmin=2)
        assert len(values) == 2 * len(labelled) and (values[:, 0] == 0).all()   # two corners a card, INDEX
        assert ((values[:, 1:] > 0) & (values[:, 1:] < 1)).all()
        rows += len(values)
    assert rows == tally["index_boxes"] > 0


def test_an_unknown_set_and_a_folder_without_labels_are_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["--set", "cards", str(tmp_path), str(tmp_path / "out")])
    assert "invalid choice" in capsys.readouterr().err
    assert main(["--set", "edje", str(tmp_path), str(tmp_path / "out"), "--threads", "1"]) == 2
    assert "train_labels.csv not found" in capsys.readouterr().err
    with pytest.raises(RealPilesError, match="no set"):
        write_index_boxes(tmp_path, tmp_path / "out", kind="cards")
