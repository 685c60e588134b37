"""Corner indices printed in new type faces: training data for decks whose fonts the model never saw."""

from __future__ import annotations

import numpy as np
import pytest

import vision.training.index_art as index_art
from vision.reading.classes import CARD_NAMES, class_id
from vision.training.card_art import TRAIN_DECKS, load_deck
from vision.training.index_art import designed_indices
from vision.training.index_classifier import main as classifier_main
from vision.training.synth import SceneGenerator

SUITED = [c for c in CARD_NAMES if c not in ("BJ", "LJ")]


def _boxes(card: np.ndarray, index_box):
    """The top-left index box of ``card`` and the bottom-right one turned upright."""
    h, w = card.shape[:2]
    x0, y0, x1, y1 = index_box
    bx0, by0, bx1, by1 = int(x0 * w), int(y0 * h), int(np.ceil(x1 * w)), int(np.ceil(y1 * h))
    top = card[by0:by1, bx0:bx1, :3]
    bottom = card[h - by1:h - by0, w - bx1:w - bx0, :3][::-1, ::-1]
    return top, bottom


def _ink(patch: np.ndarray) -> np.ndarray:
    """Pixels of a corner patch far from white card stock."""
    p = patch.reshape(-1, 3).astype(int)
    return p[(255 - p).max(axis=1) > 90]


def test_both_corners_get_the_same_new_index_on_the_decks_card():
    deck = load_deck("anglo")
    faces = designed_indices(deck, ["S5", "HK", "DT"], np.random.default_rng(1))
    assert sorted(faces) == ["DT", "HK", "S5"]
    for name, card in faces.items():
        original = deck.cards[name]
        assert card.shape == original.shape
        assert np.array_equal(card[:, :, 3], original[:, :, 3])          # the deck's outline
        top, bottom = _boxes(card, deck.index_box)
        assert np.array_equal(top, bottom)                               # turned half a turn
        assert len(_ink(top)) > 40
        assert not np.array_equal(top, _boxes(original, deck.index_box)[0])   # the deck's index is gone
        h, w = card.shape[:2]
        middle = (slice(int(0.35 * h), int(0.65 * h)), slice(int(0.3 * w), int(0.7 * w)))
        assert np.array_equal(card[middle], original[middle])            # the body is the deck's


def test_red_suits_print_red_and_black_suits_dark():
    deck = load_deck("simplistic")
    for seed in range(6):
        faces = designed_indices(deck, ["H7", "D7", "S7", "C7"], np.random.default_rng(seed))
        for name, card in faces.items():
            b, g, r = _ink(_boxes(card, deck.index_box)[0]).mean(axis=0)
            if name[0] in "HD":
                assert r > 140 and r > g + 70 and r > b + 60, (seed, name, b, g, r)
            else:
                assert max(b, g, r) < 110 and abs(r - b) < 40, (seed, name, b, g, r)


def test_one_seed_one_print_and_seeds_differ():
    deck = load_deck("tango")
    a = designed_indices(deck, ["SQ"], np.random.default_rng(3))["SQ"]
    again = designed_indices(deck, ["SQ"], np.random.default_rng(3))["SQ"]
    other = [designed_indices(deck, ["SQ"], np.random.default_rng(s))["SQ"] for s in range(4, 9)]
    assert np.array_equal(a, again)
    assert all(not np.array_equal(a, o) for o in other)


def test_ranks_differ_from_one_another_in_one_print():
    deck = load_deck("anglo")
    faces = designed_indices(deck, [f"S{r}" for r in "A23456789TJQK"], np.random.default_rng(11))
    tops = [_boxes(c, deck.index_box)[0] for c in faces.values()]
    assert len({t.tobytes() for t in tops}) == 13


def test_jokers_and_cards_the_deck_lacks_are_left_out():
    deck = load_deck("anglo")
    faces = designed_indices(deck, ["BJ", "LJ", "S2", "XX"], np.random.default_rng(0))
    assert sorted(faces) == ["S2"]


def test_every_training_deck_takes_every_card():
    for name in TRAIN_DECKS:
        deck = load_deck(name)
        cards = [c for c in SUITED if c in deck.cards]
        for seed in range(2):
            faces = designed_indices(deck, cards, np.random.default_rng(seed))
            assert len(faces) == 52
            assert all(len(_ink(_boxes(f, deck.index_box)[0])) > 20 for f in faces.values()), name


