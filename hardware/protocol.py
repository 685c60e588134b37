"""The table-device wire protocol: frames, checksums and a streaming parser.

Every frame is one ASCII line in NMEA style (the full spec is PROTOCOL.md
beside this file)::

    $GD,<device-id>,<seq>,<kind>[,<field>...]*HH\\r\\n

``HH`` is the XOR of every byte between ``$`` and ``*``, in two hex digits.

>>> f = Frame("P01", 7, "PASS", ("E",))
>>> f.encode()
b'$GD,P01,7,PASS,E*31\\r\\n'
>>> decode_line(b'$GD,P01,7,PASS,E*31\\r\\n') == f
True
>>> p = FrameParser()
>>> [type(x).__name__ for x in p.feed(b'noise$GD,P01,7,PASS,E*31\\r\\n$GD,P0')]
['Reject', 'Frame']
>>> p.feed(b'1,8,COUNT,E,9*79\\r\\n')[0].count
9
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Timing (seconds), shared by host, simulator and the spec.
HEARTBEAT_PERIOD = 1.0      # a device sends HB at least this often
OFFLINE_AFTER = 3.2         # host: silence this long = 3 missed heartbeats (+0.2 s slack)
RESEND_AFTER = 0.25         # device: first resend of an unacknowledged frame
RESEND_MAX = 1.0            # device: resend interval doubles up to this
BAUDRATE = 115_200

MAX_FRAME = 82              # bytes from '$' to '\n' inclusive (NMEA's limit)
SEQ_MAX = 65_535            # seq runs 1..SEQ_MAX, then wraps to 1

SEATS = "ESWN"
# kind -> names of its fields, in order
KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "HELLO": ("fw", "seats", "boot"),
    "HB": ("boot",),
    "PASS": ("seat",),
    "COUNT": ("seat", "count"),
    "CLEAR": ("seat",),
    "ACK": (),              # host -> device only
}

DEVICE_ID = re.compile(r"[A-Za-z0-9_-]{1,16}\Z")
_FIELD_RULES: dict[str, tuple[re.Pattern[str], str]] = {
    "fw": (re.compile(r"[A-Za-z0-9._+-]{1,16}\Z"), "1-16 of A-Z a-z 0-9 . _ + -"),
    "seats": (re.compile(r"(?!.*(.).*\1)[ESWN]{1,4}\Z"), "1-4 distinct seat letters from ESWN"),
    "boot": (re.compile(r"[0-9A-F]{1,8}\Z"), "1-8 upper-case hex digits"),
    "seat": (re.compile(r"[ESWN]\Z"), "one of E S W N"),
    "count": (re.compile(r"(?:[1-9]|10)\Z"), "1..10"),
}


def is_seat_set(text: str) -> bool:
    """1-4 distinct seat letters: what a device's ``seats`` may be.

    >>> is_seat_set("ESWN"), is_seat_set("EE"), is_seat_set("X")
    (True, False, False)
    """
    return bool(_FIELD_RULES["seats"][0].match(text))


class ProtocolError(ValueError):
    """A line that is not a valid frame; the message says what is wrong.

    ``category`` is a short, stable name for counting (``bad checksum``,
    ``malformed``).
    """

    def __init__(self, message: str, category: str = "malformed") -> None:
        super().__init__(message)
        self.category = category


def checksum(body: bytes) -> int:
    """XOR of the bytes between ``$`` and ``*``.

    >>> f"{checksum(b'GD,P01,7,PASS,E'):02X}"
    '31'
    """
    value = 0
    for byte in body:
        value ^= byte
    return value


@dataclass(frozen=True)
class Frame:
    """One decoded frame. ``fields`` hold the kind's fields as sent (strings)."""

    device: str
    seq: int
    kind: str
    fields: tuple[str, ...] = ()

    def encode(self) -> bytes:
        """The frame on the wire, checksum and CR LF included."""
        body = ",".join(("GD", self.device, str(self.seq), self.kind, *self.fields)).encode("ascii")
        return b"$%s*%02X\r\n" % (body, checksum(body))

    def field(self, name: str) -> str:
        """A field by its name in :data:`KIND_FIELDS`."""
        return self.fields[KIND_FIELDS[self.kind].index(name)]

    @property
    def seat(self) -> str:
        return self.field("seat")

    @property
    def count(self) -> int:
        return int(self.field("count"))

    @property
    def boot(self) -> str:
        return self.field("boot")

    @property
    def seats(self) -> str:
        return self.field("seats")

    def ack(self) -> "Frame":
        """The host's acknowledgement of this frame.

        >>> Frame("P01", 7, "PASS", ("E",)).ack().encode()
        b'$GD,P01,7,ACK*00\\r\\n'
        """
        return Frame(self.device, self.seq, "ACK")

    def describe(self) -> str:
        """Human-readable summary, as `devices monitor` prints it."""
        names = KIND_FIELDS[self.kind]
        parts = " ".join(f"{n}={v}" for n, v in zip(names, self.fields))
        return f"{self.device} #{self.seq} {self.kind}" + (f" {parts}" if parts else "")


