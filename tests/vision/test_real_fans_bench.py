"""The real-fans benchmark lays plays as players lay them: legal combinations.

Faces drawn at random are mostly no combination, and such a read is asked
about whatever its score (:func:`vision.reading.tracker.no_combination`), so
the benchmark's right plays looked asked about and its wrong ones caught
for a reason a real table does not give.
"""

from __future__ import annotations

import doctest
from collections import Counter

import cv2
import numpy as np
import pytest

import benchmarks.bench_real_fans as fans
import benchmarks.bench_real_piles as piles
from referee.combos import readings
from vision.reading.tracker import no_combination
from vision.training.card_faces import CardFacesError

LEVELS = "23456789TJQKA"


def _legal(faces: list[str]) -> bool:
    return any(readings(" ".join(faces), level) for level in LEVELS)


def test_examples():
    assert doctest.testmod(fans).failed == 0


@pytest.mark.parametrize("kind", sorted(fans.KINDS))
def test_every_drawn_play_is_a_legal_combination_of_two_decks(kind):
    _, (least, most), _ = fans.KINDS[kind]
    have = {s + r: 3 for s in fans.SUITS for r in fans.RANKS[1:]}
    rng = np.random.default_rng(7)
    shapes = Counter()
    for _ in range(300):
        shape, faces = fans.combination(least, most, have, rng)
        shapes[shape] += 1
        assert least <= len(faces) <= most
        assert max(Counter(faces).values()) <= 2            # two decks: no face three times
        assert _legal(faces) and not no_combination(faces), (shape, faces)
        if shape == "straight_flush":
            assert len({f[0] for f in faces}) == 1
    allowed = {k for k, sizes in fans.COMBINATIONS.items() if any(least <= n <= most for n in sizes)}
    assert set(shapes) == allowed       # every combination that fits is drawn


def test_only_faces_with_pictures_are_drawn_and_a_pool_too_small_is_refused():
    have = {"S5": 1, "H5": 1, "D5": 1, "C5": 1, "S9": 2}
    rng = np.random.default_rng(3)
    for _ in range(50):
        shape, faces = fans.combination(1, 4, have, rng)
        assert all(Counter(faces)[f] <= have[f] for f in faces)
    with pytest.raises(CardFacesError, match="no combination of 6 to 6"):
        fans.combination(6, 6, have, rng)      # no tube or plate of these


def test_plays_laid_are_combinations_each_card_its_own_picture():
    # one plain picture a face, two of the hearts: each card of a play is a picture of its own
    faces = [(np.full((224, 160, 3), 40 + 3 * k, np.uint8), s + r)
             for k, (s, r) in enumerate((s, r) for s in fans.SUITS for r in fans.RANKS[1:])]
    faces += [(np.full((224, 160, 3), 250, np.uint8), "H" + r) for r in fans.RANKS[1:]]
    laid = fans.lay_plays(faces, "fan", (0.0, 15.0), 12, np.random.default_rng(5))
    assert len(laid) == 12
    for picture, bare, truth, angle, shape in laid:
        assert picture.shape == bare.shape and abs(angle) <= 15
        assert shape in fans.COMBINATIONS and _legal(truth)
    random = fans.lay_plays(faces, "fan", (0.0, 15.0), 12, np.random.default_rng(5), combinations=False)
    assert {shape for *_, shape in random} == {"random"}
    assert sum(no_combination(truth) for _, _, truth, _, _ in random) > 6     # why the draw changed


def test_a_shadow_cast_after_lies_over_the_play_not_over_the_bare_zone_and_draws_the_same_plays():
    faces = [(np.full((224, 160, 3), 200, np.uint8), s + r) for s in fans.SUITS for r in fans.RANKS[1:]]
    laid = fans.lay_plays(faces, "row", (0.0, 15.0), 6, np.random.default_rng(9))
    shaded = fans.lay_plays(faces, "row", (0.0, 15.0), 6, np.random.default_rng(9), shadow_after=True)
    assert [p[2:] for p in laid] == [p[2:] for p in shaded]         # the same faces, angles and combinations
    m = fans.MARGIN_PX
    for (picture, bare, *_), (dark, plain, *_) in zip(laid, shaded):
        edge = np.ones(picture.shape[:2], bool)
        edge[m:-m, m:-m] = False            # the cloth round the zone: no card lies there
        assert np.array_equal(picture[edge], bare[edge])            # one light over both
        darker = plain[edge].astype(int).sum(axis=1) - dark[edge].astype(int).sum(axis=1)
        assert (darker > 60).any() and (darker >= 0).all()          # the band over the play alone


