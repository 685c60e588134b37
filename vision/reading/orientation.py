"""Which way the cards in a zone are turned, and the zone picture turned back upright.

The detector and the index classifier were made on cards laid within a few
degrees of the zone's axis; players push plays in at any angle.  A card's
edges are its strongest straight lines, so the angle at which a zone's
edges cluster (square-wise: long and short edges alike) says how far its
cards are turned: the picture is also read turned back by that angle
(:func:`turns`, :func:`upright`), and what is found there is mapped back
(:class:`Upright`).  Rows within :data:`TURN_FROM` degrees are read as they
are (the models handle that), so ordinary plays cost only the angle's
measurement.

>>> import cv2
>>> img = np.full((300, 400, 3), 60, np.uint8)
>>> card = cv2.boxPoints(((200, 150), (90, 130), 30)).astype(np.int32)
>>> _ = cv2.fillConvexPoly(img, card, (235, 235, 235))
>>> abs(card_tilt(img) - 30) < 2
True
"""

from __future__ import annotations

from dataclasses import dataclass

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
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    # the printed zone lines lie about the margin's inner edge (give or take the
    # camera's residual perspective): leave a band past it out too
    band = margin + int(LINE_BAND * min(gray.shape[:2])) if margin else 0
    if band:
        gray = gray[band:gray.shape[0] - band, band:gray.shape[1] - band]
    # a third of the size is plenty for card edges, and area shrinking smooths
    small = cv2.resize(gray, (max(8, gray.shape[1] // 3), max(8, gray.shape[0] // 3)),
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    gx = cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    flat = mag.ravel()
    k = int(0.9 * flat.size)
    strong = mag > max(1e-3, float(np.partition(flat, k)[k]))       # the strongest tenth
    if strong.sum() < 30:
        return 0.0
    # the gradient of an edge is square to it: a vertical edge has a horizontal gradient
    phi = (np.degrees(np.arctan2(gy[strong], gx[strong])) % 180.0)
    hist, _ = np.histogram(phi, bins=_BINS, range=(0.0, 180.0), weights=mag[strong])
    # a card's long and short edges are square to each other: smooth over a few
    # degrees (fans turn each card a little), wrapping round half a turn
    k = np.exp(-0.5 * (np.arange(-6, 7) / 2.5) ** 2)
    wrapped = np.concatenate([hist[-6:], hist, hist[:6]])
    smooth = np.convolve(wrapped, k, mode="same")[6:-6]
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
    tilt = card_tilt(image, margin)
    if abs(tilt) < turn_from:
        return []
    if abs(tilt) < AMBIGUOUS_FROM:
        return [tilt]
    return [tilt, tilt - 90.0 if tilt > 0 else tilt + 90.0]


def upright(image: np.ndarray, tilt: float) -> Upright:
    """``image`` turned by ``-tilt`` degrees (see :func:`card_tilt`), so that
    cards turned ``tilt`` stand upright.  The canvas grows to hold every
    corner of the original (so cards keep their size in pixels and nothing is
    cut off); what was outside the original is filled by replicating its edge.

    >>> u = upright(np.full((200, 300, 3), 50, np.uint8), 30.0)
    >>> u.image.shape[:2], [round(v) for v in u.point(u.image.shape[1] / 2, u.image.shape[0] / 2)]
    ((324, 360), [150, 100])
    """
    h, w = image.shape[:2]
    # clockwise as drawn (y down) is a negative angle to OpenCV
    M = cv2.getRotationMatrix2D((w / 2, h / 2), tilt, 1.0)
    cos, sin = abs(M[0, 0]), abs(M[0, 1])
    nw, nh = int(np.ceil(h * sin + w * cos)), int(np.ceil(h * cos + w * sin))
    M[0, 2] += nw / 2 - w / 2
    M[1, 2] += nh / 2 - h / 2
    turned = cv2.warpAffine(image, M, (nw, nh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return Upright(turned, cv2.invertAffineTransform(M))
