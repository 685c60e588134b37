"""Crops of half-covered indices: the scene says how much of each corner's
rank and suit shows, and the crops are labelled by that rule."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reading.classes import class_id
from vision.reading.index_classifier import CROP_H, CROP_W, LABELS, NONE
from vision.training.classifier_data import (RANK_GLIMPSED, RANK_SHOWS, SUIT_SHOWS, covered_crops, covered_label,
                                             covered_scene, make_covered_crops)


def _names(allowed):
    return [LABELS[i] for i in np.flatnonzero(allowed)]


def test_the_label_rule_by_what_shows():
    assert _names(covered_label("D9", 1.0, 1.0, 1.0)) == ["D9"]
    assert _names(covered_label("D9", RANK_SHOWS, SUIT_SHOWS, 0.5)) == ["D9"]       # half covered, still named
    # the rank shows, the suit does not: any suit of the rank, or nothing
    assert _names(covered_label("D9", 1.0, SUIT_SHOWS - 0.01, 0.6)) == ["S9", "H9", "D9", "C9", "NONE"]
    assert _names(covered_label("D9", RANK_SHOWS - 0.01, 1.0, 0.8)) == ["D9", "NONE"]
    assert covered_label("D9", RANK_GLIMPSED - 0.01, 1.0, 0.6) is None
    assert _names(covered_label("BJ", 0.0, 0.0, 0.9)) == ["BJ"]
    assert _names(covered_label("LJ", 0.0, 0.0, 0.5)) == ["LJ", "NONE"]
    assert covered_label("LJ", 1.0, 1.0, 0.2) is None


def test_corners_tell_what_shows_and_agree_with_the_labels(gen, decks):
    # a tight fan: each card but the last has its top-left corner partly
    # covered and its bottom-right one hidden
    scene = gen.render(["S5", "H6", "D7", "C8"], np.random.default_rng(3), deck=decks[0], clean=True,
                       spacing=max(0.17, decks[0].index_box[2] + 0.03) - 0.03)
    assert len(scene.corners) == 2 * len(scene.cards)
    for k, quad, rank, suit, whole in scene.corners:
        assert quad.shape == (4, 2) and 0 <= min(rank, suit, whole) and max(rank, suit, whole) <= 1
    last = [c for c in scene.corners if c[0] == 3]
    assert all(c[4] > 0.95 for c in last)                  # nothing lies on the last card
    hidden = [c for c in scene.corners if c[0] < 3 and c[4] < 0.05]
    assert len(hidden) == 3                                 # the first three's bottom-right corners
    covered = [c for c in scene.corners if c[0] < 3 and c[4] >= 0.05]
    assert len(covered) == 3 and all(c[4] < 0.95 and 0.3 < c[2] < 0.95 for c in covered)   # their right side covered
    # the labelled corners are the ones that show enough, at the same place
    for (c, x0, y0, x1, y1), k in zip(scene.labels, scene.owners):
        quad = next(q for kk, q, r, s, w in scene.corners if kk == k and abs(q[:, 0].min() - x0) < 1
                    and abs(q[:, 1].min() - y0) < 1)
        assert c == class_id(scene.cards[k]) and abs(quad[:, 0].max() - x1) < 1


def test_corners_move_with_the_camera(gen, decks):
    """With camera effects the corners are moved as the labels are."""
    scene = gen.render(["S5", "HK"], np.random.default_rng(7), deck=decks[1], spacing=1.0)
    for (c, x0, y0, x1, y1), k in zip(scene.labels, scene.owners):
        near = [q for kk, q, r, s, w in scene.corners if kk == k
                and abs((q[:, 0].min() + q[:, 0].max()) / 2 - (x0 + x1) / 2) < 2
                and abs((q[:, 1].min() + q[:, 1].max()) / 2 - (y0 + y1) / 2) < 2]
        assert len(near) == 1


def test_covered_crops_are_cut_upright_with_sets(gen, decks):
    rng = np.random.default_rng(11)
    scene = gen.render(["S5", "H6", "D7"], rng, deck=decks[0], card_turns=[0.0, 30.0, 0.0])
    out = covered_crops(scene, rng)
    assert out and all(x.shape == (CROP_H, CROP_W, 3) and a.shape == (NONE + 1,) and a.any() for x, a in out)
    # every crop is of one of the scene's cards (no detector: no NONE-only crops)
    faces = {class_id(c) for c in scene.cards}
    for _, a in out:
        named = set(np.flatnonzero(a[:NONE]).tolist())
        assert named and (named <= faces or len(named) == 4)


def test_sideways_crops_allow_the_card_or_nothing_never_a_joker(gen, decks):
    """A quarter turn wrong lays each index on its side: its card or NONE."""
    scene = gen.render(["S5", "H6", "D7"], np.random.default_rng(11), deck=decks[0], card_turns=[0.0, 30.0, 0.0])
    upright_crops = covered_crops(scene, np.random.default_rng(4))
    side = covered_crops(scene, np.random.default_rng(4), sideways=True)
    assert side and all(x.shape == (CROP_H, CROP_W, 3) for x, _ in side)
    faces = {class_id(c) for c in scene.cards}
    jokers = {LABELS.index("BJ"), LABELS.index("LJ")}
    for _, a in side:
        named = set(np.flatnonzero(a[:NONE]).tolist())
        assert a[NONE] and named and (named <= faces or len(named) == 4) and not named & jokers
    # the same corners, cut another way round
    assert len(side) == len(upright_crops)
    assert all(not np.array_equal(x, y) for (x, _), (y, _) in zip(side, upright_crops))


def test_sideways_needs_covered_scenes(tmp_path, capsys):
    from vision.training.index_classifier import main as clf_main

    assert clf_main([str(tmp_path / "d"), "--sideways", "--scenes", "2"]) == 2
    assert "--sideways needs --covered" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()
    assert clf_main([str(tmp_path / "d"), "--covered", "--sideways", "--scenes", "2", "--seed", "6"]) == 0
    d = np.load(tmp_path / "d" / "sideways_6.npz")
    assert d["allowed"][:, NONE].all()


def test_make_covered_crops_saves_the_real_crops_shape_and_repeats(tmp_path):
    a = make_covered_crops(tmp_path / "a", 3, seed=5)
    b = make_covered_crops(tmp_path / "b", 3, seed=5)
    da, db = np.load(a), np.load(b)
    assert set(da.files) == {"x", "allowed", "photo"}
    assert da["x"].dtype == np.uint8 and da["allowed"].shape == (len(da["x"]), NONE + 1)
    assert np.array_equal(da["x"], db["x"]) and np.array_equal(da["allowed"], db["allowed"])
    assert set(da["photo"].tolist()) <= {0, 1, 2}


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_covered_scenes_lay_two_cards_or_more(gen, seed):
    scene = covered_scene(gen, np.random.default_rng(seed))
    assert len(scene.cards) >= 2 and len(scene.angles) == len(scene.cards)


def test_training_takes_several_label_set_files_each_with_its_share(tmp_path, capsys):
    pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    from vision.reading.index_classifier import IndexClassifier
    from vision.training.index_classifier import main as clf_main

    data = tmp_path / "crops"
    assert clf_main([str(data), "--scenes", "4", "--seed", "1"]) == 0
    assert clf_main([str(data), "--scenes", "2", "--seed", "2"]) == 0
    assert clf_main([str(data), "--covered", "--scenes", "3", "--seed", "3"]) == 0
    assert clf_main([str(data), "--covered", "--only-covered", "0.95", "--scenes", "6", "--seed", "4"]) == 0
    sets = [str(data / "covered_3.npz"), str(data / "covered_only_4.npz")]
    assert clf_main([str(data), "--train", "--epochs", "1", "--to", str(tmp_path / "m"), "--every-epoch",
                     "--real", *sets, "--real-share", "0.5", "0.25"]) == 0
    out = capsys.readouterr().out
    assert "held-out crops of covered_3.npz" in out and "held-out crops of covered_only_4.npz" in out
    assert (tmp_path / "m" / "epoch-1" / "index-classifier.onnx").exists()
    assert IndexClassifier(tmp_path / "m" / "index-classifier.onnx").features == 256    # exported as shipped
    # a share for each file, or one for all: three for two files is refused
    assert clf_main([str(data), "--train", "--epochs", "1", "--to", str(tmp_path / "m2"),
                     "--real", *sets, "--real-share", "0.5", "0.25", "0.1"]) == 2
    assert "one real share for all" in capsys.readouterr().err