def test_a_coarser_camera_loses_fine_print_only_the_way_it_sees_coarser():
    # one-pixel stripes across and up-and-down: a camera at half the zones' scale cannot keep them
    img = np.zeros((64, 96, 3), np.uint8)
    across, along = img.copy(), img.copy()
    across[:, ::2] = 255       # stripes that alternate across the zone
    along[::2, :] = 255        # and up and down it
    half = piles.ZONE_PX_PER_MM / 2
    for picture in (across, along):
        assert piles.seen_at(picture, half).shape == picture.shape
        assert piles.seen_at(picture, half).std() < 0.2 * picture.std()     # washed out both ways
    tilted = (piles.ZONE_PX_PER_MM, half)      # a camera tilted up and down the zone
    assert np.array_equal(piles.seen_at(across, *tilted), across)           # across: as finely as before
    assert piles.seen_at(along, *tilted).std() < 0.2 * along.std()


@pytest.mark.parametrize("value", ["0.2", "3", "1.5,inf", "1,2,3", "x"])
def test_a_camera_scale_out_of_range_is_refused_before_any_work(value, capsys):
    with pytest.raises(SystemExit):
        fans.main(["--root", "/nonexistent", "--px-per-mm", value])
    assert "camera pixels a millimetre" in capsys.readouterr().err


def _faces_root(tmp_path):
    """A card-face set of the real white-stock faces in tests/data (CC0, tests/data/real/LICENSE.md), each
    face twice (a lone art-deck face would be a stock of its own that no combination can be drawn from)."""
    import shutil
    from pathlib import Path

    from vision.training.card_faces import white_stock

    real = Path(__file__).parents[1] / "data" / "real" / "faces_more"
    for k, path in enumerate(p for p in sorted(real.glob("*.jpg")) if white_stock(cv2.imread(str(p)))):
        folder = tmp_path / "faces" / "dataset" / "valid" / path.stem.rsplit("_", 1)[0].replace("_", " ")
        folder.mkdir(parents=True, exist_ok=True)
        for copy in range(2):
            shutil.copy(path, folder / f"{k}-{copy}.jpg")
    return tmp_path


def test_the_camera_options_read_the_same_plays_seen_otherwise(detector, tmp_path):
    root = _faces_root(tmp_path)
    plain, seen = [], []
    fans.measure(detector, root, ("valid",), 1, 11, plain)
    out = fans.measure(detector, root, ("valid",), 1, 11, seen, glare=True, motion_blur=4.0, px_per_mm=(1.5, 1.2),
                       defocus=1.0)
    assert [(r["truth"], r["angle"]) for r in plain] == [(r["truth"], r["angle"]) for r in seen]
    assert len(plain) >= 9                               # each kind and angle of the white stock
    assert out["camera_px_per_mm"] == {"across": 1.5, "along": 1.2}
    assert "glare" in out["source"] and "moving 4 px" in out["source"] and "out of focus by 1 px" in out["source"]
    spread = []
    uneven = fans.measure(detector, root, ("valid",), 1, 11, spread, uneven=0.3)
    assert "within 30%" in uneven["source"] and "out of focus" not in uneven["source"]
    assert [(r["truth"], r["angle"]) for r in plain] == [(r["truth"], r["angle"]) for r in spread]


