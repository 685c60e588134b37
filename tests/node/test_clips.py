"""Evidence clips: each camera's ring of recent frames, the clip around a ruling,
the disk budget, and the clip written at stop."""

import dataclasses
import itertools
import json

import cv2
import numpy as np
import pytest

from table_node.clips import ClipRecorder, ClipSettings
from tests.video_files import decoded_frames
from table_node.node import TableNode
from vision.reading.framering import FrameRing, decode


def _frame(k: int, w: int = 320, h: int = 240) -> np.ndarray:
    """A picture that tells frame k apart: its number as a grey level band."""
    f = np.full((h, w, 3), 40, np.uint8)
    f[:, : (k * 20) % (w - 20) + 10] = 200
    return f



def test_the_ring_keeps_the_last_seconds_in_order_within_its_bound():
    ring = FrameRing(seconds=2.0, fps=10.0, width=160, background=False)
    kept = [t for k in range(300) if ring.push(t := round(k / 30, 4), _frame(k))]   # 10 s at 30 frames/s
    frames = ring.frames()
    times = [t for t, _ in frames]
    assert len(frames) <= ring.limit == 21
    assert times == sorted(times) and times[-1] == kept[-1]
    assert times[0] >= times[-1] - 2.0 and len(frames) >= 19          # the last two seconds, all of them
    assert all(b - a >= 0.1 - 1e-6 for a, b in zip(times, times[1:]))  # at most 10 a second
    assert len(kept) < 120                                           # a frame in three encoded, not all
    picture = decode(frames[-1][1])
    assert picture.shape == (120, 160, 3)                            # shrunk to the width
    # the newest kept picture is the frame pushed at its time (not another one)
    k = round(times[-1] * 30)
    expected = cv2.resize(_frame(k), (160, 120), interpolation=cv2.INTER_AREA)
    assert np.abs(picture.astype(int) - expected).mean() < 6


def test_a_cameras_ring_encodes_in_its_own_thread_and_never_holds_the_camera_back():
    ring = FrameRing(seconds=2.0, fps=10.0, width=160)
    big = [np.full((1080, 1920, 3), k, np.uint8) for k in range(3)]
    taken = [ring.push(k / 10, big[k % 3]) for k in range(60)]      # as fast as the loop goes
    ring.close()                                                      # the frame waiting is still kept
    assert all(taken)
    times = [t for t, _ in ring.frames()]
    assert times == sorted(times) and len(times) <= ring.limit
    assert times[-1] == pytest.approx(5.9)                            # the last frame handed over is kept
    # frames the encoder had no time for were dropped, not queued: memory stays bounded
    assert ring.encoded + ring.dropped == 60 and ring.encoded >= len(times)
    assert decode(ring.frames()[-1][1])[0, 0, 0] == pytest.approx(59 % 3, abs=2)
    assert not ring.push(6.0, big[0])                                 # closed: nothing more taken


def _recorder(tmp_path, **settings):
    return ClipRecorder(tmp_path / "clips", ClipSettings(**settings))


def test_a_clip_covers_its_window_frame_by_frame(tmp_path):
    rec = _recorder(tmp_path, before_s=2.0, after_s=1.0, fps=10.0, width=320)
    ring = rec.ring("camera 0", background=False)
    for k in range(70):                                   # 7 s at 10 frames/s (the ring keeps 6)
        ring.push(k / 10, _frame(k))
    rec.request("violation-7-illegal_play", [5.0, 5.5])
    assert rec.wait_written("violation-7-illegal_play", 30)
    rec.close()
    path = tmp_path / "clips" / "violation-7-illegal_play.webm"
    meta = json.loads(path.with_suffix(".json").read_text())
    assert (meta["t0"], meta["t1"]) == (3.0, 6.5)         # 2 s before the first event, 1 s after the last
    frames, fps = decoded_frames(path)
    assert fps == 10 and len(frames) == meta["frames"] == 36
    # frame n of the clip is the camera's frame at 3.0 + n/10 s
    for n in (0, 17, 35):
        expected = _frame(30 + n)
        assert np.abs(frames[n].astype(int) - expected).mean() < 4, n


