"""Corner indices in type faces no deck has: the training data's answer to unseen fonts.

Fourteen training decks print their rank letters in about a dozen faces; a
classifier trained on them alone learns those faces, and on a deck it never
saw it mistakes a thin 5 for a 9 or a K for an A.  Here the 52 faces of a
training deck get new corner indices: the deck's own index painted over
with its card stock, then a rank in another type face (the machine's
TrueType fonts through Pillow, or OpenCV's stroke fonts), narrower or wider,
lighter or bolder, over a suit pip in a new shape (a font's suit sign, or
one drawn here).  The card's body
(its pips, its court picture) stays the deck's.

One call draws one design for a whole deck, as a printer would: every card
of a scene shares the face and the pip shapes.

>>> from vision.training.card_art import load_deck
>>> faces = designed_indices(load_deck("anglo"), ["S5", "HK"], np.random.default_rng(2))   # doctest: +SKIP
>>> sorted(faces), faces["S5"].shape[2]                                                   # doctest: +SKIP
(['HK', 'S5'], 4)
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.training.card_art import Deck
from vision.training.fonts import text_mask, type_faces
from vision.training.joker_art import paper_colour

_HERSHEY = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
            cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_COMPLEX_SMALL)
RANK_TEXT = {"A": "A", "T": "10", "J": "J", "Q": "Q", "K": "K", **{str(n): str(n) for n in range(2, 10)}}
SUIT_CHAR = {"S": "\u2660", "C": "\u2663", "H": "\u2665", "D": "\u2666"}
SUPER = 4           # marks are drawn this many times larger, then shrunk (smooth edges)


@lru_cache(maxsize=1)
def suit_faces() -> tuple[Path, ...]:
    """The :func:`type_faces` that draw all four suit signs (not their missing-glyph box)."""
    from PIL import ImageFont

    found = []
    for face in type_faces():
        try:
            font = ImageFont.truetype(str(face), 40)
        except OSError:
            continue
        missing = np.asarray(font.getmask("\ue000"))     # a private-use code: the missing-glyph box
        masks = [np.asarray(font.getmask(ch)) for ch in SUIT_CHAR.values()]
        if all(m.size and (m.shape != missing.shape or not np.array_equal(m, missing)) for m in masks):
            found.append(face)
    return tuple(found)


def _suit_mask(suit: str, w: int, h: int, style: dict) -> np.ndarray:
    """A suit pip filling a ``w`` x ``h`` box (float mask), in this design's shape."""
    s = SUPER
    m = np.zeros((h * s, w * s), np.uint8)
    W, H = w * s, h * s
    cx = (W - 1) / 2      # OpenCV puts pixel centres on whole numbers

    def fill(pts):
        cv2.fillPoly(m, [np.round(np.asarray(pts) * 8).astype(np.int32)], 255, cv2.LINE_AA, shift=3)

    def disc(x, y, r):
        cv2.circle(m, (round(x * 8), round(y * 8)), round(r * 8), 255, -1, cv2.LINE_AA, shift=3)

    if suit == "D":
        bulge = style["bulge"]     # 0: straight sides, >0: sides bowed in
        t = np.linspace(0, 1, 12)
        # one quarter, top point to right point; the other three mirror it
        bow = bulge * 0.12 * np.sin(np.pi * t)
        q = np.column_stack([cx + (W / 2) * t - bow * W, (H / 2) * t + bow * H])
        top_right = q
        bottom_right = np.column_stack([q[::-1, 0], H - q[::-1, 1]])
        bottom_left = np.column_stack([2 * cx - q[:, 0], H - q[:, 1]])
        top_left = np.column_stack([2 * cx - q[::-1, 0], q[::-1, 1]])
        fill(np.vstack([top_right, bottom_right, bottom_left, top_left]))
    elif suit in ("H", "S"):
        # a heart: two lobes and a point; a spade is one upside down on a stem
        lobe = style["lobe"] * W / 4
        body_h = H * (1.0 if suit == "H" else 0.78)
        ly = lobe if suit == "H" else body_h - lobe
        pts_y = body_h if suit == "H" else 0
        disc(cx - W / 4, ly, lobe * 1.05)
        disc(cx + W / 4, ly, lobe * 1.05)
        a = ly + (lobe * 0.35 if suit == "H" else -lobe * 0.35)
        fill([(cx - W / 2 + 0.5, a), (cx + W / 2 - 0.5, a), (cx, pts_y)])
        fill([(cx - W / 4, ly), (cx + W / 4, ly), (cx, pts_y)])
        if suit == "S":
            fill([(cx, body_h * 0.8), (cx - W * style["stem"], H - 1), (cx + W * style["stem"], H - 1)])
    else:   # clubs: three balls and a stem
        r = style["ball"] * W / 4.6          # small enough that notches part the balls
        disc(cx, r, r)
        disc(cx - W / 2 + r, H * 0.62 - r * 0.3, r)
        disc(cx + W / 2 - r, H * 0.62 - r * 0.3, r)
        disc(cx, H * 0.52, r * 0.45)
        fill([(cx, H * 0.45), (cx - W * style["stem"], H - 1), (cx + W * style["stem"], H - 1)])
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255


