import subprocess
import sys

import pytest

from referee.standings import MatchResult, standings
from web_dashboard.auth import UsersError, load_users_file, parse_users


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "commands", *args], capture_output=True, text=True,
                          timeout=60, cwd=cwd)


def test_users_add_writes_a_file_the_dashboard_loads(tmp_path):
    f = tmp_path / "users.toml"
    assert _cli("users", "add", "li", "--file", str(f), "--tables", "T01,T02", "--password", "secret").returncode == 0
    assert _cli("users", "add", "boss", "--file", str(f), "--role", "head", "--password", "secret2").returncode == 0
    assert _cli("users", "add", "li", "--file", str(f), "--tables", "T03", "--password", "secret").returncode == 0
    users = load_users_file(f)
    assert set(users) == {"li", "boss"}
    assert users["li"].tables == ("T03",) and users["boss"].role == "head"
    assert "scrypt" not in repr(users["li"])   # hashes stay out of logs


@pytest.mark.parametrize("args,msg", [
    (("users", "add", "bad name", "--password", "secret"), "letters, digits"),
    (("users", "add", "li", "--password", "abc"), "at least 4"),
    (("dashboard", "--db", "x.sqlite", "--users", "missing.toml"), "does not exist"),
])
def test_cli_bad_input(tmp_path, args, msg):
    r = _cli(*args, cwd=tmp_path)
    assert r.returncode == 2 and msg in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("entries,msg", [
    ([{"name": "a", "password_hash": "x:y", "role": "king"}], "role must be"),
    ([{"name": "a"}], "password_hash"),
    ([{"password_hash": "x:y"}], "missing 'name'"),
    ([{"name": "a", "password_hash": "x:y"}, {"name": "a", "password_hash": "x:y"}], "twice"),
    ([{"name": "a", "password_hash": "x:y", "tables": "T01"}], "list of table ids"),
])
def test_bad_users(entries, msg):
    with pytest.raises(UsersError, match=msg):
        parse_users(entries)


def R(rnd, a, b, pa, pb, la=13, lb=13, ga=0, gb=0):
    return MatchResult(rnd, a, b, pa, pb, la, lb, ga, gb)


def test_points_then_cumulative_in_swiss():
    # A and B both end on 2 points; A won round 1 (running totals 2, 2 -> 4),
    # B won round 2 (0, 2 -> 2): A ranks higher on cumulative points (累进分).
    results = [R(1, "A", "C", 2, 0), R(1, "B", "D", 0, 2), R(2, "A", "D", 0, 2), R(2, "B", "C", 2, 0)]
    rows = standings(results)
    order = [r.team for r in rows]
    assert order.index("A") < order.index("B")
    a = next(r for r in rows if r.team == "A")
    assert (a.points, a.cumulative) == (2, 4)
    # from round 2 only (去首累进分) both have 2
    rows2 = standings(results, cumulative_from_round=2)
    assert {r.team: r.cumulative for r in rows2}["A"] == 2


def test_head_to_head_in_round_robin():
    # A and B end level on 2 points; A beat B directly, so A ranks above B
    # although B has far more level-difference points (直胜 comes first).
    results = [R(1, "A", "B", 2, 0, 14, 12), R(2, "A", "C", 0, 2), R(3, "A", "D", 0, 2),
               R(1, "C", "D", 1, 1), R(2, "B", "D", 0, 2), R(3, "B", "C", 2, 0, 26, 0)]
    rows = standings(results, system="round_robin")
    by = {r.team: r for r in rows}
    assert by["A"].points == by["B"].points == 2
    assert by["B"].level_points > by["A"].level_points
    assert (by["A"].head_to_head, by["B"].head_to_head) == (2, 0)
    assert by["A"].rank < by["B"].rank and by["B"].decided_by == "head_to_head"
    # the same results ranked as Swiss ignore head to head
    assert {r.team: r.head_to_head for r in standings(results)}["A"] == 0


def test_level_points_then_levels_gained_then_lots():
    rows = standings([R(1, "A", "B", 1, 1, 14, 12, 3, 3), R(1, "C", "D", 1, 1, 13, 13, 5, 2)])
    assert [r.team for r in rows[:1]] == ["A"]
    by = {r.team: r for r in rows}
    assert by["C"].rank < by["D"].rank and by["D"].decided_by == "levels_gained"
    tied = standings([R(1, "X", "Y", 1, 1)], lots_seed="event-1")
    assert tied[1].decided_by == "lots"
    assert [r.team for r in tied] == [r.team for r in standings([R(1, "X", "Y", 1, 1)], lots_seed="event-1")]
