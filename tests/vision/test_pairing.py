"""Indices to physical cards, by geometry, on the generator's exact labels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.reading.classes import CLASS_NAMES, HAND_CLASS
from vision.reading.pairing import IndexDetection, pair_indices


def true_indices(scene):
    return [IndexDetection(CLASS_NAMES[c], 0.9, (x0, y0, x1, y1))
            for c, x0, y0, x1, y1 in scene.labels if c != HAND_CLASS]


PLAYS = {
    "single": ["HA"],
    "pair of identical cards": ["S5", "S5"],
    "triple": ["D9", "S9", "D9"],
    "full house": ["C7", "C7", "H7", "SQ", "DQ"],
    "straight": ["S3", "H4", "D5", "C6", "S7"],
    "tube": ["H8", "S8", "D9", "D9", "CT", "HT"],
    "8-card bomb": ["S6", "S6", "H6", "H6", "D6", "D6", "C6", "C6"],
    "joker bomb": ["LJ", "LJ", "BJ", "BJ"],
    "10 cards": ["C2", "C2", "D3", "H4", "S5", "S6", "H7", "D8", "C9", "CT"],
}


@pytest.mark.parametrize("spacing", [None, 0.3, 0.6, 1.05])
@pytest.mark.parametrize("name", list(PLAYS))
def test_typical_plays_pair_exactly(gen, decks, name, spacing):
    cards = PLAYS[name]
    for i, deck in enumerate(decks):
        rng = np.random.default_rng([len(cards), i, int((spacing or 0) * 100)])
        scene = gen.render(cards, rng, deck=deck, spacing=spacing, clean=True)
        got = [c.name for c in pair_indices(true_indices(scene))]
        assert got == cards, (deck.name, spacing)


def test_tight_fans_on_a_tilted_row(gen, decks):
    """Heavy overlap, the row turned and fanned, camera effects on."""
    ok = total = 0
    for i in range(60):
        rng = np.random.default_rng([99, i])
        cards = PLAYS["10 cards"] if i % 2 else PLAYS["8-card bomb"]
        scene = gen.render(cards, rng, deck=decks[i % 2], spacing=0.2 + 0.1 * (i % 3))
        if not scene.readable:
            continue
        total += 1
        ok += [c.name for c in pair_indices(true_indices(scene))] == cards
    assert total >= 40 and ok / total >= 0.95


def test_two_identical_cards_count_twice():
    a = IndexDetection("S5", 0.9, (10, 10, 20, 30))
    b = IndexDetection("S5", 0.9, (40, 10, 50, 30))
    assert [c.name for c in pair_indices([a, b])] == ["S5", "S5"]


def test_nothing_in_nothing_out():
    assert pair_indices([]) == []


def test_a_card_whose_corners_are_named_two_ways_is_one_card():
    """Two cards paired by name show where a card's corners sit; the third
    card's corners were read C9 (unsure) and S9: one card, the likelier S9."""
    dets = [IndexDetection("S5", 0.9, (10, 10, 20, 30)), IndexDetection("S5", 0.9, (67, 70, 77, 90)),
            IndexDetection("H7", 0.9, (40, 10, 50, 30)), IndexDetection("H7", 0.9, (97, 70, 107, 90)),
            IndexDetection("C9", 0.6, (70, 10, 80, 30), (("S9", 0.35),)),
            IndexDetection("S9", 0.9, (127, 70, 137, 90), (("C9", 0.05),))]
    assert [c.name for c in pair_indices(dets)] == ["S5", "H7", "S9"]
    # a corner out of place stays a card of its own
    stray = dets[:5] + [IndexDetection("S9", 0.9, (140, 70, 150, 90), (("C9", 0.05),))]
    assert [c.name for c in pair_indices(stray)] == ["S5", "H7", "C9", "S9"]


