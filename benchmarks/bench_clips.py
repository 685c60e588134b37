"""Evidence clips: what the frame ring costs the camera path, and how soon a
ruling's clip can be played.

Every figure comes from generated video, not a real camera: a table video
is painted here (``vision.training.synth_table``, the demo's painter and
frame size, 2560x1920) with cards laid and taken every few frames, written
to an MJPG file and read back through the table node's camera path.

1. Camera path frames per second (decode with ``vision.reading.watch.open_source``,
   read and track every zone with ``TableWatcher`` and the shipped ONNX model)
   without and with each frame offered to a :class:`vision.reading.framering.FrameRing`
   (shrunk to 800 px, JPEG, at most 10 a second of table time). The passes
   alternate; the best of ``--repeats`` each is kept, and the median of the
   frames per CPU-second (all threads, the ring's encoder too), which the
   load of other processes moves far less. Aim: at most 5 % fewer.
2. Ruling -> clip playable: a ring fed in real time at ``--camera-fps`` (the
   frames paced as a camera delivers them), a ruling asks for its clip
   (4 s before, 1 s after) as its event happens; the time until the WebM file
   is complete and OpenCV decodes it. It holds the 1 s of video after the
   event the clip must show. Aim: at most 3 s.

    python benchmarks/bench_clips.py [--frames 60] [--repeats 3] [--clips 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from table_node.clips import ClipRecorder, ClipSettings  # noqa: E402
from vision.reading.detector import CardDetector  # noqa: E402
from vision.reading.framering import FrameRing  # noqa: E402
from vision.reading.table import calibrate  # noqa: E402
from vision.reading.watch import TableWatcher, open_source  # noqa: E402
from vision.training.card_art import load_decks  # noqa: E402
from vision.training.synth import SceneGenerator, random_play  # noqa: E402
from vision.training.synth_table import TablePainter  # noqa: E402

FPS = 15.0


def make_video(path: Path, frames: int, seed: int = 5) -> tuple[Path, np.ndarray]:
    """A generated table video: a new play in a zone every 6 frames (camera noise on)."""
    rng = np.random.default_rng(seed)
    painter = TablePainter(SceneGenerator(load_decks(["anglo"]), hand_rate=0.0), rng)
    out = None
    first = None
    scenes = []
    for k in range(4):
        seat = "SENW"[k]
        scenes.append(painter.frame({f"{seat}-play": random_play(rng, "pair")}, noise=1.5)[0])
    for n in range(frames):
        frame = scenes[(n // 6) % len(scenes)]
        if out is None:
            h, w = frame.shape[:2]
            out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), FPS, (w, h))
            first = frame
        out.write(frame)
    out.release()
    return path, first


def camera_fps(video: Path, watcher_args, ring: FrameRing | None) -> tuple[float, float]:
    """Frames a second of wall time, and of this process's CPU time (every
    thread: the ring's encoder too), through the camera path."""
    geometry, detector = watcher_args
    watcher = TableWatcher(geometry, detector)
    n = 0
    start, cpu = time.perf_counter(), time.process_time()
    for t, frame in open_source(str(video)):
        if frame is None:
            continue
        if ring is not None:
            ring.push(t, frame)
        watcher.process(t, frame)
        n += 1
    if ring is not None:
        ring.close()                 # its last frame encoded: counted
    return n / (time.perf_counter() - start), n / (time.process_time() - cpu)


