import pytest

from referee.cards import (ALL_CARDS, BIG_JOKER, LITTLE_JOKER, CardError, check_copies, full_deck,
                           is_wild, level_rank, parse_card, parse_cards, single_value)


@pytest.mark.parametrize("token,code", [
    ("S3", "S3"), ("HT", "HT"), ("H10", "HT"), ("h10", "HT"), ("♠3", "S3"), ("♥10", "HT"),
    ("♦A", "DA"), ("♣k", "CK"), ("BJ", "BJ"), ("LJ", "LJ"), ("大王", "BJ"), ("小王", "LJ"),
    (" d9 ", "D9"),
])
def test_parse_accepts_every_spelling(token, code):
    assert parse_card(token).code == code


@pytest.mark.parametrize("token", ["X9", "S1", "S11", "H", "", "JJ", "S10x", "BJJ", "🂡"])
def test_unknown_codes_name_the_bad_token(token):
    with pytest.raises(CardError) as exc:
        parse_card(token)
    assert repr(token) in str(exc.value)


def test_parse_cards_reports_the_bad_token_among_good_ones():
    with pytest.raises(CardError, match="'Q7'"):
        parse_cards("S3 Q7 D3")


def test_parse_cards_separators_and_iterables():
    assert [c.code for c in parse_cards("S3, D3 ,HT")] == ["S3", "D3", "HT"]
    assert parse_cards(["S3", parse_card("D3")]) == (parse_card("S3"), parse_card("D3"))
    assert parse_cards("") == ()


def test_cards_are_interned_values():
    assert parse_card("S3") is parse_card("♠3")
    assert len({c.index for c in ALL_CARDS}) == 54
    assert [c.index for c in ALL_CARDS] == list(range(54))


def test_double_deck_has_108_cards_two_of_each():
    deck = full_deck()
    assert len(deck) == 108
    check_copies(deck)
    assert sum(1 for c in deck if c.is_joker) == 4
    for rank in range(2, 15):
        assert sum(1 for c in deck if c.rank == rank) == 8


@pytest.mark.parametrize("cards,bad", [("SA SA SA", "SA"), ("BJ BJ BJ", "BJ"), ("LJ S3 LJ LJ", "LJ")])
def test_third_copy_is_rejected(cards, bad):
    with pytest.raises(CardError, match=f"3 copies of {bad}"):
        check_copies(parse_cards(cards))


@pytest.mark.parametrize("level,rank", [("2", 2), ("10", 10), ("T", 10), ("j", 11), ("A", 14), (13, 13)])
def test_levels(level, rank):
    assert level_rank(level) == rank


@pytest.mark.parametrize("level", ["1", "B", "", "11", 15, None, True])
def test_bad_levels(level):
    with pytest.raises(CardError, match="unknown level"):
        level_rank(level)


def test_single_order_puts_level_above_ace_below_jokers():
    order = ["BJ", "LJ", "S7", "SA", "SK", "SQ", "SJ", "ST", "S9", "S8", "S6", "S5", "S4", "S3", "S2"]
    values = [single_value(parse_card(c), "7") for c in order]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)
    assert single_value(parse_card("H7"), "7") == single_value(parse_card("C7"), "7")


def test_only_the_two_heart_level_cards_are_wild():
    wild = [c.code for c in ALL_CARDS if is_wild(c, "Q")]
    assert wild == ["HQ"]
    assert not is_wild(BIG_JOKER, "Q") and not is_wild(LITTLE_JOKER, "Q")