def test_without_truetype_fonts_opencvs_own_faces_print(monkeypatch):
    monkeypatch.setattr(index_art, "type_faces", lambda: ())
    monkeypatch.setattr(index_art, "suit_faces", lambda: ())
    deck = load_deck("anglo")
    for seed in range(4):
        design = index_art._Design(np.random.default_rng(seed))
        assert isinstance(design.face, int) and design.suit_face is None
        card = designed_indices(deck, ["CJ"], np.random.default_rng(seed))["CJ"]
        assert len(_ink(_boxes(card, deck.index_box)[0])) > 40


def test_suit_signs_come_from_fonts_that_draw_all_four():
    faces = index_art.suit_faces()
    assert set(faces) <= set(index_art.type_faces())
    for face in faces[:6]:
        signs = [index_art.text_mask(index_art.SUIT_CHAR[s], face, 0, False) for s in "SHDC"]
        assert len({m.tobytes() for m in signs}) == 4, face
    # about 60 % of designs take a font's sign where the machine has one
    used = sum(index_art._Design(np.random.default_rng(k)).suit_face is not None for k in range(200))
    assert (80 < used < 160) if faces else used == 0


@pytest.mark.parametrize("suit", "SHDC")
def test_a_suit_pip_fills_its_box_but_not_all_of_it(suit):
    style = {"bulge": 0.3, "lobe": 1.0, "stem": 0.12, "ball": 1.0}
    mask = index_art._suit_mask(suit, 24, 22, style)
    assert mask.shape == (22, 24)
    ink = mask > 0.5
    assert 0.3 < ink.mean() < 0.85
    ys, xs = np.nonzero(ink)
    assert xs.min() <= 3 and xs.max() >= 20         # spans the box's width
    assert np.allclose(mask, mask[:, ::-1], atol=0.05)   # left-right symmetric


@pytest.mark.parametrize("option, cards", [("joker_designs", ["BJ", "S5", "LJ"]),
                                           ("index_designs", ["S5", "H9", "C3"])])
def test_scenes_draw_new_designs_only_when_asked(decks, option, cards):
    plain = SceneGenerator(decks, hand_rate=0.0)
    designed = SceneGenerator(decks, hand_rate=0.0, **{option: 1.0})
    a = plain.render(cards, np.random.default_rng(5), deck=decks[0], clean=True)
    again = plain.render(cards, np.random.default_rng(5), deck=decks[0], clean=True)
    b = designed.render(cards, np.random.default_rng(5), deck=decks[0], clean=True)
    assert np.array_equal(a.image, again.image)
    assert not np.array_equal(a.image, b.image)
    # clean layout: the same corners labelled with the same faces, whatever the design
    assert [l[0] for l in b.labels] == [l[0] for l in a.labels]
    assert {class_id(c) for c in cards} == {l[0] for l in b.labels}


def test_the_crops_command_takes_index_designs(tmp_path):
    assert classifier_main([str(tmp_path), "--scenes", "6", "--seed", "2", "--index-designs", "1.0"]) == 0
    y = np.load(tmp_path / "crops_2.npz")["y"]
    assert (y < 52).sum() > 0


def test_body_negatives_add_non_index_crops_on_the_cards_only(tmp_path):
    from vision.training.classifier_data import NONE, make_crops

    make_crops(tmp_path / "plain", 12, seed=4)
    make_crops(tmp_path / "body", 12, seed=4, body_negatives=4)
    plain, body = np.load(tmp_path / "plain" / "crops_4.npz"), np.load(tmp_path / "body" / "crops_4.npz")
    assert (body["y"] == NONE).sum() > (plain["y"] == NONE).sum() + 12
    # every index crop as before, byte for byte (each scene draws from its own generator)
    assert np.array_equal(plain["x"][plain["y"] < NONE], body["x"][body["y"] < NONE])
    # the new negatives lie on cards: brighter than the cloth-heavy ones drawn anywhere
    extra_mean = body["x"][body["y"] == NONE].mean()
    assert extra_mean > plain["x"][plain["y"] == NONE].mean()
