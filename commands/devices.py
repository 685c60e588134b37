"""`guandan-ref devices list|monitor|run`: the table's serial devices.

    guandan-ref devices list [--binding devices.toml] [--probe 2]
    guandan-ref devices monitor /dev/ttyUSB0 [--binding devices.toml] [--heartbeats]
    guandan-ref devices run --binding devices.toml      # events as JSON lines
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

from commands import UsageError
from commands.args import existing_file, number, seconds


def register(subparsers) -> None:
    p = subparsers.add_parser("devices", help="list, monitor and run the table's serial devices",
                              description="Pass and count-report devices on serial ports "
                                          "(protocol: hardware/PROTOCOL.md).")
    sub = p.add_subparsers(dest="devices_command", metavar="ACTION")
    sub.required = True

    lp = sub.add_parser("list", help="show serial ports and bound devices")
    lp.add_argument("--binding", metavar="FILE", type=existing_file, help="binding file (TOML: device id -> table, seats)")
    lp.add_argument("--port", action="append", default=[], metavar="PATH",
                    help="also look at this port (a pty, a by-id link); repeatable")
    lp.add_argument("--probe", type=seconds(0, 3600), default=0.0, metavar="SECONDS",
                    help="listen on every port this long (no ACKs sent) and show who is there")
    lp.set_defaults(func=cmd_list)

    mp = sub.add_parser("monitor", help="print decoded frames from ports, live")
    mp.add_argument("ports", nargs="+", metavar="PORT")
    mp.add_argument("--binding", metavar="FILE", type=existing_file, help="binding file, to print events too")
    mp.add_argument("--heartbeats", action="store_true", help="also print HB frames")
    mp.add_argument("--no-ack", action="store_true",
                    help="listen only: send no ACKs (devices keep resending)")
    mp.add_argument("--duration", type=seconds(0, 7 * 24 * 3600, above=True), metavar="SECONDS",
                    help="stop after this long")
    mp.set_defaults(func=cmd_monitor)

    kp = sub.add_parser("knock", help="optional: a contact microphone's knocks as passes",
                        description="Listen for knocks on the table (a pass, as the rules "
                                    "allow) and print pass events as JSON lines. Off unless run.")
    kp.add_argument("--seat", required=True, choices=list("ESWN"))
    kp.add_argument("--table", default="T01", help="table id (default T01)")
    kp.add_argument("--input", metavar="DEVICE", help="sounddevice input (index or name)")
    kp.add_argument("--wav", metavar="FILE", type=existing_file,
                    help="read a 16-bit PCM WAV recording instead of a microphone")
    kp.add_argument("--duration", type=seconds(0, 7 * 24 * 3600, above=True), metavar="SECONDS",
                    help="stop after this long")
    kp.set_defaults(func=cmd_knock)

    rp = sub.add_parser("run", help="read the bound devices' ports and print events as JSON lines")
    rp.add_argument("--binding", metavar="FILE", required=True, type=existing_file,
                    help="binding file (TOML: device id -> table, seats)")
    rp.add_argument("--port", action="append", default=[], metavar="PATH",
                    help="port to read (default: the binding file's 'ports'); repeatable")
    rp.add_argument("--duration", type=seconds(0, 7 * 24 * 3600, above=True), metavar="SECONDS",
                    help="stop after this long")
    rp.set_defaults(func=cmd_run)


def _binding(path: str | None):
    from hardware.binding import Binding, BindingError, load_binding
    if path is None:
        return Binding()
    try:
        return load_binding(path)
    except BindingError as exc:
        raise UsageError(str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read binding file {path}: {exc}") from None


def _positive(value: float | None, name: str) -> None:
    if value is not None and not value > 0:
        raise UsageError(f"{name} must be a positive number of seconds, got {value}")


def _stamp() -> str:
    now = time.time()
    return time.strftime("%H:%M:%S", time.localtime(now)) + f".{int(now % 1 * 1000):03d}"


def _wait(duration: float | None) -> None:
    """Until the duration is over, or forever (Ctrl-C ends it)."""
    threading.Event().wait(duration)


def cmd_list(args: argparse.Namespace) -> int:
    from serial.tools import list_ports

    from hardware.reader import DeviceHub
    binding = _binding(args.binding)
    if args.probe < 0:
        raise UsageError(f"--probe must be >= 0 seconds, got {args.probe}")
    found = sorted(list_ports.comports(), key=lambda p: p.device)
    print("Serial ports:")
    for p in found:
        about = "  ".join(x for x in (p.description, p.hwid) if x and x != "n/a")
        print(f"  {p.device:<24} {about}".rstrip())
    if not found:
        print("  (none found by the system)")
    ports = list(dict.fromkeys([p.device for p in found] + list(binding.ports) + args.port))
    heard: dict = {}
    if args.probe and ports:
        hub = DeviceHub(binding, lambda e: None, ports=ports, ack=False,
                        on_problem=lambda m: None)
        hub.start()
        _wait(args.probe)
        hub.stop()
        heard = hub.host.snapshot()
    label = f" ({args.binding})" if args.binding else ""
    print(f"Bound devices{label}:")
    for dev in binding.devices.values():
        line = (f"  {dev.device:<16} table {dev.table:<6} seats {''.join(dev.seats):<4} "
                f"serves {','.join(dev.serves)}")
        if args.probe:
            h = heard.get(dev.device)
            line += (f"  heard on {h['port']}, fw {h['fw'] or '?'}, seats {h['seats'] or '?'}"
                     if h else "  not heard")
        print(line)
    if not binding.devices:
        print("  (none: give --binding FILE)")
    strangers = {d: h for d, h in heard.items() if not h["bound"]}
    if strangers:
        print("Heard but not bound (add them to the binding file):")
        for d, h in sorted(strangers.items()):
            print(f"  {d:<16} on {h['port']}, fw {h['fw'] or '?'}, seats {h['seats'] or '?'}")
    return 0


def cmd_monitor(args: argparse.Namespace) -> int:
    from hardware.protocol import Frame
    from hardware.reader import DeviceHub
    binding = _binding(args.binding)
    _positive(args.duration, "--duration")
    missing = [p for p in args.ports if not p.startswith(("rfc2217:", "socket:")) and not Path(p).exists()]
    if missing:
        raise UsageError(f"no serial port {', '.join(missing)} (`guandan-ref devices list` shows "
                         f"the ports there are)")
    lock = threading.Lock()

    def say(port: str, what: str, text: str) -> None:
        with lock:
            print(f"{_stamp()} {port} {what:<7} {text}", flush=True)

    def traffic(port: str, what: str, item) -> None:
        if isinstance(item, Frame):
            if item.kind == "HB" and not args.heartbeats:
                return
            say(port, what, item.describe())
        elif what == "reject":
            say(port, "bad", f"{item.detail}: {item.raw!r}")
        else:
            say(port, what, str(item))

    hub = DeviceHub(binding, lambda e: say("-", "event", e.to_json()), ports=args.ports,
                    ack=not args.no_ack, on_traffic=traffic,
                    on_problem=lambda m: say("-", "problem", m))
    hub.start()
    try:
        _wait(args.duration)
    finally:   # the tally also on Ctrl-C
        hub.stop()
        for r in hub.readers:
            p = r.parser
            bad = ", ".join(f"{k} {v}" for k, v in sorted(p.rejects.items())) or "none"
            print(f"{r.port}: {p.frames} frames, rejected: {bad}; "
                  f"opened {r.opens}x, lost {r.losses}x", file=sys.stderr)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from hardware.reader import DeviceHub
    binding = _binding(args.binding)
    _positive(args.duration, "--duration")
    ports = args.port or list(binding.ports)
    if not ports:
        raise UsageError(f"no ports: give --port PATH or a 'ports' list in {args.binding}")
    missing = [p for p in ports if not p.startswith(("rfc2217:", "socket:")) and not Path(p).exists()]
    if missing:
        # `table` waits for a port to appear; this command reads named ports now
        raise UsageError(f"no serial port {', '.join(missing)} (`guandan-ref devices list` shows "
                         f"the ports there are)")
    lock = threading.Lock()

    def emit(event) -> None:
        with lock:
            print(event.to_json(), flush=True)

    hub = DeviceHub(binding, emit, ports=ports,
                    on_problem=lambda m: print(f"devices: {m}", file=sys.stderr, flush=True))
    hub.start()
    try:
        _wait(args.duration)
    finally:   # the tally also on Ctrl-C
        hub.stop()
        print(json.dumps({"stats": vars(hub.host.stats)}), file=sys.stderr)
    return 0


def cmd_knock(args: argparse.Namespace) -> int:
    from hardware.knock import KnockListener, read_wav
    _positive(args.duration, "--duration")

    def emit(event) -> None:
        print(event.to_json(), flush=True)

    if args.wav:
        try:
            samples, rate = read_wav(args.wav)
        except (OSError, ValueError) as exc:
            raise UsageError(str(exc)) from None
        # times in the file's own seconds
        KnockListener(args.seat, emit, table=args.table, rate=rate, clock=lambda: 0.0).take(samples)
        return 0
    device = int(args.input) if args.input and args.input.isdigit() else args.input
    listener = KnockListener(args.seat, emit, table=args.table, device=device)
    if not listener.start():
        raise UsageError(f"no audio input: {listener.failed}")
    try:
        _wait(args.duration)
    finally:
        listener.stop()
    return 0
