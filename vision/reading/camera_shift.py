"""A camera knocked out of place, noticed on the table's own markers, and the table found again.

The zones are cut out of each frame where calibration put them.  A camera
bumped on its stand, or a table pushed, moves every zone at once: cards
are then read half out of their zone or in a neighbour's, and every empty
zone's look changes (:mod:`vision.reading.laid` would ask about all of
them).  The four corner markers are found in every frame anyway (the
search for printed cards finds every marker of the dictionary:
:func:`vision.reading.printed_cards.markers_in`), so each frame says
where they lie now.  Where those in view (two or more) have moved by
:data:`SHIFT_MM` or more from where the calibration has them, for
:data:`HOLD_S` seconds of event time, the camera has moved: with three or
four in view the table's homography is found again from them at once;
with fewer, the zones are not read (their pictures would be of the wrong
place) until three show again.  A hand over a marker hides it, it does
not move it, so a passing hand never counts.

A camera whose stand sways after a knock (a card slapped down, a chair
pushed into the table) moves a little from every frame to the next and
blurs what it sees: a pair of fives read as sixes while the picture
shook was reported, and the fives again once it held still, a second play
judged out of turn (models/MODEL_CARD.md, "A camera swaying on its
stand").  Where the markers in view have moved :data:`SWAY_MM` or more
since the last frame, the camera is :attr:`CameraShift.swaying`: the
frame's zones are not read.  Still for :data:`SWAY_S` seconds, the
stand is loose: said (:meth:`CameraShift.sway_news`), and again once it
holds still.

>>> import numpy as np
>>> from vision.reading.table import TableGeometry, default_layout, marker_corners_mm
>>> geo = TableGeometry("T01", 900.0, default_layout(), homography=np.diag([2.0, 2.0, 1.0]))
>>> shift = CameraShift(geo)
>>> where = {i: c * 2 for i, c in marker_corners_mm().items()}      # where the calibration has them
>>> shift.update(0.0, where)
>>> bumped = {i: c + 24 for i, c in where.items()}                  # 12 mm right and down
>>> shift.update(0.2, bumped), shift.update(1.3, bumped).kind
(None, 'moved')
>>> np.allclose(geo.to_image([(0.0, 0.0)]), [[24.0, 24.0]])        # the table found again
True
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.reading.table import TableGeometry, marker_corners_mm

SHIFT_MM = 5.0     # markers this far from where the calibration has them: the camera (or the table) moved
SWAY_MM = 0.75     # markers this far from where they were in the last frame: the camera is swaying
SWAY_S = 5.0       # swaying in every frame for this long: said (a loose stand), until it holds still
HOLD_S = 1.0       # ... for this long (a frame's noise, a marker half hidden, say nothing)
MIN_MARKERS = 2    # markers in view that must agree before a move is believed
REFIT_MARKERS = 3  # markers in view the homography is found again from (12 corners)


@dataclass(frozen=True)
class ShiftNews:
    """What changed: ``kind`` ``"moved"`` (the table found again from the
    markers in view), ``"lost"`` (moved, too few markers in view: the zones
    are not read) or ``"found"`` (after ``lost``, found again);
    ``shift_mm``: how far the markers had moved.  Or, from
    :meth:`CameraShift.sway_news`, ``"swaying"`` (for :data:`SWAY_S`;
    ``shift_mm``: from frame to frame) or ``"steady"`` (still again)."""

    kind: str
    shift_mm: float
    markers: int

    @property
    def refitted(self) -> bool:
        """Whether the table's homography was found again (not lost, not put back)."""
        return self.kind != "lost" and self.shift_mm >= SHIFT_MM

    @property
    def reason(self) -> str:
        if self.kind == "swaying":
            return (f"the camera has not held still for {SWAY_S:g} s (its stand sways {self.shift_mm:.1f} mm from "
                    f"frame to frame: fix it firmly): its zones are not read while it moves")
        if self.kind == "steady":
            return "the camera holds still again"
        if self.kind == "lost":
            return (f"the camera moved ({self.shift_mm:.0f} mm) and only {self.markers} of the table's markers are "
                    f"in view: its zones are not read until three show (uncover them, or run guandan-ref calibrate)")
        if self.shift_mm < SHIFT_MM:      # found where the calibration has them: put back, nothing refitted
            return f"the table's markers are back where the calibration has them ({self.markers} in view)"
        return f"the camera moved ({self.shift_mm:.0f} mm): the table found again from {self.markers} markers"


