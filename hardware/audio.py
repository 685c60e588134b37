"""The table speaker: countdown beeps (读秒) and the violation alert.

Every sound is generated here with numpy, so nothing is downloaded and
tests can check the waveforms. :class:`AudioSink` reads the referee's
decisions (a sink: it decides nothing) and plays cues at their times:

- ``countdown`` (``t``, ``seconds`` of 读秒): a beep on each of the last
  ``last`` (default 10) seconds, a higher one on the final second, a long
  tone at zero;
- ``violation``: the alert, at once: a two-tone warble, unlike any beep;
- ``turn``, ``trick_end``, ``deal_end``, ``match_end``: the player acted,
  so pending countdown beeps are dropped.

>>> [(c.t, c.sound, c.remaining) for c in countdown_cues(100.0, last=3)]
[(97.0, 'tick', 3), (98.0, 'tick', 2), (99.0, 'last', 1), (100.0, 'time_up', 0)]
>>> w = render("tick"); w.dtype, len(w) == int(0.12 * SAMPLE_RATE)
(dtype('float32'), True)

With no audio device (or no PortAudio) the :class:`Speaker` logs once and
stays quiet; the rest of the product carries on.

Where a speech engine (``espeak-ng``) is installed, ``AudioSink(voice="cmn")``
speaks the count (十, 九, ... 一) instead of beeping; without one it logs
once and beeps.
"""

from __future__ import annotations

import bisect
import io
import logging
import shutil
import subprocess
import threading
import time
import wave
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Mapping

import numpy as np

log = logging.getLogger(__name__)

SAMPLE_RATE = 48_000
VOLUME = 0.5
FADE = 0.005        # seconds of raised-cosine fade at each end: no clicks

# name -> list of (frequency Hz or 0 for a gap, seconds)
SOUNDS: dict[str, list[tuple[float, float]]] = {
    "tick": [(880.0, 0.12)],                      # 10 .. 2 seconds left
    "last": [(1320.0, 0.12)],                     # 1 second left
    "time_up": [(1760.0, 0.5)],                   # the limit is reached
    "alert": [(660.0, 0.12), (0, 0.03), (990.0, 0.12), (0, 0.03)] * 3,   # violation
}
COUNTDOWN_SOUNDS = frozenset({"tick", "last", "time_up"})
CANCELS_COUNTDOWN = frozenset({"turn", "trick_end", "deal_end", "match_end"})


