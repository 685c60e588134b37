"""Something laid that the reader names nothing (vision.reading.laid), on a real wooden surface.

The wood is Debian's (mate-backgrounds, GPL-2+: vision.training.real_surfaces);
the cards are gnome-cards-data's, laid face down (their back), or face up
with the classifier made blind (no name sure enough), as a deck it does not
know would read.  The reads are the shipped models'.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.reading.detector import CardRead, ZoneRead
from vision.reading.laid import ABSORB_S, EmptyLook
from vision.reading.table import ZONE_PX
from vision.training.card_faces import zone_picture
from vision.training.real_surfaces import LIGHTS, relight

from tests.vision.conftest import wood_top


@pytest.fixture(scope="module")
def wood():
    return wood_top(3)


def _bgr(art):
    return cv2.cvtColor(art, cv2.COLOR_BGRA2BGR)


def _marked(detector, empty, now):
    """The read of ``now``, and it as marked after the zone was seen as ``empty``."""
    first, then = detector.read_zones([empty, now], detector.imgsz / max(ZONE_PX), 0)
    look = EmptyLook()
    assert look("S-play", 0.0, empty, 0, first).unread is False
    return then, look("S-play", 0.1, now, 0, then)


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