def ruling_to_clip(scene: np.ndarray, folder: Path, clips: int, camera_fps: float) -> list[float]:
    """Seconds from each ruling to its clip being complete and decodable."""
    settings = ClipSettings()
    rec = ClipRecorder(folder, settings)
    ring = rec.ring("camera")
    stop = threading.Event()
    t0 = time.monotonic()
    frames = [np.roll(scene, 8 * k, axis=1) for k in range(4)]

    def camera():
        k = 0
        while not stop.is_set():
            ring.push(time.monotonic() - t0, frames[k % len(frames)])
            k += 1
            time.sleep(max(0.0, t0 + k / camera_fps - time.monotonic()))   # a camera's pace

    th = threading.Thread(target=camera, daemon=True)
    th.start()
    out, cpu = [], []
    try:
        time.sleep(settings.before_s + 0.5)        # the ring holds the seconds before the first ruling
        for i in range(clips):
            event_t = time.monotonic() - t0
            asked = time.monotonic()
            stem = f"violation-{i + 1}-illegal_play"
            rec.request(stem, [event_t])
            if not rec.wait_written(stem, 60):
                raise SystemExit(f"clip {stem} was not written within 60 s")
            cap = cv2.VideoCapture(str(folder / f"{stem}.webm"))
            ok, _ = cap.read()
            cap.release()
            if not ok:
                raise SystemExit(f"clip {stem} cannot be decoded")
            out.append(time.monotonic() - asked)
            cpu.append(json.loads((folder / f"{stem}.json").read_text())["encode_cpu_s"])
            time.sleep(1.0)
    finally:
        stop.set()
        th.join()
        rec.close()
    return out, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=60, help="frames of generated video per pass")
    ap.add_argument("--repeats", type=int, default=3, help="passes with and without the ring")
    ap.add_argument("--clips", type=int, default=5, help="rulings timed")
    ap.add_argument("--camera-fps", type=float, default=15.0, help="the live camera's rate for part 2")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        print(f"generated video: {args.frames} frames of a painted table (not a real camera); "
              f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start", flush=True)
        video, first = make_video(tmp / "table.avi", args.frames)
        h, w = first.shape[:2]
        geometry = calibrate(first)
        detector = CardDetector()
        camera_fps(video, (geometry, detector), None)          # warm up the model and the caches
        plain, ringed, kept = [], [], []
        for _ in range(args.repeats):
            plain.append(camera_fps(video, (geometry, detector), None))
            ring = FrameRing(ClipSettings().ring_seconds, ClipSettings().fps, ClipSettings().width)
            ringed.append(camera_fps(video, (geometry, detector), ring))
            kept.append((ring.encoded + ring.dropped, ring.dropped))
        a, b = max(x for x, _ in plain), max(x for x, _ in ringed)
        ca, cb = statistics.median(c for _, c in plain), statistics.median(c for _, c in ringed)
        print(f"camera path, {w}x{h} frames at {FPS:g} frames/s of video time:")
        print(f"  without the ring: {a:.2f} frames/s, best of {', '.join(f'{x:.2f}' for x, _ in plain)}; "
              f"{ca:.2f} frames per CPU-second (median)")
        print(f"  with the ring:    {b:.2f} frames/s, best of {', '.join(f'{x:.2f}' for x, _ in ringed)}; "
              f"{cb:.2f} frames per CPU-second; {kept[-1][0]} frames taken (at most 10 a second of "
              f"video), {kept[-1][1]} of them dropped (the encoder behind)")
        print(f"  cost: {100 * (a - b) / a:+.1f} % frames/s (wall time, moves with the machine's load), "
              f"{100 * (ca - cb) / ca:+.1f} % frames per CPU-second (aim: at most 5 % fewer)")
        sync = FrameRing(background=False)
        frames = [f for _, f in open_source(str(video)) if f is not None][:20]
        c = time.process_time()
        for i, f in enumerate(frames):
            sync.push(i / 10, f)
        ring_ms = 1000 * (time.process_time() - c) / len(frames)
        path_ms = 1000 / ca
        share = ring_ms * kept[-1][0] / args.frames / path_ms
        print(f"  the ring's own work (shrink + JPEG, in its thread): {ring_ms:.1f} ms CPU a frame taken, "
              f"{kept[-1][0]} taken of {args.frames}: {100 * share:.1f} % of the path's {path_ms:.0f} ms "
              f"CPU a frame")
        times, cpu = ruling_to_clip(first, tmp / "clips", args.clips, args.camera_fps)
        print(f"ruling -> clip playable (4 s before, 1 s after, {ClipSettings().width} px VP8 WebM, camera at "
              f"{args.camera_fps:g} frames/s in real time): median {statistics.median(times):.2f} s, "
              f"max {max(times):.2f} s over {len(times)} rulings (aim: at most 3 s; 1 s of it is the "
              f"video after the event)")
        print(f"  encoding a clip: median {statistics.median(cpu):.2f} s of CPU (of which the 4 s "
              f"before the ruling are done while the camera films the second after it)")


if __name__ == "__main__":
    main()
