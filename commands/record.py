"""``guandan-ref record --db VENUE.sqlite FILE.jsonl``: referee events live and
keep them in the venue's append-only log.

Each event is stored (SQLite, WAL) before it is judged, and its decisions are
printed as JSON lines at once. Started again on the same database, the
command replays the stored log first and carries on where the last run
stopped: events whose ``uid`` is already stored are skipped (lines without a
uid get ``SOURCE:LINE``, SOURCE from ``--source-id``, default the file name).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from commands import EXIT_BAD_INPUT, EXIT_OK, UsageError
from commands.events_input import add_events_command, open_input, read_events, settings_from_args
from referee.events import Event
from services.venue import Venue
from storage.sqlite_log import StoreError


def run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    source = args.source_id or ("stdin" if args.file == "-" else os.path.basename(args.file))
    errors: list[str] = []
    try:
        venue = Venue(args.db, settings)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    out = sys.stdout
    with venue, open_input(args.file) as stream:
        for lineno, event in read_events(stream, args.file, errors):
            if event.uid is None:
                d = event.to_dict()
                d["uid"] = f"{source}:{lineno}"
                event = Event.from_dict(d)
            for dec in venue.ingest(event):
                out.write(dec.to_json() + "\n")
            out.flush()
        if args.state:
            for name, table in sorted(venue.tables.items()):
                out.write(json.dumps({"type": "state", **table.snapshot()}, ensure_ascii=False,
                                     separators=(",", ":")) + "\n")
    out.flush()
    return EXIT_BAD_INPUT if errors else EXIT_OK


def register(subparsers) -> None:
    add_events_command(subparsers, "record", run,
                       help="referee events live into the venue's event log", description=__doc__,
                       file_help="events, one JSON object per line ('-' for stdin)",
                       options=_options)


def _options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", required=True, metavar="VENUE.sqlite", help="the venue's event log")
    p.add_argument("--source-id", metavar="NAME", help="uid prefix for events without one")
    p.add_argument("--state", action="store_true", help="print each table's final state as a JSON line")
