"""How still a camera's picture ever is: the frozen-picture check measured on recordings.

:mod:`vision.reading.picture_loss` says a live camera is frozen when its
picture has not changed in any sampled pixel (every
:data:`~vision.reading.picture_loss.SAMPLE_STEP`-th pixel of every
such row) for ``[[camera]] frozen_s`` seconds (default 15).  That rests on
a live sensor's noise changing every frame.  This reads recordings of real
cameras, as the watcher samples them, and prints per video: frames, frame
pairs with no sampled pixel changed, the longest run of such frames (in
seconds), and the fewest sampled pixels any frame changed.  A technician
can run it on a minute recorded from the venue's own camera over a still
table (``ffmpeg -i rtsp://... -t 60 -c copy still.mp4``) to choose
``frozen_s``: it must stay well above the longest still run.

    python benchmarks/bench_picture_loss.py VIDEO [VIDEO ...]

Measured (2026-12-05): OpenCV's sample ``vtest.avi`` (a real fixed camera
over a mall's walkway, people passing; the copy in
lamminhthien/Motion_Detector_OpenCV at 2b00577, 1280x720, 341 frames; not
made here): no frame pair unchanged, every frame changed at least 15.7 % of
the sampled pixels.  The demo's generated video (``guandan-ref demo``: one
picture written again and again while nothing happens, MPEG-4 part 2):
no pair unchanged either, at least 0.33 % changed, so a frozen picture
that an encoder keeps encoding afresh is not caught; repeats of one
decoded frame (a capture card or a relay repeating its last frame) are.
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


def stillness(path: Path) -> dict:
    """The figures of one recording (see the module's doc)."""
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise SystemExit(f"bench_picture_loss: cannot open {path}")
    fps = cap.get(cv2.CAP_PROP_FPS) or 0.0
    last, frames, same, run, longest, fewest = None, 0, 0, 0, 0, 1.0
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
            if changed == 0.0:
                same, run = same + 1, run + 1
                longest = max(longest, run)
            else:
                run = 0
        last, frames = sample, frames + 1
    cap.release()
    return {"video": path.name, "size": size, "fps": round(fps, 2), "frames": frames,
            "pairs_unchanged": same, "longest_still_run_s": round(longest / fps, 2) if fps else None,
            "fewest_pixels_changed": round(fewest, 4) if frames > 1 else None}


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
