"""The last few seconds of one camera, kept for evidence clips (bounded memory).

Each kept frame is shrunk to at most ``width`` pixels wide and stored as a
JPEG, at most ``fps`` frames a second, and only the last ``seconds`` are
kept: a ring of at most ``ceil(seconds * fps) + 1`` JPEGs.  With the
defaults (8 s, 10 frames/s, 960 px, quality 80) that is 81 pictures of
about 50-150 KB, some 4-12 MB a camera, whatever the camera's resolution
or rate.

>>> import numpy as np
>>> ring = FrameRing(seconds=1.0, fps=4.0, width=64)
>>> for k in range(20):                      # 10 frames a second for 2 s
...     _ = ring.push(k / 10, np.zeros((48, 96, 3), np.uint8))
>>> [t for t, _ in ring.frames()]           # 4 a second, the last second only
[0.9, 1.2, 1.5, 1.8]
>>> ring.limit, ring.shape
(5, (32, 64))
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque

import cv2
import numpy as np


class FrameRing:
    """A thread-safe ring of a camera's recent frames, JPEG-encoded, by table time."""

    def __init__(self, seconds: float = 8.0, fps: float = 10.0, width: int = 960, quality: int = 80):
        if not (0 < seconds <= 120 and 0 < fps <= 60 and 16 <= width <= 7680 and 1 <= quality <= 100):
            raise ValueError("FrameRing: seconds 0-120, fps 0-60, width 16-7680, quality 1-100")
        self.seconds, self.fps, self.width, self.quality = seconds, fps, width, quality
        self.limit = math.ceil(seconds * fps) + 1          # the memory bound, in frames
        self._frames: deque[tuple[float, bytes]] = deque(maxlen=self.limit)
        self._cond = threading.Condition()
        self.shape: tuple[int, int] | None = None          # (height, width) of the kept pictures
        self.latest = -math.inf                            # time of the newest frame seen (kept or not)
        self.closed = False

    def push(self, t: float, frame: np.ndarray) -> bool:
        """Offer the camera's frame at table time ``t``; True if it was kept.

        Frames closer than ``1/fps`` to the last kept one are skipped (not
        encoded), so a 30 frames/s camera costs a third of its frames' JPEGs."""
        with self._cond:
            last = self._frames[-1][0] if self._frames else -math.inf
        keep = t - last >= 1.0 / self.fps - 1e-6
        data = self._encode(frame) if keep else None
        with self._cond:
            if data is not None:
                self._frames.append((t, data))
                while self._frames and self._frames[0][0] < t - self.seconds - 1e-6:
                    self._frames.popleft()
            self.latest = max(self.latest, t)
            self._cond.notify_all()
        return data is not None

    def _encode(self, frame: np.ndarray) -> bytes:
        h, w = frame.shape[:2]
        if w > self.width:
            # INTER_AREA: a sharp shrink, and cheap next to the frame's card reading
            frame = cv2.resize(frame, (self.width, max(1, round(h * self.width / w))),
                               interpolation=cv2.INTER_AREA)
        self.shape = frame.shape[:2]
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if not ok:
            raise ValueError("a frame could not be JPEG-encoded")
        return buf.tobytes()

    def frames(self, t0: float = -math.inf, t1: float = math.inf) -> list[tuple[float, bytes]]:
        """The kept (time, JPEG) pairs with ``t0 <= time <= t1``, oldest first."""
        with self._cond:
            return [(t, d) for t, d in self._frames if t0 <= t <= t1]

    def wait_until(self, t: float, timeout: float) -> bool:
        """Block until a frame at table time ``t`` or later has arrived (or the ring
        is closed, or ``timeout`` seconds of wall time passed); True if it arrived."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.latest < t and not self.closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return self.latest >= t

    def close(self) -> None:
        """No more frames: whoever waits for one stops waiting."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()


def decode(data: bytes) -> np.ndarray:
    """A kept JPEG back to a BGR picture."""
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
