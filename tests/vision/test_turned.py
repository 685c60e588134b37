"""Turned plays: a row pushed in at up to 45 degrees is read turned back upright."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.reading.detector import CardDetector
from vision.reading.orientation import card_tilt, cards_hull, cards_region, turns, upright
from vision.reading.table import ZONE_PX, Zone

MARGIN = Zone.margin_px(15)
PLAYS = (["H3", "H4", "H5", "H6", "H7"], ["SK", "SK", "D9"], ["CQ"], ["D8", "D8", "S8", "S8"])


def scene(gen, cards, seed, turn):
    rng = np.random.default_rng(seed)
    return gen.render(cards, rng, deck=gen.decks[seed % len(gen.decks)], margin=MARGIN, turn=turn)


@pytest.mark.parametrize("turn", [-40.0, -25.0, 18.0, 33.0, 44.0])
def test_the_cards_angle_is_found_square_wise(gen, turn):
    for seed, cards in enumerate(PLAYS):
        tilt = card_tilt(scene(gen, cards, seed, turn).image, MARGIN)
        # square-wise: 44 one way and 46 the other look alike from the edges
        assert min(abs(tilt - turn), 90 - abs(tilt - turn)) < 4, (cards, turn, tilt)


def test_an_ordinary_row_is_not_turned(gen):
    for seed, cards in enumerate(PLAYS):
        assert turns(scene(gen, cards, seed, 2.0).image, MARGIN) == []


def test_turned_upright_maps_back_to_the_original():
    img = np.zeros((100, 200, 3), np.uint8)
    u = upright(img, 30.0)
    assert u.image.shape[0] > 100 and u.image.shape[1] > 200          # nothing cut off
    corners = [u.point(x, y) for x, y in ((0, 0), (u.image.shape[1], u.image.shape[0]))]
    # the turned canvas's corners lie outside the original, its centre on the original's
    assert corners[0][0] < 0 or corners[0][1] < 0
    assert u.point(u.image.shape[1] / 2, u.image.shape[0] / 2) == pytest.approx((100, 50), abs=0.5)


def test_a_region_turned_upright_maps_back_to_the_whole_picture():
    img = np.zeros((300, 400, 3), np.uint8)
    img[140:160, 250:270] = 255                     # a bright square centred at (260, 150)
    whole, part = upright(img, 35.0), upright(img, 35.0, (200, 60, 360, 260))
    assert part.image.shape[0] * part.image.shape[1] < whole.image.shape[0] * whole.image.shape[1] / 2
    for u in (whole, part):
        ys, xs = np.nonzero(u.image[:, :, 0] > 128)
        assert u.point(xs.mean(), ys.mean()) == pytest.approx((259.5, 149.5), abs=1.0)


@pytest.mark.parametrize("kw", [{"turn": 38.0}, {"turn": -20.0}, {"spread": 80.0}, {"card_turns": [0.0, 40.0, 0.0]},
                                {}], ids=["turned", "turned-back", "fan", "crooked", "row"])
def test_the_cards_region_holds_every_index_and_not_the_bare_cloth(gen, kw):
    """Only the region is turned upright: every index of the play must lie in
    it, and on a plain cloth it is well short of the whole picture."""
    for seed, cards in enumerate(PLAYS):
        if "card_turns" in kw and len(cards) != 3:
            continue
        rng = np.random.default_rng(900 + seed)
        s = gen.render(cards, rng, deck=gen.decks[seed % len(gen.decks)], margin=MARGIN, **kw)
        x0, y0, x1, y1 = cards_region(s.image)
        h, w = s.image.shape[:2]
        for _, bx0, by0, bx1, by1 in s.labels:
            assert x0 <= bx0 and y0 <= by0 and bx1 <= x1 and by1 <= y1, (cards, kw, (x0, y0, x1, y1))
        if len(cards) == 1:
            assert (x1 - x0) * (y1 - y0) < 0.6 * w * h


@pytest.mark.parametrize("kw", [{"turn": 38.0}, {"spread": 80.0}, {"card_turns": [0.0, 40.0, 0.0]}],
                         ids=["turned", "fan", "crooked"])
def test_the_canvas_around_the_cards_edges_holds_every_index_turned(gen, kw):
    """A turned read's canvas is the box around the cards' edges as turned,
    not the turned box around them: smaller, and every index still inside
    it, a pad's width from its border."""
    for seed, cards in enumerate(PLAYS):
        if "card_turns" in kw and len(cards) != 3:
            continue
        rng = np.random.default_rng(900 + seed)
        s = gen.render(cards, rng, deck=gen.decks[seed % len(gen.decks)], margin=MARGIN, **kw)
        region = cards_hull(s.image)
        sizes = []
        for turn in (-40.0, 25.0, 44.0):
            cut, box = upright(s.image, turn, region), upright(s.image, turn, region.box)
            sizes.append((cut.image.size, box.image.size))
            to_cut = cv2.invertAffineTransform(cut.back)
            for _, x0, y0, x1, y1 in s.labels:
                corners = np.array([[x, y, 1.0] for x in (x0, x1) for y in (y0, y1)]) @ to_cut.T
                assert corners.min() >= 0 and corners[:, 0].max() <= cut.image.shape[1] \
                    and corners[:, 1].max() <= cut.image.shape[0], (cards, kw, turn)
            # the same pixels as the turned box's, where both show the picture
            shift = np.rint(cv2.invertAffineTransform(box.back)[:, 2] - to_cut[:, 2]).astype(int)
            h, w = cut.image.shape[:2]
            inner = box.image[shift[1]:shift[1] + h, shift[0]:shift[0] + w]
            assert inner.shape == cut.image.shape
            assert np.abs(inner.astype(int) - cut.image.astype(int)).mean() < 1.0
        assert all(a <= b for a, b in sizes), (cards, kw, sizes)
        if len(cards) <= 3:       # (a long play turned spans the zone: its cut is the whole)
            assert any(a < 0.9 * b for a, b in sizes), (cards, kw, sizes)


