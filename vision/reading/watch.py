"""Camera frames in, observed events out: geometry + detector + one tracker per zone.

>>> watcher = TableWatcher(TableGeometry.load("table.json"), CardDetector())   # doctest: +SKIP
>>> for t, frame in open_source("game.mp4"):                                    # doctest: +SKIP
...     for event in watcher.process(t, frame):
...         print(event.to_json())
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from referee.events import Event
from vision.reading.detector import CardDetector, DetectorError, ZoneRead
from vision.reading.laid import EmptyLook
from vision.reading.camera_shift import CameraShift, ShiftNews
from vision.reading.focus import MarkerFocus
from vision.reading.picture_loss import PictureLoss
from vision.reading.printed_cards import find_printed, markers_in
from vision.reading.runtime import Workers
from vision.reading.table import ZONE_MARGIN_MM, ZONE_PX, GeometryError, TableGeometry, Zone
from vision.reading.confidence import Calibration
from vision.reading.tracker import ZoneTracker, calibration_for
from vision.reading.white_balance import MarkerWhite


class FrameError(ValueError):
    """A frame that cannot be used (empty, corrupt, wrong size); the watcher carries on."""


class FrameSizeError(FrameError):
    """A frame of another size than the table was calibrated at: every frame
    will be (the camera's resolution was changed, or it came back in its
    default mode), so the camera is as good as offline."""


class SourceError(RuntimeError):
    """A camera or video that cannot be opened."""


def check_frame(frame, size: tuple[int, int] | None = None) -> np.ndarray:
    """The frame if it is a usable BGR picture, else :class:`FrameError` saying why."""
    if frame is None:
        raise FrameError("empty frame (the source gave nothing)")
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 or frame.size == 0:
        shape = getattr(frame, "shape", None)
        raise FrameError(f"corrupt frame: expected a H x W x 3 colour picture, got shape {shape}")
    if size is not None and (frame.shape[1], frame.shape[0]) != tuple(size):
        raise FrameSizeError(f"frame is {frame.shape[1]}x{frame.shape[0]}, the table was calibrated "
                             f"at {size[0]}x{size[1]}")
    return frame


# a zone whose thumbnail changed by LOCAL_LEVEL grey levels or more in this
# share of its pixels is read again, however little its mean moved (a card
# laid or taken on a surface about as light as the card: 4-5 % of a zone's
# thumbnail on Debian's wooden boards, noise none)
LOCAL_LEVEL, LOCAL_SHARE = 12, 0.005


def thumbnail(picture: np.ndarray) -> np.ndarray:
    """The 64x64 grey picture zones are compared by (mean absolute difference)."""
    grey = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY) if picture.ndim == 3 else picture
    return cv2.resize(grey, (64, 64), interpolation=cv2.INTER_AREA).astype(np.int16)


class HandGate:
    """Believes a zone read's hand only while the zone's picture moves.

    A hand laying or taking cards moves; a wood grain, cork or shadow the
    detector takes for a hand does not.  The hand is believed while the
    zone's thumbnail (:func:`thumbnail`) changed by ``motion_level`` or more
    (mean grey levels, frame to frame) within the last ``hand_still_s``
    seconds; after that the read goes on without it.  ``hand_still_s=0``
    believes the detector alone.

    A frame in which the zone's picture changed by ``busy_level`` or more
    counts as a hand over it even when the detector saw none: cards being
    laid or a hand moving in (the detector missed 17 % of synthetic hands
    on real surfaces), so the tracker waits until the zone is still.

    >>> gate = HandGate(hand_still_s=1.0)
    >>> still = np.zeros((64, 64), np.int16)
    >>> hand = ZoneRead(hand=True)
    >>> [gate("S-play", t, still, hand).hand for t in (0.0, 0.5, 1.0, 1.5)]
    [True, True, True, False]
    """

    def __init__(self, hand_still_s: float = 1.0, motion_level: float = 2.5, busy_level: float | None = 8.0):
        self.hand_still_s, self.motion_level, self.busy_level = hand_still_s, motion_level, busy_level
        self.ignored = 0                               # reads whose hand was not believed
        self.moving = 0                                # reads given a hand for a moving picture
        self.still: dict[str, bool] = {}               # a zone's last read had a hand not believed
        self.hand: dict[str, bool] = {}                # a zone's last read has a hand believed
        self._previous: dict[str, np.ndarray] = {}     # each zone's thumbnail in the previous frame
        self._moved_at: dict[str, float] = {}          # when each zone's picture last changed

    def __call__(self, zone: str, t: float, thumb: np.ndarray | None, read: ZoneRead) -> ZoneRead:
        if self.hand_still_s <= 0:
            self.hand[zone] = read.hand
            return read
        before = self._previous.get(zone)
        if thumb is not None:
            self._previous[zone] = thumb
            change = None if before is None else float(np.abs(thumb - before).mean())
            # (the first frame counts as a change: a hand there may be real)
            if change is None or change >= self.motion_level:
                self._moved_at[zone] = t
            if change is not None and self.busy_level is not None and change >= self.busy_level \
                    and not read.hand:
                self.moving += 1
                self.hand[zone], self.still[zone] = True, False
                return replace(read, hand=True)
        still = read.hand and t - self._moved_at.get(zone, t) > self.hand_still_s + 1e-9
        self.still[zone] = still
        self.hand[zone] = read.hand and not still
        if still:
            self.ignored += 1
            return replace(read, hand=False)
        return read


class TableWatcher:
    """Reads every zone of each frame and tracks them into events."""

    def __init__(self, geo: TableGeometry, detector: CardDetector, zones: list[str] | None = None,
                 stable_s: float = 0.4, stable_frames: int = 3, reuse_below: float = 2.5,
                 margin_mm: float = ZONE_MARGIN_MM, hand_still_s: float = 1.0, motion_level: float = 2.5,
                 threads: int = 2, unread: bool = True, white_balance: bool = True, name: str = "camera",
                 frozen_s: float | None = None, confidence_curve: Calibration | None = None):
        """``reuse_below``: a zone whose picture differs from the one last sent
        to the detector by less than this mean grey level, and by
        :data:`LOCAL_LEVEL` or more nowhere in :data:`LOCAL_SHARE` of it,
        keeps that read (most of the time nothing moves on a table; 0 reads
        every frame).
        ``margin_mm``: how much cloth around each zone is read with it, so
        cards pushed past the printed line are still named
        (:data:`vision.reading.table.ZONE_MARGIN_MM`).

        ``hand_still_s``: the detector's hand is believed (the zone's tracker
        waits) only while the zone's picture has changed within this many
        seconds (its 64x64 grey thumbnail by ``motion_level`` or more on
        average, frame to frame).  A hand laying or taking cards moves; a
        wood grain, cork or shadow the detector takes for a hand does not:
        on real surfaces the shipped detector saw a hand in a third of still
        pictures (models/MODEL_CARD.md, "Hands on real surfaces"), which held
        the zone for ever.  Now such a zone waits ``hand_still_s`` after the
        last movement, no longer.  0 believes the detector alone.

        ``threads``: the zones are cut out of the frame, and the frame searched
        for printed cards' markers beside that, on this many threads.

        ``unread``: a play zone read empty whose picture shows something
        new laid inside it (a card face down, a deck the classifier cannot
        read) is reported as an unread play, so the referee is asked
        (:mod:`vision.reading.laid`); False: such a zone stays empty, as
        before 2026-12-04.

        ``white_balance``: the light's colour is measured on the markers'
        white paper each frame and, where it is more than the reader learnt,
        taken out of every zone picture before it is read
        (:mod:`vision.reading.white_balance`); False: the pictures are read
        as the camera gives them, as before 2026-12-04.

        A camera knocked out of place is noticed on the corner markers and
        the table found again from them (:mod:`vision.reading.camera_shift`),
        said in a ``device_status`` event of the camera ``name``; while the
        markers seem moved, and while too few are in view to find the table
        again, no zone's read reaches its tracker; nor in a frame where they
        moved since the last one (a stand swaying after a knock blurs the
        cards), said once the camera has not held still for
        :data:`vision.reading.camera_shift.SWAY_S` seconds; nor in a frame
        whose markers are much softer than usual (a webcam refocusing:
        :mod:`vision.reading.focus`).

        A camera covered, dark or showing no signal (none of the table's
        corner markers in view) holds every zone's read from its first such
        frame and is said offline after a second; ``frozen_s``: a picture
        that has not changed in any sampled pixel for this many seconds is
        said frozen (a live camera's noise always changes it; None, for a
        video file: not checked). :mod:`vision.reading.picture_loss`.

        ``confidence_curve``: the venue's own curve for the play events'
        confidence (``guandan-ref camera-check --fit``), instead of the deck
        profile's or the shipped one (:func:`vision.reading.tracker.calibration_for`)."""
        if geo.homography is None:
            raise GeometryError("table geometry is not calibrated (run guandan-ref calibrate)")
        if not 0 <= margin_mm <= 100:
            raise GeometryError(f"zone margin must be 0 to 100 mm, got {margin_mm:g}")
        self.geo, self.detector = geo, detector
        names = zones or [z.name for z in geo.zones]
        self.zones = [geo.zone(n) for n in names]
        # the play events' confidence: the venue's curve, else the deck profile's own when it has one
        calibration = calibration_for(detector, confidence_curve)
        self.trackers = {z.name: ZoneTracker(z.seat, z.kind, geo.table, stable_s, stable_frames, calibration)
                         for z in self.zones}
        self.reuse_below = reuse_below
        self.margin_mm = margin_mm
        self._margin_px = Zone.margin_px(margin_mm)     # the same for every zone (one scale)
        self.detections = 0        # zone pictures sent to the detector
        self._last: dict[str, tuple[np.ndarray, ZoneRead]] = {}
        self.hands = HandGate(hand_still_s, motion_level)
        self._thumbs: dict[str, np.ndarray] = {}      # this frame's thumbnails
        self._crops: dict[str, np.ndarray] = {}       # this frame's zone pictures
        self._reused: set[str] = set()                # this frame's zones whose last read was kept
        self.empty_look = EmptyLook() if unread else None
        self.white = MarkerWhite(geo) if white_balance else None
        self.name = name
        self.shift = CameraShift(geo)
        self.focus = MarkerFocus()
        self.picture = PictureLoss(frozen_s)
        self._markers: list[tuple[int, np.ndarray]] = []     # this frame's markers, every id
        self.workers = Workers(threads, "table-watch")

    def _unchanged(self, name: str, crop: np.ndarray) -> tuple[np.ndarray, ZoneRead | None]:
        """The zone's thumbnail, and its last read if the picture has not changed since."""
        thumb = thumbnail(crop)
        last = self._last.get(name)
        # compared with the picture last read, not the previous frame: slow drift still triggers a read
        # a read that saw a hand is never reused: fingers leaving the edge of a
        # zone change its picture too little, and the tracker would wait for ever
        # (unless that hand was not believed: a still picture, nothing is leaving)
        if last is None or self.reuse_below <= 0 or (last[1].hand and not self.hands.still.get(name)):
            return thumb, None
        # (and not where a card's worth of it changed: two white cards taken off
        # light wood moved the mean by only 2.1 grey levels, and the zone kept its cards)
        change = np.abs(thumb - last[0])
        if float(change.mean()) < self.reuse_below and float((change >= LOCAL_LEVEL).mean()) < LOCAL_SHARE:
            return thumb, last[1]
        return thumb, None

    def read(self, frame: np.ndarray, markers: list[tuple[int, np.ndarray]] | None = None) -> dict[str, ZoneRead]:
        """Each zone's cards in this frame (no tracking).  ``markers``: the
        frame's markers, found already (else searched for beside the zones' reading)."""
        frame = check_frame(frame, self.geo.image_size)
        # the printed cards' marker search runs beside the zones' reading
        workers = self.workers
        finding = workers.submit(markers_in, frame) if markers is None else None
        reads: dict[str, ZoneRead] = {}
        todo = []
        self._reused = set()
        white = self.white
        if white is not None:
            white.update(frame)
        crops = workers.map(lambda z: self.geo.rectify(frame, z, self.margin_mm) if white is None
                            else white.correct(self.geo.rectify(frame, z, self.margin_mm)), self.zones)
        for z, crop in zip(self.zones, crops):
            thumb, kept = self._unchanged(z.name, crop)
            self._thumbs[z.name] = thumb
            self._crops[z.name] = crop
            if kept is not None:
                reads[z.name] = replace(kept)
                self._reused.add(z.name)
            else:
                todo.append((z.name, crop, thumb))
        # the zones that changed go to the detector together (one batched run),
        # every zone shrunk as a play zone is: a reminder zone blown up to the
        # model's input showed cards twice the size it learnt (a card's picture
        # was taken for a hand)
        scale = self.detector.imgsz / max(ZONE_PX)
        pictures = [c for _, c, _ in todo]
        # a play zone seen empty: its cards are looked for where it changed since (a wooden board's
        # grain or a cloth's pattern is the same in both)
        look = self.empty_look
        empties = [look.picture(name) if look is not None and self.trackers[name].kind == "play" else None
                   for name, _, _ in todo]
        for (name, _, thumb), read in zip(todo, self.detector.read_zones(pictures, scale, self._margin_px,
                                                                         empties=empties)):
            self.detections += 1
            self._last[name] = (thumb, read)
            reads[name] = replace(read)
        self._markers = finding.result() if finding is not None else markers or []
        printed = find_printed(frame, self.geo, self.margin_mm, self._markers)
        for z in self.zones:
            reads[z.name].printed = tuple(sorted(printed.get(z.name, ())))
        return {z.name: reads[z.name] for z in self.zones}

    def _read_zones(self, frame: np.ndarray, markers: list[tuple[int, np.ndarray]] | None = None
                    ) -> dict[str, ZoneRead]:
        """:meth:`read`, a detector's failure on this frame raised as :class:`FrameError`."""
        try:
            return self.read(frame, markers)
        except DetectorError as exc:
            raise FrameError(str(exc)) from None

    def process(self, t: float, frame: np.ndarray) -> list[Event]:
        """Events completed by this frame.  A bad frame raises :class:`FrameError`
        and leaves every tracker as it was."""
        reads: dict[str, ZoneRead] | None = None
        if self.shift.swaying or self.focus.soft:
            # the last frame was held (the camera swaying or refocusing): this frame's markers
            # first, its zones read only where it is not held too (a sway costs no reading)
            self._markers = markers_in(check_frame(frame, self.geo.image_size))
        else:
            reads = self._read_zones(frame)
        events = []
        corners = sum(1 for i, _ in self._markers if i in self.shift.corners_mm)
        for said in self.picture.update(t, frame, corners):
            if not said.online or not (self.picture.offline or self.shift.lost):
                events.append(self._status(t, said.online, said.reason))
        if self.picture.held:
            return events       # no table in view, or no new picture: the zones keep what they had
        news = self.shift.update(t, dict(self._markers))
        if news is not None:
            events.append(self._shifted(t, news))
        sway = self.shift.sway_news(t)
        if sway is not None:
            events.append(self._status(t, sway.kind == "steady", sway.reason))
        self.focus.update(t, frame, self._markers)
        focus = self.focus.news()
        if focus is not None:
            events.append(self._status(t, True, focus.reason, soft=focus.soft))
        if news is not None or self.shift.lost or self.shift.suspect:
            return events       # the zones' pictures may be of the wrong place: nothing read counts
        if self.shift.swaying or self.focus.soft:
            return events       # the camera moved since the last frame, or is refocusing: read later
        if reads is None:
            reads = self._read_zones(frame, self._markers)
        for name, read in reads.items():
            read = self.hands(name, t, self._thumbs.get(name), read)
            if self.empty_look is not None and self.trackers[name].kind == "play":
                read = self.empty_look(name, t, self._crops[name], self._margin_px, read, name in self._reused)
            events += self.trackers[name].update(t, read)
        return events

    def _shifted(self, t: float, news: ShiftNews) -> Event:
        """The camera moved (:class:`ShiftNews`): what was kept of the old
        view is dropped, and the camera's status said."""
        self._last.clear()                     # no read of the old view is reused
        if self.empty_look is not None:        # every zone's empty look was of the old view
            self.empty_look = EmptyLook(self.empty_look.min_card)
        moved = {"moved_mm": round(news.shift_mm, 1)} if news.refitted else {}
        return self._status(t, news.kind != "lost", news.reason, **moved)

    def _status(self, t: float, online: bool, reason: str, **extra: float | bool) -> Event:
        """The camera's ``device_status`` event."""
        return Event.from_dict({"t": round(t, 3), "table": self.geo.table, "type": "device_status",
                                "source": "vision", "device": self.name, "online": online,
                                "reason": reason, **extra})

    def restarted(self) -> None:
        """The source was opened again and said online: a picture still dark
        or frozen is said again (:meth:`PictureLoss.restart`)."""
        self.picture.restart()


