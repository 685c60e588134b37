"""New joker designs for training: both jokers on the deck's card stock, told apart by colour."""

from __future__ import annotations

import numpy as np

from vision.reading.classes import class_id
from vision.training.card_art import load_deck
from vision.training.classifier_data import NONE, make_crops
from vision.training.joker_art import big_colour, designed_jokers, little_colour
from vision.training.synth import joker_play


def _inked(card: np.ndarray, box) -> tuple[np.ndarray, np.ndarray]:
    """The card's pixels in ``box`` (shares of its width and height) and
    which of them are inked (far from the paper)."""
    h, w = card.shape[:2]
    patch = card[int(box[1] * h):int(box[3] * h), int(box[0] * w):int(box[2] * w), :3].astype(int)
    paper = np.median(card[int(0.45 * h):int(0.55 * h), int(0.1 * w):int(0.2 * w), :3].reshape(-1, 3), axis=0)
    return patch, np.abs(patch - paper).max(axis=2) > 80


def _corner_ink(card: np.ndarray, box) -> np.ndarray:
    """The inked pixels of the card's top-left index box."""
    patch, ink = _inked(card, box)
    return patch[ink]


def _ink_mask(card: np.ndarray, box) -> np.ndarray:
    return _inked(card, box)[1]


def test_both_jokers_come_in_the_deck_size_with_a_mark_in_each_corner():
    deck = load_deck("anglo")
    for seed in range(12):
        jokers = designed_jokers(deck, np.random.default_rng(seed))
        assert sorted(jokers) == ["BJ", "LJ"]
        for card in jokers.values():
            assert card.shape == deck.cards["S2"].shape
            assert np.array_equal(card[:, :, 3], deck.cards["S2"][:, :, 3])   # the deck's card outline
            top = _corner_ink(card, deck.index_box)
            bottom = _corner_ink(card[::-1, ::-1], deck.index_box)       # turned half a turn
            assert len(top) > 20 and len(bottom) > 20


def test_a_large_corner_mark_runs_past_the_index_box_and_shows_whole_in_both_corners():
    deck = load_deck("anglo")
    h, w = deck.cards["S2"].shape[:2]
    x0, y0, x1, y1 = deck.index_box
    large = 0
    for seed in range(40):
        for card in designed_jokers(deck, np.random.default_rng(seed)).values():
            beyond = _corner_ink(card, (x1 + 0.02, y0, x1 + 0.1, y1))
            if len(beyond) > 20:
                large += 1
                # the corner above the picture: the same ink at the top left and,
                # turned half a turn, at the bottom right (not cut at the index box)
                top = _corner_ink(card, (x0, y0, 0.45, 0.28))      # (inside the card's outline)
                bottom = _corner_ink(card[::-1, ::-1], (x0, y0, 0.45, 0.28))
                assert abs(len(top) - len(bottom)) <= 0.02 * len(top), seed
    assert large >= 8          # about a third of the shapes, both jokers each


def test_some_words_are_set_in_a_type_face_in_the_corner():
    from vision.training.joker_art import _Design
    from vision.training.index_art import type_faces

    if not type_faces():
        import pytest
        pytest.skip("no TrueType fonts on this machine: the words are drawn in OpenCV's fonts alone")
    deck = load_deck("anglo")
    typed = []
    for seed in range(60):
        design = _Design(np.random.default_rng(seed))
        if design.type_face is not None:
            assert design.shape == "text"
            typed.append(seed)
    assert 5 <= len(typed) <= 40
    for seed in typed[:4]:
        # the same draws as designed_jokers makes: its corner mark is this design's word
        jokers = designed_jokers(deck, np.random.default_rng(seed))
        ink = _corner_ink(jokers["LJ"], deck.index_box)
        assert len(ink) > 20 and np.median(ink.max(axis=1)) < 130     # the little joker's word, in dark ink


