"""``guandan-ref demo``: a whole scripted match at one table, with no camera or
device attached.

1. A match is scripted by the simulator (:func:`referee.simulation.simulate_match`)
   with one of each fault the referee must catch: an overtime, an illegal
   play, a missing count report and a wrong tribute.
2. The project renders a top-down video of the table from the script: real
   card artwork (Debian's ``gnome-cards-data``) laid in the play and reminder
   zones, hands passing over the cards as they are laid and taken away.
3. Simulated serial devices on pseudo-terminals press PASS and COUNT as the
   script says; the node reads them through the real serial path.
4. The node calibrates from the video's first frame, reads the video with
   the vision pipeline, judges every event, keeps the SQLite log and serves
   the dashboard; the deal starts come from the referee's hand.

Table time is the video's time: ``--speed`` plays it that many times faster
than real time (0: as fast as the machine goes).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from referee.events import Event
from referee.seating import Seat
from referee.settings import Settings
from referee.simulation import FAULTS, simulate_match
from referee.table import Table
from storage.files import link_or_copy, replaced_when_complete, write_whole


FPS = 5.0
TABLE = "T01"
# who plays: written into the log's settings event (the sheet, the standings and
# the overlay name them; only these may sign the score sheet)
NAMES = {"teams": {"NS": "南京队", "EW": "苏州队"},
         "captains": {"NS": "李娜", "EW": "王芳"},
         "players": {"N": "张伟", "S": "李娜", "E": "王芳", "W": "刘洋"}}
VISION_TYPES = ("play", "tribute", "return")
DEVICE_TYPES = ("pass", "report")
LAY_AHEAD = 1.0     # cards go down this long before the scripted time (the camera needs ~0.6 s)
HAND_FOR = 0.4      # a hand covers the zone this long while laying or taking cards
MIN_GAP = 1.5       # after a seen event, the next one waits this long (the camera's delay)
CLEAR_AFTER = 0.6   # a finished trick's cards are taken away this long after its last action
# the longest wait for a press (the scripted overtime aside; else 3.5 s): a
# fifth of the video's frames were passes waiting up to 3.5 s, each frame
# rendered, encoded and read
MAX_GAP = 2.0


class DemoError(RuntimeError):
    """The demo cannot run here; the message says what is missing."""


@dataclass
class Change:
    t: float
    zone: str
    cards: tuple[str, ...] | None    # None: the zone is cleared


@dataclass
class DemoScript:
    settings: Settings
    events: list[dict]                       # the match, in table time
    injected: dict[str, int]                 # fault -> index of its event
    changes: list[Change] = field(default_factory=list)
    end: float = 0.0


def _ends(events: list[dict], settings: Settings) -> tuple[set[int], set[int]]:
    """Indices of the events that end a trick, and of those that end a deal."""
    table = Table(TABLE, settings)
    trick_ends: set[int] = set()
    deal_ends: set[int] = set()
    for i, e in enumerate(events):
        for d in table.feed(Event.from_dict(e)):
            if d.type == "trick_end":
                trick_ends.add(i)
            elif d.type in ("deal_end", "match_end"):
                deal_ends.add(i)
    return trick_ends, deal_ends


def _retime(events: list[dict], keep_gap: set[int], trick_ends: set[int] = frozenset()) -> list[dict]:
    """Players act briskly (a press at most :data:`MAX_GAP` after the action
    before it, anything else 3.5 s; a seen play at least :data:`MIN_GAP`)
    except where the script needs a long gap.

    After a trick ends the table is cleared (:data:`CLEAR_AFTER`) before the
    next cards go down (:data:`LAY_AHEAD`), so the next event waits for both.
    """
    out, t, prev = [], 2.0, None
    for i, e in enumerate(events):
        if prev is not None:
            gap = e["t"] - prev["t"]
            if i not in keep_gap:
                gap = min(max(gap * 0.35, 0.2), MAX_GAP if e["type"] in DEVICE_TYPES else 3.5)
            if prev["type"] in VISION_TYPES or e["type"] in VISION_TYPES:
                gap = max(gap, MIN_GAP)
            if i - 1 in trick_ends:
                gap = max(gap, CLEAR_AFTER + LAY_AHEAD + 0.6)
            t += gap
        prev = e
        out.append(dict(e, t=round(t, 2)))
    return out


def make_script(seed: int = 3, deals: int = 2) -> DemoScript:
    """A scripted match holding every fault of :data:`FAULTS` once (no 抗贡)."""
    settings = Settings.parse_format(f"deals:{deals}")
    for s in range(seed, seed + 200):
        injected: dict[str, int] = {}
        events = simulate_match(seed=s, settings=settings, table=TABLE, faults=FAULTS, injected=injected)
        if set(injected) == set(FAULTS) and not any(e["type"] == "anti_tribute" for e in events):
            break
    else:
        raise DemoError("no scripted match with every fault was found")
    keep = {injected["overtime"]}
    events = _retime(events, keep, _ends(events, settings)[0])
    script = DemoScript(settings, events, injected)
    script.changes = _zone_changes(script)
    script.end = events[-1]["t"] + 4.0
    return script


def _zone_changes(script: DemoScript) -> list[Change]:
    """What the camera sees change, and when, for the script's events."""
    events = script.events
    trick_ends, deal_ends = _ends(events, script.settings)
    changes: list[Change] = []
    in_zone: dict[str, tuple[str, ...]] = {}
    illegal = script.injected.get("illegal_play")

    def put(t: float, zone: str, cards: tuple[str, ...] | None) -> None:
        changes.append(Change(round(t, 3), zone, cards))
        if cards is None:
            in_zone.pop(zone, None)
        else:
            in_zone[zone] = cards

    def clear(t: float, kind: str | None = None) -> None:
        for zone in sorted(in_zone):
            if kind is None or zone.endswith(kind):
                put(t, zone, None)

    for i, e in enumerate(events):
        t, typ, seat = e["t"], e["type"], e.get("seat")
        if typ == "play":
            if any(z.endswith("reminder") for z in in_zone):
                clear(t - LAY_AHEAD - 0.8, "reminder")        # tribute cards went into hands
            zone, cards = f"{seat}-play", tuple(e["cards"])
            if in_zone.get(zone) == cards:
                put(t - LAY_AHEAD - 0.6, zone, None)   # the same cards again: the zone empties first
            put(t - LAY_AHEAD, zone, cards)
            if i == illegal:
                put(t + 0.8, f"{seat}-play", None)            # the referee: take it back
        elif typ in ("tribute", "return"):
            put(t - LAY_AHEAD, f"{seat}-reminder", (e["card"],))
        if i in trick_ends:
            clear(t + CLEAR_AFTER, "play")
        if i in deal_ends:
            clear(t + 1.0)
    changes.sort(key=lambda c: c.t)
    return changes


