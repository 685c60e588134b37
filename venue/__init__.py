"""The venue: table nodes publish their logs to Redis Streams; a central
service records every event and decision in PostgreSQL and serves the
dashboard for all tables (docs/architecture.md, 'Principles')."""