def test_the_budget_deletes_the_oldest_clips_of_closed_rulings_never_an_open_one(tmp_path):
    open_now = {"violation-1-overtime"}
    rec = ClipRecorder(tmp_path / "clips", ClipSettings(before_s=1.0, after_s=0.5, width=320),
                       open_stems=lambda: set(open_now))
    ring = rec.ring("camera 0", background=False)
    for k in range(80):
        ring.push(k / 10, _frame(k))
    rec.request("violation-1-overtime", [5.0])
    assert rec.wait_written("violation-1-overtime", 30)
    size = (tmp_path / "clips" / "violation-1-overtime.webm").stat().st_size
    # room for two and a half clips from here on
    rec.settings = dataclasses.replace(rec.settings, budget_mb=2.5 * size / 1e6)
    for i, t in ((2, 5.5), (3, 6.0), (4, 6.5)):     # the same content: the same size
        rec.request(f"violation-{i}-illegal_play", [t])
        assert rec.wait_written(f"violation-{i}-illegal_play", 30)
    rec.close()
    left = sorted(p.name for p in (tmp_path / "clips").glob("*.webm"))
    # the open ruling's clip is the oldest and stays; closed ones went oldest first
    assert "violation-1-overtime.webm" in left
    assert [p.name for p in rec.deleted] == ["violation-2-illegal_play.webm", "violation-3-illegal_play.webm"]
    assert left == ["violation-1-overtime.webm", "violation-4-illegal_play.webm"]
    assert not (tmp_path / "clips" / "violation-2-illegal_play.json").exists()


def test_a_clip_asked_for_just_before_stop_is_written_with_the_frames_there_are(tmp_path):
    rec = _recorder(tmp_path, before_s=2.0, after_s=1.0, width=320, wait_s=120)
    ring = rec.ring("camera 0", background=False)
    for k in range(50):
        ring.push(k / 10, _frame(k))
    rec.request("violation-3-overtime", [4.8])      # wants frames up to 5.8 s; the camera stopped at 4.9
    rec.close()                                      # does not wait the 120 s for the camera
    meta = json.loads((tmp_path / "clips" / "violation-3-overtime.json").read_text())
    assert (meta["t0"], meta["t1"]) == (2.8, 4.9)
    frames, _ = decoded_frames(tmp_path / "clips" / "violation-3-overtime.webm")
    assert len(frames) == meta["frames"] == 22


@pytest.mark.parametrize("data, msg", [
    ({"budget_mb": 0}, "budget_mb must be a number from 1"),
    ({"before_s": "4"}, "before_s must be a number"),
    ({"width": 640.5}, "width must be a whole number"),
    ({"dir": ""}, "dir must be a folder path"),
    ({"enabled": "no"}, "enabled must be true or false"),
    ({"seconds": 3}, "unknown key(s) seconds"),
])
def test_bad_clip_settings_name_the_key(data, msg):
    from table_node.config import ConfigError, parse_config
    with pytest.raises(ConfigError, match=r"^\[clips\]") as err:
        parse_config({"table": {"id": "T01"}, "clips": data})
    assert msg in str(err.value)


def test_clip_settings_from_the_config(tmp_path):
    from table_node.config import parse_config
    cfg = parse_config({"table": {"id": "T01"}, "clips": {"before_s": 3, "budget_mb": 50}}, tmp_path)
    assert cfg.evidence_dir == tmp_path / "evidence"
    assert (cfg.clips.before_s, cfg.clips.after_s, cfg.clips.budget_mb) == (3.0, 1.0, 50.0)
    assert parse_config({"table": {"id": "T01"}, "clips": {"enabled": False}}).evidence_dir is None