# ---------------------------------------------------------------- the video
def render_video(script: DemoScript, path: Path, decks: tuple[str, ...] = ("anglo",),
                 seed: int = 7, progress=None) -> Path:
    """Write the table video for ``script`` (mp4, :data:`FPS` frames per second)."""
    from vision.training.card_art import load_decks
    from vision.training.synth import SceneGenerator
    from vision.training.synth_table import TablePainter

    painter = TablePainter(SceneGenerator(load_decks(list(decks)), hand_rate=0.0),
                           np.random.default_rng(seed))
    w, h = painter.frame_size
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), FPS, (w, h))
    if not writer.isOpened():
        raise DemoError(f"cannot write the demo video {path}")
    frames = int(math.ceil(script.end * FPS))
    zones: dict[str, tuple[str, ...]] = {}
    k = 0
    last_key, last_frame = None, None
    try:
        for n in range(frames):
            ft = n / FPS
            hands = set()
            while k < len(script.changes) and script.changes[k].t <= ft:
                c = script.changes[k]
                if c.cards is None:
                    zones.pop(c.zone, None)
                else:
                    zones[c.zone] = c.cards
                k += 1
            for c in script.changes[max(0, k - 12):k]:
                if ft - c.t < HAND_FOR:
                    hands.add(c.zone)
            key = (tuple(sorted(zones.items())), tuple(sorted(hands)))
            if key != last_key:
                plays = {z: list(v) for z, v in zones.items()}
                for z in hands:
                    plays.setdefault(z, [])     # a hand reaching into an empty zone
                last_frame, _ = painter.frame(plays, hands=hands, noise=1.5)
                last_key = key
            writer.write(last_frame)
            if progress:
                progress(n + 1, frames)
    finally:
        writer.release()
    return path


