"""Decks drawn in lines: outlined pips and court pictures are read as their
cards, not as jokers.

Many real decks print every pip and court picture as an outline on plain
card stock.  The classifier trained only on filled pips took their court
pictures and pips for little jokers, and missed many of their indices
(real card faces: "Line-drawn decks" in models/MODEL_CARD.md).  The cards
here are the test decks drawn in lines
(:func:`vision.training.card_art.line_drawn_deck`), their jokers as they were.
"""

from __future__ import annotations

import numpy as np
import pytest

from vision.reading.table import ZONE_PX
from vision.training.card_art import line_drawn_deck

PLAYS = [["SQ"], ["HK", "DK"], ["SJ", "HJ", "DJ", "CJ", "SJ"], ["H3", "D4", "S5", "C6", "H7"],
         ["DA", "DA"], ["BJ", "BJ", "LJ", "LJ"]]


@pytest.fixture(scope="module")
def drawn_decks(decks):
    return [line_drawn_deck(d) for d in decks]


@pytest.mark.parametrize("cards", PLAYS, ids=lambda c: " ".join(c))
def test_line_drawn_cards_are_read_as_themselves(gen, detector, drawn_decks, cards):
    for k, deck in enumerate(drawn_decks):
        rng = np.random.default_rng([len(cards), k, 31])
        scene = gen.render(cards, rng, deck=deck, spacing=0.6, clean=True)
        read = detector.read_zones([scene.image], detector.imgsz / max(ZONE_PX), 0)[0]
        assert read.names == cards, deck.name
