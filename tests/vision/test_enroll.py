"""Deck enrollment: photos of a deck never trained on -> a deck profile that
changes reads; bad photos, labels, profiles and configs refused clearly."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from commands import main
from table_node.config import ConfigError, parse_config
from vision.reading.confidence import calibration_for_model, default_calibration
from vision.reading.deck_profile import LABELS, VERSION, DeckProfile, DeckProfileError, file_sha256
from vision.reading.detector import CardDetector, DetectorError
from vision.reading.enroll import (GRID_ORDER, EnrollError, cards_from_photos, find_cards, grid_order,
                                   parse_grid, shipped_head)
from vision.reading.index_classifier import IndexClassifier, shipped_classifier
from vision.reading.table import ZONE_MARGIN_MM, ZONE_PX, Zone, calibrate
from vision.reading.tracker import calibration_for, play_confidence
from vision.reading.watch import TableWatcher
from vision.training.card_art import TRAIN_DECKS, load_deck
from vision.training.deck_photos import grid_photos, write_grid_photos
from vision.training.synth import CLOTH_HELD_OUT, SceneGenerator
from vision.training.synth_table import TablePainter

# A gnome-cards-data deck the models never saw: French court letters (R, D, V
# for K, Q, J) and its own jokers, the case enrollment is for.
UNSEEN = "ancient_french"


@pytest.fixture(scope="module")
def unseen():
    assert UNSEEN not in TRAIN_DECKS
    return load_deck(UNSEEN)


@pytest.fixture(scope="module")
def grid_files(unseen, tmp_path_factory):
    """The deck as a phone would take it: two photos of a 4 x 7 grid, JPEG files."""
    return write_grid_photos(unseen, tmp_path_factory.mktemp("grid"), np.random.default_rng(2), 4, 7)


@pytest.fixture(scope="module")
def enrolled(grid_files, tmp_path_factory):
    out = tmp_path_factory.mktemp("profile") / "french.npz"
    rc = main(["enroll-deck", *map(str, grid_files), "--grid", "4x7", "--out", str(out), "--variants", "6",
               "--calibration-rows", "40", "--name", "ancient french", "-q"])
    assert rc == 0
    return out


def _court_plays(deck, n=10):
    """Plays of court cards and jokers (where the French letters differ), rendered as a camera sees a zone."""
    gen = SceneGenerator([deck], cloth=CLOTH_HELD_OUT, hand_rate=0.0)
    margin = Zone.margin_px(ZONE_MARGIN_MM)
    faces = [s + r for s in "SHDC" for r in "JQK"] + ["BJ", "LJ"]
    scenes = []
    for i in range(n):
        rng = np.random.default_rng([77, i])
        cards = list(rng.choice(faces, size=int(rng.integers(1, 4)), replace=False))
        scenes.append(gen.render(cards, rng, deck=deck, margin=margin))
    return scenes, margin


def test_enrollment_end_to_end_makes_a_profile_that_reads_the_deck_better(enrolled, unseen):
    profile = DeckProfile.load(enrolled, shipped_classifier())
    assert profile.meta["deck"] == "ancient french" and profile.meta["cards"] == 54
    assert profile.meta["detector_found_index"] >= 50
    scenes, margin = _court_plays(unseen)
    shipped, deck = CardDetector(threads=2), CardDetector(threads=2, deck=enrolled)
    scale = shipped.imgsz / max(ZONE_PX)
    before = [r.names for r in shipped.read_zones([s.image for s in scenes], scale, margin)]
    after = [r.names for r in deck.read_zones([s.image for s in scenes], scale, margin)]
    truth = [s.cards for s in scenes]
    exact_before = sum(b == t for b, t in zip(before, truth))
    exact_after = sum(a == t for a, t in zip(after, truth))
    assert before != after
    assert exact_after >= exact_before + 3, (exact_before, exact_after, list(zip(truth, before, after)))


def test_the_profile_carries_its_own_confidence_calibration(enrolled):
    """Enrollment held back rows of the deck's cards, read them with the new
    profile and fitted a curve: a probability that rises with the score."""
    profile = DeckProfile.load(enrolled, shipped_classifier())
    doc = profile.calibration
    assert doc is not None and doc["plays"] == 40 and 0 <= doc["exact"] <= 40
    assert profile.meta["calibration_rows"] == 40
    cal = profile.confidence_calibration()
    raw = np.linspace(0, 1, 101)
    for cards in (1, 3, 8, 27):
        p = np.array([cal(r, cards) for r in raw])
        assert np.all((p > 0) & (p < 1)) and np.all(np.diff(p) >= 0)
    # fitted on the rows: their plays count in its blocks (the knots below them are the shipped curve's)
    assert sum(sum(c["plays"]) for c in doc["curves"].values()) == 40
    assert doc["curves"] != default_calibration().doc["curves"]


def test_the_table_applies_the_profiles_calibration(enrolled, unseen):
    """A table watching with the profile reports each play's confidence
    through the profile's curve, not the shipped one."""
    profile = DeckProfile.load(enrolled, shipped_classifier())
    own, shipped = profile.confidence_calibration(), default_calibration()
    painter = TablePainter(SceneGenerator([unseen], cloth=CLOTH_HELD_OUT, hand_rate=0.0), np.random.default_rng(31))
    empty, _ = painter.frame({}, clean=True)
    laid, _ = painter.frame({"S-play": ["SK", "HQ", "DJ"]}, clean=True)
    watcher = TableWatcher(calibrate(empty), CardDetector(threads=2, deck=enrolled), zones=["S-play"],
                           stable_s=0.2, stable_frames=3)
    assert watcher.trackers["S-play"].calibration.doc == profile.calibration
    events = [e for k in range(5) for e in watcher.process(k * 0.1, laid)]
    (play,) = [e for e in events if e.type == "play"]
    raw, n = play.get("raw_confidence"), len(play.cards)      # the raw score as the event rounds it
    # (SK HQ DJ are no combination: the referee is asked, the curve's value halved)
    assert play.get("doubt") == "no_combination"
    assert play.confidence == pytest.approx(play_confidence(raw, play.cards, own)[0], abs=1e-3)
    assert play.confidence == pytest.approx(own(raw, n) / 2, abs=1e-3)
    assert abs(own(raw, n) - shipped(raw, n)) > 0.01, "the two curves agree here: the test shows nothing"