# ------------------------------------------------------------------ the run
class ProgressBar:
    def __init__(self, label: str, stream=sys.stderr, width: int = 30):
        self.label, self.stream, self.width = label, stream, width
        self.tty = stream.isatty()
        self._last = -1
        self._open = False        # a \r line is on the terminal, not yet ended

    def __call__(self, done: float, total: float, note: str = "") -> None:
        frac = 0.0 if total <= 0 else min(1.0, done / total)
        pct = int(frac * 100)
        if not self.tty and pct == self._last:
            return
        self._last = pct
        bar = "#" * int(frac * self.width) + "." * (self.width - int(frac * self.width))
        line = f"{self.label} [{bar}] {pct:3d}% {note}"
        self.stream.write(("\r" + line) if self.tty else (line + "\n"))
        self._open = self.tty
        if frac >= 1.0 and self.tty:
            self.finish()
        self.stream.flush()

    def finish(self) -> None:
        """End the bar's line, so that what is printed next starts on its own."""
        if self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False


@dataclass
class DemoResult:
    log_path: Path
    violations: dict[str, int]
    dashboard: str | None
    events: int


def run_demo(workdir: Path | None = None, *, seed: int = 3, speed: float = 8.0,
             host: str = "127.0.0.1", port: int = 8000, dashboard: bool = True,
             keep_serving: bool = True, decks: tuple[str, ...] = ("anglo",),
             out=sys.stdout, cache: bool = True) -> DemoResult:
    """Run the demo table; returns what the referee found."""
    from hardware.binding import Binding, DeviceBinding
    from hardware.simulator import SimulatedDevice
    from table_node.node import TableNode
    from vision.reading.detector import FLOAT_MODEL, CardDetector
    from vision.reading.table import calibrate
    from vision.reading.watch import FrameError, TableWatcher, open_source

    if not Path(FLOAT_MODEL).exists():
        raise DemoError(f"the card model {FLOAT_MODEL} is missing")
    workdir = Path(workdir or tempfile.mkdtemp(prefix="guandan-demo-"))
    workdir.mkdir(parents=True, exist_ok=True)
    script = make_script(seed)
    video = _write_script(script, workdir, out)
    _video(script, video, seed, decks, cache, out)

    db = _fresh_log(workdir / "demo.sqlite")
    clock = _VideoClock()
    evidence = workdir / "evidence"
    node = TableNode(TABLE, str(db), script.settings, clock=clock, evidence_dir=str(evidence),
                     names=NAMES)
    device = SimulatedDevice("BOX", "ESWN", seed=seed).start()
    url = None
    found = _Violations()
    node.sinks.append(found)
    try:
        node.start(tick_every=None)
        binding = Binding(devices={"BOX": DeviceBinding("BOX", TABLE, ("E", "S", "W", "N"),
                                                        ("pass", "count"))})
        node.add_devices(binding, ports=[device.path])
        if dashboard:
            url = _serve_dashboard(node, workdir, evidence, host, port, out)
        if not node.wait_for(lambda n: any(u.startswith("BOX:online") for u in n.uids), 10):
            raise DemoError("the simulated device did not come online")
        first = next(frame for _, frame in open_source(str(video)) if frame is not None)
        geometry = calibrate(first, table=TABLE)
        geometry.save(workdir / "table.json")
        watcher = TableWatcher(geometry, CardDetector())
        ring = node.frame_ring("demo camera")      # each ruling's clip (evidence/T01/*.webm)

        def see(t: float, frame) -> None:
            ring.push(t, frame)
            try:
                for e in watcher.process(t, frame):
                    node.submit(node.with_evidence(e, frame, geometry))
            except FrameError as exc:
                node.problem(f"demo video: {exc}")

        _play(script, open_source(str(video)), see, node, device, clock, found, speed)
        found.recount(node.live.decisions(TABLE))
        _finish(found, url, dashboard and keep_serving, out)
        return DemoResult(db, dict(found.by_code), url, len(node.live.events(TABLE)))
    finally:
        device.stop()
        node.stop()


