"""What the commands that referee a file of events share (``replay``,
``record``): their parser, the referee settings flags, reading the events."""

from __future__ import annotations

import argparse
import sys
from typing import IO, Callable, Iterator

from commands import UsageError
from commands.args import probability, seconds
from referee.events import Event, EventError
from referee.settings import Settings, SettingsError


def add_events_command(subparsers, name: str, run: Callable[[argparse.Namespace], int], *,
                       help: str, description: str | None, file_help: str,
                       options: Callable[[argparse.ArgumentParser], None]) -> argparse.ArgumentParser:
    """The ``name`` sub-command: FILE.jsonl, then the command's own ``options``,
    then the referee settings flags (in that order in ``--help``)."""
    p = subparsers.add_parser(name, help=help, description=description,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE.jsonl", help=file_help)
    options(p)
    add_settings_arguments(p)
    p.set_defaults(func=run)
    return p


def add_settings_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", default="game", metavar="FORMAT",
                   help="match format: game (first past A), deals:N, time:MINUTES, "
                        "time_deals:MINUTES,N (default game)")
    p.add_argument("--tie", choices=("draw", "extra_deal"), default="draw",
                   help="equal levels at the end: a draw, or one extra deal (default draw)")
    p.add_argument("--countdown", type=seconds(0, 600), default=10.0, metavar="SECONDS",
                   help="读秒 length after a limit runs out (default 10)")
    p.add_argument("--min-confidence", type=probability, default=0.8, metavar="P",
                   help="vision events below this confidence are asked about (default 0.8)")
    p.add_argument("--out-of-turn-pass", choices=("warning", "sit_out_trick"), default="warning",
                   help="越序表态: a warning (2023 rules, default) or sit out the trick (2022 rules)")


def settings_from_args(args: argparse.Namespace) -> Settings:
    try:
        return Settings.parse_format(args.format, tie=args.tie, countdown=args.countdown,
                                     min_confidence=args.min_confidence,
                                     out_of_turn_pass=args.out_of_turn_pass)
    except SettingsError as exc:
        raise UsageError(str(exc)) from None


def read_events(stream: IO[str], name: str, errors: list[str]) -> Iterator[tuple[int, Event]]:
    """(line number, event) for every good line; bad lines go to ``errors`` and stderr."""
    lineno = 0
    try:
        for lineno, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                yield lineno, Event.from_json(line)
            except EventError as exc:
                msg = f"{name}:{lineno}: {exc}"
                errors.append(msg)
                print(msg, file=sys.stderr)
    except UnicodeDecodeError:   # a binary file: no line of it can be an event
        raise UsageError(f"{name}:{lineno + 1}: not UTF-8 text; give a JSON lines event log "
                         f"(one event per line, docs/events.md)") from None


def open_input(path: str) -> IO[str]:
    if path == "-":
        return sys.stdin
    try:
        return open(path, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
