"""Rule fidelity: whole-deal scenarios held against the rule texts.

The texts decide (docs/rules.md names them; 《江苏省掼蛋竞赛规则（2023）》 wins over
the 2022 trial rules where they differ). Section numbers are those of the 2023
text's 第三章 unless "2022" is named. RULE_COVERAGE.md next to this file lists
every clause of 五(四)-(九) and 七 with the test that covers it.

These tests drive the table through its public event API only: ``Table``,
``feed_dict``, ``snapshot()`` and the decisions' fields, so they survive a
rewrite of the engine's internals. The turn is followed from the ``turn``
decisions, hand counts from ``snapshot()``.
"""

from __future__ import annotations

import pytest

from referee.settings import Settings

from .helpers import DUMPS, Script, of_type, violations


class Driver(Script):
    """The scenario driver of helpers.Script, reading the turn from the ``turn``
    decisions and counts from ``snapshot()`` instead of the deal's attributes."""

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(settings)
        self.turn: str | None = None

    # -- events
    def ev(self, type_: str, dt: float = 1.0, **fields) -> list:
        ds = super().ev(type_, dt, **fields)
        for d in ds:
            if d.type == "turn":
                self.turn = d.seat
            elif d.type in ("deal_end", "match_end"):
                self.turn = None
        return ds

    def tribute(self, seat: str, card: str) -> list:
        return self.ev("tribute", seat=seat, card=card)

    def return_(self, seat: str, card: str) -> list:
        return self.ev("return", seat=seat, card=card)

    # -- composite steps
    def lay(self, seat: str, cards: str) -> list:
        """``seat`` plays ``cards`` and reports its count at once when one is due."""
        ds = self.play(seat, cards)
        deal = self.table.snapshot()["deal"]
        left = deal["counts"][seat] if deal else 0
        if deal and deal["phase"] != "finished" and 0 < left <= 10:
            ds += self.report(seat, left)
        return ds

    def pass_round(self) -> list:
        """Whoever is to act passes until the trick (or the deal) ends."""
        out: list = []
        for _ in range(4):
            if self.turn is None:
                break
            ds = self.pass_(self.turn)
            out += ds
            if any(d.type in ("trick_end", "deal_end") for d in ds):
                break
        return out

    def dump_out(self, seat: str, plays: list[str] | None = None) -> list:
        """``seat`` leads each of its plays, reporting, the others passing after each."""
        out: list = []
        for cards in plays or DUMPS[seat]:
            out += self.lay(seat, cards)
            out += self.pass_round()
        return out

    # -- views
    def levels(self) -> dict:
        return self.table.snapshot()["levels"]

    def ladder(self, side: str) -> dict:
        return self.table.snapshot()["ladder"][side]

    def counts(self) -> dict:
        return self.table.snapshot()["deal"]["counts"]


def codes(ds, t: str = "confirm_request") -> list:
    return [d.code for d in ds if d.type == t]


def after(previous_order, level="5", levels=None, settings=None):
    """A table whose log starts at deal 2, after a deal that finished in ``previous_order``."""
    s = Driver(settings)
    ds = s.start(deal=2, level=level, leader=None, previous_order=previous_order,
                 levels=levels or {"NS": level, "EW": "2"})
    return s, ds


# =====================================================================
# 1. 过A: only at one's own A (五(七); 四(六)1; 2022 第二条13)
# =====================================================================

def _ns_at_a_wins_at_ew_level_five(partner_place: str) -> Driver:
    """NS stand at A, EW at 5 and EW won the last deal: this deal is played at 5.
    S goes out first; N is 二游 (双上) or 三游."""
    s = Driver()
    ds = s.start(deal=5, level="5", leader="S", levels={"NS": "A", "EW": "5"})
    assert of_type(ds, "deal_start")[0].extra["level"] == "5"
    assert codes(ds) == []                       # the level is EW's 5: no mismatch
    s.dump_out("S")                              # S 上游; N leads (接风)
    if partner_place == "二游":
        s.dump_out("N")                          # NS 双上
    else:
        _east_second_north_third(s)
    return s


