"""Every combination rule of SUMMARY §Combinations and 2023 rules §5(5)2, by example."""

import pytest

from referee import beats, judge, readings


def kinds(play, level="2"):
    return [r.kind for r in readings(play, level)]


def best(play, level="2"):
    return judge(play, level).reading


# --- each kind -------------------------------------------------------------

@pytest.mark.parametrize("play,kind", [
    ("S3", "single"), ("BJ", "single"), ("LJ", "single"),
    ("S3 D3", "pair"), ("BJ BJ", "pair"), ("LJ LJ", "pair"),
    ("S3 D3 C3", "triple"),
    ("S9 D9 C9 S4 D4", "full_house"), ("S9 D9 C9 BJ BJ", "full_house"),
    ("S3 D4 C5 S6 D7", "straight"),
    ("S3 D3 S4 D4 S5 D5", "tube"),
    ("S3 D3 C3 S4 D4 C4", "plate"),
    ("S3 D3 C3 H3", "bomb"), ("S3 D3 C3 H3 S3", "bomb"),
    ("S3 S4 S5 S6 S7", "straight_flush"),
    ("LJ LJ BJ BJ", "joker_bomb"), ("BJ LJ BJ LJ", "joker_bomb"),
])
def test_each_kind(play, kind):
    assert best(play).kind == kind


@pytest.mark.parametrize("play", [
    "S3 D4", "BJ LJ", "S3 D3 C4", "S3 D3 C3 S4", "S3 D4 C5 S6", "S3 D4 C5 S6 D8",
    "S3 D4 C5 S6 D7 C8",            # a straight is exactly five cards
    "S3 D3 S4 D4 S5 D5 S6 D6",      # a tube is exactly three pairs
    "S3 D3 C3 S4 D4 C4 S5 D5 C5",   # a plate is exactly two triples
    "S3 D3 S5 D5 S6 D6",            # pairs not consecutive
    "S3 D3 C3 S5 D5 C5",            # triples not consecutive
    "S9 D9 C9 BJ LJ",               # BJ and LJ are not a pair
    "S9 D9 C9 S9 D4",
    "BJ BJ LJ", "BJ BJ LJ LJ S3",
])
def test_not_a_combination(play):
    assert readings(play, "2") == []
    assert not judge(play, "2").legal
    assert judge(play, "2").code == "illegal_combination"


def test_ten_card_bomb_is_the_largest_possible():
    play = "S3 S3 D3 D3 C3 C3 H3 H3 HQ HQ"
    assert best(play, "Q").kind == "bomb" and best(play, "Q").size == 10
    assert readings("S3 S3 D3 D3 C3 C3 H3 H3 HQ HQ S4", "Q") == []


# --- ranks ------------------------------------------------------------------

@pytest.mark.parametrize("higher,lower,level", [
    ("S7", "SA", "7"), ("BJ", "LJ", "7"), ("LJ", "S7", "7"), ("SA", "SK", "7"), ("S3", "S2", "7"),
    ("S7 D7", "SA DA", "7"), ("BJ BJ", "LJ LJ", "7"), ("LJ LJ", "S7 D7", "7"),
    ("S7 D7 C7", "SA DA CA", "7"),
    ("S7 D7 C7 S3 D3", "SA DA CA SK DK", "7"),
    ("S7 D7 C7 H7", "SA DA CA HA", "7"),
])
def test_level_rank_above_ace_in_single_order_kinds(higher, lower, level):
    assert beats(best(higher, level), best(lower, level))
    assert not beats(best(lower, level), best(higher, level))


def test_level_card_keeps_natural_rank_in_straights():
    # At level 7, 5-6-7-8-9 is an ordinary straight from 5, below 6-10.
    low = best("S5 D6 C7 S8 D9", "7")
    assert low.kind == "straight" and low.value == 5
    assert beats(best("S6 D7 C8 S9 DT", "7"), low)


def test_full_house_compares_the_triple_only():
    assert beats(best("S9 D9 C9 S3 D3"), best("S8 D8 C8 SA DA"))
    assert not beats(best("S9 D9 C9 SA DA"), best("D9 C9 H9 S3 D3"))


@pytest.mark.parametrize("play,kind,value", [
    ("SA D2 C3 S4 D5", "straight", 1), ("ST DJ CQ SK DA", "straight", 10),
    ("SA DA S2 D2 S3 D3", "tube", 1), ("SQ DQ SK DK SA DA", "tube", 12),
    ("SA DA CA S2 D2 C2", "plate", 1), ("SK DK CK SA DA CA", "plate", 13),
])
def test_ace_low_and_high(play, kind, value):
    r = best(play, "9")
    assert (r.kind, r.value) == (kind, value)


@pytest.mark.parametrize("play", [
    "SJ DQ CK SA D2", "SQ DK CA S2 D3", "SK DA C2 S3 D4",   # no wrap-around
    "SK DK SA DA S2 D2",
])
def test_no_wrap_around(play):
    assert "straight" not in kinds(play, "9") and "tube" not in kinds(play, "9")


def test_ace_low_runs_are_the_lowest():
    assert beats(best("S2 D3 C4 S5 D6", "9"), best("SA D2 C3 S4 D5", "9"))
    assert beats(best("S2 D2 C2 S3 D3 C3", "9"), best("SA DA CA S2 D2 C2", "9"))


# --- wildcards (逢人配) -------------------------------------------------------