def test_a_lone_card_read_two_ways_is_one_card():
    """With no other card to measure against, a corner pair in a card's shape is one card."""
    top = IndexDetection("C5", 0.77, (10, 10, 20, 30), (("S5", 0.2),))
    bottom = IndexDetection("S5", 0.52, (67, 70, 77, 90), (("C5", 0.45),))
    assert [c.name for c in pair_indices([top, bottom])] == ["C5"]
    # two corners that cannot be one card's stay two cards
    far = IndexDetection("S5", 0.52, (200, 70, 210, 90), (("C5", 0.45),))
    assert [c.name for c in pair_indices([top, far])] == ["C5", "S5"]


def test_a_card_read_two_ways_is_as_sure_as_its_corners_are_of_the_name_it_gets():
    """A lone card's corners read C5 (0.77, S5 0.2 next) and S5 (0.52, C5
    0.45): a C5 of 0.77.  A real three of diamonds' top corner boxed with the
    frame round it read BJ (0.31), its bottom corner D3 (0.93, BJ 0.02 next):
    the card is named as both corners together find likeliest, but it is no
    BJ of 0.93 (the D3 corner's own confidence); a BJ of 0.31, so the
    referee is asked."""
    top = IndexDetection("C5", 0.77, (10, 10, 20, 30), (("S5", 0.2),))
    bottom = IndexDetection("S5", 0.52, (67, 70, 77, 90), (("C5", 0.45),))
    [card] = pair_indices([top, bottom])
    assert (card.name, card.confidence) == ("C5", 0.77)
    frame = IndexDetection("BJ", 0.31, (10, 10, 20, 30))
    d3 = IndexDetection("D3", 0.93, (67, 70, 77, 90), (("BJ", 0.02),))
    [card] = pair_indices([frame, d3])
    assert len(card.indices) == 2
    assert card.confidence == max(d.probability(card.name) for d in (frame, d3)) < 0.5


def _card(name, x, y, turn_deg=0.0, ih=30.0, dy=3.0):
    """A card's two corner indices: top-left at (x, y), bottom-right where a
    card of the usual shape (dx/dy 0.78, dy index heights) turned ``turn_deg`` puts it."""
    t = np.radians(turn_deg)
    off = np.array([0.78 * dy * ih, dy * ih])
    off = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]) @ off
    w = 0.5 * ih
    top = IndexDetection(name, 0.9, (x - w / 2, y - ih / 2, x + w / 2, y + ih / 2))
    bx, by = x + off[0], y + off[1]
    return top, IndexDetection(name, 0.9, (bx - w / 2, by - ih / 2, bx + w / 2, by + ih / 2))


def test_a_card_laid_higher_than_the_rest_keeps_the_others_tops():
    """One card 1.5 index heights above its neighbours: the others' top
    indices are still top ones (measured from the highest, they were not)."""
    dets = []
    names = ["D8", "S8", "H8", "C8", "D8", "S8"]
    for k, name in enumerate(names):
        lift = -45 if k == 3 else 0
        top, bottom = _card(name, 100 + 30 * k, 200 + lift)
        dets.append(top)
        if k == len(names) - 1:
            dets.append(bottom)          # the last card lies on top: both corners show
    assert [c.name for c in pair_indices(dets)] == names


def test_the_last_card_of_a_fan_turned_far_is_still_one_card():
    dets = []
    names = ["S9", "C5", "S9", "LJ"]
    for k, name in enumerate(names):
        top, bottom = _card(name, 100 + 40 * k, 200, turn_deg=10 * k)
        dets.append(top)
    dets.append(bottom)                  # the LJ, turned 30 degrees
    cards = pair_indices(dets)
    assert [c.name for c in cards] == names
    assert len(cards[-1].indices) == 2


def test_a_card_turned_from_its_neighbour_and_read_two_ways_is_one_card():
    """The H3 lies 6 degrees off the C3 beside it (its corners 0.4 index
    heights from where the C3's sit) and its bottom corner read D3: one card."""
    c3_top, c3_bottom = _card("C3", 300, 200)
    s3_top, _ = _card("S3", 120, 200)
    h3_top, h3_bottom = _card("H3", 210, 200, turn_deg=6)
    h3_bottom = IndexDetection("D3", 0.32, h3_bottom.box, (("H3", 0.18), ("NONE", 0.14), ("S3", 0.07)))
    cards = pair_indices([s3_top, h3_top, c3_top, c3_bottom, h3_bottom])
    assert [c.name for c in cards] == ["S3", "H3", "C3"]


