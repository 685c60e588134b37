"""Generated waveforms and cue timing; no speaker needed."""

import io
import logging
import shutil

import numpy as np
import pytest

from commands import main
from hardware.audio import (SAMPLE_RATE, SOUNDS, AudioSink, Cue, CueScheduler, Speaker,
                            countdown_cues, cues_for_decision, render, tone)


def peak_frequencies(wave, rate=SAMPLE_RATE, n=1):
    spectrum = np.abs(np.fft.rfft(wave * np.hanning(len(wave))))
    freqs = np.fft.rfftfreq(len(wave), 1 / rate)
    found = []
    for i in np.argsort(spectrum)[::-1]:
        if all(abs(freqs[i] - f) > 50 for f in found):
            found.append(float(freqs[i]))
        if len(found) == n:
            break
    return found


class RecordingSpeaker:
    """The edge of the machine: records what would have been played."""

    def __init__(self):
        self.played = []

    def play(self, samples):
        self.played.append(samples)
        return True


@pytest.mark.parametrize("freq", [440.0, 880.0, 1320.0, 1760.0])
def test_tone_has_its_frequency_length_and_soft_ends(freq):
    w = tone(freq, 0.2)
    assert w.dtype == np.float32 and len(w) == int(0.2 * SAMPLE_RATE)
    assert peak_frequencies(w)[0] == pytest.approx(freq, abs=6)
    assert abs(w[0]) < 1e-6 and abs(w[-1]) < 0.01        # faded: no click
    assert np.max(np.abs(w)) == pytest.approx(0.5, abs=0.01)
    assert not tone(0, 0.1).any()                           # frequency 0 is silence


def test_countdown_sounds_rise_and_the_alert_is_unlike_any_beep():
    tick, last, up, alert = (render(n) for n in ("tick", "last", "time_up", "alert"))
    f_tick, f_last, f_up = (peak_frequencies(w)[0] for w in (tick, last, up))
    assert f_tick < f_last < f_up
    assert len(up) > 3 * len(tick)                          # time up: long tone
    assert sorted(peak_frequencies(alert, n=2)) == [pytest.approx(660, abs=6), pytest.approx(990, abs=6)]
    beeps = {round(f) for f in (f_tick, f_last, f_up)}
    assert not beeps & {660, 990}
    # the alert warbles: it switches tone and pauses, a beep never does
    quiet = np.abs(alert) < 1e-6
    assert quiet.sum() > 0.1 * len(alert) and len(alert) > len(tick) * 4
    assert set(SOUNDS) == {"tick", "last", "time_up", "alert"}


def test_countdown_cues_are_one_per_second_before_the_deadline():
    cues = countdown_cues(40.0, last=10, seat="E")
    assert [c.t for c in cues] == [30.0 + k for k in range(11)]
    assert [c.remaining for c in cues] == list(range(10, -1, -1))
    assert [c.sound for c in cues] == ["tick"] * 9 + ["last", "time_up"]


def test_decisions_as_dicts_or_objects():
    class Decision:  # shaped like referee.decisions.Decision: fields plus extra
        t, type, seat, extra = 20.0, "countdown", "S", {"seconds": 10.0}
    assert [c.t for c in cues_for_decision(Decision(), last=3)] == [27.0, 28.0, 29.0, 30.0]
    assert cues_for_decision({"t": 5, "type": "turn", "seat": "E"}) == []
    assert cues_for_decision({"type": "violation"}) == []              # no time: nothing
    assert cues_for_decision({"t": 1.0, "type": "countdown", "seconds": 2}) == [
        Cue(1.0, "tick", None, 2), Cue(2.0, "last", None, 1), Cue(3.0, "time_up", None, 0)]


def test_sink_plays_cues_at_their_times_and_the_player_acting_cancels_them():
    speaker = RecordingSpeaker()
    sink = AudioSink(speaker, last=5)
    sink.on_decision({"t": 100.0, "type": "countdown", "seat": "E", "seconds": 10})
    assert sink.tick(104.9) == []
    assert [c.remaining for c in sink.tick(105.0)] == [5]
    assert [c.remaining for c in sink.tick(107.05)] == [3]           # 4 was missed by > 0.5 s
    assert sink.scheduler.skipped == 1
    sink.on_decision({"t": 107.5, "type": "turn", "seat": "N"})      # E played
    assert sink.tick(200.0) == [] and sink.scheduler.pending == []
    assert len(speaker.played) == 2 and np.array_equal(speaker.played[0], render("tick"))


