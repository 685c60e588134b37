"""Simulated table devices on real pseudo-terminals.

A :class:`SimulatedDevice` behaves as PROTOCOL.md asks of firmware: HELLO
at power-up, a heartbeat every second, presses queued and sent one at a
time, each resent until acknowledged. It owns a pty pair; the host opens
:attr:`SimulatedDevice.path`, a symbolic link to the slave side that, like
``/dev/serial/by-id/...`` for a USB adapter, disappears on :meth:`unplug`
and comes back (to a new pty) on :meth:`replug`.

Optional misbehaviour for tests and demos: ``noise`` (probability of
random bytes before a frame), ``corrupt`` (probability that a frame goes
out with one byte changed), ``ack_loss`` (probability that an ACK from the
host is missed), :meth:`silence` (a hung device), :meth:`deafen` (hears
no ACKs at all).

>>> dev = SimulatedDevice("P01", "E").start()
>>> import os; os.path.realpath(dev.path).startswith("/dev/pts/")
True
>>> dev.press_pass("E").kind
'PASS'
>>> dev.stop()

A script drives several devices in time (``guandan-ref simulate-devices
--script FILE``)::

    device P01 E                # id, seats; optional noise= corrupt= ack_loss= rates
    device BOX NS
    0.5  P01 pass E
    1.0  BOX count N 9
    2.0  BOX unplug
    4.0  BOX replug
    6.0  end
"""

from __future__ import annotations

import os
import random
import select
import shutil
import tempfile
import threading
import time
import tty
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from .protocol import (DEVICE_ID, HEARTBEAT_PERIOD, RESEND_AFTER, RESEND_MAX, SEATS, SEQ_MAX,
                       Frame, FrameParser, is_seat_set)


class ScriptError(ValueError):
    """A bad simulator script or command line; the message names the line."""


