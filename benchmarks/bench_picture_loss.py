"""How still a camera's picture ever is: the frozen-picture check measured on recordings.

:mod:`vision.reading.picture_loss` says a live camera is frozen when its
picture has not changed in any sampled pixel (every
:data:`~vision.reading.picture_loss.SAMPLE_STEP`-th pixel of every
such row) for ``[[camera]] frozen_s`` seconds (default 15).  That rests on
a live sensor's noise, and its encoder, changing every frame.  This reads
recordings of real cameras, as the watcher samples them, and prints per
video: frames, frame pairs with no sampled pixel changed, the longest run
of such frames (in seconds), the fewest sampled pixels any frame changed,
and the longest *quiet* run: frames in which fewer than 1 in 2,000
sampled pixels (:data:`QUIET_SHARE`) moved more than :data:`QUIET_LEVELS`
grey levels (nothing in the scene moved; what changed is noise).  A recording with long quiet runs and no still ones
shows a still scene whose picture still changes every frame.  A technician
can run it on a minute recorded from the venue's own camera over a still
table (``ffmpeg -i rtsp://... -t 60 -c copy still.mp4``) to choose
``frozen_s``: it must stay well above the longest still run.

    python benchmarks/bench_picture_loss.py VIDEO [VIDEO ...]

Measured (2026-12-05), real fixed cameras, none made here:

- OpenCV's sample ``vtest.avi`` (a mall's walkway, people passing; the copy
  in lamminhthien/Motion_Detector_OpenCV at 2b00577, 1280x720, 341 frames,
  MPEG-4 part 2): no frame pair unchanged, every frame changed at least
  15.7 % of the sampled pixels.
- Three H.264 recordings of Intel's sample videos
  (intel-iot-devkit/sample-videos at 5797889, CC BY 4.0), as a network
  camera sends them: ``bottle-detection.mp4`` (a hand sets bottles down on
  a white table that stands still between moves; 640x360, 29.8 frames/s,
  1,189 frames): no pair unchanged, at least 0.41 % changed, quiet runs up
  to 3.4 s; ``car-detection.mp4`` (a car park from above; 768x432, 12.5
  frames/s, 377 frames): none unchanged, at least 0.88 %, quiet up to
  3.5 s; ``one-by-one-person-detection.mp4`` (a room with a wooden floor
  and a small table, people crossing one by one; 768x432, 10 frames/s,
  1,394 frames): **8 pairs unchanged**, the longest
  still run 0.2 s, quiet runs up to 0.9 s.  So a real H.264 stream can
  repeat a picture exactly (the encoder skips a frame that did not change
  enough), but for a fifth of a second, against the 15 s default.
- The demo's generated video (``guandan-ref demo``: one picture written
  again and again while nothing happens, MPEG-4 part 2): no pair
  unchanged, at least 0.33 % changed, so a frozen picture that an encoder
  keeps encoding afresh is not caught; repeats of one decoded frame (a
  capture card or a relay repeating its last frame) are.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.reading.picture_loss import SAMPLE_STEP  # noqa: E402

QUIET_LEVELS = 12      # a sampled pixel moving more than this (of 255) is the scene moving, not noise
QUIET_SHARE = 0.0005   # ... unless fewer than 1 in 2,000 do (an encoder's speck)


def stillness(path: Path) -> dict:
    """The figures of one recording (see the module's doc)."""
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise SystemExit(f"bench_picture_loss: cannot open {path}")
    fps = cap.get(cv2.CAP_PROP_FPS) or 0.0
    last, frames, same, run, longest, fewest = None, 0, 0, 0, 0, 1.0
    quiet = quietest = 0
    size = None
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        size = f"{frame.shape[1]}x{frame.shape[0]}"
        sample = np.ascontiguousarray(frame[::SAMPLE_STEP, ::SAMPLE_STEP])
        if last is not None and last.shape == sample.shape:
            changed = float((sample != last).any(axis=2).mean())
            fewest = min(fewest, changed)
            moved = np.abs(sample.astype(np.int16) - last).max(axis=2) > QUIET_LEVELS
            quiet = quiet + 1 if moved.mean() < QUIET_SHARE else 0
            quietest = max(quietest, quiet)
            if changed == 0.0:
                same, run = same + 1, run + 1
                longest = max(longest, run)
            else:
                run = 0
        last, frames = sample, frames + 1
    cap.release()
    return {"video": path.name, "size": size, "fps": round(fps, 2), "frames": frames,
            "pairs_unchanged": same, "longest_still_run_s": round(longest / fps, 2) if fps else None,
            "fewest_pixels_changed": round(fewest, 4) if frames > 1 else None,
            "longest_quiet_run_s": round(quietest / fps, 2) if fps else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("videos", nargs="+", type=Path, help="recordings of a camera")
    args = ap.parse_args()
    for v in args.videos:
        if not v.is_file():
            ap.error(f"{v} does not exist")
    print(json.dumps([stillness(v) for v in args.videos], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
