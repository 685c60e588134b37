"""The single-card-faces set: its folder names, the pictures laid as a zone, and the benchmark's figures.

The real set is not in the repository (measured only, see
vision/training/card_faces.py); these tests build a folder of the same
shape from the test decks' rendered faces."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from benchmarks.bench_card_faces import measure
from vision.training.card_faces import JOKER, CardFacesError, face_code, face_pictures, zone_picture

FOLDERS = {"ace of hearts": "HA", "seven of clubs": "C7", "queen of spades": "SQ", "ten of diamonds": "DT"}


def _fake_set(root, deck, split="test", jokers=("BJ",)):
    """The set's layout: faces/dataset/SPLIT/FOLDER/N.jpg, each card cut to
    its edges and squeezed to 224x224 as the set's pictures are."""
    for folder, code in {**FOLDERS, **({"joker": jokers[0]} if jokers else {})}.items():
        d = root / "faces" / "dataset" / split / folder
        d.mkdir(parents=True)
        face = deck.cards[code]
        white = np.full(face.shape[:2] + (3,), 255, np.uint8)
        alpha = face[..., 3:4] / 255.0
        bgr = (face[..., :3] * alpha + white * (1 - alpha)).astype(np.uint8)
        cv2.imwrite(str(d / "1.jpg"), cv2.resize(bgr, (224, 224), interpolation=cv2.INTER_AREA))


def test_folder_names_are_card_codes():
    assert [face_code(f) for f in FOLDERS] == list(FOLDERS.values())
    assert face_code("joker") == JOKER
    for bad in ("ace of cups", "eleven of hearts", "ace hearts", ""):
        with pytest.raises(CardFacesError):
            face_code(bad)


def test_a_split_lists_its_pictures_with_their_faces(tmp_path, decks):
    _fake_set(tmp_path, decks[0])
    got = sorted((p.face, p.path.name) for p in face_pictures(tmp_path, "test"))
    assert got == sorted([(c, "1.jpg") for c in FOLDERS.values()] + [(JOKER, "1.jpg")])
    with pytest.raises(CardFacesError, match="not found"):
        face_pictures(tmp_path, "train")
    with pytest.raises(CardFacesError, match="unknown split"):
        face_pictures(tmp_path, "all")


def test_a_face_is_laid_turned_in_the_middle_of_the_surface():
    face = np.full((224, 224, 3), 200, np.uint8)
    surface = np.zeros((448, 640, 3), np.uint8)
    upright, turned = zone_picture(face, surface), zone_picture(face, surface, 90.0)
    ys, xs = np.nonzero(upright[..., 0])
    assert abs((xs.min() + xs.max()) / 2 - 320) <= 1 and abs((ys.min() + ys.max()) / 2 - 224) <= 1
    ys2, xs2 = np.nonzero(turned[..., 0])
    # a quarter turn swaps the card's width and height
    assert abs((xs2.max() - xs2.min()) - (ys.max() - ys.min())) <= 2
    with pytest.raises(CardFacesError):
        zone_picture(face[..., 0], surface)


def test_the_benchmark_reads_each_face_and_counts_what_it_read(tmp_path, decks, detector):
    _fake_set(tmp_path, decks[0])
    reads: list = []
    out = measure(detector, tmp_path, ("test",), (0.0,), per_picture=reads)
    json.dumps(out)
    json.dumps(reads)
    # one read a picture, each its own face, the same counts as the figures
    assert len(reads) == 5 and all(r["angle"] == 0.0 and r["white_stock"] for r in reads)
    assert all((tmp_path / r["picture"]).is_file() and "/test/" in r["picture"] for r in reads)
    assert sum(r["read"] == [r["face"]] or (r["face"] == "JOKER" and len(r["read"]) == 1) for r in reads) == 5
    assert all(0 <= r["confidence"] <= 1 and r["asked"] == (r["confidence"] < 0.8) for r in reads)
    figures = out["turned 0 degrees"]["all"]
    assert out["pictures"] == 5 and out["turned 0 degrees"]["white card stock"]["pictures"] == 5
    assert figures["exact"] == 1.0 and figures["rank_right_of_cards"] == 1.0
    assert figures["phantom_jokers"] == "0 of 4" and figures["jokers_read"] == "1 of 1"
    assert figures["nothing_read"] == 0.0 and figures["more_than_one_card"] == 0
    assert figures["wrong_and_not_asked"] == 0 and figures["phantom_jokers_not_asked"] == 0