class SimulatedDevice:
    """One device (pass box, count box, or both) on a pseudo-terminal."""

    def __init__(self, device_id: str, seats: str = SEATS, *, link_dir: str | None = None,
                 heartbeat: float = HEARTBEAT_PERIOD, resend_after: float = RESEND_AFTER,
                 resend_max: float = RESEND_MAX, fw: str = "sim-1.0", noise: float = 0.0,
                 corrupt: float = 0.0, ack_loss: float = 0.0, seed: int | None = None) -> None:
        if not DEVICE_ID.match(device_id):
            raise ScriptError(f"bad device id {device_id!r} (1-16 of A-Z a-z 0-9 _ -)")
        if not is_seat_set(seats):
            raise ScriptError(f"device {device_id}: bad seats {seats!r} (distinct letters of ESWN)")
        # Plain stores of the arguments; alike in shape to other constructors
        # (vision.training.synth.SceneGenerator), not shared logic.
        self.device_id = device_id
        self.seats = seats
        self.heartbeat = heartbeat
        self.resend_after = resend_after
        self.resend_max = resend_max
        self.fw = fw
        self.noise = noise
        self.corrupt = corrupt
        self.ack_loss = ack_loss
        self.rng = random.Random(seed)
        self._own_dir = link_dir is None
        self.link_dir = Path(link_dir or tempfile.mkdtemp(prefix="guandan-sim-"))
        self.path = str(self.link_dir / device_id)
        self.pty: str | None = None
        # what happened, for tests and the CLI
        self.sent: deque[tuple[Frame, bool]] = deque(maxlen=10_000)   # (frame, is_resend)
        self.acked: list[int] = []
        self.dropped_bytes = 0                      # written while nobody could take them
        self._lock = threading.RLock()
        self._master: int | None = None
        self._slave: int | None = None
        self._parser = FrameParser()
        self._queue: deque[Frame] = deque()
        self._inflight: Frame | None = None
        self._sent_at = 0.0
        self._gap = resend_after
        self._next_hb = 0.0
        self._silent = False
        self._deaf = False
        self._seq = 0
        self.boot = ""
        self._stop = threading.Event()
        self._requests: deque = deque()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._thread: threading.Thread | None = None
        self._power_up()

    # -- life cycle ----------------------------------------------------
    def _power_up(self) -> None:
        self.boot = f"{self.rng.getrandbits(32):08X}"
        self._seq = 0
        self._queue.clear()
        self._inflight = None
        self._queue.append(Frame(self.device_id, self._next_seq(), "HELLO",
                                 (self.fw, self.seats, self.boot)))

    def _next_seq(self) -> int:
        self._seq = self._seq % SEQ_MAX + 1
        return self._seq

    def start(self) -> "SimulatedDevice":
        self.replug()
        self._thread = threading.Thread(target=self._run, name=f"sim {self.device_id}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._wake()
        if self._thread is not None:
            self._thread.join(2.0)
        self.unplug()
        os.close(self._wake_r)
        os.close(self._wake_w)
        if self._own_dir:
            shutil.rmtree(self.link_dir, ignore_errors=True)

    # The with-statement shape of PortReader (hardware.reader) too: each
    # starts and stops its own thread, and their stops share nothing else.
    def __enter__(self) -> "SimulatedDevice":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _wake(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except (BlockingIOError, OSError):
            pass

    # -- the cable -----------------------------------------------------
    def _call(self, fn) -> None:
        """Run ``fn`` on the device thread, between two selects: closing an
        fd that another thread is selecting on keeps the pty alive until
        that select times out, so the host would see the unplug late."""
        thread = self._thread
        if thread is None or not thread.is_alive() or threading.current_thread() is thread:
            with self._lock:
                fn()
            return
        done = threading.Event()
        self._requests.append((fn, done))
        self._wake()
        if not done.wait(5.0):
            raise RuntimeError(f"simulated device {self.device_id} is not responding")

    def unplug(self) -> None:
        """Pull the cable: the pty and the link vanish; presses still queue."""
        self._call(self._unplug)

    def _unplug(self) -> None:
        if os.path.lexists(self.path):
            os.remove(self.path)
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        self.pty = None

    def replug(self) -> None:
        """Plug back in: a new pty behind the same link; unacknowledged
        frames go out again at once."""
        self._call(self._replug)

    def _replug(self) -> None:
        if self._master is not None:
            return
        master, slave = os.openpty()
        tty.setraw(slave)          # no echo, no CR/LF translation, before the host opens it
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.pty = os.ttyname(slave)
        self._parser.reset()
        tmp = f"{self.path}.new"
        if os.path.lexists(tmp):
            os.remove(tmp)
        os.symlink(self.pty, tmp)
        os.replace(tmp, self.path)
        self._next_hb = 0.0
        self._sent_at = 0.0
        self._gap = self.resend_after

    @property
    def plugged(self) -> bool:
        return self._master is not None

    # -- behaviour -----------------------------------------------------
    def silence(self) -> None:
        """Hang: send nothing (no heartbeats) until :meth:`resume`."""
        with self._lock:
            self._silent = True

    def resume(self) -> None:
        with self._lock:
            self._silent = False
            self._next_hb = 0.0
        self._wake()

    def deafen(self, deaf: bool = True) -> None:
        """Stop (or start again) hearing ACKs: the host's ACKs are lost and
        the device resends what the host already took."""
        with self._lock:
            self._deaf = deaf

    def reboot(self) -> None:
        """Power cycle: new boot id, seq from 1, queued presses lost, HELLO again."""
        with self._lock:
            self._power_up()
            self._next_hb = 0.0
        self._wake()

    def press(self, kind: str, seat: str, count: int | None = None) -> Frame:
        """Queue a press (``PASS``/``COUNT``/``CLEAR``); returns its frame."""
        if seat not in self.seats:
            raise ScriptError(f"device {self.device_id} has no button for seat {seat!r} "
                              f"(it serves {self.seats})")
        if kind == "COUNT":
            if not isinstance(count, int) or not 1 <= count <= 10:
                raise ScriptError(f"count must be 1..10, got {count!r}")
            fields = (seat, str(count))
        elif kind in ("PASS", "CLEAR"):
            fields = (seat,)
        else:
            raise ScriptError(f"unknown press {kind!r} (PASS, COUNT or CLEAR)")
        with self._lock:
            frame = Frame(self.device_id, self._next_seq(), kind, fields)
            self._queue.append(frame)
        self._wake()
        return frame

    def press_pass(self, seat: str) -> Frame:
        return self.press("PASS", seat)

    def press_count(self, seat: str, count: int) -> Frame:
        return self.press("COUNT", seat, count)

    def press_clear(self, seat: str) -> Frame:
        return self.press("CLEAR", seat)

    @property
    def pending(self) -> int:
        """Frames not yet acknowledged (queued or in flight)."""
        with self._lock:
            return len(self._queue) + (self._inflight is not None)

    # -- the firmware loop ---------------------------------------------
    def _write(self, data: bytes) -> None:
        try:
            os.write(self._master, data)
        except (BlockingIOError, OSError):
            self.dropped_bytes += len(data)   # buffer full / nobody there: a UART loses it

    def _send(self, frame: Frame, resend: bool) -> None:
        if self.noise and self.rng.random() < self.noise:
            self._write(bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, 24))))
        data = frame.encode()
        if self.corrupt and frame.kind != "HB" and self.rng.random() < self.corrupt:
            pos = self.rng.randrange(1, data.index(b"*"))
            data = data[:pos] + bytes([data[pos] ^ self.rng.randrange(1, 128)]) + data[pos + 1:]
        self._write(data)
        self.sent.append((frame, resend))

    def _step(self, now: float) -> float:
        """Do what is due; return seconds until something next falls due."""
        if self._master is None or self._silent:
            return 0.5
        if now >= self._next_hb:
            self._send(Frame(self.device_id, self._seq, "HB", (self.boot,)), False)
            self._next_hb = now + self.heartbeat
        if self._inflight is None and self._queue:
            self._inflight = self._queue.popleft()
            self._send(self._inflight, False)
            self._sent_at, self._gap = now, self.resend_after
        elif self._inflight is not None and now - self._sent_at >= self._gap:
            self._send(self._inflight, True)
            self._sent_at, self._gap = now, min(self._gap * 2, self.resend_max)
        due = self._next_hb
        if self._inflight is not None:
            due = min(due, self._sent_at + self._gap)
        return max(0.0, due - now)

    def _take_acks(self) -> None:
        try:
            data = os.read(self._master, 4096)
        except (BlockingIOError, OSError):
            return
        for item in self._parser.feed(data):
            if self._deaf or (self.ack_loss and self.rng.random() < self.ack_loss):
                continue
            if (isinstance(item, Frame) and item.kind == "ACK" and item.device == self.device_id
                    and self._inflight is not None and item.seq == self._inflight.seq):
                self.acked.append(item.seq)
                self._inflight = None

    def _run(self) -> None:
        wait = 0.0
        while not self._stop.is_set():
            with self._lock:
                master = None if self._silent else self._master
            fds = [self._wake_r] + ([master] if master is not None else [])
            try:
                ready, _, _ = select.select(fds, [], [], min(wait, 0.5))
            except (OSError, ValueError):
                ready = []
            if self._wake_r in ready:
                try:
                    os.read(self._wake_r, 4096)
                except OSError:
                    pass
            with self._lock:
                while self._requests:
                    fn, done = self._requests.popleft()
                    fn()
                    done.set()
                if self._master is not None and master == self._master and master in ready:
                    self._take_acks()
                wait = self._step(time.monotonic())


