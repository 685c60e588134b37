"""The real-piles benchmark's two sets: their class names, their folders, and
a photograph squeezed as the phone set's export squeezed them, read back.

The real sets are not in the repository (measured only, see
benchmarks/bench_real_piles.py); these tests build a folder of the phone
set's shape from a test deck's rendered faces."""

from __future__ import annotations

import doctest
import json

import cv2
import numpy as np
import pytest

import benchmarks.bench_real_piles as piles
from benchmarks.bench_real_piles import SET_NAMES, face, measure, phone_photographs
from vision.training.real_piles import CARD_PX, PHONE_ASPECT, PHONE_DIR, phone_face, zone_picture
from vision.reading.classes import CARD_NAMES

# the phone set's class names, in its data.yaml's order (its "jack  of clubs" with two spaces too)
PHONE_NAMES = [f"{r} of {s}" for r in ("10", "2", "3", "4", "5", "6", "7", "8", "9", "ace", "jack", "king", "queen")
               for s in ("clubs", "diamonds", "hearts", "spades")]
PHONE_NAMES[PHONE_NAMES.index("jack of clubs")] = "jack  of clubs"


def test_the_module_examples_hold():
    assert doctest.testmod(piles).failed == 0


def test_each_set_names_every_card_once_in_the_referees_codes():
    ccml = [face(n) for n in SET_NAMES]
    assert sorted(c for c in ccml if c) == sorted(CARD_NAMES) and ccml.count(None) == 1
    phone = [phone_face(n) for n in PHONE_NAMES]
    assert len(set(phone)) == 52 and set(phone) == set(CARD_NAMES) - {"BJ", "LJ"}


def _phone_set(root, deck, faces=("HA", "C7", "SQ"), split="test", name="IMG_1", mirror=False):
    """One photograph as the phone set holds them: a 4:3 picture of cards lying
    apart, squeezed to 640x640, with a box on each card (``mirror``: the
    picture and its boxes mirrored, as the export's training copies may be)."""
    h, w = 600, 800
    photo = np.full((h, w, 3), (70, 110, 150), np.uint8)          # a brown cloth
    lines = []
    for k, code in enumerate(faces):
        card = cv2.resize(deck.cards[code], (134, 188), interpolation=cv2.INTER_AREA)   # 2.13 px/mm
        x, y = 120 + 200 * k, 200
        alpha = card[..., 3:4] / 255.0
        region = photo[y:y + 188, x:x + 134]
        region[:] = (card[..., :3] * alpha + region * (1 - alpha)).astype(np.uint8)
        cls = [phone_face(n) for n in PHONE_NAMES].index(code)
        lines.append(f"{cls} {(x + 67) / w} {(y + 94) / h} {134 / w} {188 / h}")
    if mirror:
        photo = cv2.flip(photo, 1)
        lines = [" ".join([c, str(1 - float(x)), *rest]) for c, x, *rest in (line.split() for line in lines)]
    for each in ("valid", "test", split):
        (root / PHONE_DIR / each / "images").mkdir(parents=True, exist_ok=True)
        (root / PHONE_DIR / each / "labels").mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(root / PHONE_DIR / split / "images" / f"{name}.jpg"), cv2.resize(photo, (640, 640)))
    (root / PHONE_DIR / split / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n")
    (root / PHONE_DIR / "data.yaml").write_text(f"nc: 52\nnames: {PHONE_NAMES!r}\n")


def test_a_phone_folder_lists_its_photographs_with_their_faces(tmp_path, decks):
    _phone_set(tmp_path, decks[0])
    [(path, labels)] = phone_photographs(tmp_path)
    assert path.name == "IMG_1.jpg" and [f for f, _, _ in labels] == ["HA", "C7", "SQ"]
    assert all(bw == pytest.approx(134 / 800) and bh == pytest.approx(188 / 600) for _, bw, bh in labels)


def test_a_folder_without_its_class_names_is_refused_with_the_reason(tmp_path):
    with pytest.raises(SystemExit, match="no class names"):
        phone_photographs(tmp_path)


def test_a_squeezed_photograph_gets_its_shape_and_scale_back_and_is_read(tmp_path, decks, detector):
    _phone_set(tmp_path, decks[0])
    [(path, labels)] = phone_photographs(tmp_path)
    pic = zone_picture(cv2.imread(str(path)), labels, PHONE_ASPECT, CARD_PX)
    # 4:3 again, each card its 188 px height
    assert pic.shape[1] / pic.shape[0] == pytest.approx(4 / 3, abs=0.01) and pic.shape[0] == pytest.approx(600, abs=2)
    out = measure(detector, tmp_path, "phone", per_photo=True)
    json.dumps(out)
    assert out["photographs"] == 1 and out["cards"] == 3
    assert sorted(out["per_photograph"][0]["read"]) == ["C7", "HA", "SQ"]
    assert out["card_recall"] == 1.0 and out["card_precision"] == 1.0 and out["photographs_exact"] == 1.0
    assert out["cards_read_again"] == 0 and out["phantom_jokers"] == 0
    assert out["recall_taller_boxes"] == "3/3 = 1.000" and out["recall_wider_boxes"] == "0/0 = 0.000"


# -- enrolling the phone set's deck from its training photographs (bench_real_enroll)

def test_training_photographs_give_one_upright_face_per_code_mirrored_copies_undone(tmp_path, decks, detector):
    import benchmarks.bench_real_enroll as enrolling

    assert doctest.testmod(enrolling).failed == 0
    _phone_set(tmp_path, decks[0], ("HA", "C7"), split="train", name="IMG_1")
    _phone_set(tmp_path, decks[0], ("SQ", "D9"), split="train", name="IMG_2", mirror=True)
    faces, found = enrolling.training_faces(tmp_path, detector.classifier)
    assert sorted(faces) == ["C7", "D9", "HA", "SQ"]
    assert found["training_photographs"] == 2 and found["cards_cut_out"] == 4
    assert found["photographs_mirrored_back"] == 1 and found["faces_dropped"] == []
    assert len(found["faces_not_found"]) == 52 - 4
    # each face upright or upside down, as the deck prints it: its index reads its code
    p = enrolling.index_probability(detector.classifier, [faces[c] for c in sorted(faces)], sorted(faces))
    assert (p > 0.5).all(), p


def test_enrolled_and_other_faces_are_counted_apart():
    from benchmarks.bench_real_enroll import recall_split

    rows = [{"truth": ["HA", "C7", "C7"], "read": ["HA", "C7"]}, {"truth": ["SQ"], "read": ["SK"]}]
    assert recall_split(rows, {"C7", "SQ"}) == {"recall_enrolled_faces": "1/3 = 0.333",
                                                 "recall_others_faces": "1/1 = 1.000"}


def test_a_file_that_is_no_deck_profile_is_refused_in_one_line(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    bad = tmp_path / "deck.npz"
    bad.write_text("not a profile")
    script = Path(piles.__file__)
    run = subprocess.run([sys.executable, str(script), "--set", "phone", "--dir", str(tmp_path), "--deck", str(bad)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "is not a deck profile" in run.stderr and "Traceback" not in run.stderr
