"""Evidence clips: the seconds of video around each ruling, written beside the
log's zone pictures (``<evidence_dir>/<table>/``).

Each camera keeps its last seconds in a :class:`vision.reading.framering.FrameRing`.
A ruling (a violation or a confirm request) asks for the window from
``before_s`` before its first evidence event to ``after_s`` after its last
(the events' own table times); a worker thread waits until the cameras have
passed the window's end, then writes one VP8 WebM file a camera
(``violation-16-illegal_play.webm``, ``...-2.webm`` for a second camera)
with a JSON sidecar saying which table times it shows. The camera threads
never wait for it; :meth:`ClipRecorder.close` writes what is still asked
for with the frames there are.

The clips of a table take at most ``budget_mb``: past it the oldest clips
of closed rulings (confirmed, voided, chosen) are deleted; a clip of an open
ruling never is, even if that leaves the folder over its budget.
"""

from __future__ import annotations

import json
import logging
import math
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path

from services.evidence import CLIP_SUFFIX
from storage.files import link_or_copy, replaced_when_complete, write_whole
from vision.reading.framering import FrameRing, decode

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ClipSettings:
    """How clips are cut and how much disk they may take (``[clips]`` in the table config)."""

    before_s: float = 4.0      # seconds of video before the first evidence event
    after_s: float = 1.0       # ... and after the last
    budget_mb: float = 500.0   # the table's clips together, in MB (10^6 bytes)
    fps: float = 10.0          # frames a second kept and written
    width: int = 800           # pictures shrunk to this width at most
    wait_s: float = 10.0       # wall seconds a clip waits for a silent camera before it is cut short

    RANGES = {"before_s": (0, 30), "after_s": (0, 10), "budget_mb": (1, 1_000_000),
              "fps": (1, 30), "width": (160, 3840), "wait_s": (1, 120)}

    @classmethod
    def from_dict(cls, data: dict) -> "ClipSettings":
        """Checked settings from a config table; :class:`ValueError` names the bad key.

        >>> ClipSettings.from_dict({"before_s": 3, "budget_mb": 200}).budget_mb
        200.0
        >>> ClipSettings.from_dict({"budget_mb": -1})
        Traceback (most recent call last):
        ValueError: budget_mb must be a number from 1 to 1000000, got -1
        """
        known = {f.name for f in fields(cls)}
        bad = sorted(set(data) - known)
        if bad:
            raise ValueError(f"unknown key(s) {', '.join(bad)} (known: {', '.join(sorted(known))})")
        out = {}
        for key, value in data.items():
            lo, hi = cls.RANGES[key]
            whole = key == "width"
            if (isinstance(value, bool) or not isinstance(value, int if whole else (int, float))
                    or not lo <= value <= hi):
                raise ValueError(f"{key} must be a {'whole ' if whole else ''}number from {lo} to "
                                 f"{hi}, got {value!r}")
            out[key] = int(value) if whole else float(value)
        return cls(**out)

    @property
    def ring_seconds(self) -> float:
        """How long each camera's ring holds: the window and some slack for
        evidence spread over a few seconds."""
        return self.before_s + self.after_s + 3.0


@dataclass
class _Request:
    stem: str
    t0: float
    t1: float


