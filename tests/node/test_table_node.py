"""The table node: config file, sources that are missing, devices through real ptys."""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hardware.binding import Binding, DeviceBinding
from hardware.simulator import SimulatedDevice
from table_node.config import ConfigError, load_config, parse_config
from table_node.node import TableNode

ROOT = Path(__file__).resolve().parents[2]


def test_example_config_parses():
    cfg = load_config(ROOT / "examples" / "table.toml")
    assert cfg.table == "T01"
    assert cfg.settings.match_format == "time_deals" and cfg.settings.deals == 9
    assert cfg.cameras[0].source == "0" and cfg.cameras[0].geometry.name == "table.json"
    assert cfg.database == ROOT / "examples" / "T01.sqlite"
    assert cfg.ports == ["/dev/ttyUSB0"] and cfg.audio is True and cfg.redis is None
    assert cfg.names["teams"] == {"NS": "Nanjing", "EW": "Suzhou"}
    assert cfg.names["players"]["S"] == "Li Na" and cfg.names["captains"]["EW"] == "Wang Fang"


@pytest.mark.parametrize("data,msg", [
    ({}, "[table] id is required"),
    ({"table": {"id": "T01"}, "rulez": {}}, "unknown section"),
    ({"table": {"id": "T01"}, "rules": {"play_limt": 20}}, "unknown key(s) play_limt"),
    ({"table": {"id": "T01"}, "rules": {"play_limit": -1}}, "play_limit"),
    ({"table": {"id": "T01"}, "rules": {"match_format": "deals"}}, "needs deals"),
    ({"table": {"id": "T01"}, "rules": {"camera_penalties": "later"}}, "camera_penalties must be one of"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0"}]}, "needs source and geometry"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json", "margin_mm": -2}]}, "margin_mm"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json", "margin_mm": "wide"}]}, "margin_mm"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json", "zones": "S-play"}]}, "zones must be"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json", "hands": "gloves"}]},
     "[[camera]] 1: hands must be one of 'mediapipe', 'hand-model', got 'gloves'"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json", "hands": True}]}, "hands must be one of"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json", "unread": "no"}]},
     "[[camera]] 1: unread must be true or false, got 'no'"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json", "white_balance": 1}]},
     "[[camera]] 1: white_balance must be true or false, got 1"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json", "frozen_s": 1}]},
     "[[camera]] 1: frozen_s must be a number of seconds from 2 to 600, or 0 to turn the check off, got 1"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json", "frozen_s": True}]}, "frozen_s must be"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json", "frozen_s": "15s"}]}, "frozen_s must be"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json", "threads": 0}]},
     "[[camera]] 1: threads must be a whole number of cores from 1 to 64, got 0"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json", "threads": 2.5}]}, "threads must be"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json", "threads": True}]}, "threads must be"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "t.json", "threads": 65}]}, "threads must be"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "a.json"},
                                         {"source": "1", "geometry": "b.json", "zones": ["S-play"]}]},
     "[[camera]] 1: with several cameras, give each its zones"),
    ({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "a.json", "zones": ["S-play", "E-play"]},
                                         {"source": "1", "geometry": "b.json", "zones": ["N-play", "E-play"]}]},
     "[[camera]] 2: zone E-play is already read by camera 1"),
    ({"table": {"id": "T01"}, "devices": {"ports": "/dev/ttyUSB0"}}, "list of port paths"),
    ({"table": {"id": "T01"}, "dashboard": {"port": 70000}}, "port must be"),
    ({"table": {"id": "T01"}, "dashboard": {"overlay_delay": 900}}, "overlay_delay must be a number of seconds from 0 to 600"),
    ({"table": {"id": "T01"}, "dashboard": {"overlay_delay": "1m"}}, "overlay_delay must be a number of seconds from 0 to 600"),
    ({"table": {"id": "T01"}, "dashboard": {"overlay_themes": "no/such/folder"}}, "overlay_themes must be a directory of theme stylesheets"),
    ({"table": {"id": "T01"}, "match": {"team": {"NS": "A"}}}, "[match]: unknown key(s) team"),
    ({"table": {"id": "T01"}, "match": {"teams": {"NW": "A"}}}, "[match]: 'teams' must name a team by side"),
    ({"table": {"id": "T01"}, "match": {"players": {"S": ""}}}, "[match]: 'player' must be text"),
    ({"table": {"id": "T01"}, "match": {"captains": "Li"}}, "[match]: 'captains' must name a captain"),
])
def test_bad_configs_name_the_key(data, msg):
    with pytest.raises(ConfigError) as exc:
        parse_config(data)
    assert msg in str(exc.value)


