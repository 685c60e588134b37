"""Synthetic play-zone pictures with labelled corner indices, for training and tests.

A scene is what the detector sees: one rectified play zone, seen from above,
with the cards of one play laid in a row from left to right, each new card
on top of the last (sometimes under it), overlapping by anything from a
spread row to a tight fan.  Around them: dark matte cloth, uneven light,
glare, shadows, blur, noise, JPEG artefacts, a small residual perspective,
and now and then a hand or fingers reaching in.

Labels are boxes around every corner index that is at least
:data:`VISIBLE_ENOUGH` uncovered, plus one box around a hand;
:attr:`Scene.corners` says for every corner index how much of its rank and
of its suit's pip shows (crops of half-covered indices).

>>> from vision.training.card_art import load_decks
>>> gen = SceneGenerator(load_decks(["anglo"]))            # doctest: +SKIP
>>> scene = gen.render(["S5", "S5", "H5"], np.random.default_rng(1))   # doctest: +SKIP
>>> scene.cards, scene.image.shape                         # doctest: +SKIP
(['S5', 'S5', 'H5'], (224, 320, 3))
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from referee.cards import COPIES, RANK_CHARS as RANKS, SUITS
from vision.reading.classes import CARD_NAMES, HAND_CLASS, JOKERS, class_id
from vision.reading.table import ZONE_PX
from vision.training.card_art import Deck, outline_print, stock_gains, stock_tinted
from vision.training.index_art import designed_indices
from vision.training.joker_art import designed_jokers

# A corner index counts as visible (and is labelled) when this much of it shows.
VISIBLE_ENOUGH = 0.7
# The share of an index's height (from its top, as the card stands) its rank
# takes; the suit's pip is below it (:attr:`Scene.corners`).
RANK_SHARE = 0.5

# Cloth colours (BGR).  Training and evaluation use different ones, so the
# benchmark measures cloth the model never saw.
CLOTH_TRAIN = ((40, 75, 30), (30, 60, 20), (75, 45, 20), (55, 35, 15), (38, 38, 38),
               (22, 22, 22), (60, 60, 35), (55, 70, 50))
CLOTH_HELD_OUT = ((30, 30, 85), (60, 30, 55), (35, 50, 70))

# Kinds of play a scene shows, with how often (single to 10-card bombs).
PLAY_KINDS = (("single", 10), ("pair", 12), ("triple", 7), ("full_house", 10),
              ("straight", 12), ("tube", 8), ("plate", 7), ("bomb", 12),
              ("straight_flush", 5), ("joker_bomb", 3), ("random", 14))


@dataclass
class Scene:
    """One rendered zone: the picture, the truth, and the YOLO labels.

    ``labels`` rows are ``(class, x0, y0, x1, y1)`` in pixels.
    """

    image: np.ndarray
    cards: list[str]
    labels: list[tuple[int, float, float, float, float]] = field(default_factory=list)
    hand: bool = False
    deck: str = ""
    owners: list[int] = field(default_factory=list)   # per label: the card's position, -1 a hand
    angles: list[float] = field(default_factory=list)  # per card: degrees from the zone's axis, clockwise as drawn
    # every corner index however covered: (card position, its 4 corners in the
    # picture (top-left, top-right, bottom-right, bottom-left as the card stands),
    # share of its rank that shows, of its suit, of the whole index)
    corners: list[tuple[int, np.ndarray, float, float, float]] = field(default_factory=list)
    face_down: list[int] = field(default_factory=list)   # positions of cards laid face down (no labels)

    @property
    def readable(self) -> bool:
        """Every card laid face up shows at least one index (else no reader could name it)."""
        return set(range(len(self.cards))) - set(self.face_down) <= set(self.owners)

    def yolo_lines(self, detector_classes: bool = False) -> list[str]:
        """Labels in YOLO text format (class cx cy w h, normalised).

        ``detector_classes``: class 0 for every corner index and 1 for a
        hand (:data:`vision.reading.classes.DETECTOR_NAMES`) instead of the 55 classes.
        """
        h, w = self.image.shape[:2]
        out = []
        for c, x0, y0, x1, y1 in self.labels:
            if detector_classes:
                c = int(c == HAND_CLASS)
            out.append(f"{c} {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} "
                       f"{(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}")
        return out


def random_play(rng: np.random.Generator, kind: str | None = None) -> list[str]:
    """Cards of a typical Guandan play from two decks (at most two of each face).

    >>> len(random_play(np.random.default_rng(0), "straight"))
    5
    """
    if kind is None:
        names, weights = zip(*PLAY_KINDS)
        p = np.array(weights, float) / sum(weights)
        kind = str(rng.choice(names, p=p))
    suits = list(SUITS)
    ranks = list(RANKS)

    def of_rank(rank: str, n: int) -> list[str]:
        pool = [s + rank for s in suits] * 2
        return [str(c) for c in rng.choice(pool, size=n, replace=False)]

    if kind == "single":
        return [str(rng.choice(CARD_NAMES))]
    if kind in ("pair", "triple"):
        return of_rank(str(rng.choice(ranks)), 2 if kind == "pair" else 3)
    if kind == "full_house":
        a, b = rng.choice(ranks, size=2, replace=False)
        return of_rank(str(a), 3) + of_rank(str(b), 2)
    if kind in ("straight", "straight_flush", "tube", "plate"):
        length = {"straight": 5, "straight_flush": 5, "tube": 3, "plate": 2}[kind]
        order = "A" + RANKS   # A can start a straight
        start = int(rng.integers(0, len(order) - length + 1))
        run = order[start:start + length]
        if kind == "straight_flush":
            s = str(rng.choice(suits))
            return [s + r for r in run]
        if kind == "straight":
            return [str(rng.choice(suits)) + r for r in run]
        per = 2 if kind == "tube" else 3
        return [c for r in run for c in of_rank(r, per)]
    if kind == "bomb":
        return of_rank(str(rng.choice(ranks)), int(rng.integers(4, 9)))
    if kind == "joker_bomb":
        return ["BJ", "BJ", "LJ", "LJ"]
    n = int(rng.integers(1, 11))
    pool = list(CARD_NAMES) * 2
    return [str(c) for c in rng.choice(pool, size=n, replace=False)]



def play_for_deck(rng: np.random.Generator, deck: Deck, kind: str | None = None) -> list[str]:
    """:func:`random_play` drawn again until ``deck`` has every card (some
    decks lack jokers); the same draws from ``rng`` as doing it by hand."""
    cards = random_play(rng, kind)
    while not all(c in deck.cards for c in cards):
        cards = random_play(rng, kind)
    return cards

def held_out_scenes(plays: int, seed: int, margin: int = 0,
                    decks: list[Deck] | None = None, first: int = 0) -> Iterator[tuple[int, Deck, Scene]]:
    """The held-out plays the benchmark and the confidence calibration read:
    play ``i`` (``first`` to ``first + plays`` - 1) drawn from a stream of its own
    (``[seed, i]``), the held-out decks in turn (``decks``: these instead)
    on the held-out cloths, no hand, with a ``margin`` of cloth around the zone.

    >>> [(i, deck.name, len(scene.cards) > 0) for i, deck, scene in held_out_scenes(2, 7)]
    [(0, 'paris', True), (1, 'tigullio', True)]
    >>> later = [(i, d.name, s.cards) for i, d, s in held_out_scenes(1, 7, first=1)]
    >>> later == [(i, d.name, s.cards) for i, d, s in held_out_scenes(2, 7)][1:]
    True
    """
    from vision.training.card_art import HELD_OUT_DECKS, load_decks

    gen = SceneGenerator(decks or load_decks(HELD_OUT_DECKS), cloth=CLOTH_HELD_OUT, hand_rate=0.0)
    for i in range(first, first + plays):
        rng = np.random.default_rng([seed, i])
        deck = gen.decks[i % len(gen.decks)]
        yield i, deck, gen.render(play_for_deck(rng, deck), rng, deck=deck, margin=margin)


MULTI_CARD_KINDS = ("pair", "triple", "full_house", "straight", "tube", "plate", "bomb", "random")
# plays whose cards are turned each its own way (turned_scenes), in the order of their streams
TURNED_KINDS = ("fans", "crooked_cards")


def turned_scenes(plays: int, seed: int, kind: str, margin: int = 0,
                  decks: list[Deck] | None = None, first: int = 0,
                  jokers: bool = False) -> Iterator[tuple[int, Deck, Scene]]:
    """Held-out plays of two cards or more whose cards are turned each its
    own way (:data:`TURNED_KINDS`), as the benchmark and the confidence
    calibration read them: ``fans`` laid as a held hand (``spread`` drawn
    from 30 to 90 degrees, so the outer cards turn up to 45), or
    ``crooked_cards``, rows with one or two cards pushed in crooked (15-45
    degrees either way).  Play ``i`` from a stream of its own (``[seed, 11,
    kind's place, i]``; ``i`` from ``first``), the held-out decks (``decks``:
    these instead) in turn on the held-out cloths, no hand; a scene that
    hides a card's every index is drawn again (no reader could name it).
    ``jokers``: plays with jokers in them (:func:`joker_play`: a joker bomb,
    or a row with one to three jokers), from streams of their own (``[seed,
    13, kind's place, i]``), the decks that have jokers.

    >>> [(i, len(s.cards) > 1, max(map(abs, s.angles)) > 10) for i, _, s in turned_scenes(2, 7, "crooked_cards")]
    [(0, True, True), (1, True, True)]
    >>> all({"BJ", "LJ"} & set(s.cards) for _, _, s in turned_scenes(3, 7, "fans", jokers=True))
    True
    """
    from vision.training.card_art import HELD_OUT_DECKS, load_decks

    case = TURNED_KINDS.index(kind)
    decks = decks or load_decks(HELD_OUT_DECKS)
    if jokers:
        decks = [d for d in decks if "BJ" in d.cards]
    gen = SceneGenerator(decks, cloth=CLOTH_HELD_OUT, hand_rate=0.0)
    for i in range(first, first + plays):
        rng = np.random.default_rng([seed, 13 if jokers else 11, case, i])
        deck = gen.decks[i % len(gen.decks)]
        for _ in range(20):
            cards = joker_play(rng) if jokers else play_for_deck(rng, deck, str(rng.choice(MULTI_CARD_KINDS)))
            if len(cards) < 2:
                continue
            if case == 0:
                kw: dict = {"spread": float(rng.uniform(30, 90))}
            else:
                turns = [0.0] * len(cards)
                for k in rng.choice(len(cards), size=min(len(cards), int(rng.integers(1, 3))), replace=False):
                    turns[int(k)] = float(rng.uniform(15, 45) * rng.choice([-1, 1]))
                kw = {"card_turns": turns}
            scene = gen.render(cards, rng, deck=deck, margin=margin, **kw)
            if scene.readable:
                break
        yield i, deck, scene


def joker_play(rng: np.random.Generator) -> list[str]:
    """A play with jokers in it: a joker bomb, or a random row with one to
    three jokers; never more of a face than two decks hold (a joker drawn
    twice already is the other one; both twice: none more).  Before
    2026-12-05 a row could hold three of a joker, which no table sees.

    >>> {"BJ", "LJ"} & set(joker_play(np.random.default_rng(4))) != set()
    True
    >>> plays = [joker_play(np.random.default_rng(k)) for k in range(300)]
    >>> max(p.count(n) for p in plays for n in p)
    2
    """
    if rng.random() < 0.4:
        return ["BJ", "BJ", "LJ", "LJ"]
    cards = random_play(rng, "random")[:int(rng.integers(0, 8))]
    for _ in range(int(rng.integers(1, 4))):
        at, joker = int(rng.integers(0, len(cards) + 1)), str(rng.choice(JOKERS))
        if cards.count(joker) >= COPIES:
            joker = next(iter(set(JOKERS) - {joker}))
        if cards.count(joker) < COPIES:
            cards.insert(at, joker)
    return cards


def reweigh_ink(art: np.ndarray, k: int) -> np.ndarray:
    """A card's artwork (RGBA) printed ``k`` px heavier (k > 0) or lighter (k < 0).

    Decks differ in how heavy their letters and pips are: the training decks'
    dozen weights are not every deck's, so scenes also show them a little
    bolder or thinner.  Ink is whatever is darker than the card stock: a
    minimum filter spreads it, a maximum filter eats into it.  Outside the
    card counts as card stock, so the card's edge does not darken; the card's
    outline (alpha) stays as it was.

    >>> art = np.full((20, 20, 4), 255, np.uint8); art[8:12, 8:12, :3] = 0
    >>> [int((reweigh_ink(art, k)[:, :, 0] < 128).sum()) for k in (-1, 0, 1, 2)]
    [9, 16, 25, 36]
    """
    if k == 0:
        return art
    rgb = art[:, :, :3].copy()
    rgb[art[:, :, 3] < 128] = 255
    kern = np.ones((abs(k) + 1, abs(k) + 1), np.uint8)
    rgb = cv2.erode(rgb, kern) if k > 0 else cv2.dilate(rgb, kern)
    return np.dstack([rgb, art[:, :, 3]])


def make_cloth(rng: np.random.Generator, w: int, h: int,
               palette: tuple[tuple[int, int, int], ...]) -> np.ndarray:
    """Dark matte felt: a base colour, soft blotches, fine grain and a few fibres."""
    base = np.array(palette[int(rng.integers(len(palette)))], np.float32)
    base = np.clip(base + rng.normal(0, 6, 3), 5, 255)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    low = cv2.resize(rng.normal(0, 1, (max(2, h // 24), max(2, w // 24))).astype(np.float32),
                     (w, h), interpolation=cv2.INTER_CUBIC)
    img *= (1 + 0.12 * low)[:, :, None]
    grain = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 0.7)
    img += (grain * rng.uniform(3, 9))[:, :, None]
    for _ in range(int(rng.integers(0, 12))):     # stray fibres
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        a, length = rng.uniform(0, np.pi), rng.uniform(4, 20)
        p2 = (int(x + length * np.cos(a)), int(y + length * np.sin(a)))
        cv2.line(img, (int(x), int(y)), p2, tuple(float(v) for v in base * 1.5), 1, cv2.LINE_AA)
    if rng.random() < 0.35:                        # printed zone border near the edge
        m = int(rng.uniform(2, 12))
        color = tuple(float(v) for v in rng.uniform(120, 220, 3))
        cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), color, int(rng.integers(1, 3)),
                      cv2.LINE_AA)
    return img


@dataclass(frozen=True)
class _Row:
    """How one scene's row of cards is laid (see :meth:`SceneGenerator.render`)."""

    card_w: float                    # px
    spacing: float                   # visible share of each card's width
    angle: float                     # degrees
    fan: float                       # degrees per card
    under: bool                      # each new card slid under the last
    x_start: float                   # px, the row's left end in the zone
    centre: tuple[float, float]      # px, what the row turns about
    zone_h: float                    # px, the zone's height (cards' jitter is a share of it)
    tilts: tuple[float, ...] = ()    # degrees, each card's own turn on top of the row's (empty: none)
    arc: bool = False                # cards laid along an arc, as a held hand fanned out and laid down
    per_row: int = 0                 # cards laid in rows of this many (0: one row)
    row_step: float = 0.0            # px from one row to the next, across the row


def _turned(rng: np.random.Generator, row: _Row, n: int, w: int, h: int, turn: float) -> _Row:
    """``row`` turned ``turn`` degrees about a point that keeps it in the zone:
    the cards shrink if the turned row would not fit (a steep row in a wide,
    low zone is short)."""
    a = np.radians(abs(turn))
    cw, spacing = row.card_w, row.spacing
    ch = 1.45 * cw                                   # the cards' aspect, as in _row

    def extent(cw: float) -> tuple[float, float]:
        length, height = cw * (1 + max(0, n - 1) * spacing), 1.45 * cw
        return (length * np.cos(a) + height * np.sin(a), length * np.sin(a) + height * np.cos(a))

    ex, ey = extent(cw)
    shrink = min(1.0, 0.94 * w / ex, 0.94 * h / ey)
    cw, ch = cw * shrink, ch * shrink
    ex, ey = extent(cw)
    length = cw * (1 + max(0, n - 1) * spacing)
    cx = rng.uniform(ex / 2 + 0.03 * w, max(ex / 2 + 0.03 * w, 0.97 * w - ex / 2))
    cy = rng.uniform(ey / 2 + 0.03 * h, max(ey / 2 + 0.03 * h, 0.97 * h - ey / 2))
    return _Row(cw, spacing, float(turn), row.fan, row.under, cx - length / 2, (cx, cy), row.zone_h)


def _pose(row: _Row, k: int, n: int, dy: float = 0.0, da: float = 0.0) -> tuple[float, float, float]:
    """Card ``k``'s centre (x, y in the zone, px) and angle (degrees) in a
    row of ``n``; ``dy``, ``da``: its jitter (height, px; angle, degrees)."""
    cw, row_c = row.card_w, row.centre
    rad = np.radians(row.angle)
    shift = 0.0
    if row.per_row:     # rows from the top, left-aligned, the block centred across them
        rows = -(-n // row.per_row)
        r, k = divmod(k, row.per_row)
        n = row.per_row
        shift = (r - (rows - 1) / 2) * row.row_step
    lx = row.x_start + cw / 2 + k * cw * row.spacing - row_c[0]
    ly = dy + 0.015 * row.fan * (k - (n - 1) / 2) ** 2 * cw / 10 + shift
    own = row.tilts[k] if row.tilts else 0.0
    if row.arc:     # a held fan laid down: the outer cards lower, as round a point below the row
        ly += lx * np.tan(np.radians(own) / 2)
    cx = row_c[0] + lx * np.cos(rad) - ly * np.sin(rad)
    cy = row_c[1] + lx * np.sin(rad) + ly * np.cos(rad)
    angle = row.angle + row.fan * (k - (n - 1) / 2) + da
    if row.tilts:
        angle += own
    return float(cx), float(cy), float(angle)


def _own_turns(row: _Row, n: int, w: int, h: int, tilts: tuple[float, ...], arc: bool) -> _Row:
    """``row`` with each card turned by its own angle (``tilts``), shrunk and
    moved (no draws from the rng) so that every card still fits in the zone."""
    row = replace(row, tilts=tuple(float(t) for t in tilts), arc=arc)

    def extent(r: _Row) -> tuple[float, float, float, float]:
        pts = []
        for k in range(n):
            cx, cy, a = _pose(r, k, n)
            pts.append(cv2.boxPoints(((cx, cy), (r.card_w, 1.45 * r.card_w), a)))
        p = np.concatenate(pts)
        return float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max())

    x0, y0, x1, y1 = extent(row)
    shrink = min(1.0, 0.94 * w / (x1 - x0), 0.94 * h / (y1 - y0))
    c = row.centre
    row = replace(row, card_w=row.card_w * shrink, x_start=c[0] + (row.x_start - c[0]) * shrink)
    x0, y0, x1, y1 = extent(row)
    dx = max(0.0, 0.03 * w - x0) - max(0.0, x1 - 0.97 * w)
    dy = max(0.0, 0.03 * h - y0) - max(0.0, y1 - 0.97 * h)
    return replace(row, x_start=row.x_start + dx, centre=(c[0] + dx, c[1] + dy))


ROW_GAP = 0.08    # cards laid in rows: the gap between rows, a share of a card's height


def _in_rows(row: _Row, per_row: int, rows: int, h: int) -> _Row:
    """``row`` (laid for ``per_row`` cards) as ``rows`` rows of ``per_row``,
    one below the other (:data:`ROW_GAP` apart), the cards shrunk if the
    rows would not fit the zone's height ``h`` and the block moved to fit (no
    draws from the rng)."""
    ch = 1.45 * row.card_w
    total = ch * (1 + (rows - 1) * (1 + ROW_GAP))
    shrink = min(1.0, 0.94 * h / total)
    cw, total = row.card_w * shrink, total * shrink
    row_w = cw * (1 + max(0, per_row - 1) * row.spacing)
    cy = float(np.clip(row.centre[1], total / 2 + 0.03 * h, max(total / 2 + 0.03 * h, 0.97 * h - total / 2)))
    return replace(row, card_w=cw, centre=(row.x_start + row_w / 2, cy), per_row=per_row,
                   row_step=1.45 * cw * (1 + ROW_GAP))


def _index_labels(index_box: tuple[float, float, float, float], cards: list[str], placed: list[tuple],
                  top: np.ndarray) -> tuple[list, list[int], list[tuple]]:
    """A label for each laid card's corner index (top-left and turned
    bottom-right) that shows at least :data:`VISIBLE_ENOUGH` of itself
    (``top``: which card shows at each pixel), the card each belongs to, and
    every corner however covered (see :attr:`Scene.corners`)."""
    H, W = top.shape
    labels, owners, corners = [], [], []
    x0, y0, x1, y1 = index_box
    ym = y0 + RANK_SHARE * (y1 - y0)

    def on_top(q: np.ndarray, k: int) -> tuple[int, int]:
        """Pixels of the quadrilateral ``q`` where card ``k`` shows, and all its
        pixels in the picture (a mask the size of its bounding box, not of the
        picture: this runs for every corner of every scene)."""
        pts = np.round(q).astype(np.int32)
        bx0, by0 = max(0, int(pts[:, 0].min())), max(0, int(pts[:, 1].min()))
        bx1, by1 = min(W, int(pts[:, 0].max()) + 1), min(H, int(pts[:, 1].max()) + 1)
        if bx1 <= bx0 or by1 <= by0:
            return 0, 0
        inside = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
        cv2.fillConvexPoly(inside, pts - (bx0, by0), 1)
        return int((top[by0:by1, bx0:bx1][inside > 0] == k).sum()), int(inside.sum())

    def shown(q: np.ndarray, k: int) -> float:
        seen, pixels = on_top(q, k)
        return seen / max(1, pixels)

    for k, M, aw, ah in placed:
        # each corner as the card stands: its rank part above its suit part
        for turned in (False, True):
            def art(x: float, y: float) -> tuple[float, float]:
                return ((1 - x) * aw, (1 - y) * ah) if turned else (x * aw, y * ah)
            def quad(ya: float, yb: float) -> np.ndarray:
                pts = np.array([art(x0, ya), art(x1, ya), art(x1, yb), art(x0, yb)])
                return pts @ M[:, :2].T + M[:, 2]
            q = quad(y0, y1)
            seen, pixels = on_top(q, k)
            corners.append((k, q, shown(quad(y0, ym), k), shown(quad(ym, y1), k), seen / max(1, pixels)))
            # (the labels' own rule divides by the polygon's area, which can give more than 1)
            if seen / max(1.0, cv2.contourArea(q.astype(np.float32))) < VISIBLE_ENOUGH:
                continue
            labels.append((class_id(cards[k]), q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()))
            owners.append(k)
    return labels, owners, corners


def _draw_hand(rng: np.random.Generator, img: np.ndarray, top: np.ndarray, margin: int = 0) -> tuple[float, ...]:
    """Fingers or a hand reaching in from an edge of the zone (``margin``
    pixels in from the picture's edge); returns its box."""
    ph, pw = img.shape[:2]
    h, w = ph - 2 * margin, pw - 2 * margin       # the zone's own size: the hand reaches as far into it
    skin = np.array([rng.uniform(60, 190), rng.uniform(80, 200), rng.uniform(120, 235)], np.float32)
    skin[0] = min(skin[0], skin[1]); skin[1] = min(skin[1], skin[2])
    mask = np.zeros((ph, pw), np.uint8)
    edge = int(rng.integers(4))
    size = rng.uniform(0.25, 0.6) * min(w, h)
    # palm centre just outside (or on) the edge, fingers pointing inwards
    if edge == 0:
        c, d = (rng.uniform(0, w), -size * rng.uniform(0.1, 0.6)), (0.0, 1.0)
    elif edge == 1:
        c, d = (rng.uniform(0, w), h + size * rng.uniform(0.1, 0.6)), (0.0, -1.0)
    elif edge == 2:
        c, d = (-size * rng.uniform(0.1, 0.6), rng.uniform(0, h)), (1.0, 0.0)
    else:
        c, d = (w + size * rng.uniform(0.1, 0.6), rng.uniform(0, h)), (-1.0, 0.0)
    c = (c[0] + margin, c[1] + margin)
    ang = np.degrees(np.arctan2(d[1], d[0])) + rng.normal(0, 20)
    cv2.ellipse(mask, (int(c[0]), int(c[1])), (int(size * 0.55), int(size * 0.45)), ang, 0, 360, 255, -1)
    nf = int(rng.integers(1, 5))
    for i in range(nf):
        fa = np.radians(ang + (i - (nf - 1) / 2) * rng.uniform(10, 18))
        flen = size * rng.uniform(0.6, 1.0)
        fc = (c[0] + np.cos(fa) * (size * 0.45 + flen / 2), c[1] + np.sin(fa) * (size * 0.45 + flen / 2))
        cv2.ellipse(mask, (int(fc[0]), int(fc[1])), (int(flen / 2), int(size * rng.uniform(0.08, 0.12))),
                    np.degrees(fa), 0, 360, 255, -1)
    ys, xs = np.nonzero(mask)
    if len(xs) < 30:
        return ()
    soft = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), 1.2)
    # shadow first, then the hand shaded by a little noise
    sh = cv2.GaussianBlur(np.roll(np.roll(soft, 4, 0), 3, 1), (0, 0), 4)
    img *= (1 - 0.45 * sh)[:, :, None]
    shade = 1 + 0.15 * cv2.resize(rng.normal(0, 1, (6, 6)).astype(np.float32), (pw, ph))
    hand = skin[None, None, :] * shade[:, :, None]
    img[:] = img * (1 - soft[:, :, None]) + hand * soft[:, :, None]
    top[mask > 0] = -1
    return (float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1))


