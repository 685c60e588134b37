"""Printed PASS and count-report cards: our design, read by their ArUco marker.

The 2022 rules have a player show a PASS card (不出牌) instead of playing,
and a player with ten or fewer cards report the count.  Tables without
devices use printed cards: each carries one large ArUco marker (OpenCV's
``DICT_4X4_50``, the dictionary of the table markers) and big lettering for
the players.  Ids 0-3 are the table corners; the cards use:

- id 10: PASS
- ids 11-20: count 1 to 10

A marker read is exact or absent, so these need no trained model, and a
card is placed by where its marker's centre falls on the table: in a zone,
or past its line by no more than the margin the cards are read with
(:data:`vision.reading.table.ZONE_MARGIN_MM`), the nearest zone.

>>> PRINTED_IDS[10], PRINTED_IDS[17]
('PASS', 'COUNT7')
>>> count_of("COUNT10")
10
"""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np

from vision.reading.table import MARKER_DICT, ZONE_MARGIN_MM, TableGeometry

PASS_ID = 10
PRINTED_IDS = {PASS_ID: "PASS", **{10 + n: f"COUNT{n}" for n in range(1, 11)}}
CARD_MM = (63.0, 88.0)          # a poker-size card
CARD_MARKER_MM = 40.0
SHRINK_ABOVE_PX = 1800          # frames this large are searched for markers at half size


def count_of(name: str) -> int | None:
    """The count on a count card's name, else ``None``."""
    return int(name[5:]) if name.startswith("COUNT") else None


def markers_in(frame: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """Every marker of the dictionary in a whole-table frame, the table's
    corners and the printed cards alike: (id, its four corners in the
    frame's pixels, OpenCV's order)."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    # a card's 40 mm marker stays ~40 px wide in a half-size picture of a
    # 2 px/mm camera, and the search costs a quarter as much
    shrink = 2 if max(gray.shape) >= SHRINK_ABOVE_PX else 1
    if shrink > 1:
        gray = cv2.resize(gray, (gray.shape[1] // shrink, gray.shape[0] // shrink), interpolation=cv2.INTER_AREA)
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(MARKER_DICT),
                                  cv2.aruco.DetectorParameters())
    corners, ids, _ = det.detectMarkers(gray)
    if ids is None:
        return []
    # (a half-size pixel's centre lies half a pixel in from its full-size block's corner)
    return [(int(i), (c.reshape(4, 2).astype(np.float64) + 0.5) * shrink - 0.5)
            for c, i in zip(corners, ids.reshape(-1))]


def find_printed(frame: np.ndarray, geo: TableGeometry, margin_mm: float = ZONE_MARGIN_MM,
                 markers: list[tuple[int, np.ndarray]] | None = None) -> dict[str, list[str]]:
    """Printed cards in a whole-table frame, by the zone their marker lies
    in (or lies nearest, up to ``margin_mm`` past its line).  ``markers``:
    the frame's markers (:func:`markers_in`) where they were found already."""
    found: dict[str, list[str]] = {}
    for i, c in markers_in(frame) if markers is None else markers:
        name = PRINTED_IDS.get(i)
        if name is None:
            continue
        mm = geo.to_table(c.mean(axis=0))[0]
        # signed distance in mm: positive inside a zone, negative outside it
        depth = {z.name: cv2.pointPolygonTest(np.float32(z.corners_mm), (float(mm[0]), float(mm[1])), True)
                 for z in geo.zones}
        if depth:
            zone = max(depth, key=depth.get)
            if depth[zone] >= -margin_mm:
                found.setdefault(zone, []).append(name)
    return found


def card_picture(name: str, px_per_mm: float = 8.0) -> np.ndarray:
    """A printed card as a picture (white card, marker, lettering), for tests and previews."""
    w, h = int(CARD_MM[0] * px_per_mm), int(CARD_MM[1] * px_per_mm)
    img = np.full((h, w, 3), 255, np.uint8)
    ident = {v: k for k, v in PRINTED_IDS.items()}[name]
    m = int(CARD_MARKER_MM * px_per_mm)
    marker = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(MARKER_DICT), ident, m)
    x0, y0 = (w - m) // 2, int(10 * px_per_mm)
    img[y0:y0 + m, x0:x0 + m] = marker[:, :, None]
    label = "PASS" if name == "PASS" else str(count_of(name))
    scale = px_per_mm / 4
    (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_DUPLEX, scale, max(1, int(scale * 2)))
    cv2.putText(img, label, ((w - tw) // 2, y0 + m + th + int(8 * px_per_mm)), cv2.FONT_HERSHEY_DUPLEX,
                scale, (0, 0, 180) if name == "PASS" else (0, 0, 0), max(1, int(scale * 2)), cv2.LINE_AA)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (120, 120, 120), 2)
    return img


def write_card_sheet(path: str | Path) -> str:
    """A4 pages of PASS and count cards (63 x 88 mm, cut lines), ready to print at 100 %."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.units import mm
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=A4)
    c.setTitle("guandan-referee PASS and count cards")
    pw, ph = A4
    # a PASS card for each of the four seats, then counts 1-10 twice (one set per side)
    names = ["PASS"] * 4 + [f"COUNT{n}" for n in range(1, 11)] * 2
    cols, rows = 3, 3
    for k, name in enumerate(names):
        if k and k % (cols * rows) == 0:
            c.showPage()
        slot = k % (cols * rows)
        x = 10 * mm + (slot % cols) * (CARD_MM[0] + 2) * mm
        y = ph - 15 * mm - (slot // cols + 1) * (CARD_MM[1] + 2) * mm
        c.setLineWidth(0.3)
        c.setStrokeGray(0.6)
        c.rect(x, y, CARD_MM[0] * mm, CARD_MM[1] * mm)
        ident = {v: i for i, v in PRINTED_IDS.items()}[name]
        marker = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(MARKER_DICT), ident, 400)
        png = cv2.imencode(".png", marker)[1].tobytes()
        mx = x + (CARD_MM[0] - CARD_MARKER_MM) / 2 * mm
        my = y + (CARD_MM[1] - 10 - CARD_MARKER_MM) * mm
        c.drawImage(ImageReader(io.BytesIO(png)), mx, my, CARD_MARKER_MM * mm, CARD_MARKER_MM * mm)
        label = "PASS" if name == "PASS" else str(count_of(name))
        c.setFont("Helvetica-Bold", 30)
        c.setFillColorRGB(0.7, 0, 0) if name == "PASS" else c.setFillColorRGB(0, 0, 0)
        c.drawCentredString(x + CARD_MM[0] / 2 * mm, y + 14 * mm, label)
        c.setFillColorRGB(0, 0, 0)
        c.setFont("Helvetica", 7)
        sub = "no play this turn" if name == "PASS" else "cards left in hand"
        c.drawCentredString(x + CARD_MM[0] / 2 * mm, y + 7 * mm, sub)
    c.showPage()
    c.save()
    return str(path)
