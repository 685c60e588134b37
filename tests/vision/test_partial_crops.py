"""Crops of a rank or a pip boxed alone: many real decks print them apart,
the detector boxes each alone, and the shipped classifier names such a crop
a joker (models/MODEL_CARD.md, "A rank or a pip boxed alone").  The
training crops of them may be the rank (any suit) or no index, never a
joker."""

from __future__ import annotations

import numpy as np

from vision.reading.index_classifier import CROP_H, CROP_W, LABELS, NONE, IndexClassifier
from benchmarks.bench_lone_parts import measure
from vision.training.classifier_data import index_parts, make_partial_crops, partial_crops

JOKERS = {LABELS.index("BJ"), LABELS.index("LJ")}


def test_an_index_splits_into_its_rank_above_its_pip(gen, decks):
    scene = gen.render(["S5", "H6"], np.random.default_rng(2), deck=decks[0], clean=True, spacing=1.0)
    tops = {}
    for k, quad, _r, _s, _w in scene.corners:
        tops.setdefault(k, []).append(quad)
    quad = min(tops[0], key=lambda q: q[:, 1].mean())           # the five's upper index
    box = (quad[:, 0].min(), quad[:, 1].min(), quad[:, 0].max(), quad[:, 1].max())
    rank, pip = index_parts(scene.image, box)
    assert rank[3] <= pip[1]                                     # the rank's block ends above the pip's
    assert all(box[0] - 1 <= b[0] < b[2] <= box[2] + 1 and box[1] - 1 <= b[1] < b[3] <= box[3] + 1
               for b in (rank, pip))


def test_partial_crops_allow_the_rank_or_nothing_never_a_joker(gen, decks):
    rng = np.random.default_rng(5)
    scene = gen.render(["S5", "H6", "D7", "BJ"], rng, deck=decks[0], spacing=1.0)
    out = partial_crops(scene, rng)
    assert out and all(x.shape == (CROP_H, CROP_W, 3) and a.shape == (NONE + 1,) for x, a in out)
    ranks = {c[1] for c in scene.cards if c not in ("BJ", "LJ")}
    kinds = []
    for _, a in out:
        named = set(np.flatnonzero(a[:NONE]).tolist())
        assert a[NONE] and not named & JOKERS
        if named:           # a rank: that rank in every suit
            assert len(named) == 4 and len({LABELS[i][1] for i in named}) == 1 and LABELS[min(named)][1] in ranks
        kinds.append(bool(named))
    assert kinds.count(True) == kinds.count(False)               # each index gives its rank and its pip


def test_a_turned_card_gives_no_partial_crops(gen, decks):
    rng = np.random.default_rng(5)
    scene = gen.render(["S5"], rng, deck=decks[0], card_turns=[20.0], spacing=1.0)
    assert partial_crops(scene, rng) == []


def test_make_partial_crops_saves_the_real_crops_shape_and_repeats(tmp_path):
    a = make_partial_crops(tmp_path / "a", 4, seed=5)
    b = make_partial_crops(tmp_path / "b", 4, seed=5)
    da, db = np.load(a), np.load(b)
    assert a.name == "partial_5.npz" and set(da.files) == {"x", "allowed", "photo"}
    assert da["x"].dtype == np.uint8 and da["allowed"].shape == (len(da["x"]), NONE + 1)
    assert np.array_equal(da["x"], db["x"]) and np.array_equal(da["allowed"], db["allowed"])
    assert not da["allowed"][:, sorted(JOKERS)].any()


def test_partial_needs_scenes_without_covered(tmp_path, capsys):
    from vision.training.index_classifier import main as clf_main

    assert clf_main([str(tmp_path / "d"), "--partial"]) == 2
    assert clf_main([str(tmp_path / "d"), "--partial", "--covered", "--scenes", "2"]) == 2
    assert "--partial needs --scenes" in capsys.readouterr().err
    assert not (tmp_path / "d").exists()
    assert clf_main([str(tmp_path / "d"), "--partial", "--scenes", "3", "--seed", "6"]) == 0
    assert (tmp_path / "d" / "partial_6.npz").exists()


class _Always(IndexClassifier):
    """Names every crop ``name`` at ``p`` (a stand-in for the network: the bench's counting alone)."""

    def __init__(self, name: str, p: float):      # (no network loaded)
        self.name, self.p, self.model_path = name, p, "stand-in"

    def probabilities(self, crops):
        out = np.full((len(crops), len(LABELS)), (1.0 - self.p) / (len(LABELS) - 1), np.float32)
        out[:, LABELS.index(self.name)] = self.p
        return out


def test_the_lone_parts_bench_counts_what_the_classifier_names_them(decks):
    jokers = measure(_Always("LJ", 0.9), decks, scenes=6, seed=3)
    nothing = measure(_Always("NONE", 0.6), decks, scenes=6, seed=3)
    assert jokers["rank alone"]["crops"] == jokers["pip alone"]["crops"] == nothing["pip alone"]["crops"] > 0
    assert jokers["rank alone"]["named a joker"] == 1.0 and jokers["pip alone"]["named a joker at 0.8 or more"] > 0
    assert nothing["rank alone"]["named a joker"] == 0.0 and nothing["pip alone"]["named no index"] == 1.0
    assert jokers["whole indices"]["crops"] > 0 and nothing["whole indices"]["read right"] == 0.0
