"""Plays whose cards are turned each its own way: a fan laid as a held hand,
a card pushed in crooked.  The zone is also read turned by each card's angle
and the reads merged card by card (``CardDetector(own_turns=True)``)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reading.detector import CardDetector
from vision.reading.orientation import tilt_peaks, turn_angles
from vision.reading.table import ZONE_PX, Zone

MARGIN = Zone.margin_px(15)
PLAYS = (["H3", "H4", "H5", "H6", "H7"], ["SK", "SK", "D9", "C9"], ["DQ", "CQ", "SQ"],
         ["D8", "D8", "S8", "S8", "C8", "H8"])


def fan(gen, seed, spread=70.0):
    cards = PLAYS[seed % len(PLAYS)]
    return gen.render(cards, np.random.default_rng(seed), deck=gen.decks[seed % 2], margin=MARGIN, spread=spread)


def crooked(gen, seed, angle=35.0):
    cards = PLAYS[seed % len(PLAYS)]
    turns = [0.0] * len(cards)
    turns[len(cards) // 2] = angle if seed % 2 else -angle
    return gen.render(cards, np.random.default_rng(seed), deck=gen.decks[seed % 2], margin=MARGIN,
                      card_turns=turns, spacing=0.5)


@pytest.fixture(scope="module")
def one_turn():
    return CardDetector(threads=2, own_turns=False)


def test_a_fan_turns_each_card_its_own_way(gen):
    s = fan(gen, 3, spread=70.0)
    # from the leftmost (top leaning left) to the rightmost, each a little more
    # (the layout's own jitter is a degree or two a card)
    assert all(b > a for a, b in zip(s.angles, s.angles[1:]))
    assert s.angles[0] == pytest.approx(-35, abs=6) and s.angles[-1] == pytest.approx(35, abs=6)
    h, w = s.image.shape[:2]
    assert s.readable and all(0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h for _, x0, y0, x1, y1 in s.labels)


def test_a_crooked_card_is_turned_alone(gen):
    s = crooked(gen, 5)
    k = len(s.cards) // 2
    others = [a for i, a in enumerate(s.angles) if i != k]
    assert s.angles[k] - np.mean(others) == pytest.approx(35, abs=6)
    assert max(others) - min(others) < 10
    assert s.readable and len(set(s.owners) - {-1}) == len(s.cards)


def test_own_turns_draw_nothing_more_from_the_rng(gen):
    # a scene's draws are the same with or without them: what follows a render
    # (the next scene of a data set) is the same scene
    plain, turned = np.random.default_rng(9), np.random.default_rng(9)
    gen.render(PLAYS[0], plain, deck=gen.decks[0])
    gen.render(PLAYS[0], turned, deck=gen.decks[0], spread=60.0)
    assert plain.bit_generator.state == turned.bit_generator.state
    gen.render(PLAYS[0], turned, deck=gen.decks[0], card_turns=[0, 0, 30, 0, 0])
    gen.render(PLAYS[0], plain, deck=gen.decks[0])
    assert plain.bit_generator.state == turned.bit_generator.state


@pytest.mark.parametrize("kwargs", [{"spread": -5.0}, {"spread": 200.0}, {"card_turns": [0.0, 10.0]},
                                    {"spread": 30.0, "card_turns": [0.0] * 5}])
def test_bad_turns_are_refused(gen, kwargs):
    with pytest.raises(ValueError):
        gen.render(PLAYS[0], np.random.default_rng(0), **kwargs)


def test_a_crooked_cards_angle_is_one_of_the_zones_angles(gen):
    for seed in (0, 2, 4, 5):
        s = crooked(gen, seed)
        k = len(s.cards) // 2
        peaks = [a for a, _ in tilt_peaks(s.image, MARGIN, 0.1)]
        assert min(abs(a - s.angles[k]) for a in peaks) < 4, (seed, s.angles, peaks)
        whole, own, _ = turn_angles(s.image, MARGIN)
        assert whole == [] and min(abs(a - s.angles[k]) for a in own) < 4


# (of seeds 0-11, 8 fans and 8 rows with a crooked card are read exactly with
# each card's own turn, none with one turn: see models/MODEL_CARD.md for the figures)
def test_fans_are_read_card_by_card_and_not_with_one_turn(gen, detector, one_turn):
    scale = detector.imgsz / max(ZONE_PX)
    seeds = (0, 2, 4, 5)
    read_own = read_one = 0
    for seed in seeds:
        s = fan(gen, seed)
        got = detector.read_zones([s.image], scale, MARGIN)[0]
        read_own += got.names == s.cards
        # merged cards are still said in the zone picture's own pixels
        for c in got.cards:
            assert MARGIN <= c.centre[0] <= s.image.shape[1] - MARGIN
        read_one += one_turn.read_zones([s.image], scale, MARGIN)[0].names == s.cards
    assert read_own == len(seeds)
    assert read_one < len(seeds)


def test_crooked_cards_are_read_and_not_with_one_turn(gen, detector, one_turn):
    scale = detector.imgsz / max(ZONE_PX)
    seeds = (0, 2, 4, 5)
    read_own = read_one = 0
    for seed in seeds:
        s = crooked(gen, seed)
        read_own += detector.read_zones([s.image], scale, MARGIN)[0].names == s.cards
        read_one += one_turn.read_zones([s.image], scale, MARGIN)[0].names == s.cards
    assert read_own == len(seeds)
    assert read_one < len(seeds)


def test_ordinary_rows_read_as_with_one_turn(gen, detector, one_turn):
    scale = detector.imgsz / max(ZONE_PX)
    for seed, cards in enumerate(PLAYS):
        s = gen.render(cards, np.random.default_rng(200 + seed), deck=gen.decks[seed % 2], margin=MARGIN)
        assert detector.read_zones([s.image], scale, MARGIN)[0].names == \
            one_turn.read_zones([s.image], scale, MARGIN)[0].names == s.cards
