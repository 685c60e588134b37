"""`guandan-ref audio`: the table speaker, fed with the referee's decisions.

    guandan-ref audio < decisions.jsonl            # JSON lines on standard input
    guandan-ref audio --demo --voice cmn            # hear a countdown and the alert

Each decision is timed from the moment it arrives (a live referee's ``t``
is now anyway; a replay plays as it comes). Prints each sound as it plays;
with no audio device it says so once and goes on.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from commands import UsageError
from commands.args import integer


def register(subparsers) -> None:
    p = subparsers.add_parser("audio", help="countdown beeps and violation alerts on the speaker",
                              description="Play the countdown (读秒) and violation alerts for "
                                          "referee decisions read as JSON lines on stdin.")
    p.add_argument("--output", metavar="DEVICE", help="sounddevice output (index or name)")
    p.add_argument("--voice", metavar="VOICE",
                   help="speak the count with espeak-ng in this voice (cmn, en, ...) if installed")
    p.add_argument("--last", type=integer(1, 60, "a number of seconds"), default=10, metavar="N",
                   help="sound the last N seconds of a countdown (default 10)")
    p.add_argument("--demo", action="store_true",
                   help="play a 5-second countdown, then the violation alert")
    p.set_defaults(func=cmd_audio)


def _check_voice(voice: str, engine: str = "espeak-ng") -> None:
    """A missing engine and an unknown voice are different fixes: say which."""
    import shutil
    import subprocess
    exe = shutil.which(engine)
    if exe is None:
        raise UsageError(f"--voice {voice}: {engine} is not installed (apt-get install espeak-ng), "
                         f"or leave out --voice for beeps only")
    r = subprocess.run([exe, "-q", "-v", voice, ""], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise UsageError(f"--voice {voice}: {engine} has no such voice (`{engine} --voices` lists "
                         f"them; e.g. cmn, en)")


def _print_cue(cue) -> None:
    parts = [cue.sound, "" if cue.remaining is None else str(cue.remaining), cue.seat or ""]
    print(" ".join(p for p in parts if p), flush=True)


def cmd_audio(args: argparse.Namespace) -> int:
    from hardware.audio import AudioSink, Speaker
    if args.voice:
        _check_voice(args.voice)
    output = int(args.output) if args.output and args.output.isdigit() else args.output
    sink = AudioSink(Speaker(output), last=args.last, voice=args.voice, clock=time.monotonic,
                     on_play=_print_cue)

    def feed(decision: dict) -> None:
        if isinstance(decision.get("t"), (int, float)):
            decision = {**decision, "t": time.monotonic()}   # timed from its arrival
        sink.on_decision(decision)

    def play_out() -> None:
        """Until every pending sound has played, then the last one's length."""
        while sink.scheduler.pending:
            sink.tick()
            time.sleep(0.01)
        time.sleep(0.6)   # the last sound is still coming out of the speaker

    if args.demo:
        feed({"t": 0, "type": "countdown", "seat": "E", "seconds": min(5, args.last)})
        play_out()
        feed({"t": 0, "type": "violation", "seat": "E", "code": "overtime"})
        play_out()
        return 0

    sink.start()
    try:
        for number, line in enumerate(sys.stdin, 1):
            if not line.strip():
                continue
            try:
                decision = json.loads(line)
            except json.JSONDecodeError as exc:
                print(f"stdin line {number}: not JSON ({exc.msg}); skipped", file=sys.stderr)
                continue
            if isinstance(decision, dict):
                feed(decision)
    finally:
        sink.stop()
    play_out()
    return 0
