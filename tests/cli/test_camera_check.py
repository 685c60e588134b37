"""guandan-ref camera-check: a venue's camera reads as its referees judged
them, and a confidence curve of the venue's own fitted on them."""

from __future__ import annotations

import json
import random

import pytest

from referee.events import Event
from services.camera_checks import Verdict, camera_reads, check_report, fit_records
from storage.sqlite_log import EventStore
from vision.reading.confidence import Calibration

from tests.cli.helpers import cli

SETTINGS = {"match_format": "game", "min_confidence": 0.8}


def _venue_log(path, reads: int, seed: int, checking_round: bool) -> dict:
    """A table's log of camera reads whose score says nothing certain: a read
    with raw score r is right with probability r**4 (this venue's camera is
    far less sure than its scores). The confidence it carries is the raw
    score (the shipped curve, say); the referee answers every read asked.
    With ``checking_round``, the settings ask about every read first (the
    first half), then go back to 0.8. Returns what was laid down."""
    rng = random.Random(seed)
    truth = {"asked": 0, "asked_wrong": 0, "unasked": 0, "fit": 0, "wrong_by_raw": []}
    with EventStore(path) as store:
        def add(d):
            return store.append(Event.from_dict({"table": "T01", **d})).id
        t = 0.0
        add({"t": t, "type": "settings", "settings": {**SETTINGS, "min_confidence": 1.0 if checking_round else 0.8}})
        for k in range(reads):
            if checking_round and k == reads // 2:
                add({"t": t, "type": "settings", "settings": SETTINGS})
            t += 3.0
            threshold = 1.0 if checking_round and k < reads // 2 else 0.8
            raw = round(rng.uniform(0.3, 0.999), 4)
            right = rng.random() < raw ** 4
            cards = ["S5", "H5"] if k % 2 else ["D9"]
            eid = add({"t": t, "type": "play", "seat": "S", "cards": cards, "source": "vision",
                       "confidence": raw, "raw_confidence": raw, "zone": "S-play"})
            if raw < threshold:
                truth["asked"] += 1
                truth["fit"] += 1
                truth["wrong_by_raw"].append((raw, not right))
                if right:
                    add({"t": t + 1, "type": "referee", "action": "confirm", "ref": eid})
                else:
                    truth["asked_wrong"] += 1
                    if k % 3 == 0:
                        add({"t": t + 1, "type": "referee", "action": "void", "ref": eid})
                    else:
                        add({"t": t + 1, "type": "referee", "action": "correct", "ref": eid,
                             "event": {"cards": [*cards, "S7"]}})
            else:
                truth["unasked"] += 1
    return truth


def test_the_report_counts_what_the_referees_said(tmp_path):
    db = tmp_path / "venue.sqlite"
    truth = _venue_log(db, 300, seed=7, checking_round=False)
    r = cli("camera-check", "--db", db, "--json")
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["reads"] == 300 and rep["tables"] == ["T01"]
    assert rep["asked"]["reads"] == truth["asked"] == rep["asked"]["judged"]
    assert rep["asked"]["wrong"] == truth["asked_wrong"]
    assert rep["unasked"]["reads"] == truth["unasked"] == rep["unasked"]["unchecked"]
    assert rep["fit_reads"] == truth["fit"]
    # each correction holds an S7 the read lacked: the card most often missed
    assert rep["missed_cards"][0][0] == "S7"
    # what the confidence promised (its raw score) against what the referees found, over the asked reads
    assert rep["asked"]["promised_wrong_share"] < rep["asked"]["wrong_share"]
    text = cli("camera-check", "--db", db)
    assert text.returncode == 0 and f"asked about: {truth['asked']}, answered {truth['asked']}" in text.stdout
    assert f"not asked: {truth['unasked']}, later corrected or voided 0" in text.stdout
    # every read lay in S-play: the zone's line holds them all
    zone = rep["zones"]["T01 S-play"]
    assert zone["reads"] == 300 and zone["asked"]["wrong"] == truth["asked_wrong"]
    assert f"  T01 S-play         300 {truth['asked']:6d}  {truth['asked_wrong']}/{truth['asked']}" in text.stdout


def test_a_curve_fitted_on_a_checking_round_says_what_the_venue_reads(tmp_path):
    db = tmp_path / "venue.sqlite"
    truth = _venue_log(db, 800, seed=11, checking_round=True)
    out = tmp_path / "venue-curve.json"
    r = cli("camera-check", "--db", db, "--fit", out)
    assert r.returncode == 0, r.stderr
    assert f"the venue's curve from {truth['fit']} judged reads" in r.stderr
    curve = Calibration.load(out)
    assert curve.doc["venue"] is True and curve.doc["synthetic_only"] is False
    assert curve.doc["check"]["reads"] == truth["fit"]
    assert curve.doc["detector"].startswith("cards-yolo11n") and curve.doc["classifier"].startswith("index-classifier")
    # the venue's camera is right with probability raw**4: the curve finds it, where the raw score promised raw
    for raw in (0.5, 0.7, 0.9):
        assert abs(curve(raw, 2) - raw ** 4) < 0.15, (raw, curve(raw, 2))
    # the threshold means an error rate again: at the venue's curve, reads put at 0.8 or more are right
    # about 80 % of the time or more, where the raw score's 0.8 gave far less
    sure = [wrong for raw, wrong in truth["wrong_by_raw"] if curve(raw, 1) >= 0.8]
    naive = [wrong for raw, wrong in truth["wrong_by_raw"] if raw >= 0.8]
    assert sure and sum(sure) / len(sure) <= 0.2 < sum(naive) / len(naive)


