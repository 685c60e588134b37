"""A camera covered, dark, frozen or stalled: said, and no play cleared or reported twice."""

import math
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.mjpeg_camera import GatedCamera, StallingCamera
from tests.video_files import decoded_frames
from vision.reading.picture_loss import DARK_S, PictureLoss
from vision.reading.table import calibrate
from vision.reading.watch import NewestFrame, SourceError, TableWatcher, open_source
from vision.training.card_art import load_decks
from vision.training.synth import SceneGenerator
from vision.training.synth_table import TablePainter


def _noisy(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The frame as a live sensor gives it: a little fresh noise each time."""
    return cv2.add(frame, rng.integers(0, 3, frame.shape, dtype=np.uint8))


def test_a_picture_unchanged_for_frozen_s_is_frozen_and_a_live_one_never():
    rng = np.random.default_rng(1)
    frame = rng.integers(0, 255, (120, 160, 3), dtype=np.uint8)
    loss = PictureLoss(frozen_s=3.0)
    # a live camera over a still table: noise changes every frame, for a minute
    assert [n for k in range(600) for n in loss.update(k * 0.1, _noisy(frame, rng), 4)] == []
    # the same picture from 60.0 s: not frozen at 62.9 s, frozen at 63.0 s, said once
    said = [(round(t, 1), n.kind) for t in np.arange(60.0, 66.0, 0.1) for n in loss.update(float(t), frame, 4)]
    assert said == [(63.0, "frozen")] and loss.held and loss.offline
    news = loss.update(66.0, _noisy(frame, rng), 4)
    assert [(n.kind, n.online, round(n.seconds, 1)) for n in news] == [("moving", True, 6.0)]
    assert "moves again" in news[0].reason and not loss.held
    # a video file (frozen_s None): a still stretch is the recording's, not a fault
    still = PictureLoss()
    assert [n for k in range(600) for n in still.update(k * 0.1, frame, 4)] == [] and not still.held


def test_no_marker_in_view_holds_the_reads_at_once_and_is_said_after_a_second():
    frame = np.zeros((120, 160, 3), np.uint8)
    loss = PictureLoss()
    # a camera that has never seen the table's markers (calibrated by hand): read as before
    assert [loss.update(k * 0.1, frame, 0) for k in range(30)] == [[]] * 30 and not loss.held
    assert loss.update(3.0, frame, 2) == [] and not loss.held
    # the lens covered: held from the first frame, said after DARK_S
    assert loss.update(3.1, frame, 0) == [] and loss.held and not loss.offline
    said = [(round(t, 1), n) for t in np.arange(3.2, 6.0, 0.1) for n in loss.update(float(t), frame, 0)]
    assert [(t, n.kind, n.online) for t, n in said] == [(round(3.1 + DARK_S, 1), "dark", False)]
    assert "covered, dark or shows no picture" in said[0][1].reason and loss.offline
    # one marker in view again (a sleeve over the others): the table is back
    news = loss.update(6.0, frame, 1)
    assert [(n.kind, n.online) for n in news] == [("back", True)] and not loss.held and not loss.offline
    # a one-frame drop is held and never said
    assert loss.update(6.1, frame, 0) == [] and loss.held and loss.update(6.2, frame, 3) == [] and not loss.held


def test_a_source_opened_again_says_a_lasting_fault_again():
    frame = np.zeros((60, 80, 3), np.uint8)
    loss = PictureLoss(frozen_s=2.0)
    loss.update(0.0, frame, 4)
    assert [n.kind for t in (1.0, 2.0, 3.0) for n in loss.update(t, frame, 4)] == ["frozen"]
    loss.restart()
    assert not loss.offline
    assert [n.kind for t in (4.0, 5.0, 6.0, 7.0) for n in loss.update(t, frame, 4)] == ["frozen"]


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), 4000])
def test_bad_settings_are_refused(bad):
    with pytest.raises(ValueError, match="frozen_s must be above 0"):
        PictureLoss(frozen_s=bad)
    with pytest.raises(ValueError, match="dark_s must be above 0"):
        PictureLoss(dark_s=bad)


@pytest.fixture(scope="module")
def painter():
    return TablePainter(SceneGenerator(load_decks(["anglo"]), hand_rate=0.0), np.random.default_rng(5))


def test_a_covered_camera_neither_clears_nor_reports_the_plays_again(painter, detector):
    """Before: a coat over the lens cleared every zone, and each play was reported a
    second time when it was lifted (a play out of turn, for the referee)."""
    plays = {"S-play": ["S5", "H5"], "E-play": ["C9"]}
    still = painter.frame(plays, clean=True)[0]
    w = TableWatcher(calibrate(still), detector, zones=["S-play", "E-play", "N-play"], stable_s=0.3,
                     stable_frames=2, name="camera 0")

    def run(t0: float, frame: np.ndarray, n: int) -> list[tuple]:
        return [(e.type, e.seat, e.cards, e.get("online")) for k in range(n) for e in w.process(t0 + k * 0.2, frame)]

    assert run(0.0, still, 5) == [("play", "S", ("S5", "H5"), None), ("play", "E", ("C9",), None)]
    dark = np.zeros_like(still)
    assert run(1.0, dark, 15) == [("device_status", None, None, False)]        # covered 3 s: said once, nothing cleared
    assert run(4.0, still, 8) == [("device_status", None, None, True)]         # lifted: no play again
    # a capture card's blue "no signal" screen, and N lays a pair meanwhile: read once the picture is back
    assert run(6.0, np.full_like(still, (150, 60, 20)), 10) == [("device_status", None, None, False)]
    plays["N-play"] = ["D8", "D8"]
    back = run(8.0, painter.frame(plays, clean=True)[0], 8)
    assert back == [("device_status", None, None, True), ("play", "N", ("D8", "D8"), None)]


def test_a_frozen_live_picture_from_a_video_file_is_said_and_the_play_after_it_read(painter, detector, tmp_path):
    """A real video file (MJPG): a live camera's frames, then one frame repeated for 3 s (a
    capture card that lost its camera), then live again with a new play."""
    rng = np.random.default_rng(2)
    plays = {"S-play": ["SK"]}
    first = painter.frame(plays, clean=True)[0]
    later = painter.frame({**plays, "W-play": ["HQ", "HQ"]}, clean=True)[0]
    path = tmp_path / "frozen.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, first.shape[1::-1])
    frozen = _noisy(first, rng)
    for f in [_noisy(first, rng) for _ in range(10)] + [frozen] * 30 + [_noisy(later, rng) for _ in range(10)]:
        out.write(f)
    out.release()
    w = TableWatcher(calibrate(first), detector, zones=["S-play", "W-play"], stable_s=0.3, stable_frames=2,
                     name="camera rtsp://10.0.0.5/1", frozen_s=2.0)
    events = [(round(e.t, 1), e.type, e.seat, e.cards, e.get("online"), e.get("reason"))
              for t, f in open_source(str(path)) for e in w.process(t, f)]
    assert [e[:5] for e in events] == [(0.3, "play", "S", ("SK",), None), (3.0, "device_status", None, None, False),
                                       (4.0, "device_status", None, None, True), (4.4, "play", "W", ("HQ", "HQ"), None)]
    assert "has not changed at all for 2 s" in events[1][5] and "moves again (after 3 s)" in events[2][5]


def test_a_network_camera_that_stalls_is_given_up_after_stall_s():
    frames = [np.full((240, 320, 3), 40 + 20 * k, np.uint8) for k in range(5)]
    cam = StallingCamera(frames)
    got = []
    try:
        with pytest.raises(SourceError, match=r"no picture from .* for 1 s \(the camera or its link stalled\)"):
            for _, f in open_source(cam.url, stall_s=1.0):
                got.append(f)
    finally:
        cam.close()
    # (frames that came while the reader was busy are skipped: those read came in order)
    levels = [int(f.mean().round()) for f in got if f is not None]
    assert levels == sorted(set(levels)) and set(levels) <= {40 + 20 * k for k in range(5)}


@pytest.mark.parametrize("decode_all", [True, False], ids=["newest decoded", "next decoded"])
def test_a_slow_reader_of_a_live_stream_gets_a_new_frame_not_an_old_one(decode_all):
    """A network camera read slower than it sends (a table reads a frame in
    0.1-0.6 s): the reader gets the newest picture (each decoded as it
    came, as a network stream is) or the next to come (only what the reader
    waits for decoded, as a USB camera's frames can be), timed when it came
    (the clock given), not the next one in a queue of old ones."""
    frames = [np.full((240, 320, 3), 10 + 20 * k, np.uint8) for k in range(13)]
    # (two pictures at once: opening the stream reads into the second to learn its format)
    cam = GatedCamera([frames[:2], frames[2:12], frames[12:]])
    ticks = iter(range(1000))
    cap = cv2.VideoCapture(cam.url, cv2.CAP_FFMPEG, [cv2.CAP_PROP_READ_TIMEOUT_MSEC, 5000])
    decoded = []          # what an evidence ring would be given
    grab = NewestFrame(cap, clock=lambda: float(next(ticks)), decode_all=decode_all,
                       on_frame=lambda t, f: decoded.append((t, int(f.mean().round()))))

    def asked_then(gate):
        """The reader asks; once it waits, the camera sends the next part."""
        with ThreadPoolExecutor(1) as pool:
            taken = pool.submit(grab.take, 30)
            assert grab.wait_reader(30)
            gate.set()
            return taken.result()

    level = lambda f: int(f.mean().round())     # noqa: E731  (JPEG keeps a flat grey)
    try:
        if decode_all:
            cam.gates[0].set()
            assert grab.wait_grabbed(12, 30)        # twelve sent while the reader was busy
            t, newest, _ = grab.take(30)            # the last of them, at once
            assert level(newest) == 230 and t == 11.0 and grab.dropped == 11
            assert decoded == [(float(k), 10 + 20 * k) for k in range(12)]     # every one, in order
        else:
            t0, first, _ = asked_then(cam.gates[0])
            assert level(first) in (10, 30, 50) and t0 == (level(first) - 10) / 20   # one of the first three
            assert grab.wait_grabbed(12, 30)        # the rest sent while the reader was busy, not decoded
            t1, last, _ = asked_then(cam.gates[1])  # the next to come
            assert level(last) == 250 and t1 == 12.0 and grab.dropped == 11
            assert decoded == [(t0, level(first)), (12.0, 250)]             # the two read, no more
    finally:
        grab.close()
        cam.close()


@pytest.mark.parametrize("decode_all", [True, False], ids=["newest decoded", "next decoded"])
def test_a_closed_reader_lets_the_camera_go_while_its_frames_keep_coming(decode_all):
    """Closed while the camera still sends and no one reads (the table
    stopping, or opening the camera again after a fault): the reading
    thread ends and releases the source, whether it decodes every frame
    or none."""
    frames = [np.full((120, 160, 3), k % 250, np.uint8) for k in range(400)]
    cam = StallingCamera(frames)
    cap = cv2.VideoCapture(cam.url, cv2.CAP_FFMPEG, [cv2.CAP_PROP_READ_TIMEOUT_MSEC, 5000])
    grab = NewestFrame(cap, clock=time.monotonic, decode_all=decode_all)
    try:
        assert grab.wait_grabbed(5, 30) and grab.reading
        grab.close(wait_s=3.0)
        assert not grab.reading and grab.grabbed < len(frames)     # it stopped, the rest unread
    finally:
        grab.close()
        cam.close()


REAL_H264 = Path(__file__).resolve().parent.parent / "data" / "real" / "video" / "bottle-detection.mp4"


def test_a_real_h264_stream_over_a_still_table_is_never_frozen_and_held_by_a_relay_is():
    """A real camera's H.264 recording (tests/data/real/LICENSE.md): a table
    that stands still for seconds between a hand's moves.  Its encoder
    changes a few pixels every frame, so even at frozen_s = 2 (the least the
    config takes) it is never said frozen; the same stream with one decoded
    picture held for 3 s, as a capture card or a relay holds its last
    frame, is said frozen once, 2 s into the hold, and moving when the
    camera's own frames come again."""
    frames, fps = decoded_frames(REAL_H264)
    assert len(frames) > 1000 and 25 < fps < 35
    live = PictureLoss(frozen_s=2.0)
    assert [n for k, f in enumerate(frames) for n in live.update(k / fps, f, 4)] == [] and not live.held
    # frames 0-599 live, then frame 599 again for 3 s, then the camera's frames from 600 on
    hold = round(3 * fps)
    stream = frames[:600] + [frames[599]] * hold + frames[600:]
    relayed = PictureLoss(frozen_s=2.0)
    said = [(k, n) for k, f in enumerate(stream) for n in relayed.update(k / fps, f, 4)]
    assert [n.kind for _, n in said] == ["frozen", "moving"]
    (k_frozen, frozen), (k_moving, moving) = said
    # still since frame 599 was first shown: said at 2 s from then, to the frame
    assert k_frozen == 599 + math.ceil(2 * fps - 1e-6) and frozen.seconds == pytest.approx(2.0, abs=1 / fps)
    assert k_moving == 600 + hold and moving.seconds == pytest.approx(hold / fps, abs=1 / fps)