def add_scene_options(ap: argparse.ArgumentParser, scenes: str = "scenes") -> None:
    """Add the :class:`SceneGenerator` options that shape the data to a
    command line (``--joker-scenes``, ``--joker-designs``, ``--ink-weight``,
    ``--index-designs``, ``--outline-prints``, ``--lamp-tints``, ``--stock-tints``,
    ``--hanzi-jokers``, ``--sideways-jokers``, ``--stacked-jokers``, ``--emblem-jokers``, ``--face-down``,
    ``--drawn-backs``); ``scenes``
    says in the help which
    scenes they shape.
    :func:`scene_options` reads them back."""
    ap.add_argument("--joker-scenes", type=float, default=0.0,
                    help=f"share of {scenes} holding jokers on purpose (e.g. 0.15)")
    ap.add_argument("--joker-designs", type=float, default=0.0,
                    help=f"share of {scenes} with jokers that draw them in new designs (e.g. 0.6)")
    ap.add_argument("--ink-weight", type=float, default=0.0,
                    help=f"share of {scenes} whose cards are printed heavier or lighter (e.g. 0.5)")
    ap.add_argument("--index-designs", type=float, default=0.0,
                    help=f"share of {scenes} printing the indices in a new type face and pip shape (e.g. 0.5)")
    ap.add_argument("--outline-prints", type=float, default=0.0,
                    help=f"share of {scenes} whose cards are line drawings: pips and pictures outlined (e.g. 0.2)")
    ap.add_argument("--lamp-tints", type=float, default=0.0,
                    help=f"share of {scenes} seen under a warm or cold lamp's tint, 5-30 %% a channel (e.g. 0.3)")
    ap.add_argument("--stock-tints", type=float, default=0.0,
                    help=f"share of {scenes} whose deck is printed on cream, aged, grey or pastel stock (e.g. 0.3)")
    ap.add_argument("--hanzi-jokers", type=float, default=0.0,
                    help="share of the new joker designs whose corner mark is the Chinese 大王 / 小王 (e.g. 0.4)")
    ap.add_argument("--sideways-jokers", type=float, default=0.0,
                    help="share of the other new joker designs whose corner mark is the word JOKER turned "
                         "a quarter turn, down the card's edge (e.g. 0.3)")
    ap.add_argument("--stacked-jokers", type=float, default=0.0,
                    help="share of the remaining new joker designs whose corner mark is the whole word JOKER, "
                         "letter under letter, within the index box (e.g. 0.5)")
    ap.add_argument("--emblem-jokers", type=float, default=0.0,
                    help="share of the new joker designs left after those whose corner mark is a lone emblem "
                         "(a star, a star in a ring, a wheel, a crown), never a word (e.g. 0.8)")
    ap.add_argument("--face-down", type=float, default=0.0,
                    help=f"share of {scenes} with cards where a card lies face down (e.g. 0.3; PySolFC's "
                         f"card backs where $GUANDAN_PYSOL_CARDSETS names them, else the deck's own)")
    ap.add_argument("--drawn-backs", type=float, default=0.0,
                    help="share of the face-down cards whose back is a new drawn pattern: checks, diamonds, "
                         "stripes, dots or a lattice (e.g. 0.5)")


