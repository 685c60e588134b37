"""Argument types shared by every sub-command.

Each is an ``argparse`` ``type=`` callable: it returns the converted value or
raises :class:`argparse.ArgumentTypeError` with a message naming the bad
value and what is accepted; the parser then prints one line on stderr and
exits 2 (see :class:`commands.Parser`).

>>> seconds(0, 60)("2.5")
2.5
>>> seconds(0, 60)("-1")
Traceback (most recent call last):
argparse.ArgumentTypeError: -1 is not a number of seconds from 0 to 60
>>> port("99999")
Traceback (most recent call last):
argparse.ArgumentTypeError: 99999 is not a TCP port (0..65535)
"""

from __future__ import annotations

import argparse
import math
import os
import socket
from pathlib import Path
from typing import Callable


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _g(x: float) -> str:
    return f"{x:g}"


def number(lo: float, hi: float, what: str = "a number") -> Callable[[str], float]:
    """A finite float from ``lo`` to ``hi`` (both included)."""
    def parse(text: str) -> float:
        value = _number(text)
        if value is None or not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{text} is not {what} from {_g(lo)} to {_g(hi)}")
        return value
    parse.__name__ = what    # argparse names the type in some messages
    return parse


def seconds(lo: float = 0.0, hi: float = 24 * 3600.0, *, above: bool = False) -> Callable[[str], float]:
    """Seconds from ``lo`` to ``hi``; with ``above``, strictly more than ``lo``."""
    if not above:
        return number(lo, hi, "a number of seconds")

    def parse(text: str) -> float:
        value = _number(text)
        if value is None or not lo < value <= hi:
            raise argparse.ArgumentTypeError(
                f"{text} is not a number of seconds above {_g(lo)} and up to {_g(hi)}")
        return value
    return parse


def integer(lo: int, hi: int, what: str = "a whole number") -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{text} is not {what} from {lo} to {hi}")
        return value
    parse.__name__ = what
    return parse


def frame_size(text: str) -> tuple[int, int]:
    """A camera's frame size, WIDTHxHEIGHT, each 160-8192 pixels.

    >>> frame_size("3840x2160")
    (3840, 2160)
    >>> frame_size("4k")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 4k is not a frame size WIDTHxHEIGHT such as 3840x2160 (each 160-8192 px)
    """
    w, _, h = text.lower().partition("x")
    if not (w.isdigit() and h.isdigit() and 160 <= int(w) <= 8192 and 160 <= int(h) <= 8192):
        raise argparse.ArgumentTypeError(f"{text} is not a frame size WIDTHxHEIGHT such as 3840x2160 "
                                         f"(each 160-8192 px)")
    return int(w), int(h)


def probability(text: str) -> float:
    """A probability or confidence, 0 to 1."""
    return number(0.0, 1.0, "a probability")(text)


def port(text: str) -> int:
    """A TCP port, 0 (any free port) to 65535."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a TCP port (0..65535)")
    return value


def existing_file(text: str) -> str:
    """A path to a file that exists and can be read."""
    p = Path(text)
    if not p.exists():
        raise argparse.ArgumentTypeError(f"{text} does not exist")
    if p.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a file")
    if not os.access(p, os.R_OK):
        raise argparse.ArgumentTypeError(f"{text}: permission denied")
    return text


def deck_profile(text: str) -> str:
    """A deck profile: a shipped profile's name (``hanzi-jokers``) or a file
    that exists and can be read; the profile's file either way."""
    from vision.reading.deck_profile import SHIPPED_PROFILES

    if text in SHIPPED_PROFILES:
        return str(SHIPPED_PROFILES[text])
    if not Path(text).exists():
        raise argparse.ArgumentTypeError(f"{text} does not exist (a deck profile's .npz file, or a shipped "
                                         f"profile's name: {', '.join(SHIPPED_PROFILES)})")
    return existing_file(text)


def input_file(text: str) -> str:
    """:func:`existing_file`, or ``-`` for standard input."""
    return text if text == "-" else existing_file(text)


def new_file_in_existing_dir(text: str) -> str:
    """A file to write: its folder must exist and be writable (the file may exist)."""
    p = Path(text)
    folder = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder; give a file name")
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: folder {folder} does not exist (create it first)")
    if not os.access(folder, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text}: folder {folder} is not writable")
    return text


def writable_dir(text: str) -> str:
    """A folder to write into: made if missing, if its parent can take it."""
    p = Path(text)
    if p.exists() and not p.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file, not a folder")
    probe = p
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK):
        raise argparse.ArgumentTypeError(f"{text}: cannot create or write a folder there")
    return text


def port_taken(host: str, number: int) -> str | None:
    """Why ``host:number`` cannot be listened on now (None: it can). Checked
    before a long start, so a busy port is said at once, not after minutes."""
    if number == 0:
        return None
    try:
        infos = socket.getaddrinfo(host, number, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        return f"unknown host {host!r} ({exc.strerror})"
    family, _, _, _, addr = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as s:
        # the servers set SO_REUSEADDR too: a port in TIME_WAIT is free to them
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
        except OSError as exc:
            return exc.strerror or str(exc)
    return None
