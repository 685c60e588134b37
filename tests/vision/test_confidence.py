"""A play's confidence is a calibrated probability, and a doubtful read never becomes a penalty."""

from __future__ import annotations

import json

import numpy as np
import pytest

from referee.settings import Settings
from referee.table import Table
from vision.reading.confidence import DEFAULT_CALIBRATION, Calibration, CalibrationError, default_calibration
from vision.reading.detector import CardRead, ZoneRead
from vision.reading.tracker import ZoneTracker

THRESHOLD = Settings().min_confidence


def read(*names, conf=0.9, hand=False):
    return ZoneRead([CardRead(n, conf, (0, 0, 1, 1), ()) for n in names], hand=hand)


def settle(tracker, r, t0=0.0, frames=5, dt=0.1):
    """The events of a zone that shows ``r`` for a few frames from ``t0``."""
    return [e for k in range(frames) for e in tracker.update(t0 + k * dt, r)]


def test_shipped_calibration_is_monotone_and_a_probability():
    doc = json.loads(DEFAULT_CALIBRATION.read_text(encoding="utf-8"))
    assert doc["synthetic_only"] is True and "seed" in doc["data"]
    cal = default_calibration()
    raw = np.linspace(0, 1, 201)
    for cards in range(1, 28):
        p = np.array([cal(r, cards) for r in raw])
        assert np.all((p >= 0) & (p <= 1))
        assert np.all(np.diff(p) >= 0), f"not monotone for {cards} cards"
    # it says something: a weak read is doubtful, a strong one is trusted at the default threshold
    assert cal(0.3, 5) < THRESHOLD <= cal(0.99, 5)


def test_a_curve_that_falls_is_refused():
    doc = {"size_groups": [{"name": "all", "min_cards": 1, "max_cards": 99}],
           "curves": {"all": {"x": [0.2, 0.5, 0.9], "p": [0.3, 0.9, 0.8]}}}
    with pytest.raises(CalibrationError, match="not increasing"):
        Calibration(doc)
    with pytest.raises(CalibrationError, match="malformed"):
        Calibration({"size_groups": doc["size_groups"], "curves": {}})


def test_the_tracker_reports_the_calibrated_probability():
    cal = default_calibration()
    tr = ZoneTracker("S", stable_s=0.2, stable_frames=3)
    (e,) = settle(tr, read("S5", "H5", "D5", conf=0.35))
    assert e.type == "play" and e.confidence < THRESHOLD
    assert e.confidence == round(cal(0.35, 3), 4) and e.get("raw_confidence") == 0.35
    # the lowest score seen over the run, then calibrated (the mapping is monotone)
    tr = ZoneTracker("S", stable_s=0.2, stable_frames=3)
    events = settle(tr, read("S5", conf=0.99), frames=2) + settle(tr, read("S5", conf=0.5), t0=0.2, frames=3)
    assert [e.confidence for e in events] == [round(cal(0.5, 1), 4)]
    # uncalibrated on request (the raw score, as before)
    tr = ZoneTracker("S", stable_s=0.2, stable_frames=3, calibration=None)
    assert settle(tr, read("S5", conf=0.35))[0].confidence == 0.35