def scene_options(args: argparse.Namespace) -> dict[str, float]:
    """The options :func:`add_scene_options` added, as :class:`SceneGenerator` keywords."""
    return {"joker_scenes": args.joker_scenes, "joker_designs": args.joker_designs,
            "ink_weight": args.ink_weight, "index_designs": args.index_designs,
            "outline_prints": args.outline_prints, "lamp_tints": args.lamp_tints,
            "stock_tints": args.stock_tints, "hanzi_jokers": args.hanzi_jokers,
            "sideways_jokers": args.sideways_jokers, "stacked_jokers": args.stacked_jokers,
            "emblem_jokers": args.emblem_jokers,
            "face_down": args.face_down,
            "drawn_backs": args.drawn_backs}


def lamp_tint(rng: np.random.Generator) -> np.ndarray:
    """Blue, green and red gains of a lamp's tint: warm (tungsten: red up,
    blue down) or cold (the other way), 5-30 % on the channel that moves
    most, along the line from tungsten to daylight
    (:func:`vision.training.real_surfaces.relight`'s ``warm`` is about 25 %).

    >>> g = lamp_tint(np.random.default_rng(1)); g.shape, bool(abs(g[0] - g[2]) > 0.05)
    ((3,), True)
    """
    k = float(rng.uniform(0.05, 0.3))
    if rng.random() < 0.5:     # warm
        return np.float32([1 - k, 1 - k / 5, 1 + 0.6 * k])
    return np.float32([1 + 0.6 * k, 1.0, 1 - 0.8 * k])


