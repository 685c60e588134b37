"""A picture gone soft: a webcam refocusing, noticed on the table's own markers.

A webcam left on autofocus refocuses when a hand passes under it, and for
a moment its picture is soft, just when a play laid has to be read.  On
real card faces a blur of one pixel at the zones' scale (half a
millimetre) already loses 3 cards in 100, of two pixels a third of them,
and reads jokers where none lie (models/MODEL_CARD.md, "A picture gone
soft").  The table's four corner markers are found in every frame anyway
(:func:`vision.reading.printed_cards.markers_in`) and print hard black and
white edges, so how sharp their edges are says how sharp the frame is:
each marker's strongest edges over its contrast (:func:`sharpness`; a
change of light or exposure scales both).  A frame whose markers are
:data:`SOFT_SHARE` or less as sharp as the frames before it have been
(:data:`HISTORY` frames, their :data:`USUAL` quantile) is soft: it is not
read (:attr:`MarkerFocus.soft`), nor counted in the usual.  Soft in
every frame for :data:`SOFT_S` seconds (a lens out of focus or misted, a
camera focused on something else) is no moment's refocusing: it is said
(:meth:`MarkerFocus.news`), the frames are read as they are from then on
(the usual starts again from them: a table is never left unread for
longer), and it is said again once the markers are about as sharp as
before.  A camera whose markers were never very sharp keeps its own
measure: only a frame softer than its own usual is held.

Time is the frames' own (event time), so the rules are tested without a clock.

>>> import cv2, numpy as np
>>> frame = np.full((200, 300, 3), 200, np.uint8)
>>> frame[50:130, 60:140] = 20                                    # a marker's black square
>>> corners = [(0, np.array([[60, 50], [139, 50], [139, 129], [60, 129]], float))]
>>> focus = MarkerFocus()
>>> [focus.update(k * 0.1, frame, corners) for k in range(HISTORY)][-1]
False
>>> focus.update(3.0, cv2.GaussianBlur(frame, (0, 0), 2.5), corners), focus.update(3.1, frame, corners)
(True, False)
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

from vision.reading.table import marker_centres_mm

SOFT_SHARE = 0.7    # a frame whose markers are this sharp or less, of their usual, is soft
HISTORY = 30        # the frames before it whose sharpness is the usual (3 s at 10 frames a second)
USUAL = 0.75        # ... their quantile (a few soft frames among them do not lower it)
LEAST_SEEN = 5      # frames measured before any is judged
SOFT_S = 5.0        # soft in every frame for this long: said, and read as it is
SHARP_AGAIN = 0.9   # after that, markers this sharp of their usual before: said sharp again
# the table's corner markers (the printed cards' markers lie under hands)
TABLE_MARKERS = frozenset(marker_centres_mm())


def sharpness(gray: np.ndarray, corners: np.ndarray) -> float | None:
    """How sharp a marker's edges are in a frame (grey or BGR): the strongest
    gradients round its square (their 98th percentile, Sobel) over the
    square's contrast (its 95th less its 5th percentile of grey), about 4
    for a hard step, less the softer the edge; None where the square lies
    out of the frame or shows no contrast.

    >>> sq = np.full((60, 60), 200, np.uint8); sq[15:45, 15:45] = 20
    >>> at = np.array([[15, 15], [44, 15], [44, 44], [15, 44]], float)
    >>> sharp, soft = sharpness(sq, at), sharpness(cv2.GaussianBlur(sq, (0, 0), 2.0), at)
    >>> sharp > 3 > 2 > soft, sharpness(np.full((60, 60), 90, np.uint8), at)
    (True, None)
    """
    x0, y0 = np.floor(corners.min(axis=0)).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
    pad = max(4, (x1 - x0) // 5)            # the white round the black square, where the edges lie
    x0, y0, x1, y1 = max(0, x0 - pad), max(0, y0 - pad), min(gray.shape[1], x1 + pad), min(gray.shape[0], y1 + pad)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    box = gray[y0:y1, x0:x1]
    # (only the marker's box turned grey: a whole 4K frame costs a few ms)
    box = (cv2.cvtColor(box, cv2.COLOR_BGR2GRAY) if box.ndim == 3 else box).astype(np.float32)
    lo, hi = np.percentile(box, (5, 95))
    if hi - lo < 20:
        return None
    gx, gy = cv2.Sobel(box, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(box, cv2.CV_32F, 0, 1, ksize=3)
    return float(np.percentile(np.hypot(gx, gy), 98) / (hi - lo))


@dataclass(frozen=True)
class FocusNews:
    """``soft`` True: the picture has been soft for :data:`SOFT_S` (read as it
    is from then on); False: sharp again.  ``share``: the markers'
    sharpness, of their usual before, when it was said."""

    soft: bool
    share: float

    @property
    def reason(self) -> str:
        if self.soft:
            return (f"the picture has been soft for {SOFT_S:g} s (its markers {self.share:.0%} as sharp as "
                    f"before: out of focus, or the lens misted): read as it is; focus the camera by hand")
        return "the picture is sharp again"


class MarkerFocus:
    """Watches how sharp one camera's table markers are, frame by frame."""

    def __init__(self) -> None:
        self.soft = False          # this frame is soft: not to be read
        self._usual: deque[float] = deque(maxlen=HISTORY)
        self._since: float | None = None     # soft since
        self._before = 0.0         # the usual when the picture went soft for long (0: it has not)
        self._news: FocusNews | None = None

    def update(self, t: float, frame: np.ndarray, markers: list[tuple[int, np.ndarray]]) -> bool:
        """The frame at time ``t`` and its markers (id, corners in its pixels);
        whether it is soft (also :attr:`soft`).  A frame with no table
        marker measured is not judged (a hand over them, the picture lost)."""
        each = [s for i, c in markers if i in TABLE_MARKERS
                for s in [sharpness(frame, np.asarray(c, np.float64).reshape(4, 2))] if s is not None]
        self.soft = False
        if not each:
            return False
        now = float(np.median(each))
        if len(self._usual) >= LEAST_SEEN:
            usual = float(np.quantile(self._usual, USUAL))
            self.soft = now <= SOFT_SHARE * usual
            if self.soft and self._since is None:
                self._since = t
            if self.soft and t - self._since >= SOFT_S - 1e-9:
                # soft for long: said, and read as it is from now on
                self._news, self._before = FocusNews(True, now / usual), usual
                self._usual.clear()
                self._since, self.soft = None, False
        if not self.soft:
            self._since = None
            if self._before and now >= SHARP_AGAIN * self._before:
                self._news, self._before = FocusNews(False, now / self._before), 0.0
            self._usual.append(now)
        return self.soft

    def news(self) -> FocusNews | None:
        """What the last frame changed, once: the picture soft for
        :data:`SOFT_S` seconds, or sharp again after that; else None."""
        said, self._news = self._news, None
        return said
