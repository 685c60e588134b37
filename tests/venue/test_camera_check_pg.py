"""guandan-ref camera-check on the venue's central record (PostgreSQL): every
table's camera reads, and a curve fitted across them, never a password in the file."""

import json

from referee.events import Event
from storage.postgres_log import PostgresEventStore

from tests.cli.helpers import cli


def test_camera_check_reads_every_table_of_the_venues_record(fresh, tmp_path):
    _, pg = fresh
    wrong = 0
    with PostgresEventStore(pg.dsn) as log:
        def add(d):
            e = log.append(Event.from_dict(d))
            log.record_decisions(e, [])      # (the central records each event's decisions; none needed here)
            return e

        for table in ("T01", "T02", "T03"):
            add({"t": 0.0, "table": table, "uid": f"{table}-0", "type": "settings",
                 "settings": {"min_confidence": 1.0}})
            for k in range(40):
                raw = 0.3 + k / 60
                e = add({"t": 1.0 + k, "table": table, "uid": f"{table}-p{k}", "type": "play", "seat": "S",
                         "cards": ["H8"], "source": "vision", "confidence": raw, "raw_confidence": raw})
                right = k % 4 != 0 or raw > 0.9
                wrong += not right
                answer = {"action": "confirm"} if right else {"action": "correct", "event": {"cards": ["H9"]}}
                add({"t": 1.5 + k, "table": table, "uid": f"{table}-r{k}", "type": "referee", "ref": e.id,
                     **answer})
    out = tmp_path / "venue-curve.json"
    r = cli("camera-check", "--pg", pg.dsn, "--json", "--fit", out)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["tables"] == ["T01", "T02", "T03"] and rep["reads"] == 120 == rep["fit_reads"]
    assert rep["asked"]["wrong"] == wrong and rep["missed_cards"] == [["H9", wrong]]
    doc = json.loads(out.read_text())
    assert doc["check"]["reads"] == 120 and doc["check"]["wrong"] == wrong
    assert "--pg DSN" in doc["made_by"] and pg.dsn not in out.read_text()
    r = cli("camera-check", "--pg", pg.dsn, "--table", "T09")
    assert r.returncode == 2 and "no table 'T09' in the venue's record" in r.stderr
