"""A table node: one table's sources, referee, log and dashboard in one process.

Data flows one way: sources (cameras, serial devices, a referee's hand) ->
events -> the referee (:class:`services.live.LiveVenue` over the SQLite
log) -> decisions -> sinks (dashboard, audio, the venue's Redis stream).
"""
