"""What the commands that referee a file of events share (``replay``,
``record``): their parser, the referee settings flags, reading the events."""

from __future__ import annotations

import argparse
import sys
from typing import IO, Callable, Iterator

from commands import UsageError
from commands.args import probability, seconds
from referee.events import Event, EventError
from referee.settings import CAMERA_PENALTY_RULES, Settings, SettingsError


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


SETTINGS_FLAGS = ("format", "tie", "countdown", "min_confidence", "out_of_turn_pass", "camera_penalties")


def add_settings_arguments(p: argparse.ArgumentParser) -> None:
    """The referee settings flags. A log that carries its match's settings (a
    ``settings`` event) is judged by those; a flag that disagrees with them is an
    error naming the difference, unless ``--override-settings``."""
    p.add_argument("--format", default=None, metavar="FORMAT",
                   help="match format: game (first past A), deals:N, time:MINUTES, "
                        "time_deals:MINUTES,N (default game)")
    p.add_argument("--tie", choices=("draw", "extra_deal"), default=None,
                   help="equal levels at the end: a draw, or one extra deal (default draw)")
    p.add_argument("--countdown", type=seconds(0, 600), default=None, metavar="SECONDS",
                   help="读秒 length after a limit runs out (default 10)")
    p.add_argument("--min-confidence", type=probability, default=None, metavar="P",
                   help="vision events below this confidence are asked about (default 0.8)")
    p.add_argument("--out-of-turn-pass", choices=("warning", "sit_out_trick"), default=None,
                   help="越序表态: a warning (2023 rules, default) or sit out the trick (2022 rules)")
    p.add_argument("--camera-penalties", choices=CAMERA_PENALTY_RULES, default=None,
                   help="a penalty found in a camera's read, or a count report fault resting on its "
                        "reads: confirm (held until the referee confirms the read or counts the hand, "
                        "default) or direct (given at once)")
    p.add_argument("--override-settings", action="store_true",
                   help="judge with these flags even where the log carries other settings")


def settings_from_args(args: argparse.Namespace) -> Settings:
    defaults = Settings()
    try:
        return Settings.parse_format(
            args.format or "game",
            tie=args.tie or defaults.tie,
            countdown=defaults.countdown if args.countdown is None else args.countdown,
            min_confidence=defaults.min_confidence if args.min_confidence is None else args.min_confidence,
            out_of_turn_pass=args.out_of_turn_pass or defaults.out_of_turn_pass,
            camera_penalties=args.camera_penalties or defaults.camera_penalties)
    except SettingsError as exc:
        raise UsageError(str(exc)) from None


def explicit_settings(args: argparse.Namespace) -> bool:
    """True when the command line names any referee setting."""
    return any(getattr(args, name) is not None for name in SETTINGS_FLAGS)


class SettingsGuard:
    """Checks a log's ``settings`` events against settings given on the command line."""

    def __init__(self, args: argparse.Namespace, settings: Settings) -> None:
        self.settings = settings
        self.strict = explicit_settings(args) and not args.override_settings

    def check(self, logged: Settings, where: str) -> None:
        """Raise :class:`UsageError` naming each difference (when flags were given)."""
        diff = self.settings.differences(logged) if self.strict else []
        if diff:
            raise UsageError(f"{where}: the log carries other match settings than the command line "
                             f"({'; '.join(f'{d} in the log' for d in diff)}): leave out the flags "
                             f"to judge by the log, or add --override-settings")

    def check_event(self, event: Event, where: str) -> None:
        if event.type == "settings":
            self.check(Settings.from_dict(event.get("settings")), where)


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