def _east_second_north_third(s: Driver) -> None:
    """After S went out and N leads: E goes out 二游, N 三游, W 下游."""
    s.lay("N", "S7")
    s.pass_("W")                                 # play order S E N W: after N comes W, then E
    s.lay("E", "ST ST HT HT DT DT CT CT")        # a bomb over N's single
    s.pass_round()                               # N, W pass: E leads
    s.dump_out("E", DUMPS["E"][1:])              # E 二游; 接风: W leads
    s.lay("W", "H2")
    s.lay("N", "S8 S8 H8 H8 D8 D8 C8 C8")
    s.pass_round()
    s.dump_out("N", ["S9 S9 H9 H9 D9 D9 C9 C9", "S7 H7 H7 D7 D7 C7 C7", "S6 C6 C6"])


@pytest.mark.parametrize("partner_place", ["二游", "三游"])
def test_a_side_at_a_winning_at_the_opponents_level_stays_at_a(partner_place):
    """五(七) "A 级必打，获得上游，且对家获得二游或三游，才能打过 A 级"; 2022 第二条13
    "过A是指打A级的一方一家为上游": only a deal played at one's own A can pass A.
    A win at the opponents' 5 leaves NS at A; the match goes on at NS's A."""
    s = _ns_at_a_wins_at_ew_level_five(partner_place)
    assert violations(s.out) == []
    (end,) = of_type(s.out, "deal_end")
    assert end.extra["winner"] == "NS"
    assert end.extra["levels"] == {"NS": "A", "EW": "5"}          # not "A+"
    assert of_type(s.out, "match_end") == []                       # no past_a
    assert s.levels() == {"NS": "A", "EW": "5"}
    ds = s.start(deal=6, level="A", leader=None)                    # NS's A is played next
    assert of_type(ds, "deal_start")[0].extra["level"] == "A"
    assert codes(ds) == [] and codes(ds, "violation") == []


def test_a_side_at_a_winning_at_the_opponents_level_with_partner_last_stays_at_a():
    """The same with the partner 下游 (+1): A is never jumped past (today's ruling too)."""
    s = Driver()
    s.start(deal=5, level="5", leader="S", levels={"NS": "A", "EW": "5"})
    s.dump_out("S")
    s.lay("N", "S7")
    s.dump_out("W")                               # W's first bomb follows N's single; W 二游
    s.dump_out("E")                               # 接风 E; E 三游, N 下游
    assert violations(s.out) == []
    (end,) = of_type(s.out, "deal_end")
    assert end.extra["order"] == ["S", "W", "E", "N"] and end.extra["winner"] == "NS"
    assert s.levels() == {"NS": "A", "EW": "5"} and of_type(s.out, "match_end") == []


@pytest.mark.parametrize("partner_place", ["二游", "三游"])
def test_at_its_own_a_shangyou_with_partner_second_or_third_passes_a_and_ends_the_match(partner_place):
    """五(七): at its own A, 上游 and the partner 二游 or 三游 pass A; 五(九)1 the game is won."""
    s = Driver()
    ds = s.start(deal=5, level="A", leader="S", levels={"NS": "A", "EW": "9"})
    assert codes(ds) == []
    s.dump_out("S")
    if partner_place == "二游":
        s.dump_out("N")
    else:
        _east_second_north_third(s)
    assert violations(s.out) == []
    (end,) = of_type(s.out, "deal_end")
    assert end.extra["upgrade"] == (3 if partner_place == "二游" else 2)
    (m,) = of_type(s.out, "match_end")
    assert (m.extra["winner"], m.extra["reason"]) == ("NS", "past_a")
    assert m.extra["result"]["levels"] == {"NS": "A+", "EW": "9"}
    assert m.extra["result"]["points"] == {"NS": 2, "EW": 0}


