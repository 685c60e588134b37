"""Turn per-frame zone reads into observed events: a play once it is stable.

A :class:`ZoneTracker` watches one zone.  Each frame's :class:`ZoneRead`
goes in with its time; out come :class:`~referee.events.Event` objects:

- ``play`` (play zone) or ``tribute`` (reminder zone, one card: whether it
  is a tribute or a return is the referee's call, from the deal's phase)
  once the same cards have been read for :attr:`stable_s` seconds *and* at least
  :attr:`stable_frames` frames in a row, with no hand over the zone;
- ``zone_clear`` once the zone has stayed empty as long, after cards were
  reported.

A frame with a hand in the zone breaks the run: nothing is reported while a
player is still laying cards.  The event's confidence is the lowest card
confidence seen over the stable run; the referee asks for confirmation
below its threshold.  Every event names its zone (``extra["zone"]``).

>>> from vision.detector import CardRead, ZoneRead
>>> def read(*names): return ZoneRead([CardRead(n, 0.9, (0, 0, 1, 1), ()) for n in names])
>>> tr = ZoneTracker("S", stable_s=0.2, stable_frames=3)
>>> [e.type for t in (0.0, 0.1, 0.2) for e in tr.update(t, read("S5", "S5"))]
['play']
>>> [e.type for t in (0.3, 0.4, 0.5, 0.6) for e in tr.update(t, read())]
['zone_clear']
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.events import Event
from vision.detector import ZoneRead


@dataclass
class _Run:
    names: tuple[str, ...]
    since: float
    frames: int
    confidence: float


class ZoneTracker:
    """Reports what a zone shows once it stops changing."""

    def __init__(self, seat: str, kind: str = "play", table: str = "T01",
                 stable_s: float = 0.4, stable_frames: int = 3):
        self.seat, self.kind, self.table = seat, kind, table
        self.stable_s, self.stable_frames = stable_s, stable_frames
        self.reported: tuple[str, ...] = ()     # what the zone was last reported to hold
        self._run: _Run | None = None

    @property
    def zone(self) -> str:
        return f"{self.seat}-{self.kind}"

    def update(self, t: float, read: ZoneRead) -> list[Event]:
        """Feed one frame's read of this zone; returns the events it completes."""
        if read.hand:
            self._run = None                    # a hand over the cards: wait
            return []
        names = tuple(read.names)
        run = self._run
        if run is None or run.names != names:
            self._run = _Run(names, t, 1, read.confidence)
            return []
        run.frames += 1
        run.confidence = min(run.confidence, read.confidence)
        if run.frames < self.stable_frames or t - run.since < self.stable_s - 1e-9:
            return []
        if names == self.reported:
            return []
        self.reported = names
        base = dict(t=round(t, 3), table=self.table, seat=self.seat, source="vision",
                    extra={"zone": self.zone})
        if not names:
            return [Event(type="zone_clear", confidence=1.0, **base)]
        conf = round(run.confidence, 4)
        if self.kind == "reminder" and len(names) == 1:
            return [Event(type="tribute", card=names[0], confidence=conf, **base)]
        return [Event(type="play", cards=names, confidence=conf, **base)]
