"""The log: replaying twice gives identical decisions; a killed process restarts
from the SQLite log and ends in the same state as an uninterrupted run."""

import json
from dataclasses import replace
import os
import signal
import subprocess
import sys
import time

from referee.events import Event
from referee.settings import Settings
from referee.simulation import simulate_match
from referee.table import Table
from services.venue import Venue
from storage.sqlite_log import EventStore

import pytest
import sqlite3


def noisy_log(seed=7):
    """A simulated match with violations and referee corrections mixed in."""
    events = simulate_match(seed=seed, settings=Settings.parse_format("deals:3"))
    out = []
    for i, e in enumerate(events):
        out.append(e)
        if i == 40:
            out.append({"t": e["t"] + 0.1, "table": "T01", "type": "pass", "seat": "N"})
        if i == 60:
            out.append({"t": e["t"] + 0.1, "table": "T01", "type": "referee", "action": "void",
                        "ref": 42})
        if i == 80 and e["type"] == "play":
            out.append({"t": e["t"] + 0.1, "table": "T01", "type": "tick"})
    out.insert(100, {"t": out[99]["t"] + 200, "table": "T01", "type": "tick"})   # an overtime
    return out


def test_replaying_a_log_twice_gives_identical_decisions():
    log = noisy_log()
    runs = []
    for _ in range(2):
        # (penalties given at once: under confirm the pass out of turn and the overtime wait for a count)
        table = Table("T01", replace(Settings.parse_format("deals:3"), camera_penalties="direct"))
        runs.append([d.to_json() for d in table.replay(Event.from_dict(e) for e in log)])
    assert runs[0] == runs[1]
    kinds = {json.loads(j)["type"] for j in runs[0]}
    assert {"violation", "correction", "countdown", "deal_end", "match_end"} <= kinds


def test_store_is_append_only(tmp_path):
    path = str(tmp_path / "venue.sqlite")
    with EventStore(path) as store:
        store.append(Event.from_dict({"t": 0, "type": "tick"}))
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            store._db.execute("UPDATE events SET body = '{}'")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            store._db.execute("DELETE FROM events")


def test_venue_restart_continues_where_it_stopped(tmp_path):
    log = [Event.from_dict({**e, "uid": f"u{i}"}) for i, e in enumerate(noisy_log())]
    whole = Table("T01")
    whole.replay(log)
    path = str(tmp_path / "venue.sqlite")
    with Venue(path) as v:
        for e in log[:300]:
            v.ingest(e)
    with Venue(path) as v:                    # restart: replay, then the rest (with overlap)
        for e in log[250:]:
            v.ingest(e)
        assert v.tables["T01"].snapshot() == whole.snapshot()
        assert v.store.count("T01") == len(log)


def _cli(*args):
    return [sys.executable, "-m", "commands", *args]


def _final_state(stdout: str) -> dict:
    lines = [json.loads(l) for l in stdout.splitlines() if l.strip()]
    (state,) = [l for l in lines if l["type"] == "state"]
    return state


def test_killed_process_restarts_to_the_same_final_state(tmp_path):
    log = noisy_log(seed=11)
    src = tmp_path / "match.jsonl"
    src.write_text("".join(json.dumps(e) + "\n" for e in log))
    whole = subprocess.run(_cli("record", "--db", str(tmp_path / "a.sqlite"), "--source-id", "m",
                                "--state", str(src)), capture_output=True, text=True, check=True)
    expected = _final_state(whole.stdout)

    db = str(tmp_path / "b.sqlite")
    proc = subprocess.Popen(_cli("record", "--db", db, "--source-id", "m", "-"),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    part = len(log) * 2 // 3
    proc.stdin.write("".join(json.dumps(e) + "\n" for e in log[:part]))
    proc.stdin.flush()
    deadline = time.monotonic() + 30
    seen = 0
    while seen < 50 and time.monotonic() < deadline:   # it is busy deciding
        if proc.stdout.readline():
            seen += 1
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL and seen == 50
    with EventStore(db) as store:
        stored = store.count("T01")
    assert 0 < stored <= part < len(log)

    again = subprocess.run(_cli("record", "--db", db, "--source-id", "m", "--state", str(src)),
                           capture_output=True, text=True, check=True)
    assert _final_state(again.stdout) == expected
