import json
import subprocess
import sys

import pytest

from referee import CardError, judge
from referee.judge import ORDER_PROBLEM, WILD_MISPLACED


def test_lead_any_combination():
    j = judge("S3 D4 C5 S6 D7", "2")
    assert (j.legal, j.kind, j.code) == (True, "straight", None)
    assert "领出" in j.reason


@pytest.mark.parametrize("play,prev,reason", [
    ("S5 D5", "S3", "a pair cannot follow a single (对子不能压单张)"),
    ("S3 D3 C3", "S9 D9", "a triple cannot follow a pair (三同张不能压对子)"),
    ("S4 D4", "S5 D5", "a pair of 4s does not beat a pair of 5s (牌点须大于上家)"),
    ("S5 D5", "H5 C5", "a pair of 5s does not beat a pair of 5s (牌点须大于上家)"),
    ("BJ", "S3 D3 C3 H3", "the big joker cannot beat a 4-card bomb of 3s (单张不能压炸弹)"),
])
def test_reasons_name_the_rule(play, prev, reason):
    j = judge(play, "2", previous=prev)
    assert not j.legal and j.code == "does_not_beat"
    assert j.reason == reason


def test_illegal_combination_reason():
    j = judge("S3 D4", "2")
    assert (j.legal, j.kind, j.code, j.reading) == (False, None, "illegal_combination", None)
    assert "S3 D4" in j.reason and "出错牌" in j.reason


def test_previous_as_the_counted_combination():
    prev = judge("H7 H7 S8 D8 C8", "7").reading          # counts as a 5-bomb
    assert not judge("S9 D9 C9 S3 D3", "7", previous=prev).legal
    # laid triple-left, wildcards right: both readings are declared; following
    # a full house the strongest one that beats counts
    both = judge("S8 D8 C8 H7 H7", "7", previous="S4 D4 C4 S3 D3")
    assert both.legal and both.kind == "bomb"
    fh = judge("S8 D8 C8 S7 D7", "7").reading
    assert judge("S9 D9 C9 S3 D3", "7", previous=fh).legal


def test_a_bomb_may_follow_anything_and_counts_as_bomb():
    j = judge("S6 D6 C6 H6", "2", previous="SA DA CA SK DK")
    assert j.legal and j.kind == "bomb"


def test_undeclared_reading_that_beats_is_legal_with_a_warning():
    # laid as 222+AA (both wildcards with the 2s), which does not beat 9s;
    # the AAA+22 reading beats, so the play stands, with an arrangement warning
    j = judge("D2 H5 H5 SA HA", "5", previous="S9 D9 C9 S3 D3")
    assert j.legal and j.reading.describe() == "a full house of As"
    assert j.arrangement == (ORDER_PROBLEM["full_house"],)   # the AAA is not on the left


@pytest.mark.parametrize("play,level,problem", [
    ("S5 S3 S4 S6 S7", "2", ORDER_PROBLEM["run"]),
    ("D7 S6 C5 S4 D3", "2", ORDER_PROBLEM["run"]),
    ("S4 D4 S3 D3 S5 D5", "2", ORDER_PROBLEM["run"]),
    ("S2 D2 S9 C9 D9", "3", ORDER_PROBLEM["full_house"]),
    ("S3 H2 D4 C5 S6", "2", WILD_MISPLACED),       # wildcard standing for 7 laid second
    ("H2 S9 D9", "2", WILD_MISPLACED),             # wildcard left of the equal ranks
    ("S9 H2 D9 C9", "2", WILD_MISPLACED),
])
def test_arrangement_problems(play, level, problem):
    j = judge(play, level)
    assert j.legal
    assert j.arrangement == (problem,)


@pytest.mark.parametrize("play,level", [
    ("S3 D4 C5 S6 D7", "2"), ("SA D2 C3 S4 D5", "9"), ("S9 D9 H2", "2"), ("S9 D9 C9 S2 D2", "3"),
    ("S9 D9 C9 H2 H2", "2"),                  # two level cards as themselves: the pair
    ("H2 S2", "2"), ("S2 H2", "2"),           # a level card as itself may stand anywhere among 2s
    ("S3 D4 C5 S6 H2", "2"), ("LJ BJ LJ BJ", "2"), ("S3", "2"),
])
def test_right_arrangements(play, level):
    assert judge(play, level).arrangement == ()


@pytest.mark.parametrize("play,message", [
    ("S3 X3", "unknown card 'X3'"), ("SA SA SA", "3 copies of SA"), ("", "at least one card"),
])
def test_bad_input_raises_card_error(play, message):
    with pytest.raises(CardError, match=message):
        judge(play, "2")


def test_bad_previous_raises():
    with pytest.raises(CardError, match="not a valid combination"):
        judge("S3", "2", previous="S4 D5")


def test_to_dict_is_json():
    d = judge("S5 D5", "2", previous="S4 D4").to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["reading"]["cards"] == ["S5", "D5"] and d["kind"] == "pair"


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "commands", "judge", *args],
                          capture_output=True, text=True, timeout=60)


def test_cli_legal_exit_0():
    r = _cli("--level", "2", "--play", "S5 D5", "--prev", "S4 D4")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert (out["legal"], out["kind"]) == (True, "pair") and out["reason"]


def test_cli_illegal_exit_1():
    r = _cli("--level", "2", "--play", "H2 S3 D3", "--prev", "S4 D4 C4")
    assert r.returncode == 1
    out = json.loads(r.stdout)
    assert out["legal"] is False and out["kind"] == "triple" and "does not beat" in out["reason"]


@pytest.mark.parametrize("args,msg", [
    (("--level", "2", "--play", "S3 Z3"), "unknown card 'Z3'"),
    (("--level", "1", "--play", "S3"), "unknown level '1'"),
    (("--level", "2", "--play", "S3", "--prev", "S4 D5"), "not a valid combination"),
])
def test_cli_bad_input_exit_2(args, msg):
    r = _cli(*args)
    assert r.returncode == 2 and r.stdout == ""
    assert msg in r.stderr and "Traceback" not in r.stderr
