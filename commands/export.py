"""``guandan-ref export`` and ``guandan-ref import``: an event log (SQLite) to
JSON lines and back, for archiving and sharing.

    guandan-ref export --db venue.sqlite [--table T01] > events.jsonl
    guandan-ref import --db archive.sqlite events.jsonl

``export`` prints every stored event, table by table in log order, with its
``id`` and ``uid``; ``replay`` of the file gives the decisions the log gave.
``import`` stores the lines in a log that does not yet hold their tables, so
every event keeps its number (the ``ref`` of referee events stays right).
"""

from __future__ import annotations

import argparse
import sys

from commands import EXIT_BAD_INPUT, EXIT_OK, UsageError
from commands.args import existing_file, input_file, new_file_in_existing_dir


def sqlite_store(path: str):
    """The SQLite event log at ``path``; a file that is not one is a UsageError
    (``export``, ``import``, ``deal``, ``deal-record``, ``camera-check``)."""
    from storage.sqlite_log import EventStore, StoreError
    try:
        return EventStore(path)
    except StoreError as exc:
        raise UsageError(str(exc)) from None


def cmd_export(args: argparse.Namespace) -> int:
    with sqlite_store(args.db) as store:
        tables = store.tables()
        if args.table:
            if args.table not in tables:
                raise UsageError(f"no table {args.table!r} in {args.db} "
                                 f"(it holds: {', '.join(tables) or 'no events'})")
            tables = [args.table]
        out = sys.stdout
        n = 0
        for table in tables:
            for event in store.stream(table):
                out.write(event.to_json() + "\n")
                n += 1
        out.flush()
    print(f"exported {n} events of {len(tables)} table(s) from {args.db}", file=sys.stderr)
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    from commands.events_input import open_input, read_events

    errors: list[str] = []
    with open_input(args.file) as stream:
        events = [e for _, e in read_events(stream, args.file, errors)]
    with sqlite_store(args.db) as store:
        held = sorted({e.table for e in events if store.count(e.table)})
        if held:
            raise UsageError(f"{args.db} already holds events of table(s) {', '.join(held)}; "
                             f"import into a new file (numbers and refs must not shift)")
        stored = sum(store.append(e) is not None
                     for e in events)
    print(f"imported {stored} events into {args.db}"
          + (f" ({len(events) - stored} with a uid already stored, skipped)" if stored < len(events) else "")
          + (f"; {len(errors)} bad line(s) skipped" if errors else ""), file=sys.stderr)
    return EXIT_BAD_INPUT if errors else EXIT_OK


def register(sub) -> None:
    p = sub.add_parser("export", help="print a SQLite event log as JSON lines (archive, share, replay)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", required=True, type=existing_file, metavar="LOG.sqlite",
                   help="the event log to read")
    p.add_argument("--table", metavar="T", help="only this table (default: every table)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="store JSON lines events in a new SQLite event log",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE.jsonl", type=input_file,
                   help="events, one JSON object per line ('-' for stdin), e.g. from export")
    p.add_argument("--db", required=True, type=new_file_in_existing_dir, metavar="LOG.sqlite",
                   help="the event log to write (made if missing)")
    p.set_defaults(func=cmd_import)
