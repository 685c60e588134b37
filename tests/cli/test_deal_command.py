"""guandan-ref deal (a deal trick by trick) and deal-record export / import:
the terminal output on the demo's scripted match, the record's schema, the
round trip and the files refused."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from referee.events import Event
from referee.table import Table
from services import deal_files
from storage.sqlite_log import EventStore
from table_node.demo import make_script

from tests.cli.helpers import cli

DOCS = Path(__file__).resolve().parents[2] / "docs"
RECORD_SCHEMA = json.loads((DOCS / "deal-record.schema.json").read_text(encoding="utf-8"))
EVENTS_SCHEMA = json.loads((DOCS / "events.schema.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory):
    """The demo's scripted match (two deals, its four faults) in a SQLite log,
    after a settings event as a table node writes one."""
    script = make_script(seed=3)
    path = tmp_path_factory.mktemp("deal") / "demo.sqlite"
    with EventStore(path) as store:
        # the script's cards taken as laid: its penalties given at once (setting camera_penalties)
        store.append(Event.from_dict({"t": 0, "table": "T01", "type": "settings",
                                      "settings": replace(script.settings, camera_penalties="direct").to_dict(),
                                      "teams": {"NS": "Nanjing", "EW": "Suzhou"}}))
        for e in script.events:
            store.append(Event.from_dict(e))
    return path


def _decisions(db: Path, table: str = "T01") -> list[dict]:
    with EventStore(db) as store:
        t = Table(table)
        return [d.to_dict() for d in t.replay(list(store.stream(table)))]


def test_deal_prints_tricks_with_the_rulings_in_place(demo_db):
    r = cli("deal", "--db", demo_db, "--deal", "1")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("T01 deal 1 · level 2 · NS (Nanjing) 2, EW (Suzhou) 2")
    # the illegal play: W's single shown as not counted, the ruling right below it
    i = next(k for k, line in enumerate(lines) if "violation W illegal_play infraction" in line)
    assert " W  C5 " in lines[i - 1] and "[" in lines[i - 1] and "not counted" in lines[i - 1]
    trick = max(k for k in range(i) if lines[k].startswith("Trick "))
    assert lines[trick].startswith("Trick 3,")
    # the overtime stands before the late pass, which shows the time it took
    j = next(k for k, line in enumerate(lines) if "violation S overtime warning" in line)
    assert "countdown S" in lines[j - 1] and " S  pass " in lines[j + 1] and "/20 s" in lines[j + 1]
    assert any(line.startswith("Result: E S N W · EW up 1") for line in lines)
    hands = lines[lines.index("Hands (the dealt cards the play shows):") + 1:]
    assert [h.split()[0] for h in hands] == ["S", "E", "N", "W"]
    assert "unseen" not in hands[0] and hands[3].endswith("+ 1 unseen")


def test_deal_two_shows_the_tribute_and_its_ruling(demo_db):
    r = cli("deal", "--db", demo_db, "--deal", "2", "--table", "T01")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    tribute = out[out.index("Tribute (贡牌/还牌): W -> E"):out.index("Trick 1")]
    assert tribute.index("tribute H3") < tribute.index("wrong_tribute") < tribute.index("tribute BJ -> E") \
        < tribute.index("return H5 -> W")


def test_deal_errors_are_one_line_exit_2(demo_db, tmp_path):
    r = cli("deal", "--db", demo_db, "--deal", "9")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == f"guandan-ref deal: no deal 9 in {demo_db} table T01 (deals: 1, 2)\n"
    r = cli("deal", "--db", demo_db, "--deal", "0")
    assert r.returncode == 2 and "0 is not a deal number from 1 to 1000" in r.stderr
    r = cli("deal", "--db", demo_db, "--deal", "1", "--table", "T09")
    assert r.returncode == 2 and "no table 'T09'" in r.stderr and "T01" in r.stderr
    r = cli("deal", "--db", tmp_path / "missing.sqlite", "--deal", "1")
    assert r.returncode == 2 and "does not exist" in r.stderr
    two = tmp_path / "two.sqlite"
    with EventStore(two) as store:
        for table in ("T01", "T02"):
            store.append(Event.from_dict({"t": 0, "table": table, "type": "tick"}))
    r = cli("deal", "--db", two, "--deal", "1")
    assert r.returncode == 2 and "tables T01, T02: name one with --table" in r.stderr
    for r in (cli("deal", "--db", demo_db, "--deal", "1"), cli("deal", "--db", two, "--deal", "1")):
        assert "Traceback" not in r.stderr and len(r.stderr.splitlines()) <= 1


def test_export_is_valid_and_import_replays_to_the_same_decisions(demo_db, tmp_path):
    out = tmp_path / "match.json"
    r = cli("deal-record", "export", "--db", demo_db, "--out", out)
    assert r.returncode == 0, r.stderr
    assert "2 deals" in r.stderr
    record = json.loads(out.read_text(encoding="utf-8"))
    Draft202012Validator(RECORD_SCHEMA).validate(record)
    event = Draft202012Validator({"$ref": "#/$defs/event", "$defs": EVENTS_SCHEMA["$defs"]})
    for e in record["events"]:
        event.validate(e)
    assert record["match"]["teams"] == {"NS": "Nanjing", "EW": "Suzhou"}
    assert record["match"]["result"]["winner"] == "EW"

    db = tmp_path / "archive.sqlite"
    r = cli("deal-record", "import", "--db", db, out)
    assert r.returncode == 0, r.stderr
    assert f"imported {len(record['events'])} events of table T01 (2 deals)" in r.stderr
    assert _decisions(db) == _decisions(demo_db)
    again = tmp_path / "again.json"
    assert cli("deal-record", "export", "--db", db, "--out", again).returncode == 0
    assert again.read_bytes() == out.read_bytes()
    # and the terminal view reads the file as it reads the log
    assert cli("deal", "--record", out, "--deal", "2").stdout == \
        cli("deal", "--db", demo_db, "--deal", "2").stdout
    # a log holding the table already is refused: numbers would shift
    r = cli("deal-record", "import", "--db", db, out)
    assert r.returncode == 2 and "already holds events of table T01" in r.stderr


def _bad(record: dict, path: Path, change) -> Path:
    data = json.loads(json.dumps(record))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("change, message", [
    (lambda d: d["deals"][1]["tribute"]["steps"][2].update(card="SA"), "deals[1] (deal 2) is not what its events give"),
    (lambda d: d["deals"][0]["hands"]["W"]["dealt"].append("XX"), "at deals[0].hands.W.dealt"),
    (lambda d: d["events"][5].update(seat="X"), "events[5]: play: bad seat 'X'"),
    (lambda d: d["events"].pop(3), "events[3] is numbered 5, expected 4"),
    (lambda d: d["events"][2].update(table="T02"), "events[2] is of table 'T02'"),
    (lambda d: d.update(version=7), "deal record version 7 is not one this reader knows"),
    (lambda d: d.pop("format"), "not a deal record (no \"format\""),
    (lambda d: d["match"].update(settings={"match_format": "bogus"}), "match.settings"),
])
def test_import_refuses_bad_files_and_stores_nothing(demo_db, tmp_path, change, message):
    out = tmp_path / "match.json"
    assert cli("deal-record", "export", "--db", demo_db, "--out", out).returncode == 0
    record = json.loads(out.read_text(encoding="utf-8"))
    bad = _bad(record, tmp_path / "bad.json", change)
    db = tmp_path / "new.sqlite"
    r = cli("deal-record", "import", "--db", db, bad)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr
    assert not db.exists() or EventStore(db).count() == 0


def test_not_json_and_too_large_are_refused(tmp_path, monkeypatch):
    f = tmp_path / "x.json"
    f.write_text("{not json", encoding="utf-8")
    with pytest.raises(deal_files.RecordError, match="not JSON"):
        deal_files.read_record(f)
    f.write_text(json.dumps({"format": "guandan-deal-record", "version": 1, "pad": "x" * 200}))
    monkeypatch.setattr(deal_files, "MAX_RECORD_BYTES", 100)
    with pytest.raises(deal_files.RecordError, match="larger than"):
        deal_files.read_record(f)
    f.write_text('{"format": "guandan-deal-record", "version": 1, "t": NaN}')
    monkeypatch.setattr(deal_files, "MAX_RECORD_BYTES", 1000)
    with pytest.raises(deal_files.RecordError, match="NaN is not a number"):
        deal_files.read_record(f)


def test_the_documented_example_is_a_valid_record():
    import re
    text = (DOCS / "deal-record.md").read_text(encoding="utf-8")
    (example,) = [b for b in re.findall(r"```json\n(.*?)```", text, flags=re.S)]
    record = deal_files.parse_record(example, "docs/deal-record.md")   # schema, events and deals
    deal = record.data["deals"][0]
    assert [s["code"] for s in deal["tricks"][0]["steps"] if s["kind"] == "ruling"] == \
        ["out_of_turn_play", "stop_choice"]
    assert deal["hands"]["N"]["left"] == ["S8", "H8"]
