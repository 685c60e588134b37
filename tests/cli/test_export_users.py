"""export / import round trips; users list, remove, passwd."""

import json

from referee.settings import Settings
from referee.simulation import simulate_match
from web_dashboard.auth import load_users_file

from tests.cli.helpers import cli


def _decisions(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_export_then_import_gives_the_same_decisions(tmp_path):
    # two tables, and a referee correction whose `ref` must keep pointing at its event
    t1 = simulate_match(seed=11, settings=Settings.parse_format("deals:2"), table="T01")
    t2 = simulate_match(seed=12, settings=Settings.parse_format("deals:1"), table="T02")
    events = t1[:30] + t2 + t1[30:]
    events.insert(40, {"t": t1[35]["t"], "table": "T01", "type": "referee", "action": "void", "ref": 20})
    src = tmp_path / "match.jsonl"
    src.write_text("".join(json.dumps(e) + "\n" for e in events))
    assert cli("record", "--db", tmp_path / "a.sqlite", src).returncode == 0

    first = cli("export", "--db", tmp_path / "a.sqlite")
    assert first.returncode == 0 and "exported" in first.stderr
    (tmp_path / "a.jsonl").write_text(first.stdout)
    r = cli("import", "--db", tmp_path / "b.sqlite", tmp_path / "a.jsonl")
    assert r.returncode == 0 and r.stdout == "" and f"imported {len(events)} events" in r.stderr
    second = cli("export", "--db", tmp_path / "b.sqlite")
    assert second.stdout == first.stdout                    # numbers, uids and refs unchanged

    original = cli("replay", src)
    exported = cli("replay", tmp_path / "a.jsonl")
    assert original.returncode == exported.returncode == 0
    def by_table(stdout):   # tables are independent; export gives them one after the other
        out = {}
        for d in _decisions(stdout):
            out.setdefault(d["table"], []).append({k: v for k, v in d.items() if k != "events"})
        return out
    # the same decisions (the exported events carry their log numbers, the source did not)
    assert by_table(exported.stdout) == by_table(original.stdout)
    assert any(d["type"] == "correction" for d in _decisions(exported.stdout))

    one = cli("export", "--db", tmp_path / "a.sqlite", "--table", "T02")
    assert {json.loads(line)["table"] for line in one.stdout.splitlines()} == {"T02"}
    assert len(one.stdout.splitlines()) == len(t2)


def test_users_list_remove_passwd(tmp_path):
    f = tmp_path / "users.toml"
    assert cli("users", "add", "li", "--file", f, "--tables", "T01,T02", "--password", "secret").returncode == 0
    # a password piped in on stdin, as a script would give it
    assert cli("users", "add", "chief", "--file", f, "--role", "head", input="s3cret\n").returncode == 0
    r = cli("users", "list", "--file", f)
    assert r.returncode == 0 and r.stdout == "li\treferee\tT01,T02\nchief\thead\tall\n"
    assert "scrypt" not in r.stdout and "pbkdf2" not in r.stdout

    before = load_users_file(f)["li"].password_hash
    assert cli("users", "passwd", "li", "--file", f, "--password", "another").returncode == 0
    after = load_users_file(f)["li"]
    assert after.password_hash != before and after.tables == ("T01", "T02")

    r = cli("users", "remove", "li", "--file", f)
    assert r.returncode == 0 and "li removed" in r.stderr
    assert set(load_users_file(f)) == {"chief"}
    r = cli("users", "passwd", "chief", "--file", f, "--password", "abc")
    assert r.returncode == 2 and "at least 4" in r.stderr
