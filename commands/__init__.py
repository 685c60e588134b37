"""The ``guandan-ref`` command line.

Each sub-command group lives in its own module here and exposes
``register(subparsers)``; the module adds its parser and sets ``func`` to a
callable ``func(args) -> int`` (the exit status).

Exit statuses shared by every sub-command: 0 success, 1 a negative answer
(an illegal play, a violation found), 2 bad input (one line on stderr naming
the bad value and the fix). Data goes to stdout, messages to stderr.
Arguments are checked by the ``type=`` functions of :mod:`commands.args`.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys

# Modules that register sub-commands, in the order `--help` lists them.
COMMAND_MODULES = [
    "commands.judge",
    "commands.replay",
    "commands.record",
    "commands.export",
    "commands.appeal",
    "commands.deal",
    "commands.dashboard",
    "commands.venue",
    "commands.table",
    "commands.devices",
    "commands.simulate_devices",
    "commands.audio",
    "commands.vision",
    "commands.camera_check",
]

EXIT_OK, EXIT_NO, EXIT_BAD_INPUT = 0, 1, 2


class UsageError(Exception):
    """Bad input from the user: printed on stderr, exit status 2."""


def version() -> str:
    from importlib.metadata import PackageNotFoundError, version as dist_version
    try:
        return dist_version("guandan-referee")
    except PackageNotFoundError:    # run from a checkout that was never installed
        return "unknown"


class Parser(argparse.ArgumentParser):
    """argparse, with a bad argument said on one line (the usage is behind --help)."""

    def error(self, message: str):
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="guandan-ref",
        description="Referee assistant for competitive Guandan (掼蛋).",
        epilog="Exit status: 0 success, 1 a negative answer (an illegal play), 2 bad input.")
    parser.add_argument("--version", action="version", version=f"guandan-ref {version()}")
    parser.set_defaults(verbose=False, quiet=False)
    _talk_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    for command in set(sub.choices.values()):
        # `guandan-ref replay -v ...` as well as `guandan-ref -v replay ...`
        _talk_options(command)
    return parser


def _talk_options(p: argparse.ArgumentParser) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                   help="log what goes on (INFO), and OpenCV's own messages")
    g.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS,
                   help="log errors only")


def _setup_logging(args: argparse.Namespace) -> None:
    level = logging.INFO if args.verbose else logging.ERROR if args.quiet else logging.WARNING
    logging.basicConfig(level=level, format=f"guandan-ref {args.command}: %(message)s")
    if not args.verbose:
        # OpenCV's C++ code prints to stderr by itself (a missing camera: a few
        # lines at every retry); our messages say it once. Read at cv2's import.
        os.environ.setdefault("OPENCV_LOG_LEVEL", "SILENT")
        cv2 = sys.modules.get("cv2")    # already imported by a command's parser
        if cv2 is not None and os.environ["OPENCV_LOG_LEVEL"] == "SILENT":
            cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_SILENT)
        logging.getLogger("werkzeug").setLevel(logging.WARNING)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:   # --help, --version, a bad argument: its status, also when called in-process
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
    _setup_logging(args)
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"guandan-ref {args.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # the reader went away (`... | head`): not an error of ours; stdout to
        # /dev/null so that the flush at exit does not fail again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        # a file or device the system refused (a full disk, /proc, a permission)
        # where no command-specific check caught it: still one line, exit 2
        logging.getLogger(__name__).info("details", exc_info=True)
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"guandan-ref {args.command}: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
