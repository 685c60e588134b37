"""Table geometry: where the zones are, found from four printed ArUco markers.

What to print and where (``guandan-ref calibrate --print-markers FILE.pdf``
writes the sheet): four ArUco markers from OpenCV's ``DICT_4X4_50``
dictionary, ids 0-3, each :data:`MARKER_MM` mm square, laid flat on the
cloth with their centres :data:`MARKER_INSET_MM` mm in from the table's
corners:

- id 0 at the corner between W and N (top-left as the camera sees the table
  with S at the bottom), id 1 between N and E, id 2 between E and S,
  id 3 between S and W.

Table coordinates are millimetres from the table's top-left corner, x to the
right (towards E), y down (towards S).  Each seat has a play zone and a
reminder zone in front of it (:func:`default_layout`); a zone's corners run
top-left, top-right, bottom-right, bottom-left *as its player sees it*, so a
rectified zone shows that player's cards upright and left to right.

>>> geo = TableGeometry(table="T01", size_mm=900.0, zones=default_layout(900.0))
>>> [z.name for z in geo.zones][:3]
['S-play', 'S-reminder', 'E-play']
>>> geo.zone("S-play").corners_mm[0]
(300.0, 600.0)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from referee.events import SEATS
from storage.files import write_whole

MARKER_DICT = cv2.aruco.DICT_4X4_50
MARKER_MM = 60.0
MARKER_INSET_MM = 45.0
TABLE_MM = 900.0
# Zone pictures are rectified to this many pixels: 640 px over a 300 mm play
# zone (2.1 px/mm) makes a card ~130 px wide and its corner index ~40 px
# tall, enough to tell a spade from a club through blur and JPEG.  The
# camera must see the cloth that finely (a 4K camera over a 900 mm table
# gives 2.4 px/mm); at 1 px/mm an index is ~20 px tall and about one in ten
# is unreadable.  The detector shrinks the picture to its own input (320 px)
# to find the indices; the classifier names each from the full picture.
ZONE_PX = (640, 448)
PLAY_ZONE_MM = (300.0, 210.0)
REMINDER_ZONE_MM = (140.0, 98.0)
# Zones are read with this much cloth around them: a card pushed a little
# past the printed line (a row laid at a slant, the end of a long fan) still
# shows its index, which the zone's own picture cuts off.  Less than the
# 20 mm between a play zone and its reminder zone; a card whose centre lies
# outside the zone proper belongs to a neighbour and is not counted
# (vision.reading.detector.CardDetector.read_zones).
ZONE_MARGIN_MM = 15.0
# Camera pixels per cloth millimetre below which calibration warns: the
# zones want 2 (ZONE_PX), the generated tables' far zones are seen at 1.8
# and read 99 % of plays; on real cards 1.5 loses 2-5 cards in 100 and 1.0
# 5-9 (models/MODEL_CARD.md, "What a coarser or tilted camera costs on real cards")
MIN_PX_PER_MM = 1.5


class GeometryError(ValueError):
    """Bad or unreadable geometry, or markers not found (message says which)."""


@dataclass(frozen=True)
class Zone:
    """One zone on the cloth: seat, kind (``play`` or ``reminder``), corners in mm."""

    seat: str
    kind: str
    corners_mm: tuple[tuple[float, float], ...]

    @property
    def name(self) -> str:
        return f"{self.seat}-{self.kind}"

    @staticmethod
    def margin_px(margin_mm: float) -> int:
        """A margin in the zone pictures' pixels (every zone is rectified at one scale).

        >>> Zone.margin_px(ZONE_MARGIN_MM)
        32
        """
        return int(round(margin_mm * ZONE_PX[0] / PLAY_ZONE_MM[0]))

    def pixel_size(self) -> tuple[int, int]:
        """The rectified picture's size: play zones at :data:`ZONE_PX`, others in scale."""
        if self.kind == "play":
            return ZONE_PX
        c = np.array(self.corners_mm)
        scale = ZONE_PX[0] / PLAY_ZONE_MM[0]
        return (int(round(np.linalg.norm(c[1] - c[0]) * scale)),
                int(round(np.linalg.norm(c[3] - c[0]) * scale)))


def _rotate_about_centre(points, quarter_turns: int, size: float):
    """Turn table points by quarter turns about the table centre (counter-clockwise on screen)."""
    out = []
    for x, y in points:
        for _ in range(quarter_turns % 4):
            x, y = y, size - x
        out.append((round(x, 3), round(y, 3)))
    return tuple(out)