RENDER_SEED = 7     # the painter's randomness (noise, hands), part of the cache key


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/guandan-referee`` (default ``~/.cache/guandan-referee``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "guandan-referee"


def cached_video_path(script: DemoScript, seed: int, decks: tuple[str, ...]) -> Path:
    """Where the video of ``script`` is kept: named by version and seed, and by a
    hash of everything the frames are drawn from (so a changed script or
    renderer never reuses an old video)."""
    from importlib.metadata import PackageNotFoundError, version as dist_version

    from vision.training import card_art, synth, synth_table
    try:
        version = dist_version("guandan-referee")
    except PackageNotFoundError:     # a checkout never installed: the hash still tells code apart
        version = "unknown"
    painter = hashlib.sha256(b"".join(Path(m.__file__).read_bytes()
                                      for m in (card_art, synth, synth_table, sys.modules[__name__])))
    key = json.dumps({"changes": [(c.t, c.zone, c.cards) for c in script.changes],
                      "end": script.end, "fps": FPS, "decks": list(decks), "render_seed": RENDER_SEED,
                      "painter": painter.hexdigest()}, sort_keys=True)
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    return cache_dir() / f"demo-{version}-{seed}-{digest}.mp4"


def _video(script: DemoScript, video: Path, seed: int, decks: tuple[str, ...], cache: bool, out) -> None:
    """The table video at ``video``: from the cache when it holds it, else rendered
    (and kept in the cache for the next run); each file complete or not at all
    (Ctrl-C or an error leaves no partial file, and no temp file)."""
    from vision.training.card_art import CardArtError

    def render(path: Path) -> None:
        bar = ProgressBar("rendering the table video")
        try:
            render_video(script, path, decks=decks, seed=RENDER_SEED, progress=bar)
        except CardArtError as exc:
            raise DemoError(f"cannot render the table video: {exc}") from None
        finally:
            bar.finish()

    kept = cached_video_path(script, seed, decks) if cache else None
    if kept is not None and kept.exists():
        print(f"demo: table video from the cache, {kept}", file=out, flush=True)
    elif kept is not None:
        try:
            kept.parent.mkdir(parents=True, exist_ok=True)
            with replaced_when_complete(kept) as tmp:
                render(tmp)
        except OSError:          # a read-only home: render beside the run, as without a cache
            kept = None
    with replaced_when_complete(video) as tmp:
        if kept is None:
            render(tmp)
        else:
            link_or_copy(kept, tmp)      # (the video is ~50 MB)


def _write_script(script: DemoScript, workdir: Path, out) -> Path:
    """Keep the script beside the run, say what it holds; the path the video goes to."""
    write_whole(workdir / "script.jsonl", "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in script.events))
    video = workdir / "table.mp4"
    print(f"demo: scripted match of {len(script.events)} events with "
          f"{', '.join(sorted(script.injected))}; files in {workdir}", file=out, flush=True)
    return video


def _fresh_log(db: Path) -> Path:
    """``db`` with the log of an earlier run in the same folder removed."""
    if db.exists():
        for suffix in ("", "-wal", "-shm"):
            Path(str(db) + suffix).unlink(missing_ok=True)
    return db


class _Violations:
    """A sink for the node's decisions: the violations found, by code, and what
    a penalty waits on (setting ``camera_penalties``): camera reads, and seats'
    counts, for the demo's referee to look at (:func:`_referee_looks`); and
    the reads the camera was unsure of, which count only once answered."""

    def __init__(self) -> None:
        self.by_code: dict[str, int] = {}
        self.deals: list[int] = []      # the deals ended, for their deal viewer pages
        self.to_look_at: list[int] = []     # camera reads a held penalty rests on
        self._looked: set[int] = set()      # (each once: a held request is restated as others are answered)
        self.unsure: set[int] = set()       # those of them the camera was unsure of
        self._counted: set[tuple[int, str]] = set()
        self.to_count: list[tuple[int, str]] = []   # (event, seat): a report fault held on the count
        self._lock = threading.Lock()   # decisions come from this thread and the devices' pump

    def __call__(self, d: dict) -> None:
        with self._lock:
            if d["type"] == "deal_end" and d["deal"] not in self.deals:     # a correction restates the record
                self.deals.append(d["deal"])
            if d["type"] == "violation":      # (live, for the progress bar; recounted at the end)
                self.by_code[d["code"]] = self.by_code.get(d["code"], 0) + 1
            if d["type"] == "confirm_request" and d.get("code") in ("camera_penalty", "low_confidence"):
                # (a penalty's reads, or a read the camera was unsure of: not counted until answered)
                reads = d.get("reads", ()) if d["code"] == "camera_penalty" else d.get("events", ())[-1:]
                fresh = [r for r in reads if r not in self._looked]
                self._looked.update(fresh)
                self.to_look_at += fresh
                if d["code"] == "low_confidence":
                    self.unsure.update(fresh)
            if d["type"] == "confirm_request" and d.get("code") == "camera_count" and d.get("events") \
                    and (d["events"][-1], d["seat"]) not in self._counted:
                self._counted.add((d["events"][-1], d["seat"]))
                self.to_count.append((d["events"][-1], d["seat"]))

    def recount(self, decisions: list[dict]) -> None:
        """The violations of the record as it stands (a confirmation restates it)."""
        with self._lock:
            self.by_code = dict(Counter(d["code"] for d in decisions if d["type"] == "violation"))

    def take(self) -> tuple[list[int], list[tuple[int, str]]]:
        """The reads to look at and the counts to make, since the last call."""
        with self._lock:
            out = self.to_look_at, self.to_count
            self.to_look_at, self.to_count = [], []
        return out


def _referee_looks(script: "DemoScript", node, reads: list[int], counts: list[tuple[int, str]],
                   t: float, unsure: set[int] | frozenset[int] = frozenset()) -> None:
    """The demo's table referee looks at each camera read a penalty waits on,
    or the camera was unsure of, and confirms it where the table shows what
    the camera read (the script's event of that seat, kind and cards, laid
    within a few seconds). An unsure read that does not match is corrected
    to what was laid (the script's event of that seat and kind there), as a
    referee at the table does; a penalty's read that does not match is left
    for the dashboard's referee. A report fault held on a seat's count: the
    referee counts its cards (the script's, as laid) and enters them."""
    by_id = {e.get("id"): e for e in node.live.events(TABLE)}
    for ref, seat in counts:
        if ref in by_id:
            node.submit({"t": t, "type": "referee", "action": "count", "ref": ref, "seat": seat,
                         "count": _cards_held(script, seat, by_id[ref]["t"]), "source": "manual"})
    for r in reads:
        read = by_id.get(r)
        if read is None:
            continue
        key = (read["type"], read.get("seat"), sorted(read.get("cards") or [read.get("card")]))
        laid = [e for e in script.events if (e["type"], e.get("seat")) == key[:2] and abs(e["t"] - read["t"]) <= 5.0]
        if any(sorted(e.get("cards") or [e.get("card")]) == key[2] for e in laid):
            node.submit({"t": t, "type": "referee", "action": "confirm", "ref": r, "source": "manual"})
        elif laid and r in unsure:
            # (the nearest in time: the play the camera saw)
            e = min(laid, key=lambda e: abs(e["t"] - read["t"]))
            fix = {"cards": list(e["cards"])} if e.get("cards") else {"card": e.get("card")}
            node.submit({"t": t, "type": "referee", "action": "correct", "ref": r, "event": fix, "source": "manual"})


def _cards_held(script: "DemoScript", seat: str, t: float) -> int:
    """How many cards ``seat`` holds just before table time ``t``, as the script
    lays them (its plays as they are, whatever a camera read)."""
    table = Table(TABLE, replace(script.settings, camera_penalties="direct"))
    # a little before t: the event the count is asked at was seen a moment after its script time
    table.replay([Event.from_dict(e) for e in script.events if e["t"] < t - 0.5])
    deal = table.deal
    return deal.counts[Seat(seat)] if deal is not None else 0


def _serve_dashboard(node, workdir: Path, evidence: Path, host: str, port: int, out) -> str:
    url = node.serve_dashboard(host, port, dict(_demo_dashboard_config(workdir),
                                                EVIDENCE_DIR=str(evidence)))
    print(f"dashboard: {url}tables/{TABLE}  (log in as 'demo', password 'demo'; "
          f"overlay: {url}overlay/{TABLE})", file=out, flush=True)
    return url


def _play(script: DemoScript, frames, see, node, device, clock: "_VideoClock",
          found: _Violations, speed: float) -> None:
    """The match, as the video's ``frames`` go by: each scripted press or entry
    at its time, each frame to ``see``, a tick each second of table time, and a
    last tick at the end; ``speed`` times real time (0: no waiting)."""
    bar = ProgressBar("match")
    todo = [e for e in script.events if e["type"] not in VISION_TYPES]
    k = 0
    last_tick = 0.0
    warned = False
    wall0 = time.monotonic()
    for t, frame in frames:
        clock.t = t
        while k < len(todo) and todo[k]["t"] <= t:
            _act(node, device, todo[k])
            k += 1
        if frame is not None:
            see(t, frame)
        reads, counts = found.take()
        if reads or counts:
            _referee_looks(script, node, reads, counts, t, found.unsure)
        if t - last_tick >= 1.0:
            node.tick()
            last_tick = t
        bar(t, script.end, f"t={int(t) // 60}:{int(t) % 60:02d} "
                           f"violations {sum(found.by_code.values())}")
        if speed > 0:
            wall = time.monotonic() - wall0
            ahead = t / speed - wall
            if ahead > 0:
                time.sleep(ahead)       # pacing the demo for the viewer, not a test
            elif not warned and wall > 5.0 and t / wall < 0.8 * speed:
                warned = True           # said once, while it happens, not only at the end
                bar.finish()
                print(f"demo: this machine keeps up only about {t / wall:.1f}x real time, "
                      f"not the {speed:g}x asked; the match plays slower", file=sys.stderr, flush=True)
    bar.finish()
    wall = time.monotonic() - wall0
    if speed > 0 and wall > 0 and script.end / wall < 0.9 * speed:
        print(f"demo: played at {script.end / wall:.1f}x real time ({speed:g}x asked)",
              file=sys.stderr, flush=True)
    clock.t = script.end
    node.tick()


def _finish(found: _Violations, url: str | None, keep_serving: bool, out) -> None:
    """Say what was found; with ``keep_serving``, keep the dashboard at ``url`` until Ctrl-C."""
    print("demo: match over; violations found: "
          + (", ".join(f"{c} x{n}" for c, n in sorted(found.by_code.items())) or "none"),
          file=out, flush=True)
    if url and found.deals:
        print("demo: each deal trick by trick, its rulings in place: "
              + " ".join(f"{url}tables/{TABLE}/deals/{n}" for n in found.deals), file=out, flush=True)
    if keep_serving:
        print(f"demo: the dashboard stays at {url} until Ctrl-C", file=out, flush=True)
        while True:
            time.sleep(3600)


class _VideoClock:
    """Table time in the demo: the time of the video frame being read."""

    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def _act(node, device, e: dict) -> None:
    """Carry out one scripted non-camera event: a device press or the referee's entry."""
    if e["type"] == "pass":
        frame = device.press_pass(e["seat"])
    elif e["type"] == "report":
        frame = device.press_count(e["seat"], e["count"])
    else:
        node.submit(dict(e, source="manual"))
        return
    uid = f"BOX:{device.boot}:{frame.seq}"
    if not node.wait_for(lambda n: uid in n.uids, 10):
        node.problem(f"device press {e['type']} by {e['seat']} did not arrive")


def _demo_dashboard_config(workdir: Path) -> dict:
    from web_dashboard.auth import user_entry
    # the teams come from the log's settings event (NAMES), not from here
    return {"USERS": [user_entry("demo", "demo", "head", [])],
            "SECRET_KEY": os.urandom(16).hex()}
