"""Whole-table camera frames: four markers, cloth, and plays in the zones.

Used by the tests and the benchmark to run the full path (calibrate,
rectify each zone, detect, track) on pictures whose truth is known.

>>> from vision.card_art import load_decks
>>> painter = TablePainter(SceneGenerator(load_decks(["anglo"])), np.random.default_rng(3))  # doctest: +SKIP
>>> frame, truth = painter.frame({"S-play": ["S5", "S5"]})   # doctest: +SKIP
>>> truth["S-play"].cards                                  # doctest: +SKIP
['S5', 'S5']
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.synth import Scene, SceneGenerator, make_cloth
from vision.table import (MARKER_MM, TABLE_MM, TableGeometry, default_layout, marker_centres_mm,
                          marker_image)

PX_PER_MM = 1.2


class TablePainter:
    """Paints frames of one table seen by one fixed camera.

    The cloth, the camera's pose and the light are drawn once, so
    successive frames differ only in what lies in the zones, like a video.
    """

    def __init__(self, gen: SceneGenerator, rng: np.random.Generator, size_mm: float = TABLE_MM,
                 frame_size: tuple[int, int] = (1280, 960), tilt: float = 0.06):
        self.gen, self.rng = gen, rng
        self.size_mm = size_mm
        n = int(round(size_mm * PX_PER_MM))
        self.top_px = n
        cloth = make_cloth(rng, n, n, gen.cloth)
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

    def frame(self, plays: dict[str, list[str] | None], hands: set[str] = frozenset(),
              clean: bool = False, noise: float = 2.0) -> tuple[np.ndarray, dict[str, Scene]]:
        """A camera frame with ``plays`` (zone name -> cards) laid in their zones.

        Zones named in ``hands`` also get a hand reaching in.  Returns the
        frame and, per zone drawn, the :class:`Scene` with its truth.
        """
        top = self.cloth.copy()
        truth: dict[str, Scene] = {}
        for name, cards in plays.items():
            if cards is None:
                continue
            zone = self.layout.zone(name)
            bg = self.layout.rectify(top, zone)
            zw, zh = zone.pixel_size()
            # cards are the same size everywhere: ~45-60 px wide in a zone picture
            scene = self.gen.render(list(cards), self.rng, hand=name in hands, clean=clean,
                                    background=bg, effects=False, size=(zw, zh),
                                    card_width=self.rng.uniform(45, 60) / zw)
            truth[name] = scene
            H = self.layout.zone_homography(zone)
            warped = cv2.warpPerspective(scene.image.astype(np.float32), H, (self.top_px, self.top_px))
            mask = cv2.warpPerspective(np.ones((zh, zw), np.float32), H, (self.top_px, self.top_px))
            top = top * (1 - mask[:, :, None]) + warped * mask[:, :, None]
        w, h = self.frame_size
        out = cv2.warpPerspective(top, self.top_to_frame, (w, h), flags=cv2.INTER_AREA,
                                  borderValue=(30, 30, 30))
        out = out * self.light[:, :, None]
        if noise:
            out = out + self.rng.normal(0, noise, out.shape).astype(np.float32)
        return np.clip(out, 0, 255).astype(np.uint8), truth