class CameraShift:
    """Watches the corner markers of one calibrated table; moves the
    table's homography (in ``geo``, in place) when the camera has moved."""

    def __init__(self, geo: TableGeometry):
        if geo.homography is None:
            raise ValueError("the table geometry is not calibrated")
        self.geo = geo
        self.corners_mm = marker_corners_mm(geo.size_mm)
        self.lost = False           # moved with too few markers in view: the zones are not to be read
        self._since: float | None = None
        self.swaying = False        # the markers moved since the last frame: this frame is not to be read
        self._last: dict[int, np.ndarray] = {}       # the last frame's markers in view
        self._sway: tuple[float, float] | None = None    # (since, largest move in mm) while swaying
        self._sway_said = False

    @property
    def suspect(self) -> bool:
        """The markers in view seem moved, not yet for :data:`HOLD_S`."""
        return self._since is not None

    def update(self, t: float, found: dict[int, np.ndarray]) -> ShiftNews | None:
        """The markers found in the frame at time ``t`` (id -> their corners in
        pixels; only the table's corners, ids 0-3, count); what changed, or None."""
        seen = {i: np.asarray(c, np.float64).reshape(4, 2) for i, c in found.items() if i in self.corners_mm}
        self._swayed(t, seen)
        shift = self._shift_mm(seen) if len(seen) >= MIN_MARKERS else None
        if shift is None or shift < SHIFT_MM:
            self._since = None
            if self.lost and shift is not None:      # the markers are back where the zones are
                self.lost = False
                return ShiftNews("found", shift, len(seen))
            return None
        if self._since is None:
            self._since = t
        if t - self._since < HOLD_S - 1e-9:
            return None
        self._since = None
        if len(seen) < REFIT_MARKERS:
            if self.lost:
                return None
            self.lost = True
            return ShiftNews("lost", shift, len(seen))
        src = np.concatenate([self.corners_mm[i] for i in sorted(seen)]).astype(np.float32)
        dst = np.concatenate([seen[i] for i in sorted(seen)]).astype(np.float32)
        H, _ = cv2.findHomography(src, dst, 0)
        if H is None:
            return None
        self.geo.homography = H
        was_lost, self.lost = self.lost, False
        return ShiftNews("found" if was_lost else "moved", shift, len(seen))

    def _swayed(self, t: float, seen: dict[int, np.ndarray]) -> None:
        """:attr:`swaying`: whether the markers in view in this frame and the
        last (two or more) lie :data:`SWAY_MM` or more from where they were
        (the median over their middles, in mm on the table); and since when."""
        both = sorted(set(seen) & set(self._last))
        self.swaying = False
        if len(both) >= MIN_MARKERS:
            # each marker's middle: a change of light or exposure moves its edges
            # in or out, all four corners apart, but not its middle
            now, then = (self.geo.to_table([f[i].mean(axis=0) for i in both]) for f in (seen, self._last))
            moved = float(np.median(np.linalg.norm(now - then, axis=1)))
            self.swaying = moved >= SWAY_MM
            if self.swaying:
                since, most = self._sway or (t, 0.0)
                self._sway = (since, max(most, moved))
            else:
                self._sway = None
        self._last = seen

    def sway_news(self, t: float) -> ShiftNews | None:
        """``"swaying"`` once the camera has swayed in every frame (with two
        or more markers in view) for :data:`SWAY_S` seconds, ``"steady"`` once
        it holds still after that; None otherwise (a knock's second of
        swaying is not news: those frames are just not read)."""
        if self._sway is not None and not self._sway_said and t - self._sway[0] >= SWAY_S - 1e-9:
            self._sway_said = True
            return ShiftNews("swaying", self._sway[1], len(self._last))
        if self._sway is None and self._sway_said:
            self._sway_said = False
            return ShiftNews("steady", 0.0, len(self._last))
        return None

    def _shift_mm(self, seen: dict[int, np.ndarray]) -> float:
        """How far the markers in view lie from where the calibration has
        them, in mm on the table (the median over their corners)."""
        mm = self.geo.to_table(np.concatenate([seen[i] for i in sorted(seen)]))
        want = np.concatenate([self.corners_mm[i] for i in sorted(seen)])
        return float(np.median(np.linalg.norm(mm - want, axis=1)))
