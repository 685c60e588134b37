"""A picture gone soft (a webcam refocusing): noticed on the table's markers, its frames not read."""

import cv2
import numpy as np
import pytest

from benchmarks.bench_real_tops import REFOCUS, cloth_px_mm, refocusing
from vision.reading.focus import HISTORY, SOFT_S, MarkerFocus
from vision.reading.printed_cards import markers_in
from vision.reading.table import calibrate
from vision.reading.watch import TableWatcher
from vision.training.card_art import load_decks
from vision.training.synth import SceneGenerator
from vision.training.synth_table import TablePainter


@pytest.fixture(scope="module")
def painter():
    return TablePainter(SceneGenerator(load_decks(["anglo"]), hand_rate=0.0), np.random.default_rng(8))


@pytest.fixture(scope="module")
def table(painter):
    """A generated table frame with cards in S's zone, and its markers."""
    frame = painter.frame({"S-play": ["D7", "D8"]}, clean=True)[0]
    return frame, markers_in(frame)


def test_light_noise_and_compression_are_not_soft_but_a_blur_of_half_a_millimetre_is(table):
    frame, markers = table
    rng = np.random.default_rng(2)
    focus = MarkerFocus()
    for k in range(HISTORY):
        assert not focus.update(k * 0.1, frame, markers)
    others = [np.clip(frame * 0.55, 0, 255).astype(np.uint8),              # the lights dimmed
              np.clip(frame * 1.3, 0, 255).astype(np.uint8),               # the exposure up
              np.clip(frame + rng.normal(0, 6, frame.shape), 0, 255).astype(np.uint8),     # sensor noise
              cv2.imdecode(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 60])[1], cv2.IMREAD_COLOR)]
    for k, other in enumerate(others):
        assert not focus.update(3.0 + k * 0.1, other, markers_in(other)), k
    soft = cv2.GaussianBlur(frame, (0, 0), 0.5 * cloth_px_mm(calibrate(frame)))
    assert focus.update(4.0, soft, markers_in(soft)) and focus.soft
    assert not focus.update(4.1, frame, markers) and focus.news() is None      # a moment: no news
    assert not focus.update(4.2, frame, [])              # no marker measured (a hand over them): not judged


def test_a_camera_soft_for_long_is_said_read_as_it_is_and_said_sharp_again(table):
    frame, markers = table
    focus = MarkerFocus()
    for k in range(HISTORY):
        focus.update(k * 0.1, frame, markers)
    soft = cv2.GaussianBlur(frame, (0, 0), 0.6 * cloth_px_mm(calibrate(frame)))
    held, said = [], []
    for k in range(int(SOFT_S / 0.1) + 10):
        held.append(focus.update(3.0 + k * 0.1, soft, markers))
        said += [n for n in [focus.news()] if n]
    assert held[:int(SOFT_S / 0.1)] == [True] * int(SOFT_S / 0.1) and not any(held[-5:])    # then read as it is
    assert [n.soft for n in said] == [True] and "soft for 5 s" in said[0].reason
    assert said[0].share < 0.7
    focus.update(10.0, frame, markers)
    back = focus.news()
    assert back is not None and not back.soft and back.reason == "the picture is sharp again"
    assert focus.news() is None


def test_a_play_laid_while_the_camera_refocuses_is_read_from_the_sharp_frames(painter, detector):

    bare, laid = painter.frame({}, clean=True)[0], painter.frame({"S-play": ["C9", "H9"]}, clean=True)[0]
    geo = calibrate(bare)
    w = TableWatcher(geo, detector, zones=["S-play"], stable_s=0.3, stable_frames=2, name="camera 0")
    assert [e for k in range(8) for e in w.process(k * 0.1, bare)] == []
    frames = refocusing(laid, 1.0 * cloth_px_mm(geo)) + [laid] * 5
    events = [(k, e) for k, f in enumerate(frames) for e in w.process(0.8 + k * 0.1, f)]
    assert [(e.type, sorted(e.cards)) for _, e in events] == [("play", ["C9", "H9"])]
    assert events[0][0] >= len(REFOCUS)                  # none of the soft frames was read

    # a lens left soft: said after SOFT_S, with ``soft`` for the referee's note, and read as it is
    soft = cv2.GaussianBlur(laid, (0, 0), 0.8 * cloth_px_mm(geo))
    said = [e for k in range(int(SOFT_S / 0.1) + 5) for e in w.process(3.0 + k * 0.1, soft)
            if e.type == "device_status"]
    assert [(e.get("online"), e.get("soft")) for e in said] == [(True, True)]
    assert said[0].get("device") == "camera 0" and "focus the camera by hand" in said[0].get("reason")
