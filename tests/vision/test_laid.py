"""Something laid that the reader names nothing (vision.reading.laid), on a real wooden surface.

The wood is Debian's (mate-backgrounds, GPL-2+: vision.training.real_surfaces);
the cards are gnome-cards-data's, laid face down (their back), or face up
with the classifier made blind (no name sure enough), as a deck it does not
know would read.  The reads are the shipped models'.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.reading.detector import CardRead, ZoneRead
from vision.reading.laid import ABSORB_S, MIN_CARD, EmptyLook
from vision.reading.table import ZONE_PX
from vision.training.card_faces import play_picture, zone_picture
from vision.training.real_surfaces import LIGHTS, relight

from tests.vision.conftest import wood_top


@pytest.fixture(scope="module")
def wood():
    return wood_top(3)


def _bgr(art):
    return cv2.cvtColor(art, cv2.COLOR_BGRA2BGR)


def _marked(detector, empty, now, margin=0):
    """The read of ``now``, and it as marked after the zone was seen as
    ``empty`` (pictures with ``margin`` pixels of cloth round the zone)."""
    first, then = detector.read_zones([empty, now], detector.imgsz / max(ZONE_PX), margin)
    look = EmptyLook()
    assert look("S-play", 0.0, empty, margin, first).unread is False
    return then, look("S-play", 0.1, now, margin, then)


@pytest.mark.parametrize("angle", [0.0, 30.0])
def test_a_card_face_down_on_real_wood_reads_as_nothing_and_is_marked_unread(detector, decks, wood, angle):
    for deck in decks:
        read, marked = _marked(detector, wood, zone_picture(_bgr(deck.back), wood, angle))
        assert read.cards == [] and marked.unread, deck.name


def test_a_card_the_classifier_cannot_name_is_marked_and_one_it_reads_is_not(detector_setting, decks, wood):
    now = zone_picture(_bgr(decks[0].cards["HK"]), wood, 20.0)
    read, marked = _marked(detector_setting("index_conf", 0.25), wood, now)
    assert read.names == ["HK"] and marked.unread is False
    read, marked = _marked(detector_setting("index_conf", 1.01), wood, now)      # no name is sure enough
    assert read.cards == [] and marked.unread is True


@pytest.mark.parametrize("angle", [0.0, 30.0])
def test_a_card_read_from_no_index_beside_cards_read_marks_the_read(detector, decks, wood, angle):
    # a row of three, its middle card face down (as an index the classifier
    # does not know reads): the two read surely, and the third would vanish
    deck = decks[0]
    row = play_picture([_bgr(deck.cards["HK"]), _bgr(deck.back), _bgr(deck.cards["S5"])], wood, angle, 1.1)
    read, marked = _marked(detector, wood, row)
    assert read.names == ["HK", "S5"] and read.confidence > 0.9
    assert marked.unexplained >= MIN_CARD and marked.confidence == 0.0 and marked.names == read.names
    assert marked.to_dict()["unexplained"] == marked.unexplained


def test_a_read_the_watcher_keeps_keeps_its_marking(detector, decks, wood):
    # the table watcher reuses a zone's read while its picture has not changed:
    # the cards keep the marking they got, not compared afresh every frame;
    # a read of other cards, or one read afresh, is compared
    deck = decks[0]
    row = play_picture([_bgr(deck.cards["HK"]), _bgr(deck.back), _bgr(deck.cards["S5"])], wood, 0.0, 1.1)
    read, marked = _marked(detector, wood, row)
    look = EmptyLook()
    look("S-play", 0.0, wood, 0, ZoneRead())
    assert look("S-play", 0.1, row, 0, read).unexplained == marked.unexplained >= MIN_CARD
    assert look("S-play", 0.2, wood, 0, replace(read), again=True).unexplained == marked.unexplained
    assert look("S-play", 0.3, wood, 0, replace(read)).unexplained == 0.0
    assert look("S-play", 0.4, row, 0, replace(read, cards=read.cards[:1]), again=True).unexplained > 0


@pytest.mark.parametrize("step, angle", [(1.1, 0.0), (1.1, -35.0), (0.3, 0.0), (0.3, 40.0), (0.5, -20.0)])
def test_a_row_or_fan_read_whole_is_not_marked(detector, decks, wood, step, angle):
    deck = decks[0]
    names = ["HK", "C9", "S5"] if step > 1 else ["D3", "S4", "H5", "C6", "D7"]
    play = play_picture([_bgr(deck.cards[n]) for n in names], wood, angle, step)
    read, marked = _marked(detector, wood, play)
    assert sorted(read.names) == sorted(names) and marked.unexplained == 0.0 and marked == read


@pytest.mark.parametrize("angle", [0.0, 25.0, -35.0])
@pytest.mark.parametrize("face_down", [0, -1])
def test_a_fans_end_card_read_from_no_index_marks_the_read(detector, decks, wood, angle, face_down):
    # a fan's first card (its strip beside the next one) or its last (whole,
    # over the others) face down: the cards read cover their rectangles turned
    # as their indices lie, not the disc a card covers however it is turned,
    # which reached over the first card's strip and past the last card
    deck = decks[0]
    names = ["D3", "S4", "H5", "C6"]
    arts = [_bgr(deck.cards[n]) for n in names]
    arts[face_down] = _bgr(deck.back)
    read, marked = _marked(detector, wood, play_picture(arts, wood, angle, 0.45))
    assert sorted(read.names) == sorted(n for k, n in enumerate(names) if k != face_down % len(names))
    assert read.confidence > 0.9
    assert marked.unexplained >= MIN_CARD and marked.confidence == 0.0


def test_a_card_read_from_no_index_in_a_row_reaching_the_zones_edge_marks_the_read(detector, decks, wood):
    # the row's changed patch touches the zone's border, as a shadow or an arm
    # reaching in does; but it does not come in from outside the zone picture
    # (the cloth round the zone, 32 px, is as it was) and is print: it counts
    deck = decks[0]
    m = 32
    cloth = cv2.copyMakeBorder(wood, m, m, m, m, cv2.BORDER_REFLECT)
    row = play_picture([_bgr(deck.back), _bgr(deck.cards["HK"]), _bgr(deck.cards["S5"]), _bgr(deck.back)],
                       wood, 0.0, 1.1)
    inner = np.ascontiguousarray(row[:, 25:-25])      # the row's ends at the zone's edges
    laid = cloth.copy()
    laid[m:-m, m + 25:-m - 25] = inner
    read, marked = _marked(detector, cloth, laid, m)
    assert read.names == ["HK", "S5"] and marked.unexplained >= MIN_CARD and marked.confidence == 0.0


def test_print_reaching_in_from_outside_the_zone_picture_does_not_mark_a_read(detector, decks, wood):
    # a sleeve's knit from the picture's outer edge
    # into the zone beside a card read: an arm the hand models do not see.
    # The same print lying inside the zone is something laid
    deck = decks[0]
    m = 32
    cloth = cv2.copyMakeBorder(wood, m, m, m, m, cv2.BORDER_REFLECT)
    laid = cloth.copy()
    laid[m:-m, m:-m] = zone_picture(_bgr(deck.cards["HK"]), wood, 0.0)
    sleeve = np.zeros((260, 90, 3), np.uint8)
    sleeve[:, :] = (40, 60, 150)
    sleeve[::8] = (200, 210, 220)       # a striped knit
    sleeve[:, ::8] = (200, 210, 220)
    arm = laid.copy()
    arm[:260, 500:590] = sleeve
    read, marked = _marked(detector, cloth, arm, m)
    assert read.names == ["HK"] and not read.hand and marked.unexplained == 0.0
    inside = laid.copy()
    inside[m + 40:m + 300, 500:590] = sleeve
    read, marked = _marked(detector, cloth, inside, m)
    assert read.names == ["HK"] and marked.unexplained >= MIN_CARD


@pytest.mark.parametrize("seed", range(3))
def test_a_hard_shadow_cast_over_cards_read_whole_does_not_mark_them(detector, decks, wood, seed):
    deck = decks[0]
    for names, step, angle in ((["HK", "C9", "S5"], 1.1, 10.0), (["D3", "S4", "H5", "C6", "D7"], 0.3, -30.0)):
        play = play_picture([_bgr(deck.cards[n]) for n in names], wood, angle, step)
        shadowed = relight(play, "shadow_band", np.random.default_rng(seed))     # not there while the zone was bare
        read, marked = _marked(detector, wood, shadowed)
        assert sorted(read.names) == sorted(names) and marked == read, (names, seed)


@pytest.mark.parametrize("light", LIGHTS[1:])
def test_bare_wood_under_another_light_or_a_hard_shadow_is_not_marked(detector, wood, light):
    for seed in range(3):
        relit = relight(wood, light, np.random.default_rng(seed))
        read, marked = _marked(detector, wood, relit)
        assert read.cards == [] and marked.unread is False, seed


def test_a_shadow_that_stays_becomes_the_empty_look(decks, wood):
    shadow = relight(wood, "shadow_band", np.random.default_rng(1))
    look = EmptyLook()
    look("S-play", 0.0, wood, 0, ZoneRead())
    assert not look("S-play", 1.0, shadow, 0, ZoneRead()).unread
    # (a card laid in the shadow now would merge with its change: it is taken once it has lasted)
    look("S-play", 1.0 + ABSORB_S, shadow, 0, ZoneRead())
    laid = zone_picture(_bgr(decks[0].back), shadow, 0.0)
    assert look("S-play", 7.0 + ABSORB_S, laid, 0, ZoneRead()).unread


def test_the_empty_look_is_taken_again_once_cards_were_read(decks, wood):
    # a trick: cards read, a hand sweeps them away, the zone empty again; its
    # look is taken afresh there (the light may have changed meanwhile)
    dimmer = relight(wood, "dim", np.random.default_rng(2))
    played = zone_picture(_bgr(decks[0].cards["S5"]), wood, 0.0)
    look = EmptyLook()
    look("S-play", 0.0, wood, 0, ZoneRead())
    look("S-play", 1.0, played, 0, ZoneRead([CardRead("S5", 0.9, (0, 0, 1, 1), ())]))
    assert look("S-play", 2.0, played, 0, ZoneRead(hand=True)).unread is False     # left alone
    assert look("S-play", 3.0, dimmer, 0, ZoneRead()).unread is False
    # then a card laid face down there is new
    face_down = zone_picture(_bgr(decks[0].back), dimmer, 25.0)
    assert look("S-play", 4.0, face_down, 0, ZoneRead()).unread is True


def test_the_smallest_patch_is_checked():
    for bad in (0.0, -1.0, 11.0, float("nan")):
        with pytest.raises(ValueError, match="min_card"):
            EmptyLook(bad)