def test_every_training_deck_takes_every_design():
    """Decks with wide index boxes too (ornamental's is a quarter of the card):
    a large mark stops short of the middle and the centre picture still fits."""
    from vision.training.card_art import TRAIN_DECKS

    for name in TRAIN_DECKS:
        deck = load_deck(name)
        for seed in range(25):
            jokers = designed_jokers(deck, np.random.default_rng(seed))
            assert all(card.shape == deck.cards["S2"].shape for card in jokers.values())


def test_the_big_joker_is_red_and_the_little_one_dark():
    deck = load_deck("simplistic")
    for seed in range(12):
        jokers = designed_jokers(deck, np.random.default_rng(seed))
        b, g, r = _corner_ink(jokers["BJ"], deck.index_box).mean(axis=0)
        assert r > 150 and r > g + 80 and r > b + 60, (seed, b, g, r)
        dark = _corner_ink(jokers["LJ"], deck.index_box)
        assert dark.max(axis=1).mean() < 140, seed
        assert (np.abs(dark[:, 2] - dark[:, 1]) < 60).mean() > 0.9       # grey, not red


def test_joker_colours_keep_to_their_ranges():
    rng = np.random.default_rng(3)
    for _ in range(200):
        b, g, r = big_colour(rng)
        assert r >= 170 and g < 70 and b < 90
        b, g, r = little_colour(rng)
        assert max(b, g, r) < 130


def test_joker_plays_hold_jokers():
    rng = np.random.default_rng(8)
    for _ in range(50):
        play = joker_play(rng)
        assert {"BJ", "LJ"} & set(play)
        assert 1 <= len(play) <= 10


def test_joker_plays_hold_no_more_of_a_face_than_two_decks():
    # (until 2026-12-05 a row could hold three of a joker: the benchmark's
    # joker plays held plays no table sees, and the reader was scored on them)
    from referee.cards import COPIES

    plays = [joker_play(np.random.default_rng([424242, 13, kind, i])) for kind in (0, 1) for i in range(300)]
    assert max(play.count(n) for play in plays for n in play) == COPIES
    assert sum(play.count("BJ") == 2 and play.count("LJ") == 2 for play in plays) > 100    # bombs and rows


def test_crops_with_joker_scenes_hold_more_jokers(tmp_path):
    make_crops(tmp_path / "plain", 40, seed=3)
    make_crops(tmp_path / "jokers", 40, seed=3, joker_scenes=0.5, joker_designs=0.5)
    count = {}
    for name in ("plain", "jokers"):
        y = np.load(tmp_path / name / "crops_3.npz")["y"]
        count[name] = int(np.isin(y, [class_id("BJ"), class_id("LJ")]).sum())
    assert count["jokers"] > 3 * max(1, count["plain"])


def test_ink_box_is_the_mark_alone_or_nothing():
    from vision.training.classifier_data import ink_box

    img = np.full((80, 60, 3), 245, np.uint8)
    img[12:26, 14:30] = (40, 40, 210)                         # a round-ish red mark
    assert ink_box(img, (10, 10, 34, 52)) == (14.0, 12.0, 30.0, 26.0)
    img[12:50, 14:30] = (40, 40, 40)                          # an index filling its box
    assert ink_box(img, (13, 11, 31, 51)) is None
    assert ink_box(np.full((80, 60, 3), 245, np.uint8), (10, 10, 34, 52)) is None   # blank card


def test_tight_joker_crops_add_jokers_only(tmp_path):
    make_crops(tmp_path / "plain", 30, seed=5, joker_scenes=1.0, joker_designs=1.0)
    make_crops(tmp_path / "tight", 30, seed=5, joker_scenes=1.0, joker_designs=1.0, tight_jokers=True)
    plain = np.load(tmp_path / "plain" / "crops_5.npz")["y"]
    tight = np.load(tmp_path / "tight" / "crops_5.npz")["y"]
    jokers = [class_id("BJ"), class_id("LJ")]
    assert np.isin(tight, jokers).sum() > np.isin(plain, jokers).sum()
    # the same crops of every other card (the random negatives, NONE, may differ)
    cards = [c for c in range(NONE) if c not in jokers]
    assert np.array_equal(np.bincount(tight[np.isin(tight, cards)], minlength=NONE),
                          np.bincount(plain[np.isin(plain, cards)], minlength=NONE))