def test_a_cut_off_corner_takes_the_name_of_its_cards_other_corner():
    """A bottom corner half out of the picture reads DQ and lists nothing
    like D8; in a card's shape from the D8's top corner it is the D8's."""
    top, bottom = _card("D8", 200, 200)
    x0, y0, x1, y1 = bottom.box
    cut = IndexDetection("DQ", 0.44, (x0, y0, x1, (y0 + y1) / 2), (("D5", 0.15), ("D6", 0.11)))
    others = [_card(n, 200 - 55 * k, 200)[0] for k, n in enumerate(["C7", "H6"], 1)]
    assert [c.name for c in pair_indices(others + [top, cut])] == ["H6", "C7", "D8"]


def test_bottom_band_is_the_far_side_of_the_widest_gap():
    from vision.reading.pairing import bottom_band

    assert bottom_band(np.array([10.0, 50.0, 20.0, 160.0, 150.0]), 30.0).tolist() == [False, False, False, True, True]
    assert not bottom_band(np.array([10.0, 40.0, 20.0]), 30.0).any()      # a lifted card is no band
    assert bottom_band(np.array([5.0]), 30.0).tolist() == [False]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)), min_size=2, max_size=24),
       st.floats(10.0, 40.0), st.integers(2, 4))
def test_row_angle_weighs_every_angle_at_once_as_it_did_one_by_one(points, ih, bands):
    """row_angle scores its 41 angles in one array: the angle it picks is the
    one the loop over angles picked (integer points on a 10 px grid make ties)."""
    from vision.reading.pairing import BOTTOM_MIN, MAX_ROW_ANGLE, row_angle

    centres = np.array(points, float) * 10.0
    best = None
    for deg in np.arange(-MAX_ROW_ANGLE, MAX_ROW_ANGLE + 0.5, 1.0):
        t = np.radians(deg)
        v = -centres[:, 0] * np.sin(t) + centres[:, 1] * np.cos(t)
        if bands > 2:
            # split at the bands - 1 widest gaps, as the rows version does
            order = np.argsort(v, kind="stable")
            cut = np.zeros(len(v), int)
            cut[np.argsort(-np.diff(v[order]), kind="stable")[:bands - 1] + 1] = 1
            band = np.empty(len(v), int)
            band[order] = np.cumsum(cut)
            masks = [band == b for b in range(bands)]
        else:
            # the far side of the widest gap, if it is wide enough, as bottom_band was written
            s = np.sort(v)
            k = int(np.argmax(np.diff(s)))
            low = v > (s[k] + s[k + 1]) / 2 if s[k + 1] - s[k] >= BOTTOM_MIN * ih else np.zeros(len(v), bool)
            masks = [low, ~low]
        spread = sum(float(((v[m] - v[m].mean()) ** 2).sum()) for m in masks if m.any())
        score = spread / (ih * ih) + 0.02 * abs(deg)
        if best is None or score < best[0]:
            best = (score, float(t))
    assert row_angle(centres, ih, bands) == pytest.approx(best[1], abs=1e-12)


def test_a_climbing_row_of_two_upright_cards_of_one_name_is_two_cards():
    """The demo's seed 5 (issue 16: E's D8 D8 read as D8 D8 D8): two upright
    D8 laid apart, the second 30 px higher.  In the climbing row's frame the
    first card's own corners look too steep, and the first card's top corner
    with the second's bottom one looked like a card; the pairing that pairs
    every corner wins."""
    boxes = [(333, 348, 352, 382), (428, 318, 447, 352), (386, 459, 405, 493), (481, 429, 500, 463)]
    cards = pair_indices([IndexDetection("D8", 0.95, b) for b in boxes])
    assert [(c.name, len(c.indices)) for c in cards] == [("D8", 2), ("D8", 2)]
    assert cards[0].indices[0].box[0] == 333 and cards[1].indices[0].box[0] == 428
