"""The live referee service: one referee per table, shared by threads (a table
node's sources, the dashboard's requests, the venue's central service), with a
change feed the live pages wait on.

Sources (vision, devices, a referee's hand) submit events; each is stored in
the append-only log first and then judged (:class:`services.venue.Venue`).
Every submission bumps the table's version and wakes the pages waiting on
it, so a decision reaches the browser as soon as it exists; a page then
sends its whole new state, so nothing has to be replayed to a client.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from referee.events import Event, EventError
from services.venue import Venue


class LiveVenue:
    def __init__(self, venue: Venue, tables: Iterable[str] = (),
                 matches: dict[str, Any] | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        """``clock``: the table time now (seconds, the sources' time base), for
        events made here such as a referee's action; by default the time of
        the table's last event."""
        self.venue = venue
        self.clock = clock
        self.matches = dict(matches or {})
        self._cond = threading.Condition()
        self._versions: dict[str, int] = {}
        # bumped with every table's version: one waiter (the dashboard's
        # fan-out) follows all tables, even ones added after it started
        self._generation = 0
        for name in [*tables, *venue.tables]:
            self._ensure(name)

    # ------------------------------------------------------------- tables
    def _ensure(self, name: str) -> None:
        if name not in self._versions:
            self.venue.table(name)
            self._versions[name] = 0

    @property
    def tables(self) -> list[str]:
        return sorted(self._versions)

    def version(self, table: str) -> int:
        return self._versions[table]

    @property
    def generation(self) -> int:
        """A counter that moves whenever any table's version does."""
        return self._generation

    # -------------------------------------------------------------- input
    def submit(self, event: dict[str, Any] | Event) -> list[dict[str, Any]]:
        """Store and judge one event; returns the decisions as dicts.

        Raises :class:`referee.events.EventError` for a malformed event.
        """
        if not isinstance(event, Event):
            event = Event.from_dict(event)
        with self._cond:
            self._ensure(event.table)
            decisions = [d.to_dict() for d in self.venue.ingest(event)]
            self._versions[event.table] += 1
            self._generation += 1
            self._cond.notify_all()
        return decisions

    # ------------------------------------------------------------- output
    def last_time(self, table: str) -> float:
        """The time of the table's latest event."""
        with self._cond:
            return self.venue.table(table).t

    def now(self, table: str) -> float:
        """Table time now: the clock, never before the latest event."""
        last = self.last_time(table)
        return max(last, self.clock()) if self.clock else last

    def snapshot(self, table: str) -> dict[str, Any]:
        with self._cond:
            return self.venue.table(table).snapshot()

    def decisions(self, table: str) -> list[dict[str, Any]]:
        with self._cond:
            return [d.to_dict() for d in self.venue.table(table).decisions]

    def events(self, table: str) -> list[dict[str, Any]]:
        with self._cond:
            return [e.to_dict() for e in self.venue.table(table).log]

    def log(self, table: str) -> list[Event]:
        """The table's events themselves, in order (immutable values: a copy of the list)."""
        with self._cond:
            return list(self.venue.table(table).log)

    def read(self, table: str) -> tuple[dict[str, Any], list[dict[str, Any]],
                                        list[dict[str, Any]], int]:
        """Snapshot, decisions, events and version of one table, taken together
        (one lock: a page never mixes the state before an event with one after)."""
        with self._cond:
            tb = self.venue.table(table)
            return (tb.snapshot(), [d.to_dict() for d in tb.decisions],
                    [e.to_dict() for e in tb.log], self._versions[table])

    def score_sheet_csv(self, table: str) -> str:
        with self._cond:
            return self.venue.table(table).match.score_sheet_csv()

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

    def wait_generation(self, seen: int, timeout: float) -> int:
        """Block until any table changes after generation ``seen`` or ``timeout``
        passes; returns the generation now."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._generation == seen:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return self._generation

    def touch(self, table: str) -> None:
        """Wake the table's pages without a new event: something they show
        beside the log changed (an evidence clip was written)."""
        with self._cond:
            self._ensure(table)
            self._versions[table] += 1
            self._generation += 1
            self._cond.notify_all()

    def refold(self, table: str) -> None:
        """Rebuild one table from the log; its pages get the state refolded."""
        with self._cond:
            self.venue.refold(table)
            self._versions[table] = self._versions.get(table, 0) + 1
            self._generation += 1
            self._cond.notify_all()

    def replace_venue(self, venue: Venue) -> None:
        """Swap in a venue refolded from the record (after a storage failure);
        every page gets the new state."""
        with self._cond:
            self.venue = venue
            for name in venue.tables:
                self._ensure(name)
            for name in self._versions:
                self.venue.table(name)
                self._versions[name] += 1
            self._generation += 1
            self._cond.notify_all()

    def close(self) -> None:
        self.venue.close()


__all__ = ["LiveVenue", "EventError"]