def test_the_overlay_delay_and_themes_reach_the_dashboard(tmp_path):
    from web_dashboard import create_app

    (tmp_path / "themes").mkdir()
    (tmp_path / "themes" / "venue.css").write_text(":root { --ov-accent: #c00; }")
    cfg = parse_config({"table": {"id": "T01"}, "dashboard": {"overlay_delay": 30, "overlay_themes": "themes"}},
                       base=tmp_path)
    assert cfg.overlay == {"OVERLAY_DELAY": 30.0, "OVERLAY_THEMES": str(tmp_path / "themes")}
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite"), "TABLES": ["T01"], **cfg.overlay})
    try:
        client = app.test_client()
        # the delay holds the overlay's JSON back (403 while a delay is set) and the theme is served
        assert client.get("/overlay/T01/state.json").status_code == 403
        assert client.get("/overlay/T01?theme=venue").status_code == 200
        assert client.get("/overlay/T01?theme=light").status_code == 400   # the folder replaces the shipped one
    finally:
        app.extensions["guandan_venue"].close()


def test_cameras_read_the_zones_with_the_margin_the_config_gives():
    from vision.reading.table import ZONE_MARGIN_MM

    cfg = parse_config({"table": {"id": "T01"}, "camera": [{"source": "0", "geometry": "a.json"}]})
    assert [(c.margin_mm, c.zones) for c in cfg.cameras] == [(ZONE_MARGIN_MM, None)]    # one camera: every zone
    cfg = parse_config({"table": {"id": "T01"}, "camera": [
        {"source": "0", "geometry": "a.json", "zones": ["S-play", "S-reminder"]},
        {"source": "1", "geometry": "b.json", "margin_mm": 8, "zones": ["N-play"]}]})
    assert [(c.margin_mm, c.zones) for c in cfg.cameras] == [(ZONE_MARGIN_MM, ("S-play", "S-reminder")),
                                                             (8.0, ("N-play",))]


def test_the_hand_cue_the_config_names_reaches_the_camera(tmp_path):
    """[[camera]] hands: MediaPipe's models by default, the hand model when named; unread and white_balance likewise."""
    import numpy as np

    from vision.reading.table import TABLE_MM, TableGeometry, default_layout

    cfg = parse_config({"table": {"id": "T01"}, "camera": [
        {"source": "0", "geometry": "a.json", "zones": ["S-play"]},
        {"source": "1", "geometry": "b.json", "zones": ["N-play"], "hands": "hand-model", "unread": False,
         "white_balance": False, "frozen_s": 0, "threads": 1}]})
    assert [c.hands for c in cfg.cameras] == ["mediapipe", "hand-model"]
    assert [c.threads for c in cfg.cameras] == [2, 1]
    assert [c.frozen_s for c in cfg.cameras] == [15.0, None]
    assert [c.unread for c in cfg.cameras] == [True, False]
    assert [c.white_balance for c in cfg.cameras] == [True, False]
    node = TableNode("T01", str(tmp_path / "t.sqlite"))
    node.start(tick_every=None)
    try:
        # a camera 1 px/mm straight over the cloth: the watcher is made, never fed a frame
        geo = TableGeometry("T01", TABLE_MM, default_layout(), homography=np.eye(3),
                            image_size=(int(TABLE_MM), int(TABLE_MM)))
        watchers = [node.add_camera(str(tmp_path / "none.avi"), geo, zones=["S-play"], retry_every=600, hands=c.hands,
                                    unread=c.unread, white_balance=c.white_balance, frozen_s=c.frozen_s,
                                    threads=c.threads)
                    for c in cfg.cameras]
        cues = [(w.detector.hand_landmarks is not None, w.detector.hand_model is not None) for w in watchers]
        assert cues == [(True, False), (False, True)]
        # ([[camera]] threads: the models' runs and the picture work split between that many cores)
        assert [(w.detector.session.threads, w.detector.workers.threads, w.workers.threads) for w in watchers] \
            == [(2, 2, 2), (1, 1, 1)]
        # ([[camera]] unread: a play zone read as nothing with something laid in it is asked about, or not)
        assert [w.empty_look is not None for w in watchers] == [True, False]
        # ([[camera]] white_balance: the lamp's colour measured on the markers and taken out, or not)
        assert [w.white is not None for w in watchers] == [True, False]
        # ([[camera]] frozen_s: checked on live cameras only; a video file may hold a still stretch)
        assert [w.picture.frozen_s for w in watchers] == [None, None]
        # ([[camera]] confidence_curve: the venue's own curve gives the play events' confidence)
        curve = tmp_path / "venue-curve.json"
        curve.write_text(json.dumps({"size_groups": [{"name": "all", "min_cards": 1, "max_cards": 99}],
                                     "curves": {"all": {"x": [0.5, 0.9], "p": [0.1, 0.6]}}}))
        cfg = parse_config({"table": {"id": "T01"}, "camera": [
            {"source": "0", "geometry": "a.json", "confidence_curve": "venue-curve.json"}]}, base=tmp_path)
        assert cfg.cameras[0].confidence_curve == curve
        venue = node.add_camera(str(tmp_path / "none.avi"), geo, zones=["S-play"], retry_every=600,
                                hands="hand-model", confidence_curve=cfg.cameras[0].confidence_curve)
        assert venue.trackers["S-play"].calibration(0.9, 2) == 0.6
        assert watchers[0].trackers["S-play"].calibration(0.9, 2) > 0.6      # the shipped curve
    finally:
        node.stop()