def test_at_its_own_a_with_partner_last_the_side_stays_at_a_and_plays_a_again():
    """五(七): partner 下游 at A does not pass A. The texts have no clause for failing
    A (no 打A失败 / "three failures back to 2" in 2022, 2023, the open-event
    regulations or the 2017 rules): the side simply stays at A and, having won
    the deal, plays its A again; a second failure changes nothing either."""
    s = Driver()
    s.start(deal=5, level="A", leader="S", levels={"NS": "A", "EW": "9"})
    s.dump_out("S")                                # S 上游
    s.lay("N", "D7")                               # 接风 N
    s.dump_out("W")                                # W 二游
    s.dump_out("E")                                # 接风 E: E 三游, N 下游
    (end,) = of_type(s.out, "deal_end")
    assert end.extra["order"] == ["S", "W", "E", "N"] and end.extra["upgrade"] == 1
    assert s.levels() == {"NS": "A", "EW": "9"} and of_type(s.out, "match_end") == []
    ds = s.start(deal=6, level="A", leader=None)
    assert of_type(ds, "deal_start")[0].extra["level"] == "A" and codes(ds) == []
    s.tribute("N", "BJ")                           # 下游 N gives to 上游 S (README "Rule decisions")
    s.return_("S", "S3")
    assert s.turn == "N"
    s.lay("N", "S7")
    s.pass_("W")
    s.lay("S", DUMPS["S"][0])
    s.pass_round()
    s.dump_out("S", DUMPS["S"][1:])                # S 上游 again
    s.lay("N", "D7")
    s.dump_out("W")
    s.dump_out("E")                                # N 下游 again: a second failure at A
    end = of_type(s.out, "deal_end")[-1]
    assert end.extra["order"] == ["S", "W", "E", "N"]
    assert s.levels() == {"NS": "A", "EW": "9"} and of_type(s.out, "match_end") == []
    assert violations(s.out) == []
    ds = s.start(deal=7, level="A", leader=None)   # still A, not back to 2
    assert of_type(ds, "deal_start")[0].extra["level"] == "A" and codes(ds) == []


# =====================================================================
# 2. Missing or wrong count report: warning until some player acts a second
#    time (七(一)9, 七(二)4; 2022 第十一条)
# =====================================================================

def _south_at_six_unreported(fault: str) -> Driver:
    """S leads two 8-card bombs (11 left, nothing due), then a 5-card bomb: 6
    left and a report due, which S leaves out (or gets wrong)."""
    s = Driver()
    s.start(leader="S")
    s.dump_out("S", ["S3 S3 H3 H3 D3 D3 C3 C3", "S4 S4 H4 H4 D4 D4 C4 C4"])
    assert s.counts()["S"] == 11 and violations(s.out) == []
    s.play("S", "S5 S5 H5 H5 D5")
    if fault == "wrong_report":
        assert violations(s.report("S", 7)) == [("S", "wrong_report", "warning")]
    return s


@pytest.mark.parametrize("fault", ["missing_report", "wrong_report"])
def test_report_fault_is_a_warning_until_a_player_acts_a_second_time(fault):
    """七(一)9 "未报牌、报错牌，各家出牌（或放弃出牌）不超过一手牌 … 给予警告";
    七(二)4 "一家出牌（或放弃出牌）超过一手牌，记违例". The count is per player:
    E, N and W acting once each leave it a warning; the 违例 comes when a
    player (here E, leading the next trick) acts a second time."""
    s = _south_at_six_unreported(fault)
    ds = s.lay("E", "ST ST HT HT DT DT")          # E: a 6-card bomb over S's 5-card bomb (act 1)
    if fault == "missing_report":
        assert violations(ds) == [("S", "missing_report", "warning")]
    ds = s.pass_("N") + s.pass_("W")              # N, W: act 1 each
    # every player has acted at most once since the report was due: no 违例 yet
    assert violations(ds) == []
    assert s.ladder("NS")["infraction"] == 0
    ds = s.pass_("S")                              # S passes (its first act since)
    ds += s.lay("E", "S8")                         # E leads the next trick: E's second act
    assert violations(ds) == [("S", fault, "infraction")]
    (choice,) = [d for d in ds if d.code == "stop_choice"]
    assert choice.seat == "E" and choice.extra["offender"] == "S"
    assert s.ladder("NS") == {"warning": 1, "infraction": 1, "foul": 0}


@pytest.mark.parametrize("fault", ["missing_report", "wrong_report"])
def test_report_fault_put_right_before_anyone_acts_twice_stays_a_warning(fault):
    """七(一)9: put right while no player has acted more than once: a warning only."""
    s = _south_at_six_unreported(fault)
    s.lay("E", "ST ST HT HT DT DT")
    s.pass_("N")
    s.pass_("W")
    ds = s.report("S", 6)
    assert codes(ds, "note") == ["report_corrected"]
    ds = s.pass_("S") + s.lay("E", "S8") + s.pass_round()
    assert violations(ds) == []
    assert s.ladder("NS") == {"warning": 1, "infraction": 0, "foul": 0}


