"""End to end: the demo, headless, referees its scripted match from the video and the devices."""

import json
import os
import subprocess
import sys
from collections import Counter, defaultdict

from referee.events import Event
from referee.settings import Settings
from referee.table import Table
from storage.sqlite_log import EventStore


def test_demo_catches_every_scripted_violation_from_video_and_devices(tmp_path):
    check_demo(tmp_path)


def check_demo(tmp_path, seed: int | None = None):
    """The demo (its default seed, or ``seed``) run headless: every scripted
    violation caught from the video and the devices, each with its clip, and
    nothing else."""
    # a cache of its own: the video is rendered here, and kept for a next run
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    r = subprocess.run([sys.executable, "-m", "commands", "demo", "--headless", "--speed", "0",
                        "--dir", str(tmp_path), *(("--seed", str(seed)) if seed is not None else ())],
                       capture_output=True, text=True, timeout=900, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "match over" in r.stdout
    kept = list((tmp_path / "cache" / "guandan-referee").iterdir())
    assert len(kept) == 1 and kept[0].name.startswith("demo-") and kept[0].suffix == ".mp4"
    assert kept[0].read_bytes() == (tmp_path / "table.mp4").read_bytes()
    with EventStore(str(tmp_path / "demo.sqlite")) as store:
        events = list(store.stream("T01"))
    by_source = defaultdict(set)
    for e in events:
        by_source[e.source].add(e.type)
    assert {"play", "tribute"} <= by_source["vision"]          # cards read off the video
    assert {"pass", "report", "device_status"} <= by_source["device"]   # presses through the ptys
    table = Table("T01", Settings.parse_format("deals:2"))
    decisions = table.replay(events)
    # the log's settings name the teams, players and captains (the sheet, standings, who signs)
    from table_node.demo import NAMES
    snap = table.snapshot()
    assert {k: snap[k] for k in NAMES} == NAMES
    found = defaultdict(list)
    for d in decisions:
        if d.type == "violation":
            found[d.code].append(d)
    for code in ("overtime", "illegal_play", "missing_report", "wrong_tribute"):
        assert found[code], f"the demo's {code} was not caught; found {sorted(found)}"
    # each of them has its video clip beside the evidence pictures, a few seconds around it
    import cv2

    from services.evidence import clip_paths
    for code in ("overtime", "illegal_play", "missing_report", "wrong_tribute"):
        for d in found[code]:
            clips = clip_paths(tmp_path / "evidence" / "T01", d.to_dict())
            assert len(clips) == 1, f"the demo's {code} has no clip"
            meta = json.loads(clips[0].with_suffix(".json").read_text())
            cap = cv2.VideoCapture(str(clips[0]))
            count = 0
            while cap.read()[0]:
                count += 1
            cap.release()
            assert count == meta["frames"] >= 40, (code, count, meta)
            assert meta["t0"] <= d.t <= meta["t1"]
    # and nothing else: the cards read off the video are the scripted ones, so the
    # referee finds exactly what it finds in the script itself
    script = [Event.from_dict(json.loads(line))
              for line in (tmp_path / "script.jsonl").read_text(encoding="utf-8").splitlines()]
    # (the script judged as laid, its penalties at once; the node's camera reads waited for the
    # demo's referee to confirm them: camera_penalties)
    expected = Counter(d.code for d in Table("T01", Settings.parse_format("deals:2", camera_penalties="direct"))
                       .replay(script) if d.type == "violation")
    assert Counter({code: len(ds) for code, ds in found.items()}) == expected
    # the illegal play and the wrong tribute were seen by the camera, the report fault by the devices
    ids = {e.id: e for e in events}
    assert any(ids[i].source == "vision" for d in found["illegal_play"] for i in d.events if i in ids)
    assert any(ids[i].source == "vision" for d in found["wrong_tribute"] for i in d.events if i in ids)
    assert decisions[-1].type == "match_end" or any(d.type == "match_end" for d in decisions)
    # every camera read of cards carries its raw score, and camera-check counts each one (the
    # demo's referee answered the three reads its penalties waited on, the illegal play, the
    # play it did not beat and the heart level tribute, confirmed, so right; and each read the
    # camera was unsure of, confirmed or corrected to what was laid: none is left unanswered)
    reads = [e for e in events if e.source == "vision" and e.type in ("play", "tribute") and (e.cards or e.card)]
    assert reads and all(isinstance(e.get("raw_confidence"), float) for e in reads)
    from tests.cli.helpers import cli
    r = cli("camera-check", "--db", tmp_path / "demo.sqlite", "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["reads"] == len(reads) and rep["unasked"]["judged"] == 3
    assert rep["asked"]["judged"] == rep["asked"]["reads"] and rep["asked"]["unanswered"] == 0
    answered = {e.get("ref"): e.get("action") for e in events if e.type == "referee"
                and e.get("action") in ("confirm", "correct")}
    held = {i for d in found["illegal_play"] + found["wrong_tribute"] for i in d.events if i in ids
            and ids[i].source == "vision"}
    assert len(held) == 3 and all(answered.get(i) == "confirm" for i in held)
    asked = {e.id for e in reads if e.confidence is not None and e.confidence < Settings().min_confidence}
    assert set(answered) == held | asked
    # the missing report waited on the seat's count (its plays were camera reads): the demo's
    # referee counted that seat's cards, once, at the event the fault was found at
    counts = [(e.get("ref"), e.get("seat")) for e in events if e.type == "referee" and e.get("action") == "count"]
    (missing,) = found["missing_report"]
    assert counts == [(missing.events[-1], missing.seat)]