class _Design:
    """One printer's corner index: type face, proportions, weight and pip shapes."""

    def __init__(self, rng: np.random.Generator):
        faces = type_faces()
        self.face: Path | int = (faces[int(rng.integers(len(faces)))] if faces and rng.random() < 0.75
                                 else int(rng.choice(_HERSHEY)))
        self.weight = int(rng.choice([0, 0, 1, 2]))
        self.italic = bool(rng.random() < 0.15)
        self.rank_w = float(rng.uniform(0.6, 0.95))     # share of the box's width
        self.rank_h = float(rng.uniform(0.36, 0.52))    # share of the box's height
        self.ten_squeeze = float(rng.uniform(0.75, 1.15))  # "10" runs wider than one letter
        self.pip_w = float(rng.uniform(0.45, 0.75))     # share of the box's width
        self.pip_aspect = float(rng.uniform(0.95, 1.2))  # height / width, as printed
        # a suit sign from a font's glyphs, or one of the shapes drawn here
        suits = suit_faces()
        self.suit_face = suits[int(rng.integers(len(suits)))] if suits and rng.random() < 0.6 else None
        self.gap = float(rng.uniform(0.02, 0.08))
        self.top = float(rng.uniform(0.0, 0.06))
        self.style = {"bulge": float(rng.uniform(0, 0.5)), "lobe": float(rng.uniform(0.9, 1.15)),
                      "stem": float(rng.uniform(0.08, 0.18)), "ball": float(rng.uniform(0.9, 1.1))}
        self.red = (int(rng.integers(0, 70)), int(rng.integers(0, 60)), int(rng.integers(160, 245)))
        v = int(rng.integers(0, 60))
        self.black = (v, v, v)

    def patch(self, card: str, w: int, h: int) -> np.ndarray:
        """The index of ``card`` as a float ink mask of ``w`` x ``h`` pixels."""
        out = np.zeros((h, w), np.float32)
        text = RANK_TEXT[card[1]]
        mask = text_mask(text, self.face, self.weight, self.italic)
        rh = max(4, int(round(self.rank_h * h)))
        rw = self.rank_w * w * (self.ten_squeeze if len(text) > 1 else 1.0)
        # keep the face's own proportions within what a narrow or wide print does
        natural = mask.shape[1] / mask.shape[0] * rh
        rw = int(round(np.clip(rw, 0.7 * natural, 1.3 * natural)))
        rw = max(2, min(rw, w - 2))
        glyph = cv2.resize(mask, (rw, rh), interpolation=cv2.INTER_AREA)
        y0 = int(round(self.top * h))
        x0 = (w - rw) // 2
        out[y0:y0 + rh, x0:x0 + rw] = glyph
        py = y0 + rh + int(round(self.gap * h))
        sign = None if self.suit_face is None else text_mask(SUIT_CHAR[card[0]], self.suit_face, 0, False)
        aspect = self.pip_aspect * (1.0 if sign is None else sign.shape[0] / sign.shape[1])
        pw = self.pip_w * w
        # a pip keeps its printed proportions: narrower if the box has too little height left
        ph = max(4, min(int(round(aspect * pw)), h - py))
        pw = max(4, min(int(round(ph / aspect)), w))
        py = min(py, h - ph)
        pip = (_suit_mask(card[0], pw, ph, self.style) if sign is None
               else cv2.resize(sign, (pw, ph), interpolation=cv2.INTER_AREA))
        px = (w - pw) // 2
        out[py:py + ph, px:px + pw] = np.maximum(out[py:py + ph, px:px + pw], pip)
        return out

    def ink(self, card: str) -> tuple[int, int, int]:
        return self.red if card[0] in "HD" else self.black


def designed_indices(deck: Deck, cards, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``{card: rgba}`` for the rank-and-suit ``cards`` (jokers are skipped):
    ``deck``'s faces with both corner indices replaced by one new design.

    The new index fills the deck's :attr:`~vision.training.card_art.Deck.index_box`
    (top-left, and turned half a turn at the bottom right), so labels made
    from the index box fit it.
    """
    design = _Design(rng)
    paper = paper_colour(deck)
    out = {}
    for card in sorted(set(cards)):
        if card not in deck.cards or card in ("BJ", "LJ"):
            continue
        face = deck.cards[card].copy()
        h, w = face.shape[:2]
        x0, y0, x1, y1 = deck.index_box
        bx0, by0, bx1, by1 = int(x0 * w), int(y0 * h), int(np.ceil(x1 * w)), int(np.ceil(y1 * h))
        # paint the deck's own index over (a little past the box: measured boxes are tight)
        pad = max(1, int(0.012 * w))
        cx0, cy0, cx1, cy1 = max(2, bx0 - pad), max(2, by0 - pad), bx1 + pad, by1 + pad
        img = np.ascontiguousarray(face[:, :, :3]).astype(np.float32)
        img[cy0:cy1, cx0:cx1] = paper
        img[h - cy1:h - cy0, w - cx1:w - cx0] = paper
        mask = design.patch(card, bx1 - bx0, by1 - by0)[:, :, None]
        ink = np.float32(design.ink(card))
        tl = img[by0:by1, bx0:bx1]
        img[by0:by1, bx0:bx1] = tl * (1 - mask) + ink * mask
        turned = mask[::-1, ::-1]
        br = img[h - by1:h - by0, w - bx1:w - bx0]
        img[h - by1:h - by0, w - bx1:w - bx0] = br * (1 - turned) + ink * turned
        out[card] = np.dstack([np.clip(img, 0, 255).astype(np.uint8), face[:, :, 3]])
    return out