def test_missing_report_within_one_play_corrected_at_once():
    """七(一)9: caught at the first following action and put right: one warning."""
    s = _south_at_six_unreported("missing_report")
    assert violations(s.pass_("E")) == [("S", "missing_report", "warning")]
    assert codes(s.report("S", 6), "note") == ["report_corrected"]
    assert violations(s.pass_round()) == []


def test_a_report_is_due_at_exactly_ten_cards():
    """五(六) "手中剩余牌张为 10 张（含）以内": 10 left is due (11 is not: test_violations)."""
    s = Driver()
    s.start(leader="S")
    s.dump_out("S", ["S3 S3 H3 H3 D3 D3 C3 C3", "S4 S4 H4 H4 D4 D4 C4 C4"])
    s.play("S", "S6")                                  # 10 left, not reported
    assert violations(s.pass_("E")) == [("S", "missing_report", "warning")]


def test_missing_report_then_out_as_shangyou_is_a_foul():
    """七(三)4 "未报牌、报错牌，一家在违规后出完牌且获得上游，判犯规" (the missing-report
    form; the wrong-report form is in test_violations)."""
    s = Driver()
    s.start(leader="S")
    s.dump_out("S", ["S3 S3 H3 H3 D3 D3 C3 C3", "S4 S4 H4 H4 D4 D4 C4 C4"])
    s.play("S", "S5 S5 H5 H5 D5 D5 C5 C5")            # 3 left, no report
    assert violations(s.pass_("E")) == [("S", "missing_report", "warning")]
    s.pass_("N")
    s.pass_("W")
    ds = s.play("S", "S6 H6 D6")                       # out first, the fault never put right
    assert ("S", "missing_report", "foul") in violations(ds)
    (end,) = of_type(ds, "deal_end")
    assert end.extra["ended_by"] == "foul" and end.extra["winner"] == "EW"
    assert s.levels() == {"NS": "2", "EW": "5"}


# =====================================================================
# 3. Cards seen are proof, even when taken back (五(四)1; 七(三)3; 七(一)4)
#    Mirrors of test_tribute.py's test_a_higher_card_played_later_proves_a_wrong_tribute_foul
#    and test_a_low_card_played_later_proves_a_wrong_return_foul.
# =====================================================================

def _w_gave_sk_to_s():
    """Level 5, W (下游) gave SK to S (上游), S returned S3; W has led S3 and H5
    (the card handed back and a heart level card prove nothing)."""
    s, _ = after(["S", "E", "N", "W"])
    s.tribute("W", "SK")
    s.return_("S", "S3")
    assert violations(s.play("W", "S3")) == []
    s.pass_round()
    assert violations(s.play("W", "H5")) == []
    assert s.turn == "S"
    return s


def _wrong_tribute_foul(s: Driver, ds) -> None:
    assert ("W", "wrong_tribute", "foul") in violations(ds)
    (end,) = of_type(ds, "deal_end")
    assert end.extra["ended_by"] == "foul" and end.extra["winner"] == "NS"
    assert s.levels()["NS"] == "8"


def test_an_out_of_turn_play_proves_a_wrong_tribute_foul():
    """W lays SA out of turn: taken back (七(二)2 违例), but SA was seen: W held a
    card above its tribute SK, and play has begun: 贡错牌 已经出牌 → 犯规 (七(三)3)."""
    s = _w_gave_sk_to_s()
    ds = s.play("W", "SA")                        # S is to play
    assert ("W", "out_of_turn_play", "infraction") in violations(ds)
    _wrong_tribute_foul(s, ds)


def test_an_illegal_play_proves_a_wrong_tribute_foul():
    """W leads SA D4 (no combination): taken back (七(二)3 违例), but SA was seen."""
    s = _w_gave_sk_to_s()
    s.pass_round()                                 # W won the trick with H5 and leads
    assert s.turn == "W"
    ds = s.play("W", "SA D4")
    assert ("W", "illegal_play", "infraction") in violations(ds)
    _wrong_tribute_foul(s, ds)