def test_a_doubtful_camera_read_asks_the_referee_and_never_penalises():
    """End to end: zone reads -> trackers -> the table referee.  S leads with a
    read the calibration doubts; E then plays (read well).  If S's play were
    dropped E would be out of turn, but that is held as a request to confirm,
    never a penalty; once the referee confirms S's play, E's play stands."""
    table = Table("T01", Settings())
    table.feed_dict({"t": 0.0, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"})
    south, east = ZoneTracker("S", table="T01"), ZoneTracker("E", table="T01")
    (lead,) = settle(south, read("S3", conf=0.3), t0=1.0)
    assert lead.confidence < THRESHOLD
    ds = table.feed(lead)
    (ask,) = [d for d in ds if d.type == "confirm_request"]
    assert ask.code == "low_confidence" and ask.seat == "S"
    assert not [d for d in ds if d.type == "violation"]
    (answer,) = settle(east, read("S5", conf=0.99), t0=3.0)
    assert answer.confidence >= THRESHOLD                # counted without asking
    ds = table.feed(answer)
    assert not [d for d in ds if d.type == "violation"]
    assert [d.code for d in ds if d.type == "confirm_request"] == ["held_violation"]
    assert table.snapshot()["ladder"]["EW"] == {"warning": 0, "infraction": 0, "foul": 0}
    table.feed_dict({"t": 5.0, "type": "referee", "action": "confirm", "ref": ask.events[0]})
    assert not [d for d in table.decisions if d.type == "violation"]
    assert table.deal.counts["S"] == 26 and table.deal.counts["E"] == 26 and table.deal.turn == "N"


def test_a_sure_read_with_a_joker_that_makes_no_combination_asks_the_referee():
    """The camera's commonest misread: a turned index or a pip read as a joker
    (models/MODEL_CARD.md, "Phantom jokers"), surely.  S leads a full house
    read with a little joker too many: no combination at any level, so the
    referee is asked, and no illegal-play penalty follows unless confirmed."""
    table = Table("T01", Settings())
    table.feed_dict({"t": 0.0, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"})
    south = ZoneTracker("S", table="T01")
    (lead,) = settle(south, read("H7", "LJ", "C7", "S7", "HK", "CK", conf=0.99), t0=1.0)
    assert lead.confidence < THRESHOLD and "joker" in lead.get("warning")
    ds = table.feed(lead)
    (ask,) = [d for d in ds if d.type == "confirm_request"]
    assert ask.code == "low_confidence" and not [d for d in ds if d.type in ("violation", "penalty")]
    # the same cards without the joker, and real jokers in a legal play, are trusted as read
    for cards in (("H7", "C7", "S7", "HK", "CK"), ("LJ", "LJ"), ("BJ", "BJ", "LJ", "LJ"), ("BJ",)):
        (e,) = settle(ZoneTracker("N", table="T01"), read(*cards, conf=0.99), t0=1.0)
        assert e.confidence >= THRESHOLD and e.get("warning") is None, cards
    # a real foul with a joker still reaches the referee: asked, and a penalty once confirmed
    table.feed_dict({"t": 2.0, "type": "referee", "action": "confirm", "ref": ask.events[0]})
    assert [d.code for d in table.decisions if d.type == "violation"] == ["illegal_play"]


def test_a_sure_read_with_a_card_missing_that_makes_no_combination_asks_the_referee():
    """On fans and crooked cards the camera's commonest sure misread is a play
    with a card missing (models/MODEL_CARD.md, "Plays that are no combination
    asked about"): S leads a straight read without its 6, surely.  Four
    cards in a row are no combination at any level, so the referee is asked,
    and no illegal-play penalty follows unless confirmed."""
    table = Table("T01", Settings())
    table.feed_dict({"t": 0.0, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"})
    (lead,) = settle(ZoneTracker("S", table="T01"), read("S3", "H4", "D5", "S7", conf=0.99), t0=1.0)
    assert lead.confidence < THRESHOLD and lead.get("doubt") == "no_combination"
    ds = table.feed(lead)
    (ask,) = [d for d in ds if d.type == "confirm_request"]
    assert ask.code == "low_confidence" and not [d for d in ds if d.type in ("violation", "penalty")]
    # the whole straight, a pair and a single are trusted as read
    for cards in (("S3", "H4", "D5", "C6", "S7"), ("S9", "D9"), ("CK",)):
        (e,) = settle(ZoneTracker("N", table="T01"), read(*cards, conf=0.99), t0=1.0)
        assert e.confidence >= THRESHOLD and e.get("doubt") is None, cards
    # a real foul still reaches the referee: asked, and a penalty once confirmed
    table.feed_dict({"t": 2.0, "type": "referee", "action": "confirm", "ref": ask.events[0]})
    assert [d.code for d in table.decisions if d.type == "violation"] == ["illegal_play"]


def test_a_sure_read_that_leaves_out_a_card_another_turn_saw_asks_the_referee_which():
    """A pair read as a single, surely: a card missed lowers no card's score.
    But another turn of the zone read the second S9 (ZoneRead.left_out), so
    the read's score is one less that card's confidence: the referee is asked
    and told which card to look for, and nothing is judged until confirmed.
    A left-out card read faintly does not set the score, nor say anything."""
    table = Table("T01", Settings())
    table.feed_dict({"t": 0.0, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"})
    single = read("S9", conf=0.99)
    missed = ZoneRead(single.cards, left_out=("S9", 0.93))
    assert missed.confidence == pytest.approx(0.07)
    (lead,) = settle(ZoneTracker("S", table="T01"), missed, t0=1.0)
    assert lead.confidence < THRESHOLD and lead.get("raw_confidence") == 0.07
    assert lead.get("doubt") == "left_out" and "S9 (0.93)" in lead.get("warning")
    ds = table.feed(lead)
    (ask,) = [d for d in ds if d.type == "confirm_request"]
    assert ask.code == "low_confidence" and not [d for d in ds if d.type in ("violation", "penalty")]
    # one frame of the run is enough to set its score (the run's lowest)
    frames = [single, single, missed, single, single]
    tr = ZoneTracker("N")
    (e,) = [e for k, r in enumerate(frames) for e in tr.update(0.1 * k, r)]
    assert e.confidence < THRESHOLD and e.get("doubt") == "left_out"
    # faint evidence elsewhere: the weakest card sets the score, and no doubt is said
    (e,) = settle(ZoneTracker("N"), ZoneRead(single.cards, left_out=("H2", 0.005)))
    assert e.confidence >= THRESHOLD and e.get("doubt") is None and e.get("raw_confidence") == 0.99
    # an unsure card sets the score below the left-out card's: not the left-out card's doing
    (e,) = settle(ZoneTracker("N"), ZoneRead(read("S9", conf=0.3).cards, left_out=("H2", 0.4)))
    assert e.get("doubt") is None and e.get("raw_confidence") == 0.3


def test_a_sure_read_beside_more_than_its_cards_cover_asks_the_referee_with_the_cards_proposed():
    """A pair laid as a row, one card read surely and the other read from no
    index (an art deck's index, a card face down): a sure single.  The
    table watcher saw more laid in the zone than the card read covers
    (ZoneRead.unexplained), so the read's score is 0: the referee is asked,
    told why, and nothing is judged until confirmed or corrected."""
    table = Table("T01", Settings())
    table.feed_dict({"t": 0.0, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"})
    single = read("S9", conf=0.99)
    (sure,) = settle(ZoneTracker("S", table="T01"), single, t0=1.0)
    assert sure.confidence >= THRESHOLD and sure.get("doubt") is None
    (lead,) = settle(ZoneTracker("S", table="T01"), ZoneRead(single.cards, unexplained=0.6), t0=1.0)
    assert lead.cards == ("S9",) and lead.confidence < THRESHOLD and lead.get("raw_confidence") == 0.0
    assert lead.get("doubt") == "unexplained" and "more lies in the zone" in lead.get("warning")
    ds = table.feed(lead)
    (ask,) = [d for d in ds if d.type == "confirm_request"]
    assert ask.code == "low_confidence" and not [d for d in ds if d.type in ("violation", "penalty")]


def test_each_shipped_detector_reads_with_the_curve_fitted_for_it(monkeypatch):
    # a technician may fall back to the float detector (docs/technician.md): its
    # plays' confidence must come from its own curve, not the 8-bit one's
    from types import SimpleNamespace

    from vision.reading.confidence import calibration_for_model, model_id
    from vision.reading.detector import EIGHT_BIT_MODEL, FLOAT_MODEL
    from vision.reading.tracker import calibration_for
    monkeypatch.delenv("GUANDAN_CONFIDENCE_CALIBRATION", raising=False)
    curves = {}
    for model in (EIGHT_BIT_MODEL, FLOAT_MODEL):
        cal = calibration_for(SimpleNamespace(model_path=model, classifier=None))
        assert cal.doc["detector"] == model_id(model)
        assert calibration_for_model(model) is cal
        curves[model] = cal
    # and the two are not the same curve (each detector scores its own way)
    assert curves[EIGHT_BIT_MODEL].doc["curves"] != curves[FLOAT_MODEL].doc["curves"]


def test_a_detector_no_curve_was_fitted_for_reads_with_the_default_and_says_so(tmp_path, monkeypatch, caplog):
    from vision.reading.confidence import calibration_for_model
    monkeypatch.delenv("GUANDAN_CONFIDENCE_CALIBRATION", raising=False)
    new = tmp_path / "cards-new-export.onnx"
    new.write_bytes(b"not one of the shipped detectors")
    with caplog.at_level("WARNING", logger="vision.reading.confidence"):
        cal = calibration_for_model(new)
    assert cal is default_calibration()
    assert "cards-new-export.onnx" in caplog.text and "calibrate_confidence" in caplog.text
    # a curve file named in the environment wins, whatever the detector
    own = tmp_path / "own.json"
    own.write_text(json.dumps({"size_groups": [{"name": "all", "min_cards": 1, "max_cards": 99}],
                               "curves": {"all": {"x": [0.5], "p": [0.25]}}}))
    monkeypatch.setenv("GUANDAN_CONFIDENCE_CALIBRATION", str(own))
    monkeypatch.setattr("vision.reading.confidence._default", None)
    assert calibration_for_model(new)(0.9, 3) == 0.25


def test_a_curve_read_with_another_classifier_says_so(tmp_path, monkeypatch, caplog):
    # a play's raw score is the classifier's too: a curve names the classifier it was fitted with
    from vision.reading.confidence import calibration_for_model
    from vision.reading.detector import EIGHT_BIT_MODEL
    from vision.reading.index_classifier import EIGHT_BIT_MODEL as CLF_MODEL
    monkeypatch.delenv("GUANDAN_CONFIDENCE_CALIBRATION", raising=False)
    from vision.reading.confidence import model_id
    from vision.reading.detector import FLOAT_MODEL
    from vision.reading.index_classifier import FLOAT_MODEL as CLF_FLOAT
    shipped = calibration_for_model(EIGHT_BIT_MODEL)
    # each shipped curve was fitted with the classifier a table runs beside its
    # detector (vision.reading.runtime.shipped_model): 8-bit with 8-bit, float with float
    assert shipped.doc["classifier"] == model_id(CLF_MODEL)
    assert shipped.doc["classifier"].startswith("index-classifier-int8.onnx (sha256 ")
    assert calibration_for_model(FLOAT_MODEL).doc["classifier"] == model_id(CLF_FLOAT)
    with caplog.at_level("WARNING", logger="vision.reading.confidence"):
        assert calibration_for_model(EIGHT_BIT_MODEL, CLF_MODEL) is shipped
        assert calibration_for_model(FLOAT_MODEL, CLF_FLOAT) is calibration_for_model(FLOAT_MODEL)
    assert caplog.text == ""
    other = tmp_path / "index-classifier-retrained.onnx"
    other.write_bytes(b"another classifier")
    with caplog.at_level("WARNING", logger="vision.reading.confidence"):
        assert calibration_for_model(EIGHT_BIT_MODEL, other) is shipped
        calibration_for_model(EIGHT_BIT_MODEL, other)
    assert caplog.text.count("index-classifier-retrained.onnx") == 1 and "calibrate_confidence" in caplog.text


def test_the_calibration_is_fitted_on_fans_and_crooked_cards_and_counts_cards_not_order(tmp_path, capsys):
    """`calibrate_confidence` end to end on a few plays: the mix and, per
    seed, fans and rows with a card pushed in crooked, each kind checked at
    the threshold; a play is right by its cards, in any order (cached reads
    from before, which counted the order, are counted again)."""
    from vision.training.calibrate_confidence import main, records
    out = tmp_path / "curve.json"
    assert main(["--fit-seed", "2621", "--fit-plays", "3", "--fit-turned", "2", "--eval-seed", "2622",
                 "--eval-plays", "2", "--eval-turned", "1", "--records", str(tmp_path / "reads"),
                 "--out", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["fit"]["plays"] == 3 + 2 * 2 and report["eval"]["plays"] == 2 + 2 * 1
    assert set(report["threshold_eval_by_kind"]) == {"mix", "fans", "crooked_cards"}
    doc = json.loads(out.read_text())
    assert "--fit-turned 2" in doc["made_by"] and "crooked" in doc["data"]
    Calibration(doc)       # a curve the tracker can apply
    cached = sorted((tmp_path / "reads").glob("seed2621-2-fans-*.jsonl"))
    assert len(cached) == 1
    rec = {"i": 0, "kind": "fans", "true": ["S5", "H5"], "read": ["H5", "S5"], "raw": 0.9, "exact": False}
    cached[0].write_text(json.dumps(rec) + "\n")
    tag = cached[0].name.split("-fans-")[1].removesuffix(".jsonl")
    (got,) = records(None, tmp_path / "reads", 2, 2621, tag, "fans")
    assert got["exact"] is True


def test_the_calibration_refuses_a_bad_eight_bit_setting_in_one_line(monkeypatch, capsys):
    from vision.training.calibrate_confidence import main
    monkeypatch.setenv("GUANDAN_EIGHT_BIT", "maybe")
    with pytest.raises(SystemExit) as stop:
        main(["--fit-seed", "2621", "--eval-seed", "2622"])
    assert stop.value.code == 2 and "GUANDAN_EIGHT_BIT must be 1" in capsys.readouterr().err