def _check_frame(frame: Frame) -> None:
    if not DEVICE_ID.match(frame.device):
        raise ProtocolError(f"bad device id {frame.device!r} (1-16 of A-Z a-z 0-9 _ -)")
    if frame.kind not in KIND_FIELDS:
        raise ProtocolError(f"unknown kind {frame.kind!r}")
    low = 0 if frame.kind in ("HB", "ACK") else 1
    if not low <= frame.seq <= SEQ_MAX:
        raise ProtocolError(f"{frame.kind}: seq {frame.seq} out of range {low}..{SEQ_MAX}")
    names = KIND_FIELDS[frame.kind]
    if len(frame.fields) != len(names):
        raise ProtocolError(f"{frame.kind}: expected {len(names)} field(s) "
                            f"({', '.join(names) or 'none'}), got {len(frame.fields)}")
    for name, value in zip(names, frame.fields):
        pattern, wanted = _FIELD_RULES[name]
        if not pattern.match(value):
            raise ProtocolError(f"{frame.kind}: bad {name} {value!r} (expected {wanted})")


def decode_line(line: bytes) -> Frame:
    """Decode one complete line (``$`` .. ``\\n``); raise :class:`ProtocolError`.

    >>> decode_line(b'$GD,P01,7,PASS,E*30\\r\\n')
    Traceback (most recent call last):
    ...
    hardware.protocol.ProtocolError: bad checksum: frame says 30, content gives 31
    """
    if not line.startswith(b"$") or not line.endswith(b"\n"):
        raise ProtocolError("a frame starts with '$' and ends with LF")
    core = line[1:-2] if line.endswith(b"\r\n") else line[1:-1]
    star = core.rfind(b"*")
    if star < 0 or len(core) - star != 3:
        raise ProtocolError("no '*HH' checksum at the end", "bad checksum")
    body, given = core[:star], core[star + 1:]
    if not all(c in b"0123456789ABCDEFabcdef" for c in given):
        raise ProtocolError("checksum is not two hex digits", "bad checksum")
    got = checksum(body)
    if got != int(given, 16):
        raise ProtocolError(f"bad checksum: frame says {given.decode()}, content gives {got:02X}",
                            "bad checksum")
    try:
        text = body.decode("ascii")
    except UnicodeDecodeError:
        raise ProtocolError("non-ASCII byte in the frame") from None
    parts = text.split(",")
    if parts[0] != "GD":
        raise ProtocolError(f"not a GD frame (talker {parts[0]!r})")
    if len(parts) < 4:
        raise ProtocolError("too few fields (need GD,<device-id>,<seq>,<kind>)")
    device, seq_text, kind = parts[1:4]
    if not seq_text.isdigit() or len(seq_text) > 5 or not seq_text.isascii():
        raise ProtocolError(f"bad seq {seq_text!r} (decimal 0..{SEQ_MAX})")
    frame = Frame(device, int(seq_text), kind, tuple(parts[4:]))
    _check_frame(frame)
    return frame


@dataclass(frozen=True)
class Reject:
    """Bytes the parser threw away: ``reason`` is a short category
    (``garbage``, ``truncated``, ``too long``, ``bad checksum``,
    ``malformed``), ``detail`` the full explanation."""

    reason: str
    raw: bytes
    detail: str = ""


class FrameParser:
    """Turn a byte stream into frames, surviving any noise between them.

    Every ``$`` starts a new candidate frame (a ``$`` never occurs inside a
    valid one), so a frame that arrives whole is recovered whatever bytes
    came before it. ``feed`` never raises; it returns :class:`Frame` and
    :class:`Reject` items in stream order. Counters: ``frames``,
    ``rejects`` (by reason) and ``garbage_bytes``.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self.frames = 0
        self.garbage_bytes = 0
        self.rejects: dict[str, int] = {}

    def reset(self) -> None:
        """Forget a partly received frame (the line was cut); keep the counters."""
        self._buf.clear()

    def _reject(self, out: list, reason: str, raw: bytes, detail: str = "") -> None:
        self.rejects[reason] = self.rejects.get(reason, 0) + 1
        self.garbage_bytes += len(raw)
        out.append(Reject(reason, raw, detail or reason))

    def feed(self, data: bytes) -> list[Frame | Reject]:
        buf = self._buf
        buf += data
        out: list[Frame | Reject] = []
        while buf:
            if buf[0] != 0x24:  # '$'
                start = buf.find(b"$")
                cut = len(buf) if start < 0 else start
                self._reject(out, "garbage", bytes(buf[:cut]))
                del buf[:cut]
                continue
            end = buf.find(b"\n", 1)
            restart = buf.find(b"$", 1, end if end >= 0 else len(buf))
            if restart >= 0:
                self._reject(out, "too long" if restart > MAX_FRAME else "truncated",
                             bytes(buf[:restart]))
                del buf[:restart]
                continue
            if end < 0:
                if len(buf) > MAX_FRAME:
                    self._reject(out, "too long", bytes(buf))
                    buf.clear()
                break
            line = bytes(buf[:end + 1])
            del buf[:end + 1]
            if len(line) > MAX_FRAME:
                self._reject(out, "too long", line)
                continue
            try:
                frame = decode_line(line)
            except ProtocolError as exc:
                self._reject(out, exc.category, line, str(exc))
                continue
            self.frames += 1
            out.append(frame)
        return out
