"""A zone picture's look, and where it changed: what the empty-look checks and the reader share.

The look (:func:`look_of`) is a zone picture small, as the logarithm of its
grey and that logarithm's texture: a change of light changes neither much,
a card laid changes both (:func:`changed`). The table watcher remembers each
play zone's look while it lies empty (:class:`vision.reading.laid.EmptyLook`);
the reader looks for cards where the zone changed since (:func:`laid_where`).
"""

from __future__ import annotations

import cv2
import numpy as np

SCALE = 4            # the look is a quarter of the zone picture's size (about 0.5 px/mm)
OFFSET = 2.0         # grey levels added before the logarithm (the darkest pixels' noise)
CHANGE = 0.12        # a change of the log grey level, its median change taken off, that counts
TEXTURE = 0.05       # a change of the texture (log grey's step per pixel at half size) that counts


def look_of(picture: np.ndarray, margin: int = 0) -> np.ndarray:
    """The zone's look: its inside (the ``margin`` round it left out: a
    neighbour's cards may lie there) at 1/:data:`SCALE` size, two layers:
    the logarithm of its grey, and how much that changes from pixel to pixel
    at twice that size (its texture: a card's print or pattern, the grain
    it covers), each softened a little (a camera's grain).

    >>> look_of(np.full((448, 640, 3), 90, np.uint8), 32).shape
    (96, 144, 2)
    """
    h, w = picture.shape[:2]
    inner = picture[margin:h - margin, margin:w - margin] if margin > 0 else picture
    grey = cv2.cvtColor(inner, cv2.COLOR_BGR2GRAY) if inner.ndim == 3 else inner
    gh, gw = grey.shape[:2]
    half = np.log(cv2.resize(grey, (max(16, gw * 2 // SCALE), max(16, gh * 2 // SCALE)),
                             interpolation=cv2.INTER_AREA).astype(np.float32) + OFFSET)
    # (a 3x3 Sobel weighs a step 8 times: per pixel)
    texture = cv2.magnitude(cv2.Sobel(half, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(half, cv2.CV_32F, 0, 1, ksize=3)) / 8
    size = (max(8, gw // SCALE), max(8, gh // SCALE))
    layers = [cv2.GaussianBlur(cv2.resize(v, size, interpolation=cv2.INTER_AREA), (0, 0), 1.0) for v in (half, texture)]
    return np.dstack(layers)


def changed(empty: np.ndarray, now: np.ndarray) -> np.ndarray:
    """Where ``now`` differs from ``empty`` (two looks, :func:`look_of`): its
    log grey by :data:`CHANGE` or more, the change of the whole (the
    light's) taken off, or its texture by :data:`TEXTURE` or more; as
    closed patches.

    >>> a = np.zeros((112, 160, 2), np.float32); b = a.copy(); b[..., 0] -= 0.5; b[40:80, 60:90, 0] += 1.0
    >>> m = changed(a, b); bool(m[60, 75]), bool(m[10, 10])
    (True, False)
    >>> b = a.copy(); b[40:80, 60:90, 1] = 0.2          # a pattern as bright as the cloth
    >>> bool(changed(a, b)[60, 75])
    True
    """
    diff = now[..., 0] - empty[..., 0]
    diff -= np.median(diff)
    return patches((np.abs(diff) >= CHANGE) | retextured(empty, now, False))


def retextured(empty: np.ndarray, now: np.ndarray, closed: bool = True) -> np.ndarray:
    """Where ``now``'s texture differs from ``empty``'s by :data:`TEXTURE`
    or more (as closed patches, ``closed``): a card's print or edges, or
    the grain it covers.  A shadow changes the grey, hardly the texture
    (the look is a logarithm): only along its edges.

    >>> a = np.zeros((112, 160, 2), np.float32); b = a.copy(); b[..., 0] -= 0.5
    >>> bool(retextured(a, b).any()), bool(changed(a, b).any())
    (False, False)
    """
    mask = np.abs(now[..., 1] - empty[..., 1]) >= TEXTURE
    return patches(mask) if closed else mask


def patches(mask: np.ndarray) -> np.ndarray:
    """``mask`` closed (gaps of a few pixels bridged) and opened (specks dropped)."""
    closed = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    return cv2.morphologyEx(closed, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)) > 0


LAID_PAD = 3          # look pixels (12 zone pixels) round what changed: a card's edge on the line
LAID_MOST = 0.85     # changed over this share of the picture: the light or the view changed, not cards


def laid_where(empty_picture: np.ndarray, picture: np.ndarray) -> np.ndarray | None:
    """Where ``picture`` shows something laid since its zone lay empty as
    ``empty_picture`` (the same zone, the same size, its cloth round it): a
    mask at the look's size (:func:`look_of`, the whole picture), a little
    wider than what changed. The reader looks for cards' edges only there
    (:func:`vision.reading.orientation.cards_hull`, :func:`vision.reading.orientation.turn_angles`):
    a wooden board's grain or a patterned cloth is the same in both. None
    where it cannot say: other sizes, nothing changed, or nearly everything
    (a lamp switched, the camera moved).

    >>> empty = np.full((448, 640, 3), 90, np.uint8); now = empty.copy(); now[150:300, 250:360] = 230
    >>> m = laid_where(empty, now); m.shape, bool(m[56, 75]), bool(m[10, 10])
    ((112, 160), True, False)
    >>> laid_where(empty, empty) is None, laid_where(empty, np.full_like(empty, 230)) is None
    (True, True)
    """
    if empty_picture.shape != picture.shape:
        return None
    mask = changed(look_of(empty_picture), look_of(picture))
    share = float(mask.mean())
    if share == 0.0 or share > LAID_MOST:
        return None
    return cv2.dilate(mask.astype(np.uint8), np.ones((2 * LAID_PAD + 1, 2 * LAID_PAD + 1), np.uint8)) > 0