def _paste_hand(rng: np.random.Generator, img: np.ndarray, top: np.ndarray, cutout: np.ndarray,
                margin: int = 0) -> tuple[float, ...]:
    """A real hand cut out of a photograph (BGRA, its arm at the right edge)
    reaching in from a random edge of the picture, over half to four fifths
    of the zone's depth from that edge; returns its box."""
    edge = int(rng.integers(4))          # quarter turns: the arm comes in from the right, top, left, bottom
    hand = np.ascontiguousarray(np.rot90(cutout, edge))
    ph, pw = img.shape[:2]
    depth = (pw if edge % 2 == 0 else ph) - 2 * margin
    scale = rng.uniform(0.5, 0.8) * depth / (hand.shape[1] if edge % 2 == 0 else hand.shape[0])
    hand = cv2.resize(hand, (max(1, round(hand.shape[1] * scale)), max(1, round(hand.shape[0] * scale))),
                      interpolation=cv2.INTER_LINEAR)
    hh, hw = min(hand.shape[0], ph), min(hand.shape[1], pw)
    hand = hand[:hh, :hw] if edge in (0, 3) else hand[hand.shape[0] - hh:, hand.shape[1] - hw:]
    # flush with its edge, anywhere along it
    x = pw - hw if edge == 0 else 0 if edge == 2 else int(rng.integers(pw - hw + 1))
    y = 0 if edge == 1 else ph - hh if edge == 3 else int(rng.integers(ph - hh + 1))
    alpha = hand[:, :, 3:].astype(np.float32) / 255
    region = img[y:y + hh, x:x + hw]
    region[:] = region * (1 - alpha) + hand[:, :, :3].astype(np.float32) * alpha
    top[y:y + hh, x:x + hw][alpha[:, :, 0] > 0.5] = -1
    ys, xs = np.nonzero(alpha[:, :, 0] > 0.5)
    if len(xs) == 0:
        return ()
    return (float(x + xs.min()), float(y + ys.min()), float(x + xs.max() + 1), float(y + ys.max() + 1))


