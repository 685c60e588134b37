"""Print-ready PDFs: the four calibration markers.

The marker sheet holds markers 0-3 (ArUco ``DICT_4X4_50``), each exactly
:data:`~vision.reading.table.MARKER_MM` mm square with a white margin, and says where
each goes.  Print at 100 % scale (no "fit to page") on matte paper.

>>> write_marker_sheet("/tmp/markers.pdf")                 # doctest: +SKIP
'/tmp/markers.pdf'
"""

from __future__ import annotations

import io
from pathlib import Path

import cv2

from vision.reading.table import MARKER_INSET_MM, MARKER_MM, TABLE_MM, marker_image

# where each marker goes, as the camera sees the table with seat S at the bottom
PLACES = {0: "corner W/N (top-left)", 1: "corner N/E (top-right)",
          2: "corner E/S (bottom-right)", 3: "corner S/W (bottom-left)"}


def write_marker_sheet(path: str | Path, size_mm: float = TABLE_MM) -> str:
    """Write the A4 sheet of markers 0-3; returns the path."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.units import mm
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=A4)
    pw, ph = A4
    c.setTitle("guandan-referee table markers")
    c.setFont("Helvetica", 9)
    c.drawString(15 * mm, ph - 12 * mm,
                 f"Print at 100% scale. Each marker must measure {MARKER_MM:.0f} mm. Lay them flat, centres "
                 f"{MARKER_INSET_MM:.0f} mm in from the corners of the {size_mm:.0f} mm cloth.")
    c.drawString(15 * mm, ph - 17 * mm, "Corners as the camera sees the table with seat S at the bottom "
                 "and E on the right.")
    for i in range(4):
        png = cv2.imencode(".png", marker_image(i, 600))[1].tobytes()
        col, row = i % 2, i // 2
        x = 25 * mm + col * 95 * mm
        y = ph - 30 * mm - (row + 1) * 110 * mm + 20 * mm
        c.drawImage(ImageReader(io.BytesIO(png)), x, y, MARKER_MM * mm, MARKER_MM * mm)
        c.drawString(x, y - 6 * mm, f"marker {i}: {PLACES[i]}")
    c.showPage()
    c.save()
    return str(path)
