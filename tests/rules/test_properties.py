"""Property tests (hypothesis) of beats() and readings() over plays drawn from real deals."""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from referee import LEVELS, beats, judge, readings
from referee.cards import COPIES, level_rank
from referee.hands import combinations_in, deal

levels = st.sampled_from(LEVELS)
seeds = st.integers(min_value=0, max_value=2**32 - 1)


@st.composite
def combos(draw):
    """A combination a player could really lay: from a random deal at a random level."""
    level = draw(levels)
    rng = random.Random(draw(seeds))
    hand = deal(rng)[draw(st.sampled_from("SENW"))]
    options = combinations_in(hand, level)
    return draw(st.sampled_from(options)), level


@st.composite
def combo_pairs(draw):
    """Two combinations at one level from one deal (so copies stay within two decks)."""
    level = draw(levels)
    hands = deal(random.Random(draw(seeds)))
    a = draw(st.sampled_from(combinations_in(hands[draw(st.sampled_from("SE"))], level)))
    b = draw(st.sampled_from(combinations_in(hands[draw(st.sampled_from("NW"))], level)))
    c = draw(st.sampled_from(combinations_in(hands[draw(st.sampled_from("SENW"))], level)))
    return a, b, c, level


@st.composite
def random_plays(draw):
    """Any 1..10 cards from a shuffled double deck, in any order: mostly not combinations."""
    level = draw(levels)
    deck = deal(random.Random(draw(seeds)))["S"] + deal(random.Random(draw(seeds)))["E"]
    n = draw(st.integers(1, 10))
    # two independent deals may repeat a card three times: keep two copies at most
    seen, play = Counter(), []
    for c in deck:
        if seen[c.code] < COPIES:
            seen[c.code] += 1
            play.append(c)
        if len(play) == n:
            break
    return tuple(play), level


@settings(max_examples=300, deadline=None)
@given(combos())
def test_no_play_beats_itself(combo_level):
    combo, level = combo_level
    for r in readings(combo.cards, level):
        assert not beats(r, r)


@settings(max_examples=300, deadline=None)
@given(combo_pairs())
def test_beats_is_antisymmetric_and_transitive(abcl):
    a, b, c, _ = abcl
    assert not (beats(a, b) and beats(b, a))
    if beats(a, b) and beats(b, c):
        assert beats(a, c)


@settings(max_examples=300, deadline=None)
@given(combo_pairs())
def test_within_a_kind_beats_is_the_rank_order(abcl):
    a, b, _, _ = abcl
    if a.kind == b.kind and a.size == b.size:
        assert beats(a, b) == (a.value > b.value)


@settings(max_examples=300, deadline=None)
@given(combo_pairs())
def test_every_bomb_class_play_beats_every_ordinary_play(abcl):
    a, b, _, _ = abcl
    if a.is_bomb_class and not b.is_bomb_class:
        assert beats(a, b) and not beats(b, a)
    if b.is_bomb_class and not a.is_bomb_class:
        assert beats(b, a) and not beats(a, b)


@settings(max_examples=300, deadline=None)
@given(random_plays())
def test_readings_never_use_more_copies_than_exist(play_level):
    play, level = play_level
    lv = level_rank(level)
    n_wild = sum(1 for c in play if c.suit == "H" and c.rank == lv)
    for r in readings(play, level):
        assert r.cards == play                   # exactly the cards laid, no others
        if r.pattern is not None:
            assert len(r.pattern) == len(play)
            # wildcards stand in for at most as many cards as there are wildcards
            assert sum(1 for s in r.pattern if s < 0) <= n_wild
            stand_for = Counter(abs(s) for s in r.pattern)
            for rank, n in stand_for.items():
                # 8 natural copies of a rank plus the two wildcards
                assert n <= 4 * COPIES + (COPIES if rank != lv else 0)
        jokers = Counter(c.code for c in play if c.suit is None)
        assert all(n <= COPIES for n in jokers.values())


@settings(max_examples=300, deadline=None)
@given(random_plays())
def test_judge_agrees_with_readings(play_level):
    play, level = play_level
    verdict = judge(play, level)
    rs = readings(play, level)
    assert verdict.legal == bool(rs)
    assert verdict.reading in rs or (verdict.reading is None and not rs)


@settings(max_examples=200, deadline=None)
@given(combos())
def test_combinations_in_hand_are_laid_in_canonical_order(combo_level):
    combo, level = combo_level
    assert judge(combo.cards, level).arrangement == ()