def default_layout(size_mm: float = TABLE_MM) -> list[Zone]:
    """A play zone and a reminder zone in front of each seat.

    Seat S sits at the bottom edge; its play zone lies between it and the
    table's centre, its reminder zone to its right.  The other seats get
    the same zones turned about the centre (E: a quarter turn, N: a half, W:
    three quarters), so every zone reads from its own player's side.
    """
    c = size_mm / 2
    pw, ph = PLAY_ZONE_MM
    top = c + pw / 2        # the four play zones meet at their corners, never overlap
    play = ((c - pw / 2, top), (c + pw / 2, top), (c + pw / 2, top + ph), (c - pw / 2, top + ph))
    rw, rh = REMINDER_ZONE_MM
    rx, ry = c + pw / 2 + 20.0, top + ph - rh
    reminder = ((rx, ry), (rx + rw, ry), (rx + rw, ry + rh), (rx, ry + rh))
    zones = []
    # quarter turns that bring seat S's zones to each seat (turning "S at the
    # bottom" to "E at the right" is one counter-clockwise turn as seen on screen)
    for seat, turns in (("S", 0), ("E", 1), ("N", 2), ("W", 3)):
        zones.append(Zone(seat, "play", _rotate_about_centre(play, turns, size_mm)))
        zones.append(Zone(seat, "reminder", _rotate_about_centre(reminder, turns, size_mm)))
    return zones


def marker_centres_mm(size_mm: float = TABLE_MM) -> dict[int, tuple[float, float]]:
    """Where each marker's centre lies on the table."""
    a, b = MARKER_INSET_MM, size_mm - MARKER_INSET_MM
    return {0: (a, a), 1: (b, a), 2: (b, b), 3: (a, b)}


def marker_corners_mm(size_mm: float = TABLE_MM) -> dict[int, np.ndarray]:
    """The four corners of each marker (in OpenCV's order: TL, TR, BR, BL), in mm."""
    h = MARKER_MM / 2
    return {i: np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]], np.float32)
            for i, (x, y) in marker_centres_mm(size_mm).items()}


