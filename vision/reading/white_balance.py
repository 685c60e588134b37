"""The light's colour, measured on the table's own markers' white paper, taken out of each zone picture.

A venue's lamps are rarely white: tungsten or warm LED light turns white
card stock orange, a cold lamp blue.  The reader learnt casts of up to 8 %
on a channel (:mod:`vision.training.synth`); under a tungsten-like cast
(red x1.15, blue x0.75) it read 10 of 23 joker bombs laid on real table
tops, whose corners tell the big joker from the little one by colour
alone, against 30 of 31 as shot (models/MODEL_CARD.md, "The light's
colour from the markers").  The four calibration markers are printed on
white paper, so the table carries its own white reference: each frame,
the paper inside and around each marker is found (its brighter side, past
Otsu's threshold) and its colour is the light's.  Where the cast is larger
than the reader learnt (:data:`LEARNT`), each zone picture is divided by
it before it is read (von Kries: one gain a channel), keeping its
brightness.  A marker covered by a hand or a sleeve is left out (its
patch is not black-and-white paper); with none left, the last cast
measured stays.

>>> from vision.reading.table import calibrate, marker_image
>>> frame = np.full((1000, 1000, 3), (70, 110, 60), np.uint8)   # green cloth, 1 px/mm
>>> for i, (x, y) in marker_centres_mm().items():
...     x, y = int(x) + 50, int(y) + 50
...     frame[y - 40:y + 40, x - 40:x + 40] = 200                  # the sheet's paper
...     frame[y - 30:y + 30, x - 30:x + 30] = marker_image(i, 60)[..., None] * (200 / 255)
>>> white = MarkerWhite(calibrate(frame))
>>> white.measure(frame) is None                      # white light: nothing to take out
True
>>> warm = np.clip(frame * np.float32([0.75, 0.95, 1.15]), 0, 255).astype(np.uint8)
>>> [round(float(g), 2) for g in white.measure(warm)]
[1.27, 1.0, 0.83]
>>> white.measure(np.clip(frame * np.float32([0.97, 1.0, 1.05]), 0, 255).astype(np.uint8)) is None   # within what it learnt
True
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.reading.table import MARKER_MM, TableGeometry, marker_centres_mm

LEARNT = 0.08       # the reader was trained on casts up to this much off on a channel (synth: 0.92-1.08)
PATCH_MM = MARKER_MM + 10.0   # the square looked at round each marker's centre: the marker and 5 mm of its paper
PATCH_PX = 56       # that square's side in the patch (0.8 px/mm: a marker's cell is 8 px)
CONTRAST = 2.5      # a marker's paper is at least this many times brighter than its ink (else: covered)
MOST_GAIN = 1.6     # a cast needing more than this on a channel is no lamp's (a coloured sleeve on a marker)


class MarkerWhite:
    """The light's colour from the markers of one calibrated table, and the
    zone pictures corrected for it (:meth:`correct`)."""

    def __init__(self, geo: TableGeometry):
        if geo.homography is None:
            raise ValueError("the table geometry is not calibrated")
        # each patch's pixels -> table mm; to the frame through the table's homography
        # as it is at each frame (vision.reading.camera_shift may find it again)
        self.geo = geo
        half = PATCH_MM / 2
        src = np.float32([[0, 0], [PATCH_PX, 0], [PATCH_PX, PATCH_PX], [0, PATCH_PX]])
        self._to_mm = [cv2.getPerspectiveTransform(src, np.float32([[x - half, y - half], [x + half, y - half],
                                                                    [x + half, y + half], [x - half, y + half]]))
                       for x, y in marker_centres_mm(geo.size_mm).values()]
        self.gains: np.ndarray | None = None     # the last cast measured past LEARNT (None: none)

    def measure(self, frame: np.ndarray) -> np.ndarray | None:
        """Blue, green and red gains that take this frame's cast out (the
        paper made grey at its mean brightness), or None where the light is as white as
        the reader learnt, or no marker shows its paper."""
        return self.check(frame)[1]

    def check(self, frame: np.ndarray) -> tuple[int, np.ndarray | None]:
        """How many markers show their paper's colour in ``frame`` (0: covered
        or burnt out, so no lamp's colour can be measured), and the gains
        :meth:`measure` gives (None: none to take out)."""
        whites = self._whites(frame)
        return len(whites), (_gains(whites) if whites else None)

    def update(self, frame: np.ndarray) -> np.ndarray | None:
        """:meth:`measure` this frame and keep its cast (:attr:`gains`);
        where no marker shows its paper (all covered), the last one stays."""
        whites = self._whites(frame)
        if whites:
            # (once taking a tint out, it goes on down to 3/4 of LEARNT: a tint
            # near the line would otherwise flicker in and out frame to frame)
            self.gains = _gains(whites, LEARNT * (0.75 if self.gains is not None else 1.0))
        return self.gains

    def _whites(self, frame: np.ndarray) -> list[np.ndarray]:
        """The paper's colour (B, G, R) at each marker that shows it."""
        whites = []
        for to_mm in self._to_mm:
            patch = cv2.warpPerspective(frame, self.geo.homography @ to_mm, (PATCH_PX, PATCH_PX),
                                        flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
            grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
            level, _ = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
            paper, ink = grey > level, grey <= level
            # a marker is black cells on white paper: both sides large, far apart
            if paper.mean() < 0.25 or ink.mean() < 0.15:
                continue
            bright = float(np.median(grey[paper]))
            colour = np.median(patch[paper].astype(np.float32), axis=0)
            if bright < 40 or bright < CONTRAST * max(1.0, float(np.median(grey[ink]))) or colour.max() >= 250:
                continue    # covered, too dark to say, or a channel clipped (the paper's colour lost)
            whites.append(colour)
        return whites

    def correct(self, picture: np.ndarray) -> np.ndarray:
        """``picture`` with the kept cast taken out (itself where there is none)."""
        if self.gains is None:
            return picture
        return cv2.transform(picture, np.diag(self.gains))


def _gains(whites: list[np.ndarray], learnt: float = LEARNT) -> np.ndarray | None:
    """The gains that make the markers' paper (their median) grey, or None
    where it is within ``learnt`` of grey already or past :data:`MOST_GAIN`."""
    white = np.median(np.array(whites), axis=0)
    gains = white.mean() / np.maximum(white, 1.0)
    if float(np.abs(gains - 1.0).max()) <= learnt or float(gains.max()) > MOST_GAIN:
        return None
    return gains.astype(np.float32)
