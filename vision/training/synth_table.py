"""Whole-table camera frames: four markers, cloth, and plays in the zones.

Used by the tests and the benchmark to run the full path (calibrate,
rectify each zone, detect, track) on pictures whose truth is known.

>>> from vision.training.card_art import load_decks
>>> painter = TablePainter(SceneGenerator(load_decks(["anglo"])), np.random.default_rng(3))  # doctest: +SKIP
>>> frame, truth = painter.frame({"S-play": ["S5", "S5"]})   # doctest: +SKIP
>>> truth["S-play"].cards                                  # doctest: +SKIP
['S5', 'S5']
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.reading.table import (MARKER_MM, TABLE_MM, ZONE_MARGIN_MM, ZONE_PX, TableGeometry, Zone,
                                  default_layout, marker_centres_mm, marker_image)
from vision.training.synth import Scene, SceneGenerator, make_cloth

# The painted cloth's resolution, a little finer than the camera sees it
# (2560 x 1920 frames put the 900 mm table on ~1800 px: 2.0 px/mm).
PX_PER_MM = 2.4


class TablePainter:
    """Paints frames of one table seen by one fixed camera.

    The cloth, the camera's pose and the light are drawn once, so
    successive frames differ only in what lies in the zones, like a video.
    """

    def __init__(self, gen: SceneGenerator, rng: np.random.Generator, size_mm: float = TABLE_MM,
                 frame_size: tuple[int, int] = (2560, 1920), tilt: float = 0.06,
                 top: np.ndarray | None = None):
        """``top``: a picture of the table top to use instead of generated cloth
        (stretched over the whole table; e.g. a real wooden surface,
        :mod:`vision.training.real_surfaces`)."""
        self.gen, self.rng = gen, rng
        self.size_mm = size_mm
        n = int(round(size_mm * PX_PER_MM))
        self.top_px = n
        cloth = (make_cloth(rng, n, n, gen.cloth) if top is None else
                 cv2.resize(top, (n, n), interpolation=cv2.INTER_AREA).astype(np.float32))
        for i, (x, y) in marker_centres_mm(size_mm).items():
            m = marker_image(i, int(MARKER_MM * PX_PER_MM))
            q = int(MARKER_MM * PX_PER_MM * 0.2)    # white quiet zone around the marker
            m = cv2.copyMakeBorder(m, q, q, q, q, cv2.BORDER_CONSTANT, value=255)
            cx, cy = int(x * PX_PER_MM), int(y * PX_PER_MM)
            s = m.shape[0]
            cloth[cy - s // 2:cy - s // 2 + s, cx - s // 2:cx - s // 2 + s] = m[:, :, None] * 0.9
        self.cloth = cloth
        # the table as a flat top-down picture -> the camera picture
        w, h = frame_size
        margin = 0.06
        side = min(w, h) * (1 - 2 * margin)
        x0, y0 = (w - side) / 2, (h - side) / 2
        dst = np.float32([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]])
        dst += rng.uniform(-tilt, tilt, (4, 2)).astype(np.float32) * side
        src = np.float32([[0, 0], [n, 0], [n, n], [0, n]])
        self.top_to_frame = cv2.getPerspectiveTransform(src, dst)
        self.frame_size = frame_size
        # where the zones lie in the top-down picture (its own, exact geometry)
        self.layout = TableGeometry(table="T01", size_mm=size_mm, zones=default_layout(size_mm),
                                    homography=np.diag([PX_PER_MM, PX_PER_MM, 1.0]),
                                    image_size=(n, n))
        gx, gy = np.meshgrid(np.linspace(-1, 1, w), np.linspace(-1, 1, h))
        self.light = (rng.uniform(0.8, 1.1) * (1 + rng.uniform(-0.15, 0.15) * gx
                                              + rng.uniform(-0.15, 0.15) * gy)).astype(np.float32)
        self._laid: dict[str, tuple] = {}     # zone -> ((cards, clean), layout seed)
        self._drawn: dict[str, tuple] = {}    # zone -> (what was drawn, scene, picture, mask, box)
        self.redraw_cloth()

    def redraw_cloth(self) -> None:
        """Take in changes made to :attr:`cloth` (things laid on the table for good).

        The empty table as the camera sees it, lit, is drawn once: each frame
        starts from a copy of it.
        """
        self.empty = cv2.warpPerspective(self.cloth, self.top_to_frame, self.frame_size,
                                         flags=cv2.INTER_LINEAR, borderValue=(30, 30, 30))
        self.empty *= self.light[:, :, None]
        self._drawn = {}      # zone pictures were cut from the old cloth

    def _draw_zone(self, name: str, cards, seed: int, hand: bool, clean: bool):
        """One zone's cards warped into the camera frame: scene, picture, mask, box."""
        w, h = self.frame_size
        zone = self.layout.zone(name)
        # laid in the zone, drawn with the cloth around it: a card pushed past
        # the printed line shows there, as it would on a real table
        m = Zone.margin_px(ZONE_MARGIN_MM)
        bg = self.layout.rectify(self.cloth, zone, ZONE_MARGIN_MM)
        zw, zh = zone.pixel_size()
        rng = np.random.default_rng(seed)
        # cards are the same size everywhere: 14-19 % of a play zone's width
        scene = self.gen.render(list(cards), rng, hand=hand, clean=clean, background=bg, effects=False,
                                size=(zw, zh), card_width=rng.uniform(0.14, 0.19) * ZONE_PX[0] / zw, margin=m)
        # straight from the zone picture into the camera frame: the zone, and
        # of its margin only what was laid there (a neighbour's cards stay)
        pw, ph = zw + 2 * m, zh + 2 * m
        keep = np.zeros((ph, pw), np.float32)
        keep[m:m + zh, m:m + zw] = 1
        laid = np.abs(scene.image.astype(np.int16) - bg.astype(np.int16)).max(axis=2) > 2
        keep[cv2.dilate(laid.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0] = 1
        H = self.top_to_frame @ self.layout.zone_homography(zone, ZONE_MARGIN_MM)
        q = cv2.perspectiveTransform(np.float32([[[0, 0], [pw, 0], [pw, ph], [0, ph]]]), H)[0]
        x0, y0 = np.floor(q.min(axis=0)).astype(int).clip(0, (w, h))
        x1, y1 = np.ceil(q.max(axis=0)).astype(int).clip(0, (w, h))
        Ht = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float) @ H
        size = (int(x1 - x0), int(y1 - y0))
        warped = cv2.warpPerspective(scene.image.astype(np.float32), Ht, size, flags=cv2.INTER_AREA)
        warped *= self.light[y0:y1, x0:x1, None]
        mask = cv2.warpPerspective(keep, Ht, size)[:, :, None]
        return scene, warped, mask, (x0, y0, x1, y1)

    def frame(self, plays: dict[str, list[str] | None], hands: set[str] = frozenset(),
              clean: bool = False, noise: float = 2.0) -> tuple[np.ndarray, dict[str, Scene]]:
        """A camera frame with ``plays`` (zone name -> cards) laid in their zones.

        Zones named in ``hands`` also get a hand reaching in.  Returns the
        frame and, per zone drawn, the :class:`Scene` with its truth (its
        labels in the pixels of the zone's picture with its margin, as
        ``rectify(frame, zone, ZONE_MARGIN_MM)`` cuts it).
        """
        out = self.empty.copy()
        truth: dict[str, Scene] = {}
        for name in [n for n in self._laid if plays.get(n) is None]:
            del self._laid[name]            # taken away: laid again, they land elsewhere
        for name, cards in plays.items():
            if cards is None:
                continue
            # cards lie still until they are taken away: a zone keeps its layout
            # (and its picture) while other zones change, and a hand passing
            # over it covers the same cards
            laid = (tuple(cards), clean)
            if self._laid.get(name, (None,))[0] != laid:
                self._laid[name] = (laid, int(self.rng.integers(2 ** 63)))
            key = (self._laid[name], name in hands)
            if self._drawn.get(name, (None,))[0] != key:
                self._drawn[name] = (key, *self._draw_zone(name, cards, key[0][1], name in hands, clean))
            _, scene, warped, mask, (x0, y0, x1, y1) = self._drawn[name]
            truth[name] = scene
            roi = out[y0:y1, x0:x1]
            roi[:] = roi * (1 - mask) + warped * mask
        if noise:
            grain = np.empty_like(out)
            cv2.setRNGSeed(int(self.rng.integers(2 ** 31)))   # same seed, same frames
            cv2.randn(grain, 0.0, float(noise))     # several times faster than numpy's normal
            out += grain
        return np.clip(out, 0, 255, out=out).astype(np.uint8), truth