# -- scripts ---------------------------------------------------------------

ACTIONS = {"pass": 1, "count": 2, "clear": 1, "unplug": 0, "replug": 0,
           "silence": 0, "resume": 0, "reboot": 0}


@dataclass(frozen=True)
class DeviceSpec:
    device: str
    seats: str
    noise: float = 0.0
    corrupt: float = 0.0
    ack_loss: float = 0.0


@dataclass(frozen=True)
class Step:
    t: float
    device: str
    action: str          # an ACTIONS key, or "end" (device "")
    args: tuple = ()


@dataclass
class Script:
    devices: list[DeviceSpec] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)

    @property
    def end(self) -> float | None:
        ends = [s.t for s in self.steps if s.action == "end"]
        return min(ends) if ends else None


def parse_action(tokens: list[str], devices: dict[str, DeviceSpec], where: str) -> tuple[str, str, tuple]:
    """``[DEVICE] ACTION [ARGS]`` -> (device, action, args). DEVICE may be
    left out when there is only one device."""
    if tokens and tokens[0] in devices:
        device, tokens = tokens[0], tokens[1:]
    elif len(devices) == 1 and tokens and tokens[0] in ACTIONS:
        device = next(iter(devices))
    else:
        known = ", ".join(devices) or "none"
        raise ScriptError(f"{where}: expected a device id (known: {known}) then an action")
    if not tokens or tokens[0] not in ACTIONS:
        raise ScriptError(f"{where}: unknown action {tokens[0] if tokens else ''!r} "
                          f"(one of {', '.join(ACTIONS)})")
    action, args = tokens[0], tokens[1:]
    if len(args) != ACTIONS[action]:
        raise ScriptError(f"{where}: {action} takes {ACTIONS[action]} argument(s), got {len(args)}")
    if action in ("pass", "count", "clear"):
        seat = args[0].upper()
        if seat not in devices[device].seats:
            raise ScriptError(f"{where}: device {device} has no seat {args[0]!r} "
                              f"(it serves {devices[device].seats})")
        if action == "count":
            if not args[1].isdigit() or not 1 <= int(args[1]) <= 10:
                raise ScriptError(f"{where}: count must be 1..10, got {args[1]!r}")
            return device, action, (seat, int(args[1]))
        return device, action, (seat,)
    return device, action, ()