@pytest.mark.parametrize("play,level,kind", [
    ("S3 H5", "5", "pair"), ("S3 D3 H5", "5", "triple"), ("S3 D3 H5 H5", "5", "bomb"),
    ("S3 D4 C6 S7 H5", "5", "straight"), ("S3 S4 S6 S7 H5", "5", "straight_flush"),
    ("S3 D3 S4 D4 S5 H9", "9", "tube"),
    ("S3 D3 C3 S4 D4 H9", "9", "plate"),
    ("S3 D3 H9 S4 D4", "9", "full_house"),
    ("H5 H5", "5", "pair"), ("H5", "5", "single"),
    ("S9 D9 C9 H9 H9 S9 D9 C9", "9", "bomb"),   # the wildcards as themselves
])
def test_wildcard_stands_for_any_non_joker_card(play, level, kind):
    assert best(play, level).kind == kind


@pytest.mark.parametrize("play", ["BJ H5", "LJ H5", "BJ BJ LJ H5", "BJ LJ H5 H5", "S9 D9 C9 BJ H5"])
def test_wildcard_never_stands_for_a_joker(play):
    assert readings(play, "5") == []


def test_wildcard_as_itself_is_a_level_card():
    assert best("H5", "5").value == best("S5", "5").value == 15
    assert not beats(best("H5", "5"), best("C5", "5"))       # suits never break ties
    assert beats(best("S5 H5", "5"), best("SA DA", "5"))


def test_several_readings_strongest_first():
    rs = readings("H7 H7 S8 D8 C8", "7")
    assert [(r.kind, r.value) for r in rs] == [("bomb", 8), ("full_house", 8)]
    rs = readings("S3 S4 S5 S6 H2", "2")
    assert [(r.kind, r.value) for r in rs] == [
        ("straight_flush", 3), ("straight_flush", 2), ("straight", 3), ("straight", 2)]


def test_two_wildcard_full_house_takes_the_higher_triple():
    assert best("SA HA H5 H5 D2", "5").describe() == "a full house of As"


def test_laid_order_declares_the_reading():
    # 222+AA declared by placing both wildcards with the 2s, triple left
    declared = judge("D2 H5 H5 SA HA", "5")
    assert declared.reading.describe() == "a full house of 2s"
    assert declared.arrangement == ()
    # AAA+22 declared
    assert judge("SA HA H5 D2 H5", "5").reading.describe() == "a full house of As"
    # a straight with the wildcard at the bottom declares 2-6 rather than 3-7
    assert judge("H2 S3 D4 C5 S6", "2").reading.value == 2
    assert judge("S3 D4 C5 S6 H2", "2").reading.value == 3


def test_tube_or_plate_without_declaration_reads_as_tube_but_answers_a_plate():
    play = "SA CA H5 H5 H2 D2"
    assert judge(play, "5").kind == "tube"
    assert judge("SA CA H5 H2 D2 H5", "5").kind == "plate"   # laid as AAA 222
    answer = judge(play, "5", previous="SK DK CK SQ DQ CQ")   # plate Q-K: A-2 is lower
    assert not answer.legal
    assert judge(play, "5", previous="S2 D2 S3 D3 S4 D4").legal is False   # tube A-3 < 2-4


# --- bomb-class order ---------------------------------------------------------

ORDER = [  # weakest first, all at level 2
    "S9 D9 C9 S8 D8",                      # full house (any ordinary kind)
    "S3 D3 C3 H3",                         # 4-bomb
    "SA DA CA HA",
    "S3 D3 C3 H3 S3",                      # 5-bomb
    "SA DA CA HA SA",
    "SA S2 S3 S4 S5",                      # straight flush, lowest
    "ST SJ SQ SK SA",                      # straight flush, highest
    "S3 D3 C3 H3 S3 D3",                   # 6-bomb
    "SA DA CA HA SA DA",
    "S4 D4 C4 H4 S4 D4 C4",                # 7-bomb
    "S4 D4 C4 H4 S4 D4 C4 H4",             # 8-bomb
    "S4 D4 C4 H4 S4 D4 C4 H4 H2",          # 9-bomb with a wildcard
    "S4 D4 C4 H4 S4 D4 C4 H4 H2 H2",       # 10-bomb
    "BJ BJ LJ LJ",                         # joker bomb
]


@pytest.mark.parametrize("i", range(len(ORDER) - 1))
def test_bomb_class_order(i):
    lower, higher = best(ORDER[i]), best(ORDER[i + 1])
    assert beats(higher, lower) and not beats(lower, higher)
    for weaker in ORDER[:i + 1]:
        assert beats(higher, best(weaker))


def test_level_bomb_beats_ace_bomb_of_the_same_size():
    assert beats(best("S2 D2 C2 S2", "2"), best("SA DA CA HA", "2"))


def test_ordinary_kinds_never_beat_each_other_across_kinds_or_sizes():
    assert not beats(best("SA DA"), best("S3"))
    assert not beats(best("S4 D5 C6 S7 D8"), best("S3 D3 C3 S2 D2"))
    assert not beats(best("S4 D4 S5 D5 S6 D6"), best("S3 D3 C3 S4 D4 C4"))


def test_suits_never_break_ties():
    a, b = best("S3 D4 C5 S6 D7"), best("H3 H4 C5 H6 H7")
    assert not beats(a, b) and not beats(b, a)
    assert not beats(best("SA"), best("DA"))