class SceneGenerator:
    """Renders play-zone scenes from a set of decks and a cloth palette."""

    def __init__(self, decks: list[Deck], size: tuple[int, int] = ZONE_PX,
                 cloth: tuple[tuple[int, int, int], ...] = CLOTH_TRAIN,
                 hand_rate: float = 0.2, empty_rate: float = 0.06,
                 joker_scenes: float = 0.0, joker_designs: float = 0.0, ink_weight: float = 0.0,
                 index_designs: float = 0.0, outline_prints: float = 0.0,
                 hand_cutouts: list[np.ndarray] | None = None, lamp_tints: float = 0.0,
                 stock_tints: float = 0.0, hanzi_jokers: float = 0.0, sideways_jokers: float = 0.0,
                 face_down: float = 0.0, backs: list[np.ndarray] | None = None, drawn_backs: float = 0.0,
                 stacked_jokers: float = 0.0, emblem_jokers: float = 0.0):
        """``joker_scenes``: the share of random scenes that hold jokers on
        purpose (:func:`joker_play`); ``joker_designs``: the share of scenes
        with jokers whose jokers are drawn in a new design
        (:mod:`vision.training.joker_art`) instead of the deck's; ``ink_weight``: the
        share of scenes whose cards are printed heavier or lighter
        (:func:`reweigh_ink`); ``index_designs``: the share of scenes whose
        corner indices are printed in a new type face and pip shape
        (:mod:`vision.training.index_art`); ``outline_prints``: the share of
        scenes whose cards (not their jokers) are line drawings
        (:func:`outline_print`); ``hand_cutouts``: real hands cut out of
        photographs (BGRA, the arm at the right edge:
        :func:`vision.training.real_photos.green_cloth_cutout`) laid in
        instead of drawn hands (:func:`_paste_hand`: real hand models
        judge them; the detector learnt the drawn ones); ``lamp_tints``: the
        share of scenes with camera effects seen under a warm or cold lamp's
        tint (:func:`lamp_tint`: the reader had learnt 8 % a channel at most,
        and lost star-cornered jokers under a tungsten lamp); ``stock_tints``:
        the share of scenes whose deck is printed on tinted card stock, cream,
        aged, grey or pastel (:func:`~vision.training.card_art.stock_tinted`;
        the training decks are all on white); ``hanzi_jokers``: the share of
        those new joker designs whose corner mark is the jokers' Chinese names,
        大王 and 小王 (:func:`~vision.training.joker_art.designed_jokers`);
        ``sideways_jokers``: the share of the other new designs whose corner
        mark is the word JOKER turned a quarter turn, down the card's edge;
        ``stacked_jokers``: the share of the remaining new designs whose corner
        mark is the whole word JOKER, letter under letter, within the index box;
        ``emblem_jokers``: the share of the new designs left after those whose
        corner mark is a lone emblem, never a word (a joker printing one looks
        like a pip alone, and a classifier taught that a pip alone is no joker
        lost such jokers in fans: models/MODEL_CARD.md, "Shipped in session 60");
        ``face_down``: the share of scenes with cards where one card (now and
        then two) lies face down, showing ``backs`` (card backs, BGRA: one
        drawn a scene; default :func:`~vision.training.card_art.pysol_backs`, or
        where there are none the deck's own back); it has no index label.
        Where its pattern looks like an index, the detector's box there is a
        crop that must read as no card (a checkerboard back was read as LJ);
        ``drawn_backs``: the share of those backs drawn as a new geometric
        pattern instead (:func:`vision.training.back_art.drawn_back`)."""
        for name, share in (("lamp_tints", lamp_tints), ("stock_tints", stock_tints),
                            ("hanzi_jokers", hanzi_jokers), ("sideways_jokers", sideways_jokers),
                            ("stacked_jokers", stacked_jokers), ("emblem_jokers", emblem_jokers),
                            ("face_down", face_down), ("drawn_backs", drawn_backs)):
            if not 0.0 <= share <= 1.0:      # (False for NaN too)
                raise ValueError(f"{name} must be a share from 0 to 1, got {share!r}")
        if not decks:
            raise ValueError("SceneGenerator needs at least one deck")
        self.decks = decks
        self.size = size
        self.cloth = cloth
        self.hand_rate = hand_rate
        self.empty_rate = empty_rate
        self.joker_scenes = joker_scenes
        self.joker_designs = joker_designs
        self.ink_weight = ink_weight
        self.index_designs = index_designs
        self.outline_prints = outline_prints
        self.hand_cutouts = hand_cutouts or []
        self.lamp_tints = lamp_tints
        self.stock_tints = stock_tints
        self.hanzi_jokers = hanzi_jokers
        self.sideways_jokers = sideways_jokers
        self.stacked_jokers = stacked_jokers
        self.emblem_jokers = emblem_jokers
        self.face_down = face_down
        self.drawn_backs = drawn_backs
        if face_down > 0 and backs is None:      # (loaded only when asked: 85 pictures)
            from vision.training.card_art import pysol_backs
            backs = pysol_backs()
        self.backs = list(backs or [])
        self._with_jokers = [d for d in decks if "BJ" in d.cards]

    # -- one scene -----------------------------------------------------------
    def random_scene(self, rng: np.random.Generator) -> Scene:
        """A random play (or an empty zone) in a random style."""
        # (no draw from rng unless asked: scenes from a given seed stay as they were)
        if self.joker_scenes > 0 and self._with_jokers and rng.random() < self.joker_scenes:
            deck = self._with_jokers[int(rng.integers(len(self._with_jokers)))]
            cards = joker_play(rng)
        else:
            deck = self.decks[int(rng.integers(len(self.decks)))]
            cards = []
            if rng.random() >= self.empty_rate:
                cards = play_for_deck(rng, deck)
        hand = rng.random() < self.hand_rate
        down: list[int] = []
        back = None
        if self.face_down > 0 and cards and rng.random() < self.face_down:
            count = 2 if len(cards) >= 4 and rng.random() < 0.3 else 1
            down = sorted(int(k) for k in rng.choice(len(cards), count, replace=False))
            if self.drawn_backs > 0 and rng.random() < self.drawn_backs:
                from vision.training.back_art import drawn_back
                back = drawn_back(rng)
            else:
                back = self.backs[int(rng.integers(len(self.backs)))] if self.backs else deck.back
        return self.render(cards, rng, deck=deck, hand=hand, face_down=down if back is not None else (),
                           back=back)

    def render(self, cards: list[str], rng: np.random.Generator, deck: Deck | None = None,
               hand: bool = False, spacing: float | None = None,
               card_width: float | None = None, clean: bool = False,
               background: np.ndarray | None = None, effects: bool | None = None,
               size: tuple[int, int] | None = None, margin: int = 0,
               turn: float | None = None, spread: float | None = None,
               card_turns: list[float] | tuple[float, ...] | None = None,
               rows: int | None = None, face_down: list[int] | tuple[int, ...] = (),
               back: np.ndarray | None = None) -> Scene:
        """Lay ``cards`` left to right in one zone.

        ``spacing`` is the visible share of each card's width before the
        next one covers it (0.2 = tight fan, 1.1 = spread with gaps);
        ``card_width`` a share of the zone's width.  ``clean`` turns off the
        layout's randomness (tilt, fan, jitter, cards upside down) and, unless
        ``effects`` says otherwise, the camera effects (perspective, light,
        glare, blur, noise, JPEG).  ``background`` replaces the generated cloth
        (a picture of the zone's size and its margin), to lay cards into a larger table.
        ``margin``: this many pixels of cloth around the zone on every side:
        cards are laid in the zone as without it, but what is pushed past the
        zone's edge stays in the picture, as a camera sees it (the labels and
        :attr:`Scene.readable` count it).
        ``turn``: the row's angle to the zone's axis in degrees (-90 to 90),
        instead of the usual few degrees: players push a play in at any
        angle; the row is shortened and centred so that it still fits.
        ``spread``: the cards fanned out as a held hand laid down, each card
        turned its own way, from ``-spread / 2`` degrees (the leftmost, its
        top leaning left) to ``+spread / 2`` (the rightmost), along an arc
        (the outer cards lower).  ``card_turns``: each card's own turn in
        degrees on top of the row's (a card pushed in crooked), one per card.
        Both shrink and move the row (no draws from ``rng``) so that it fits;
        :attr:`Scene.angles` has each card's angle to the zone's axis.
        ``rows``: the cards laid in this many rows, one below the other, each
        as full as the first (a long play in a narrow zone): the first
        rows' cards first, each row left to right; the cards shrink if the
        rows would not fit.  Not with ``turn``, ``spread`` or ``card_turns``.
        ``face_down``: the positions of cards laid face down, showing ``back``
        (BGRA, stretched to the deck's card size; default the deck's back):
        they cover what lies under them but have no index labels.
        """
        if turn is not None and not -90 <= turn <= 90:
            raise ValueError(f"turn must be -90 to 90 degrees, got {turn}")
        if spread is not None and not 0 <= spread <= 180:
            raise ValueError(f"spread must be 0 to 180 degrees, got {spread}")
        if card_turns is not None and len(card_turns) != len(cards):
            raise ValueError(f"card_turns needs one angle per card ({len(cards)}), got {len(card_turns)}")
        if spread is not None and card_turns is not None:
            raise ValueError("give spread or card_turns, not both")
        if rows is not None and not (isinstance(rows, int) and 1 <= rows <= max(1, len(cards))):
            raise ValueError(f"rows must be 1 to the number of cards ({max(1, len(cards))}), got {rows}")
        if rows is not None and (turn is not None or spread is not None or card_turns is not None):
            raise ValueError("rows is not given with turn, spread or card_turns")
        if any(not 0 <= k < len(cards) for k in face_down):
            raise ValueError(f"face_down positions must be 0 to {len(cards) - 1}, got {list(face_down)}")
        effects = (not clean) if effects is None else effects
        # The steps below draw from rng in this order (the deck, the cloth,
        # the row, the faces, each card, the hand, the camera): the same
        # seed must give the same scene, byte for byte.
        deck = deck or self.decks[int(rng.integers(len(self.decks)))]
        w, h = size or self.size
        m = int(margin)
        W, H = w + 2 * m, h + 2 * m               # the picture: the zone and its margin
        img = self._cloth(rng, w, h, m, background)
        top = np.full((H, W), -1, np.int32)        # which card shows at each pixel
        if rows is not None and rows > 1:
            # (_row draws as many numbers from rng whatever the number of cards)
            per_row = -(-len(cards) // rows)
            row = _in_rows(self._row(rng, deck, per_row, w, h, spacing, card_width, clean),
                           per_row, -(-len(cards) // per_row), h)
        else:
            row = self._row(rng, deck, len(cards), w, h, spacing, card_width, clean)
        if turn is not None:
            row = _turned(rng, row, len(cards), w, h, turn)
        if spread is not None and cards:
            n = len(cards)
            row = _own_turns(row, n, w, h, tuple(spread * (k / max(1, n - 1) - 0.5) if n > 1 else 0.0
                                                 for k in range(n)), arc=True)
        elif card_turns is not None and cards:
            row = _own_turns(row, len(cards), w, h, tuple(card_turns), arc=False)
        faces = self._faces(rng, deck, cards)
        arts = [faces[c] for c in cards]
        if face_down:
            back = deck.back if back is None else back
            if back is None:
                raise ValueError(f"deck {deck.name!r} has no back to lay face down")
            for k in face_down:
                arts[k] = cv2.resize(back, (arts[k].shape[1], arts[k].shape[0]), interpolation=cv2.INTER_AREA)
        placed, angles = self._lay(rng, img, top, arts, row, clean, m)
        hand_box: tuple[float, ...] = ()
        if hand and self.hand_cutouts:
            cutout = self.hand_cutouts[int(rng.integers(len(self.hand_cutouts)))]
            hand_box = _paste_hand(rng, img, top, cutout, m)
        elif hand:
            hand_box = _draw_hand(rng, img, top, m)
        labels, owners, corners = _index_labels(deck.index_box, cards,
                                                [p for p in placed if p[0] not in face_down], top)
        if hand_box:
            labels.append((HAND_CLASS, *hand_box))
            owners.append(-1)
        out, labels, quads = self._finish(rng, img, labels, effects, [c[1] for c in corners])
        keep = [i for i, l in enumerate(labels) if l[3] - l[1] >= 2 and l[4] - l[2] >= 2]
        return Scene(image=out, cards=list(cards), labels=[labels[i] for i in keep],
                     hand=bool(hand_box), deck=deck.name, owners=[owners[i] for i in keep],
                     angles=angles, corners=[(c[0], q, *c[2:]) for c, q in zip(corners, quads)],
                     face_down=sorted(face_down))

    def _cloth(self, rng: np.random.Generator, w: int, h: int, m: int,
               background: np.ndarray | None) -> np.ndarray:
        """The picture to lay cards on (float32): ``background``, or new cloth for the zone and its margin."""
        W, H = w + 2 * m, h + 2 * m
        if background is not None:
            if background.shape[:2] != (H, W):
                raise ValueError(f"background must be {W}x{H}, got {background.shape[1]}x{background.shape[0]}")
            return background.astype(np.float32).copy()
        # cloth drawn for the zone and mirrored out: the same rng draws with or without a margin
        img = make_cloth(rng, w, h, self.cloth)
        if m:
            img = cv2.copyMakeBorder(img, m, m, m, m, cv2.BORDER_REFLECT_101)
        return img

    @staticmethod
    def _row(rng: np.random.Generator, deck: Deck, n: int, w: int, h: int, spacing: float | None,
             card_width: float | None, clean: bool) -> _Row:
        """Where the row of ``n`` cards lies in a ``w`` x ``h`` zone, and how it is laid."""
        cw = (card_width or rng.uniform(0.13, 0.22)) * w
        # players leave every index in view: the tightest fan still shows it
        tight = max(0.17, deck.index_box[2] + 0.03)
        if spacing is None:
            r = rng.random()
            spacing = rng.uniform(tight, tight + 0.13) if r < 0.35 else (
                rng.uniform(tight + 0.13, 0.65) if r < 0.8 else rng.uniform(0.65, 1.15))
        # fit the row in the zone: first tighten the spacing, then shrink the cards
        if n > 1 and cw * (1 + (n - 1) * spacing) > 0.94 * w:
            spacing = max(tight, (0.94 * w / cw - 1) / (n - 1))
            cw = min(cw, 0.94 * w / (1 + (n - 1) * spacing))
        row_angle = 0.0 if clean else rng.normal(0, 5)
        fan = 0.0 if clean or rng.random() < 0.6 else rng.uniform(-3, 3)   # degrees per card
        under = (not clean) and rng.random() < 0.1     # each new card slid under the last
        row_w = cw * (1 + max(0, n - 1) * spacing)
        x_start = rng.uniform(0.03 * w, max(0.03 * w, 0.97 * w - row_w))
        aspect = 1.45
        y_mid = rng.uniform(0.5 * aspect * cw + 4, max(0.5 * aspect * cw + 4, h - 0.5 * aspect * cw - 4))
        return _Row(cw, spacing, row_angle, fan, under, x_start, (x_start + row_w / 2, y_mid), h)

    def _faces(self, rng: np.random.Generator, deck: Deck, cards: list[str]) -> dict[str, np.ndarray]:
        """The artwork of each face: the deck's, or now and then new jokers,
        new corner indices, heavier or lighter ink or a line drawing (see ``__init__``)."""
        faces = deck.cards
        # (no draw from rng unless asked: scenes from a given seed stay as they were)
        if self.joker_designs > 0 and {"BJ", "LJ"} & set(cards) and rng.random() < self.joker_designs:
            hanzi = self.hanzi_jokers > 0 and rng.random() < self.hanzi_jokers
            sideways = not hanzi and self.sideways_jokers > 0 and rng.random() < self.sideways_jokers
            stacked = not (hanzi or sideways) and self.stacked_jokers > 0 and rng.random() < self.stacked_jokers
            emblem = not (hanzi or sideways or stacked) and self.emblem_jokers > 0 and rng.random() < self.emblem_jokers
            faces = {**deck.cards, **designed_jokers(deck, rng, hanzi=hanzi, sideways=sideways, stacked=stacked,
                                                     emblem=emblem)}
        if self.index_designs > 0 and set(cards) - {"BJ", "LJ"} and rng.random() < self.index_designs:
            faces = {**faces, **designed_indices(deck, cards, rng)}
        if self.ink_weight > 0 and cards and rng.random() < self.ink_weight:
            weight = int(rng.choice([-2, -1, 1, 2]))
            faces = {**faces, **{c: reweigh_ink(faces[c], weight) for c in set(cards)}}
        plain = set(cards) - {"BJ", "LJ"}
        if self.outline_prints > 0 and plain and rng.random() < self.outline_prints:
            # a line-drawn deck's jokers are its own pictures: only rank-and-suit cards are outlined;
            # lines keep their colours (trained all black too, a jack over a black-outlined heart
            # looked like a vertical JOKER's "JO", and little jokers were read as jacks of hearts)
            width = float(rng.uniform(1.2, 3.0))
            faces = {**faces, **{c: outline_print(faces[c], width, black=False) for c in plain}}
        if self.stock_tints > 0 and cards and rng.random() < self.stock_tints:
            gains = stock_gains(rng)           # one stock for the deck: its jokers too
            faces = {**faces, **{c: stock_tinted(faces[c], gains) for c in set(cards)}}
        return faces

    @staticmethod
    def _lay(rng: np.random.Generator, img: np.ndarray, top: np.ndarray, arts: list[np.ndarray],
             row: _Row, clean: bool, m: int) -> tuple[list[tuple], list[float]]:
        """Draw the cards (``arts``, one picture a position) into ``img`` (in place) along ``row``, ``m`` px in
        from the picture's edge, marking in ``top`` which card shows where;
        returns each card's (position, transform, art width, art height),
        and each card's angle (degrees)."""
        H, W = top.shape
        n = len(arts)
        placed = []
        angles = [0.0] * n
        order = list(range(n))[::-1] if row.under else list(range(n))
        for k in order:
            art = arts[k]
            ah, aw = art.shape[:2]
            s = row.card_w / aw
            dy = 0 if clean else rng.normal(0, 0.02 * row.zone_h)
            cx, cy, angle = _pose(row, k, n, dy, 0 if clean else rng.normal(0, 1.5))
            angles[k] = angle
            flip = (not clean) and rng.random() < 0.25          # laid upside down
            M = cv2.getRotationMatrix2D((aw / 2, ah / 2), -angle + (180 if flip else 0), s)
            M[0, 2] += cx - aw / 2 + m
            M[1, 2] += cy - ah / 2 + m
            warped = cv2.warpAffine(art, M, (W, H), flags=cv2.INTER_AREA if s < 0.5 else cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
            a = warped[:, :, 3].astype(np.float32) / 255
            if not clean:   # contact shadow on what lies below
                sh = cv2.GaussianBlur(np.roll(np.roll(a, 2, 0), 2, 1), (0, 0), 2.0)
                img *= (1 - rng.uniform(0.25, 0.5) * sh)[:, :, None]
            img[:] = img * (1 - a[:, :, None]) + warped[:, :, :3].astype(np.float32) * a[:, :, None]
            top[a > 0.5] = k
            placed.append((k, M, aw, ah))
        return placed, angles

    def _finish(self, rng: np.random.Generator, img: np.ndarray, labels: list,
                effects: bool, points: list[np.ndarray] = ()) -> tuple[np.ndarray, list, list[np.ndarray]]:
        """The picture as the camera gives it (with ``effects``: perspective,
        light, blur, noise, JPEG) in 8 bits, the labels moved with it and
        clipped to it, and ``points`` (arrays of x, y) moved with it."""
        H, W = img.shape[:2]
        if effects:
            img, labels, points = self._camera(rng, img, labels, points)
        out = np.clip(img, 0, 255).astype(np.uint8)
        if effects:
            q = int(rng.uniform(55, 95))
            out = cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])[1], cv2.IMREAD_COLOR)
        labels = [(c, max(0.0, a), max(0.0, b), min(float(W), cc), min(float(H), d))
                  for c, a, b, cc, d in labels]
        return out, labels, list(points)

    # -- camera effects ------------------------------------------------------
    def _camera(self, rng, img, labels, points=()):
        h, w = img.shape[:2]
        # residual perspective after rectification: corners move a few per cent
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = src + rng.uniform(-0.035, 0.035, (4, 2)).astype(np.float32) * np.float32([w, h])
        H = cv2.getPerspectiveTransform(src, dst)
        img = cv2.warpPerspective(img, H, (w, h), borderMode=cv2.BORDER_REFLECT)
        moved = []
        for c, x0, y0, x1, y1 in labels:
            p = cv2.perspectiveTransform(np.float32([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]]), H)[0]
            moved.append((c, float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max())))
        points = [cv2.perspectiveTransform(np.float32(p)[None], H)[0].astype(np.float64) for p in points]
        # uneven light: a smooth gain field and a linear fall-off
        low = cv2.resize(rng.normal(0, 1, (3, 4)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        gx, gy = np.meshgrid(np.linspace(-1, 1, w), np.linspace(-1, 1, h))
        gain = rng.uniform(0.6, 1.25) * (1 + 0.12 * low + rng.uniform(-0.2, 0.2) * gx + rng.uniform(-0.2, 0.2) * gy)
        img = img * gain[:, :, None].astype(np.float32) * rng.uniform(0.92, 1.08, 3).astype(np.float32)
        # (no draw from rng unless asked: scenes from a given seed stay as they were)
        if self.lamp_tints > 0 and rng.random() < self.lamp_tints:
            img = img * lamp_tint(rng)
        if rng.random() < 0.3:   # glare from a lamp
            cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(15, 70)
            g = np.exp(-((gx * w / 2 + w / 2 - cx) ** 2 + (gy * h / 2 + h / 2 - cy) ** 2) / (2 * r * r))
            img = img + (rng.uniform(30, 110) * g)[:, :, None].astype(np.float32)
        r = rng.random()
        if r < 0.45:
            img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.1))
        elif r < 0.55:   # motion blur
            k = int(rng.integers(3, 6))
            kern = np.zeros((k, k), np.float32)
            kern[k // 2, :] = 1 / k
            rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
            kern = cv2.warpAffine(kern, rot, (k, k))
            img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
        img = img + rng.normal(0, rng.uniform(1, 6), img.shape).astype(np.float32)
        return img, moved, points
