"""The shipped model on generated zone pictures: exact cards, in order."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from commands import main
from vision.reading.detector import CardDetector, DetectorError
from tests.vision.test_pairing import PLAYS

@pytest.mark.parametrize("name", list(PLAYS))
def test_typical_plays_are_read_exactly(gen, decks, detector, name):
    cards = PLAYS[name]
    for i, deck in enumerate(decks):
        rng = np.random.default_rng([len(cards), i, 7])
        scene = gen.render(cards, rng, deck=deck, card_width=0.17, clean=True)
        assert detector.read_zone(scene.image).names == cards, deck.name


def test_heavy_fan_of_identical_pairs(gen, decks, detector):
    cards = ["S6", "S6", "H6", "H6", "D6", "D6", "C6", "C6"]
    for i, deck in enumerate(decks):
        rng = np.random.default_rng([8, i])
        scene = gen.render(cards, rng, deck=deck, spacing=0.2 if deck.index_box[2] < 0.17 else 0.25,
                           card_width=0.17, clean=True)
        assert detector.read_zone(scene.image).names == cards, deck.name


def test_camera_effects_most_plays_exact(gen, decks, detector):
    """Blur, noise, glare, tilt: at least 80 % of 30 readable plays exact."""
    from vision.training.synth import random_play
    ok = total = 0
    for i in range(40):
        rng = np.random.default_rng([31, i])
        scene = gen.render(random_play(rng), rng, deck=decks[i % 2])
        if scene.readable and total < 30:
            total += 1
            ok += detector.read_zone(scene.image).names == scene.cards
    assert ok / total >= 0.8, f"{ok}/{total}"


def test_empty_zone_reads_empty(gen, detector, rng):
    scene = gen.render([], rng)
    read = detector.read_zone(scene.image)
    assert read.names == [] and read.confidence == 1.0


@pytest.fixture(scope="module")
def boxes_alone() -> CardDetector:
    """Hands said by the detector's own boxes (no second stage): the drawn
    hands it learnt.  (Real hands, MediaPipe's models: test_hand_landmarks.py.)"""
    return CardDetector(threads=1, hand_model=False, hand_landmarks=False)


def test_drawn_hands_are_boxed(decks, boxes_alone):
    from vision.training.synth import SceneGenerator
    g = SceneGenerator(decks, hand_rate=1.0, empty_rate=0.0)
    seen = sum(boxes_alone.read_zone(g.random_scene(np.random.default_rng([5, i])).image).hand for i in range(10))
    assert seen >= 7


def test_not_a_picture(detector):
    with pytest.raises(DetectorError, match="BGR colour picture"):
        detector.detect_indices(np.zeros((10, 10), np.uint8))


def test_missing_model_is_named(tmp_path):
    with pytest.raises(DetectorError, match="card model not found"):
        CardDetector(tmp_path / "none.onnx")


def test_corrupt_model_is_named(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(DetectorError, match="cannot load card model"):
        CardDetector(bad)


def test_recognize_command_prints_the_cards(gen, decks, tmp_path, capsys):
    scene = gen.render(["D3", "D3", "CK"], np.random.default_rng(3), deck=decks[0], card_width=0.17, clean=True)
    p = tmp_path / "zone.png"
    cv2.imwrite(str(p), scene.image)
    assert main(["recognize", str(p)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["card"] for c in out["cards"]] == ["D3", "D3", "CK"]
    assert all(0 < c["confidence"] <= 1 and len(c["box"]) == 4 for c in out["cards"])


def test_recognize_rejects_a_non_picture(tmp_path, capsys):
    p = tmp_path / "x.png"
    p.write_text("hello")
    assert main(["recognize", str(p)]) == 2
    assert "not a readable picture" in capsys.readouterr().err


def test_a_model_with_other_classes_is_named(tmp_path):
    """A detector with a class per face (the old design) is refused with the reason."""
    onnx = pytest.importorskip("onnx", reason="onnx comes with the train extra")
    from onnx import TensorProto, helper

    out = np.zeros((1, 4 + 55, 10), np.float32)
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["output0"], value=onnx.numpy_helper.from_array(out))],
        "old", [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, 320, 320])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, [1, 59, 10])])
    path = tmp_path / "old.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    with pytest.raises(DetectorError, match="has 55 classes, expected 2"):
        CardDetector(path)


def test_zones_read_together_equal_zones_read_one_by_one(gen, decks, detector):
    """One batched run for a table's zones gives each zone the read it gets alone."""
    rng = np.random.default_rng(77)
    scenes = [gen.render(cards, rng, deck=decks[k % 2]) for k, cards in
              enumerate((["S5", "S5", "H5"], ["C3", "D4", "S5", "H6", "C7"], [], ["BJ", "BJ", "LJ", "LJ"]))]
    together = detector.read_zones([s.image for s in scenes])
    alone = [detector.read_zone(s.image) for s in scenes]
    assert [r.names for r in together] == [r.names for r in alone] == [s.cards for s in scenes]
    for a, b in zip(together, alone):
        assert [c.confidence for c in a.cards] == pytest.approx([c.confidence for c in b.cards], abs=1e-4)
    assert detector.read_zones([]) == []


def test_zones_go_in_as_rectangles_not_padded_squares(detector):
    """The shipped model takes any size: a 640x448 zone is fed at 320x224."""
    from vision.reading.detector import input_size
    from vision.reading.table import ZONE_PX

    assert detector.fixed_size is None and detector.batches
    assert input_size(ZONE_PX, detector.imgsz) == (320, 224)
    assert input_size((448, 640), 320) == (224, 320)
    assert input_size((1000, 100), 320) == (320, 32)