def test_a_losing_play_proves_a_wrong_tribute_foul():
    """An illegal play of the other kind (does not beat): W answers S's bomb with
    a lone SA, taken back, but seen."""
    s = _w_gave_sk_to_s()
    s.pass_round()
    s.play("W", "D4")
    s.play("S", "S9 S9 H9 H9")
    s.pass_("E")
    s.pass_("N")
    ds = s.play("W", "SA")
    (v,) = [d for d in ds if d.code == "illegal_play"]
    assert v.penalty == "infraction" and v.extra["judged"] == "does_not_beat"
    _wrong_tribute_foul(s, ds)


def test_an_out_of_turn_play_of_the_returned_card_proves_nothing():
    """The card handed back (S3) may be shown freely: only the out-of-turn 违例."""
    s, _ = after(["S", "E", "N", "W"])
    s.tribute("W", "SK")
    s.return_("S", "S3")
    s.play("W", "D4")
    ds = s.play("W", "S3")                         # S is to play
    assert violations(ds) == [("W", "out_of_turn_play", "infraction")]
    assert of_type(ds, "deal_end") == []


def _s_returned_sj():
    """Level 5: W gave BJ to S, S returned SJ (above 10: right only if S held
    nothing lower). W leads D3, S plays the BJ it was given (proves nothing)."""
    s, _ = after(["S", "E", "N", "W"])
    s.tribute("W", "BJ")
    s.return_("S", "SJ")
    s.play("W", "D3")
    assert violations(s.play("S", "BJ")) == []
    return s


def _wrong_return_foul(s: Driver, ds) -> None:
    assert ("S", "wrong_return", "foul") in violations(ds)
    (end,) = of_type(ds, "deal_end")
    assert end.extra["ended_by"] == "foul" and end.extra["winner"] == "EW"
    assert s.levels() == {"NS": "5", "EW": "5"}


def test_an_out_of_turn_play_proves_a_wrong_return_foul():
    s = _s_returned_sj()
    s.pass_("E")
    assert s.turn == "N"
    ds = s.play("S", "S4")                          # N is to play
    assert ("S", "out_of_turn_play", "infraction") in violations(ds)
    _wrong_return_foul(s, ds)


def test_an_illegal_play_proves_a_wrong_return_foul():
    s = _s_returned_sj()
    s.pass_round()
    assert s.turn == "S"
    ds = s.play("S", "S4 D6")
    assert ("S", "illegal_play", "infraction") in violations(ds)
    _wrong_return_foul(s, ds)


def test_an_out_of_turn_card_before_play_begins_proves_a_wrong_tribute_warning():
    """Graded: 七(一)4 "贡错牌、还错牌，尚未出牌，退回错张、重新给牌，给予警告".
    W shows SA (above its tribute SK) while S has not yet returned: play has not
    begun, so the wrong tribute is a warning (not 犯规) and the deal goes on.
    (Reading "尚未出牌" as "play of the deal has not begun".)"""
    s, _ = after(["S", "E", "N", "W"])
    s.tribute("W", "SK")
    ds = s.play("W", "SA")                          # during the return phase
    assert ("W", "out_of_turn_play", "infraction") in violations(ds)
    assert ("W", "wrong_tribute", "warning") in violations(ds)
    assert of_type(ds, "deal_end") == []


def test_double_tribute_the_lower_tributer_is_held_to_its_largest_card_too():
    """五(四)1-2: each of the 双下 gives its own largest card. E gave SA (to N),
    then plays LJ: E's tribute was wrong, play has begun: 犯规 (七(三)3)."""
    s, _ = after(["S", "N", "E", "W"])
    s.tribute("E", "SA")
    s.tribute("W", "BJ")
    s.return_("N", "D4")
    s.return_("S", "S3")
    assert s.turn == "W"
    s.play("W", "D6")
    s.pass_("S")
    ds = s.play("E", "LJ")
    assert violations(ds) == [("E", "wrong_tribute", "foul")]
    assert of_type(ds, "deal_end")[0].extra["winner"] == "NS"


# =====================================================================
# 4. Sweep: clauses of 五(四)-(九) and 七 not tested elsewhere
# =====================================================================

# -- 五(四)1 tribute and return ---------------------------------------------

def test_a_return_of_ten_or_lower_may_be_any_such_card():
    """五(四)1 "上游选择全手牌中任意一张牌点10（含）以下的牌还给下游": S returns ST and
    later plays S4: no wrong return (the choice among cards ≤10 is free)."""
    s, _ = after(["S", "E", "N", "W"])
    s.tribute("W", "BJ")
    s.return_("S", "ST")                            # 10 itself is allowed
    s.play("W", "D3")
    ds = s.play("S", "S4")
    assert violations(ds) == []


