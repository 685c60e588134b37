"""Crops of real photographs whose corner indices are boxed and named (CardCounterML's training split).

The photographs are four of that split (CC BY 4.0, ``tests/data/real/LICENSE.md``,
``ccml_train/``): a queen of diamonds on a wooden table (phone), the black
deck printed in gold with two backs outlined by points (phone), a joker held
up to a webcam, and one webcam frame of the sitting that
``benchmarks/bench_real_piles.py`` measures, which must never be cropped.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.reading.index_classifier import LABELS
from vision.training.labelled_index_crops import (LabelledCropsError, build, group_of, index_labels, main,
                                                  photographs, source_of)

CCML = Path(__file__).resolve().parents[1] / "data" / "real" / "ccml_train"
IMAGES = CCML / "datasets" / "train" / "images"


def test_the_measured_sittings_frames_and_made_pictures_are_never_cropped():
    names = sorted(p.name for p in IMAGES.glob("*.jpg"))
    assert any(n.startswith("WIN_") for n in names)
    kept = photographs(CCML)
    assert sorted(g for _, g in kept) == ["black-gold", "phone", "webcam"]
    assert not any(p.name.startswith("WIN_") for p, _ in kept)
    assert group_of("123456789_jpg.rf.0.jpg") is None and group_of("A_1_jpg.rf.0.jpg") is None
    assert photographs(CCML, ("phone",))[0][0].name.startswith("IMG_2022")


def test_labels_as_boxes_and_as_outlines():
    gold = next(IMAGES.glob("IMG_7720_*.jpg"))
    labels = index_labels(gold)
    backs = [b for b in labels if b[0] is None]
    assert len(backs) == 2                      # two card backs outlined by points: boxed round their points
    assert all(0 <= b[1] < b[3] <= 1 and 0 <= b[2] < b[4] <= 1 for b in backs)
    assert sorted(b[0] for b in labels if b[0]) == ["D7", "D7", "H7"]
    queen = index_labels(next(IMAGES.glob("IMG_2022*.jpg")))
    assert [b[0] for b in queen] == ["DQ", "DQ"]
    assert queen[0][1:] == pytest.approx((0.20078125 - 0.1609375 / 2, 0.259375 - 0.18984375 / 2,
                                          0.20078125 + 0.1609375 / 2, 0.259375 + 0.18984375 / 2))


def test_a_bad_label_row_is_refused_by_name(tmp_path):
    folder = tmp_path / "datasets" / "train"
    shutil.copytree(CCML / "datasets" / "train", folder)
    label = next((folder / "labels").glob("IMG_2022*.txt"))
    bad_rows = ("51 0.2 0.2 0.1", "77 0.2 0.2 0.1 0.1", "51 0.2 0.2 nan 0.1", "51 1.5 0.2 0.1 0.1", "x 0.2 0.2 0.1 0.1")
    for bad in bad_rows:
        label.write_text(bad + "\n")
        with pytest.raises(LabelledCropsError, match=label.name):
            index_labels(folder / "images" / (label.stem + ".jpg"))


def test_every_crop_is_named_by_its_labelled_index_alone():
    data = build(CCML)
    allowed = data["allowed"]
    assert data["x"].shape[1:] == (48, 32, 3) and data["x"].dtype == np.uint8
    assert (allowed.sum(axis=1) == 1).all()     # one face each: never NONE, never a set
    faces = {LABELS[k] for k in np.flatnonzero(allowed.any(axis=0))}
    assert faces == {"DQ", "D7", "H7", "BJ"}    # the queen, the gold sevens, the held joker (a red one)
    assert set(data["photo"]) == {source_of(p.name) for p, _ in photographs(CCML)}
    assert not any(n.startswith("WIN_") for n in data["photo"])
    by_group = {g: int((data["group"] == g).sum()) for g in ("phone", "black-gold", "webcam")}
    assert all(n >= 3 for n in by_group.values()), by_group     # each labelled index cut at least once, moved twice
    again = build(CCML)
    assert np.array_equal(again["x"], data["x"]) and np.array_equal(again["allowed"], allowed)


def test_command_line(tmp_path, capsys):
    out = tmp_path / "ccml.npz"
    assert main([str(CCML), str(out), "--groups", "phone"]) == 0
    assert np.load(out)["x"].shape[0] >= 3
    assert "phone:" in capsys.readouterr().out
    assert main([str(tmp_path / "nowhere"), str(tmp_path / "x.npz")]) == 2
    assert "not found" in capsys.readouterr().err
    assert main([str(CCML), str(tmp_path / "x.npz"), "--groups", "casino"]) == 2
    assert "unknown groups" in capsys.readouterr().err
