"""The log carries its match's settings (a ``settings`` event), so every
reader judges it alike; events without a uid get one unique across runs
and a skipped duplicate is said (issue: rules fidelity, points 4 and 5)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from referee.events import Event, EventError
from referee.settings import Settings
from referee.simulation import simulate_match
from referee.table import Table
from storage.sqlite_log import EventStore

ONE_DEAL = Settings.parse_format("deals:1", countdown=5)


def _match_log() -> list[dict]:
    """Two deals of play (a 'game' match would go on), headed by a deals:1 settings event."""
    events = simulate_match(seed=4, settings=Settings.parse_format("deals:2"))
    head = {"t": 0.0, "type": "settings", "settings": ONE_DEAL.to_dict(),
            "teams": {"NS": "Nanjing", "EW": "Suzhou"}}
    return [head, *events]


def _fold(events, **kw) -> Table:
    table = Table("T01", **kw)
    for i, d in enumerate(events, 1):
        table.feed(Event.from_dict(d).with_id(i))
    return table


def test_the_logs_settings_judge_it_whatever_the_reader_was_given():
    log = _match_log()
    by_log = _fold(log)                                   # a reader with default settings
    assert by_log.match.result is not None and by_log.match.result.reason == "deals"
    assert len(by_log.match.rows) == 1
    assert by_log.snapshot()["teams"] == {"NS": "Nanjing", "EW": "Suzhou"}
    assert by_log.snapshot()["settings"]["countdown"] == 5
    (note,) = [d for d in by_log.decisions if d.code == "settings"]
    assert "1 deal" in note.message and "Nanjing" in note.message
    without = _fold(log[1:])                              # the same play, no settings event
    assert without.match.result is None or len(without.match.rows) == 2


def test_a_correction_rebuilds_with_the_logs_settings():
    log = _match_log()
    table = _fold(log)
    before = table.match.result.to_dict()
    table.feed(Event.from_dict({"t": 99999.0, "type": "referee", "action": "void",
                                "ref": 3}).with_id(len(log) + 1))
    assert table.settings == ONE_DEAL and table.match.result is not None
    assert table.match.result.reason == before["reason"]


def test_override_ignores_the_logs_settings():
    table = _fold(_match_log(), settings=Settings.parse_format("deals:2"), log_settings=False)
    assert len(table.match.rows) == 2
    assert any(d.extra.get("ignored") for d in table.decisions if d.code == "settings")


@pytest.mark.parametrize("bad", [
    {"settings": {"match_format": "forever"}},
    {"settings": {"countdown": -1}},
    {"settings": {"tie": "draw", "colour": "red"}},
    {"settings": "deals:9"},
    {"settings": {}, "teams": {"XY": "A"}},
    {"settings": {}, "teams": {"NS": ""}},
])
def test_bad_settings_events_are_refused_where_they_enter(bad):
    with pytest.raises(EventError, match="settings"):
        Event.from_dict({"t": 0, "type": "settings", **bad})


def _cli(*args, **kw):
    return subprocess.run([sys.executable, "-m", "commands", *args], capture_output=True, text=True, **kw)


def test_replay_gives_the_same_decisions_with_and_without_matching_flags(tmp_path):
    src = tmp_path / "match.jsonl"
    src.write_text("".join(json.dumps(e) + "\n" for e in _match_log()), encoding="utf-8")
    plain = _cli("replay", str(src))
    same = _cli("replay", str(src), "--format", "deals:1", "--countdown", "5")
    assert plain.returncode == same.returncode == 0
    assert plain.stdout == same.stdout and '"reason":"deals"' in plain.stdout
    clash = _cli("replay", str(src), "--format", "deals:3")
    assert clash.returncode == 2 and clash.stdout == ""
    assert "deals: 3 != 1 in the log" in clash.stderr and "--override-settings" in clash.stderr
    forced = _cli("replay", str(src), "--format", "deals:2", "--override-settings")
    assert forced.returncode == 0 and forced.stdout != plain.stdout


def test_record_writes_the_settings_first_and_refuses_other_flags_later(tmp_path):
    db = str(tmp_path / "v.sqlite")
    events = simulate_match(seed=4, settings=Settings.parse_format("deals:1"))[:40]
    src = tmp_path / "a.jsonl"
    src.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    first = _cli("record", "--db", db, "--format", "deals:1", str(src))
    assert first.returncode == 0, first.stderr
    with EventStore(db) as store:
        head = next(store.stream("T01"))
    assert head.type == "settings" and head.get("settings")["deals"] == 1
    clash = _cli("record", "--db", db, "--format", "deals:5", str(src))
    assert clash.returncode == 2 and "deals: 5 != 1 in the log" in clash.stderr


def test_record_from_stdin_twice_keeps_both_runs_and_a_file_twice_skips_and_says_so(tmp_path):
    db = str(tmp_path / "v.sqlite")
    line = json.dumps({"t": 1.0, "table": "T01", "type": "tick"}) + "\n"
    for _ in range(2):                 # the same first line, two separate runs
        r = _cli("record", "--db", db, "-", input=line)
        assert r.returncode == 0 and "skipped" not in r.stderr
    with EventStore(db) as store:
        assert store.count("T01") == 2
    src = tmp_path / "b.jsonl"
    src.write_text(line + json.dumps({"t": 2.0, "table": "T01", "type": "tick"}) + "\n", encoding="utf-8")
    assert _cli("record", "--db", db, str(src)).returncode == 0
    again = _cli("record", "--db", db, str(src))
    assert again.returncode == 0
    skipped = [l for l in again.stderr.splitlines() if "skipped, already recorded" in l]
    assert len(skipped) == 2 and all("uid b.jsonl:" in l for l in skipped)
    assert "2 event(s) skipped" in again.stderr
    with EventStore(db) as store:
        assert store.count("T01") == 4
