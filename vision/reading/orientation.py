"""Which way the cards in a zone are turned, and the zone picture turned back upright.

The detector and the index classifier were made on cards laid within a few
degrees of the zone's axis; players push plays in at any angle.  A card's
edges are its strongest straight lines, so the angle at which a zone's
edges cluster (square-wise: long and short edges alike) says how far its
cards are turned: the picture is also read turned back by that angle
(:func:`turns`, :func:`upright`), and what is found there is mapped back
(:class:`Upright`).  Rows within :data:`TURN_FROM` degrees are read as they
are (the models handle that), so ordinary plays cost only the angle's
measurement.  Cards turned each its own way (a fan, a card pushed in
crooked) make the edges cluster at several angles (:func:`tilt_peaks`):
:func:`turn_angles` gives those too, and :func:`lines_apart` tells a card's
long straight edges at another angle from a pattern's short ones.

>>> import cv2
>>> img = np.full((300, 400, 3), 60, np.uint8)
>>> card = cv2.boxPoints(((200, 150), (90, 130), 30)).astype(np.int32)
>>> _ = cv2.fillConvexPoly(img, card, (235, 235, 235))
>>> abs(card_tilt(img) - 30) < 2
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

TURN_FROM = 12.0        # degrees: rows turned less are read as they are
AMBIGUOUS_FROM = 35.0   # degrees: rows turned more are tried both ways round
LINE_BAND = 0.06        # of the picture's short side, left out inside the margin
_BINS = 180             # one a degree over half a turn


def card_tilt(image: np.ndarray, margin: int = 0) -> float:
    """The cards' edges' angle from the picture's axes, in degrees
    (-45, 45], clockwise positive as the picture is drawn (y down); 0.0 when
    nothing in the picture has edges.  ``margin``: a band of this many pixels
    around the picture is left out (the table's printed zone lines lie there
    and are square to the picture)."""
    smooth = _edge_histogram(image, margin)
    return 0.0 if smooth is None else _tilt(smooth)


def _tilt(smooth: np.ndarray) -> float:
    """:func:`card_tilt` from the edge histogram."""
    peak = float(np.argmax(smooth)) + 0.5
    # refine to a fraction of a degree from the neighbours
    i = int(peak)
    a, b, c = smooth[(i - 1) % _BINS], smooth[i], smooth[(i + 1) % _BINS]
    if b > 0 and (a - 2 * b + c) < 0:
        peak += 0.5 * (a - c) / (a - 2 * b + c)
    # long or short edges?  A row's short top edges line up into one long line,
    # so the stronger peak may be either: plays lie within ±45 degrees of the
    # zone's axis, so the answer is taken square-wise, in (-45, 45]
    tilt = (peak + 45.0) % 90.0 - 45.0
    return float(tilt)


def tilt_peaks(image: np.ndarray, margin: int = 0, share: float = 0.0) -> list[tuple[float, float]]:
    """Every angle the zone's edges cluster at, square-wise (long and short
    edges together), as ``(degrees in (-45, 45], strength)``, strongest
    first, the strongest 1.0; those weaker than ``share`` are left out.
    Cards turned each its own way (a fan, a card pushed in crooked) make one
    peak each; a row turned as a whole makes one.

    >>> import cv2
    >>> img = np.full((300, 500, 3), 60, np.uint8)
    >>> for x, a in ((130, -30), (330, 20)):
    ...     _ = cv2.fillConvexPoly(img, cv2.boxPoints(((x, 150), (90, 130), a)).astype(np.int32), (235, 235, 235))
    >>> [abs(a - b) < 3 for a, b in zip(sorted(a for a, s in tilt_peaks(img, share=0.5)), (-30, 20))]
    [True, True]
    """
    smooth = _edge_histogram(image, margin)
    return [] if smooth is None else _peaks(smooth, share)


def _peaks(smooth: np.ndarray, share: float) -> list[tuple[float, float]]:
    """:func:`tilt_peaks` from the edge histogram."""
    half = _BINS // 2
    folded = smooth[:half] + smooth[half:]          # square-wise: a card's two edges together
    top = float(folded.max())
    if top <= 0:
        return []
    out = []
    for i in range(half):
        v = folded[i]
        a, c = folded[i - 1], folded[(i + 1) % half]
        if v >= a and v > c and v >= share * top:
            x = i + 0.5 + (0.5 * (a - c) / (a - 2 * v + c) if (a - 2 * v + c) < 0 else 0.0)
            out.append((float((x + 45.0) % 90.0 - 45.0), float(v / top)))
    return sorted(out, key=lambda p: -p[1])


def _edge_histogram(image: np.ndarray, margin: int, where: np.ndarray | None = None) -> np.ndarray | None:
    """The strongest edges' angles over half a turn, one bin a degree,
    weighted by strength and smoothed (None: too few edges). ``where``: a
    mask of the picture (any size) where something is laid; only the
    strongest edges there count (a wooden board's grain elsewhere is no
    card's), unless too few lie there."""
    gray, where = _grey_inside(image, margin, where)
    # a third of the size is plenty for card edges, and area shrinking smooths
    small = cv2.resize(gray, (max(8, gray.shape[1] // 3), max(8, gray.shape[0] // 3)),
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    gx = cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    flat = mag.ravel()
    k = int(0.9 * flat.size)
    strong = mag > max(1e-3, float(np.partition(flat, k)[k]))       # the strongest tenth
    strong = _only_where(strong, where, 30)
    if strong.sum() < 30:
        return None
    # the gradient of an edge is square to it: a vertical edge has a horizontal gradient
    phi = (np.degrees(np.arctan2(gy[strong], gx[strong])) % 180.0)
    hist, _ = np.histogram(phi, bins=_BINS, range=(0.0, 180.0), weights=mag[strong])
    # a card's long and short edges are square to each other: smooth over a few
    # degrees (fans turn each card a little), wrapping round half a turn
    k = np.exp(-0.5 * (np.arange(-6, 7) / 2.5) ** 2)
    wrapped = np.concatenate([hist[-6:], hist, hist[:6]])
    return np.convolve(wrapped, k, mode="same")[6:-6]


@dataclass(frozen=True)
class Upright:
    """A zone picture turned upright and the way back to the original.

    ``image``: the turned picture, large enough to hold all of the original;
    ``back``: 2x3 affine from the turned picture's pixels to the original's.
    """

    image: np.ndarray
    back: np.ndarray

    def point(self, x: float, y: float) -> tuple[float, float]:
        """A point of the turned picture in the original's pixels."""
        p = self.back @ np.array([x, y, 1.0])
        return (float(p[0]), float(p[1]))

    def box(self, box: tuple[float, ...]) -> tuple[float, float, float, float]:
        """The original-picture box around a turned picture's box."""
        x0, y0, x1, y1 = box[:4]
        pts = np.array([self.point(x, y) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))])
        return (float(pts[:, 0].min()), float(pts[:, 1].min()), float(pts[:, 0].max()), float(pts[:, 1].max()))


def turns(image: np.ndarray, margin: int = 0, turn_from: float = TURN_FROM) -> list[float]:
    """The angles to try turning ``image``'s cards upright by: none when they
    stand within ``turn_from`` degrees; near 45 degrees both ways round (the
    edges alone cannot tell a card turned 44 degrees one way from one turned
    46 the other: the read that finds the surer cards decides).

    >>> turns(np.full((200, 300, 3), 50, np.uint8))
    []
    """
    return _turns_for(card_tilt(image, margin), turn_from)


def _turns_for(tilt: float, turn_from: float, ambiguous_from: float = AMBIGUOUS_FROM) -> list[float]:
    """The turns that make cards turned ``tilt`` upright (see :func:`turns`)."""
    if abs(tilt) < turn_from:
        return []
    if abs(tilt) < ambiguous_from:
        return [tilt]
    return [tilt, tilt - 90.0 if tilt > 0 else tilt + 90.0]


OWN_APART = 10.0     # degrees: a card turned its own way this far from the zone's angle and the others' is tried
OWN_AMBIGUOUS_FROM = 30.0  # degrees: a card turned its own way this far is tried both ways round
PEAK_SHARE = 0.12   # of the strongest: a weaker edge angle this strong may be cards turned their own way
MOST_OWN_TURNS = 4  # extra turns tried at most for cards turned each its own way


class Turns(NamedTuple):
    """What :func:`turn_angles` finds: the whole zone's turns, each card's own, and the zone's angle."""

    whole: list[float]
    own: list[float]
    tilt: float


def turn_angles(image: np.ndarray, margin: int = 0, turn_from: float = TURN_FROM,
                own: bool = True, where: np.ndarray | None = None) -> Turns:
    """:func:`turns` (the whole zone's), and, with ``own``, the angles of
    cards turned each its own way (a fan, a card pushed in crooked): every
    other angle the edges cluster at with at least :data:`PEAK_SHARE` of the
    strongest's strength, ``turn_from`` degrees or more from the strongest
    and from each other (square-wise), near 45 degrees both ways round,
    :data:`MOST_OWN_TURNS` at most, strongest first; 0.0 for cards within
    ``turn_from`` of the zone's axis (the zone as it lies shows them upright)
    when the strongest angle is turned; and :func:`card_tilt`.  One edge
    histogram for all; ``where``: only the edges where something is laid
    (see :func:`_edge_histogram`).

    >>> turn_angles(np.full((200, 300, 3), 50, np.uint8))
    Turns(whole=[], own=[], tilt=0.0)
    """
    smooth = _edge_histogram(image, margin, where)
    if smooth is None:
        return Turns([], [], 0.0)
    tilt = _tilt(smooth)
    whole = _turns_for(tilt, turn_from)
    extra: list[float] = []
    if own:
        seen = [tilt]
        for a, _ in _peaks(smooth, PEAK_SHARE):
            if len(extra) >= MOST_OWN_TURNS:
                break
            if all(_apart(a, t) >= min(turn_from, OWN_APART) for t in seen):
                seen.append(a)
                # near the zone's axis: the read as it lies (0.0) already shows those cards
                extra += (_turns_for(a, turn_from, OWN_AMBIGUOUS_FROM) or [0.0])[:MOST_OWN_TURNS - len(extra)]
    return Turns(whole, extra, tilt)


OTHER_LINES = 90.0  # px of the zone picture: straight edges this long at another angle are a card turned its own way


def lines_apart(image: np.ndarray, margin: int = 0, tried: tuple[float, ...] = (0.0,),
                turn_from: float = TURN_FROM) -> float:
    """How long (in the picture's pixels) the zone's longest straight edges
    at one angle (to a degree or two) are, among those at least ``turn_from``
    degrees from every angle of ``tried`` (square-wise).  A card's long
    edges are straight lines a card long; a pip's or a court picture's are
    short, so this tells a card turned its own way from a pattern's edges,
    which the edge histogram (:func:`tilt_peaks`) does not.

    >>> import cv2
    >>> img = np.full((300, 500, 3), 60, np.uint8)
    >>> _ = cv2.fillConvexPoly(img, cv2.boxPoints(((250, 150), (90, 130), 30)).astype(np.int32), (235, 235, 235))
    >>> lines_apart(img) > 100, lines_apart(img, tried=(30.0,)) == 0.0
    (True, True)
    """
    return _longest_lines(image, margin, tried, turn_from)[0]


def line_turns(image: np.ndarray, margin: int = 0, tried: tuple[float, ...] = (0.0,),
               turn_from: float = TURN_FROM, where: np.ndarray | None = None) -> list[float]:
    """The turns that stand upright the zone's longest straight edges at an
    angle at least ``turn_from`` degrees from every angle of ``tried``
    (square-wise), where they are :data:`OTHER_LINES` long or longer (a
    card's edge, see :func:`lines_apart`); near 45 degrees both ways round.
    The edge histogram can miss a card: a wooden board's long grain sets
    the zone's angle, and a white card on light wood has faint edges
    (models/MODEL_CARD.md, "A card's angle from its straight edges").
    ``where``: only the edges where something is laid (see :func:`_edge_histogram`).

    >>> import cv2
    >>> img = np.full((300, 500, 3), 60, np.uint8)
    >>> _ = cv2.fillConvexPoly(img, cv2.boxPoints(((250, 150), (90, 130), 30)).astype(np.int32), (235, 235, 235))
    >>> [round(t) for t in line_turns(img)], line_turns(img, tried=(30.0,))
    ([30], [])
    """
    length, angle = _longest_lines(image, margin, tried, turn_from, where)
    if length < OTHER_LINES:
        return []
    return _turns_for((angle + 45.0) % 90.0 - 45.0, turn_from, OWN_AMBIGUOUS_FROM) or [0.0]


def _longest_lines(image: np.ndarray, margin: int, tried: tuple[float, ...], turn_from: float,
                   where: np.ndarray | None = None) -> tuple[float, float]:
    """:func:`lines_apart`'s length, and the angle (degrees in [0, 90)) of those edges."""
    gray, where = _grey_inside(image, margin, where)
    small = cv2.resize(gray, (max(8, gray.shape[1] // 2), max(8, gray.shape[0] // 2)), interpolation=cv2.INTER_AREA)
    edges = _only_where(cv2.Canny(small, 40, 120), where)
    # segments 60 px or longer in the picture (30 at half its size), gaps of a few px bridged
    found = cv2.HoughLinesP(edges, 1, np.pi / 180, 25, minLineLength=30, maxLineGap=3)
    if found is None:
        return 0.0, 0.0
    seg = found.reshape(-1, 4).astype(np.float64)
    angle = np.degrees(np.arctan2(seg[:, 3] - seg[:, 1], seg[:, 2] - seg[:, 0])) % 90.0
    length = 2.0 * np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    hist, _ = np.histogram(angle, bins=90, range=(0.0, 90.0), weights=length)
    k = np.exp(-0.5 * (np.arange(-4, 5) / 1.5) ** 2)
    smooth = np.convolve(np.concatenate([hist[-4:], hist, hist[:4]]), k, mode="same")[4:-4]
    keep = [(float(smooth[i]), i + 0.5) for i in range(90)
            if all(_apart(i + 0.5, t) >= turn_from for t in tried)
            and smooth[i] >= smooth[i - 1] and smooth[i] >= smooth[(i + 1) % 90]]
    return max(keep, default=(0.0, 0.0))


def _apart(a: float, b: float) -> float:
    """Degrees between two angles, square-wise (a card looks the same turned a quarter turn)."""
    return abs((a - b + 45.0) % 90.0 - 45.0)


def upright(image: np.ndarray, tilt: float,
            region: tuple[int, int, int, int] | Region | None = None) -> Upright:
    """``image`` turned by ``-tilt`` degrees (see :func:`card_tilt`), so that
    cards turned ``tilt`` stand upright.  The canvas grows to hold every
    corner of the original (so cards keep their size in pixels and nothing is
    cut off); what was outside the original is filled by replicating its edge.
    ``region``: only that part of ``image`` (x0, y0, x1, y1; see
    :func:`cards_region`) is turned; a :class:`Region` with a hull
    (:func:`cards_hull`): of that part turned, only the box around the
    cards' edges as turned, its ``pad`` wider each way (the turned part's
    canvas is up to twice its area at 45 degrees, the corners mostly
    cloth).  :class:`Upright` still maps back to ``image``'s pixels.

    >>> u = upright(np.full((200, 300, 3), 50, np.uint8), 30.0)
    >>> u.image.shape[:2], [round(v) for v in u.point(u.image.shape[1] / 2, u.image.shape[0] / 2)]
    ((324, 360), [150, 100])
    >>> u = upright(np.full((200, 300, 3), 50, np.uint8), 30.0, (100, 50, 200, 150))
    >>> u.image.shape[:2], [round(v) for v in u.point(u.image.shape[1] / 2, u.image.shape[0] / 2)]
    ((137, 137), [150, 100])
    >>> img = np.full((448, 640, 3), 60, np.uint8)
    >>> _ = cv2.fillConvexPoly(img, cv2.boxPoints(((200, 220), (90, 130), 30)).astype(np.int32), (235, 235, 235))
    >>> region = cards_hull(img)
    >>> upright(img, 30.0, region.box).image.shape[:2], upright(img, 30.0, region).image.shape[:2]
    ((478, 472), (335, 296))
    """
    cut = None
    if isinstance(region, Region):
        region, cut = region.box, region
    x0, y0 = 0, 0
    if region is not None:
        x0, y0, x1, y1 = region
        image = image[y0:y1, x0:x1]
    h, w = image.shape[:2]
    # clockwise as drawn (y down) is a negative angle to OpenCV
    M = cv2.getRotationMatrix2D((w / 2, h / 2), tilt, 1.0)
    cos, sin = abs(M[0, 0]), abs(M[0, 1])
    nw, nh = int(np.ceil(h * sin + w * cos)), int(np.ceil(h * cos + w * sin))
    M[0, 2] += nw / 2 - w / 2
    M[1, 2] += nh / 2 - h / 2
    if cut is not None and cut.hull is not None:
        # only the box around the cards' edges as turned, ``pad`` wider: the
        # canvas of a turned box is up to twice its area, mostly cloth
        pts = (cut.hull - (x0, y0)) @ M[:, :2].T + M[:, 2]
        cx0, cy0 = (max(0, int(np.floor(v)) - cut.pad) for v in pts.min(axis=0))
        cx1, cy1 = min(nw, int(np.ceil(pts[:, 0].max())) + cut.pad), min(nh, int(np.ceil(pts[:, 1].max())) + cut.pad)
        if not cut.whole or (cx1 - cx0) * (cy1 - cy0) < WHOLE_CUT * nw * nh:
            M[:, 2] -= (cx0, cy0)
            nw, nh = cx1 - cx0, cy1 - cy0
    turned = cv2.warpAffine(image, M, (nw, nh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    back = cv2.invertAffineTransform(M)
    back[:, 2] += (x0, y0)
    return Upright(turned, back)


REGION_PAD = 96        # px at the zone pictures' scale (an index is about 40 px tall; a card 185)
REGION_EDGE = 0.3      # of the picture's strongest edges (its 99.5th percentile)
REGION_WHOLE = 0.6     # a region this share of the picture or more: the whole picture
WHOLE_CUT = 0.6        # and its turned canvas is cut only to less than this share of it


@dataclass(frozen=True)
class Region:
    """Where a zone's cards lie (:func:`cards_region`): ``box`` (x0, y0,
    x1, y1), and the hull of their strong edges (float (n, 2) x, y; None
    where there are none) with the ``pad`` a turned canvas keeps around it.
    ``whole``: the box is the whole picture (:data:`REGION_WHOLE`); its
    turned canvas is then cut only where the cut is less than
    :data:`WHOLE_CUT` of the whole picture turned (a long row or a fan on a
    plain cloth, not the strong edges everywhere of wood, a patterned cloth
    or a real photograph)."""

    box: tuple[int, int, int, int]
    hull: np.ndarray | None = None
    pad: int = REGION_PAD
    whole: bool = False


def cards_hull(image: np.ndarray, pad: int = REGION_PAD, where: np.ndarray | None = None) -> Region:
    """:func:`cards_region`'s box and the hull of the strong edges in it;
    ``where``: a mask of the picture (any size) where something is laid
    (:func:`vision.reading.looks.laid_where`): only the strong edges there,
    so that a wooden board's or a patterned cloth's elsewhere no longer make
    the region the whole picture (unless none lie there)."""
    return _region(image, pad, hull=True, where=where)


def cards_region(image: np.ndarray, pad: int = REGION_PAD) -> tuple[int, int, int, int]:
    """The part of ``image`` the cards lie in, ``(x0, y0, x1, y1)``: around
    every strong edge (:data:`REGION_EDGE` of the strongest; a card's edges
    and ink are the strongest a cloth shows), ``pad`` pixels wider each way.
    Turning only that part upright costs the detector a fraction of the
    whole zone turned (whose canvas grows by half at 45 degrees).  A
    patterned cloth or wood has strong edges everywhere: the region is then
    the whole picture, as before; so it is when the region would take
    :data:`REGION_WHOLE` of it or more.

    >>> import cv2
    >>> img = np.full((448, 640, 3), 60, np.uint8)
    >>> _ = cv2.rectangle(img, (100, 120), (230, 305), (235, 235, 235), -1)
    >>> cards_region(img)
    (3, 24, 334, 409)
    >>> cards_region(np.full((448, 640, 3), 60, np.uint8))
    (0, 0, 640, 448)
    """
    return _region(image, pad).box


def _grey_inside(image: np.ndarray, margin: int,
                 where: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """``image`` in grey and ``where`` (any size) at its size, both without
    the band round the zone: the printed zone lines lie about the margin's
    inner edge (give or take the camera's residual perspective), so a band
    past it is left out too."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    if where is not None:
        where = _resized(where, gray.shape[:2])
    band = margin + int(LINE_BAND * min(gray.shape[:2])) if margin else 0
    if band:
        gray = gray[band:gray.shape[0] - band, band:gray.shape[1] - band]
        where = where[band:where.shape[0] - band, band:where.shape[1] - band] if where is not None else None
    return gray, where


def _only_where(edges: np.ndarray, where: np.ndarray | None, least: int = 1) -> np.ndarray:
    """``edges`` (a mask or an edge picture) kept only where something is
    laid (``where``, any size), unless fewer than ``least`` lie there."""
    if where is None:
        return edges
    laid = np.where(_resized(where, edges.shape), edges, 0).astype(edges.dtype)
    return laid if np.count_nonzero(laid) >= least else edges


def _resized(mask: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A boolean mask at another size (each pixel the nearest's)."""
    if mask.shape[:2] == shape[:2]:
        return mask.astype(bool)
    return cv2.resize(mask.astype(np.uint8), (shape[1], shape[0]), interpolation=cv2.INTER_NEAREST) > 0


def _region(image: np.ndarray, pad: int, hull: bool = False, where: np.ndarray | None = None) -> Region:
    """:func:`cards_region` and, with ``hull``, :func:`cards_hull`."""
    h, w = image.shape[:2]
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    # a third of the size, as for the edge histogram
    small = cv2.resize(gray, (max(8, w // 3), max(8, h // 3)), interpolation=cv2.INTER_AREA).astype(np.float32)
    # edges of the logarithm: a card's edge in a shadow is as strong as one in
    # the light (a dim card beside bright court cards was left out otherwise)
    small = np.log(small + 8.0)
    mag = cv2.magnitude(cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3))
    top = float(np.percentile(mag, 99.5))
    if top <= 1e-3:
        return Region((0, 0, w, h), None, pad)
    # (a lone strong pixel is noise, not a card: opened away)
    strong = cv2.morphologyEx((mag >= REGION_EDGE * top).astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    strong = _only_where(strong, where)
    ys, xs = np.nonzero(strong)
    if len(xs) == 0:
        return Region((0, 0, w, h), None, pad)
    sx, sy = w / small.shape[1], h / small.shape[0]
    x0, y0 = max(0, int(xs.min() * sx) - pad), max(0, int(ys.min() * sy) - pad)
    x1, y1 = min(w, int(np.ceil((xs.max() + 1) * sx)) + pad), min(h, int(np.ceil((ys.max() + 1) * sy)) + pad)
    # a region nearly the whole picture saves little, and the detector reads a
    # picture shifted by a few pixels a little differently: the whole, as before
    # (whose turned canvas is cut only where that saves much: WHOLE_CUT)
    whole = (x1 - x0) * (y1 - y0) >= REGION_WHOLE * w * h
    if not hull:
        return Region((0, 0, w, h) if whole else (x0, y0, x1, y1), None, pad)
    pts = cv2.convexHull(np.stack([xs, ys], axis=1).astype(np.float32)).reshape(-1, 2).astype(np.float64)
    # each small pixel's four corners, in the picture's pixels
    corners = np.concatenate([pts + d for d in ((0, 0), (1, 0), (0, 1), (1, 1))]) * (sx, sy)
    return Region((0, 0, w, h) if whole else (x0, y0, x1, y1), corners, pad, whole)
