"""The optional knock detector, on synthesised contact-microphone audio."""

import json
import logging
import wave

import numpy as np
import pytest

from commands import main
from hardware.knock import KnockDetector, KnockListener, confidence
from referee.events import Event

RATE = 16_000


def knock(amplitude=0.5, seed=0):
    """A knuckle on wood: a click then two damped modes, ~50 ms."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(0.05 * RATE)) / RATE
    body = np.exp(-t / 0.008) * (np.sin(2 * np.pi * 180 * t) + 0.5 * np.sin(2 * np.pi * 950 * t + 1.0))
    click = np.zeros_like(t)
    click[:16] = rng.normal(0, 1, 16)
    return amplitude * (body + 0.6 * click) / 1.5


def tone(freq, seconds, amplitude, rise=0.02):
    t = np.arange(int(seconds * RATE)) / RATE
    env = np.minimum(1.0, t / rise) * np.minimum(1.0, (seconds - t) / rise)
    return amplitude * env * np.sin(2 * np.pi * freq * t)


def scene(seconds, parts, noise=0.003, seed=1):
    """Background noise with sounds added at given times."""
    x = np.random.default_rng(seed).normal(0, noise, int(seconds * RATE))
    for at, sound in parts:
        i = int(at * RATE)
        x[i:i + len(sound)] += sound[:len(x) - i]
    return x


def detect(signal, block=None, **options):
    d = KnockDetector(RATE, **options)
    if block is None:
        return d.feed(signal)
    out = []
    for i in range(0, len(signal), block):
        out += d.feed(signal[i:i + block])
    return out


def test_knocks_are_found_at_their_times_and_other_sounds_are_not():
    truth = [0.8, 2.1, 3.05, 4.6]
    parts = [(t, knock(a, seed=i)) for i, (t, a) in enumerate(zip(truth, (0.5, 0.2, 0.9, 0.1)))]
    parts += [
        (1.2, tone(220, 0.6, 0.5)),          # a voice-like vowel as loud as a knock
        (2.4, tone(700, 0.15, 0.4)),         # a short beep (the countdown speaker)
        (3.6, tone(120, 0.8, 0.6, rise=0.3)),  # a chair scraping in slowly
        (4.0, knock(0.01, seed=9)),          # a knock too faint to tell from the noise
    ]
    found = detect(scene(5.5, parts))
    assert [round(k.t, 2) for k in found] == pytest.approx(truth, abs=0.01)
    assert all(k.snr_db > 18 for k in found)


def test_a_double_rap_is_one_pass_and_two_knocks_apart_are_two():
    found = detect(scene(2.5, [(0.5, knock()), (0.6, knock(seed=3)), (1.5, knock(seed=4))]))
    assert [round(k.t, 2) for k in found] == pytest.approx([0.5, 1.5], abs=0.01)


@pytest.mark.parametrize("block", [1, 37, 160, 1000, 4096])
def test_block_size_does_not_change_the_result(block):
    signal = scene(3.0, [(0.7, knock()), (1.9, knock(0.3, seed=5)), (1.0, tone(300, 0.5, 0.5))])
    assert detect(signal, block=block) == detect(signal)


def test_listener_emits_pass_events_with_confidence():
    events = []
    listener = KnockListener("E", events.append, table="T03", rate=RATE, clock=lambda: 1000.0)
    signal = scene(2.0, [(0.5, knock(0.6)), (1.4, knock(0.08, seed=2))])
    for i in range(0, len(signal), 512):
        listener.take(signal[i:i + 512])
    assert [(e.type, e.seat, e.table, e.source, e.t) for e in events] == [
        ("pass", "E", "T03", "device", 1000.5), ("pass", "E", "T03", "device", 1001.4)]
    assert events[0].confidence > events[1].confidence >= 0.5
    assert len({e.uid for e in events}) == 2 and events[0].get("detector") == "knock"
    assert all(Event.from_json(e.to_json()) == e for e in events)
    assert confidence(18.0) == 0.5 and confidence(100.0) == 1.0


def test_listener_without_an_input_device_logs_once_and_stays_off(caplog):
    listener = KnockListener("S", lambda e: None, device="no such microphone 42")
    with caplog.at_level(logging.WARNING, logger="hardware.knock"):
        assert listener.start() is False
    assert "no input" in caplog.text and listener.failed
    listener.stop()


def test_the_background_adapts_when_the_room_gets_louder():
    signal = scene(5.0, [(0.5, knock(0.5)), (3.8, knock(0.9, seed=6))])
    signal[int(1.0 * RATE):] += np.random.default_rng(7).normal(0, 0.03, len(signal) - RATE)
    found = detect(signal)
    assert [round(k.t, 2) for k in found] == pytest.approx([0.5, 3.8], abs=0.01)


def test_cli_reads_a_recording(tmp_path, capsys):
    signal = scene(2.0, [(0.4, knock(0.6)), (1.3, knock(0.4, seed=8))])
    path = tmp_path / "knocks.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes((np.clip(signal, -1, 1) * 32767).astype("<i2").tobytes())
    assert main(["devices", "knock", "--seat", "W", "--table", "T02", "--wav", str(path)]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(e["type"], e["seat"], e["table"], e["t"]) for e in events] == [
        ("pass", "W", "T02", pytest.approx(0.4, abs=0.01)),
        ("pass", "W", "T02", pytest.approx(1.3, abs=0.01))]
    (tmp_path / "bad.wav").write_text("not audio")
    assert main(["devices", "knock", "--seat", "W", "--wav", str(tmp_path / "bad.wav")]) == 2
    assert "bad.wav: not a PCM WAV file" in capsys.readouterr().err