@dataclass
class TableGeometry:
    """The table's zones and, once calibrated, the camera's view of it.

    ``homography`` maps table millimetres to camera pixels.
    """

    table: str
    size_mm: float
    zones: list[Zone]
    homography: np.ndarray | None = None
    image_size: tuple[int, int] | None = None

    def zone(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        raise GeometryError(f"no zone named {name!r} (have: {', '.join(z.name for z in self.zones)})")

    # -- camera --------------------------------------------------------------
    def zone_homography(self, zone: Zone, margin_mm: float = 0.0) -> np.ndarray:
        """Maps the rectified zone picture's pixels to camera pixels (with
        ``margin_mm``: the picture of the zone and that much around it)."""
        if self.homography is None:
            raise GeometryError("table geometry is not calibrated (run guandan-ref calibrate)")
        w, h = zone.pixel_size()
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        to_mm = cv2.getPerspectiveTransform(src, np.float32(zone.corners_mm))
        m = zone.margin_px(margin_mm)
        shift = np.array([[1, 0, -m], [0, 1, -m], [0, 0, 1]], float)   # picture pixel -> zone pixel
        return self.homography @ to_mm @ shift

    def rectify(self, frame: np.ndarray, zone: Zone, margin_mm: float = 0.0) -> np.ndarray:
        """The zone as its player sees it, upright, at :meth:`Zone.pixel_size`;
        with ``margin_mm``, that much of the cloth around it too (the picture
        grows by :meth:`Zone.margin_px` on every side, at the same scale)."""
        H = self.zone_homography(zone, margin_mm)
        w, h = zone.pixel_size()
        m = zone.margin_px(margin_mm)
        return cv2.warpPerspective(frame, H, (w + 2 * m, h + 2 * m),
                                   flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)

    def px_per_mm(self) -> float:
        """How finely the camera sees the play zones: camera pixels per cloth
        millimetre, the coarsest over the play zones (calibration warns below
        :data:`MIN_PX_PER_MM`).

        >>> geo = TableGeometry("T01", 900.0, default_layout(), homography=np.diag([2.4, 2.4, 1.0]))
        >>> round(geo.px_per_mm(), 2)
        2.4
        """
        if self.homography is None:
            raise GeometryError("table geometry is not calibrated (run guandan-ref calibrate)")
        scales = []
        for z in self.zones:
            if z.kind == "play":
                mm = np.float32(z.corners_mm)
                px = self.to_image(mm)
                scales.append(math.sqrt(abs(cv2.contourArea(px)) / abs(cv2.contourArea(mm))))
        return min(scales)

    def to_image(self, points_mm) -> np.ndarray:
        pts = np.float32(points_mm).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    def to_table(self, points_px) -> np.ndarray:
        """Frame pixels -> table mm (:meth:`to_image` the other way), in double precision.

        >>> geo = TableGeometry("T01", 900.0, default_layout(), homography=np.diag([2.0, 2.0, 1.0]))
        >>> geo.to_table([(100.0, 50.0), (2.0, 4.0)]).tolist()
        [[50.0, 25.0], [1.0, 2.0]]
        """
        pts = np.asarray(points_px, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)

    # -- files ---------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "table": self.table, "size_mm": self.size_mm,
            "markers": {"dictionary": "DICT_4X4_50", "size_mm": MARKER_MM,
                        "centres_mm": {str(k): v for k, v in marker_centres_mm(self.size_mm).items()}},
            "zones": [{"seat": z.seat, "kind": z.kind, "corners_mm": [list(p) for p in z.corners_mm]}
                      for z in self.zones],
            "camera": None if self.homography is None else {
                "homography_mm_to_px": self.homography.tolist(), "image_size": list(self.image_size)},
        }

    def save(self, path: str | Path) -> None:
        write_whole(path, json.dumps(self.to_dict(), indent=1) + "\n")     # a node reads it at every start

    @classmethod
    def from_dict(cls, d: dict) -> "TableGeometry":
        try:
            zones = []
            for z in d["zones"]:
                if z["seat"] not in SEATS:
                    raise GeometryError(f"zone with bad seat {z['seat']!r}")
                corners = tuple((float(x), float(y)) for x, y in z["corners_mm"])
                if len(corners) != 4:
                    raise GeometryError(f"zone {z['seat']}-{z['kind']} needs 4 corners")
                zones.append(Zone(z["seat"], str(z["kind"]), corners))
            cam = d.get("camera")
            H = None if not cam else np.array(cam["homography_mm_to_px"], float).reshape(3, 3)
            size = None if not cam else tuple(int(v) for v in cam["image_size"])
            return cls(table=str(d.get("table", "T01")), size_mm=float(d["size_mm"]), zones=zones,
                       homography=H, image_size=size)
        except GeometryError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise GeometryError(f"malformed table geometry: {exc!r}") from None

    @classmethod
    def load(cls, path: str | Path) -> "TableGeometry":
        p = Path(path)
        try:
            d = json.loads(p.read_text())
        except FileNotFoundError:
            raise GeometryError(f"table geometry file not found: {p}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise GeometryError(f"table geometry file {p} is not JSON: {exc}") from None
        return cls.from_dict(d)


def find_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """ArUco markers 0-3 found in a picture: id -> 4 corner points in pixels."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(MARKER_DICT),
                                  cv2.aruco.DetectorParameters())
    corners, ids, _ = det.detectMarkers(gray)
    found = {}
    if ids is not None:
        for c, i in zip(corners, ids.reshape(-1)):
            if 0 <= int(i) <= 3:
                found[int(i)] = c.reshape(4, 2)
    return found


def calibrate(image: np.ndarray, table: str = "T01", size_mm: float = TABLE_MM,
              zones: list[Zone] | None = None) -> TableGeometry:
    """Find the four markers and compute the table-to-camera homography."""
    if not isinstance(image, np.ndarray) or image.size == 0:
        raise GeometryError("calibration picture is empty or unreadable")
    found = find_markers(image)
    missing = sorted(set(range(4)) - set(found))
    if missing:
        raise GeometryError(f"ArUco markers not found: id {', '.join(map(str, missing))} "
                            f"(print them with --print-markers and lay them at the cloth's corners)")
    ref = marker_corners_mm(size_mm)
    src = np.concatenate([ref[i] for i in range(4)])
    dst = np.concatenate([found[i] for i in range(4)]).astype(np.float32)
    H, _ = cv2.findHomography(src, dst, 0)
    if H is None:
        raise GeometryError("markers found but no consistent table plane (are they flat?)")
    h, w = image.shape[:2]
    return TableGeometry(table=table, size_mm=size_mm, zones=zones or default_layout(size_mm),
                         homography=H, image_size=(w, h))


def annotate(image: np.ndarray, geo: TableGeometry) -> np.ndarray:
    """The calibration picture with the markers and every zone drawn on it."""
    out = image.copy()
    for i, (x, y) in marker_centres_mm(geo.size_mm).items():
        p = geo.to_image([(x, y)])[0]
        cv2.circle(out, (int(p[0]), int(p[1])), 8, (0, 0, 255), 2)
        cv2.putText(out, str(i), (int(p[0]) + 10, int(p[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 255), 2)
    for z in geo.zones:
        pts = geo.to_image(z.corners_mm).astype(np.int32)
        color = (0, 255, 255) if z.kind == "play" else (255, 200, 0)
        cv2.polylines(out, [pts], True, color, 2)
        cv2.line(out, tuple(pts[0]), tuple(pts[1]), (0, 0, 255), 3)   # the zone's top edge
        cv2.putText(out, z.name, tuple(int(v) for v in pts.mean(axis=0)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.6, color, 2)
    return out


def marker_image(marker_id: int, pixels: int = 600) -> np.ndarray:
    """A marker as a picture, with a white quiet zone around it."""
    img = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(MARKER_DICT), marker_id, pixels)
    return img
