"""``guandan-ref replay``: decisions as JSON lines, the score sheet last, bad lines named."""

import json

from commands import main
from referee.settings import Settings
from referee.simulation import simulate_match


def test_replay_prints_decisions_then_the_score_sheet(tmp_path, capsys):
    events = simulate_match(seed=2, settings=Settings.parse_format("deals:2"))
    lines = [json.dumps(e) for e in events]
    lines.insert(5, '{"t": 1, "type": "bogus"}')
    lines.insert(9, "not json")
    lines.insert(12, "")
    src = tmp_path / "log.jsonl"
    src.write_text("\n".join(lines) + "\n")
    rc = main(["replay", str(src), "--format", "deals:2", "--csv-dir", str(tmp_path / "csv")])
    out, err = capsys.readouterr()
    assert rc == 2
    assert f"{src}:6: unknown event type 'bogus'" in err
    assert f"{src}:10: not valid JSON" in err
    rows = [json.loads(l) for l in out.splitlines()]
    assert rows[-1]["type"] == "score_sheet" and rows[-1]["table"] == "T01"
    assert rows[-1]["result"]["reason"] in ("deals", "past_a")
    assert sum(r["type"] == "deal_end" for r in rows) == len(rows[-1]["rows"])
    assert [r["n"] for r in rows[:-1]] == list(range(len(rows) - 1))
    csv = (tmp_path / "csv" / "T01.csv").read_text().splitlines()
    assert csv[0].startswith("deal,level,order,winner,upgrade")


def test_replay_clean_log_exits_zero_and_bad_format_is_a_usage_error(tmp_path, capsys):
    src = tmp_path / "log.jsonl"
    src.write_text('{"t": 0, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"}\n')
    assert main(["replay", str(src)]) == 0
    assert main(["replay", str(src), "--format", "weekly"]) == 2
    assert "bad match format 'weekly'" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.jsonl")]) == 2
