"""Jokers of designs no deck has: the training data's answer to unseen jokers.

The 52 faces look alike from deck to deck (a rank letter over a suit pip),
but a joker's corner is whatever its designer drew: a vertical JOKER, a
star, a star in a ring, a wheel, a crown.  What Guandan decks agree on is
the colour: the big joker (``BJ``) is coloured, mostly red, the little one
(``LJ``) black or grey.  A classifier trained on a dozen decks' jokers learns
those dozen pictures; trained also on jokers drawn here, from random shapes
in the big and little colours, it learns the colour rule and "not a rank
letter over a pip".

Each call draws one design (one shape, one centre picture) in both colours,
on the deck's own card stock, so a joker bomb shows two pairs of one deck.

>>> from vision.training.card_art import load_deck
>>> jokers = designed_jokers(load_deck("anglo"), np.random.default_rng(2))    # doctest: +SKIP
>>> sorted(jokers), jokers["BJ"].shape[2]                                      # doctest: +SKIP
(['BJ', 'LJ'], 4)
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.training.card_art import Deck
from vision.training.fonts import cjk_faces, text_mask, type_faces

MAX_REACH = 0.4     # share of the card's width a corner mark may reach across
# the Chinese names, printed one character under the other on many Chinese decks' jokers
HANZI = {"BJ": "大王", "LJ": "小王"}
SHAPES = ("text", "text", "star", "ring_star", "wheel", "crown")
# the shapes that are no word: a lone emblem in the corner, as a pip alone looks
EMBLEMS = tuple(s for s in SHAPES if s != "text")
_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
          cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_COMPLEX_SMALL)


def big_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    """A big joker's ink (BGR): red, from crimson to orange-red."""
    r = int(rng.integers(170, 256))
    return (int(rng.integers(0, 90)), int(rng.integers(0, 70)), r)