def test_a_return_above_ten_must_be_the_lowest_card():
    """五(四)1 "如上游手中牌点均超过 10，则选择牌点最小的牌还牌": S returned SK and
    later plays SQ (above 10, but lower than SK): 还错牌, play has begun: 犯规."""
    s, _ = after(["S", "E", "N", "W"])
    s.tribute("W", "BJ")
    s.return_("S", "SK")
    s.play("W", "D6")
    ds = s.play("S", "SQ")
    assert violations(ds) == [("S", "wrong_return", "foul")]
    assert of_type(ds, "deal_end")[0].extra["winner"] == "EW"


def test_a_returned_level_card_counts_above_a():
    """README "Rule decisions": a level card counts as above A, so it is never a
    "10 or lower" return. At level 5 S returns S5 and later plays S4: 还错牌."""
    s, _ = after(["S", "E", "N", "W"])
    s.tribute("W", "BJ")
    s.return_("S", "S5")
    s.play("W", "D3")
    ds = s.play("S", "S4")
    assert violations(ds) == [("S", "wrong_return", "foul")]


def test_a_later_card_of_the_tributes_rank_proves_nothing():
    """五(四)1 "牌点最大的一张牌": suits never count, so HK after a SK tribute is fine."""
    s, _ = after(["S", "E", "N", "W"])
    s.tribute("W", "SK")
    s.return_("S", "S3")
    ds = s.play("W", "HK")
    assert violations(ds) == []


def test_tribute_of_a_small_joker_is_proven_wrong_by_a_big_joker():
    """五(四)1: the largest card; jokers rank above the level card."""
    s, _ = after(["S", "E", "N", "W"])
    s.tribute("W", "LJ")
    s.return_("S", "S3")
    ds = s.play("W", "BJ")
    assert violations(ds) == [("W", "wrong_tribute", "foul")]


# -- 五(四)4 time limits ------------------------------------------------------

def test_return_overtime_counts_down_then_warns():
    """五(四)4 "还牌者须在贡牌后40 秒（含）以内还牌"; 七(一)5: 读秒, then a warning."""
    s, _ = after(["S", "E", "N", "W"], settings=Settings(return_limit=40, countdown=10))
    s.tribute("W", "BJ")                                # t = 31
    assert s.ev("tick", dt=40.0) == []                  # t = 71: exactly 40 s, in time
    ds = s.ev("tick", dt=1.0)
    (cd,) = of_type(ds, "countdown")
    assert cd.seat == "S" and cd.extra["purpose"] == "return"
    ds = s.ev("tick", dt=10.0)                           # t = 82 > 81
    assert violations(ds) == [("S", "overtime", "warning")]
    assert s.ev("tick", dt=60.0) == []                  # one warning per limit (texts silent on more)
    ds = s.return_("S", "S3")
    assert of_type(ds, "turn")[0].seat == "W"


# -- 五(六) reports -----------------------------------------------------------

def test_every_play_that_leaves_ten_or_fewer_needs_a_new_report():
    """五(六) "在出完一手牌后，如手中剩余牌张为 10 张（含）以内，应及时…报出剩余张数":
    after reporting 10, a play leaving 9 must be reported again."""
    s = Driver()
    s.start(leader="S")
    s.dump_out("S", ["S3 S3 H3 H3 D3 D3 C3 C3", "S4 S4 H4 H4 D4 D4 C4 C4"])
    s.play("S", "S6")
    assert violations(s.report("S", 10)) == []
    s.pass_round()
    s.play("S", "D6")                                   # 9 left, not reported
    assert violations(s.pass_("E")) == [("S", "missing_report", "warning")]


# -- 七 penalties -------------------------------------------------------------

@pytest.mark.parametrize("minutes,penalty", [(4.9, "warning"), (5, "foul"), (9.9, "foul"),
                                             (10, "forfeit")])
