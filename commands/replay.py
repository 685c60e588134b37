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
from typing import IO, Iterator

from commands import EXIT_BAD_INPUT, EXIT_OK, UsageError
from referee.events import Event, EventError
from referee.settings import Settings, SettingsError
from referee.table import Table


def add_settings_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", default="game", metavar="FORMAT",
                   help="match format: game (first past A), deals:N, time:MINUTES, "
                        "time_deals:MINUTES,N (default game)")
    p.add_argument("--tie", choices=("draw", "extra_deal"), default="draw",
                   help="equal levels at the end: a draw, or one extra deal (default draw)")
    p.add_argument("--countdown", type=float, default=10.0, metavar="SECONDS",
                   help="读秒 length after a limit runs out (default 10)")
    p.add_argument("--min-confidence", type=float, default=0.8, metavar="P",
                   help="vision events below this confidence are asked about (default 0.8)")


def settings_from_args(args: argparse.Namespace) -> Settings:
    try:
        return Settings.parse_format(args.format, tie=args.tie, countdown=args.countdown,
                                     min_confidence=args.min_confidence)
    except SettingsError as exc:
        raise UsageError(str(exc)) from None


def read_events(stream: IO[str], name: str, errors: list[str]) -> Iterator[tuple[int, Event]]:
    """(line number, event) for every good line; bad lines go to ``errors`` and stderr."""
    for lineno, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            yield lineno, Event.from_json(line)
        except EventError as exc:
            msg = f"{name}:{lineno}: {exc}"
            errors.append(msg)
            print(msg, file=sys.stderr)


def open_input(path: str) -> IO[str]:
    if path == "-":
        return sys.stdin
    try:
        return open(path, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


def run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    tables: dict[str, Table] = {}
    errors: list[str] = []
    out = sys.stdout
    with open_input(args.file) as stream:
        for _, event in read_events(stream, args.file, errors):
            table = tables.get(event.table)
            if table is None:
                table = tables[event.table] = Table(event.table, settings)
            for d in table.feed(event):
                out.write(d.to_json() + "\n")
    for name, table in sorted(tables.items()):
        sheet = {"type": "score_sheet", "table": name, **table.match.score_sheet()}
        out.write(json.dumps(sheet, ensure_ascii=False, separators=(",", ":")) + "\n")
        if args.csv_dir:
            os.makedirs(args.csv_dir, exist_ok=True)
            with open(os.path.join(args.csv_dir, f"{name}.csv"), "w", encoding="utf-8") as f:
                f.write(table.match.score_sheet_csv())
    out.flush()
    return EXIT_BAD_INPUT if errors else EXIT_OK


def register(subparsers) -> None:
    p = subparsers.add_parser("replay", help="referee a recorded event log (JSON lines)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE.jsonl", help="event log, one JSON event per line ('-' for stdin)")
    p.add_argument("--csv-dir", metavar="DIR", help="also write each table's score sheet as DIR/TABLE.csv")
    add_settings_arguments(p)
    p.set_defaults(func=run)
