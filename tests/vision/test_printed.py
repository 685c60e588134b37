"""Printed PASS / count cards: found on the table by their marker; PDFs written."""

from __future__ import annotations

import cv2
import numpy as np

from vision.reading.printables import write_marker_sheet
from vision.reading.printed_cards import CARD_MARKER_MM, CARD_MM, card_picture, find_printed, write_card_sheet
from vision.reading.table import calibrate
from vision.training.synth_table import PX_PER_MM, TablePainter


def lay(top_frame_painter, frame_top, name, centre_mm, angle):
    """Paint a printed card into the painter's top-down cloth at centre_mm."""
    card = card_picture(name, px_per_mm=PX_PER_MM)
    h, w = card.shape[:2]
    M = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    M[:, 2] += np.array(centre_mm) * PX_PER_MM - (w / 2, h / 2)
    n = frame_top.shape[0]
    warped = cv2.warpAffine(card, M, (n, n))
    mask = cv2.warpAffine(np.ones((h, w), np.float32), M, (n, n))[:, :, None]
    frame_top[:] = frame_top * (1 - mask) + warped * mask


def test_printed_cards_are_found_in_their_zones(gen):
    painter = TablePainter(gen, np.random.default_rng(8))
    centre = {z.name: np.mean(z.corners_mm, axis=0) for z in painter.layout.zones}
    lay(painter, painter.cloth, "PASS", centre["S-play"], 8)
    lay(painter, painter.cloth, "COUNT7", centre["W-reminder"], -85)
    painter.redraw_cloth()
    frame, _ = painter.frame({})
    geo = calibrate(frame)
    found = find_printed(frame, geo)
    assert found == {"S-play": ["PASS"], "W-reminder": ["COUNT7"]}


def test_a_printed_card_pushed_past_the_zone_line_counts_within_the_margin(gen):
    from vision.reading.table import ZONE_MARGIN_MM

    painter = TablePainter(gen, np.random.default_rng(8))
    zone = painter.layout.zone("S-play")          # S's play zone: its bottom edge is towards S
    (x0, _), _, _, (_, y1) = zone.corners_mm
    up = CARD_MM[1] / 2 - 10 - CARD_MARKER_MM / 2     # a card's marker sits this far above its middle
    lay(painter, painter.cloth, "PASS", (x0 + 80, y1 + up + ZONE_MARGIN_MM / 2), 3)     # marker past the line
    lay(painter, painter.cloth, "COUNT3", (x0 + 220, y1 + up + ZONE_MARGIN_MM + 10), -4)  # beyond the margin
    painter.redraw_cloth()
    frame, _ = painter.frame({})
    geo = calibrate(frame)
    assert find_printed(frame, geo) == {"S-play": ["PASS"]}
    assert find_printed(frame, geo, margin_mm=0) == {}
    assert sorted(find_printed(frame, geo, margin_mm=40)["S-play"]) == ["COUNT3", "PASS"]   # both are seen


def test_pdfs_are_written(tmp_path):
    for path in (write_card_sheet(tmp_path / "cards.pdf"), write_marker_sheet(tmp_path / "markers.pdf")):
        data = open(path, "rb").read()
        assert data.startswith(b"%PDF") and data.count(b"/Type /Page") >= 1