def test_chinese_jokers_print_each_its_own_name_in_its_colour():
    """大王 and 小王: unlike every other design, the two jokers' corner
    marks differ in shape (大 against 小), and keep the colour rule."""
    from vision.training.fonts import cjk_faces
    from vision.training.joker_art import HANZI, _Design, hanzi_joker_deck

    assert cjk_faces(), "no font draws Chinese here (.ci/run installs fonts-wqy-microhei)"
    assert HANZI == {"BJ": "大王", "LJ": "小王"}
    deck = load_deck("anglo")
    x0, y0, x1, y1 = deck.index_box
    upper = (x0, y0, x1, y0 + (y1 - y0) / 2)           # the first character
    for seed in range(6):
        design = _Design(np.random.default_rng(seed), hanzi=True)
        assert design.shape == "hanzi" and design.type_face in cjk_faces()
        jokers = designed_jokers(deck, np.random.default_rng(seed), hanzi=True)
        big, little = _ink_mask(jokers["BJ"], upper), _ink_mask(jokers["LJ"], upper)
        assert big.sum() > 30 and little.sum() > 30
        assert (big ^ little).sum() > 0.3 * (big | little).sum(), seed
        red = _corner_ink(jokers["BJ"], deck.index_box)
        assert np.median(red[:, 2] - red[:, 0]) > 60        # the big joker's name in red (BGR)
        assert np.median(_corner_ink(jokers["LJ"], deck.index_box).max(axis=1)) < 130
    # any other design draws one shape for both: the marks match but for their colour
    plain = designed_jokers(deck, np.random.default_rng(3))
    big, little = _ink_mask(plain["BJ"], upper), _ink_mask(plain["LJ"], upper)
    assert (big ^ little).sum() < 0.1 * (big | little).sum()
    # a deck whose jokers are printed so keeps its other faces
    printed = hanzi_joker_deck(deck, 1)
    assert printed.name == "anglo-hanzi-jokers" and printed.cards["S5"] is deck.cards["S5"]
    assert not np.array_equal(printed.cards["BJ"], deck.cards["BJ"])


def test_chinese_jokers_in_the_training_scenes_only_when_asked():
    import argparse

    import pytest

    from vision.training.synth import SceneGenerator, add_scene_options, scene_options

    deck = load_deck("anglo")
    cards = ["BJ", "BJ", "LJ", "LJ"]
    x0, y0, x1, y1 = deck.index_box
    upper = (x0, y0, x1, y0 + (y1 - y0) / 2)

    def differ(faces) -> bool:       # the two marks of other shapes: 大 and 小
        big, little = _ink_mask(faces["BJ"], upper), _ink_mask(faces["LJ"], upper)
        return bool((big ^ little).sum() > 0.3 * (big | little).sum())

    every = SceneGenerator([deck], hand_rate=0.0, joker_designs=1.0, hanzi_jokers=1.0)
    assert all(differ(every._faces(np.random.default_rng(s), deck, cards)) for s in range(5))
    none = SceneGenerator([deck], hand_rate=0.0, joker_designs=1.0)
    assert not any(differ(none._faces(np.random.default_rng(s), deck, cards)) for s in range(5))
    # without the option the draws are as they were (a seed's scenes as before it existed):
    # one draw to choose a new design, then the design's own
    for s in range(3):
        rng = np.random.default_rng(s)
        rng.random()
        want = designed_jokers(deck, rng)
        got = none._faces(np.random.default_rng(s), deck, cards)
        assert all(np.array_equal(want[j], got[j]) for j in ("BJ", "LJ"))
    with pytest.raises(ValueError, match="hanzi_jokers"):
        SceneGenerator([deck], hanzi_jokers=2.0)
    ap = argparse.ArgumentParser()
    add_scene_options(ap)
    assert scene_options(ap.parse_args(["--hanzi-jokers", "0.4"]))["hanzi_jokers"] == 0.4