def test_late_arrival_boundaries(minutes, penalty):
    """七(一)1 "迟到不足 5 分钟" warning; 七(三)1 "5 分钟（含）以上、不足 10 分钟" foul;
    七(四)弃权1 "迟到 10 分钟（含）以上" abandonment (17:0)."""
    s = Driver()
    ds = s.referee("late", side="EW", minutes=minutes)
    assert violations(ds) == [("E", "late", penalty)]
    if penalty == "forfeit":
        (end,) = of_type(ds, "match_end")
        assert end.extra["reason"] == "abandonment"
        assert end.extra["result"]["level_points"] == {"NS": 17, "EW": 0}


def test_two_warnings_in_different_deals_of_a_match_make_an_infraction():
    """七(二) "在一场比赛中，一方受到两次警告 … 记违例": counted over the match, not the deal."""
    s = Driver()
    s.start(leader="S")
    s.play("S", "S3")
    assert violations(s.pass_("N")) == [("N", "out_of_turn_pass", "warning")]   # deal 1
    s.pass_("E")
    s.pass_("N")
    s.pass_("W")
    s.dump_out("S", ["S3 H3 H3 D3 D3 C3 C3", "S4 S4 H4 H4 D4 D4 C4 C4", "S5 S5 H5 H5 D5 D5 C5 C5",
                     "S6 H6 D6"])
    s.dump_out("N")                                     # NS 双上
    assert s.levels() == {"NS": "5", "EW": "2"}
    s.start(deal=2, level="5", leader=None)
    s.tribute("E", "SA")
    s.tribute("W", "BJ")
    s.return_("N", "D4")
    s.return_("S", "D3")
    assert s.turn == "W"
    s.play("W", "D9")
    ds = s.pass_("N")                                   # deal 2: NS's second warning
    assert violations(ds) == [("N", "out_of_turn_pass", "warning")]
    (step,) = of_type(ds, "penalty")
    assert (step.penalty, step.extra["side"]) == ("infraction", "NS")
    (choice,) = [d for d in ds if d.code == "stop_choice"]
    assert (choice.seat, choice.extra["offender"]) == ("W", "N")


def test_overtime_warnings_climb_the_ladder_like_any_warning():
    """七(一)5 overtime is a warning; 七(二) two warnings in a match: 违例."""
    s = Driver(Settings(play_limit=20, first_lead_limit=40, countdown=10))
    s.start(leader="S")
    ds = s.ev("tick", dt=51.0)                           # 40 s + 10 s countdown passed
    assert violations(ds) == [("S", "overtime", "warning")]
    s.play("S", "S3")
    s.pass_("E")
    ds = s.ev("tick", dt=31.0)                           # N: 20 s + 10 s
    assert violations(ds) == [("N", "overtime", "warning")]
    assert [d.penalty for d in of_type(ds, "penalty")] == ["infraction"]


def test_a_foul_scores_the_offenders_double_down_and_the_match_goes_on():
    """七(三) "本副牌结束，违规方双下，下副牌不进贡，由裁判在非违规方中指定首圈领出者":
    a referee's foul for signalling (五(五)3(4)) mid-deal: EW 双下 (NS +3), next deal at
    NS's 5, no tribute, an NS leader accepted without a query."""
    s = Driver()
    s.start(leader="S")
    s.play("S", "S3")
    ds = s.referee("penalty", seat="W", penalty="foul", code="signalling")
    (end,) = of_type(ds, "deal_end")
    assert end.extra["ended_by"] == "foul" and end.extra["winner"] == "NS"
    assert s.levels() == {"NS": "5", "EW": "2"}
    ds = s.start(deal=2, level="5", leader="N")
    assert codes(ds) == [] and of_type(ds, "deal_start")[0].extra["phase"] == "play"
    assert s.turn == "N"


# -- 五(九) the match ----------------------------------------------------------

def test_passing_a_ends_a_match_by_deals_too():
    """五(九)1 "先打过 A 级，或在规定时间内、打完规定的副数后，升级数高的一方获胜";
    2022 第十二条 names the early end only for 计轮制. The engine ends every format
    when a side passes A (README "Match scoring"; match.py)."""
    s = Driver(Settings(match_format="deals", deals=9))
    s.start(deal=5, level="A", leader="S", levels={"NS": "A", "EW": "9"})
    s.dump_out("S")
    ds = s.dump_out("N")
    (m,) = of_type(ds, "match_end")
    assert (m.extra["winner"], m.extra["reason"]) == ("NS", "past_a")
    assert m.extra["result"]["level_points"] == {"NS": 19, "EW": 7}
