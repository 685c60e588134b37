"""Indices to physical cards, by geometry, on the generator's exact labels."""

from __future__ import annotations

import numpy as np
import pytest

from vision.classes import CLASS_NAMES, HAND_CLASS
from vision.detector import IndexDetection, pair_indices


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