def test_a_bad_picture_among_zones_is_named(detector, gen, rng):
    good = gen.render(["S5"], rng).image
    with pytest.raises(DetectorError, match="BGR colour picture"):
        detector.read_zones([good, np.zeros((10, 10), np.uint8)])


# -- zones read with the cloth around them (vision.reading.table.ZONE_MARGIN_MM) --------

def test_a_card_pushed_past_the_zone_line_is_read_from_the_margin(detector):
    """A held-out scene whose last card lies past the zone's edge: unreadable
    in the zone's own picture, read exactly with the cloth around it."""
    from vision.reading.table import ZONE_MARGIN_MM, ZONE_PX, Zone
    from vision.training.card_art import HELD_OUT_DECKS, load_decks
    from vision.training.synth import CLOTH_HELD_OUT, SceneGenerator, play_for_deck

    gen = SceneGenerator(load_decks(HELD_OUT_DECKS), cloth=CLOTH_HELD_OUT, hand_rate=0.0)
    m = Zone.margin_px(ZONE_MARGIN_MM)
    scenes = []
    deck = gen.decks[38 % len(gen.decks)]
    for margin in (0, m):
        rng = np.random.default_rng([555, 38])      # as benchmarks/bench_vision.py draws a play
        cards = play_for_deck(rng, deck)
        scenes.append(gen.render(cards, rng, deck=deck, margin=margin))
    alone, with_margin = scenes
    assert not alone.readable and with_margin.readable
    assert detector.read_zone(alone.image).names != alone.cards
    read = detector.read_zones([with_margin.image], detector.imgsz / max(ZONE_PX), m)[0]
    assert read.names == with_margin.cards


def test_cards_whose_centre_lies_in_the_margin_belong_to_a_neighbour(gen, decks, detector):
    scene = gen.render(["S5", "H9", "CK"], np.random.default_rng(0), deck=decks[0], spacing=1.1,
                       card_width=0.2, clean=True)
    raw = detector.read_zones([scene.image])[0]
    assert raw.names == ["S5", "H9", "CK"]
    # every card's centre lies between its corner indices
    for card in raw.cards:
        boxes = np.array([d.box for d in card.indices])
        assert boxes[:, 0].min() < card.centre[0] < boxes[:, 2].max()
        assert boxes[:, 1].min() < card.centre[1] < boxes[:, 3].max()
    # a margin reaching just past the first card's centre leaves that card out
    h, w = scene.image.shape[:2]
    m = int(raw.cards[0].centre[0]) + 3
    assert all(m <= c.centre[0] <= w - m and m <= c.centre[1] <= h - m for c in raw.cards[1:])
    assert detector.read_zones([scene.image], None, m)[0].names == ["H9", "CK"]


def test_a_drawn_hand_boxed_only_in_the_margin_does_not_cover_the_zone(gen, decks, boxes_alone):
    scene = gen.render(["S5"], np.random.default_rng(3), deck=decks[0], clean=True, hand=True)
    hand, = [d for d in boxes_alone.find_boxes(scene.image) if d.name == "HAND"]   # fingers from the right edge
    x0 = hand.box[0]
    assert hand.box[2] > scene.image.shape[1] - 10 and boxes_alone.read_zones([scene.image])[0].hand
    w = scene.image.shape[1]
    assert boxes_alone.read_zones([scene.image], None, int(w - x0) - 10)[0].hand       # reaches into the zone
    assert not boxes_alone.read_zones([scene.image], None, int(w - x0) + 5)[0].hand    # only over the margin


def test_a_surface_of_parallel_lines_does_not_hide_the_card(gen, detector):
    """Boards or a cloth's weave at an angle suggest a turned zone (the
    orientation finds their lines); a read of that turn finding nothing must
    not win over the card read as it lies (``vision.reading.detector.surest``)."""
    from vision.reading.orientation import turn_angles
    from vision.reading.table import ZONE_PX

    h, w = ZONE_PX[1], ZONE_PX[0]
    yy, xx = np.mgrid[0:h, 0:w]
    t = np.radians(36)
    grain = (150 + 40 * np.sign(np.sin((xx * np.sin(t) + yy * np.cos(t)) / 6.0))).astype(np.float32)
    board = np.dstack([grain * 0.8, grain * 0.9, grain]).astype(np.uint8)
    for deck in gen.decks:
        scene = gen.render(["H8"], np.random.default_rng(3), deck=deck, clean=True, background=board.copy())
        assert turn_angles(scene.image, 0, detector.turn_from, detector.own_turns).whole     # the lines are taken for a turn
        assert detector.read_zones([scene.image], detector.imgsz / max(ZONE_PX), 0)[0].names == ["H8"]


def test_plays_of_a_deck_drawn_by_another_hand_are_read_exactly(detector):
    """KDE's standard deck, never trained on (vision.training.card_art.UNSEEN_DECKS):
    the benchmark's first plays of it, read as the table watcher reads a zone."""
    from vision.reading.table import ZONE_MARGIN_MM, ZONE_PX, Zone
    from vision.training.card_art import load_decks
    from vision.training.synth import held_out_scenes

    m = Zone.margin_px(ZONE_MARGIN_MM)
    scenes = [scene for _, _, scene in held_out_scenes(8, 424242, m, decks=load_decks(["kde-standard"]))]
    assert sum(len(s.cards) for s in scenes) >= 20
    reads = detector.read_zones([s.image for s in scenes], detector.imgsz / max(ZONE_PX), m)
    assert [r.names for r in reads] == [s.cards for s in scenes]