def tone(freq: float, seconds: float, *, rate: int = SAMPLE_RATE, volume: float = VOLUME,
         fade: float = FADE) -> np.ndarray:
    """A sine tone (float32, mono) with faded ends; ``freq`` 0 is silence.

    >>> t = tone(1000, 0.1, rate=8000)
    >>> len(t), float(abs(t[0])) < 1e-6, round(float(t.max()), 2)
    (800, True, 0.5)
    """
    n = int(round(seconds * rate))
    if freq <= 0 or n == 0:
        return np.zeros(n, dtype=np.float32)
    wave = volume * np.sin(2 * np.pi * freq * np.arange(n) / rate)
    k = min(int(fade * rate), n // 2)
    if k:
        ramp = 0.5 - 0.5 * np.cos(np.pi * np.arange(k) / k)
        wave[:k] *= ramp
        wave[n - k:] *= ramp[::-1]
    return wave.astype(np.float32)


@lru_cache(maxsize=None)
def render(name: str, rate: int = SAMPLE_RATE) -> np.ndarray:
    """The waveform of a named sound (cached; do not modify it)."""
    if name not in SOUNDS:
        raise KeyError(f"unknown sound {name!r} (one of {', '.join(SOUNDS)})")
    return np.concatenate([tone(f, s, rate=rate) for f, s in SOUNDS[name]])


def spoken(text: str, *, voice: str = "cmn", rate: int = SAMPLE_RATE,
           engine: str = "espeak-ng") -> np.ndarray | None:
    """``text`` read by the speech engine, as float32 at ``rate``, peak at
    :data:`VOLUME`; None when the engine is missing or fails."""
    exe = shutil.which(engine)
    if exe is None:
        return None
    try:
        wav = subprocess.run([exe, "--stdout", "-v", voice, text], capture_output=True,
                             timeout=10, check=True).stdout
        with wave.open(io.BytesIO(wav)) as w:
            src_rate, width = w.getframerate(), w.getsampwidth()
            raw = w.readframes(w.getnframes())
    except (subprocess.SubprocessError, OSError, wave.Error, EOFError):
        return None
    if width != 2 or len(raw) < 2:
        return None
    x = np.frombuffer(raw[:len(raw) // 2 * 2], dtype="<i2").astype(np.float64)
    n = int(len(x) * rate / src_rate)
    x = np.interp(np.arange(n) * src_rate / rate, np.arange(len(x)), x)   # resample
    peak = np.max(np.abs(x))
    return (x * (VOLUME / peak) if peak else x).astype(np.float32)


@dataclass(frozen=True, order=True)
class Cue:
    """A sound due at time ``t`` (the decisions' clock)."""

    t: float
    sound: str
    seat: str | None = None
    remaining: int | None = None    # countdown: whole seconds left at t


def countdown_cues(deadline: float, *, last: int = 10, seat: str | None = None) -> list[Cue]:
    """Beeps at ``deadline - last`` .. ``deadline - 1``, then ``time_up``."""
    cues = [Cue(deadline - k, "last" if k == 1 else "tick", seat, k) for k in range(last, 0, -1)]
    return cues + [Cue(deadline, "time_up", seat, 0)]


def _get(decision: Any, name: str) -> Any:
    """A field of a decision: a dict, or an object with attributes and ``extra``."""
    if isinstance(decision, Mapping):
        return decision.get(name)
    value = getattr(decision, name, None)
    if value is None:
        extra = getattr(decision, "extra", None)
        if isinstance(extra, Mapping):
            value = extra.get(name)
    return value


def cues_for_decision(decision: Any, *, last: int = 10) -> list[Cue]:
    """What a referee decision (a dict or an object with fields) should sound like.

    >>> [c.sound for c in cues_for_decision({"t": 32.0, "type": "countdown",
    ...                                      "seat": "E", "seconds": 3})]
    ['tick', 'tick', 'last', 'time_up']
    >>> cues_for_decision({"t": 7.0, "type": "violation", "seat": "N", "code": "overtime"})
    [Cue(t=7.0, sound='alert', seat='N', remaining=None)]
    """
    kind, t = _get(decision, "type"), _get(decision, "t")
    if not isinstance(t, (int, float)):
        return []
    if kind == "countdown":
        seconds = _get(decision, "seconds")
        if not isinstance(seconds, (int, float)) or seconds < 0:
            return []
        return countdown_cues(t + seconds, last=min(last, int(seconds)), seat=_get(decision, "seat"))
    if kind == "violation":
        return [Cue(float(t), "alert", _get(decision, "seat"))]
    return []


class CueScheduler:
    """Pending cues in time order.

    A cue found more than ``late_tolerance`` seconds after its time is
    skipped, not played: after a stall, a burst of stale beeps would
    mislead the players.

    >>> s = CueScheduler(late_tolerance=0.5)
    >>> s.add(countdown_cues(10.0, last=2))
    >>> [c.sound for c in s.due(8.1)], [c.sound for c in s.due(9.7)], s.skipped
    (['tick'], [], 1)
    """

    def __init__(self, late_tolerance: float = 0.5) -> None:
        self.late_tolerance = late_tolerance
        self.skipped = 0
        self._cues: list[Cue] = []
        self._lock = threading.Lock()

    def add(self, cues: list[Cue]) -> None:
        with self._lock:
            for cue in cues:
                bisect.insort(self._cues, cue)

    def cancel(self, sounds: frozenset[str] = COUNTDOWN_SOUNDS, seat: str | None = None) -> int:
        """Drop pending cues of these sounds (for one seat, or all); return how many."""
        with self._lock:
            keep = [c for c in self._cues
                    if c.sound not in sounds or (seat is not None and c.seat != seat)]
            dropped = len(self._cues) - len(keep)
            self._cues = keep
        return dropped

    def due(self, now: float) -> list[Cue]:
        """Pop the cues due at ``now``, late ones skipped."""
        with self._lock:
            n = 0
            while n < len(self._cues) and self._cues[n].t <= now:
                n += 1
            ready, self._cues = self._cues[:n], self._cues[n:]
        fresh = [c for c in ready if now - c.t <= self.late_tolerance]
        self.skipped += len(ready) - len(fresh)
        return fresh

    @property
    def pending(self) -> list[Cue]:
        with self._lock:
            return list(self._cues)


class Speaker:
    """Play waveforms on a sounddevice output, without blocking.

    Any failure (no PortAudio, no device, a device that vanished) is logged
    once; from then on :meth:`play` returns False and does nothing.
    """

    def __init__(self, device: int | str | None = None, rate: int = SAMPLE_RATE) -> None:
        self.device = device
        self.rate = rate
        self.failed: str | None = None

    def play(self, samples: np.ndarray) -> bool:
        if self.failed is not None:
            return False
        try:
            import sounddevice as sd   # raises OSError when PortAudio is missing
            sd.play(samples, self.rate, device=self.device)
        except Exception as exc:       # PortAudioError, ValueError (no such device), OSError
            self.failed = f"{type(exc).__name__}: {exc}"
            log.warning("no audio output (%s); countdown and alerts stay silent", self.failed)
            return False
        return True


class AudioSink:
    """Turn referee decisions into sounds at the right times.

    ``speaker`` needs only ``play(samples) -> bool`` (a :class:`Speaker`
    by default); ``clock`` must run on the decisions' time base. With a
    ``voice`` (an espeak-ng voice such as ``cmn`` or ``en``) the count is
    spoken where the engine is installed. ``on_play(cue)`` hears of each
    sound played.
    """

    def __init__(self, speaker: Any = None, *, clock: Callable[[], float] = time.time,
                 last: int = 10, late_tolerance: float = 0.5, rate: int = SAMPLE_RATE,
                 voice: str | None = None, engine: str = "espeak-ng",
                 on_play: Callable[[Cue], None] | None = None) -> None:
        self.speaker = speaker if speaker is not None else Speaker(rate=rate)
        self.on_play = on_play
        self.clock = clock
        self.last = last
        self.rate = rate
        self.words: dict[int, np.ndarray] = {}   # remaining seconds -> spoken number
        if voice is not None:
            for n in range(1, last + 1):
                said = spoken(str(n), voice=voice, rate=rate, engine=engine)
                if said is None:
                    log.warning("no speech engine %r for voice %r; the countdown beeps", engine, voice)
                    self.words = {}
                    break
                self.words[n] = said
        self.scheduler = CueScheduler(late_tolerance)
        self.played: list[Cue] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def on_decision(self, decision: Any) -> None:
        kind = _get(decision, "type")
        if kind in CANCELS_COUNTDOWN:
            self.scheduler.cancel()
            return
        cues = cues_for_decision(decision, last=self.last)
        if kind == "countdown":
            self.scheduler.cancel()   # a new countdown replaces the old one
        self.scheduler.add(cues)

    def tick(self, now: float | None = None) -> list[Cue]:
        """Play whatever is due now; return the cues played.

        Each sound replaces the one still playing, so when an alert falls
        due with beeps (the overtime violation comes with ``time_up``),
        only the alert is played.
        """
        cues = self.scheduler.due(self.clock() if now is None else now)
        alerts = [c for c in cues if c.sound == "alert"]
        if alerts:
            self.scheduler.skipped += len(cues) - 1
            cues = alerts[:1]
        for cue in cues:
            sound = self.words.get(cue.remaining) if cue.sound in ("tick", "last") else None
            self.speaker.play(render(cue.sound, self.rate) if sound is None else sound)
            self.played.append(cue)
            if self.on_play is not None:
                self.on_play(cue)
        return cues

    def start(self, interval: float = 0.02) -> "AudioSink":
        def loop() -> None:
            while not self._stop.wait(interval):
                self.tick()
        self._thread = threading.Thread(target=loop, name="audio", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(1.0)