def _rate(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise ScriptError(f"{where}: a rate must be a number from 0 to 1, got {text!r}")
    return value


def parse_device(tokens: list[str], where: str) -> DeviceSpec:
    """``ID SEATS [noise=R] [corrupt=R] [ack_loss=R]``"""
    if len(tokens) < 2:
        raise ScriptError(f"{where}: 'device' needs an id and seats, e.g. 'device P01 E'")
    dev_id, seats = tokens[0], tokens[1].upper().replace(",", "")
    if not DEVICE_ID.match(dev_id):
        raise ScriptError(f"{where}: bad device id {dev_id!r} (1-16 of A-Z a-z 0-9 _ -)")
    if not is_seat_set(seats):
        raise ScriptError(f"{where}: bad seats {tokens[1]!r} (distinct letters of ESWN)")
    opts = {}
    for opt in tokens[2:]:
        name, _, value = opt.partition("=")
        if name not in ("noise", "corrupt", "ack_loss") or not value:
            raise ScriptError(f"{where}: unknown option {opt!r} (noise=R, corrupt=R, ack_loss=R)")
        opts[name] = _rate(value, where)
    return DeviceSpec(dev_id, seats, **opts)


def parse_script(text: str, name: str = "script") -> Script:
    """Parse a simulator script; errors name the line.

    >>> s = parse_script("device P01 E\\n0.5 P01 pass E\\n1 P01 count E 9\\n2 end\\n")
    >>> [(st.t, st.action, st.args) for st in s.steps], s.end
    ([(0.5, 'pass', ('E',)), (1.0, 'count', ('E', 9)), (2.0, 'end', ())], 2.0)
    """
    script = Script()
    specs: dict[str, DeviceSpec] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        where = f"{name} line {number}"
        tokens = raw.split("#", 1)[0].split()
        if not tokens:
            continue
        if tokens[0] == "device":
            spec = parse_device(tokens[1:], where)
            if spec.device in specs:
                raise ScriptError(f"{where}: device {spec.device} declared twice")
            specs[spec.device] = spec
            script.devices.append(spec)
            continue
        try:
            t = float(tokens[0])
        except ValueError:
            raise ScriptError(f"{where}: a step starts with a time in seconds, got {tokens[0]!r}") from None
        if t < 0 or t != t:
            raise ScriptError(f"{where}: time must be >= 0, got {tokens[0]!r}")
        if tokens[1:] == ["end"]:
            script.steps.append(Step(t, "", "end"))
            continue
        device, action, args = parse_action(tokens[1:], specs, where)
        script.steps.append(Step(t, device, action, args))
    if not script.devices:
        raise ScriptError(f"{name}: no 'device ID SEATS' line")
    script.steps.sort(key=lambda s: s.t)   # stable: same-time steps keep their order
    return script


def apply(device: SimulatedDevice, action: str, args: tuple) -> None:
    """Do one script or keyboard action on a device."""
    if action in ("pass", "clear"):
        device.press(action.upper(), args[0])
    elif action == "count":
        device.press("COUNT", args[0], args[1])
    else:
        getattr(device, action)()