@pytest.mark.parametrize("text, msg", [
    ("{", "is no confidence calibration"),
    ("[1, 2]", "not a JSON object"),
    ('{"size_groups": [{"name": "all", "min_cards": 1, "max_cards": 99}], "curves": {"all": {"x": [0.5, NaN], '
     '"p": [0.1, 0.2]}}}', "knots must be finite numbers"),
    ('{"size_groups": [{"name": "all", "min_cards": 1, "max_cards": 99}], "curves": {"all": {"x": [0.5, 0.9], '
     '"p": [0.6, 0.2]}}}', "is not increasing"),
    ('{"curves": {}}', "malformed calibration"),
])
def test_a_confidence_curve_that_cannot_be_applied_is_refused_naming_the_key(tmp_path, text, msg):
    (tmp_path / "c.json").write_text(text)
    with pytest.raises(ConfigError) as exc:
        parse_config({"table": {"id": "T01"}, "camera": [
            {"source": "0", "geometry": "a.json", "confidence_curve": "c.json"}]}, base=tmp_path)
    assert str(exc.value).startswith("[[camera]] 1: confidence_curve: ") and msg in str(exc.value)
    with pytest.raises(ConfigError, match="confidence_curve: cannot read"):
        parse_config({"table": {"id": "T01"}, "camera": [
            {"source": "0", "geometry": "a.json", "confidence_curve": "none.json"}]}, base=tmp_path)
    with pytest.raises(ConfigError, match="confidence_curve must be the path of a curve file"):
        parse_config({"table": {"id": "T01"}, "camera": [
            {"source": "0", "geometry": "a.json", "confidence_curve": 0.8}]}, base=tmp_path)


def test_a_camera_reports_only_the_zones_it_is_given(tmp_path):
    """Two zones have plays in the video; the camera given one of them reports that one only."""
    import itertools

    import cv2
    import numpy as np

    from vision.reading.table import calibrate
    from vision.training.card_art import load_decks
    from vision.training.synth import SceneGenerator
    from vision.training.synth_table import TablePainter
    from tests.vision.conftest import TEST_DECKS

    painter = TablePainter(SceneGenerator(load_decks(TEST_DECKS), hand_rate=0.0), np.random.default_rng(41))
    frame, _ = painter.frame({"S-play": ["S5", "S5"], "E-play": ["HA"]}, clean=True)
    geo = calibrate(frame)
    video = tmp_path / "t.avi"
    out = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, frame.shape[1::-1])
    for _ in range(8):
        out.write(frame)
    out.release()
    ticks = itertools.count()
    node = TableNode("T01", str(tmp_path / "t.sqlite"), clock=lambda: 10.0 + 0.25 * next(ticks))
    node.start(tick_every=None)
    try:
        node.submit({"t": 10.0, "type": "deal_start", "deal": 1, "level": "2", "leader": "E"})
        node.add_camera(str(video), geo, zones=["E-play"], retry_every=600)
        # every frame read: the camera says its stream ended
        assert node.wait_for(lambda n: any(e["type"] == "device_status" and not e.get("online")
                                           for e in n.live.events("T01")), 120)
        seen = [(e["type"], e.get("seat"), e.get("cards")) for e in node.live.events("T01")
                if e.get("source") == "vision" and e["type"] != "device_status"]
        assert seen == [("play", "E", ["HA"])]
    finally:
        node.stop()


