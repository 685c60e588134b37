"""Jokers printed with their Chinese names, 大王 and 小王.

Many Chinese decks print each joker's corner as its name, one character
under the other: 大王 (the big joker, in colour) and 小王 (the little one,
in black).  The shipped classifier never saw them: the one shipped before
session 57 read the big joker's mostly, the little joker's mostly not
(models/MODEL_CARD.md, "Jokers printed 大王 and 小王": 3 % of generated joker
fans exact, 70 % with the decks' own jokers); the one shipped since session
60 reads every play here without help.  A venue whose deck prints them
enrolls it (``guandan-ref enroll-deck``) or names the profile shipped for
such decks (``[[camera]] deck = "hanzi-jokers"``, models/hanzi-jokers.npz),
which reads them all.  The decks are the test decks with their jokers
printed so (:func:`vision.training.joker_art.hanzi_joker_deck`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np
import pytest

from commands.args import deck_profile
from table_node.config import ConfigError, parse_config
from vision.reading.classes import JOKERS
from vision.reading.deck_profile import SHIPPED_PROFILES, DeckProfile, DeckProfileError
from vision.reading.detector import CardDetector
from vision.reading.index_classifier import FLOAT_MODEL
from vision.reading.runtime import file_sha256
from vision.reading.table import ZONE_MARGIN_MM, ZONE_PX, Zone
from vision.training.card_art import HELD_OUT_DECKS, four_corner_deck, load_decks
from vision.training.joker_art import hanzi_joker_deck
from vision.training.real_piles import phone_photographs, read_as_zone
from vision.training.synth import turned_scenes

REAL = Path(__file__).resolve().parents[1] / "data" / "real"

# read without the profile by the classifier shipped since session 60 (2026-12-07), the bomb of
# four too (the classifier shipped before it did not read that one; before session 57, the pair
# was read and S3 LJ H3 was not)
READ = [["BJ"], ["DK", "BJ", "CK", "HK"], ["S3", "LJ", "H3"], ["BJ", "BJ"], ["LJ"], ["BJ", "BJ", "LJ", "LJ"]]


@pytest.fixture(scope="module")
def hanzi_decks(decks):
    return [hanzi_joker_deck(d, seed) for d in decks if "BJ" in d.cards for seed in (1, 2)]


def _read_as_laid(gen, detector, hanzi_decks, cards) -> None:
    for k, deck in enumerate(hanzi_decks):
        rng = np.random.default_rng([len(cards), k, 37])
        scene = gen.render(cards, rng, deck=deck, spacing=0.6, clean=True)
        read = detector.read_zones([scene.image], detector.imgsz / max(ZONE_PX), 0)[0]
        assert read.names == cards, (deck.name, k)


@pytest.mark.parametrize("cards", READ, ids=lambda c: " ".join(c))
def test_jokers_named_in_chinese_are_read_in_these_plays(gen, detector, hanzi_decks, cards):
    _read_as_laid(gen, detector, hanzi_decks, cards)


@pytest.mark.parametrize("cards", READ, ids=lambda c: " ".join(c))
def test_the_shipped_hanzi_jokers_profile_reads_both_jokers(gen, hanzi_reader, hanzi_decks, cards):
    _read_as_laid(gen, hanzi_reader, hanzi_decks, cards)


def test_the_shipped_profile_fits_the_shipped_classifier_and_has_its_own_curve():
    # a classifier retrained without the profile made again fails here, not at a venue
    profile = DeckProfile.load(SHIPPED_PROFILES["hanzi-jokers"], FLOAT_MODEL)
    assert profile.classifier_sha256 == file_sha256(FLOAT_MODEL)
    assert profile.confidence_calibration() is not None


def test_the_profile_reads_real_court_cards_as_the_shipped_reader_does_and_no_joker(detector, hanzi_reader):
    # EdjeElectronics' test photographs in tests/data/real (Apache-2.0): court cards among others
    from benchmarks.bench_real_photos import load, read_photo
    for folder in (REAL / "edje", REAL / "edje_more"):
        for name, boxes in sorted(load(folder, "test").items()):
            path = folder / "images" / "test" / name
            read = read_photo(hanzi_reader, path, boxes)
            assert not set(read) & set(JOKERS), name
            assert sorted(read) == sorted(read_photo(detector, path, boxes)), name


@pytest.mark.xfail(strict=True, reason="with the classifier shipped in session 60 the profile reads the queen "
                                       "from one corner again and her other two as a 大王 (the play is asked about)")
def test_the_profile_reads_no_joker_in_a_queen_lying_turned(hanzi_reader):
    # the phone set's IMG_20220316_165755 (CC BY 4.0, tests/data/real/phone_more): the
    # classifier shipped before session 57 read the queen's other corners as a 大王, and
    # with the profile kept one of her two indices, so the rule that drops a joker
    # read along a card's other diagonal found no diagonal (an expected failure here
    # until then); with the one shipped in session 57, the profile read the five exactly;
    # with the one shipped since session 60 it reads them as before session 57, the
    # 大王 left out of the read's confidence (0.19: the referee is asked)
    [(path, labels)] = [p for p in phone_photographs(REAL / "phone_more") if "165755" in p[0].name]
    assert sorted(read_as_zone(hanzi_reader, cv2.imread(str(path)), labels)[1].names) == \
        ["D9", "DJ", "DK", "DQ", "DT"]


def test_a_table_config_and_the_commands_name_the_shipped_profile(tmp_path):
    cam = {"source": "0", "geometry": "t.json"}
    cfg = parse_config({"table": {"id": "T01"}, "camera": [{**cam, "deck": "hanzi-jokers"}]}, tmp_path)
    assert cfg.cameras[0].deck == SHIPPED_PROFILES["hanzi-jokers"]
    with pytest.raises(ConfigError, match="hanzi-joker .*does not exist"):     # a name that is not shipped
        parse_config({"table": {"id": "T01"}, "camera": [{**cam, "deck": "hanzi-joker"}]}, tmp_path)
    assert deck_profile("hanzi-jokers") == str(SHIPPED_PROFILES["hanzi-jokers"])
    with pytest.raises(argparse.ArgumentTypeError, match="does not exist"):
        deck_profile("hanzi-joker")


def test_the_bench_reads_the_hanzi_decks_with_the_shipped_profile_side_by_side(detector, hanzi_reader):
    from benchmarks.bench_vision import joker_sections
    out = joker_sections(detector, 1, 424242)["hanzi_joker_decks"]
    for kind in ("fans", "crooked_cards"):
        assert {"each_cards_own_turn", "with_the_hanzi_jokers_profile"} <= set(out[kind])
        assert "jokers_read" in out[kind]["with_the_hanzi_jokers_profile"]
    # a reader already with a profile (--deck) reads them with that one alone
    assert "with_the_hanzi_jokers_profile" not in joker_sections(hanzi_reader, 1, 424242)["hanzi_joker_decks"]["fans"]


@pytest.mark.parametrize("k, cards", [
    pytest.param(6, ["BJ", "LJ", "LJ"], marks=pytest.mark.xfail(strict=True, reason=(
        "with the classifier shipped in session 60 the profile pairs the last little joker's top-left and "
        "top-right corners (the first box covering the joker beside it too) as a third little joker"))),
    (40, ["H8", "BJ", "LJ"])])
def test_a_four_corner_joker_pushed_in_crooked_is_one_joker(hanzi_reader, k, cards):
    # bench_vision's joker rows (seed 424242) on the held-out decks printed with four corners: the
    # profile read each joker's other two corners as a second joker of its name, until a card read
    # across another of its own name, middle on middle, counted once
    margin = Zone.margin_px(ZONE_MARGIN_MM)
    decks = [four_corner_deck(d) for d in load_decks(HELD_OUT_DECKS)]
    scene = next(s for i, (_, _, s) in enumerate(turned_scenes(50, 424242, "crooked_cards", margin, decks=decks,
                                                               jokers=True)) if i == k)
    assert scene.cards == cards
    assert hanzi_reader.read_zones([scene.image], hanzi_reader.imgsz / max(ZONE_PX), margin)[0].names == cards


@pytest.fixture(scope="module")
def enrolled_from_hanzi(hanzi_decks, tmp_path_factory):
    """One test deck printing 大王 / 小王, enrolled from single photos starting at the shipped profile."""
    from commands import main
    from vision.training.deck_photos import write_single_photos
    folder = tmp_path_factory.mktemp("hanzi-deck")
    photos = write_single_photos(hanzi_decks[0], folder, np.random.default_rng(5))
    out = folder / "deck.npz"
    assert main(["enroll-deck", *map(str, photos), "--out", str(out), "--start", "hanzi-jokers",
                 "--variants", "6", "--calibration-rows", "40", "-q"]) == 0
    return out


# (enrolled on the classifier shipped in session 57, the profile read a card more, H9, beside
# the lone 小王: an expected failure until the one shipped in session 60)
@pytest.mark.parametrize("cards", [["BJ", "BJ"], ["BJ", "BJ", "LJ", "LJ"], ["LJ"]], ids=lambda c: " ".join(c))
def test_a_deck_printing_them_enrolled_from_the_shipped_profile_reads_its_little_jokers(gen, hanzi_decks,
                                                                                       enrolled_from_hanzi, cards):
    profile = DeckProfile.load(enrolled_from_hanzi, FLOAT_MODEL)
    assert profile.meta["start"] == DeckProfile.load(SHIPPED_PROFILES["hanzi-jokers"]).name
    assert not profile.none_gate          # the shipped head's NONE takes most 小王 corners for no index
    reader = CardDetector(threads=2, deck=enrolled_from_hanzi)
    _read_as_laid(gen, reader, hanzi_decks[:1], cards)


def test_enrolling_from_a_profile_made_for_another_classifier_is_refused(tmp_path):
    from vision.reading.enroll import enroll
    other = DeckProfile.load(SHIPPED_PROFILES["hanzi-jokers"])
    other.classifier_sha256 = "0" * 64
    with pytest.raises(DeckProfileError, match="made for another index classifier"):
        enroll(CardDetector(threads=1), {}, "deck", start=other)
