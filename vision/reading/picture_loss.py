"""A camera that shows no table, or the same picture for ever: noticed on the frames themselves.

Two faults a venue brings that the cards' reading alone cannot tell from a
quiet table:

- **Dark** (:data:`DARK`): the lens covered by a coat or a bag, the lights
  off, a capture card showing its blue "no signal" screen.  Every zone then
  looks empty, and the zones' trackers cleared every play and reported each
  again when the picture came back: a second copy of a play, judged out of
  turn.  The table's four corner markers are searched for in every frame
  anyway (:func:`vision.reading.printed_cards.markers_in`); from the first
  frame in which none of them is in view, no zone's read reaches its
  tracker, so the cards on the table stay as they were; after
  :data:`DARK_S` seconds the camera is said offline.  Arms reach over one
  or two corners, never all four for long.  Only a camera whose markers
  have been seen at least once counts: a table calibrated by hand, whose
  markers this camera never finds, is read as before.
- **Frozen** (:data:`FROZEN`): a capture card that lost its camera, an IP
  camera whose encoder hung, or a relay repeating its last frame sends the
  same picture over and over.  Every zone keeps its read and no play is
  ever reported, silently.  A live camera's sensor noise moves its pixels
  from every frame to the next, so a picture equal to the last in every
  sampled pixel for ``frozen_s`` seconds is frozen, and said so.  Only
  for live sources: a video file may well hold a still stretch.

Time is the frames' own (event time), so the rules are tested without a clock.

>>> import numpy as np
>>> loss = PictureLoss(frozen_s=2.0)
>>> frame = np.zeros((48, 64, 3), np.uint8)
>>> [loss.update(t, frame, 4) for t in (0.0, 1.0)]                # the same picture, not yet long
[[], []]
>>> [(n.kind, n.online) for n in loss.update(2.0, frame, 4)]
[('frozen', False)]
>>> [n.kind for n in loss.update(2.5, frame + 1, 4)]             # it moves again
['moving']
>>> loss.update(3.0, frame + 2, 0), loss.held                    # no marker in view: held at once ...
([], True)
>>> [n.reason[:43] for n in loss.update(3.0 + DARK_S, frame + 3, 0)]   # ... and said after DARK_S
["none of the table's markers in view for 1 s"]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

DARK = "dark"              # no table marker in view: covered, dark or no signal
FROZEN = "frozen"          # the same picture, pixel for pixel, for frozen_s
BACK = "back"              # the markers in view again after DARK
MOVING = "moving"          # the picture moves again after FROZEN
DARK_S = 1.0               # seconds with no marker in view before the camera is said offline
FROZEN_S = 15.0            # seconds of one unchanged picture before a live camera is said frozen
SAMPLE_STEP = 4            # every 4th pixel of every 4th row is compared (a 16th of the frame)


@dataclass(frozen=True)
class PictureNews:
    """What changed: ``kind`` :data:`DARK` or :data:`FROZEN` (the camera is
    offline) or :data:`BACK` / :data:`MOVING` (that ended); ``seconds``: how
    long the fault had lasted when it was said."""

    kind: str
    seconds: float

    @property
    def online(self) -> bool:
        return self.kind in (BACK, MOVING)

    @property
    def reason(self) -> str:
        if self.kind == DARK:
            return (f"none of the table's markers in view for {self.seconds:.0f} s: the camera is covered, "
                    f"dark or shows no picture; its zones are not read until the table is in view")
        if self.kind == FROZEN:
            return (f"the picture has not changed at all for {self.seconds:.0f} s: the camera or its link is "
                    f"frozen; no play can be seen until it moves")
        if self.kind == BACK:
            return f"the table is in view again (after {self.seconds:.0f} s)"
        return f"the picture moves again (after {self.seconds:.0f} s)"


class PictureLoss:
    """Watches one camera's frames for :data:`DARK` and :data:`FROZEN`.

    ``frozen_s``: seconds of an unchanged picture before it is said frozen
    (None: not checked, as for a video file); ``dark_s``: seconds with no
    table marker in view before the camera is said offline."""

    def __init__(self, frozen_s: float | None = None, dark_s: float = DARK_S):
        for name, v in (("frozen_s", frozen_s), ("dark_s", dark_s)):
            if v is not None and not (math.isfinite(v) and 0 < v <= 3600):
                raise ValueError(f"{name} must be above 0 and at most 3600 seconds, got {v!r}")
        self.frozen_s, self.dark_s = frozen_s, dark_s
        self.dark = False            # said offline for DARK
        self.frozen = False          # said offline for FROZEN
        self._seen_table = False     # markers seen once: DARK counts from then on
        self._none_in_view = False   # this frame shows no marker (held, said or not)
        self._dark_since: float | None = None
        self._still_since: float | None = None     # when the unchanged picture first showed
        self._last: np.ndarray | None = None       # the last frame's sample
        self._last_t: float | None = None

    @property
    def held(self) -> bool:
        """Whether this frame's reads must not reach the zones' trackers:
        no marker in view (said or not yet), or the picture frozen."""
        return self._none_in_view or self.frozen

    @property
    def offline(self) -> bool:
        """Whether the camera has been said offline and not yet back."""
        return self.dark or self.frozen

    def restart(self) -> None:
        """The source was opened again (and said online): what was said is
        forgotten, so a fault that lasts is said again; the markers once seen
        stay seen."""
        self.dark = self.frozen = False
        self._dark_since = self._still_since = self._last = self._last_t = None

    def update(self, t: float, frame: np.ndarray, corner_markers: int) -> list[PictureNews]:
        """The frame at time ``t`` with ``corner_markers`` of the table's
        corner markers in view: what changed (mostly nothing)."""
        news = [n for n in (self._markers(t, corner_markers), self._still(t, frame)) if n is not None]
        self._last_t = t
        return news

    def _markers(self, t: float, n: int) -> PictureNews | None:
        self._none_in_view = self._seen_table and n == 0
        if n > 0:
            self._seen_table = True
            since, self._dark_since = self._dark_since, None
            if self.dark:
                self.dark = False
                return PictureNews(BACK, t - (since if since is not None else t))
            return None
        if not self._seen_table:
            return None
        if self._dark_since is None:
            self._dark_since = t
        if not self.dark and t - self._dark_since >= self.dark_s - 1e-9:
            self.dark = True
            return PictureNews(DARK, t - self._dark_since)
        return None

    def _still(self, t: float, frame: np.ndarray) -> PictureNews | None:
        if self.frozen_s is None:
            return None
        sample = np.ascontiguousarray(frame[::SAMPLE_STEP, ::SAMPLE_STEP])
        last, self._last = self._last, sample
        if last is None or last.shape != sample.shape or not np.array_equal(last, sample):
            since, self._still_since = self._still_since, None
            if self.frozen:
                self.frozen = False
                return PictureNews(MOVING, t - (since if since is not None else t))
            return None
        if self._still_since is None:       # the first repeat: still since the frame before
            self._still_since = self._last_t if self._last_t is not None else t
        if not self.frozen and t - self._still_since >= self.frozen_s - 1e-9:
            self.frozen = True
            return PictureNews(FROZEN, t - self._still_since)
        return None
