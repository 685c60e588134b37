"""``guandan-ref appeal``: one ruling's archive (rule, events, pictures, clip) and its errors."""

import json
import zipfile

import cv2
import numpy as np
import pytest

from referee.settings import Settings
from referee.simulation import simulate_match
from services.evidence import clip_stem
from services.venue import Venue
from table_node.clips import ClipRecorder, ClipSettings
from tests.cli.helpers import cli


def make_log(folder, crop="12.50-S-play.jpg"):
    """A log whose 4th event is a play out of turn read by a camera (its picture
    named ``crop``); returns (db, the violation)."""
    db = folder / "T01.sqlite"
    events = [dict(e, table="T01") for e in simulate_match(seed=3, settings=Settings.parse_format("deals:1"))]
    with Venue(str(db), Settings.parse_format("deals:1")) as venue:
        for e in events[:3]:
            venue.ingest(venue_event(e))
        turn = venue.table("T01").snapshot()["deal"]["turn"]
        wrong = {"S": "N", "E": "S", "N": "E", "W": "S"}[turn]
        out = venue.ingest(venue_event({"t": events[2]["t"] + 1, "table": "T01", "type": "play",
                                        "seat": wrong, "cards": ["BJ"], "source": "vision",
                                        "confidence": 0.97, "zone": f"{wrong}-play", "crop": crop}))
    violation = next(d.to_dict() for d in out if d.type == "violation")
    return db, violation


def venue_event(d):
    from referee.events import Event
    return Event.from_dict(d)


def write_evidence(folder, violation, crop="12.50-S-play.jpg"):
    ev = folder / "evidence" / "T01"
    ev.mkdir(parents=True)
    cv2.imwrite(str(ev / crop), np.full((80, 120, 3), 90, np.uint8))
    rec = ClipRecorder(ev, ClipSettings(before_s=1.0, after_s=0.5, width=160))
    ring = rec.ring("camera 0", background=False)
    t = violation["t"]
    for k in range(-30, 10):
        ring.push(t + k / 10, np.full((120, 160, 3), 100 + k, np.uint8))
    rec.request(clip_stem(violation), [t])
    rec.close()
    return ev


def test_the_archive_holds_the_ruling_its_rule_events_pictures_and_clip(tmp_path):
    db, violation = make_log(tmp_path)
    ev = write_evidence(tmp_path, violation)
    out = tmp_path / "bundle.zip"
    r = cli("appeal", "--db", db, "--violation", violation["n"], "--out", out, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        stem = clip_stem(violation)
        assert names == {"ruling.json", "events.jsonl", "summary.html", "pictures/12.50-S-play.jpg",
                         f"clips/{stem}.webm", f"clips/{stem}.json"}
        record = json.loads(z.read("ruling.json"))
        assert record["ruling"]["n"] == violation["n"] and record["status"] == "open"
        assert record["rule"]["code"] == "out_of_turn_play"
        assert (record["rule"]["term"], record["rule"]["clause"]) == ("越序出牌", "七(二)2")
        assert "before the seat's turn" in record["rule"]["en"]
        events = [json.loads(line) for line in z.read("events.jsonl").decode().splitlines()]
        assert [e["id"] for e in events] == violation["events"]
        assert events[0]["cards"] == ["BJ"] and events[0]["source"] == "vision"
        assert z.read(f"clips/{stem}.webm") == (ev / f"{stem}.webm").read_bytes()
        assert z.read("pictures/12.50-S-play.jpg") == (ev / "12.50-S-play.jpg").read_bytes()
        summary = z.read("summary.html").decode()
        assert "越序出牌" in summary and "§七(二)2" in summary and f'src="clips/{stem}.webm"' in summary


def test_the_default_names_and_a_ruling_without_a_clip(tmp_path):
    db, violation = make_log(tmp_path)
    ev = write_evidence(tmp_path, violation)
    for p in ev.glob("*.webm"):
        p.unlink()
    r = cli("appeal", "--db", db, "--violation", violation["n"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    with zipfile.ZipFile(tmp_path / f"appeal-T01-{violation['n']}.zip") as z:
        assert not any(n.startswith("clips/") for n in z.namelist())
        assert "no clip was recorded" in z.read("summary.html").decode()


@pytest.mark.parametrize("case, words", [
    ("unknown", "table T01 has no violation or confirm request number 999 (its rulings: "),
    ("no-picture", "the picture 12.50-S-play.jpg of event #"),
    ("no-folder", "--evidence-dir"),
    ("bad-dir", "--evidence-dir"),
])
def test_errors_are_one_line_and_exit_2(tmp_path, case, words):
    db, violation = make_log(tmp_path)
    ev = write_evidence(tmp_path, violation)
    args = ["appeal", "--db", db, "--violation", violation["n"], "--out", tmp_path / "x.zip"]
    if case == "unknown":
        args[4] = 999
    elif case == "no-picture":
        (ev / "12.50-S-play.jpg").unlink()
    elif case == "no-folder":
        args += ["--evidence-dir", tmp_path]            # holds no T01/ folder
    else:
        args += ["--evidence-dir", tmp_path / "none"]
    r = cli(*args, cwd=tmp_path)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith("guandan-ref appeal: ") and words in r.stderr
    assert not (tmp_path / "x.zip").exists()
