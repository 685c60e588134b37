"""The last few seconds of one camera, kept for evidence clips (bounded memory).

Each kept frame is shrunk to at most ``width`` pixels wide and stored as a
JPEG, at most ``fps`` frames a second, and only the last ``seconds`` are
kept: a ring of at most ``ceil(seconds * fps) + 1`` JPEGs, plus one raw frame
waiting for its turn.  With the defaults (8 s, 10 frames/s, 800 px,
quality 80) that is 81 pictures of about 35-100 KB, some 3-8 MB a camera,
whatever the camera's resolution or rate.

The camera's thread only hands the frame over (:meth:`FrameRing.push`
takes a reference, no copy: a capture gives a new array each read); a
thread of the ring shrinks and encodes it. When that thread falls behind,
the newest frame replaces the one waiting (``dropped`` counts them): the
camera is never slowed down.

>>> import numpy as np
>>> ring = FrameRing(seconds=1.0, fps=4.0, width=64, background=False)
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

    def __init__(self, seconds: float = 8.0, fps: float = 10.0, width: int = 800, quality: int = 80,
                 background: bool = True):
        """``background``: encode in the ring's own thread (a camera); False
        encodes in :meth:`push` itself (every frame kept, for tests and tools)."""
        if not (0 < seconds <= 120 and 0 < fps <= 60 and 16 <= width <= 7680 and 1 <= quality <= 100):
            raise ValueError("FrameRing: seconds 0-120, fps 0-60, width 16-7680, quality 1-100")
        self.seconds, self.fps, self.width, self.quality = seconds, fps, width, quality
        self.limit = math.ceil(seconds * fps) + 1          # the memory bound, in frames
        self.background = background
        self._frames: deque[tuple[float, bytes]] = deque(maxlen=self.limit)
        self._cond = threading.Condition()
        self._pending: tuple[float, np.ndarray] | None = None
        self._busy = False                                 # the encoder holds a frame
        self._taken = -math.inf                            # time of the last frame accepted
        self._thread: threading.Thread | None = None
        self.shape: tuple[int, int] | None = None          # (height, width) of the kept pictures
        self.latest = -math.inf                            # time of the newest frame kept
        self.dropped = 0                                   # frames the encoder had no time for
        self.encoded = 0                                   # frames encoded and kept (for a while)
        self.closed = False

    def push(self, t: float, frame: np.ndarray) -> bool:
        """Offer the camera's frame at table time ``t``; True if it was taken.

        Frames closer than ``1/fps`` to the last one taken are skipped (never
        encoded): a 30 frames/s camera costs a third of its frames' JPEGs."""
        with self._cond:
            if self.closed or t - self._taken < 1.0 / self.fps - 1e-6:
                return False
            self._taken = t
            if self.background:
                if self._pending is not None:
                    self.dropped += 1
                self._pending = (t, frame)
                if self._thread is None:
                    self._thread = threading.Thread(target=self._encoder, name="frame ring", daemon=True)
                    self._thread.start()
                self._cond.notify_all()
                return True
        self._keep(t, self._encode(frame))
        return True

    def _encoder(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._pending is not None or self.closed)
                if self._pending is None:
                    return
                t, frame = self._pending
                self._pending, self._busy = None, True
            try:
                self._keep(t, self._encode(frame))
            except Exception:           # a frame that cannot be encoded is not kept; the next may be
                pass
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _keep(self, t: float, data: bytes) -> None:
        with self._cond:
            self._frames.append((t, data))
            self.encoded += 1
            while self._frames and self._frames[0][0] < t - self.seconds - 1e-6:
                self._frames.popleft()
            self.latest = max(self.latest, t)
            self._cond.notify_all()

    def _encode(self, frame: np.ndarray) -> bytes:
        h, w = frame.shape[:2]
        if w > self.width:
            # linear, not area: a tenth of the cost on a 4K frame, and sharp enough for a clip
            frame = cv2.resize(frame, (self.width, max(1, round(h * self.width / w))),
                               interpolation=cv2.INTER_LINEAR)
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
        """Block until a frame at table time ``t`` or later is kept (or the ring
        is closed, or ``timeout`` seconds of wall time passed); True if it is."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self.latest < t and not (self.closed and self._pending is None and not self._busy):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return self.latest >= t

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until the frame handed over last is kept (or dropped as unusable)."""
        with self._cond:
            self._cond.wait_for(lambda: self._pending is None and not self._busy, timeout)

    def close(self) -> None:
        """No more frames: the waiting one is still kept, whoever waits stops waiting."""
        with self._cond:
            self.closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()


def decode(data: bytes) -> np.ndarray:
    """A kept JPEG back to a BGR picture."""
    return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
