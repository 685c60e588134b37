"""Turned plays: a row pushed in at up to 45 degrees is read turned back upright."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reading.detector import CardDetector
from vision.reading.orientation import card_tilt, turns, upright
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

