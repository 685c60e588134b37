"""The ``guandan-ref`` command line.

Each sub-command group lives in its own module here and exposes
``register(subparsers)``; the module adds its parser and sets ``func`` to a
callable ``func(args) -> int`` (the exit status).

Exit statuses shared by every sub-command: 0 success, 1 a negative answer
(an illegal play, a violation found), 2 bad input (message on stderr).
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that register sub-commands, in the order `--help` lists them.
COMMAND_MODULES = [
    "commands.judge",
    "commands.replay",
    "commands.record",
    "commands.dashboard",
    "commands.venue",
    "commands.table",
    "commands.devices",
    "commands.simulate_devices",
    "commands.audio",
    "commands.vision",
]

EXIT_OK, EXIT_NO, EXIT_BAD_INPUT = 0, 1, 2


class UsageError(Exception):
    """Bad input from the user: printed on stderr, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="guandan-ref",
        description="Referee assistant for competitive Guandan (掼蛋).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"guandan-ref {args.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
