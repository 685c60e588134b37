"""Plays laid in two rows (a tube, plate or bomb in a narrow zone) or a grid:
each card counted once.  One row's corner pairing took the widest gap between
heights for the one between top-left and bottom-right corners, so the second
row's top-left corners were bottom ones and each card read twice."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.test_pairing import _card, true_indices
from vision.reading.pairing import pair_indices
from vision.reading.table import ZONE_PX, Zone
from vision.training.real_crops import RANKS, load_labels, scaled_photo

MARGIN = Zone.margin_px(15)
EDJE = Path(__file__).resolve().parents[1] / "data" / "real" / "edje"
PLAYS = (["H8", "S8", "D9", "D9", "CT", "HT"],                      # tube
         ["S5", "S5", "H5", "H5", "D5", "D5", "C5", "C5"],          # 8-card bomb
         ["C3", "D3", "S3", "H4", "H4", "C4"],                      # plate
         ["C2", "C2", "D3", "H4", "S5", "S6", "H7", "D8", "C9", "CT"])


def two_rows(gen, seed, clean=False, cards=None):
    cards = cards or PLAYS[seed % len(PLAYS)]
    return gen.render(cards, np.random.default_rng([16, seed]), deck=gen.decks[seed % 2], margin=MARGIN,
                      rows=2, clean=clean)


def test_two_rows_lay_the_first_half_above_the_rest(gen):
    s = two_rows(gen, 1, clean=True)
    n, per = len(s.cards), (len(s.cards) + 1) // 2
    tops: dict[int, float] = {}
    for (_, x0, y0, x1, y1), k in zip(s.labels, s.owners):
        tops[k] = min(tops.get(k, np.inf), (y0 + y1) / 2)      # each card's top-left corner
    assert s.readable and sorted(tops) == list(range(n))
    first, second = [tops[k] for k in range(per)], [tops[k] for k in range(per, n)]
    assert max(first) < min(second) - 50
    h, w = s.image.shape[:2]
    assert all(0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h for _, x0, y0, x1, y1 in s.labels)


def test_rows_draw_nothing_more_from_the_rng(gen):
    plain, rows = np.random.default_rng(9), np.random.default_rng(9)
    gen.render(PLAYS[0], plain, deck=gen.decks[0])
    gen.render(PLAYS[0], rows, deck=gen.decks[0], rows=2)
    assert plain.bit_generator.state == rows.bit_generator.state
    # rows=1 is the one row as before, picture and all
    a = gen.render(PLAYS[0], np.random.default_rng(4), deck=gen.decks[0])
    b = gen.render(PLAYS[0], np.random.default_rng(4), deck=gen.decks[0], rows=1)
    assert np.array_equal(a.image, b.image) and a.labels == b.labels


@pytest.mark.parametrize("kwargs", [{"rows": 0}, {"rows": 7}, {"rows": 2.0}, {"rows": 2, "turn": 20.0},
                                    {"rows": 2, "spread": 40.0}])
def test_bad_rows_are_refused(gen, kwargs):
    with pytest.raises(ValueError):
        gen.render(PLAYS[0], np.random.default_rng(0), **kwargs)


def test_a_grid_of_four_cards_of_one_name_is_four_cards_row_by_row():
    """Four S5 in a 2x2 grid, both corners of each in view (as the real
    photographs lay them): four cards of two corners, the top row first."""
    dets = []
    for x, y in ((100, 100), (260, 110), (105, 330), (255, 320)):
        dets += _card("S5", x, y)
    cards = pair_indices(dets)
    assert [(c.name, len(c.indices)) for c in cards] == [("S5", 2)] * 4
    assert [round(c.indices[0].center[0]) for c in cards] == [100, 260, 105, 255]


def test_a_lone_top_corner_of_the_second_row_is_not_the_first_rows_bottom_one():
    """The first row's bottom corners under the second row, but the last
    card's: the second row's lone top-left corners, as high as that bottom
    corner, stay top-left ones (the cards come out row by row)."""
    dets = []
    for k, name in enumerate(["D5", "D5", "H5", "C5"]):
        top, bottom = _card(name, 100 + 60 * k, 60)
        dets += [top, bottom] if k == 3 else [top]
    for k, name in enumerate(["S5", "S5", "H5"]):
        top, bottom = _card(name, 90 + 60 * k, 60 + 3.0 * 30 + 10)
        dets += [top, bottom] if k == 2 else [top]
    assert [c.name for c in pair_indices(dets)] == ["D5", "D5", "H5", "C5", "S5", "S5", "H5"]


@pytest.mark.parametrize("name", range(len(PLAYS)))
def test_two_rows_pair_exactly_on_the_generators_labels(gen, name):
    for seed in range(4):
        s = two_rows(gen, seed, clean=True, cards=PLAYS[name])
        assert [c.name for c in pair_indices(true_indices(s))] == s.cards, seed


def test_two_rows_with_the_layouts_randomness_pair_almost_always(gen):
    """Rows tilted, cards jittered, fanned, slid under, upside down, the
    camera's effects on: the second row may cover the first's bottom corners."""
    ok = total = 0
    for seed in range(40):
        s = two_rows(gen, seed)
        if not s.readable:
            continue
        total += 1
        ok += [c.name for c in pair_indices(true_indices(s))] == s.cards
    assert total >= 30 and ok / total >= 0.9, (ok, total)


def test_plays_in_two_rows_are_read_exactly_each_card_once(detector, gen):
    """Read by the detector, camera effects on; the first row's cards first."""
    for seed in range(8):
        s = two_rows(gen, seed)
        names = detector.read_zones([s.image], detector.imgsz / max(ZONE_PX), MARGIN)[0].names
        assert names == s.cards, (seed, s.cards, names)


@pytest.mark.parametrize("photo", ["cam_image1.jpg", "IMG_2615.JPG"])
def test_real_photographs_of_cards_in_a_grid_count_each_card_once(detector, photo):
    """Two train photographs of EdjeElectronics' set (``tests/data/real/edje``):
    two queens in a column beside a ten, and four cards in a 2x2 grid on
    knitwear, each read as two cards before; the labels give ranks only."""
    boxes = load_labels(EDJE, "train")[photo]
    img, _ = scaled_photo(cv2.imread(str(EDJE / "images" / "train" / photo)), boxes)
    names = detector.read_zones([img], detector.imgsz / max(ZONE_PX), 0)[0].names
    assert Counter(n[1] for n in names) == Counter(RANKS[b["class"]] for b in boxes), names
    assert not {"BJ", "LJ"} & set(names)
