"""``guandan-ref replay FILE.jsonl``: referee a recorded event log.

Prints every decision as one JSON line, then each table's score sheet as a
JSON line (``"type": "score_sheet"``). A bad line is reported on stderr with
its line number and skipped; the rest still runs (exit status 2 if any line
was bad, else 0).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from commands import EXIT_BAD_INPUT, EXIT_OK, UsageError
from commands.args import writable_dir
from commands.events_input import (SettingsGuard, add_events_command, open_input, read_events,
                                   settings_from_args)
from referee.table import Table
from storage.files import write_whole


def run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    guard = SettingsGuard(args, settings)
    tables: dict[str, Table] = {}
    errors: list[str] = []
    out = sys.stdout
    with open_input(args.file) as stream:
        for lineno, event in read_events(stream, args.file, errors):
            guard.check_event(event, f"{args.file}:{lineno}")
            table = tables.get(event.table)
            if table is None:
                table = tables[event.table] = Table(event.table, settings,
                                                    log_settings=not args.override_settings)
            for d in table.feed(event):
                out.write(d.to_json() + "\n")
    for name, table in sorted(tables.items()):
        sheet = {"type": "score_sheet", "table": name, **table.match.score_sheet()}
        out.write(json.dumps(sheet, ensure_ascii=False, separators=(",", ":")) + "\n")
        if args.csv_dir:
            path = os.path.join(args.csv_dir, f"{name}.csv")
            try:
                os.makedirs(args.csv_dir, exist_ok=True)
                write_whole(path, table.match.score_sheet_csv())
            except OSError as exc:
                raise UsageError(f"cannot write {path}: {exc.strerror}; give another --csv-dir") from None
    out.flush()
    return EXIT_BAD_INPUT if errors else EXIT_OK


def register(subparsers) -> None:
    add_events_command(subparsers, "replay", run, help="referee a recorded event log (JSON lines)",
                       description=__doc__,
                       file_help="event log, one JSON event per line ('-' for stdin)",
                       options=_options)


def _options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--csv-dir", metavar="DIR", type=writable_dir, help="also write each table's score sheet as DIR/TABLE.csv")
