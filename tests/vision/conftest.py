"""Shared fixtures: rendered decks (cached outside git) and the shipped model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.reading.detector import FLOAT_MODEL, CardDetector
from vision.training.card_art import load_decks
from vision.training.synth import SceneGenerator

# Two training decks of different styles; the held-out ones stay for the benchmark.
TEST_DECKS = ("anglo", "simplistic")


@pytest.fixture(scope="session")
def decks():
    return load_decks(TEST_DECKS)


@pytest.fixture(scope="session")
def gen(decks):
    return SceneGenerator(decks, hand_rate=0.0)


# real card faces (CC0) from the card-face set's training split (tests/data/real/LICENSE.md)
REAL_FACES = Path(__file__).resolve().parents[1] / "data" / "real" / "faces_more"


@pytest.fixture(scope="session")
def bench_wood():
    """The single-face benchmark's table top (benchmarks/bench_card_faces.py, seed 0)."""
    return wood_top(0)


def read_alone(detector: CardDetector, picture: np.ndarray):
    """One zone picture without a margin, read as the single-face benchmark reads it."""
    from vision.reading.table import ZONE_PX

    return detector.read_zones([picture], detector.imgsz / max(ZONE_PX), 0)[0]


@pytest.fixture(scope="session")
def detector():
    assert Path(FLOAT_MODEL).exists(), f"the shipped model {FLOAT_MODEL} is missing"
    return CardDetector(threads=2)


def wood_top(seed: int) -> np.ndarray:
    """A zone picture's worth of Debian's wooden boards (mate-backgrounds,
    GPL-2+: vision.training.real_surfaces), its grain drawn with ``seed``;
    the test is skipped where the package is absent."""
    from vision.reading.table import ZONE_PX
    from vision.training.real_surfaces import surfaces, zone_surface

    found = [s for s in surfaces() if s.name == "wood"]
    if not found:
        pytest.skip("mate-backgrounds is not installed (.ci/run installs it)")
    return zone_surface(found[0], ZONE_PX, np.random.default_rng(seed))


@pytest.fixture
def detector_setting(detector):
    """The shared detector with some of its settings changed, each restored
    after the test: ``detector_setting("quarter_turns", False)``."""
    saved: dict = {}

    def use(name: str, value):
        saved.setdefault(name, getattr(detector, name))
        setattr(detector, name, value)
        return detector

    yield use
    for name, value in saved.items():
        setattr(detector, name, value)


@pytest.fixture(scope="session")
def hanzi_reader():
    """The reader with the shipped profile for decks printing 大王 / 小王."""
    from vision.reading.deck_profile import SHIPPED_PROFILES

    return CardDetector(threads=2, deck=SHIPPED_PROFILES["hanzi-jokers"])


@pytest.fixture
def watch(monkeypatch):
    """Watch a function of a module as the code under test calls it:
    ``calls = watch(detector_module, "_oversized")`` replaces it (until the
    test ends) with one that calls it and notes ``(args, result)`` in
    ``calls``, so a test sees a rule act where the final read hides it."""
    def use(module, name: str) -> list:
        real, calls = getattr(module, name), []

        def watched(*args):
            out = real(*args)
            calls.append((args, out))
            return out

        monkeypatch.setattr(module, name, watched)
        return calls

    return use


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def cutouts() -> list:
    """Real hands cut out of the four rps photographs in tests/data/real
    (CC BY-SA 4.0, see its LICENSE.md), to lay into generated zones."""
    import cv2

    from vision.training.real_photos import green_cloth_cutout

    real = Path(__file__).resolve().parents[1] / "data" / "real" / "rps"
    return [green_cloth_cutout(cv2.imread(str(p))) for p in sorted(real.glob("*.png"))]
