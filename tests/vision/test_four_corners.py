"""Decks that print an index in all four corners: each card counts once.

Many real decks print the index in every corner.  Read by the two-corner
pairing alone, such a card lying alone in view came out as two or three
cards (its top-right and bottom-left indices as cards of their own).  The
cards here are the test decks with their indices copied into the other two
corners (:func:`vision.training.card_art.four_corner_deck`)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reading.pairing import IndexDetection, pair_indices
from vision.reading.table import ZONE_PX
from vision.training.card_art import four_corner_deck

PLAYS = [["HA"], ["S5", "S5"], ["D9", "S9", "D9"], ["S3", "H4", "D5", "C6", "S7"]]


@pytest.fixture(scope="module")
def four_decks(decks):
    return [four_corner_deck(d) for d in decks]


@pytest.mark.parametrize("spacing", [1.1, 0.6])
@pytest.mark.parametrize("cards", PLAYS, ids=lambda c: " ".join(c))
def test_four_corner_cards_are_read_once(gen, detector, four_decks, cards, spacing):
    for k, deck in enumerate(four_decks):
        rng = np.random.default_rng([len(cards), k, int(spacing * 10)])
        scene = gen.render(cards, rng, deck=deck, spacing=spacing, clean=True)
        read = detector.read_zones([scene.image], detector.imgsz / max(ZONE_PX), 0)[0]
        assert read.names == cards, (deck.name, spacing)


def _index(name, x, y, turned=False):
    return IndexDetection(name, 0.95, (x - 6, y - 12, x + 6, y + 12))


def test_the_other_corners_join_the_card_they_square_with():
    # one H4 (corners at x 20 / 70, y 20 / 84) and a second H4 whose top-left
    # index shows 30 px right of the first's: two cards, the first with four indices
    first = [_index("H4", 20, 20), _index("H4", 70, 20), _index("H4", 20, 84), _index("H4", 70, 84)]
    cards = pair_indices(first + [_index("H4", 100, 20)])
    assert [c.name for c in cards] == ["H4", "H4"]
    assert sorted(len(c.indices) for c in cards) == [1, 4]


def test_an_index_of_another_name_at_a_corner_stays_a_card():
    cards = pair_indices([_index("H4", 20, 20), _index("H4", 70, 84), _index("S4", 70, 20)])
    assert sorted(c.name for c in cards) == ["H4", "S4"]


def test_a_cards_left_edge_is_one_card():
    # two H6 in a row, the second laid over the first's right part: the first
    # shows its left edge's two indices, the second all four
    first = [_index("H6", 20, 20), _index("H6", 20, 84)]
    second = [_index("H6", 50, 20), _index("H6", 100, 20), _index("H6", 50, 84), _index("H6", 100, 84)]
    cards = pair_indices(first + second)
    assert [len(c.indices) for c in cards] == [2, 4]


def test_two_rows_of_one_name_stay_two_cards():
    # the same face twice, one card below the other in two rows: top-left
    # indices a card's height and a gap apart, not one card's edge
    cards = pair_indices([_index("S9", 20, 20), _index("S9", 70, 84), _index("S9", 20, 120), _index("S9", 70, 184)])
    assert [c.name for c in cards] == ["S9", "S9"] and all(len(c.indices) == 2 for c in cards)
