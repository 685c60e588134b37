"""Something laid in a zone that the reader names nothing: the zone's empty look, remembered.

A card the camera cannot read (laid face down, an art deck's index, a card
turned far on wood) gives an empty read, and an empty zone is never asked
about: the play would vanish, and the next player's play would be judged
out of turn (越序出牌, an infraction) against a player who did nothing
wrong.  So the table watcher remembers each play zone's look while it lies
empty (:func:`look_of`), and a zone read empty whose picture has changed
from that look in a patch lying inside the zone, at least a fifth of a
card large (:func:`laid_patch`), is marked
:attr:`~vision.reading.detector.ZoneRead.unread`; its tracker reports an
unread play (no cards, confidence 0) once that has held, so the referee is
asked what was laid, and every violation that may rest on it waits
(:mod:`vision.reading.tracker`).

What is not something laid: a change of light (the look is the logarithm
of grey, its median change taken off, and the texture of that logarithm: a
dimmer, warmer or colder light changes neither), and a shadow cast from
outside the zone (an arm, a lamp's edge: its patch reaches the zone's
border).  Measured in
models/MODEL_CARD.md, "A card the camera cannot read".

>>> import cv2
>>> empty = np.full((448, 640, 3), 90, np.uint8)
>>> laid = empty.copy()
>>> _ = cv2.rectangle(laid, (200, 120), (334, 308), (235, 235, 235), -1)
>>> look = EmptyLook()
>>> look("S-play", 0.0, empty, 0, ZoneRead()).unread
False
>>> look("S-play", 0.1, laid, 0, ZoneRead()).unread
True
>>> look("S-play", 0.2, (empty * 0.6).astype(np.uint8), 0, ZoneRead()).unread    # a dimmer lamp
False
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.reading.detector import CardRead, ZoneRead
from vision.reading.looks import SCALE, changed, look_of, retextured, patches
from vision.reading.pairing import IndexDetection

CARD_WH = (134.0, 188.0)   # a card's width and height in a zone picture (px, at 2.13 px/mm)
CARD_AREA = int(CARD_WH[0] * CARD_WH[1])   # a card's area in a zone picture (px)
MIN_CARD = 0.2       # the smallest patch that counts, as a share of a card's area
QUIET = 0.01         # a look changed in less than this share of the zone is the empty look, followed
ABSORB_S = 5.0       # seconds after which a change that marks nothing becomes the empty look


def laid_patch(mask: np.ndarray) -> float:
    """The largest changed patch that lies inside the zone (not touching its
    border: a shadow cast from outside, an arm, reaches it), as a share of
    a card's area.

    >>> m = np.zeros((112, 160), bool); m[40:87, 60:94] = True; m[:, 150:155] = True
    >>> round(laid_patch(m), 2)
    1.01
    """
    _, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    inside = stats[1:, cv2.CC_STAT_AREA][~_at_border(stats[1:], mask.shape)]
    return float(max(inside, default=0)) * SCALE * SCALE / CARD_AREA


def _at_border(stats: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """For each patch (a row of ``cv2.connectedComponentsWithStats``' stats),
    whether it touches the border of a picture of ``shape``."""
    h, w = shape[:2]
    x, y, bw, bh = (stats[:, k] for k in range(4))
    return (x <= 0) | (y <= 0) | (x + bw >= w) | (y + bh >= h)


CARD_HALF_DIAGONAL = 0.5 * float(np.hypot(*CARD_WH))   # px of a zone picture: a card's middle to its corners
# degrees: a card's top-left index to its bottom-right one, from its long edge's
# square, as the card stands (real faces laid as plays: 47-54, the middle 51)
INDEX_DIAGONAL = 51.0
CARD_SLACK = 15.0         # px each way round a card's rectangle: its own crook, its middle's guess
BORDER_TEXTURE = 0.75     # retextured share of a card's area that makes a patch reaching the border count


def unexplained(mask: np.ndarray, cards: list[CardRead], margin: int = 0, picture_wh: tuple[int, int] | None = None,
                texture: np.ndarray | None = None, outside: np.ndarray | None = None) -> float:
    """The largest changed patch (``mask``: :func:`changed`, at the look's
    size) that none of ``cards`` covers, as a share of a card's area.
    A card read covers its rectangle turned as its indices lie, about each
    place its middle may lie (:func:`_covers`), and its indices' boxes.  What the
    cards cover is taken off first; then a patch counts where it lies
    inside the zone (not touching its border: a shadow cast from outside,
    an arm, reaches it; as :func:`laid_patch`), or where at least
    :data:`BORDER_TEXTURE` of a card's area of it is retextured
    (``texture``: :func:`retextured`; a shadow retextures only its edges;
    a row of cards may reach the zone's edge) and none of it comes in from
    outside the zone picture (``outside``, the look's size:
    :func:`from_outside`; an arm or a shadow crosses the cloth round the
    zone, a card laid in the zone does not; None: every patch reaching the
    border may).  ``margin`` and ``picture_wh`` (the zone picture's width
    and height with its margin; default the look's size times
    :data:`SCALE` plus the margin): where the cards' places lie in the look.

    >>> m = np.zeros((112, 160), bool); m[40:87, 20:54] = True; m[40:87, 100:134] = True   # two cards laid
    >>> one = CardRead("S5", 0.97, (405, 163, 425, 203), (IndexDetection("S5", 0.97, (405, 163, 425, 203)),),
    ...                (468.0, 254.0))
    >>> other = CardRead("S5", 0.97, (85, 163, 105, 203), (IndexDetection("S5", 0.97, (85, 163, 105, 203)),),
    ...                  (148.0, 254.0))                       # the same, 320 px to the left
    >>> round(unexplained(m, [one]), 2), unexplained(m, [one, other])
    (1.01, 0.0)
    >>> m[40:87, :20] = True                      # the other reaching the border: a shadow's way
    >>> unexplained(m, [one]), round(unexplained(m, [one], texture=m), 2)      # unless it is print
    (0.0, 1.61)
    >>> unexplained(m, [one], texture=m, outside=m)        # unless it came in from outside
    0.0
    """
    h, w = mask.shape
    pw, ph = picture_wh if picture_wh is not None else (w * SCALE + 2 * margin, h * SCALE + 2 * margin)
    sx, sy = w / max(1, pw - 2 * margin), h / max(1, ph - 2 * margin)
    rest = mask.astype(np.uint8)
    to_look = np.array([sx, sy])
    for c in cards:
        for p in _covers(c):     # (one at a time: filled together, where two overlap is left out)
            cv2.fillConvexPoly(rest, np.round((p - margin) * to_look).astype(np.int32), 0)
        for d in c.indices:
            cv2.rectangle(rest, (int((d.box[0] - margin) * sx), int((d.box[1] - margin) * sy)),
                          (int(np.ceil((d.box[2] - margin) * sx)), int(np.ceil((d.box[3] - margin) * sy))), 0, -1)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(rest, connectivity=8)
    printed = np.bincount(labels[texture & (rest > 0)], minlength=n) if texture is not None else np.zeros(n, int)
    if outside is not None:
        printed[np.unique(labels[outside])] = 0
    counts = ~_at_border(stats, mask.shape) | (printed * SCALE * SCALE >= BORDER_TEXTURE * CARD_AREA)
    return float(max(stats[1:, cv2.CC_STAT_AREA][counts[1:]], default=0)) * SCALE * SCALE / CARD_AREA


def _covers(card: CardRead) -> list[np.ndarray]:
    """Where ``card``'s body may lie, as polygons (picture px): its
    rectangle (:data:`CARD_WH`, :data:`CARD_SLACK` larger each way)
    turned as its indices lie, about each place its middle may lie.  Read
    from two indices (of more, the two furthest apart), their line is the
    card's diagonal from its top-left index to its bottom-right one
    (:data:`INDEX_DIAGONAL`) or, on a deck printing four corners, from its
    top-right to its bottom-left: both turns.  Read from one, the line from it to the card's ``centre`` (as
    guessed from the row) says the turn; and the index may be the card's
    bottom-right one, its middle then up and left of it: that centre
    mirrored through the index too.  Without a centre, or read from no
    index: the disc round its box's middle, twice the card's half diagonal.
    (Until 2026-12-06, session 49, every card covered the disc round its
    middle that it covers however it is turned, reaching over a fan's
    first card and past the last: models/MODEL_CARD.md, "A missed card at
    a fan's end".)

    >>> one = CardRead("S5", 0.9, (90, 90, 110, 130), (IndexDetection("S5", 0.9, (90, 90, 110, 130)),), (164.0, 189.0))
    >>> [p.round().astype(int).tolist() for p in _covers(one)]      # upright: the index up and left of the middle
    [[[82, 80], [246, 80], [246, 298], [82, 298]], [[-46, -78], [118, -78], [118, 140], [-46, 140]]]
    >>> turned = replace(one, centre=(189.0, 164.0))       # the index's line to it at 31 degrees, not 51
    >>> [round(float(v)) for v in _covers(turned)[0][1] - _covers(turned)[0][0]]   # so the top edge rises 20
    [154, -55]
    >>> other = IndexDetection("S5", 0.9, (218, 238, 238, 278))     # its bottom-right index: the middle between
    >>> len(_covers(replace(one, indices=one.indices + (other,)))), len(_covers(replace(one, centre=None)))
    (2, 1)
    >>> third = IndexDetection("S5", 0.9, (218, 90, 238, 130))      # and its top-right: the same two turns
    >>> four = replace(one, indices=(one.indices[0], third, other))
    >>> all(np.allclose(p, q) for p, q in zip(_covers(four), _covers(replace(one, indices=one.indices + (other,)))))
    True
    """
    if card.centre is None or not card.indices:
        x, y = 0.5 * (card.box[0] + card.box[2]), 0.5 * (card.box[1] + card.box[3])
        r = round(2 * CARD_HALF_DIAGONAL)
        return [cv2.ellipse2Poly((round(x), round(y)), (r, r), 0, 0, 360, 10).astype(np.float64)]
    centre = np.array(card.centre, float)
    at = [np.array(d.center, float) for d in card.indices]
    first = at[0]
    diagonal = np.radians(INDEX_DIAGONAL)
    if len(at) >= 2:
        # (of three or four corners, the two furthest apart lie on a diagonal)
        v = max((b - a for k, a in enumerate(at) for b in at[k + 1:]), key=lambda u: float(np.hypot(*u)))
        if v[1] < 0:       # (from the upper index to the lower one)
            v = -v
        along = float(np.arctan2(v[1], v[0]))
        places = [(centre, along - diagonal), (centre, along - (np.pi - diagonal))]
    else:
        v = centre - first
        along = float(np.arctan2(v[1], v[0])) - diagonal
        places = [(centre, along), (2 * first - centre, along)]
    half = np.array(CARD_WH) / 2 + CARD_SLACK
    corners = np.array([(-1, -1), (1, -1), (1, 1), (-1, 1)], float) * half
    out = []
    for middle, turn in places:
        c, s = np.cos(turn), np.sin(turn)
        out.append(middle + corners @ np.array([[c, s], [-s, c]]))
    return out


def from_outside(mask: np.ndarray, inner: tuple[int, int], margin: int, picture_wh: tuple[int, int]) -> np.ndarray:
    """Of the whole zone picture's changes (``mask``: :func:`changed` of
    two looks of the picture with its ``margin``, ``look_of(picture, 0)``),
    the patches that reach its outer edge (an arm, a shadow cast from
    outside), where they lie in the look of the zone alone (``inner``:
    its height and width).  With no margin, every patch reaching the zone's
    border.

    >>> m = np.zeros((128, 176), bool); m[0:60, 80:100] = True; m[50:80, 30:50] = True    # an arm; a card
    >>> out = from_outside(m, (112, 160), 32, (704, 512))
    >>> out.shape, bool(out[20, 80]), bool(out[50, 30])
    ((112, 160), True, False)
    """
    h, w = mask.shape
    _, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    edge = _at_border(stats, mask.shape)
    edge[0] = False          # (the background)
    reach = edge[labels]
    mx, my = margin * w / picture_wh[0], margin * h / picture_wh[1]
    cut = reach[int(round(my)):h - int(round(my)) or h, int(round(mx)):w - int(round(mx)) or w]
    return cv2.resize(cut.astype(np.uint8), (inner[1], inner[0]), interpolation=cv2.INTER_NEAREST) > 0


class EmptyLook:
    """Each zone's look while it lay empty, and whether something the reader
    names nothing has been laid there since (:attr:`ZoneRead.unread`).

    The look is taken from the zone's first empty read, and again from the
    first empty read after cards were read there (the trick's cards swept
    away).  Between, an empty read whose look has hardly changed
    (:data:`QUIET`) becomes the look (the light drifts); one changed without
    marking anything (a shadow, a lamp turned on) becomes it once that has
    lasted :data:`ABSORB_S` seconds of event time.  A read with a hand, cards
    or printed cards leaves the look as it is.  A read with cards (and no
    printed card) is marked where the zone shows more laid since it lay
    empty than those cards cover (:func:`unexplained`,
    :attr:`ZoneRead.unexplained`): a card read from no index beside them."""

    def __init__(self, min_card: float = MIN_CARD):
        if not 0.0 < min_card <= 10.0:       # (False for NaN too)
            raise ValueError(f"min_card must be a share of a card's area, over 0 and at most 10, got {min_card!r}")
        self.min_card = min_card
        self._empty: dict[str, np.ndarray] = {}
        # the empty zone's picture with the cloth round it, and its look once wanted (only
        # a read with cards compares with it: not made at every quiet frame of an empty zone)
        self._empty_picture: dict[str, np.ndarray] = {}
        self._whole: dict[str, np.ndarray] = {}
        self._marks: dict[str, tuple[tuple[CardRead, ...], float]] = {}   # the last cards compared, and what was left
        self._had_cards: set[str] = set()
        self._changed_since: dict[str, float] = {}

    def __call__(self, zone: str, t: float, picture: np.ndarray, margin: int, read: ZoneRead,
                 again: bool = False) -> ZoneRead:
        """``read`` of ``zone``'s ``picture`` at time ``t`` (with ``margin``
        pixels round the zone), marked unread where something new lies
        there that it does not name, or unexplained where more lies there
        than its cards cover.  ``again``: the read is the zone's last one
        again (the table watcher reuses it while the picture has not
        changed); its cards keep the marking they got then, not compared
        afresh (about 1 ms a zone)."""
        if read.hand:
            return read
        if read.cards or read.printed:
            self._had_cards.add(zone)
            self._changed_since.pop(zone, None)
            # (the look stays the one from before the cards were laid)
            empty = self._empty.get(zone)
            if not read.cards or read.printed or empty is None:
                return read
            cards = tuple(read.cards)
            mark = self._marks.get(zone)
            if again and mark is not None and mark[0] == cards:
                more = mark[1]
            else:
                now, whole = look_of(picture, margin), look_of(picture, 0)
                if zone not in self._whole:
                    self._whole[zone] = look_of(self._empty_picture[zone], 0)
                if now.shape != empty.shape or whole.shape != self._whole[zone].shape:
                    return read
                wh = (picture.shape[1], picture.shape[0])
                outside = from_outside(changed(self._whole[zone], whole), now.shape[:2], margin, wh)
                more = unexplained(changed(empty, now), read.cards, margin, wh, retextured(empty, now), outside)
                self._marks[zone] = (cards, more)
            return replace(read, unexplained=round(more, 2)) if more >= self.min_card else read
        now = look_of(picture, margin)
        empty = self._empty.get(zone)
        if empty is None or empty.shape != now.shape or zone in self._had_cards:
            self._take(zone, now, picture)
            return read
        mask = changed(empty, now)
        if laid_patch(mask) >= self.min_card:
            return replace(read, unread=True)
        since = self._changed_since.setdefault(zone, t)
        if float(mask.mean()) < QUIET or t - since >= ABSORB_S:
            self._take(zone, now, picture)
        return read

    def picture(self, zone: str) -> np.ndarray | None:
        """``zone``'s picture as it last lay empty (None: not seen empty yet)."""
        return self._empty_picture.get(zone)

    def _take(self, zone: str, look: np.ndarray, picture: np.ndarray) -> None:
        self._empty[zone] = look
        self._empty_picture[zone] = picture.copy()     # (a caller may reuse its buffer)
        self._whole.pop(zone, None)
        self._had_cards.discard(zone)
        self._changed_since.pop(zone, None)