def test_missing_config_file(tmp_path):
    r = subprocess.run([sys.executable, "-m", "commands", "table", "--config", str(tmp_path / "nope.toml")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "does not exist" in r.stderr and "Traceback" not in r.stderr


def test_table_runs_without_its_camera_and_port_and_says_so(tmp_path):
    cfg = tmp_path / "table.toml"
    cfg.write_text(f"""
[table]
id = "T07"
[[camera]]
source = "{tmp_path / 'no-such-video.mp4'}"
geometry = "no-such-geometry.json"
[devices]
binding = "devices.toml"
ports = ["{tmp_path / 'ttyNOPE'}"]
[dashboard]
port = 0
""")
    (tmp_path / "devices.toml").write_text('[devices.BOX]\ntable = "T07"\nseats = "ESWN"\n')
    proc = subprocess.Popen([sys.executable, "-m", "commands", "table", "--config", str(cfg)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    lines = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            text = "".join(lines)
            if "refereeing" in text and "ttyNOPE" in text and "geometry" in text:
                break
        text = "".join(lines)
        assert "T07: refereeing" in text and "dashboard http://127.0.0.1:" in text
        assert "no-such-geometry.json" in text and "calibrate" in text
        assert "serial port" in text and "ttyNOPE" in text and "by hand" in text
        assert proc.poll() is None                       # still running on what it has
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    assert (tmp_path / "T07.sqlite").exists()


def test_device_presses_reach_the_referee_through_a_pty(tmp_path):
    clock_t = [100.0]
    node = TableNode("T01", str(tmp_path / "t.sqlite"), clock=lambda: clock_t[0]).start(tick_every=None)
    device = SimulatedDevice("BOX", "ESWN", seed=1).start()
    try:
        binding = Binding(devices={"BOX": DeviceBinding("BOX", "T01", ("E", "S", "W", "N"))})
        node.add_devices(binding, ports=[device.path])
        assert node.wait_for(lambda n: any(u.startswith("BOX:online") for u in n.uids), 10)
        node.submit({"t": 100.0, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"})
        node.submit({"t": 101.0, "type": "play", "seat": "S", "cards": ["S3"]})
        clock_t[0] = 102.0
        frame = device.press_pass("E")
        uid = f"BOX:{device.boot}:{frame.seq}"
        assert node.wait_for(lambda n: uid in n.uids, 10)
        events = node.live.events("T01")
        assert events[-1]["type"] == "pass" and events[-1]["seat"] == "E" and events[-1]["t"] == 102.0
        assert node.live.snapshot("T01")["deal"]["turn"] == "N"
        # the device goes silent: the referee says so
        device.silence()
        assert node.wait_for(lambda n: any(u.startswith("BOX:offline") for u in n.uids), 10)
        assert any(d["type"] == "device_offline" for d in node.live.decisions("T01"))
    finally:
        device.stop()
        node.stop()


def test_ticks_make_the_clock_rules_fire(tmp_path):
    t = [0.0]
    node = TableNode("T01", str(tmp_path / "t.sqlite"), clock=lambda: t[0])
    try:
        node.submit({"t": 0.0, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"})
        t[0] = 41.0
        assert [d["type"] for d in node.tick()] == ["countdown"]
        t[0] = 51.0
        assert [d["code"] for d in node.tick() if d["type"] == "violation"] == ["overtime"]
        assert node.tick() == []      # no time passed: nothing to say
    finally:
        node.stop()


def test_a_camera_that_cannot_open_is_shown_offline_and_the_table_goes_on(tmp_path):
    from vision.reading.table import TABLE_MM, TableGeometry, default_layout
    import numpy as np

    geo = TableGeometry(table="T01", size_mm=TABLE_MM, zones=default_layout(TABLE_MM),
                        homography=np.diag([1.0, 1.0, 1.0]), image_size=(900, 900))

    class NoDetector:          # never called: the camera never delivers a frame
        imgsz = 320

        def read_zones(self, images, scale=None):
            raise AssertionError("no frame should reach the detector")

    node = TableNode("T01", str(tmp_path / "t.sqlite"), clock=lambda: 5.0).start(tick_every=None)
    try:
        node.add_camera(str(tmp_path / "missing.mp4"), geo, detector=NoDetector(), retry_every=30)
        assert node.wait_for(lambda n: any(d["type"] == "device_offline"
                                           for d in n.live.decisions("T01")), 10)
        assert any("missing.mp4" in p and "manual entry" in p for p in node.problems)
        # manual entry still works
        node.submit({"t": 6.0, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"})
        assert node.live.snapshot("T01")["deal"]["turn"] == "S"
        assert "camera " + str(tmp_path / "missing.mp4") in node.live.snapshot("T01")["offline"]
    finally:
        node.stop()


def test_camera_events_carry_the_zone_picture_as_evidence(tmp_path):
    import cv2
    import numpy as np

    from referee.events import Event
    from vision.reading.table import TABLE_MM, ZONE_MARGIN_MM, TableGeometry, default_layout

    geo = TableGeometry(table="T01", size_mm=TABLE_MM, zones=default_layout(TABLE_MM),
                        homography=np.diag([1.0, 1.0, 1.0]), image_size=(900, 900))

    frame = np.full((900, 900, 3), 60, np.uint8)
    node = TableNode("T01", str(tmp_path / "t.sqlite"), evidence_dir=str(tmp_path / "ev"))
    try:
        e = Event(type="play", t=12.5, seat="S", cards=("S3",), source="vision", confidence=0.9,
                  extra={"zone": "S-play"})
        out = node.with_evidence(e, frame, geo)
        crop = tmp_path / "ev" / "T01" / out.extra["crop"]
        assert crop.exists() and cv2.imread(str(crop)).shape[:2] == geo.rectify(frame, geo.zone("S-play"), ZONE_MARGIN_MM).shape[:2]
        assert out.cards == ("S3",) and out.extra["zone"] == "S-play"
        # a camera read without a margin keeps the zone's own picture
        e2 = e._replace(t=13.0)
        plain = tmp_path / "ev" / "T01" / node.with_evidence(e2, frame, geo, 0.0).extra["crop"]
        assert cv2.imread(str(plain)).shape[:2] == geo.rectify(frame, geo.zone("S-play")).shape[:2]
    finally:
        node.stop()


def test_the_configured_names_go_into_the_logs_settings_once(tmp_path):
    names = {"teams": {"NS": "Red", "EW": "Blue"}, "players": {"S": "Li", "N": "Zhang"},
             "captains": {"EW": "Wang"}}
    db = str(tmp_path / "t.sqlite")
    node = TableNode("T01", db, names=names, clock=lambda: 5.0)
    snap = node.live.snapshot("T01")
    assert (snap["teams"], snap["players"], snap["captains"]) == (
        names["teams"], names["players"], names["captains"])
    node.stop()
    # the same names again: nothing new in the log; other names: a new settings event
    node = TableNode("T01", db, names=names, clock=lambda: 6.0)
    assert [e["type"] for e in node.live.events("T01")] == ["settings"]
    node.stop()
    node = TableNode("T01", db, names=dict(names, teams={"NS": "Red", "EW": "Gold"}), clock=lambda: 7.0)
    assert [e["type"] for e in node.live.events("T01")] == ["settings", "settings"]
    assert node.live.snapshot("T01")["teams"]["EW"] == "Gold"
    assert any("teams" in p for p in node.problems)
    node.stop()


def test_a_network_camera_that_stalls_is_said_offline_and_opened_again(tmp_path):
    """An IP camera whose stream stops with its connection open: OpenCV waited 30 s on
    it, saying nothing. Now it is said offline after the stall limit and opened again."""
    import cv2
    import numpy as np

    from tests.mjpeg_camera import StallingCamera
    from vision.reading.table import TABLE_MM, TableGeometry, default_layout
    from vision.reading.watch import STALL_S

    geo = TableGeometry(table="T01", size_mm=TABLE_MM, zones=default_layout(TABLE_MM),
                        homography=np.diag([0.5, 0.5, 1.0]), image_size=(450, 450))
    cam = StallingCamera([cv2.GaussianBlur(np.full((450, 450, 3), 90, np.uint8), (3, 3), 0)] * 3)
    node = TableNode("T01", str(tmp_path / "t.sqlite"), clock=lambda: 20.0).start(tick_every=None)

    def said(n):
        return [(e.get("online"), e.get("reason")) for e in n.live.events("T01") if e["type"] == "device_status"]

    try:
        watcher = node.add_camera(cam.url, geo, zones=["S-play"], retry_every=0.2, hands="hand-model")
        assert watcher.picture.frozen_s == 15.0          # a live source: its picture is watched for freezing
        # frames, the stall, the stall said; then opened again: frames arriving, and the stall again
        assert node.wait_for(lambda n: len(said(n)) >= 3, STALL_S * 2 + 30)
        first = said(node)[:3]
        assert [o for o, _ in first] == [True, False, True]
        assert first[0][1] == first[2][1] == "frames arriving"
        assert "(the camera or its link stalled)" in first[1][1] and cam.connections >= 2
        assert any(d["type"] == "device_offline" and d.get("camera") for d in node.live.decisions("T01"))
        assert any("stalled" in p and "retrying" in p for p in node.problems)
    finally:
        node.stop()
        cam.close()


def test_a_network_cameras_every_frame_goes_to_the_evidence_ring(tmp_path):
    """The table reads a network camera's newest frame when it is ready; the
    evidence ring still gets every frame the stream sent (its clips at the
    ring's own rate, not the table's), each stamped with the table's clock."""
    import itertools

    import cv2
    import numpy as np

    from tests.mjpeg_camera import StallingCamera
    from tests.services import wait_until
    from vision.reading.table import TABLE_MM, TableGeometry, default_layout

    geo = TableGeometry(table="T01", size_mm=TABLE_MM, zones=default_layout(TABLE_MM),
                        homography=np.diag([0.5, 0.5, 1.0]), image_size=(450, 450))
    frames = [cv2.GaussianBlur(np.full((450, 450, 3), 40 + 20 * k, np.uint8), (3, 3), 0) for k in range(6)]
    cam = StallingCamera(frames)
    ticks = itertools.count(100.0, 1.0)        # the table's clock: a second a call
    node = TableNode("T01", str(tmp_path / "t.sqlite"), clock=lambda: next(ticks),
                     evidence_dir=str(tmp_path / "ev")).start(tick_every=None)
    try:
        node.add_camera(cam.url, geo, zones=["S-play"], retry_every=600, hands="hand-model")
        ring = node.clips.rings[0][1]
        # every frame sent was handed to the ring (which keeps what its encoder has time for)
        wait_until(lambda: ring.encoded + ring.dropped == len(frames), 60, "every frame handed to the ring")
        ring.flush()
        kept = ring.frames()
        levels = [int(cv2.imdecode(np.frombuffer(jpg, np.uint8), cv2.IMREAD_COLOR).mean().round())
                  for _, jpg in kept]
        assert kept and [t for t, _ in kept] == sorted(t for t, _ in kept)
        assert levels == sorted(set(levels)) and set(levels) <= {40 + 20 * k for k in range(6)}
        assert levels[-1] == 140                   # the last sent is kept: the newest replaces a waiting one
    finally:
        node.stop()
        cam.close()


def test_a_camera_whose_frames_are_not_the_calibrated_size_is_said_offline(tmp_path):
    """A USB camera that came back in its default mode (640x480) after a power cut:
    every frame refused, before only in the operator's problems; now the camera is offline."""
    import cv2
    import numpy as np

    from tests.services import wait_until
    from vision.reading.table import TABLE_MM, TableGeometry, default_layout

    geo = TableGeometry(table="T01", size_mm=TABLE_MM, zones=default_layout(TABLE_MM),
                        homography=np.diag([2.0, 2.0, 1.0]), image_size=(1800, 1800))
    video = tmp_path / "small.avi"
    out = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (640, 480))
    for _ in range(6):
        out.write(np.full((480, 640, 3), 80, np.uint8))
    out.release()
    node = TableNode("T01", str(tmp_path / "t.sqlite"), clock=lambda: 3.0).start(tick_every=None)
    try:
        node.add_camera(str(video), geo, retry_every=600, hands="hand-model")
        wait_until(lambda: any("the stream ended" in p for p in node.problems), 60, "the video's end")
        assert node.wait_for(lambda n: any(e["type"] == "device_status" for e in n.live.events("T01")), 10)
        said = [(e.get("online"), e.get("reason")) for e in node.live.events("T01") if e["type"] == "device_status"]
        # said once, never "frames arriving"
        assert said == [(False, "frame is 640x480, the table was calibrated at 1800x1800: set the camera back "
                                "to that size, or calibrate again")]
        assert any("frame is 640x480" in p for p in node.problems)
        assert [d["type"] for d in node.live.decisions("T01") if d["type"].startswith("device_")] == ["device_offline"]
    finally:
        node.stop()
