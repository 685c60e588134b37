"""Reading a video file back whole, for tests that check what was written or decoded."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


def decoded_frames(path: str | Path) -> tuple[list[np.ndarray], float]:
    """Every frame OpenCV decodes from ``path``, and the file's frame rate."""
    cap = cv2.VideoCapture(str(path))
    frames = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        frames.append(frame)
    fps = cap.get(cv2.CAP_PROP_FPS)
    cap.release()
    return frames, fps
