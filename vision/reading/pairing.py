"""Group corner indices into physical cards, by geometry, left to right.

A card shows its top-left index and, when nothing covers it, the turned
bottom-right one, about a card's diagonal away and of the same class.  Two
indices of the same class anywhere else are two cards, so a pair of ``S5``
counts as two; but a deck that prints an index in all four corners shows
two more at the card's other corners (its top-right one upright, its
bottom-left one turned), and they count with the card.  The detector (:mod:`vision.reading.detector`) finds the
indices and the classifier names them; this module only looks at where
they lie and what they are called.

A play laid in two rows (a 6-10-card tube, plate or bomb in a narrow zone)
or a grid makes three or four bands of heights instead of two; its corners
are then paired by where they sit alone, and its cards come out row by row
from the top, each row left to right.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.reading.classes import CARD_NAMES, JOKERS

# Geometry of a corner-index pair, measured on the decks (in the row's frame):
# from the top-left index centre to the bottom-right one, dy is 1.4 to 4
# index heights and dx/dy about 0.78.
PAIR_RATIO = 0.78
PAIR_RATIO_TOL = 0.55
PAIR_DY_MAX = 5.5
BOTTOM_MIN = 1.2       # an index this far below the top band is a bottom-right one
MAX_ROW_ANGLE = 20     # degrees
SAME_INDEX = 0.6       # boxes closer than this share of an index's size are one index
LEFTOVER_TURN = 35    # degrees: how far a leftover same-name corner pair may turn
RESCUE_TOL = 0.5       # index heights: a corner pair named two ways must sit this true
ROWS_SHAPE_FROM = 3     # cards in rows: from this many corner pairs their usual offset is known,
ROWS_SHAPE_TOL = 1.0    # and a pair this many index heights from it is undone
RESCUE_FLOOR = 1e-3    # a name outside a corner's short list still counts this much (a cut-off corner lists no good one)
RESCUE_SURE = 0.8      # two corners named this surely, each something else, are two cards
# cos of the angle at a four-corner card's other two corners: within about 6
# degrees of square (12 took a fanned neighbour's index for one)
FOUR_CORNER_SQUARE = 0.1
FOUR_CORNER_SIDES = (0.5, 0.95)   # a card's index rectangle: its short side over its long one
EDGE_DX = 0.5       # index heights: a card's two indices along one edge lie this much one above the other
# index heights: and as far apart as the row's cards' corners, to within this
# (cards in two rows: a card's height and a gap apart)
EDGE_DY_TOL = 0.3
EDGE_CLEAR = 0.3    # index heights: of two upper indices over one lower, the straighter one by this is its edge's


@dataclass(frozen=True)
class IndexDetection:
    """One detected corner index (or a hand): class name, confidence, box in pixels.

    ``alternatives``: the classifier's likeliest names with their
    probabilities, best first (empty when nothing else was considered).
    """

    name: str
    confidence: float
    box: tuple[float, float, float, float]
    alternatives: tuple[tuple[str, float], ...] = ()

    def probability(self, name: str) -> float:
        """How likely this index shows ``name`` (its confidence if it is its name)."""
        if name == self.name:
            return self.confidence
        return next((p for n, p in self.alternatives if n == name), 0.0)

    @property
    def center(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]


@dataclass(frozen=True)
class CardRead:
    """One physical card: its face, confidence, and the indices that show it.

    ``centre``: where the card's middle lies in the picture, from its two
    indices or, with one showing, from the row's typical corner-to-corner
    offset (which zone a card lies in is decided by it).
    """

    name: str
    confidence: float
    box: tuple[float, float, float, float]
    indices: tuple[IndexDetection, ...]
    centre: tuple[float, float] | None = None

    def to_dict(self) -> dict:
        return {"card": self.name, "confidence": round(self.confidence, 4),
                "box": [round(v, 1) for v in self.box], "indices": len(self.indices)}


def row_angle(centres: np.ndarray, ih: float, bands: int = 2) -> float:
    """The row's slope (radians): the angle that makes the tightest bands.

    Top-left indices of a row of cards lie along one line; turned
    bottom-right ones lie along a parallel line a card's height lower.
    Angles within ±:data:`MAX_ROW_ANGLE` degrees are tried; at each, the
    heights across the row split into bands (:func:`bottom_band`) and the
    angle whose bands are narrowest (least spread about their means) wins,
    a tilt paying a small price per degree.  (Counting bands of a fixed
    width instead was fooled by cards laid a little higher or lower.)
    ``bands``: more than two when the cards lie in rows (:func:`height_bands`),
    split at that many less one widest gaps.

    >>> xs = np.arange(0, 500, 50.0)
    >>> round(float(np.degrees(row_angle(np.stack([xs, 100 + np.tan(np.radians(8)) * xs], 1), 30.0))))
    8
    """
    if len(centres) < 2:
        return 0.0
    # every angle at once, one row of heights each (a loop over the angles in
    # Python cost about 11 ms a whole-table frame)
    degs = np.arange(-MAX_ROW_ANGLE, MAX_ROW_ANGLE + 0.5, 1.0)
    t = np.radians(degs)
    v = -np.outer(np.sin(t), centres[:, 0]) + np.outer(np.cos(t), centres[:, 1])
    if bands > 2:
        band = _widest_gaps_rows(v, bands)
        groups = [band == b for b in range(bands)]
    else:
        low = _bottom_band_rows(v, ih)
        groups = [low, ~low]
    spread = np.zeros(len(degs))
    for m in groups:
        n = m.sum(axis=1)
        mean = np.where(m, v, 0.0).sum(axis=1) / np.maximum(n, 1)
        spread += np.where(m, (v - mean[:, None]) ** 2, 0.0).sum(axis=1)
    score = spread / (ih * ih) + 0.02 * np.abs(degs)
    return float(t[int(np.argmin(score))])


def _bottom_band_rows(v: np.ndarray, ih: float) -> np.ndarray:
    """:func:`bottom_band` for each row of ``v`` (one row of heights an angle).

    >>> _bottom_band_rows(np.array([[160., 180., 205., 190., 330.], [160., 180., 205., 190., 200.]]), 35.0).tolist()
    [[False, False, False, False, True], [False, False, False, False, False]]
    """
    s = np.sort(v, axis=1)
    gaps = np.diff(s, axis=1)
    k = np.argmax(gaps, axis=1)[:, None]
    split = (np.take_along_axis(s, k, 1) + np.take_along_axis(s, k + 1, 1)) / 2
    wide = np.take_along_axis(gaps, k, 1) >= BOTTOM_MIN * ih
    return (v > split) & wide


def one_per_index(indices: list[IndexDetection]) -> list[IndexDetection]:
    """Drop boxes that sit on an index another, surer box already covers.

    The detector sometimes boxes one index twice, a little apart; both
    crops then read as an index.  Two indices of different cards are at
    least an index's width apart (players leave every index in view), so
    boxes closer than :data:`SAME_INDEX` of a width are one index.

    >>> a = IndexDetection("CT", 0.95, (398, 163, 416, 198))
    >>> b = IndexDetection("CT", 0.51, (386, 157, 408, 195))
    >>> c = IndexDetection("CT", 0.90, (420, 163, 438, 198))      # the next card's
    >>> [d.confidence for d in one_per_index([b, a, c])]
    [0.95, 0.9]
    """
    kept: list[IndexDetection] = []
    for d in sorted(indices, key=lambda d: -d.confidence):
        x, y = d.center
        if all(abs(x - k.center[0]) >= SAME_INDEX * max(d.width, k.width)
               or abs(y - k.center[1]) >= SAME_INDEX * max(d.height, k.height) for k in kept):
            kept.append(d)
    return kept


def bottom_band(v: np.ndarray, ih: float) -> np.ndarray:
    """Which indices are bottom-right ones, from their heights ``v`` across the row.

    The row's top-left indices form one band and the bottom-right ones
    another, a card's height lower: the split is the widest gap between
    heights, when it is at least :data:`BOTTOM_MIN` index heights.  (Measured
    from the highest index instead, one card lifted a little above the rest
    turned the others' top indices into bottom ones.)

    >>> bottom_band(np.array([160., 180., 205., 190., 330.]), 35.0).tolist()
    [False, False, False, False, True]
    >>> bottom_band(np.array([160., 180., 205.]), 35.0).tolist()
    [False, False, False]
    """
    if len(v) < 2:
        return np.zeros(len(v), bool)
    return _bottom_band_rows(np.asarray(v)[None, :], ih)[0]


def height_bands(v: np.ndarray, ih: float) -> np.ndarray:
    """Each index's band of heights across the row(s), counted from the top:
    a new band begins at every gap of :data:`BOTTOM_MIN` index heights or
    more.  One row of cards makes two bands at most (its top-left indices
    and its bottom-right ones); cards laid in two rows, or a grid, make three
    or four.

    >>> height_bands(np.array([160., 180., 330., 480., 500., 650.]), 35.0).tolist()
    [0, 0, 1, 2, 2, 3]
    """
    if len(v) == 0:
        return np.zeros(0, int)
    order = np.argsort(v, kind="stable")
    out = np.empty(len(v), int)
    out[order] = np.concatenate([[0], np.cumsum(np.diff(v[order]) >= BOTTOM_MIN * ih)])
    return out


def _widest_gaps_rows(v: np.ndarray, bands: int) -> np.ndarray:
    """Each height's group, from the top, split at the ``bands - 1`` widest
    gaps: for each row of ``v`` (one row of heights an angle).

    >>> _widest_gaps_rows(np.array([[160., 180., 330., 480., 500.]]), 3).tolist()
    [[0, 0, 1, 2, 2]]
    """
    order = np.argsort(v, axis=1, kind="stable")
    gaps = np.diff(np.take_along_axis(v, order, 1), axis=1)
    cut = np.zeros(v.shape, int)
    if gaps.shape[1]:
        np.put_along_axis(cut, np.argsort(-gaps, axis=1, kind="stable")[:, :bands - 1] + 1, 1, 1)
    out = np.empty(v.shape, int)
    np.put_along_axis(out, order, np.cumsum(cut, axis=1), 1)
    return out


def _corner_pair_error(offset: np.ndarray, ih: float) -> float | None:
    """How far (in dx/dy) an offset from a top-left index to a bottom-right one
    is from a card's usual shape; None when it cannot be one card's corners."""
    dx, dy = offset
    if not (BOTTOM_MIN * ih <= dy <= PAIR_DY_MAX * ih) or dx <= 0:
        return None
    err = abs(dx / dy - PAIR_RATIO)
    return err if err <= PAIR_RATIO_TOL else None


MATCH_EXACT_UP_TO = 12   # candidate pairs of one name weighed all together; more: the closest first


def _matching(cand: list[tuple[float, int, int]]) -> list[tuple[float, int, int]]:
    """Corner pairs of one name that pair the most corners, and of those the
    ones closest to a card's shape.  (Taking the closest pair first joined the
    top corner of one card to the bottom corner of the next when the row
    climbed: two cards read as three.)  A name has few corners (two decks:
    two cards of a face), so every choice is weighed.

    >>> _matching([(0.22, 0, 3), (0.26, 0, 2), (0.26, 1, 3)])
    [(0.26, 0, 2), (0.26, 1, 3)]
    """
    cand = sorted(cand)
    if len(cand) > MATCH_EXACT_UP_TO:
        out, used = [], set()
        for c in cand:
            if c[1] not in used and c[2] not in used:
                used.update((c[1], c[2]))
                out.append(c)
        return out
    best: tuple[int, float, list] = (0, 0.0, [])
    for mask in range(1, 1 << len(cand)):
        chosen = [c for k, c in enumerate(cand) if mask >> k & 1]
        # (no index in two pairs: in one row tops and bottoms are different
        # indices anyway; in two rows a corner might be offered as either)
        if len({k for c in chosen for k in c[1:]}) < 2 * len(chosen):
            continue
        err = sum(c[0] for c in chosen)
        if len(chosen) > best[0] or (len(chosen) == best[0] and err < best[1]):
            best = (len(chosen), err, chosen)
    return best[2]


FACES = frozenset(CARD_NAMES)     # the names a card may take


def _rescue_pairs(indices, local, bottom, ih, groups, used, names, rows: bool = False) -> list[tuple[int, int]]:
    """Pair the indices left over when the classifier named a card's two
    corners differently: a top-left and a bottom-right index that sit, to
    within :data:`RESCUE_TOL` index heights, where the nearest matched card's
    corners sit relative to each other are one card.  Its name is the one
    both corners find likeliest together, a name missing from a corner's
    short list counting :data:`RESCUE_FLOOR` (a corner cut off by the
    picture's edge lists nothing like its card's name, the other corner
    decides).  ``rows``: the cards lie in rows: the nearest card is the
    nearest on the table (else along the row), and a lone corner may be
    either (its role was guessed from its neighbours; where it sits says
    which).  Two corners each named surely as another face are two cards
    (:func:`_surely_two`).  Updates ``used`` and ``names``.
    """
    tops, bots = _free_corners(bottom, used, rows)
    if not tops or not bots:
        return []
    cand = []
    if groups:
        g_top = np.array([local[i] for i, _ in groups])
        g_off = np.array([local[j] - local[i] for i, j in groups])
        for i in tops:
            near = np.hypot(*(g_top - local[i]).T) if rows else np.abs(g_top[:, 0] - local[i][0])
            off = g_off[int(np.argmin(near))]   # the nearest card's, fan and all
            for j in bots:
                err = float(np.linalg.norm(local[j] - local[i] - off)) / ih
                if err <= RESCUE_TOL:
                    cand.append((err, int(i), int(j)))
    else:
        # no card to measure against: a corner pair in the usual shape, and
        # neither corner has another partner to choose from
        fits = {(int(i), int(j)) for i in tops for j in bots if _corner_pair_error(local[j] - local[i], ih) is not None}
        for i, j in fits:
            if _only_fit(fits, i, j, rows):
                cand.append((0.0, i, j))
    cand.sort()
    out = []
    for _, i, j in cand:
        if i in used or j in used:
            continue
        a, b = indices[i], indices[j]
        if _surely_two(a, b):
            continue
        # (a card is a face: NONE, "no index", likeliest to both corners names no card)
        options = ({a.name, b.name} | {n for n, _ in a.alternatives} | {n for n, _ in b.alternatives}) & FACES
        best = max(options, key=lambda n: max(RESCUE_FLOOR, a.probability(n)) * max(RESCUE_FLOOR, b.probability(n)))
        used.update((i, j))
        names[i] = names[j] = best
        out.append((i, j))
    return out


def _surely_two(a: IndexDetection, b: IndexDetection) -> bool:
    """Whether two indices show two faces: each is named surely
    (:data:`RESCUE_SURE`) and neither gives the other's name ten times
    :data:`RESCUE_FLOOR` or more.  On a deck printing all four corners a
    row's bottom-left indices sit where the cards' bottom-right ones would;
    rescued, a card's top-left index took the next card's bottom-left one
    for its own, one of the two faces lost.  A corner named a joker is not
    trusted so: an index on its side reads as one, and the pair is rescued
    as before (the name both corners find likeliest).

    >>> st, ht = IndexDetection("ST", 0.97, (0, 0, 9, 9)), IndexDetection("HT", 0.95, (0, 0, 9, 9))
    >>> _surely_two(st, ht), _surely_two(st, IndexDetection("HT", 0.6, (0, 0, 9, 9)))
    (True, False)
    >>> _surely_two(st, IndexDetection("HT", 0.9, (0, 0, 9, 9), (("ST", 0.08),)))
    False
    >>> _surely_two(st, IndexDetection("BJ", 0.92, (0, 0, 9, 9)))
    False
    """
    return a.name != b.name and min(a.confidence, b.confidence) >= RESCUE_SURE \
        and max(a.probability(b.name), b.probability(a.name)) < 10 * RESCUE_FLOOR \
        and not {a.name, b.name} & set(JOKERS)


def _only_fit(fits: set[tuple[int, int]], i: int, j: int, rows: bool) -> bool:
    """Whether top-left ``i`` and bottom-right ``j`` have no other partner
    in ``fits`` (``rows``: nor either one another role)."""
    if rows:
        return sum(1 for f in fits for k in f if k in (i, j)) == 2
    return sum(1 for a, _ in fits if a == i) == 1 and sum(1 for _, b in fits if b == j) == 1


def _leftover_pairs(indices, local, bottom, ih, used, rows: bool = False) -> list[tuple[int, int]]:
    """Pair a leftover top-left and bottom-right index of the same name when
    each is the other's only possible partner, the card turned up to
    :data:`LEFTOVER_TURN` degrees from the usual shape (the end of a fan).
    Every card's top-left index shows, so an unpaired bottom-right one of the
    same name is that card's far corner, not another card.  ``rows``: see
    :func:`_rescue_pairs`.  Updates ``used``.
    """
    usual = np.degrees(np.arctan(PAIR_RATIO))

    def fits(i: int, j: int) -> bool:
        dx, dy = local[j] - local[i]
        return bool(BOTTOM_MIN * ih <= dy <= PAIR_DY_MAX * ih
                    and abs(np.degrees(np.arctan2(dx, dy)) - usual) <= LEFTOVER_TURN)
    return _sole_pairs(indices, bottom, used, rows, fits)


def _free_corners(bottom: np.ndarray, used: set[int], rows: bool) -> tuple[list[int], list[int]]:
    """The indices not yet in a card that may be a card's upper corner and
    those that may be its lower one (``bottom``: the lower ones; ``rows``:
    any index may be either, see :func:`_rescue_pairs`).

    >>> _free_corners(np.array([False, True, False]), {2}, False), _free_corners(np.array([False, True]), set(), True)
    (([0], [1]), ([0, 1], [0, 1]))
    """
    tops = [int(i) for i in np.nonzero(~bottom | rows)[0] if i not in used]
    bots = [int(j) for j in np.nonzero(bottom | rows)[0] if j not in used]
    return tops, bots


def _sole_pairs(indices: list[IndexDetection], bottom: np.ndarray, used: set[int], rows: bool,
                fits) -> list[tuple[int, int]]:
    """The leftover (upper, lower) index pairs of one name that ``fits(i, j)``
    takes for one card's, where each is the other's only such partner
    (``rows``: see :func:`_rescue_pairs`).  Updates ``used``."""
    tops, bots = _free_corners(bottom, used, rows)
    found = {(i, j) for i in tops for j in bots if i != j and indices[i].name == indices[j].name and fits(i, j)}
    out = [(i, j) for i, j in sorted(found) if _only_fit(found, i, j, rows)]
    for i, j in out:
        used.update((i, j))
    return out


def pair_indices(indices: list[IndexDetection]) -> list[CardRead]:
    """Group corner indices into physical cards and order them left to right
    (cards laid in two rows or more: row by row, from the top).

    >>> a = IndexDetection("S5", 0.9, (10, 10, 20, 30))    # an S5, half covered by
    >>> c = IndexDetection("S5", 0.9, (40, 10, 50, 30))    # a second S5, on top,
    >>> b = IndexDetection("S5", 0.8, (87, 70, 97, 90))    # whose bottom corner shows
    >>> [(r.name, len(r.indices)) for r in pair_indices([a, b, c])]
    [('S5', 1), ('S5', 2)]
    """
    if not indices:
        return []
    ih = float(np.median([d.height for d in indices]))
    centres = np.array([d.center for d in indices], float)
    t = row_angle(centres, ih)
    cards, _ = _paired(indices, centres, t, ih, rows=False)
    # bands of heights across the zone (rows lie along it: a turned zone is
    # read turned upright) and across the row as found
    bands = 1 + max(int(height_bands(centres[:, 1], ih).max()),
                    int(height_bands((centres @ _rotation(t).T)[:, 1], ih).max()))
    if bands >= 3:
        # three bands of heights or more: the cards may lie in two rows (or a
        # grid), where the widest gap is not the one between top-left and
        # bottom-right corners (each card's two corners were counted as two
        # cards; a card laid higher than the rest makes a band too).  Read so,
        # the rows win if the cards' centres do lie in rows (a new row where
        # they step down by most of a card's corner-to-corner height: one row
        # read across two joins corners of both), or if they pair more corners
        # (the angle that makes the tightest bands may be a steep one that mixes
        # the rows' corners: the zone's own axis is tried too, and wins a tie)
        angles = sorted({0.0, row_angle(centres, ih, bands)}, key=abs)
        in_rows, corner_dy = min((_paired(indices, centres, a, ih, rows=True) for a in angles),
                                 key=lambda r: len(r[0]))
        row = height_bands(np.array([c[1] for c, _ in in_rows]), 0.75 * corner_dy / BOTTOM_MIN)
        if len(in_rows) < len(cards) or row.max() >= 1:
            order = sorted(range(len(in_rows)), key=lambda k: (row[k], in_rows[k][0][0]))
            return [in_rows[k][1] for k in order]
    cards.sort(key=lambda c: float(c[0][0]))
    return [c for _, c in cards]


def _paired(indices: list[IndexDetection], centres: np.ndarray, t: float, ih: float,
            rows: bool) -> tuple[list[tuple[np.ndarray, CardRead]], float]:
    """The cards the indices make, each with its centre in the frame of a row
    climbing by ``t`` radians, and the typical corner-to-corner height (px).
    ``rows``: the cards may lie in rows (any two corners that sit as one card's
    may pair), else in one row (a top-left corner in the upper band of
    heights, a bottom-right one in the lower)."""
    rot = _rotation(t)
    local = centres @ rot.T
    bottom = bottom_band(local[:, 1], ih)
    by_name: dict[str, list[tuple[float, int, int]]] = {}
    # one row: a top-left corner in the upper band, a bottom-right one in the
    # lower; rows: any two corners, where they sit says whether they are a card's
    everyone = np.arange(len(indices))
    for i in (everyone if rows else np.nonzero(~bottom)[0]):
        for j in (everyone if rows else np.nonzero(bottom)[0]):
            if indices[i].name != indices[j].name or i == j:
                continue
            # a card's corners in the row's frame, or the picture's: a row may
            # climb while its cards stand upright (each laid a little higher)
            errs = [e for e in (_corner_pair_error(local[j] - local[i], ih),
                                _corner_pair_error(centres[j] - centres[i], ih)) if e is not None]
            if errs:
                by_name.setdefault(indices[i].name, []).append((min(errs), int(i), int(j)))
    used: set[int] = set()
    groups: list[tuple[int, ...]] = []
    for cand in by_name.values():
        for _, i, j in _matching(cand):
            used.update((i, j))
            groups.append((i, j))
    if rows and len(groups) >= ROWS_SHAPE_FROM:
        # in rows, a top-left corner and the next row's top-left corner of a
        # card of the same name further along may sit as one card's corners:
        # pairs far from the cards' usual corner-to-corner offset are undone
        usual = np.median(np.array([local[j] - local[i] for i, j in groups]), axis=0)
        used, groups = set(), []
        for cand in by_name.values():
            for _, i, j in _matching([c for c in cand
                                      if np.hypot(*(local[c[2]] - local[c[1]] - usual)) <= ROWS_SHAPE_TOL * ih]):
                used.update((i, j))
                groups.append((i, j))
    if rows:
        bottom = _corner_roles(local, groups)
    names = {k: d.name for k, d in enumerate(indices)}
    groups += _rescue_pairs(indices, local, bottom, ih, groups, used, names, rows)
    groups += _leftover_pairs(indices, local, bottom, ih, used, rows)
    groups, more = _four_corners(indices, centres, groups, used, names)
    if rows:
        bottom = _corner_roles(local, groups)      # (the lone corners' roles, from every pair)
    # typical offset (row frame) from a top-left index to its card's centre
    if groups:
        half = np.median(np.array([local[j] - local[i] for i, j in groups]), axis=0) / 2
    else:
        dy = 2.8 * ih
        half = np.array([PAIR_RATIO * dy, dy]) / 2
    edges = set() if rows else set(_edge_corners(indices, local, bottom, ih, used, 2 * float(half[1])))
    groups += sorted(edges)
    groups += [(k,) for k in range(len(indices)) if k not in used]
    cards = []
    for g in groups:
        dets = [indices[k] for k in g + more.get(g, ())]
        if g in edges:      # one edge of a card: its centre as its top corner alone gives it
            centre = local[g[0]] + half
        elif len(g) == 2:
            centre = (local[g[0]] + local[g[1]]) / 2
        else:
            centre = local[g[0]] + (-half if bottom[g[0]] else half)
        boxes = np.array([d.box for d in dets])
        box = (float(boxes[:, 0].min()), float(boxes[:, 1].min()),
               float(boxes[:, 2].max()), float(boxes[:, 3].max()))
        # (the evidence for the card's name: a pair named two ways and rescued
        # under one name is as sure as its corners are of that name, not as
        # the surer corner is of its own; a D3 corner at 0.93 made a BJ of 0.93)
        conf = max(d.probability(names[g[0]]) for d in dets)
        middle = tuple(float(v) for v in centre @ rot)        # back to the picture's frame
        cards.append((centre, CardRead(names[g[0]], conf, box, tuple(dets), middle)))
    return cards, abs(2 * float(half[1]))


def _corner_of(centres: np.ndarray, g: tuple[int, ...], k: int, square: float = FOUR_CORNER_SQUARE) -> str | None:
    """Whether index ``k`` sits as card ``g``'s (top-left, bottom-right)
    ``"top-right"`` or ``"bottom-left"`` index: it makes a square corner with
    the card's two indices (the cosine of its angle at most ``square``), on
    the right side of that diagonal (the top-right index is nearer the
    top-left one than the bottom-right, the card being taller than wide; the
    bottom-left one the other way round)."""
    tl, br = centres[g[0]], centres[g[1]]
    to_tl, to_br = centres[k] - tl, br - centres[k]
    a, b = float(np.hypot(*to_tl)), float(np.hypot(*to_br))
    if min(a, b) == 0 or abs(float(to_tl @ to_br)) > square * a * b:
        return None
    if not FOUR_CORNER_SIDES[0] <= min(a, b) / max(a, b) <= FOUR_CORNER_SIDES[1]:
        return None
    diag = br - tl
    above = float(diag[0] * to_tl[1] - diag[1] * to_tl[0]) < 0
    if (a < b) != above:
        return None
    return "top-right" if above else "bottom-left"


def _four_corners(indices: list[IndexDetection], centres: np.ndarray, groups: list[tuple[int, ...]],
                  used: set[int], names: dict[int, str]
                  ) -> tuple[list[tuple[int, ...]], dict[tuple[int, ...], tuple[int, ...]]]:
    """On decks that print an index in all four corners: each paired card's
    other two indices, the top-right one (upright) and the bottom-left one
    (turned), where :func:`_corner_of` finds them, by card; and ``groups``
    without the pairs that joined another card's top-left index to this
    card's bottom-left one (a row of such cards: the pairing pairs the most
    corners it can), that top-left index alone again.  Read alone these
    indices counted as cards more.  Nothing else can lie there: another
    card's index at that spot would cover this card's bottom-right index, or
    be covered by this card.  Updates ``used``.

    >>> tl, br = np.array([10., 10.]), np.array([60., 74.])
    >>> c = np.array([tl, br, [60., 10.], [10., 74.], [40., 10.]])
    >>> d = [IndexDetection("H4", 0.9, (x - 4, y - 8, x + 4, y + 8)) for x, y in c]
    >>> used = {0, 1}
    >>> _four_corners(d, c, [(0, 1)], used, {k: "H4" for k in range(5)}), sorted(used)
    (([(0, 1)], {(0, 1): (2, 3)}), [0, 1, 2, 3])
    """
    pairs = [g for g in groups if len(g) == 2]
    more: dict[tuple[int, ...], tuple[int, ...]] = {}
    false = set()
    for g in pairs:
        for h in pairs:
            if h != g and h not in false and g not in false and names[h[1]] == names[g[0]] \
                    and _corner_of(centres, g, h[1]) == "bottom-left":
                false.add(h)
                used.discard(h[0])
                more[g] = (*more.get(g, ()), h[1])
    kept = [g for g in groups if g not in false]
    for g in kept:
        if len(g) == 2:
            for k in range(len(indices)):
                if k not in used and names[k] == names[g[0]] and _corner_of(centres, g, k):
                    more[g] = (*more.get(g, ()), k)
                    used.add(k)
    return kept, more


def _edge_corners(indices: list[IndexDetection], local: np.ndarray, bottom: np.ndarray, ih: float,
                  used: set[int], corner_dy: float) -> list[tuple[int, int]]:
    """One card's two indices along one of its long edges, on decks that
    print an index in all four corners: a lone upper index and a lone lower
    (turned) one of the same name, one above the other (within
    :data:`EDGE_DX` index heights across the row) and as far apart as a
    card's corners are (``corner_dy``, within :data:`EDGE_DY_TOL` index
    heights), each the other's only such partner or straighter above it than
    any other by :data:`EDGE_CLEAR` index heights.  A row laid each card over
    the last shows every card's left edge; a card slid under the last, its
    right edge.  Read alone they counted as two cards.  (Two cards of one
    name cannot show so in one row: the upper one's lower neighbour would lie
    under it or over its index.)  Updates ``used``.

    >>> d = [IndexDetection("H6", 0.9, (x - 6, y - 12, x + 6, y + 12)) for x, y in ((20, 20), (22, 84), (50, 20))]
    >>> local = np.array([d_.center for d_ in d])
    >>> _edge_corners(d, local, np.array([False, True, False]), 24.0, set(), 64.0)
    [(0, 1)]

    A twin just beside it (its own lower index hidden) is less straight above:

    >>> d[2] = IndexDetection("H6", 0.9, (28, 8, 40, 32))
    >>> local = np.array([d_.center for d_ in d])
    >>> _edge_corners(d, local, np.array([False, True, False]), 24.0, set(), 64.0)
    [(0, 1)]
    """
    def fits(i: int, j: int) -> bool:
        dx, dy = local[j] - local[i]
        return bool(abs(dx) <= EDGE_DX * ih and abs(dy - corner_dy) <= EDGE_DY_TOL * ih)
    # (each the other's only partner, or clearly the straightest: a twin
    # beside the card, its lower index covered, fits too)
    tops, bots = _free_corners(bottom, used, False)
    found = sorted((abs(float(local[j][0] - local[i][0])), i, j) for i in tops for j in bots
                   if indices[i].name == indices[j].name and fits(i, j))
    out = [(i, j) for dx, i, j in found
           if not any((a == i or b == j) and (a, b) != (i, j) and d < dx + EDGE_CLEAR * ih for d, a, b in found)]
    used.update(k for pair in out for k in pair)
    return out


def _rotation(t: float) -> np.ndarray:
    """Into the row's frame (a row climbing by ``t`` radians)."""
    return np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])


def _corner_roles(local: np.ndarray, groups: list[tuple[int, ...]]) -> np.ndarray:
    """Which indices are bottom-right ones, cards laid in rows (``local``:
    the indices' centres in the rows' frame): an index paired as a card's
    bottom-right corner is one; a lone index is what the nearest paired
    corner is (the rows' heights alone cannot say: the next row's top-left
    indices may sit as high as this row's bottom-right ones), a top-left one
    where none is paired (every card's top-left index shows, unless the
    cards were slid each under the last)."""
    bottom = np.zeros(len(local), bool)
    for _, j in groups:
        bottom[j] = True
    paired = np.array(sorted({k for g in groups for k in g}), int)
    for k in range(len(local)):
        if k not in paired and len(paired):
            bottom[k] = bottom[paired[int(np.argmin(np.hypot(*(local[paired] - local[k]).T)))]]
    return bottom