def test_an_uneven_fan_lays_the_same_plays_each_card_its_own_step():
    card = np.full((224, 160, 3), 255, np.uint8)
    card[:, :3] = 0        # each card's left edge black: where it lies shows
    faces = [(card, s + r) for s in fans.SUITS for r in fans.RANKS[1:]]
    even = fans.lay_plays(faces, "fan", (0.0, 0.0), 6, np.random.default_rng(4))
    spread = fans.lay_plays(faces, "fan", (0.0, 0.0), 6, np.random.default_rng(4), uneven=0.4,
                            spread=np.random.default_rng(1))
    assert [p[2:] for p in even] == [p[2:] for p in spread]         # the same faces, angles and combinations
    for (a, _, truth, *_), (b, *_) in zip(even, spread):
        assert np.array_equal(a, b) == (len(truth) == 2), truth     # (two cards: one step, kept)
    with pytest.raises(SystemExit):
        fans.main(["--root", ".", "--uneven", "0.7"])


def test_a_lamps_glare_lies_on_the_cards_alone_and_a_shaken_camera_blurs_both_pictures_alike():
    faces = [(np.full((224, 160, 3), 200, np.uint8), s + r) for s in fans.SUITS for r in fans.RANKS[1:]]
    rng = np.random.default_rng(4)
    for picture, bare, *_ in fans.lay_plays(faces, "fan", (0.0, 15.0), 6, np.random.default_rng(2)):
        lit = fans.glare_on_cards(picture, bare, rng)
        cards = np.abs(picture.astype(int) - bare.astype(int)).max(axis=2) > fans.GLARE_CARD_LEVEL
        ys, xs = np.nonzero(cards)
        off = np.ones(cards.shape, bool)
        off[ys.min():ys.max() + 1, xs.min():xs.max() + 1] = False      # outside the play's box
        assert np.array_equal(lit[off], picture[off])
        assert (lit.astype(int) - picture.astype(int)).max() > 40          # a spot, washed towards white
        assert (lit.astype(int) >= picture.astype(int)).all()
        blurred, plain = fans.shaken(picture, 5, 30.0), fans.shaken(bare, 5, 30.0)
        edge = np.ones(cards.shape, bool)
        edge[fans.MARGIN_PX:-fans.MARGIN_PX, fans.MARGIN_PX:-fans.MARGIN_PX] = False
        assert np.array_equal(blurred[edge], plain[edge])                 # the cloth round the zone: alike
        assert not np.array_equal(blurred, picture)


def test_known_faces_are_those_read_right_alone_and_plays_are_laid_of_them_alone(detector, tmp_path):
    import cv2

    root = _faces_root(tmp_path)
    first = fans.face_pictures(root, "valid")[0]
    img, face = cv2.imread(str(first.path)), first.face
    blank = np.full_like(img, 235)               # a picture whose index does not show
    kept = fans.faces_read_alone(detector, [(img, face), (blank, face)])
    assert [f for _, f in kept] == [face] and kept[0][0] is img
    assert fans.faces_read_alone(detector, [(blank, "S5"), (img, "H9" if face != "H9" else "S9")]) == []
    rows = []
    out = fans.measure(detector, root, ("valid",), 1, 11, rows, known_faces=True)
    alone = {f for _, f in fans.faces_read_alone(detector, [(cv2.imread(str(p.path)), p.face)
                                                              for p in fans.face_pictures(root, "valid")])}
    assert out["faces"]["white card stock"].endswith("read right alone, upright")
    assert rows and all(set(r["truth"]) <= alone for r in rows)


def test_a_real_faces_speed_table_is_read_with_its_zones_seen_empty_first(detector, tmp_path):
    from benchmarks.bench_vision import REAL_FACES_PLAYS, real_faces_speed

    out = real_faces_speed(detector, _faces_root(tmp_path), 1, 5, tables=1, splits=("valid",))
    assert out["tables"] == 1 and len(out["plays_a_table"]) == len(REAL_FACES_PLAYS) == 4
    recalls = []
    for key in ("zones_seen_empty", "zones_never_seen_empty"):
        figures = out[key]
        assert figures["ms_per_frame"] > 0 and figures["cpu_ms_per_frame"] > 0
        found, cards = (int(v) for v in figures["card_recall"].split(" of "))
        recalls.append((found, cards))
    # both watchers read the same four plays, each of at least its kind's fewest cards
    assert recalls[0][1] == recalls[1][1] >= sum(fans.KINDS[kind][1][0] for kind, _ in REAL_FACES_PLAYS)
    assert all(0 < found <= cards for found, cards in recalls)
    assert out["ms_one_zone_read"] > 0
