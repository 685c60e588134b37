"""`guandan-ref simulate-devices`: table devices on pseudo-terminals.

    guandan-ref simulate-devices --device P01:E --device P02:S --binding-out devices.toml
    guandan-ref simulate-devices --script demo.sim

Prints one line per device, ``DEVICE PATH (-> /dev/pts/N)``, then ``ready``;
a reader opens PATH. Without a script, actions come from standard input,
one a line: ``[DEVICE] pass E``, ``count E 9``, ``clear E``, ``unplug``,
``replug``, ``silence``, ``resume``, ``reboot``; ``quit`` ends.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

from commands import UsageError
from commands.args import existing_file, new_file_in_existing_dir, probability, seconds, writable_dir
from storage.files import write_whole


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "simulate-devices", help="simulated pass/count devices on pseudo-terminals",
        description="Create pseudo-terminals that behave like the table devices "
                    "(hardware/PROTOCOL.md): heartbeats, presses from a script or the "
                    "keyboard, resends, optional noise and unplugging.")
    p.add_argument("--script", metavar="FILE", type=existing_file, help="timed script of devices and presses")
    p.add_argument("--device", action="append", default=[], metavar="ID:SEATS",
                   help="a device and the seats it serves, e.g. P01:E or BOX:ESWN "
                        "(repeatable; default SIM1:ESWN; not with --script)")
    p.add_argument("--link-dir", metavar="DIR", type=writable_dir,
                   help="directory for the stable port links (default: a new temporary one)")
    p.add_argument("--noise", type=probability, default=0.0, metavar="RATE",
                   help="probability of random bytes before each frame (0..1)")
    p.add_argument("--corrupt", type=probability, default=0.0, metavar="RATE",
                   help="probability that a frame goes out with a changed byte (0..1)")
    p.add_argument("--table", default="T01", help="table name for --binding-out (default T01)")
    p.add_argument("--binding-out", metavar="FILE", type=new_file_in_existing_dir,
                   help="write a binding file for the simulated devices here")
    p.add_argument("--duration", type=seconds(0, 7 * 24 * 3600, above=True), metavar="SECONDS",
                   help="stop after this long")
    p.set_defaults(func=cmd_simulate)


def _specs(args: argparse.Namespace):
    from hardware.simulator import ScriptError, parse_device, parse_script
    for name, rate in (("--noise", args.noise), ("--corrupt", args.corrupt)):
        if not 0.0 <= rate <= 1.0:
            raise UsageError(f"{name} must be from 0 to 1, got {rate}")
    if args.duration is not None and not args.duration > 0:
        raise UsageError(f"--duration must be a positive number of seconds, got {args.duration}")
    try:
        if args.script:
            if args.device:
                raise UsageError("give devices in the script or with --device, not both")
            try:
                text = Path(args.script).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise UsageError(f"cannot read script {args.script}: {exc}") from None
            script = parse_script(text, args.script)
            return script.devices, script
        specs = [parse_device(d.replace(":", " ", 1).split(), f"--device {d}")
                 for d in (args.device or ["SIM1:ESWN"])]
    except ScriptError as exc:
        raise UsageError(str(exc)) from None
    ids = [s.device for s in specs]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise UsageError(f"device {', '.join(dupes)} given twice")
    return specs, None


def cmd_simulate(args: argparse.Namespace) -> int:
    specs, script = _specs(args)
    devices = _start_devices(specs, args)
    try:
        if args.binding_out:
            _write_binding(specs, args.table, args.binding_out)
        for d in devices.values():
            print(f"{d.device_id} {d.path} (-> {d.pty})", flush=True)
        print("ready", flush=True)
        run = _RunTime(args.duration)
        if script is not None:
            _play_script(script, devices, run)
        else:
            specs_by_id = {s.device: s for s in specs}
            threading.Thread(target=_keyboard, args=(devices, specs_by_id, run.stopped),
                             daemon=True).start()
            run.wait_until(None)
    finally:
        for d in devices.values():
            d.stop()
    return 0


def _start_devices(specs, args: argparse.Namespace) -> dict:
    """The devices started, by id; none left running if one cannot be made."""
    from hardware.simulator import SimulatedDevice

    devices: dict[str, SimulatedDevice] = {}
    try:
        for s in specs:
            devices[s.device] = SimulatedDevice(
                s.device, s.seats, link_dir=args.link_dir,
                noise=s.noise or args.noise, corrupt=s.corrupt or args.corrupt,
                ack_loss=s.ack_loss).start()
    except OSError as exc:
        for d in devices.values():
            d.stop()
        raise UsageError(f"cannot create the device ports: {exc}") from None
    return devices


def _write_binding(specs, table: str, path: str) -> None:
    from hardware.binding import DeviceBinding, binding_toml

    write_whole(path, binding_toml([DeviceBinding(s.device, table, tuple(s.seats)) for s in specs]))


class _RunTime:
    """The run's clock: it started when made, ends after ``duration`` seconds
    (None: never) or once ``stopped`` is set."""

    def __init__(self, duration: float | None) -> None:
        self.start = time.monotonic()
        self.stop_at = None if duration is None else self.start + duration
        self.stopped = threading.Event()

    def wait_until(self, t: float | None) -> bool:
        """Wait until monotonic ``t`` (or the end); False once it is time to stop."""
        stop_at = self.stop_at
        limit = stop_at if t is None else (t if stop_at is None else min(t, stop_at))
        self.stopped.wait(None if limit is None else max(0.0, limit - time.monotonic()))
        return not self.stopped.is_set() and (stop_at is None or time.monotonic() < stop_at)


def _play_script(script, devices: dict, run: _RunTime) -> None:
    """Each step at its time, printed as it is done; then wait for the end."""
    from hardware.simulator import apply

    for step in script.steps:
        if not run.wait_until(run.start + step.t):
            break
        if step.action == "end":
            break
        apply(devices[step.device], step.action, step.args)
        print(f"{step.t:8.3f} {step.device} {step.action} "
              f"{' '.join(map(str, step.args))}".rstrip(), flush=True)
    else:
        run.wait_until(None)


def _keyboard(devices: dict, specs_by_id: dict, stopped: threading.Event) -> None:
    """Actions from standard input, one a line, until ``quit`` (which ends the run)."""
    from hardware.simulator import ScriptError, apply, parse_action

    for line in sys.stdin:
        tokens = line.split()
        if not tokens:
            continue
        if tokens == ["quit"]:
            break
        try:
            dev, action, argv = parse_action(tokens, specs_by_id, "input")
            apply(devices[dev], action, argv)
            print(f"{dev} {action} {' '.join(map(str, argv))}".rstrip(), flush=True)
        except ScriptError as exc:
            print(exc, file=sys.stderr, flush=True)
    else:
        print("input closed; devices keep running (Ctrl-C to stop)", file=sys.stderr,
              flush=True)
        return
    stopped.set()
