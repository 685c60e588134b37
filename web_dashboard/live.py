"""The venue as the web app sees it: one referee per table, shared by the
request threads, with a change feed the live pages wait on.

Sources (vision, devices, a referee's hand) submit events; each is stored in
the append-only log first and then judged (:class:`referee.venue.Venue`).
Every submission bumps the table's version and wakes the pages waiting on
it, so a decision reaches the browser as soon as it exists.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any, Iterable

from referee.events import Event, EventError
from referee.venue import Venue

KEEP_UPDATES = 500   # per table: a client further behind than this gets a full reset


class Update(dict):
    """One change to a table: ``version``, ``decisions`` (new or restated),
    ``restated_from`` (a correction restates the record from that ``n``)."""


class LiveVenue:
    def __init__(self, venue: Venue, tables: Iterable[str] = (), matches: dict | None = None,
                 clock=None):
        """``clock``: the table time now (seconds, the sources' time base), for
        events made here such as a referee's action; by default the time of
        the table's last event."""
        self.venue = venue
        self.clock = clock
        self.matches = dict(matches or {})
        self._cond = threading.Condition()
        self._versions: dict[str, int] = {}
        self._updates: dict[str, deque] = {}
        for name in [*tables, *venue.tables]:
            self._ensure(name)

    # ------------------------------------------------------------- tables
    def _ensure(self, name: str) -> None:
        if name not in self._versions:
            self.venue.table(name)
            self._versions[name] = 0
            self._updates[name] = deque(maxlen=KEEP_UPDATES)

    @property
    def tables(self) -> list[str]:
        return sorted(self._versions)

    def version(self, table: str) -> int:
        return self._versions[table]

    # -------------------------------------------------------------- input
    def submit(self, event: dict[str, Any] | Event) -> list[dict]:
        """Store and judge one event; returns the decisions as dicts.

        Raises :class:`referee.events.EventError` for a malformed event.
        """
        if not isinstance(event, Event):
            event = Event.from_dict(event)
        with self._cond:
            self._ensure(event.table)
            decisions = [d.to_dict() for d in self.venue.ingest(event)]
            restated = next((d.get("restated_from") for d in decisions
                             if d["type"] == "correction"), None)
            self._versions[event.table] += 1
            update = Update(version=self._versions[event.table], decisions=decisions,
                            restated_from=restated, t=event.t)
            self._updates[event.table].append(update)
            self._cond.notify_all()
        return decisions

    # ------------------------------------------------------------- output
    def now(self, table: str) -> float:
        with self._cond:
            last = self.venue.table(table).snapshot().get("t", 0.0)
        return max(last, self.clock()) if self.clock else last

    def snapshot(self, table: str) -> dict[str, Any]:
        with self._cond:
            return self.venue.table(table).snapshot()

    def decisions(self, table: str) -> list[dict]:
        with self._cond:
            return [d.to_dict() for d in self.venue.table(table).decisions]

    def events(self, table: str) -> list[dict]:
        with self._cond:
            return [e.to_dict() for e in self.venue.table(table).log]

    def score_sheet_csv(self, table: str) -> str:
        with self._cond:
            return self.venue.table(table).match.score_sheet_csv()

    def updates_since(self, table: str, version: int) -> list[Update] | None:
        """Updates after ``version``, or None when the client is too far behind."""
        with self._cond:
            ups = self._updates[table]
            if version == self._versions[table]:
                return []
            if not ups or ups[0]["version"] > version + 1 or version > self._versions[table]:
                return None
            return [u for u in ups if u["version"] > version]

    def wait(self, tables: Iterable[str], versions: dict[str, int], timeout: float) -> bool:
        """Block until any of ``tables`` moves past ``versions`` or ``timeout`` passes."""
        deadline = time.monotonic() + timeout
        tables = list(tables)
        with self._cond:
            while True:
                if any(self._versions.get(t, 0) != versions.get(t, 0) for t in tables):
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)

    def close(self) -> None:
        self.venue.close()


__all__ = ["LiveVenue", "EventError"]