def test_a_whole_zone_is_cut_only_where_that_saves_much():
    # a long row laid corner to corner: its box is the whole picture, but
    # turned upright it is a narrow band, and only the band is kept
    img = np.full((512, 704, 3), 60, np.uint8)
    _ = cv2.fillConvexPoly(img, cv2.boxPoints(((352, 256), (640, 110), 35)).astype(np.int32), (235, 235, 235))
    region = cards_hull(img)
    assert region.box == (0, 0, 704, 512) and region.whole
    ratios = [upright(img, t, region).image.size / upright(img, t).image.size for t in (35.0, -35.0)]
    assert min(ratios) < 0.6 and max(ratios) <= 1.0
    # strong edges everywhere (a patterned cloth, wood): turned whole, as before
    noisy = np.random.default_rng(3).integers(0, 255, (512, 704, 3), dtype=np.uint8)
    assert upright(noisy, 35.0, cards_hull(noisy)).image.shape == upright(noisy, 35.0).image.shape


def test_a_featureless_picture_is_its_own_region():
    assert cards_region(np.full((448, 640, 3), 90, np.uint8)) == (0, 0, 640, 448)


@pytest.mark.parametrize("turn", [-38.0, 27.0, 43.0])
def test_turned_rows_are_read_exactly_and_not_without_turning_them(gen, detector, turn):
    plain = CardDetector(turn_from=None)
    scale = detector.imgsz / max(ZONE_PX)
    read_turned = read_plain = 0
    for seed, cards in enumerate(PLAYS):
        s = scene(gen, cards, 100 + seed, turn)
        got = detector.read_zones([s.image], scale, MARGIN)[0]
        read_turned += got.names == s.cards
        # where each card was found is said in the zone picture's own pixels
        for c in got.cards:
            assert MARGIN <= c.centre[0] <= s.image.shape[1] - MARGIN
            assert 0 <= c.box[0] < c.box[2] <= s.image.shape[1] and 0 <= c.box[1] < c.box[3] <= s.image.shape[0]
        read_plain += plain.read_zones([s.image], scale, MARGIN)[0].names == s.cards
    assert read_turned == len(PLAYS)
    assert read_plain < len(PLAYS)      # the models alone lose turned rows: the turning is what reads them