class ClipRecorder:
    """Cuts and writes the clips of one table (one worker thread)."""

    def __init__(self, folder: str | Path, settings: ClipSettings | None = None, *,
                 open_stems: Callable[[], set[str]] = set,
                 on_written: Callable[[str], None] | None = None) -> None:
        """``open_stems``: the clip names (:func:`services.evidence.clip_stem`) of
        the rulings still open, which the budget must keep; ``on_written``:
        called with each clip's name once it is complete."""
        self.folder = Path(folder)
        self.settings = settings or ClipSettings()
        self.open_stems, self.on_written = open_stems, on_written
        self.rings: list[tuple[str, FrameRing]] = []
        self._queue: queue.Queue[_Request | None] = queue.Queue()
        self._made: dict[tuple[float, float], list[Path]] = {}     # window -> its clips (shared)
        self._lock = threading.Condition()
        self.written: list[Path] = []
        self.deleted: list[Path] = []
        self._thread: threading.Thread | None = None
        self._closing = False

    def ring(self, name: str, background: bool = True) -> FrameRing:
        """A new camera's ring (its clips are numbered in the order cameras are added;
        ``background``: see :class:`vision.reading.framering.FrameRing`)."""
        s = self.settings
        ring = FrameRing(s.ring_seconds, s.fps, s.width, background=background)
        with self._lock:
            self.rings.append((name, ring))
        return ring

    def window(self, times: list[float]) -> tuple[float, float]:
        """The table times a ruling's clip shows, from its evidence's ``times``:
        ``before_s`` before the first to ``after_s`` after the last, never more
        than the rings hold (then the end is kept)."""
        s = self.settings
        t1 = max(times) + s.after_s
        t0 = max(min(times) - s.before_s, t1 - s.ring_seconds + 0.5)
        return round(t0, 3), round(t1, 3)

    def request(self, stem: str, times: list[float]) -> None:
        """Ask for the clip ``stem`` around the evidence at ``times`` (returns at once)."""
        if not times or not self.rings:
            return
        t0, t1 = self.window(times)
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="clips", daemon=True)
                self._thread.start()
        self._queue.put(_Request(stem, t0, t1))

    def wait_written(self, stem: str, timeout: float) -> bool:
        """Block until clip ``stem`` is written (or ``timeout`` seconds pass)."""
        with self._lock:
            return self._lock.wait_for(lambda: any(p.stem == stem for p in self.written), timeout)

    # ------------------------------------------------------------- the worker
    def _run(self) -> None:
        while True:
            req = self._queue.get()
            if req is None:
                return
            try:
                self._make(req)
            except Exception:          # one bad clip must not stop the next ones
                log.exception("clip %s could not be written", req.stem)

    def _make(self, req: _Request) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        same = self._made.get((req.t0, req.t1))
        paths = []
        for i, (camera, ring) in enumerate(self.rings):
            path = self.folder / f"{req.stem}{'' if i == 0 else f'-{i + 1}'}{CLIP_SUFFIX}"
            if same is not None and i < len(same) and same[i].exists():
                # the same window: the same pictures (a ruling restated asks for its own again)
                link_or_copy(same[i], path)
                link_or_copy(same[i].with_suffix(".json"), path.with_suffix(".json"))
            elif not self._write(path, camera, ring, req):
                continue
            paths.append(path)
        if not paths:
            return
        self._made[(req.t0, req.t1)] = paths
        with self._lock:
            self.written.extend(paths)
            self._lock.notify_all()
        self._keep_budget()
        if self.on_written is not None:
            self.on_written(req.stem)

    def _write(self, path: Path, camera: str, ring: FrameRing, req: _Request) -> bool:
        """One camera's clip of ``req``: a frame every ``1/fps`` s from the window's
        start to its end, each the newest the camera had by then. Written as
        the frames come: the seconds before the ruling are encoded while the
        camera films the second after it. Cut short where the camera falls
        silent for ``wait_s`` (or the recorder closes). False if the ring holds
        nothing of the window."""
        import cv2

        fps = self.settings.fps
        cpu = time.thread_time()
        held = ring.frames(t1=req.t0)
        start_frame = held[-1] if held else next(iter(ring.frames(t1=req.t1)), None)
        if start_frame is None:
            log.warning("clip %s: %s has no frames from %.2f to %.2f s", req.stem, camera, req.t0, req.t1)
            return False
        start = max(req.t0, start_frame[0])
        first = decode(start_frame[1])
        h, w = first.shape[:2]
        used: list[float] = [start_frame[0]]
        picture, shown, end, count = first, start_frame[0], start, 0
        try:
            # complete or absent: the dashboard never serves half a clip
            with replaced_when_complete(path) as tmp:
                writer = cv2.VideoWriter(str(tmp), cv2.VideoWriter_fourcc(*"VP80"), fps, (w, h))
                if not writer.isOpened():
                    raise OSError(f"OpenCV cannot write VP8/WebM video here ({tmp})")
                try:
                    for n in range(int(math.floor((req.t1 - start) * fps + 1e-6)) + 1):
                        slot = start + n / fps
                        if ring.latest < slot - 1e-6:
                            if self._closing or not ring.wait_until(slot - 1e-6, self.settings.wait_s):
                                break           # the camera stopped: the clip ends with its last frame
                        newer = ring.frames(shown + 1e-6, slot + 1e-6)
                        if newer:
                            shown = newer[-1][0]
                            picture = decode(newer[-1][1])
                            used.append(shown)
                        writer.write(picture)
                        end, count = slot, count + 1
                finally:
                    writer.release()
                if count == 0:
                    raise _NoFrames
                meta = {"clip": path.name, "camera": camera, "t0": round(start, 3), "t1": round(end, 3),
                        "asked": [req.t0, req.t1], "fps": fps, "frames": count, "size": [w, h],
                        "source_frames": [round(t, 3) for t in used],
                        "encode_cpu_s": round(time.thread_time() - cpu, 3)}
                write_whole(path.with_suffix(".json"), json.dumps(meta))
        except _NoFrames:
            return False
        return True

    def _keep_budget(self) -> None:
        budget = self.settings.budget_mb * 1e6
        clips = [p for p in self.folder.glob(f"*{CLIP_SUFFIX}") if not p.name.startswith(".")]
        stats = {p: p.stat() for p in clips}
        # a clip shared by two rulings (the same window) is one file with two names
        links: dict[tuple[int, int], int] = {}
        for st in stats.values():
            links[(st.st_dev, st.st_ino)] = links.get((st.st_dev, st.st_ino), 0) + 1
        total = sum(st.st_size for st in {(st.st_dev, st.st_ino): st for st in stats.values()}.values())
        if total <= budget:
            return
        try:
            keep = set(self.open_stems())
        except Exception:              # the open rulings unknown: delete nothing
            log.exception("the open rulings could not be read; no clip deleted")
            return
        for p in sorted(clips, key=lambda p: stats[p].st_mtime_ns):
            if total <= budget:
                break
            stem = p.stem.rsplit("-", 1)[0] if p.stem.rsplit("-", 1)[-1].isdigit() else p.stem
            if stem in keep:
                continue
            inode = (stats[p].st_dev, stats[p].st_ino)
            links[inode] -= 1
            if links[inode] == 0:
                total -= stats[p].st_size
            p.unlink(missing_ok=True)
            p.with_suffix(".json").unlink(missing_ok=True)
            self.deleted.append(p)
        if total > budget:
            log.warning("the clips in %s take %.0f MB, over the budget of %g MB: the rest are "
                        "clips of open rulings", self.folder, total / 1e6, self.settings.budget_mb)

    def close(self) -> None:
        """Write every clip still asked for with the frames the rings hold, then stop."""
        self._closing = True
        for _, ring in self.rings:
            ring.close()
        with self._lock:
            thread = self._thread
        if thread is not None:
            self._queue.put(None)
            thread.join()


class _NoFrames(Exception):
    """A clip's window in which the camera gave no frame: no clip is kept."""
