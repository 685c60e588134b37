"""The referee service: what the table node, the venue's central service and
the dashboard all run on.

- :class:`~services.venue.Venue`: an event log (:mod:`storage`) plus one
  :class:`referee.table.Table` per stream, refolded from the log on open;
- :class:`~services.live.LiveVenue`: a venue shared by threads, with the
  change feed live pages wait on.

The layers point one way: ``referee`` (rules) <- ``storage`` (logs) <-
``services`` <- ``table_node``, ``venue``, ``web_dashboard``, ``commands``.
"""

from __future__ import annotations

from services.live import LiveVenue
from services.venue import Venue

__all__ = ["LiveVenue", "Venue"]