def little_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    """A little joker's ink (BGR): black, grey or a very dark slate."""
    v = int(rng.integers(0, 100))
    tint = int(rng.integers(0, 30))
    return (min(255, v + tint), v + tint // 2, v)


def _star(c: tuple[float, float], r: float, points: int, inner: float, turn: float) -> np.ndarray:
    a = np.arange(2 * points) * np.pi / points + turn - np.pi / 2
    rad = np.where(np.arange(2 * points) % 2 == 0, r, r * inner)
    return np.stack([c[0] + rad * np.cos(a), c[1] + rad * np.sin(a)], 1)


def _poly(img, pts, colour, filled: bool, thick: int) -> None:
    p = np.round(pts * 8).astype(np.int32)    # 3 fractional bits: smooth edges
    if filled:
        cv2.fillPoly(img, [p], colour, cv2.LINE_AA, shift=3)
    else:
        cv2.polylines(img, [p], True, colour, thick, cv2.LINE_AA, shift=3)


class _Design:
    """One random shape, drawn into a box in any colour (same shape both times)."""

    def __init__(self, rng: np.random.Generator, corner_cap: float = np.inf, hanzi: bool = False,
                 sideways: bool = False, stacked: bool = False, emblem: bool = False):
        """``corner_cap``: the largest ``corner_scale`` a large mark may take;
        ``hanzi``: the mark is the joker's Chinese name (:data:`HANZI`);
        ``sideways``: the mark is the word JOKER turned a quarter turn, running
        down the card's edge (ignored with ``hanzi``); ``stacked``: the mark is
        the whole word JOKER, letter under letter, small enough to stand in
        the index box (ignored with either); ``emblem``: the mark is one of
        :data:`EMBLEMS`, never a word (ignored with any of those)."""
        self.shape = "hanzi" if hanzi else "sideways" if sideways else "stacked" if stacked \
            else str(rng.choice(EMBLEMS if emblem else SHAPES))
        self.font = int(rng.choice(_FONTS))
        self.italic = bool(rng.random() < 0.2)
        self.weight = float(rng.uniform(0.06, 0.16))   # stroke width / box width
        self.points = int(rng.integers(4, 9))
        self.inner = float(rng.uniform(0.3, 0.6))
        self.turn = float(rng.uniform(-0.3, 0.3))
        self.filled = bool(rng.random() < 0.7)
        self.segments = int(rng.integers(3, 9)) * 2
        self.hub = float(rng.uniform(0.0, 0.45))
        # never a lone J: that is a jack whose pip is hidden
        self.letters = str(rng.choice(["JOKER", "JOKER", "JOKER", "JO", "JKR"]))
        self.scale = float(rng.uniform(0.75, 1.0))
        # some decks' joker corner is a picture wider than their rank index,
        # running from the corner over the index box and past it
        self.large = self.shape != "text" and bool(rng.random() < 0.3)
        self.corner_scale = (min(float(rng.uniform(1.2, 2.0)), max(self.scale, corner_cap))
                             if self.large else self.scale)
        self.second = bool(rng.random() < 0.35)          # a second ink for the big joker's details
        # half the words in one of the machine's type faces (a bold serif JOKER, as many decks
        # print the little joker's), the rest in OpenCV's stroke fonts
        self.type_face, self.type_weight = None, 0
        if self.shape in ("text", "sideways"):
            self._choose_type_face(rng, type_faces(), 0.5, [0, 1, 2, 4])
        if self.shape == "stacked":
            # (most real decks print it in a type face, bold serif or sans; the rest as stroke fonts)
            self._choose_type_face(rng, type_faces(), 0.8, [0, 1, 2, 3])
            self.fill = float(rng.uniform(0.8, 1.0))         # of the index box's height the word takes
            self.gap = float(rng.uniform(0.05, 0.35))        # between letters, of a letter's height
            self.narrow = float(rng.uniform(0.7, 1.1))       # letters' width as drawn: condensed to wide
        if self.shape == "hanzi":
            faces = cjk_faces()
            if not faces:
                raise RuntimeError("no font here draws Chinese (install fonts-wqy-microhei)")
            self._choose_type_face(rng, faces, 1.0, [0, 1, 2, 3])

    def _choose_type_face(self, rng: np.random.Generator, faces: tuple, share: float, weights: list[int]) -> None:
        """In ``share`` of designs (every one at 1.0, drawing nothing for it),
        the word is set in one of ``faces`` at one of ``weights`` (stroke
        widths in px at 120 px tall); else it stays in OpenCV's stroke fonts."""
        if faces and (share >= 1.0 or rng.random() < share):
            self.type_face = faces[int(rng.integers(len(faces)))]
            self.type_weight = int(rng.choice(weights))

    def _word_face(self) -> tuple[Path | int, int]:
        """The face and stroke weight a word is printed in (:func:`vision.training.fonts.text_mask`):
        the chosen type face, else the stroke font, as thin as its own words (weight 0-1)."""
        if self.type_face is not None:
            return self.type_face, self.type_weight
        return self.font, int(self.weight > 0.11)

    def draw(self, img: np.ndarray, box, ink, paper, accent, bottom: float, corner: bool = False,
             joker: str = "BJ") -> None:
        """Draw into ``box`` (x0, y0, x1, y1 in px); text may run down to ``bottom``.
        ``corner``: this is the corner mark (drawn large from the box's left if the design is large);
        ``joker``: whose mark it is (a Chinese name differs between the two)."""
        x0, y0, x1, y1 = box
        large = corner and self.large
        bw = (x1 - x0) * (self.corner_scale if large else self.scale)
        cx = x0 + bw / 2 if large else (x0 + x1) / 2
        thick = max(1, int(round(self.weight * bw)))
        if self.shape == "hanzi":
            self._type_text(img, cx, y0, bw, bottom, ink, HANZI[joker], "王")
            return
        if self.shape == "text" and self.type_face is not None:
            self._type_text(img, cx, y0, bw, bottom, ink, self.letters, "O")
            return
        if self.shape == "sideways":
            self._sideways_text(img, cx, y0, bw, bottom, ink)
            return
        if self.shape == "stacked":
            self._stacked_text(img, box if corner else (cx - bw / 2, y0, cx + bw / 2, bottom), ink)
            return
        if self.shape == "text":
            letters = self.letters
            font = self.font | (cv2.FONT_ITALIC if self.italic else 0)
            (tw, th), _ = cv2.getTextSize("O", font, 1.0, 1)
            s = bw / max(tw, 1)
            t = max(1, int(round(s * self.weight * 6)))
            y = y0 + th * s
            for ch in letters:
                (cw, chh), _ = cv2.getTextSize(ch, font, s, t)
                if y > bottom:
                    break
                cv2.putText(img, ch, (int(round(cx - cw / 2)), int(round(y))), font, s, ink, t, cv2.LINE_AA)
                y += chh * 1.25 + 2
            return
        r = bw / 2
        c = (cx, y0 + r + 0.05 * bw)
        if self.shape == "star":
            _poly(img, _star(c, r, self.points, self.inner, self.turn), ink, self.filled, thick)
        elif self.shape == "ring_star":
            cv2.circle(img, (int(c[0] * 8), int(c[1] * 8)), int(r * 8), ink,
                       -1 if self.filled else thick, cv2.LINE_AA, shift=3)
            star = _star(c, r * 0.72, self.points, self.inner, self.turn)
            _poly(img, star, paper if self.filled else ink, True, thick)
        elif self.shape == "wheel":
            cv2.circle(img, (int(c[0] * 8), int(c[1] * 8)), int(r * 8), ink, max(1, thick // 2), cv2.LINE_AA, shift=3)
            step = 2 * np.pi / self.segments
            for k in range(0, self.segments, 2):
                a = np.linspace(k * step + self.turn, (k + 1) * step + self.turn, 8)
                pts = np.vstack([[c], np.stack([c[0] + r * np.cos(a), c[1] + r * np.sin(a)], 1)])
                _poly(img, pts, ink, True, thick)
            if self.hub > 0.1:
                cv2.circle(img, (int(c[0] * 8), int(c[1] * 8)), int(r * self.hub * 8),
                           accent if self.second else paper, -1, cv2.LINE_AA, shift=3)
        else:   # crown: a zigzag band on a base
            n = max(3, self.points - 2)
            xs = np.linspace(c[0] - r, c[0] + r, 2 * n + 1)
            top = np.where(np.arange(2 * n + 1) % 2 == 0, c[1] - r * 0.8, c[1] - r * 0.8 * self.inner)
            base = c[1] + r * 0.5
            pts = np.vstack([np.stack([xs, top], 1), [[c[0] + r, base], [c[0] - r, base]]])
            _poly(img, pts, ink, self.filled, thick)
            if self.second:
                cv2.circle(img, (int(c[0] * 8), int((c[1] - 0.1 * r) * 8)), int(r * 0.18 * 8), accent, -1,
                           cv2.LINE_AA, shift=3)

    def _sideways_text(self, img: np.ndarray, cx: float, y0: float, bw: float, bottom: float, ink) -> None:
        """The word JOKER written along a line and turned a quarter turn (mostly
        clockwise: it reads downwards), its letters' height ``bw``, centred on
        ``cx`` from ``y0`` and shrunk to end above ``bottom``: many real decks
        print their jokers' corner so (models/MODEL_CARD.md, "Cards laid face down")."""
        word = text_mask("JOKER", *self._word_face(), self.italic and self.type_face is None)
        word = np.rot90(word, -1 if self.turn >= -0.15 else 1)      # a sixth of the words read upwards
        s = min(bw / word.shape[1], max(1.0, bottom - y0) / word.shape[0])
        h, w = max(1, int(round(word.shape[0] * s))), max(1, int(round(word.shape[1] * s)))
        _inked(img, cv2.resize(np.ascontiguousarray(word), (w, h), interpolation=cv2.INTER_AREA), cx, y0,
               np.asarray(ink, np.float32))

    def _stacked_text(self, img: np.ndarray, box, ink) -> None:
        """The word JOKER, letter under letter, the whole word within ``box``
        (x0, y0, x1, y1 in px): most Western decks print their jokers' corner
        so, a narrow column of five small letters that the detector boxes as
        one tall index.  Drawn until 2026-12-07 only as letters the index's
        width running on past it, the classifier took real ones for no index
        (models/MODEL_CARD.md, "Jokers printed JOKER letter under letter")."""
        x0, y0, x1, y1 = box
        masks = [text_mask(ch, *self._word_face(), self.italic and self.type_face is None) for ch in "JOKER"]
        tall = max(m.shape[0] for m in masks)
        letter = (y1 - y0) * self.fill / (len(masks) + (len(masks) - 1) * self.gap)     # a letter's height, px
        s = letter / tall
        # (no letter wider than the box: a wide face is shrunk, its column kept as tall)
        s_w = min(s * self.narrow, 0.95 * (x1 - x0) / max(m.shape[1] for m in masks))
        colour = np.asarray(ink, np.float32)
        cx, y = (x0 + x1) / 2, y0 + (y1 - y0) * (1 - self.fill) / 2
        for m in masks:
            h, w = max(1, int(round(m.shape[0] * s))), max(1, int(round(m.shape[1] * s_w)))
            _inked(img, cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA), cx, y + (letter - h), colour)
            y += letter * (1 + self.gap)

    def _type_text(self, img: np.ndarray, cx: float, y0: float, bw: float, bottom: float, ink,
                   word: str, widest: str) -> None:
        """``word``'s characters one under the other in :attr:`type_face`,
        ``widest`` as wide as ``bw``, centred on ``cx`` from ``y0`` down to ``bottom``."""
        masks = [text_mask(ch, self.type_face, self.type_weight, False) for ch in word]
        s = bw / max(1, text_mask(widest, self.type_face, self.type_weight, False).shape[1])
        colour = np.asarray(ink, np.float32)
        y = y0
        for m in masks:
            h, w = max(1, int(round(m.shape[0] * s))), max(1, int(round(m.shape[1] * s)))
            if y + h > bottom:
                break
            _inked(img, cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA), cx, y, colour)
            y += h * 1.2 + 1


def _inked(img: np.ndarray, mask: np.ndarray, cx: float, y: float, colour: np.ndarray) -> None:
    """``mask`` (1 = ink) printed in ``colour`` into ``img`` (in place), centred
    on ``cx`` with its top at ``y``; what falls past the picture's edge is cut off."""
    h, w = mask.shape
    x = int(round(cx - w / 2))
    ya, xa = int(round(y)), max(0, x)
    part = img[ya:ya + h, xa:x + w]
    a = mask[:part.shape[0], xa - x:xa - x + part.shape[1], None]
    part[:] = (part * (1 - a) + colour * a).astype(img.dtype)


def _plain_face(deck: Deck) -> np.ndarray:
    return deck.cards.get("S2", next(iter(deck.cards.values())))


def paper_colour(deck: Deck) -> tuple[int, int, int]:
    """The deck's card stock colour (BGR): the commonest light colour near the middle of a plain face."""
    card = _plain_face(deck)
    h, w = card.shape[:2]
    mid = card[int(0.42 * h):int(0.58 * h), int(0.1 * w):int(0.3 * w), :3].reshape(-1, 3)
    return tuple(int(v) for v in np.median(mid, axis=0))


def _blank(deck: Deck) -> tuple[np.ndarray, tuple[int, int, int]]:
    """The deck's card stock: a face with everything inside its outline painted over."""
    card = _plain_face(deck)
    out = card.copy()
    inside = cv2.erode((card[:, :, 3] > 250).astype(np.uint8), np.ones((7, 7), np.uint8))
    paper = paper_colour(deck)
    out[inside > 0, :3] = paper
    return out, paper


def designed_jokers(deck: Deck, rng: np.random.Generator, hanzi: bool = False,
                    sideways: bool = False, stacked: bool = False, emblem: bool = False) -> dict[str, np.ndarray]:
    """``{"BJ": rgba, "LJ": rgba}``: one new design on ``deck``'s card stock.
    ``hanzi``: the corner mark is each joker's Chinese name, 大王 and 小王
    (:data:`HANZI`), one character under the other, as many Chinese decks
    print it (with or without a JOKER elsewhere: the picture is any design).
    ``sideways``: the corner mark is the word JOKER turned a quarter turn,
    running down the card's edge, as many Western decks print it.
    ``stacked``: the corner mark is the whole word JOKER, letter under
    letter, within the index box, as most Western decks print it.
    ``emblem``: the corner mark is a lone emblem (:data:`EMBLEMS`: a star,
    a star in a ring, a wheel, a crown), never a word, as some decks print
    it: alone in a corner it looks like a pip alone, which is no joker.

    The corner mark fills the deck's :attr:`~vision.training.card_art.Deck.index_box`
    (top-left, and turned half a turn at the bottom right), so labels made
    from the index box fit it; a bigger version of the mark is the picture.
    A third of the shapes are drawn larger, from the corner over the index
    box and past it (1.2-2 times its width), as some decks draw their jokers'
    corners; the label stays the index box, the part a player leaves in view.
    """
    blank, paper = _blank(deck)
    h, w = blank.shape[:2]
    x0, y0, x1, y1 = deck.index_box
    box = (x0 * w, y0 * h, x1 * w, y1 * h)
    # a large mark stops short of the card's middle (decks with wide index boxes)
    design = _Design(rng, corner_cap=(MAX_REACH - x0) / (x1 - x0), hanzi=hanzi, sideways=sideways, stacked=stacked,
                     emblem=emblem)
    reach = max(x1, x0 + (x1 - x0) * design.corner_scale)   # the mark's right edge
    picture = _Design(rng) if rng.random() < 0.5 else design
    accent = (int(rng.integers(100, 220)), int(rng.integers(60, 200)), int(rng.integers(0, 80)))
    ink = {"BJ": big_colour(rng), "LJ": little_colour(rng)}
    out = {}
    for name in ("BJ", "LJ"):
        img = np.ascontiguousarray(blank[:, :, :3])
        # the centre picture: the little joker's is often grey, the big one's coloured
        # (kept clear of the corner columns, which the turned corner replaces)
        pic_w = rng.uniform(0.35, 1.0) * (1 - 2 * (reach + 0.05)) * w
        pb = (w / 2 - pic_w / 2, h * 0.5 - pic_w * 0.6, w / 2 + pic_w / 2, h * 0.5 + pic_w * 0.6)
        picture.draw(img, pb, ink[name], paper, accent if name == "BJ" else ink[name], bottom=pb[3], joker=name)
        design.draw(img, box, ink[name], paper, accent if name == "BJ" else ink[name], bottom=0.55 * h,
                    corner=True, joker=name)
        # the bottom-right corner is the top-left one turned half a turn
        turned = img[::-1, ::-1]
        corner = np.zeros((h, w), bool)
        corner[int(0.45 * h):, int((1 - reach - 0.03) * w):] = True
        img = np.where(corner[:, :, None], turned, img)
        out[name] = np.dstack([img, blank[:, :, 3]])
    return out


def with_drawn_jokers(deck: Deck) -> Deck:
    """``deck`` with a pair of jokers in a new design on its own stock
    (:func:`designed_jokers`, one design a deck, the same each time) where it
    has none: PySolFC's card sets draw none, and scenes of them would hold no
    jokers (taught so, the classifier read fewer real jokers). A deck with
    jokers is returned as it is.

    >>> from vision.training.card_art import load_deck
    >>> deck = with_drawn_jokers(load_deck("kde-standard"))            # doctest: +SKIP
    >>> sorted(set(deck.cards) & {"BJ", "LJ"})                          # doctest: +SKIP
    ['BJ', 'LJ']
    """
    if "BJ" in deck.cards and "LJ" in deck.cards:
        return deck
    jokers = designed_jokers(deck, np.random.default_rng([sum(deck.name.encode()), 54]))
    return replace(deck, cards={**deck.cards, **jokers})


def hanzi_joker_deck(deck: Deck, seed: int) -> Deck:
    """``deck`` with its jokers printed as many Chinese decks print them:
    each joker's corner mark its Chinese name, 大王 or 小王, one character
    under the other (:func:`designed_jokers` with ``hanzi``; one design a
    deck, from ``seed``).  The faces of rank and suit stay the deck's.

    >>> from vision.training.card_art import load_deck
    >>> d = hanzi_joker_deck(load_deck("paris"), 1)                              # doctest: +SKIP
    >>> d.name, d.cards["S5"] is load_deck("paris").cards["S5"]                    # doctest: +SKIP
    ('paris-hanzi-jokers', True)
    """
    rng = np.random.default_rng([seed, sum(map(ord, deck.name))])
    return Deck(name=f"{deck.name}-hanzi-jokers", cards={**deck.cards, **designed_jokers(deck, rng, hanzi=True)},
                index_box=deck.index_box, back=deck.back)