STALL_S = 5.0          # seconds without a picture from a live source before it is given up and opened again
OPEN_TIMEOUT_S = 10.0  # seconds a network source may take to open


def is_live(source: str | int) -> bool:
    """Whether ``source`` is a live camera (a device index or a URL), not a video file.

    >>> is_live(0), is_live("2"), is_live("rtsp://10.0.0.5/stream1"), is_live("game.mp4")
    (True, True, True, False)
    """
    return not isinstance(source, str) or source.isdigit() or "://" in source


class NewestFrame:
    """A live source read as it gives pictures, in a thread of its own, the
    reader (:meth:`take`) getting the newest one.

    Read on demand, a camera or a stream gives its frames in order, however
    long each takes to read: a network stream read at 3 frames a second
    came 11 frames (3.3 s at that rate) behind the camera after 18 s, and the
    lag grows with the stream (its sockets fill); a USB camera's driver
    hands out the oldest of its few buffers.  A table that reads a frame in
    0.1-0.6 s (real zones, models/MODEL_CARD.md) would judge what lay on
    the table seconds ago, stamped as now.  Here every frame is taken from
    the source as it comes (``grab``), each stamped when it came
    (``clock``).  ``decode_all``: each is also decoded, and the reader gets
    the newest at once (a network stream: OpenCV's FFmpeg reader decodes as
    it grabs anyway, what is left is the colour conversion); otherwise only
    a frame the reader waits for is decoded, the next to come (a USB
    camera's MJPG frames the table has no time for cost no decoding).
    Frames the reader never gets are counted (:attr:`dropped`).  A failed
    read is handed over, never replaced, so the reader counts failures as
    before.  ``on_frame``: called in this thread with every picture decoded
    (time, frame), those the reader never gets too (an evidence ring,
    :class:`vision.reading.framering.FrameRing`, keeps its clips at its
    own rate, not the table's).
    """

    def __init__(self, cap, clock: Callable[[], float], decode_all: bool = False,
                 on_frame: Callable[[float, np.ndarray], object] | None = None):
        self._cap = cap
        self._clock = clock
        self._decode_all = decode_all
        self._on_frame = on_frame
        self._cond = threading.Condition()
        # (time, frame or None: a failed read, time.monotonic() when it was read)
        self._item: tuple[float, np.ndarray | None, float] | None = None
        self._waiting = 0
        self._stop = False
        self.grabbed = 0          # reads done (failed ones too)
        self.dropped = 0          # pictures the reader never got
        self._thread = threading.Thread(target=self._run, name="camera-grab", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while True:
                ok = self._cap.grab()
                t, done = self._clock(), time.monotonic()
                with self._cond:
                    if self._stop:      # (checked at every frame: a camera's frames keep coming)
                        return
                    if ok and not self._decode_all and not (self._waiting > 0 and self._item is None):
                        self.dropped += 1           # no one waits for it: left undecoded
                        self.grabbed += 1
                        self._cond.notify_all()
                        continue
                frame = None
                if ok:
                    ok, frame = self._cap.retrieve()
                if ok and self._on_frame is not None:
                    self._on_frame(t, frame)
                with self._cond:
                    # a picture replaces a picture not taken yet; a failed read
                    # waits for the reader to take what is there
                    while not self._stop and self._item is not None and (self._item[1] is None or not ok):
                        self._cond.wait()
                    if self._stop:
                        return
                    if self._item is not None:
                        self.dropped += 1
                    self._item = (t, frame if ok else None, done)
                    self.grabbed += 1
                    self._cond.notify_all()
        finally:
            self._cap.release()

    def take(self, timeout: float) -> tuple[float, np.ndarray | None, float] | None:
        """The newest read not taken yet (with ``decode_all``; else the next
        to come, or a failed one already there): its time, its picture or
        None for a failed read, and ``time.monotonic()`` when it was read;
        None if none came within ``timeout`` seconds."""
        with self._cond:
            self._waiting += 1
            self._cond.notify_all()
            try:
                if not self._cond.wait_for(lambda: self._item is not None, timeout):
                    return None
                item, self._item = self._item, None
                self._cond.notify_all()
                return item
            finally:
                self._waiting -= 1

    def wait_grabbed(self, count: int, timeout: float) -> bool:
        """Wait until ``count`` reads were done (tests, tools); whether they were."""
        with self._cond:
            return self._cond.wait_for(lambda: self.grabbed >= count, timeout)

    def wait_reader(self, timeout: float) -> bool:
        """Wait until a reader waits in :meth:`take` (tests, tools); whether one does."""
        with self._cond:
            return self._cond.wait_for(lambda: self._waiting > 0, timeout)

    def close(self, wait_s: float = 1.0) -> None:
        """Stop reading and let the source go (a read under way may take up
        to the source's own timeout to return: then after it)."""
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        self._thread.join(wait_s)

    @property
    def reading(self) -> bool:
        """Whether the reading thread still runs (holding the source)."""
        return self._thread.is_alive()


def open_source(source: str | int, max_failures: int = 25, stall_s: float = STALL_S,
                size: tuple[int, int] | None = None, clock: Callable[[], float] | None = None,
                on_frame: Callable[[float, np.ndarray], object] | None = None
                ) -> Iterator[tuple[float, np.ndarray | None]]:
    """Frames with their times from a camera index, a URL or a video file.
    Video files are timed by frame number and rate, every frame in turn;
    live sources are read by a :class:`NewestFrame` (a slow reader gets the
    newest picture of a network stream, or a camera device's next one, not
    a queue of old ones), each frame timed by ``clock`` when it came (by
    default the seconds since opening).  A frame that
    fails to decode comes out as
    ``None`` (the caller reports it and goes on); the stream ends at the
    end of a file or after ``max_failures`` failures in a row.  A live source that gives
    no picture for ``stall_s`` seconds raises :class:`SourceError` (the
    caller says so and opens it again): a network camera's read waits at
    most that long (OpenCV's own wait is 30 s), and one whose every read
    fails at once is given up as soon.  ``size``: a camera device is asked
    for frames of this size (width, height) in MJPG, as most USB cameras
    give their larger sizes (opened without it, OpenCV's V4L2 asks for
    640x480); a URL's or a file's size is their own.  A device that cannot
    give it gives another size, which the table refuses by name
    (:class:`FrameSizeError`).  ``on_frame``: a live source's every decoded
    picture (:class:`NewestFrame`).
    """
    src: str | int = int(source) if isinstance(source, str) and source.isdigit() else source
    live = is_live(source)
    network = isinstance(src, str) and "://" in src
    if not live and not Path(str(src)).exists():
        raise SourceError(f"video file not found: {src}")
    if network:
        cap = cv2.VideoCapture(src, cv2.CAP_FFMPEG, [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, int(OPEN_TIMEOUT_S * 1000),
                                                     cv2.CAP_PROP_READ_TIMEOUT_MSEC, int(stall_s * 1000)])
    else:
        cap = cv2.VideoCapture(src)
    if not cap.isOpened():
        raise SourceError(f"cannot open video source {source!r}")
    if isinstance(src, int) and size is not None:
        cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
    start = time.monotonic()
    if live:
        # (a network stream is decoded as it is grabbed: the newest is kept decoded, no wait for the next)
        grab = NewestFrame(cap, clock or (lambda: time.monotonic() - start), network, on_frame)
        yield from _live_frames(source, grab, max_failures, stall_s)
        return
    fps = cap.get(cv2.CAP_PROP_FPS) or 0.0
    total = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
    index, failures = 0, 0
    try:
        while True:
            ok, frame = cap.read()
            t = index / fps if fps > 0 else time.monotonic() - start
            index += 1
            if not ok:
                failures += 1
                if total == 0 or index >= total or failures >= max_failures:
                    return
                yield t, None
                continue
            failures = 0
            yield t, frame
    finally:
        cap.release()


def _live_frames(source: str | int, grab: NewestFrame, max_failures: int,
                 stall_s: float) -> Iterator[tuple[float, np.ndarray | None]]:
    """:func:`open_source`'s frames of a live source, read by ``grab``."""
    last_picture = time.monotonic()
    failures = 0
    try:
        while True:
            item = grab.take(max(0.0, last_picture + stall_s - time.monotonic()))
            # (the stall counts from when the last picture came, not from when it was taken)
            if item is None or (item[1] is None and item[2] - last_picture >= stall_s - 1e-3):
                waited = (time.monotonic() if item is None else item[2]) - last_picture
                raise SourceError(f"no picture from {source!r} for {waited:.0f} s "
                                  f"(the camera or its link stalled)")
            t, frame, came = item
            if frame is None:
                failures += 1
                if failures >= max_failures:
                    return
                yield t, None
                continue
            failures, last_picture = 0, came
            yield t, frame
    finally:
        # (a read under way returns within the stall limit: the capture is released only after it)
        grab.close(stall_s + 1.0)
