"""What the detector boxes on real photographs that is no card's index of its own:
a card's pips boxed large, a face card's other two corners read as a joker, and
a four-corner card's top-right index seen skewed by a tilted view."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

import vision.reading.detector as detector_module
from referee.settings import Settings
from vision.reading.classes import JOKERS
from vision.reading.detector import SURE
from vision.reading.pairing import CardRead, IndexDetection
from vision.training.real_piles import phone_photographs, read_as_zone

REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def test_a_cards_pips_boxed_as_one_large_index_are_not_a_card(detector, monkeypatch, watch):
    # EdjeElectronics' IMG_2432 (Apache-2.0, tests/data/real/edje_more): a ten of clubs
    # turned about 20 degrees; the turned read boxes its pips, two to three times an
    # index's height, and names them: C4 (0.85) with the classifier shipped before
    # session 60, without the rule a four that is not there; CQ with the one shipped
    # since, too unsurely to count even without the rule
    from benchmarks.bench_real_photos import load, read_photo

    folder = REAL / "edje_more"
    path, boxes = folder / "images" / "test" / "IMG_2432.JPG", load(folder, "test")["IMG_2432.JPG"]
    calls = watch(detector_module, "_oversized")
    assert read_photo(detector, path, boxes) == ["CT"]
    dropped = [(d.name, d.box[3] - d.box[1], size[1]) for (d, size), out in calls if out]
    large = {name for name, tall, index_tall in dropped if tall > 2 * index_tall}
    assert large - {"CT"}, dropped
    monkeypatch.setattr(detector_module, "_oversized", lambda d, size: False)
    assert set(read_photo(detector, path, boxes)) <= large | {"CT"}


def test_an_oversized_box_is_told_by_the_zones_own_index_size():
    box = lambda w, h: IndexDetection("S9", 0.9, (10, 10, 10 + w, 10 + h))     # noqa: E731
    assert detector_module._oversized(box(60, 60), (30, 30))
    assert not detector_module._oversized(box(30, 90), (30, 30))     # a joker's tall strip: tall only
    assert not detector_module._oversized(box(50, 50), (30, 30))     # a box mapped back from a turned read
    assert not detector_module._oversized(box(90, 90), (0.0, 0.0))   # no index read: nothing to compare
    assert not detector_module._oversized(IndexDetection("HAND", 0.9, (0, 0, 300, 300)), (30, 30))


def _five_diamonds():
    # the phone set's IMG_20220316_165755 (CC BY 4.0, tests/data/real/phone_more): five
    # diamonds on a sofa, a four-corner deck, seen from a tilted phone
    [(path, labels)] = [p for p in phone_photographs(REAL / "phone_more") if "165755" in p[0].name]
    return cv2.imread(str(path)), labels


def test_a_turned_queens_other_corners_are_not_a_joker(detector):
    # the queen lying turned shows its top-right and bottom-left indices: the
    # classifier shipped before 2026-12-07 read them together as a sure 大王
    # (0.98), which _other_diagonal_dropped took out (that rule's picture is now a
    # generated fan, tests/vision/test_four_corners.py); the classifier shipped
    # since names neither corner a joker
    picture, labels = _five_diamonds()
    read = read_as_zone(detector, picture, labels)[1]
    assert {"D9", "DJ", "DK", "DQ", "DT"} <= set(read.names) and not set(read.names) & set(JOKERS)


def test_the_five_diamonds_seen_from_a_tilted_phone_are_five_cards(detector, monkeypatch):
    # the jack's top-right index, skewed by the tilted view past the square-corner
    # test (83 degrees), lies at its top-right spot, 0.4 of an index's height away:
    # the jack's own print, not a second jack (the classifier shipped before
    # 2026-12-07 left that index unnamed; those shipped since name it DJ).  The
    # classifier shipped in session 57 also reads a lone corner of the turned queen
    # as HQ, unsurely: the referee is asked about the play
    picture, labels = _five_diamonds()
    read = read_as_zone(detector, picture, labels)[1]
    sure = sorted(c.name for c in read.cards if c.confidence >= SURE)
    assert sure == ["D9", "DJ", "DK", "DQ", "DT"] and read.confidence < Settings().min_confidence
    monkeypatch.setattr(detector_module, "_within_corners_of", lambda card, cards: False)
    sure = sorted(c.name for c in read_as_zone(detector, picture, labels)[1].cards if c.confidence >= SURE)
    assert sure == ["D9", "DJ", "DJ", "DK", "DQ", "DT"]


def test_a_joker_crossing_a_card_along_its_first_diagonal_is_kept():
    at = lambda n, x, y: IndexDetection(n, 0.9, (x - 8, y - 16, x + 8, y + 16))     # noqa: E731
    dq = CardRead("DQ", 0.98, (0, 0, 1, 1), (at("DQ", 100, 100), at("DQ", 180, 200)))
    # the other diagonal of dq: dropped
    crossing = CardRead("LJ", 0.99, (0, 0, 1, 1), (at("LJ", 180, 100), at("LJ", 100, 200)))
    assert [c.name for c in detector_module._other_diagonal_dropped([dq, crossing])] == ["DQ"]
    # a joker lying elsewhere, or one read from one corner, or a face card's two corners there: kept
    away = CardRead("LJ", 0.99, (0, 0, 1, 1), (at("LJ", 380, 100), at("LJ", 300, 200)))
    lone = CardRead("LJ", 0.99, (0, 0, 1, 1), (at("LJ", 180, 100),))
    face = CardRead("S5", 0.99, (0, 0, 1, 1), (at("S5", 180, 100), at("S5", 100, 200)))
    for other in (away, lone, face):
        assert len(detector_module._other_diagonal_dropped([dq, other])) == 2


@pytest.mark.xfail(strict=True, reason="the classifier shipped in session 60 reads the eight's bottom-left index "
                                       "instead of its top-right, its corner's cosine 0.103, just past the square "
                                       "test (0.1), so the loose test is not taken: a C8 more, the play asked "
                                       "about (its six read at 0.65)")
def test_a_four_corner_cards_skewed_corner_seen_from_a_tilted_phone_is_not_a_card_more(detector, monkeypatch):
    # the phone set's IMG_20220316_171757 (CC BY 4.0, tests/data/real/phone_more): the
    # five to eight of clubs in a row turned about 20 degrees on a white table, seen
    # from a tilted phone; the eight's top-right index makes a corner with its two read
    # corners past the pairing's square-corner test (IMG_20220316_144445, the hearts
    # beside it, showed this until session 57: the classifier shipped since names that
    # five's skewed corner otherwise; test_the_hearts_seen_from_a_tilted_phone_are_read_exactly)
    photo, cards, twice = "171757", ["C5", "C6", "C7", "C8"], "C8"
    [(path, labels)] = [p for p in phone_photographs(REAL / "phone_more") if photo in p[0].name]
    read = read_as_zone(detector, cv2.imread(str(path)), labels)[1]
    assert sorted(read.names) == cards
    monkeypatch.setattr(detector_module, "FOUR_CORNER_LOOSE", detector_module.FOUR_CORNER_SQUARE)
    assert sorted(read_as_zone(detector, cv2.imread(str(path)), labels)[1].names) == sorted(cards + [twice])


def test_the_hearts_seen_from_a_tilted_phone_are_read_exactly(detector):
    # IMG_20220316_144445 (see above): the five to eight of hearts, a four-corner deck
    [(path, labels)] = [p for p in phone_photographs(REAL / "phone_more") if "144445" in p[0].name]
    assert sorted(read_as_zone(detector, cv2.imread(str(path)), labels)[1].names) == ["H5", "H6", "H7", "H8"]