def test_an_old_profile_without_a_calibration_still_reads_with_the_shipped_curve(enrolled, tmp_path, caplog):
    with np.load(enrolled) as z:
        data = {k: z[k] for k in z.files if k != "calibration"}
    old = tmp_path / "old.npz"
    np.savez(old, **data)
    profile = DeckProfile.load(old, shipped_classifier())
    assert profile.calibration is None and profile.confidence_calibration() is None
    det = CardDetector(threads=1, deck=old)
    with caplog.at_level("WARNING", logger="vision.reading.tracker"):
        assert calibration_for(det) is calibration_for_model(det.model_path)
    assert "no confidence calibration of its own" in caplog.text and "enroll the deck again" in caplog.text
    assert calibration_for(CardDetector(threads=1)) is calibration_for_model(det.model_path)


def test_recognize_and_the_config_take_the_profile(enrolled, grid_files, capsys):
    capsys.readouterr()
    img = grid_files[0].parent / "zone.png"
    scenes, margin = _court_plays(load_deck(UNSEEN), 1)
    cv2.imwrite(str(img), scenes[0].image)
    assert main(["recognize", str(img), "--deck", str(enrolled)]) == 0
    assert "cards" in json.loads(capsys.readouterr().out)
    cfg = parse_config({"table": {"id": "T01"},
                        "camera": [{"source": "0", "geometry": "t.json", "deck": str(enrolled)}]})
    assert cfg.cameras[0].deck == enrolled
    cfg = parse_config({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json"}]})
    assert cfg.cameras[0].deck is None


def test_grid_photos_are_found_in_reading_order(unseen):
    photos = grid_photos(unseen, np.random.default_rng(5), 4, 7)
    assert len(photos) == 2
    quads = find_cards(photos[1], 26)
    assert len(quads) == 26
    ordered = grid_order(quads, 7)
    centres = np.array([q.mean(axis=0) for q in ordered])
    rows = [centres[k:k + 7] for k in range(0, 26, 7)]
    assert all(np.all(np.diff(r[:, 0]) > 0) for r in rows)                       # left to right
    assert all(a[:, 1].max() < b[:, 1].min() for a, b in zip(rows, rows[1:]))    # top row first
    cards, aspect = cards_from_photos([(f"g{k}", p) for k, p in enumerate(photos)], grid=(4, 7))
    assert list(cards) == list(GRID_ORDER) and 1.3 < aspect < 1.6
    assert all(c.shape[1] == 240 and c.shape[0] > 300 for c in cards.values())


def test_the_shipped_head_is_recovered_from_features_and_logits():
    """A profile holding the shipped layer reads as the shipped classifier does."""
    clf = IndexClassifier(threads=1)
    rng = np.random.default_rng(3)
    crops = [rng.integers(0, 256, (48, 32, 3), dtype=np.uint8) for _ in range(400)]
    z, f = clf.logits_and_features(crops)
    w, b = shipped_head(f, z)
    same = DeckProfile(w, b, 1.0, file_sha256(clf.model_path))
    assert np.abs(same.logits(z, f) - z).max() < 1e-2
    assert (same.logits(z, f).argmax(1) == z.argmax(1)).all()


@pytest.mark.parametrize("text", ["4", "0x5", "axb", "21x2"])
def test_bad_grids(text):
    with pytest.raises(EnrollError):
        parse_grid(text)


def _profile(tmp_path, **change) -> Path:
    clf = IndexClassifier(threads=1)
    p = DeckProfile(np.zeros((len(LABELS), clf.features), np.float32), np.zeros(len(LABELS), np.float32),
                    0.5, file_sha256(clf.model_path), meta={"deck": "test"})
    path = tmp_path / "p.npz"
    p.save(path)
    if change:
        with np.load(path) as z:
            data = {k: z[k] for k in z.files}
        data.update(change)
        np.savez(path, **data)
    return path


def test_a_saved_profile_leaves_no_temp_file(tmp_path):
    _profile(tmp_path)
    assert [f.name for f in tmp_path.iterdir()] == ["p.npz"]


def test_a_good_profile_loads(tmp_path):
    p = DeckProfile.load(_profile(tmp_path), shipped_classifier())
    assert p.name == "test" and p.blend == 0.5


@pytest.mark.parametrize("change, words", [
    ({"labels": np.array(LABELS[:-1])}, "other labels"),
    ({"labels": np.array(("S2",) + LABELS[2:] + ("S3",))}, "other labels"),
    ({"version": np.array(VERSION + 1)}, f"version {VERSION + 1} deck profile"),
    ({"format": np.array("something-else")}, "is not a deck profile"),
    ({"classifier_sha256": np.array("0" * 64)}, "made for another index classifier"),
    ({"weight": np.zeros((len(LABELS), 7), np.float32)}, "does not fit this classifier"),
    ({"blend": np.array(1.5, np.float32)}, "blend"),
    ({"calibration": np.array('{"size_groups": [], "curves": {}}x')}, "confidence calibration is unusable"),
    ({"calibration": np.array(json.dumps({"size_groups": [{"name": "all", "min_cards": 1, "max_cards": 99}],
                                          "curves": {"all": {"x": [0.2, 0.9], "p": [0.9, 0.3]}}}))},
     "confidence calibration is unusable"),
])
def test_profiles_for_other_labels_versions_or_classifiers_are_refused(tmp_path, change, words):
    path = _profile(tmp_path, **change)
    with pytest.raises(DeckProfileError, match=words):
        IndexClassifier(threads=1, deck=path)
    with pytest.raises(DetectorError, match=words):
        CardDetector(threads=1, deck=path)
    with pytest.raises(ConfigError, match=f"deck: .*{words}"):
        parse_config({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json", "deck": str(path)}]})


def test_config_deck_must_exist_and_be_a_profile(tmp_path):
    cam = {"source": "0", "geometry": "t.json"}
    with pytest.raises(ConfigError, match="does not exist"):
        parse_config({"table": {"id": "T01"}, "camera": [{**cam, "deck": "none.npz"}]}, tmp_path)
    (tmp_path / "x.npz").write_text("not a profile")
    with pytest.raises(ConfigError, match="is not a deck profile"):
        parse_config({"table": {"id": "T01"}, "camera": [{**cam, "deck": "x.npz"}]}, tmp_path)
    with pytest.raises(ConfigError, match="deck must be the path"):
        parse_config({"table": {"id": "T01"}, "camera": [{**cam, "deck": 3}]}, tmp_path)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    (d / "S5.jpg").write_text("not a picture")
    cv2.imwrite(str(d / "dark.png"), np.full((300, 400, 3), 30, np.uint8))
    (d / "labels.txt").write_text("S2 S3 X9")
    (d / "profile.npz").write_text("not a profile")
    return d


@pytest.mark.parametrize("argv, words", [
    (["{d}/S5.jpg"] * 54 + ["--out", "{d}/p.npz"], "photo {d}/S5.jpg is not a picture"),
    (["{d}/dark.png", "--out", "{d}/p.npz"], "1 photos given"),
    (["{d}/dark.png", "--grid", "6x9", "--out", "{d}/p.npz"], "photo {d}/dark.png: found 0 cards, expected 54"),
    (["{d}/dark.png", "--grid", "4x7", "--out", "{d}/p.npz"], "a 4x7 grid takes 2 photo(s) for 54 cards"),
    (["{d}/dark.png", "--grid", "4by7", "--out", "{d}/p.npz"], "is not a grid"),
    (["{d}/dark.png", "--out", "{d}/p.json"], "written as a .npz file"),
    (["{d}/dark.png", "--labels", "{d}/labels.txt", "--out", "{d}/p.npz"], "label 3 'X9' is not a card code"),
    (["{d}/none.jpg", "--out", "{d}/p.npz"], "{d}/none.jpg does not exist"),
    (["{d}/dark.png", "--out", "{d}/nodir/p.npz"], "folder {d}/nodir does not exist"),
    (["{d}/dark.png", "--calibration-rows", "-5", "--out", "{d}/p.npz"], "-5 is not a number of rows from 0 to 5000"),
])
def test_bad_enrollment_input_is_one_line_and_exit_2(files, argv, words, capsys):
    fill = lambda s: s.replace("{d}", str(files))
    rc = main(["enroll-deck", *map(fill, argv)])
    err = capsys.readouterr()
    assert rc == 2 and err.out == ""
    assert len(err.err.splitlines()) == 1 and fill(words) in err.err, err.err


def test_single_photos_are_named_by_file_or_labels(unseen, tmp_path):
    from vision.training.deck_photos import single_photos

    photos = single_photos(unseen, np.random.default_rng(4))
    named = list(photos.items())
    cards, _ = cards_from_photos(named)
    assert sorted(cards) == sorted(GRID_ORDER)
    anon = [(f"IMG_{k:04d}.jpg", img) for k, (_, img) in enumerate(named)]
    with pytest.raises(EnrollError, match="IMG_0000.jpg: 'IMG_0000' does not name a card"):
        cards_from_photos(anon)
    cards2, _ = cards_from_photos(anon, labels=[c for c, _ in named])
    assert sorted(cards2) == sorted(cards)
    twice = named[:-1] + [("again.jpg", named[0][1])]
    with pytest.raises(EnrollError, match="both show"):
        cards_from_photos(twice, labels=[c for c, _ in named[:-1]] + [named[0][0]])


def test_recognize_refuses_a_bad_profile(files, capsys):
    cv2.imwrite(str(files / "zone.png"), np.full((448, 640, 3), 40, np.uint8))
    rc = main(["recognize", str(files / "zone.png"), "--deck", str(files / "profile.npz")])
    err = capsys.readouterr().err
    assert rc == 2 and "is not a deck profile" in err and len(err.splitlines()) == 1


def test_the_none_gate_keeps_the_shipped_heads_none_and_the_decks_faces(tmp_path):
    rng = np.random.default_rng(8)
    shipped = rng.normal(0, 3, (20, len(LABELS))).astype(np.float32)
    feats = rng.random((20, 6)).astype(np.float32)
    p = DeckProfile(rng.normal(0, 1, (len(LABELS), 6)).astype(np.float32), np.zeros(len(LABELS), np.float32),
                    1.0, "0" * 64, none_gate=True)
    p.save(tmp_path / "g.npz")
    assert DeckProfile.load(tmp_path / "g.npz").none_gate is True
    soft = lambda z: np.exp(z - z.max(1, keepdims=True)) / np.exp(z - z.max(1, keepdims=True)).sum(1, keepdims=True)
    gated, deck = soft(p.logits(shipped, feats)), soft(feats @ p.weight.T)
    assert np.allclose(gated[:, -1], soft(shipped)[:, -1], atol=1e-5)                  # NONE: the shipped head's
    faces = gated[:, :-1] / gated[:, :-1].sum(1, keepdims=True)
    assert np.allclose(faces, deck[:, :-1] / deck[:, :-1].sum(1, keepdims=True), atol=1e-5)   # faces: the deck's


@pytest.mark.parametrize("eight_bit", ["1", "0"])
def test_a_profile_made_for_either_shipped_classifier_runs_with_that_one(tmp_path, monkeypatch, eight_bit):
    """A profile enrolled on a node whose CPU runs the 8-bit classifier (or
    the float one) still loads on a node that would run the other: the
    classifier it was made for is one of the two shipped files."""
    from vision.reading.index_classifier import EIGHT_BIT_MODEL, FLOAT_MODEL

    monkeypatch.setenv("GUANDAN_EIGHT_BIT", eight_bit)
    made_with = shipped_classifier()
    path = _profile(tmp_path)
    assert DeckProfile.load(path).classifier_sha256 == file_sha256(made_with)
    monkeypatch.setenv("GUANDAN_EIGHT_BIT", "0" if eight_bit == "1" else "1")
    assert shipped_classifier() != made_with and {made_with, shipped_classifier()} == {EIGHT_BIT_MODEL, FLOAT_MODEL}
    assert shipped_classifier(path) == made_with
    assert CardDetector(threads=1, deck=path, hand_landmarks=False).classifier.model_path == made_with