def test_a_fit_needs_enough_judged_reads_and_writes_nothing_without(tmp_path):
    db = tmp_path / "venue.sqlite"
    truth = _venue_log(db, 60, seed=3, checking_round=False)
    out = tmp_path / "venue-curve.json"
    r = cli("camera-check", "--db", db, "--fit", out)
    assert r.returncode == 2 and r.stdout == "" and not out.exists()
    assert f"{truth['fit']} reads were asked about" in r.stderr and "checking round" in r.stderr
    r = cli("camera-check", "--db", db, "--fit", out, "--min-reads", str(truth["fit"]))
    assert r.returncode == 0 and out.exists(), r.stderr
    assert "reach a raw score of" in r.stderr      # no read above 0.8 was asked: the top of the curve is a guess


def _ev(i: int, **d) -> Event:
    return Event.from_dict({"id": i, "t": float(i), "table": "T01", **d})


def test_verdicts_follow_the_referees_last_word():
    log = [_ev(1, type="play", seat="S", cards=["S3"], source="vision", confidence=0.5, raw_confidence=0.7),
           _ev(2, type="play", seat="S", cards=["S4"], source="vision", confidence=0.5, raw_confidence=0.7),
           _ev(3, type="play", seat="S", cards=["S5", "S5", "S5"], source="vision", confidence=0.45,
               raw_confidence=0.95, doubt="third_copy"),
           _ev(4, type="tribute", seat="N", card="BJ", source="vision", confidence=0.6),
           _ev(5, type="play", seat="W", cards=["H9"], source="device"),
           _ev(6, type="play", seat="E", cards=[], source="vision", confidence=0.0, doubt="unread"),
           _ev(7, type="referee", action="void", ref=1),
           _ev(8, type="referee", action="void", ref=7),          # the void is voided: read 1 stands, unanswered
           _ev(9, type="referee", action="correct", ref=2, event={"seat": "W"}),   # its seat, not its cards
           _ev(10, type="referee", action="confirm", ref=3),
           _ev(11, type="referee", action="correct", ref=4, event={"card": "LJ"}),
           _ev(12, type="referee", action="correct", ref=99, event={"card": "LJ"})]
    reads = camera_reads(log)
    assert [(r.id, r.verdict) for r in reads] == [(1, Verdict.UNANSWERED), (2, Verdict.RIGHT), (3, Verdict.RIGHT),
                                                   (4, Verdict.WRONG)]
    assert reads[3].missing == ("LJ",) and reads[3].extra == ("BJ",) and reads[3].raw is None
    # read 3 was asked for its cards (a third copy), not its score: no fair sample of its score
    assert [r["raw"] for r in fit_records(reads)] == [0.7]
    assert reads[2].calibrated == 0.9
    # in a checking round (every read asked) its score alone would have asked it: it counts
    checking = camera_reads([_ev(13, type="settings", settings={"min_confidence": 1.0}), *log])
    assert [r["raw"] for r in fit_records(checking)] == [0.7, 0.95]
    # a referee's own threshold counts the asking instead of the log's
    assert [r.asked for r in camera_reads(log, min_confidence=0.55)] == [True, True, True, False]


def test_the_log_settings_decide_what_was_asked():
    log = [_ev(1, type="settings", settings={"min_confidence": 0.5}),
           _ev(2, type="play", seat="S", cards=["S3"], source="vision", confidence=0.6),
           _ev(3, type="settings", settings={"min_confidence": 0.9}),
           _ev(4, type="play", seat="S", cards=["S3"], source="vision", confidence=0.6)]
    assert [r.asked for r in camera_reads(log)] == [False, True]
    rep = check_report(camera_reads(log), threshold=0.9)
    assert [b["band"] for b in rep["bands"]] == ["0.5-0.8"] and rep["bands"][0]["reads"] == 2


@pytest.mark.parametrize("raw, ok", [(0.3, True), ("x", False), (True, False)])
def test_a_raw_score_is_taken_only_as_a_number(raw, ok):
    log = [_ev(1, type="play", seat="S", cards=["S3"], source="vision", confidence=0.5, raw_confidence=raw)]
    assert (camera_reads(log)[0].raw == raw) is ok


def test_the_halving_doubts_are_the_trackers():
    # services may not lean on vision: the codes are written twice, and must stay the same
    from services.camera_checks import HALVING_DOUBTS
    from vision.reading import tracker
    assert HALVING_DOUBTS == {tracker.THIRD_COPY, tracker.JOKER_NO_COMBINATION, tracker.NO_COMBINATION}
    assert tracker.LEFT_OUT not in HALVING_DOUBTS and tracker.UNREAD not in HALVING_DOUBTS


def test_hands_the_referees_counted_are_set_beside_the_count_the_reads_left(tmp_path):
    """Each referee count of a seat's cards checks every read of that seat's plays
    at once: a count one short of what the reads left is a card they missed."""
    from tests.dashboard.test_routes import camera_count_events
    db = tmp_path / "venue.sqlite"
    with EventStore(db) as store:
        for table, counted in (("T01", 3), ("T02", 2)):      # T02's camera missed a card
            ids = [store.append(Event.from_dict(e)).id for e in camera_count_events(table)]
            store.append(Event.from_dict({"t": 99.0, "table": table, "type": "referee", "action": "count",
                                          "ref": ids[-1], "seat": "S", "count": counted}))
    r = cli("camera-check", "--db", db, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["hands_counted"] == {"counts": 2, "off": 1, "off_by": {"+1": 1}}
    r = cli("camera-check", "--db", db, "--table", "T01")
    assert "hands the referees counted: 1; the plays read had left another count in 0" in r.stdout
    r = cli("camera-check", "--db", db)
    assert "in 1 (read minus counted: +1 x1)" in r.stdout
