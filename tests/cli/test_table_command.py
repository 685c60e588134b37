"""``guandan-ref table``: what would stop it is said before it starts; a missing
camera is said once, without OpenCV's own messages."""

import signal
import socket
import subprocess
import sys
import threading

import numpy as np

from vision.reading.table import TableGeometry, default_layout

from tests.cli.helpers import cli, env


def _config(tmp_path, port=0, users=True, camera="97"):
    TableGeometry("T01", 900.0, default_layout(900.0), homography=np.eye(3) * 2,
                  image_size=(1920, 1920)).save(tmp_path / "table.json")
    if users:
        assert cli("users", "add", "li", "--file", tmp_path / "users.toml", "--tables", "T01",
                   "--password", "secret").returncode == 0
    cfg = tmp_path / "table.toml"
    cfg.write_text(f'[table]\nid = "T01"\n\n[[camera]]\nsource = "{camera}"\ngeometry = "table.json"\n\n'
                   f'[dashboard]\nport = {port}\nusers = "users.toml"\n')
    return cfg


def test_missing_users_file_and_busy_port_are_said_before_anything_starts(tmp_path):
    r = cli("table", "--config", _config(tmp_path, users=False))
    assert r.returncode == 2 and "users add NAME --role referee --tables T01" in r.stderr
    assert not (tmp_path / "T01.sqlite").exists()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        r = cli("table", "--config", _config(tmp_path, port=s.getsockname()[1]))
    assert r.returncode == 2 and "[dashboard] port" in r.stderr and len(r.stderr.splitlines()) == 1


def test_a_missing_camera_is_said_once_and_opencv_keeps_quiet(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "commands", "table", "--config", _config(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env())
    seen = threading.Event()
    err: list[str] = []

    def read():
        for line in proc.stderr:
            err.append(line)
            if "camera 97" in line:
                seen.set()
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert seen.wait(60), "".join(err)
    finally:
        proc.send_signal(signal.SIGTERM)
        out = proc.stdout.read()
        proc.wait(30)
        reader.join(10)
    assert "T01: refereeing" in out and "T01: stopped" in out
    camera_lines = [line for line in err if "camera 97" in line]
    assert len(camera_lines) == 1, err                       # once, not printed and logged
    assert camera_lines[0].startswith("guandan-ref table: T01: camera 97")
    assert not any("WARN" in line or "VIDEOIO" in line or "ERROR:" in line for line in err), err


def test_ctrl_c_stops_the_table_also_when_started_with_sigint_ignored(tmp_path):
    """A script's background job inherits SIGINT ignored; the table still stops on it, cleanly."""
    proc = subprocess.Popen([sys.executable, "-m", "commands", "table", "--config", _config(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env(),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        for line in proc.stdout:          # what it prints before it referees (if anything), then that
            if "T01: refereeing" in line:
                break
        else:
            raise AssertionError("the table ended before refereeing")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
        assert "T01: stopped" in proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()


def test_the_demo_says_at_once_that_its_port_is_busy_and_takes_a_free_one(monkeypatch, capsys):
    from commands import main
    from table_node import demo

    asked = {}

    def fake_demo(workdir, **kw):      # stands for the minutes of rendering and playing
        asked.update(kw)
        return demo.DemoResult(workdir or "log", {}, None, 0)
    monkeypatch.setattr(demo, "run_demo", fake_demo)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        busy = s.getsockname()[1]
        assert main(["demo", "--port", str(busy), "--exit"]) == 0
    assert asked["port"] == 0 and asked["cache"] is True
    err = capsys.readouterr().err
    assert f"port {busy} cannot be used" in err and "takes a free port" in err
