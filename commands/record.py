"""``guandan-ref record --db VENUE.sqlite FILE.jsonl``: referee events live and
keep them in the venue's append-only log.

Each event is stored (SQLite, WAL) before it is judged, and its decisions are
printed as JSON lines at once. Started again on the same database, the
command replays the stored log first and carries on where the last run
stopped: events whose ``uid`` is already stored are skipped, each said on
stderr with its uid, and their count at the end. Lines without a uid get
``SOURCE:LINE:HASH`` (SOURCE from ``--source-id``, default the file name;
HASH of the line's content), so a file recorded again is skipped line for
line while another stream's line 1 is a new event; events from stdin get
``stdin:RUN:LINE`` with RUN new on every run.

A log carries its match's settings: given settings flags for a table whose
log has none, a ``settings`` event is recorded first; flags that disagree
with the log's settings are an error naming the difference (unless
``--override-settings``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import uuid

from commands import EXIT_BAD_INPUT, EXIT_OK, UsageError
from commands.events_input import (SettingsGuard, add_events_command, explicit_settings, open_input,
                                   read_events, settings_from_args)
from referee.events import Event
from services.venue import Venue
from storage.sqlite_log import StoreError


def run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    guard = SettingsGuard(args, settings)
    errors: list[str] = []
    try:
        venue = Venue(args.db, settings, log_settings=not args.override_settings)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    uid_of = _uid_maker(args)
    settings_given = explicit_settings(args)     # asked once, not per event
    out = sys.stdout
    skipped = 0
    with venue, open_input(args.file) as stream:
        for name, table in sorted(venue.tables.items()):
            if table.settings != table.initial_settings:     # the log carries settings
                guard.check(table.settings, f"{args.db} ({name})")
        for lineno, event in read_events(stream, args.file, errors):
            guard.check_event(event, f"{args.file}:{lineno}")
            if event.uid is None:
                event = Event.from_dict({**event.to_dict(), "uid": uid_of(lineno, event)})
            if settings_given and event.type != "settings" and event.table not in venue.tables:
                # a new table's log starts with the settings it is judged by
                _write(out, venue.ingest(Event.from_dict({
                    "t": event.t, "table": event.table, "type": "settings",
                    "settings": settings.to_dict(), "uid": f"{event.uid}:settings"})))
            decisions = venue.ingest_new(event)
            if decisions is None:
                skipped += 1
                print(f"{args.file}:{lineno}: skipped, already recorded (uid {event.uid})",
                      file=sys.stderr)
                continue
            _write(out, decisions)
        if args.state:
            for name, table in sorted(venue.tables.items()):
                out.write(json.dumps({"type": "state", **table.snapshot()}, ensure_ascii=False,
                                     separators=(",", ":")) + "\n")
    out.flush()
    if skipped:
        print(f"record: {skipped} event(s) skipped as already recorded", file=sys.stderr)
    return EXIT_BAD_INPUT if errors else EXIT_OK


def _write(out, decisions) -> None:
    for dec in decisions:
        out.write(dec.to_json() + "\n")
    out.flush()


def _uid_maker(args: argparse.Namespace):
    """uid for an event that has none: unique across runs, yet the same for the
    same line of the same file, so recording a file again skips what is stored."""
    if args.file == "-" and not args.source_id:
        run_id = uuid.uuid4().hex[:12]     # stdin cannot be read twice: every run is new
        return lambda lineno, event: f"stdin:{run_id}:{lineno}"
    source = args.source_id or os.path.basename(args.file)

    def uid(lineno: int, event: Event) -> str:
        digest = hashlib.sha256(event.to_json().encode("utf-8")).hexdigest()[:16]
        return f"{source}:{lineno}:{digest}"
    return uid


def register(subparsers) -> None:
    add_events_command(subparsers, "record", run,
                       help="referee events live into the venue's event log", description=__doc__,
                       file_help="events, one JSON object per line ('-' for stdin)",
                       options=_options)


def _options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", required=True, metavar="VENUE.sqlite", help="the venue's event log")
    p.add_argument("--source-id", metavar="NAME", help="uid prefix for events without one")
    p.add_argument("--state", action="store_true", help="print each table's final state as a JSON line")
