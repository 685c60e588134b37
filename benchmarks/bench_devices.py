"""Device figures: frames parsed per second, and latency over a real pty.

    python benchmarks/bench_devices.py [--frames 200000] [--presses 1000] [--seed 1]

1. Parser: a stream of random valid frames (every kind), clean and with
   random noise between frames, fed to FrameParser in 4 KiB chunks as a
   serial port delivers them. Prints frames/s and MB/s.
2. Latency: a pseudo-terminal (os.openpty) plays the device: the script
   writes one PASS/COUNT/CLEAR frame to the master side and times
   - write -> the Event leaving DeviceHost (the host's read, parse,
     dedupe and emit; the reader opens the slave with pyserial), and
   - write -> the ACK readable back on the master side (full round trip).
   Prints median, p99 and max of each.
"""

from __future__ import annotations

import argparse
import os
import random
import select
import statistics
import sys
import threading
import time
import tty
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hardware.binding import parse_binding  # noqa: E402
from hardware.protocol import Frame, FrameParser  # noqa: E402
from hardware.reader import DeviceHost, PortReader  # noqa: E402


def random_frames(n: int, rng: random.Random) -> list[Frame]:
    out = []
    for i in range(n):
        dev, seq, seat = f"P{rng.randrange(100):02d}", i % 65535 + 1, rng.choice("ESWN")
        kind = rng.choice(["PASS", "COUNT", "CLEAR", "HB", "HELLO"])
        fields = {"PASS": (seat,), "CLEAR": (seat,), "COUNT": (seat, str(rng.randint(1, 10))),
                  "HB": ("1A2B3C4D",), "HELLO": ("1.0.0", "ESWN", "1A2B3C4D")}[kind]
        out.append(Frame(dev, seq, kind, fields))
    return out


def bench_parser(n: int, rng: random.Random) -> None:
    frames = random_frames(n, rng)
    clean = b"".join(f.encode() for f in frames)
    noisy = b"".join(bytes(rng.randrange(256) for _ in range(rng.randint(0, 16))) + f.encode()
                     for f in frames)
    for name, stream in (("clean", clean), ("noisy", noisy)):
        parser = FrameParser()
        got = 0
        start = time.perf_counter()
        for i in range(0, len(stream), 4096):
            got += sum(isinstance(x, Frame) for x in parser.feed(stream[i:i + 4096]))
        took = time.perf_counter() - start
        assert got == n, f"{name}: recovered {got} of {n} frames"
        print(f"parser ({name}): {n / took:,.0f} frames/s, {len(stream) / took / 1e6:.1f} MB/s "
              f"({n} frames, {len(stream):,} bytes, all recovered)")


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def bench_latency(presses: int, rng: random.Random) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    emitted = threading.Event()
    stamp: list[float] = []

    def emit(event) -> None:
        if event.type != "device_status":
            stamp.append(time.perf_counter())
            emitted.set()

    host = DeviceHost(parse_binding({"devices": {"B1": {"table": "T01", "seats": "ESWN"}}}), emit)
    reader = PortReader(path, host).start()
    parser = FrameParser()

    def wait_ack(seq: int, deadline: float) -> float | None:
        while time.perf_counter() < deadline:
            if select.select([master], [], [], 0.05)[0]:
                for x in parser.feed(os.read(master, 4096)):
                    if isinstance(x, Frame) and x.kind == "ACK" and x.seq == seq:
                        return time.perf_counter()
        return None

    # handshake: resend HELLO until the reader has opened the port and answers
    hello = Frame("B1", 1, "HELLO", ("bench", "ESWN", "00C0FFEE"))
    while True:
        os.write(master, hello.encode())
        if wait_ack(1, time.perf_counter() + 0.25) is not None:
            break
    to_event, to_ack = [], []
    for i in range(presses):
        seq, seat = i + 2, rng.choice("ESWN")
        kind = rng.choice(["PASS", "COUNT", "CLEAR"])
        fields = (seat, str(rng.randint(1, 10))) if kind == "COUNT" else (seat,)
        data = Frame("B1", seq, kind, fields).encode()
        emitted.clear()
        t0 = time.perf_counter()
        os.write(master, data)
        t_ack = wait_ack(seq, t0 + 2.0)
        if t_ack is None or not emitted.wait(2.0):
            raise SystemExit(f"press {i}: no event/ACK within 2 s")
        to_event.append(stamp[-1] - t0)
        to_ack.append(t_ack - t0)
    reader.stop()
    os.close(master)
    os.close(slave)
    for name, values in (("write -> event", to_event), ("write -> ACK back", to_ack)):
        ms = [v * 1000 for v in values]
        print(f"latency {name:<18}: median {statistics.median(ms):.3f} ms, "
              f"p99 {percentile(ms, 99):.3f} ms, max {max(ms):.3f} ms ({len(ms)} presses)")
    print(f"host stats: {vars(host.stats)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=200_000)
    ap.add_argument("--presses", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    bench_parser(args.frames, rng)
    bench_latency(args.presses, rng)


if __name__ == "__main__":
    main()
