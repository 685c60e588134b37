"""One table's process: sources feed events in, sinks read decisions out."""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any, Callable, Mapping


from referee.events import Event, EventError
from referee.settings import Settings
from services.live import LiveVenue
from services.venue import Venue
from vision.reading.picture_loss import FROZEN_S

log = logging.getLogger(__name__)


class TableNode:
    """The referee of one table with its sources and sinks.

    ``clock`` gives table time (seconds, the sources' time base): wall time
    for a live table, the video's time in the demo. Sources running in
    threads hand events to :meth:`emit`; :meth:`submit` judges one at once.
    """

    def __init__(self, table: str, db: str, settings: Settings | None = None, *,
                 clock: Callable[[], float] = time.time, evidence_dir: str | None = None,
                 names: Mapping[str, Mapping[str, str]] | None = None, clips: Any = None) -> None:
        """``evidence_dir``: where the zone picture behind each camera event is
        kept (``<dir>/<table>/``), shown with violations on the dashboard, and
        with it each ruling's video clip (``clips``: a
        :class:`table_node.clips.ClipSettings`, default ones when None).
        ``names``: the match's ``teams`` and ``captains`` (by side) and ``players``
        (by seat), written into the log's ``settings`` event with the settings:
        the sheet, the standings and the overlay name them, and only they may
        sign the score sheet."""
        self.table = table
        self.names = {k: dict(v) for k, v in (names or {}).items() if v}
        self.evidence_dir = evidence_dir
        self.clip_settings = clips
        self.clips = None           # the ClipRecorder, made with the first camera
        self.settings = settings or Settings()
        self.clock = clock
        self.live = LiveVenue(Venue(db, self.settings), [table], clock=clock)
        self.sinks: list[Callable[[dict], None]] = []
        self.problems: list[str] = []                  # source problems, shown to the operator
        self._record_settings()
        self._inbox: queue.Queue[Event | dict | None] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()
        self._server = None
        self._closers: list[Callable[[], Any]] = []
        self.received = 0                              # events taken from sources
        self.uids: set[str] = set()                    # uids of the events judged from sources
        self._received_cond = threading.Condition()

    def _record_settings(self) -> None:
        """The log carries the match's settings, so every reader of it (the
        dashboard, replay, the venue central) judges it alike: a new log starts
        with them; a log whose settings differ from this node's gets the new ones
        as a referee's change, said to the operator."""
        referee = self.live.venue.table(self.table)
        logged = {"teams": referee.teams, "players": referee.players, "captains": referee.captains}
        # names not configured are left as the log has them (a settings event
        # without them keeps them)
        if referee.log and referee.settings == self.settings and all(
                logged[k] == v for k, v in self.names.items()):
            return
        if referee.log:
            changed = self.settings.differences(referee.settings) + [
                f"{k} {logged[k]} -> {v}" for k, v in self.names.items() if logged[k] != v]
            self.problem(f"{self.table}: the configured settings differ from the log's "
                         f"({'; '.join(changed)}): recorded as a change of settings")
        self.submit({"t": max(0.0, referee.t if referee.log else self.clock()), "type": "settings",
                     "settings": self.settings.to_dict(), **self.names})

    # ------------------------------------------------------------ events in
    def submit(self, event: Event | dict) -> list[dict]:
        """Judge one event now; decisions go to every sink."""
        if isinstance(event, dict):
            event = Event.from_dict(dict(event, table=event.get("table", self.table)))
        decisions = self.live.submit(event)
        for d in decisions:
            for sink in self.sinks:
                try:
                    sink(d)
                except Exception:      # a sink must never stop the referee
                    log.exception("sink %r failed on a decision", sink)
        return decisions

    def emit(self, event: Event | dict) -> None:
        """For sources in other threads: queue an event for the referee."""
        self._inbox.put(event)

    def _pump(self) -> None:
        while True:
            event = self._inbox.get()
            if event is None:
                return
            try:
                self.submit(event)
            except EventError as exc:
                self.problem(f"bad event from a source: {exc}")
            with self._received_cond:
                self.received += 1
                uid = event.get("uid") if isinstance(event, dict) else event.uid
                if uid:
                    self.uids.add(uid)
                self._received_cond.notify_all()

    def wait_for(self, predicate: Callable[["TableNode"], bool], timeout: float) -> bool:
        """Block until ``predicate(node)`` holds after a queued event was judged (or ``timeout``)."""
        with self._received_cond:
            return self._received_cond.wait_for(lambda: predicate(self), timeout)

    def tick(self) -> list[dict]:
        """Let time pass: limits that ran out are noticed (a ``tick`` event)."""
        now = self.clock()
        if now <= self.live.last_time(self.table):
            return []
        return self.submit({"t": round(now, 3), "type": "tick", "source": "manual"})

    def problem(self, message: str) -> None:
        if message not in self.problems:
            self.problems.append(message)
            log.warning("%s: %s", self.table, message)

    # ------------------------------------------------------------- threads
    def _spawn(self, target, name: str, *args) -> threading.Thread:
        th = threading.Thread(target=target, args=args, name=name, daemon=True)
        th.start()
        self._threads.append(th)
        return th

    def start(self, tick_every: float | None = 1.0) -> "TableNode":
        self._spawn(self._pump, "referee")
        if tick_every:
            def ticking():
                while not self._stop.wait(tick_every):
                    self.emit({"t": round(self.clock(), 3), "type": "tick", "source": "manual"})
            self._spawn(ticking, "tick")
        return self

    def serve_dashboard(self, host: str = "127.0.0.1", port: int = 8000,
                        config: dict | None = None) -> str:
        """Serve the dashboard for this table in a thread (uvicorn; each live
        viewer a coroutine, not a thread); returns its address."""
        from web_dashboard import create_app
        from web_dashboard.serving import make_server
        # one log line per browser request would bury the table's own messages
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        # the dashboard shows the pictures and clips this node keeps
        evidence = {"EVIDENCE_DIR": self.evidence_dir} if self.evidence_dir else {}
        app = create_app({**evidence, **(config or {})}, live=self.live)
        try:
            self._server = make_server(app, host, port)
        except OSError as exc:
            if port == 0:
                raise
            self.problem(f"port {port} is taken ({exc.strerror}); the dashboard takes a free port")
            self._server = make_server(app, host, 0)
        self._spawn(self._server.serve_forever, "dashboard")
        return f"http://{host}:{self._server.server_port}/"

    def add_devices(self, binding, ports: list[str] | None = None):
        """Read serial pass/count devices; their presses become events."""
        from hardware.reader import DeviceHub
        hub = DeviceHub(binding, self.emit, ports=ports, on_problem=self.problem, clock=self.clock)
        hub.start()
        self._closers.append(hub.stop)
        return hub

    def with_evidence(self, event: Event, frame, geometry, margin_mm: float | None = None) -> Event:
        """Keep the zone picture an observed event came from (with the cloth
        around the zone that was read, ``margin_mm``), and name it in the event."""
        zone = event.extra.get("zone")
        if not self.evidence_dir or not zone:
            return event
        import cv2
        from pathlib import Path

        from vision.reading.table import ZONE_MARGIN_MM
        folder = Path(self.evidence_dir) / self.table
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{event.t:09.2f}-{zone}.jpg"
        # the picture the cards were read from: the zone and the cloth around it
        margin = ZONE_MARGIN_MM if margin_mm is None else margin_mm
        cv2.imwrite(str(folder / name), geometry.rectify(frame, geometry.zone(zone), margin))
        return event._replace(extra={**event.extra, "crop": name})

    # --------------------------------------------------------- evidence clips
    def frame_ring(self, name: str):
        """A ring of camera ``name``'s recent frames for the rulings' clips (None
        without an evidence folder): give it each frame with its table time."""
        if not self.evidence_dir:
            return None
        if self.clips is None:
            from pathlib import Path

            from table_node.clips import ClipRecorder
            self.clips = ClipRecorder(Path(self.evidence_dir) / self.table, self.clip_settings,
                                      open_stems=self._open_clip_stems,
                                      on_written=lambda _: self.live.touch(self.table))
            self.sinks.append(self._clip_sink)
            self._closers.insert(0, self.clips.close)     # closed last: after the sources
        return self.clips.ring(name)

    def _clip_sink(self, d: dict) -> None:
        """A ruling asks for its clip, around its evidence events' own times."""
        from services.evidence import clip_stem
        stem = clip_stem(d)
        if stem is None or self.clips is None:
            return
        ids = set(d.get("events") or ())
        times = [e["t"] for e in self.live.events(self.table) if e.get("id") in ids]
        self.clips.request(stem, times + [d["t"]])

    def _open_clip_stems(self) -> set[str]:
        from services.evidence import clip_stem
        from web_dashboard.view_model import violation_status
        _, decisions, events, _ = self.live.read(self.table)
        status = violation_status(decisions, events)
        return {s for d in decisions if status.get(d["n"]) == "open" and (s := clip_stem(d))}

    def camera_status(self, name: str, online: bool, reason: str) -> None:
        """A camera that stops or comes back is shown like a device (device_offline)."""
        self.emit({"t": round(self.clock(), 3), "table": self.table, "type": "device_status",
                   "source": "vision", "device": name, "online": online, "reason": reason})

    def add_camera(self, source: str | int, geometry, detector=None, retry_every: float = 5.0,
                   margin_mm: float | None = None, zones: list[str] | None = None, deck=None,
                   hands: str = "mediapipe", unread: bool = True, white_balance: bool = True,
                   frozen_s: float | None = FROZEN_S, confidence_curve=None, threads: int = 2):
        """Watch a camera (device index, RTSP URL or video file); plays become events.
        A camera that fails is reported and retried; the table goes on without it.
        ``margin_mm``: cloth read around each zone (default
        :data:`vision.reading.table.ZONE_MARGIN_MM`); ``zones``: the zones this camera
        reads (default: every zone of ``geometry``); ``deck``: a deck profile
        (``guandan-ref enroll-deck``) and ``hands`` (``"mediapipe"``, or
        ``"hand-model"``: :data:`table_node.config.HAND_CUES`) for the detector made here;
        ``unread``: a play zone read as nothing with something new laid in it is
        reported as an unread play (:mod:`vision.reading.laid`); ``white_balance``:
        the lamp's colour, measured on the markers, is taken out of the zone
        pictures (:mod:`vision.reading.white_balance`); ``frozen_s``: a live
        camera (a device or a URL, not a video file) whose picture has not
        changed at all for this many seconds is said offline (None: not
        checked; :mod:`vision.reading.picture_loss`); ``confidence_curve``:
        the venue's own confidence curve (a path, from ``guandan-ref
        camera-check --fit``), instead of the deck profile's or the shipped one;
        ``threads``: the cores the reading shares its work between (the
        detector made here and the zones' picture work)."""
        from vision.reading.detector import CardDetector
        from vision.reading.table import ZONE_MARGIN_MM
        from vision.reading.watch import (FrameError, FrameSizeError, SourceError, TableWatcher, check_frame, is_live,
                                          open_source)
        from vision.reading.confidence import Calibration
        made = detector or CardDetector(deck=deck, hand_landmarks=hands == "mediapipe", threads=threads)
        curve = Calibration.load(confidence_curve) if confidence_curve is not None else None
        name = f"camera {source}"
        live = is_live(source)
        watcher = TableWatcher(geometry, made, zones=list(zones) if zones else None,
                               margin_mm=ZONE_MARGIN_MM if margin_mm is None else margin_mm, unread=unread,
                               white_balance=white_balance, name=name, threads=threads,
                               frozen_s=frozen_s if live else None, confidence_curve=curve)
        ring = self.frame_ring(name)
        # a live camera's frames are timed when they came, the newest (or, from a
        # device, the next) taken after each read, and every one decoded goes to
        # the evidence ring, those the table had no time for too (vision.reading.watch.NewestFrame)
        timing = {"clock": self.clock, "on_frame": ring.push if ring is not None else None} if live else {}

        def run():
            online = None
            while not self._stop.is_set():
                try:
                    for arrived, frame in open_source(source, size=watcher.geo.image_size, **timing):
                        if self._stop.is_set():
                            return
                        if frame is None:
                            self.problem(f"{name}: a frame could not be decoded")
                            continue
                        try:
                            check_frame(frame, watcher.geo.image_size)
                        except FrameError as exc:
                            self.problem(f"{name}: {exc}")
                            # a frame of another size: every frame will be, nothing of it can be read
                            if isinstance(exc, FrameSizeError) and online is not False:
                                online = False
                                self.camera_status(name, False, f"{exc}: set the camera back to that size, "
                                                                f"or calibrate again")
                            continue
                        if online is not True:
                            online = True
                            self.camera_status(name, True, "frames arriving")
                            watcher.restarted()     # a picture still dark or frozen is said again
                        t = arrived if live else self.clock()
                        if ring is not None and not live:
                            ring.push(t, frame)
                        try:
                            for e in watcher.process(t, frame):
                                self.emit(self.with_evidence(e, frame, watcher.geo, watcher.margin_mm))
                        except FrameError as exc:
                            self.problem(f"{name}: {exc}")
                    reason = "the stream ended"
                except SourceError as exc:
                    reason = str(exc)
                self.problem(f"{name}: {reason}; manual entry stays possible, retrying")
                if online is not False:
                    online = False
                    self.camera_status(name, False, reason)
                self._stop.wait(retry_every)

        self._spawn(run, f"camera {source}")
        return watcher

    def add_publisher(self, redis_url: str, node: str, key: bytes | None = None,
                      password: str | None = None, ca_file: str | None = None):
        """Venue mode: copy the log to the venue's Redis stream (signed with
        ``key`` when the central checks signatures; ``password``: the node's Redis
        ACL user's; ``ca_file``: TLS, the CA of Redis's certificate)."""
        from venue.publisher import Publisher
        pub = Publisher(self.live.venue.store.path, redis_url, node, key=key, password=password,
                        ca_file=ca_file)
        self._spawn(pub.run, "publisher", self._stop)
        self._closers.append(pub.close)
        return pub

    def add_audio(self, voice: str | None = None):
        from hardware.audio import AudioSink
        sink = AudioSink(clock=self.clock, voice=voice)
        self.sinks.append(sink.on_decision)
        sink.start()
        self._closers.append(sink.stop)
        return sink

    def stop(self) -> None:
        self._stop.set()
        self._inbox.put(None)
        if self._server is not None:
            self._server.shutdown()
        for close in reversed(self._closers):
            try:
                close()
            except Exception:
                log.exception("closing %r", close)
        for th in self._threads:
            th.join(timeout=5)
        self.live.close()
