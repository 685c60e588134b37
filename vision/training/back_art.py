"""Card backs of drawn patterns: the training data's answer to unseen backs.

A card laid face down shows its back, and a back's pattern may look like an
index where the detector boxes a corner of it (a lavender checkerboard was
read as the little joker).  PySolFC's sets print 85 backs, mostly pictures;
real decks print geometric patterns as often: checks, diamonds, stripes,
dots, a lattice, in one or two inks on a white border.  Each call draws one
such back in random inks and sizes.

>>> back = drawn_back(np.random.default_rng(1))
>>> back.shape[1], back.shape[2], bool(back[0, 0, 3] == 0), bool(back[back.shape[0] // 2, 120, 3] == 255)
(240, 4, True, True)
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.training.card_art import CARD_WIDTH_PX

PATTERNS = ("checks", "diamonds", "stripes", "dots", "lattice")


def _ink(rng: np.random.Generator) -> tuple[int, int, int]:
    """A printing ink: any hue, mostly mid to dark (BGR)."""
    hsv = np.uint8([[[int(rng.integers(0, 180)), int(rng.integers(60, 256)), int(rng.integers(60, 230))]]])
    b, g, r = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0]
    return int(b), int(g), int(r)


def drawn_back(rng: np.random.Generator, width: int = CARD_WIDTH_PX, aspect: float | None = None) -> np.ndarray:
    """One card back (BGRA, ``width`` wide, rounded see-through corners): a
    pattern from :data:`PATTERNS` in one ink on white or in two inks, inside a
    white border (none now and then)."""
    h = int(round(width * (aspect or rng.uniform(1.38, 1.5))))
    w = width
    pattern = str(rng.choice(PATTERNS))
    ink = _ink(rng)
    ground = (255, 255, 255) if rng.random() < 0.6 else _ink(rng)
    cell = float(rng.uniform(0.025, 0.09)) * w            # one square, stripe or dot spacing
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if pattern == "diamonds":                              # checks turned 45 degrees
        xx, yy = (xx + yy) / np.sqrt(2), (xx - yy) / np.sqrt(2)
    if pattern in ("checks", "diamonds"):
        on = ((np.floor(xx / cell) + np.floor(yy / cell)) % 2) == 0
    elif pattern == "stripes":
        turn = float(rng.choice([0.0, 45.0, 90.0, 135.0])) * np.pi / 180
        on = (((xx * np.cos(turn) + yy * np.sin(turn)) / cell) % 1.0) < rng.uniform(0.3, 0.6)
    elif pattern == "dots":
        dx, dy = (xx % cell) - cell / 2, (yy % cell) - cell / 2
        on = dx * dx + dy * dy < (rng.uniform(0.2, 0.42) * cell) ** 2
    else:                                                  # a lattice of thin lines
        line = max(1.0, rng.uniform(0.08, 0.25) * cell)
        on = ((xx % cell) < line) | ((yy % cell) < line)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = ground
    img[on] = ink
    border = int(round(rng.uniform(0.03, 0.09) * w)) if rng.random() < 0.85 else 0
    if border:
        frame = np.ones((h, w), bool)
        frame[border:h - border, border:w - border] = False
        img[frame] = (255, 255, 255)
        if rng.random() < 0.5:                             # a thin rule round the pattern
            cv2.rectangle(img, (border, border), (w - border - 1, h - border - 1), ink, max(1, w // 120))
    alpha = np.zeros((h, w), np.uint8)
    r = int(0.05 * w)
    cv2.rectangle(alpha, (r, 0), (w - r - 1, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - r - 1), 255, -1)
    for cx, cy in ((r, r), (w - r - 1, r), (r, h - r - 1), (w - r - 1, h - r - 1)):
        cv2.circle(alpha, (cx, cy), r, 255, -1)
    if border:       # a dark hairline edge, as printed cards show on a light cloth
        cv2.rectangle(img, (0, 0), (w - 1, h - 1), (120, 120, 120), 1)
    return np.dstack([img, alpha])
