"""Upgrades, the A rule, 级差分, forfeits, and whole matches by each format."""

import pytest

from referee.events import Event
from referee.match import Match
from referee.scoring import (PAST_A, deal_upgrade, forfeit_levels, level_difference_points,
                             raise_level)
from referee.settings import Settings, SettingsError
from referee.simulation import simulate_match
from referee.table import Table

from .helpers import Script, of_type


@pytest.mark.parametrize("order,expected", [
    (["S", "N", "E", "W"], ("NS", 3)), (["S", "E", "N", "W"], ("NS", 2)),
    (["S", "E", "W", "N"], ("NS", 1)), (["W", "E"], ("EW", 3)),
])
def test_upgrades(order, expected):
    assert deal_upgrade(order) == expected


def test_the_a_rule():
    assert raise_level(12, 3) == 14 and raise_level(13, 1) == 14     # never jump past A
    assert raise_level(14, 1) == 14                                  # partner 下游: A not passed
    assert raise_level(14, 2) == PAST_A and raise_level(14, 3) == PAST_A


def test_level_difference_points_and_forfeit_levels():
    assert level_difference_points(2, 2) == 13
    assert level_difference_points(PAST_A, 2) == 26 and level_difference_points(2, PAST_A) == 0
    assert forfeit_levels(3, 7) == (11, 7)          # offender 7 + 4
    assert forfeit_levels(8, 14) == (15, 11)        # A lowered to J first
    assert forfeit_levels(13, 7) == (13, 7)         # already 6 ahead: table score stands


def test_tie_is_a_draw_or_an_extra_deal():
    m = Match(Settings(match_format="deals", deals=2))
    m.record_deal(1, ["S", "E", "W", "N"], 0, 1)
    m.record_deal(2, ["E", "S", "N", "W"], 1, 2)
    assert m.result.winner is None and m.result.points == {"NS": 1, "EW": 1}
    m = Match(Settings(match_format="deals", deals=2, tie="extra_deal"))
    m.record_deal(1, ["S", "E", "W", "N"], 0, 1)
    m.record_deal(2, ["E", "S", "N", "W"], 1, 2)
    assert m.result is None and m.extra_deal and m.deal_level() == "2"
    m.record_deal(3, ["W"], 2, 3)
    assert (m.result.winner, m.result.reason, m.result.level_points) == ("EW", "extra_deal",
                                                                         {"NS": 13, "EW": 13})


def test_settings_are_checked():
    with pytest.raises(SettingsError, match="deals"):
        Settings(match_format="deals")
    with pytest.raises(SettingsError, match="bad match format"):
        Settings.parse_format("deals:x")
    with pytest.raises(SettingsError, match="camera_penalties must be one of confirm, direct"):
        Settings(camera_penalties="never")
    assert Settings().camera_penalties == "confirm"
    # a log written before the setting existed reads with the default
    old = {k: v for k, v in Settings().to_dict().items() if k != "camera_penalties"}
    assert Settings.from_dict(old).camera_penalties == "confirm"


def run_match(fmt, seed, **kw):
    settings = Settings.parse_format(fmt, **kw)
    table = Table("T01", settings)
    decisions = table.replay(Event.from_dict(e) for e in simulate_match(seed=seed, settings=settings))
    return table, decisions


def test_whole_match_by_game_ends_past_a():
    table, ds = run_match("game", seed=3)
    (end,) = of_type(ds, "match_end")
    res = table.match.result
    assert res.reason == "past_a" and res.levels[res.winner] == PAST_A
    assert not [d for d in ds if d.type == "violation"]
    sheet = table.match.score_sheet()
    assert sheet["rows"][-1]["levels_after"][res.winner] == "A+"
    # each row's level is the level its previous winner reached
    for prev, row in zip(sheet["rows"], sheet["rows"][1:]):
        assert row["level"] == prev["levels_after"][prev["winner"]].replace("A+", "A")
    csv = table.match.score_sheet_csv().splitlines()
    assert csv[0].startswith("deal,level,order") and len(csv) == len(sheet["rows"]) + 2


def test_whole_match_by_deals():
    table, ds = run_match("deals:3", seed=4)
    assert len(table.match.rows) == 3 or table.match.result.reason == "past_a"
    assert table.match.result.reason in ("deals", "past_a")
    assert len(of_type(ds, "match_end")) == 1


@pytest.mark.parametrize("fmt", ["time:40", "time_deals:40,9", "time_deals:600,2"])
def test_whole_match_by_time_and_by_time_and_deals(fmt):
    table, ds = run_match(fmt, seed=5)
    res = table.match.result
    rows = table.match.rows
    if fmt == "time_deals:600,2":
        assert res.reason == "deals" and len(rows) == 2
    else:
        assert res.reason == "time"
        limit = rows[0].t_start + 40 * 60
        assert rows[-1].t_start < limit <= res.t    # no deal starts after the limit
    a, b = res.levels["NS"], res.levels["EW"]
    assert res.winner == (None if a == b else ("NS" if a > b else "EW"))


def test_extra_deal_at_the_table_decides_a_tie():
    s = Script(Settings(match_format="deals", deals=2, tie="extra_deal"))
    s.start(leader="S")
    s.dump_out("S")
    s.dump_out("N")                           # NS 双上: NS 5
    s.start(deal=2, level="5", leader=None)
    s.ev("tribute", seat="E", card="SA")
    s.ev("tribute", seat="W", card="BJ")      # W gives to S and leads
    s.ev("return", seat="S", card="S3")
    s.ev("return", seat="N", card="S4")
    s.dump_out("W")
    ds = s.dump_out("E")                      # EW 双上: EW 5, tie
    assert s.table.match.levels == {"NS": 5, "EW": 5} and not of_type(ds, "match_end")
    ds = s.start(deal=3, level="2", leader="N")
    assert of_type(ds, "deal_start")[0].extra["phase"] == "play"     # first-deal procedure
    ds = s.dump_out("N")                      # 上游 decides at once
    (end,) = of_type(ds, "match_end")
    assert end.extra["winner"] == "NS" and end.extra["reason"] == "extra_deal"
    assert s.table.match.rows[-1].ended_by == "extra"


def test_the_a_rule_at_the_table():
    s = Script()
    # a log starting mid-match: NS at A (the last deal's winners), EW at 9
    s.start(deal=5, level="A", leader="S", levels={"NS": "A", "EW": "9"})
    s.dump_out("S")                                  # S 上游
    s.play("N", "D7")                                # 接风 N leads; W and E then play out
    s.dump_out("W")                                  # W 二游 (H2 is no wildcard at level A)
    ds = s.dump_out("E")                             # 接风: E leads; E 三游, N 下游
    (end,) = of_type(ds, "deal_end")
    assert end.extra["order"] == ["S", "W", "E", "N"] and end.extra["upgrade"] == 1
    assert s.table.match.levels["NS"] == 14 and s.table.match.result is None   # A not passed
    assert [v for v in s.out if v.type == "violation"] == []
    # next deal at A again: NS 双上 passes A and wins the game
    s.start(deal=6, level="A", leader=None)
    # 下游 N gives to 上游 S (the texts say 下游 gives 上游, partners or not)
    s.ev("tribute", seat="N", card="BJ")
    s.ev("return", seat="S", card="S3")
    assert s.table.deal.turn == "N"
    s.dump_out("N")
    s.dump_out("S")                                  # NS 双上 at A: 过A
    (end,) = of_type(s.out, "match_end")
    assert end.extra["reason"] == "past_a" and end.extra["winner"] == "NS"
    assert end.extra["result"]["levels"] == {"NS": "A+", "EW": "9"}
