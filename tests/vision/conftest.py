"""Shared fixtures: rendered decks (cached outside git) and the shipped model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.card_art import load_decks
from vision.detector import DEFAULT_MODEL, CardDetector
from vision.synth import SceneGenerator

# Tests that need the card model to read every card right.  The shipped
# model is still under-trained (models/MODEL_CARD.md: 53 % of held-out plays
# exact). Strict: once a better model reads one of them right, the run fails
# until its marker goes, so the marked tests can only become real checks.
needs_accurate_model = pytest.mark.xfail(
    strict=True, reason="shipped card model under-trained: see models/MODEL_CARD.md")

# Two training decks of different styles; the held-out ones stay for the benchmark.
TEST_DECKS = ("anglo", "simplistic")


@pytest.fixture(scope="session")
def decks():
    return load_decks(TEST_DECKS)


@pytest.fixture(scope="session")
def gen(decks):
    return SceneGenerator(decks, hand_rate=0.0)


@pytest.fixture(scope="session")
def detector():
    assert Path(DEFAULT_MODEL).exists(), f"the shipped model {DEFAULT_MODEL} is missing"
    return CardDetector(threads=2)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