def test_a_violation_seen_by_the_camera_gets_its_clip_through_the_camera_path(tmp_path):
    """A real generated video through TableNode.add_camera: cards appear in S's zone
    while E is to lead; the out-of-turn play's clip shows the seconds around it."""
    from tests.vision.conftest import TEST_DECKS
    from vision.reading.table import calibrate
    from vision.training.card_art import load_decks
    from vision.training.synth import SceneGenerator
    from vision.training.synth_table import TablePainter

    painter = TablePainter(SceneGenerator(load_decks(TEST_DECKS), hand_rate=0.0), np.random.default_rng(41))
    empty, _ = painter.frame({}, clean=True)
    played, _ = painter.frame({"S-play": ["S5", "S5"]}, clean=True)
    geo = calibrate(played)
    video = tmp_path / "t.avi"
    out = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, played.shape[1::-1])
    for k in range(40):
        out.write(empty if k < 16 else played)
    out.release()
    ticks = itertools.count()
    node = TableNode("T01", str(tmp_path / "t.sqlite"), clock=lambda: 10.0 + 0.25 * next(ticks),
                     evidence_dir=str(tmp_path / "ev"),
                     clips=ClipSettings(before_s=3.0, after_s=1.0, wait_s=60))
    node.start(tick_every=None)
    try:
        node.submit({"t": 10.0, "type": "deal_start", "deal": 1, "level": "2", "leader": "E"})
        node.add_camera(str(video), geo, zones=["S-play"], retry_every=600)
        assert node.wait_for(lambda n: any(d["type"] == "violation" for d in n.live.decisions("T01")), 120)
        violation = next(d for d in node.live.decisions("T01") if d["type"] == "violation")
        stem = f"violation-{violation['events'][-1]}-out_of_turn_play"
        assert violation["code"] == "out_of_turn_play"
        assert node.clips.wait_written(stem, 60)
    finally:
        node.stop()
    play = next(e for e in node.live.events("T01") if e["id"] == violation["events"][-1])
    clip = tmp_path / "ev" / "T01" / f"{stem}.webm"
    meta = json.loads(clip.with_suffix(".json").read_text())
    assert meta["t0"] == pytest.approx(play["t"] - 3.0, abs=0.01)
    assert meta["t1"] == pytest.approx(play["t"] + 1.0, abs=0.01)
    frames, fps = decoded_frames(clip)
    assert len(frames) == meta["frames"] == 41 and fps == 10
    # the clip starts on the empty table and ends with the cards down, in the camera's pictures
    h, w = frames[0].shape[:2]
    small = lambda f: cv2.resize(f, (w, h), interpolation=cv2.INTER_AREA).astype(int)
    first, last = frames[0].astype(int), frames[-1].astype(int)
    assert np.abs(first - small(empty)).mean() < np.abs(first - small(played)).mean()
    assert np.abs(last - small(played)).mean() < np.abs(last - small(empty)).mean()
    # the node's frames are pushed at the table times the events carry
    assert all(play["t"] - 3.0 - 0.25 <= t <= play["t"] + 1.0 for t in meta["source_frames"])


def test_two_rulings_on_the_same_evidence_share_one_file_and_the_budget_counts_it_once(tmp_path):
    open_now = {"confirm-9-stop_choice"}
    rec = ClipRecorder(tmp_path / "clips", ClipSettings(before_s=1.0, after_s=0.5, width=320),
                       open_stems=lambda: set(open_now))
    ring = rec.ring("camera 0", background=False)
    for k in range(60):
        ring.push(k / 10, _frame(k))
    rec.request("violation-9-illegal_play", [4.0])
    rec.request("confirm-9-stop_choice", [4.0])
    assert rec.wait_written("confirm-9-stop_choice", 30)
    a, b = (tmp_path / "clips" / f"{s}.webm" for s in ("violation-9-illegal_play", "confirm-9-stop_choice"))
    assert a.read_bytes() == b.read_bytes() and a.stat().st_ino == b.stat().st_ino
    size = a.stat().st_size
    # two files of about `size` bytes (three names): within 2.5 sizes nothing goes
    rec.settings = dataclasses.replace(rec.settings, budget_mb=2.5 * size / 1e6)
    rec.request("violation-10-overtime", [5.0])
    assert rec.wait_written("violation-10-overtime", 30)
    assert rec.deleted == [] and a.exists() and b.exists()
    # over a budget of one clip: the closed ruling's name goes, its open twin keeps the file
    rec.settings = dataclasses.replace(rec.settings, budget_mb=1.2 * size / 1e6)
    rec.request("violation-11-overtime", [5.5])
    assert rec.wait_written("violation-11-overtime", 30)
    rec.close()
    assert [p.name for p in rec.deleted][:2] == ["violation-9-illegal_play.webm", "violation-10-overtime.webm"]
    assert b.exists() and b.stat().st_size == size and not a.exists()


def test_a_ruling_restated_asks_for_its_clip_again_and_the_clip_stays(tmp_path):
    # a held request is emitted again when the record is judged again: the same name and window
    rec = _recorder(tmp_path, before_s=1.0, after_s=0.5, width=320)
    ring = rec.ring("camera 0", background=False)
    for k in range(60):
        ring.push(k / 10, _frame(k))
    rec.request("confirm-9-camera_penalty", [4.0])
    assert rec.wait_written("confirm-9-camera_penalty", 30)
    path = tmp_path / "clips" / "confirm-9-camera_penalty.webm"
    first = path.read_bytes()
    rec.request("confirm-9-camera_penalty", [4.0])
    rec.request("violation-9-illegal_play", [4.0])       # and the violation once confirmed
    assert rec.wait_written("violation-9-illegal_play", 30)
    rec.close()
    assert path.read_bytes() == first and path.with_suffix(".json").exists()
    assert (tmp_path / "clips" / "violation-9-illegal_play.webm").read_bytes() == first
