"""Every sub-command: ``--help`` works, and bad input is one line on stderr
naming the bad value, exit status 2, never a traceback."""

import json
import shutil
import socket

import pytest

from commands import build_parser
from referee.settings import Settings
from referee.simulation import simulate_match

from tests.cli.helpers import ROOT, cli


def _commands(parser, prefix=()):
    """Every command path: ("judge",), ("devices", "list"), ..."""
    for action in parser._actions:
        if action.__class__.__name__ == "_SubParsersAction":
            for name, sub in action.choices.items():
                yield prefix + (name,)
                yield from _commands(sub, prefix + (name,))


COMMANDS = sorted(set(_commands(build_parser())))


def test_the_walk_finds_every_command():
    names = {c[0] for c in COMMANDS}
    assert {"judge", "replay", "record", "export", "import", "dashboard", "users", "central", "demo",
            "table", "devices", "simulate-devices", "audio", "calibrate", "recognize", "watch"} <= names
    assert ("users", "passwd") in COMMANDS and ("devices", "run") in COMMANDS


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help(command):
    r = cli(*command, "--help")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"usage: guandan-ref {' '.join(command)}") and not r.stderr


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("files")
    events = simulate_match(seed=5, settings=Settings.parse_format("deals:1"))
    (d / "good.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (d / "bin.jsonl").write_bytes(bytes(range(256)) * 4)
    (d / "text.sqlite").write_text("not a database\n")
    (d / "b.toml").write_text('[devices.P01]\ntable = "T01"\nseats = "ES"\n')
    (d / "users.toml").write_text("")
    (d / "a-file").write_text("")
    import cv2
    import numpy as np
    cv2.imwrite(str(d / "frame.png"), np.zeros((48, 64, 3), np.uint8))
    assert cli("record", "--db", d / "log.sqlite", d / "good.jsonl").returncode == 0
    return d


@pytest.fixture(scope="module")
def busy_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


# (argv, words the message must hold); {d} is the files folder, {busy} a port in use
BAD = [
    (["judge", "--level", "99", "--play", "S3"], "unknown level '99'"),
    (["judge", "--level", "7", "--play", "X9"], "X9"),
    (["replay", "{d}/bin.jsonl"], "not UTF-8 text"),
    (["replay", "{d}/missing.jsonl"], "cannot read {d}/missing.jsonl"),
    (["replay", "{d}/good.jsonl", "--countdown", "-5"], "--countdown: -5 is not a number of seconds"),
    (["replay", "{d}/good.jsonl", "--min-confidence", "2"], "--min-confidence: 2 is not a probability"),
    (["replay", "{d}/good.jsonl", "--format", "deals:x"], "deals:x"),
    (["replay", "{d}/good.jsonl", "--csv-dir", "{d}/a-file"], "--csv-dir: {d}/a-file is a file"),
    (["record", "--db", "{d}/text.sqlite", "{d}/good.jsonl"], "text.sqlite"),
    (["export", "--db", "{d}/missing.sqlite"], "--db: {d}/missing.sqlite does not exist"),
    (["export", "--db", "{d}/text.sqlite"], "not a database"),
    (["export", "--db", "{d}/log.sqlite", "--table", "T99"], "no table 'T99'"),
    (["appeal", "--db", "{d}/log.sqlite", "--violation", "99999"], "no violation or confirm request number 99999"),
    (["import", "--db", "{d}/nodir/x.sqlite", "{d}/good.jsonl"], "folder {d}/nodir does not exist"),
    (["import", "--db", "{d}/log.sqlite", "{d}/good.jsonl"], "already holds events of table(s) T01"),
    (["deal", "--db", "{d}/log.sqlite", "--deal", "5"], "no deal 5 in {d}/log.sqlite table T01 (deals: 1)"),
    (["deal", "--db", "{d}/log.sqlite", "--record", "{d}/good.jsonl", "--deal", "1"], "not allowed with argument"),
    (["deal-record"], "ACTION"),
    (["deal-record", "export", "--db", "{d}/log.sqlite", "--table", "T99", "--out", "{d}/m.json"], "no table 'T99'"),
    (["deal-record", "import", "--db", "{d}/new.sqlite", "{d}/good.jsonl"], "good.jsonl: not JSON"),
    (["dashboard", "--db", "{d}/text.sqlite"], "not a database"),
    (["dashboard", "--db", "{d}/typo.sqlite"], "--db: {d}/typo.sqlite does not exist"),
    (["dashboard", "--db", "{d}/log.sqlite", "--port", "-1"], "--port: -1 is not a TCP port"),
    (["dashboard", "--db", "{d}/log.sqlite", "--port", "{busy}"], "cannot serve on 127.0.0.1:{busy}"),
    (["users"], "the following arguments are required"),
    (["users", "add", "x", "--file", "{d}/u.toml"], "no password given"),
    (["users", "list", "--file", "{d}/nousers.toml"], "does not exist"),
    (["users", "remove", "nobody", "--file", "{d}/users.toml"], "no user 'nobody'"),
    (["users", "passwd", "nobody", "--file", "{d}/users.toml", "--password", "secret"], "no user 'nobody'"),
    (["central"], "--redis"),
    (["demo", "--port", "99999"], "--port: 99999 is not a TCP port"),
    (["demo", "--speed", "-1"], "--speed: -1 is not a speed"),
    (["demo", "--seed", "-1000000001"], "--seed: -1000000001 is not a seed from -1000000000"),
    (["demo", "--seed", "five"], "--seed: five is not a seed"),
    (["table", "--config", "{d}/none.toml"], "--config: {d}/none.toml does not exist"),
    (["table", "--config", str(ROOT / "examples" / "table.toml")], "users add NAME"),
    (["devices"], "ACTION"),
    (["devices", "list", "--probe", "-1"], "--probe: -1 is not a number of seconds"),
    (["devices", "monitor", "/dev/ttyNOPE0"], "no serial port /dev/ttyNOPE0"),
    (["devices", "run", "--binding", "{d}/b.toml", "--port", "/dev/ttyNOPE0"], "no serial port /dev/ttyNOPE0"),
    (["devices", "knock", "--seat", "X"], "invalid choice: 'X'"),
    (["simulate-devices", "--noise", "3"], "--noise: 3 is not a probability"),
    (["audio", "--last", "0"], "--last: 0 is not a number of seconds from 1 to 60"),
    (["calibrate", "{d}/frame.png", "--out", "{d}/nodir/t.json"], "folder {d}/nodir does not exist"),
    (["calibrate", "--size-mm", "-900"], "--size-mm: -900 is not a table side in mm"),
    (["calibrate", "0", "--camera-size", "4k"], "--camera-size: 4k is not a frame size WIDTHxHEIGHT"),
    (["calibrate", "0", "--camera-size", "100000x2"], "--camera-size: 100000x2 is not a frame size"),
    (["calibrate", "{d}/frame.png", "--out", "{d}/t.json"], "marker"),
    (["recognize", "{d}/frame.png", "--conf", "5"], "--conf: 5 is not a probability"),
    (["recognize", "{d}/none.jpg"], "{d}/none.jpg does not exist"),
    (["watch", "0", "--table", "{d}/b.toml", "--stable-s", "-1"], "--stable-s: -1 is not a number of seconds"),
    (["watch", "0", "--table", "{d}/none.json"], "none.json does not exist"),
    (["enroll-deck", "{d}/frame.png", "--out", "{d}/deck.npz"], "1 photos given; single photos need one of each"),
    (["camera-check", "--db", "{d}/log.sqlite", "--table", "T99"], "no table 'T99' in"),
    (["camera-check", "--db", "{d}/text.sqlite"], "text.sqlite"),
    (["camera-check", "--db", "{d}/log.sqlite", "--min-reads", "5"], "--min-reads: 5 is not a number of reads"),
    (["camera-check", "--db", "{d}/log.sqlite", "--fit", "{d}/curve.json"], "0 reads were asked about"),
    (["camera-check", "--pg", "sslmode=bogus"], "--pg: sslmode=bogus is not one of"),
    (["camera-check", "--pg", "host=127.0.0.1 port=1 connect_timeout=2"], "--pg: cannot read the venue's record"),
]
if shutil.which("espeak-ng"):
    BAD.append((["audio", "--voice", "bad", "--demo"], "espeak-ng has no such voice"))


@pytest.mark.parametrize("argv, words", BAD, ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_bad_input_is_one_line_and_exit_2(argv, words, files, busy_port):
    fill = lambda s: s.replace("{d}", str(files)).replace("{busy}", str(busy_port))
    r = cli(*map(fill, argv), cwd=files)
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr[-2000:]
    assert lines[0].startswith(f"guandan-ref {argv[0]}")
    assert fill(words) in lines[0]
    assert r.stdout == "" or argv[0] == "replay"     # replay still prints the good lines' decisions


def test_every_command_has_a_bad_input_case():
    groups = ("devices", "users", "deal-record")
    covered = {tuple(a[:2]) if a[0] in groups and len(a) > 1 and not a[1].startswith("-")
               else (a[0],) for a, _ in BAD}
    top = {c for c in COMMANDS if len(c) == 1 and c[0] not in groups}
    nested = {c for c in COMMANDS if len(c) == 2}
    assert top | nested <= covered | {("devices", "knock")} | {("users",)}, (top | nested) - covered


def test_version_and_talk_flags():
    r = cli("--version")
    assert r.returncode == 0 and r.stdout.startswith("guandan-ref ")
    r = cli("-v", "-q", "judge")
    assert r.returncode == 2 and "not allowed with argument" in r.stderr
    # -v and -q may also follow the sub-command
    r = cli("judge", "-q", "--level", "7", "--play", "H7 H7 S8 D8 C8")
    assert r.returncode == 0 and json.loads(r.stdout)["legal"] is True


def test_quiet_keeps_warnings_off_stderr_and_data_on_stdout():
    # an audio output that is not there is a warning: said by default, not with -q
    said = cli("audio", "--output", "no such output 99", "--demo", "--last", "1")
    quiet = cli("-q", "audio", "--output", "no such output 99", "--demo", "--last", "1")
    assert said.returncode == quiet.returncode == 0
    assert said.stderr.startswith("guandan-ref audio: no audio output") and quiet.stderr == ""
    assert said.stdout == quiet.stdout and "alert E" in quiet.stdout     # the cues are the data
