"""The venue's event logs, behind one interface.

Two implementations of :class:`EventLog`:

- :class:`~storage.sqlite_log.EventStore`: a table node's (or a one-machine
  venue's) log, an append-only SQLite file;
- :class:`~storage.postgres_log.PostgresEventStore`: the venue's record in
  PostgreSQL, which also keeps each event's decisions (:class:`DecisionLog`).

A :class:`services.venue.Venue` folds either the same way. Both number each
table's events 1, 2, 3... and store an event whose ``uid`` is already stored
for its table only once.

Importing this package loads neither database driver: each implementation
is imported from its own module.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, Self, runtime_checkable

from referee.decisions import Decision
from referee.events import Event

__all__ = ["Closing", "DecisionLog", "EventLog"]


@runtime_checkable
class EventLog(Protocol):
    """What a venue needs from its log: an append-only stream of events per table."""

    def append(self, event: Event) -> Event | None:
        """Store ``event`` at the end of its table's stream and return it with its
        ``id``; None when its ``uid`` is already stored for that table."""
        ...

    def has_uid(self, table: str, uid: str) -> bool:
        """Whether an event with this ``uid`` is stored for ``table``."""
        ...

    def stream(self, table: str, after: int = 0, limit: int | None = None) -> Iterator[Event]:
        """The table's events in order (those with ``id > after``; at most ``limit``)."""
        ...

    def tables(self) -> list[str]:
        """The tables with at least one event, sorted."""
        ...

    def count(self, table: str | None = None) -> int:
        """How many events are stored (for one table, or all)."""
        ...

    def close(self) -> None:
        ...

    def __enter__(self) -> Self:
        ...

    def __exit__(self, *exc: object) -> None:
        ...


@runtime_checkable
class DecisionLog(EventLog, Protocol):
    """A log that also keeps the decisions each event led to."""

    def record_decisions(self, event: Event, decisions: Sequence[Decision]) -> None:
        """Record the decisions of the event just appended (with them, the event
        counts as recorded)."""
        ...


class Closing:
    """``with`` support for anything with a ``close()``: the ``with`` block
    closes it, also when the block raises.

    >>> class Door(Closing):
    ...     def close(self) -> None:
    ...         print("closed")
    >>> with Door() as d:
    ...     type(d).__name__
    'Door'
    closed
    """

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
