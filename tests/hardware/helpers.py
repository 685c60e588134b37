"""Test helpers: a thread-safe event sink and polling with a deadline."""

from __future__ import annotations

import threading
import time


def wait_for(condition, timeout: float = 5.0, interval: float = 0.005) -> bool:
    """Poll ``condition`` until it is true or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return bool(condition())


class EventSink:
    """Collects emitted events with the monotonic time each arrived."""

    def __init__(self) -> None:
        self.events = []
        self.arrived = []
        self._lock = threading.Lock()

    def __call__(self, event) -> None:
        with self._lock:
            self.events.append(event)
            self.arrived.append(time.monotonic())

    def of(self, *types):
        with self._lock:
            return [e for e in self.events if e.type in types]

    def presses(self):
        """(type, seat, count, uid) of the press events, in order."""
        return [(e.type, e.seat, e.count, e.uid) for e in self.of("pass", "report", "report_clear")]