def test_overtime_alert_replaces_the_time_up_tone():
    speaker = RecordingSpeaker()
    sink = AudioSink(speaker, last=2)
    sink.on_decision({"t": 10.0, "type": "countdown", "seat": "W", "seconds": 10})
    sink.on_decision({"t": 20.0, "type": "violation", "seat": "W", "code": "overtime"})
    played = [c.sound for t in (18.0, 19.0, 20.0) for c in sink.tick(t)]
    assert played == ["tick", "last", "alert"]
    assert np.array_equal(speaker.played[-1], render("alert"))


def test_a_new_countdown_replaces_the_old_one():
    s = AudioSink(RecordingSpeaker(), last=3)
    s.on_decision({"t": 0.0, "type": "countdown", "seconds": 10})
    s.on_decision({"t": 2.0, "type": "countdown", "seconds": 10})
    assert [c.t for c in s.scheduler.pending] == [9.0, 10.0, 11.0, 12.0]


def test_scheduler_keeps_time_order_and_cancels_by_seat():
    s = CueScheduler(late_tolerance=0.5)
    s.add([Cue(3.0, "tick", "E"), Cue(1.0, "alert", "N"), Cue(2.0, "tick", "S"), Cue(3.2, "last", "E")])
    assert s.cancel(seat="S") == 1                      # S's beep only
    assert s.cancel(sounds=frozenset({"nothing"})) == 0
    assert [c.t for c in s.due(3.4)] == [3.0, 3.2]      # in time order; the alert at 1.0 is stale
    assert s.skipped == 1 and s.pending == []


def test_no_audio_device_logs_once_and_carries_on(caplog):
    speaker = Speaker(device="no such output device 42")
    with caplog.at_level(logging.WARNING, logger="hardware.audio"):
        assert speaker.play(render("tick")) is False
        assert speaker.play(render("alert")) is False
    assert len(caplog.records) == 1 and "no audio output" in caplog.text
    sink = AudioSink(speaker)
    sink.on_decision({"t": 0.0, "type": "violation", "seat": "E"})
    assert [c.sound for c in sink.tick(0.1)] == ["alert"]           # the sink goes on


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng (apt) not installed")
def test_a_speech_engine_speaks_the_count():
    speaker = RecordingSpeaker()
    sink = AudioSink(speaker, last=3, voice="cmn")
    assert sorted(sink.words) == [1, 2, 3]
    for said in sink.words.values():
        assert said.dtype == np.float32 and 0.1 < len(said) / SAMPLE_RATE < 2.0
        assert np.max(np.abs(said)) == pytest.approx(0.5, abs=0.01)
    assert not np.array_equal(sink.words[1], sink.words[3])
    sink.on_decision({"t": 0.0, "type": "countdown", "seconds": 3})
    for t in (0.0, 1.0, 2.0, 3.0):
        sink.tick(t)
    assert [len(w) for w in speaker.played[:3]] == [len(sink.words[n]) for n in (3, 2, 1)]
    assert np.array_equal(speaker.played[3], render("time_up"))     # zero is a tone


def test_without_a_speech_engine_the_count_beeps(caplog):
    speaker = RecordingSpeaker()
    with caplog.at_level(logging.WARNING, logger="hardware.audio"):
        sink = AudioSink(speaker, last=3, voice="cmn", engine="no-such-speech-engine")
    assert sink.words == {} and len(caplog.records) == 1
    sink.on_decision({"t": 0.0, "type": "countdown", "seconds": 3})
    sink.tick(0.0)
    assert np.array_equal(speaker.played[0], render("tick"))


def test_audio_cli_plays_decisions_from_stdin(monkeypatch, capsys):
    decisions = ('{"t": 6, "type": "turn", "seat": "E"}\n'
                 'not json\n'
                 '{"t": 7, "type": "countdown", "seat": "E", "seconds": 1}\n')
    monkeypatch.setattr("sys.stdin", io.StringIO(decisions))
    assert main(["audio", "--output", "no such output device 42"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == ["last 1 E", "time_up 0 E"]
    assert "stdin line 2: not JSON" in err
    assert main(["audio", "--last", "0"]) == 2
