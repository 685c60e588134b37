"""Reading table devices: frames in, events out, acknowledgements back.

:class:`DeviceHost` is the protocol's host side without any I/O: it takes
decoded frames, de-duplicates them by (device, boot, seq), checks them
against the binding, emits :class:`referee.events.Event` objects and answers
with the ACK frame to send. It also watches for silent devices. One host
serves every port of a table node, so a device keeps its history when it
is re-plugged into another port.

:class:`PortReader` is the I/O for one serial port (pyserial): open, read,
parse, write ACKs; on any port error it reports the port's devices
offline, closes, and keeps trying to reopen.

>>> from hardware.binding import parse_binding
>>> from hardware.protocol import Frame
>>> events = []
>>> host = DeviceHost(parse_binding({"devices": {"P01": {"table": "T01", "seats": "E"}}}),
...                   events.append, clock=lambda: 100.0)
>>> host.on_frame(Frame("P01", 1, "HELLO", ("1.0", "E", "1A2B")), "/dev/ttyUSB0", now=0.0)
Frame(device='P01', seq=1, kind='ACK', fields=())
>>> ack = host.on_frame(Frame("P01", 2, "PASS", ("E",)), "/dev/ttyUSB0", now=0.1)
>>> ack = host.on_frame(Frame("P01", 2, "PASS", ("E",)), "/dev/ttyUSB0", now=0.4)  # a resend
>>> [(e.type, e.seat, e.uid) for e in events]
[('device_status', None, 'P01:online:100.000000'), ('pass', 'E', 'P01:1A2B:2')]
>>> host.check_silence(now=4.0)
['P01']
>>> events[-1].get("online")
False
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

import serial

from referee.events import Event

from .binding import Binding
from .protocol import BAUDRATE, OFFLINE_AFTER, Frame, FrameParser, Reject

log = logging.getLogger(__name__)

EVENT_TYPES = {"PASS": "pass", "COUNT": "report", "CLEAR": "report_clear"}
DEDUPE_WINDOW = 256     # seqs remembered per device boot; a device has one frame in flight


@dataclass
class _DeviceState:
    boot: str | None = None
    seqs: deque = field(default_factory=lambda: deque(maxlen=DEDUPE_WINDOW))
    port: str | None = None
    last_seen: float = 0.0
    online: bool = False
    hello: Frame | None = None


@dataclass
class HostStats:
    frames: int = 0
    events: int = 0
    duplicates: int = 0
    rejected_events: int = 0     # well-formed events the binding refuses (reported)
    waiting_boot: int = 0        # events held because the device's boot is not known yet


class DeviceHost:
    """The host side of the protocol for every port of one table node.

    ``emit(event)`` receives events in order (called with the host's lock
    held, so keep it quick: a queue put). ``on_problem(message)`` receives
    binding problems (unknown device, seat not bound, one id on two ports),
    each reported once. ``clock`` gives event times ``t``; the ``now``
    arguments are monotonic seconds, used only to time silences.
    """

    def __init__(self, binding: Binding, emit: Callable[[Event], None], *,
                 on_problem: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.time,
                 offline_after: float = OFFLINE_AFTER) -> None:
        self.binding = binding
        self.emit = emit
        self.on_problem = on_problem or (lambda msg: log.warning("%s", msg))
        self.clock = clock
        self.offline_after = offline_after
        self.stats = HostStats()
        self._devices: dict[str, _DeviceState] = {}
        self._reported: set[str] = set()
        self._lock = threading.RLock()

    # -- reporting -----------------------------------------------------
    def _problem(self, key: str, message: str) -> None:
        if key not in self._reported:
            self._reported.add(key)
            self.on_problem(message)

    def _status(self, device: str, online: bool, port: str | None, reason: str) -> None:
        bound = self.binding.device(device)
        if bound is None:
            return  # no table to report to; the unknown device was reported already
        t = self.clock()
        # a uid too, so a venue log that de-duplicates by uid keeps every change
        self.emit(Event(type="device_status", t=t, table=bound.table, source="device",
                        uid=f"{device}:{'online' if online else 'offline'}:{t:.6f}",
                        extra={"device": device, "online": online, "port": port, "reason": reason}))

    # -- frames --------------------------------------------------------
    def on_frame(self, frame: Frame, port: str, now: float) -> Frame | None:
        """Take one decoded frame from ``port``; return the ACK to send, if any."""
        with self._lock:
            self.stats.frames += 1
            if frame.kind == "ACK":
                return None  # our own kind echoed back by a miswired line: ignore
            st = self._devices.setdefault(frame.device, _DeviceState())
            if st.online and st.port != port and now - st.last_seen < self.offline_after:
                self._problem(f"two-ports:{frame.device}",
                              f"device {frame.device} is heard on both {st.port} and {port}: "
                              f"two devices share one id?")
            st.port, st.last_seen = port, now
            bound = self.binding.device(frame.device)
            if bound is None:
                self._problem(f"unknown:{frame.device}",
                              f"unknown device {frame.device} on {port}: not in the binding file")
            elif not st.online:
                st.online = True
                self._status(frame.device, True, port, "heard")

            if frame.kind in ("HELLO", "HB"):
                if frame.boot != st.boot:
                    st.boot = frame.boot
                    st.seqs.clear()   # a new boot numbers its frames afresh
                if frame.kind == "HB":
                    return None
                st.hello = frame
                if bound is not None and not set(bound.seats) <= set(frame.seats):
                    self._problem(f"seats:{frame.device}:{frame.seats}",
                                  f"device {frame.device} serves seats {frame.seats} but the "
                                  f"binding gives it {''.join(bound.seats)}")
                return frame.ack()

            # PASS / COUNT / CLEAR
            if st.boot is None:
                # Host restarted mid-session: wait for the next HB to learn the
                # boot; the device resends, so nothing is lost by not acking.
                self.stats.waiting_boot += 1
                return None
            if frame.seq in st.seqs:
                self.stats.duplicates += 1
                return frame.ack()
            if bound is None:
                self.stats.rejected_events += 1
            elif not bound.accepts(frame.kind, frame.seat):
                self.stats.rejected_events += 1
                self.on_problem(f"device {frame.device} sent {frame.kind} for seat {frame.seat}, "
                                f"which the binding does not give it (seats {''.join(bound.seats)}, "
                                f"serves {', '.join(bound.serves)}): ignored")
            else:
                self.emit(self._event(frame, bound.table, st.boot))
                self.stats.events += 1
            # Recorded only after the event went out: an emit that raises
            # leaves the frame unacknowledged, and the device resends it.
            st.seqs.append(frame.seq)
            return frame.ack()

    def _event(self, frame: Frame, table: str, boot: str) -> Event:
        return Event(type=EVENT_TYPES[frame.kind], t=self.clock(), table=table, seat=frame.seat,
                     count=frame.count if frame.kind == "COUNT" else None, source="device",
                     uid=f"{frame.device}:{boot}:{frame.seq}", extra={"device": frame.device})

    # -- liveness ------------------------------------------------------
    def check_silence(self, now: float) -> list[str]:
        """Mark devices silent for ``offline_after`` seconds offline; return them."""
        gone = []
        with self._lock:
            for device, st in self._devices.items():
                if st.online and now - st.last_seen >= self.offline_after:
                    st.online = False
                    gone.append(device)
                    self._status(device, False, st.port, "silent")
        return gone

    def port_lost(self, port: str) -> list[str]:
        """The port went away: its devices are offline now, not in 3 s."""
        gone = []
        with self._lock:
            for device, st in self._devices.items():
                if st.online and st.port == port:
                    st.online = False
                    gone.append(device)
                    self._status(device, False, port, "port lost")
        return gone

    def snapshot(self) -> dict[str, dict]:
        """Per device: port, online, boot, firmware and seats from HELLO."""
        with self._lock:
            return {d: {"port": st.port, "online": st.online, "boot": st.boot,
                        "fw": st.hello.field("fw") if st.hello else None,
                        "seats": st.hello.seats if st.hello else None,
                        "bound": self.binding.device(d) is not None}
                    for d, st in self._devices.items()}


Traffic = Callable[[str, str, object], None]   # (port, what, item)


class PortReader:
    """Read one serial port in a thread, feeding a :class:`DeviceHost`.

    ``on_traffic(port, what, item)`` sees everything, for `devices monitor`:
    ``rx`` (a Frame), ``reject`` (a Reject), ``tx`` (an ACK Frame),
    ``open`` and ``lost`` (a message). With ``ack=False`` the reader only
    listens (a probe): frames still reach the host, but no ACK goes back,
    so the devices keep resending and a later reader still gets them.
    """

    def __init__(self, port: str, host: DeviceHost, *, baudrate: int = BAUDRATE,
                 retry_every: float = 0.25, read_timeout: float = 0.05,
                 on_traffic: Traffic | None = None, ack: bool = True,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.port = port
        self.host = host
        self.baudrate = baudrate
        self.retry_every = retry_every
        self.read_timeout = read_timeout
        self.on_traffic = on_traffic or (lambda port, what, item: None)
        self.monotonic = monotonic
        self.ack = ack
        self.parser = FrameParser()
        self.opens = 0
        self.losses = 0
        self._serial: serial.Serial | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._open_error_reported = False

    @property
    def connected(self) -> bool:
        return self._serial is not None

    def start(self) -> "PortReader":
        self._thread = threading.Thread(target=self.run, name=f"reader {self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._close()

    def __enter__(self) -> "PortReader":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _open(self) -> bool:
        try:
            self._serial = serial.Serial(self.port, self.baudrate, timeout=self.read_timeout,
                                         write_timeout=1.0, exclusive=True)
        except (serial.SerialException, OSError, ValueError) as exc:
            if not self._open_error_reported:
                self._open_error_reported = True
                self.on_traffic(self.port, "lost", f"cannot open: {exc}; retrying")
            return False
        self._open_error_reported = False
        self.opens += 1
        self.parser.reset()   # a partial frame from before the cut is garbage now
        self.on_traffic(self.port, "open", "port open")
        return True

    def _close(self) -> None:
        if self._serial is not None:
            try:
                self._serial.close()
            except (serial.SerialException, OSError):
                pass
            self._serial = None

    def _lose(self, exc: Exception) -> None:
        self.losses += 1
        self._close()
        self.on_traffic(self.port, "lost", f"port lost: {exc}")
        self.host.port_lost(self.port)

    def run(self) -> None:
        while not self._stop.is_set():
            if self._serial is None and not self._open():
                self.host.check_silence(self.monotonic())
                self._stop.wait(self.retry_every)
                continue
            try:
                # Blocks until one byte or read_timeout, then takes what is waiting.
                data = self._serial.read(1)
                if data and self._serial.in_waiting:
                    data += self._serial.read(self._serial.in_waiting)
                if data:
                    self._take(data)
            except (serial.SerialException, OSError) as exc:
                self._lose(exc)
            except Exception:
                # A failing sink must not kill the port: the frame stays
                # unacknowledged and the device resends it.
                log.exception("reader %s: error while handling frames", self.port)
            self.host.check_silence(self.monotonic())

    def _take(self, data: bytes) -> None:
        for item in self.parser.feed(data):
            if isinstance(item, Reject):
                self.on_traffic(self.port, "reject", item)
                continue
            self.on_traffic(self.port, "rx", item)
            ack = self.host.on_frame(item, self.port, self.monotonic())
            if ack is not None and self.ack:
                self._serial.write(ack.encode())
                self.on_traffic(self.port, "tx", ack)


class DeviceHub:
    """Every port of a table node behind one :class:`DeviceHost`.

    >>> import queue
    >>> from hardware.binding import Binding
    >>> q = queue.Queue()
    >>> hub = DeviceHub(Binding(), q.put, ports=["/dev/ttyUSB0", "/dev/ttyUSB1"])
    >>> [r.port for r in hub.readers]
    ['/dev/ttyUSB0', '/dev/ttyUSB1']
    """

    def __init__(self, binding: Binding, emit: Callable[[Event], None], *,
                 ports: list[str] | None = None, on_problem: Callable[[str], None] | None = None,
                 on_traffic: Traffic | None = None, clock: Callable[[], float] = time.time,
                 **reader_options) -> None:
        self.host = DeviceHost(binding, emit, on_problem=on_problem, clock=clock)
        self.readers = [PortReader(p, self.host, on_traffic=on_traffic, **reader_options)
                        for p in (binding.ports if ports is None else ports)]

    def start(self) -> "DeviceHub":
        for r in self.readers:
            r.start()
        return self

    def stop(self) -> "DeviceHub":
        for r in self.readers:
            r.stop()
        return self
