"""The command line: devices list/monitor/run and simulate-devices, on real ptys."""

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from commands import main
from hardware.simulator import SimulatedDevice

from .helpers import wait_for

ROOT = Path(__file__).resolve().parents[2]
BINDING = '[devices.P01]\ntable = "T01"\nseats = "ES"\n'


class Lines:
    """A process's stdout lines, collected by a thread as they come."""

    def __init__(self, proc):
        self.lines, self.closed = [], False
        threading.Thread(target=self._read, args=(proc.stdout,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            self.lines.append(line.rstrip("\n"))
        self.closed = True

    def until(self, done, timeout):
        """The lines so far, once ``done(lines)`` holds or the deadline passes."""
        wait_for(lambda: done(list(self.lines)) or self.closed, timeout=timeout)
        return list(self.lines)


def start(*args):
    return subprocess.Popen([sys.executable, "-m", "commands", *args], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def stop(proc):
    proc.terminate()
    try:
        return proc.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()


def test_simulated_devices_feed_devices_run_end_to_end(tmp_path):
    script = tmp_path / "demo.sim"
    script.write_text("device P01 E noise=0.2\ndevice P02 SN\n"
                      "0.1 P01 pass E\n0.2 P02 count N 9\n0.3 P02 clear N\n0.4 P02 pass S\n")
    sim = start("simulate-devices", "--script", str(script), "--binding-out", str(tmp_path / "b.toml"),
                "--link-dir", str(tmp_path))
    run = None
    try:
        head = Lines(sim).until(lambda ls: "ready" in ls, timeout=10)
        assert head[:2] == [f"P01 {tmp_path}/P01 (-> {os.path.realpath(tmp_path / 'P01')})",
                            f"P02 {tmp_path}/P02 (-> {os.path.realpath(tmp_path / 'P02')})"]
        run = start("devices", "run", "--binding", str(tmp_path / "b.toml"),
                    "--port", str(tmp_path / "P01"), "--port", str(tmp_path / "P02"))
        def presses(lines):
            return [json.loads(x) for x in lines if '"device_status"' not in x]

        out = Lines(run).until(lambda ls: len(presses(ls)) == 4, timeout=10)
        got = presses(out)
        assert sorted((e["type"], e["seat"], e.get("count")) for e in got) == [
            ("pass", "E", None), ("pass", "S", None), ("report", "N", 9), ("report_clear", "N", None)]
        p02 = [(e["type"], e["seat"]) for e in got if e["device"] == "P02"]
        assert p02 == [("report", "N"), ("report_clear", "N"), ("pass", "S")]   # in press order
        assert all(e["source"] == "device" and e["table"] == "T01" for e in got)
    finally:
        if run is not None:
            stop(run)
        stop(sim)


def test_devices_monitor_prints_frames_and_acks(tmp_path, capsys):
    (tmp_path / "b.toml").write_text(BINDING)
    with SimulatedDevice("P01", "ES") as dev:
        dev.press_count("S", 7)
        assert main(["devices", "monitor", dev.path, "--binding", str(tmp_path / "b.toml"),
                     "--heartbeats", "--duration", "1.6"]) == 0
    out, err = capsys.readouterr()
    assert "rx      P01 #1 HELLO fw=sim-1.0 seats=ES" in out
    assert "tx      P01 #1 ACK" in out
    assert "rx      P01 #2 COUNT seat=S count=7" in out
    assert '"type":"report","seat":"S","count":7' in out
    assert " HB " in out
    assert f"{dev.path}: " in err and "opened 1x" in err


def test_devices_list_shows_bound_devices_and_probes_who_is_there(tmp_path, capsys):
    (tmp_path / "b.toml").write_text(BINDING)
    with SimulatedDevice("P01", "ES") as dev, SimulatedDevice("X9", "W") as stranger:
        assert main(["devices", "list", "--binding", str(tmp_path / "b.toml"),
                     "--port", dev.path, "--port", stranger.path, "--probe", "1.3"]) == 0
        out = capsys.readouterr().out
        assert dev.acked == [] and stranger.acked == []           # a probe only listens
    assert "Serial ports:" in out
    assert f"P01              table T01    seats ES   serves pass,count  heard on {dev.path}" in out
    assert "Heard but not bound" in out and f"X9               on {stranger.path}" in out


@pytest.mark.parametrize("argv, message", [
    (["devices", "list", "--binding", "/nonexistent/b.toml"], "argument --binding: /nonexistent/b.toml does not exist"),
    (["devices", "monitor", "/dev/null", "--duration", "0"], "argument --duration: 0 is not a number of seconds above 0"),
    (["devices", "run", "--binding", "{b}"], "no ports: give --port PATH"),
    (["simulate-devices", "--script", "/nonexistent.sim"], "argument --script: /nonexistent.sim does not exist"),
    (["simulate-devices", "--device", "P01:EX"], "--device P01:EX: bad seats 'EX'"),
    (["simulate-devices", "--device", "P01:E", "--device", "P01:S"], "device P01 given twice"),
    (["simulate-devices", "--noise", "3"], "argument --noise: 3 is not a probability from 0 to 1"),
])
def test_bad_input_is_named_with_exit_status_2(argv, message, tmp_path, capsys):
    (tmp_path / "b.toml").write_text(BINDING)
    argv = [a.replace("{b}", str(tmp_path / "b.toml")) for a in argv]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_keyboard_mode_takes_actions_from_stdin(tmp_path):
    sim = subprocess.Popen([sys.executable, "-m", "commands", "simulate-devices", "--device", "K1:E",
                            "--link-dir", str(tmp_path)], cwd=ROOT, text=True,
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        lines = Lines(sim)
        assert "ready" in lines.until(lambda ls: "ready" in ls, timeout=10)
        sim.stdin.write("pass E\nK1 count E 3\nK1 pass N\nquit\n")
        sim.stdin.flush()
        sim.wait(timeout=10)
        err = sim.stderr.read()
    finally:
        if sim.poll() is None:
            stop(sim)
    out = lines.until(lambda ls: False, timeout=5)     # to the end of the output
    assert out[out.index("ready") + 1:] == ["K1 pass E", "K1 count E 3"]
    assert "device K1 has no seat 'N'" in err and sim.returncode == 0
    assert wait_for(lambda: not (tmp_path / "K1").exists())   # the port went away with it
