"""Photographs of a deck's faces, as ``guandan-ref enroll-deck`` takes them, generated.

For the enrollment's tests and benchmark (:mod:`vision.reading.enroll`):
the deck's own artwork (:mod:`vision.training.card_art`) laid on the scene
generator's cloth and finished by its camera (perspective, uneven light,
glare, blur, noise, JPEG: :class:`vision.training.synth.SceneGenerator`).

- :func:`single_photos`: one card a picture, a little turned, sometimes
  upside down (54 files named after their card);
- :func:`grid_photos`: all cards laid in rows and columns, a few pictures,
  in the enrollment's grid order (:data:`vision.reading.enroll.GRID_ORDER`:
  left to right, top row first, photo after photo).

These are generated pictures: the figures they give are the artwork's,
not a camera's.

>>> photos = single_photos(load_deck("paris"), np.random.default_rng(1))   # doctest: +SKIP
>>> sorted(photos)[:2], photos["S5"].shape                                  # doctest: +SKIP
(['BJ', 'C2'], (640, 480, 3))
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.reading.enroll import GRID_ORDER
from vision.training.card_art import Deck
from vision.training.synth import CLOTH_TRAIN, SceneGenerator, make_cloth


def _lay_card(img: np.ndarray, art: np.ndarray, centre: tuple[float, float], width: float,
              angle: float, rng: np.random.Generator) -> None:
    """Draw one card (RGBA art) into ``img`` (float32, in place), with a soft contact shadow."""
    H, W = img.shape[:2]
    ah, aw = art.shape[:2]
    s = width / aw
    M = cv2.getRotationMatrix2D((aw / 2, ah / 2), -angle, s)
    M[0, 2] += centre[0] - aw / 2
    M[1, 2] += centre[1] - ah / 2
    warped = cv2.warpAffine(art, M, (W, H), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = warped[:, :, 3].astype(np.float32) / 255
    sh = cv2.GaussianBlur(np.roll(np.roll(a, 3, 0), 3, 1), (0, 0), 2.5)
    img *= (1 - rng.uniform(0.2, 0.45) * sh)[:, :, None]
    img[:] = img * (1 - a[:, :, None]) + warped[:, :, :3].astype(np.float32) * a[:, :, None]


def _camera(gen: SceneGenerator, img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The generator's camera: perspective, light, glare, blur, noise, JPEG (8-bit BGR)."""
    out, _, _ = gen._finish(rng, img, [], True)
    return out


def single_photos(deck: Deck, rng: np.random.Generator, size: tuple[int, int] = (480, 640),
                  cards: list[str] | None = None) -> dict[str, np.ndarray]:
    """One picture a card (portrait ``size``, the card 40-55 % of its width,
    turned up to 10°, a quarter upside down), by card code."""
    gen = SceneGenerator([deck], cloth=CLOTH_TRAIN)
    w, h = size
    out = {}
    for code in cards or list(deck.cards):
        img = make_cloth(rng, w, h, CLOTH_TRAIN)
        angle = rng.uniform(-10, 10) + (180 if rng.random() < 0.25 else 0)
        centre = (w / 2 + rng.uniform(-0.05, 0.05) * w, h / 2 + rng.uniform(-0.05, 0.05) * h)
        _lay_card(img, deck.cards[code], centre, rng.uniform(0.4, 0.55) * w, angle, rng)
        out[code] = _camera(gen, img, rng)
    return out


def grid_photos(deck: Deck, rng: np.random.Generator, rows: int, cols: int,
                card_px: int = 150) -> list[np.ndarray]:
    """All the deck's cards in :data:`GRID_ORDER`, ``rows`` x ``cols`` a picture
    (the last one partly filled), cards ``card_px`` wide with gaps between
    them, each a little turned and shifted."""
    gen = SceneGenerator([deck], cloth=CLOTH_TRAIN)
    aspect = max(a.shape[0] / a.shape[1] for a in deck.cards.values())
    cell_w, cell_h = card_px * 1.3, card_px * aspect * 1.15
    W, H = int(cell_w * cols + card_px * 0.6), int(cell_h * rows + card_px * 0.6)
    per = rows * cols
    photos = []
    for start in range(0, len(GRID_ORDER), per):
        img = make_cloth(rng, W, H, CLOTH_TRAIN)
        for k, code in enumerate(GRID_ORDER[start:start + per]):
            r, c = divmod(k, cols)
            centre = (card_px * 0.3 + (c + 0.5) * cell_w + rng.uniform(-0.04, 0.04) * card_px,
                      card_px * 0.3 + (r + 0.5) * cell_h + rng.uniform(-0.04, 0.04) * card_px)
            angle = rng.uniform(-4, 4) + (180 if rng.random() < 0.25 else 0)
            _lay_card(img, deck.cards[code], centre, card_px, angle, rng)
        photos.append(_camera(gen, img, rng))
    return photos


def write_single_photos(deck: Deck, folder: Path, rng: np.random.Generator,
                        cards: list[str] | None = None) -> list[Path]:
    """:func:`single_photos` as JPEG files named after their card (``S5.jpg``)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for code, img in single_photos(deck, rng, cards=cards).items():
        p = folder / f"{code}.jpg"
        cv2.imwrite(str(p), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        paths.append(p)
    return paths


def write_grid_photos(deck: Deck, folder: Path, rng: np.random.Generator, rows: int, cols: int) -> list[Path]:
    """:func:`grid_photos` as JPEG files ``grid-1.jpg``, ``grid-2.jpg``, ... in order."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k, img in enumerate(grid_photos(deck, rng, rows, cols), 1):
        p = folder / f"grid-{k}.jpg"
        cv2.imwrite(str(p), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        paths.append(p)
    return paths
