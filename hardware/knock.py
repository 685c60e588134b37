"""Optional: a knock on the table as a pass (the rules allow 过 by knocking).

A contact microphone under a seat's edge of the table hears the knock as a
short, sharp burst of energy that dies away within tens of milliseconds.
:class:`KnockDetector` finds such bursts in a stream of samples; speech,
music or a chair scraping (sounds that rise slowly or last) do not count.
:class:`KnockListener` runs it on a sounddevice input and emits ``pass``
events. It is off unless configured, and its events carry a
``confidence`` so the referee can ask for confirmation of weak ones.

>>> import numpy as np
>>> rate = 16_000
>>> quiet = np.random.default_rng(1).normal(0, 0.002, rate)      # 1 s of noise
>>> t = np.arange(int(0.05 * rate)) / rate
>>> knock = 0.5 * np.exp(-t / 0.008) * np.sin(2 * np.pi * 180 * t)
>>> signal = quiet.copy(); signal[8000:8000 + len(knock)] += knock
>>> [round(k.t, 2) for k in KnockDetector(rate).feed(signal)]
[0.5]
"""

from __future__ import annotations

import logging
import threading
import time
import wave
from collections import deque
from dataclasses import dataclass
from typing import Callable

import numpy as np

from referee.events import Event

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Knock:
    t: float            # seconds from the start of the stream (onset, within one hop)
    level: float        # peak RMS of the burst
    snr_db: float       # peak over the background level


class KnockDetector:
    """Find knocks in a mono sample stream, fed in blocks of any size.

    A knock is a hop (``hop`` s) whose RMS rises above ``min_snr_db`` over
    the background (the median of the last ``floor_window`` s; the
    threshold is at least ``min_level``) from under half the threshold two
    hops before (a sharp attack), and which falls back under half the
    threshold within ``max_length`` s (it does not last). The first tenth
    of ``floor_window`` only learns the background. Onsets within
    ``refractory`` s of a knock belong to it (a rap of two knuckles is one
    pass).
    """

    def __init__(self, rate: int, *, hop: float = 0.005, min_snr_db: float = 18.0,
                 min_level: float = 0.01, max_length: float = 0.08, refractory: float = 0.3,
                 floor_window: float = 1.0) -> None:
        self.rate = rate
        self.hop_n = max(1, int(round(hop * rate)))
        self.hop = self.hop_n / rate
        self.min_snr_db = min_snr_db
        self.ratio = 10 ** (min_snr_db / 20)
        self.min_level = min_level
        self.max_hops = max(1, int(round(max_length / self.hop)))
        self.refractory_hops = int(round(refractory / self.hop))
        self._floor = deque(maxlen=max(3, int(round(floor_window / self.hop))))
        self._warm_up = max(1, self._floor.maxlen // 10)   # learn the room before judging
        self._rest = np.zeros(0, dtype=np.float64)
        self._hop_index = 0
        self._above = False            # the last hop was over the threshold
        self._loud = 0                 # hops in a row over the threshold
        self._recent = deque([0.0, 0.0], maxlen=2)   # the two hops before this one
        self._candidate: tuple[int, float, float] | None = None   # (onset hop, background, peak)
        self._quiet_until = -1         # no onsets before this hop (refractory)

    def _background(self) -> float:
        return max(float(np.median(self._floor)) if self._floor else 0.0, self.min_level / self.ratio)

    def feed(self, samples: np.ndarray) -> list[Knock]:
        """Take the next block; return the knocks it completed."""
        data = np.concatenate([self._rest, np.asarray(samples, dtype=np.float64).ravel()])
        whole = len(data) // self.hop_n * self.hop_n
        self._rest = data[whole:]
        if whole == 0:
            return []
        energies = np.sqrt(np.mean(data[:whole].reshape(-1, self.hop_n) ** 2, axis=1))
        found = []
        for e in energies:
            knock = self._step(float(e))
            if knock is not None:
                found.append(knock)
            self._hop_index += 1
        return found

    def _step(self, e: float) -> Knock | None:
        i = self._hop_index
        background = self._background()
        threshold = background * self.ratio
        knock = None
        if self._candidate is not None:
            onset, cand_background, peak = self._candidate
            peak = max(peak, e)
            if e < cand_background * self.ratio / 2:     # died away: a knock
                self._candidate = None
                self._quiet_until = i + self.refractory_hops
                knock = Knock(onset * self.hop, peak, float(20 * np.log10(peak / cand_background)))
            elif i - onset >= self.max_hops:             # lasts: speech, music, scraping
                self._candidate = None
            else:
                self._candidate = (onset, cand_background, peak)
        elif (e >= threshold and not self._above and i >= self._quiet_until
              and len(self._floor) >= self._warm_up
              and self._recent[0] < max(threshold / 2, 2 * background)):
            self._candidate = (i, background, e)
        self._above = e >= threshold
        self._recent.append(e)
        self._loud = self._loud + 1 if self._above else 0
        # The floor learns from quiet hops; a room that stays loud for a whole
        # window has become the new background.
        if self._candidate is None and (not self._above or self._loud > self._floor.maxlen
                                        or len(self._floor) < self._warm_up):
            self._floor.append(e)
        return knock


def confidence(snr_db: float, min_snr_db: float = 18.0) -> float:
    """0.5 at the threshold, rising to 1.0 at 20 dB above it.

    >>> confidence(18.0), confidence(28.0), confidence(60.0)
    (0.5, 0.75, 1.0)
    """
    return round(0.5 + 0.5 * min(1.0, max(0.0, (snr_db - min_snr_db) / 20)), 3)


class KnockListener:
    """A contact microphone for one seat: knocks in, ``pass`` events out.

    No input device: logs once and does nothing (like the speaker).
    """

    def __init__(self, seat: str, emit: Callable[[Event], None], *, table: str = "T01",
                 device: int | str | None = None, rate: int = 16_000,
                 clock: Callable[[], float] = time.time, **detector_options) -> None:
        self.seat, self.table, self.emit = seat, table, emit
        self.device, self.rate, self.clock = device, rate, clock
        self.detector = KnockDetector(rate, **detector_options)
        self.failed: str | None = None
        self.count = 0
        self._stream = None
        self._t0: float | None = None
        self._lock = threading.Lock()

    def take(self, samples: np.ndarray) -> list[Event]:
        """Feed samples (what the input callback does); emit and return events."""
        with self._lock:
            if self._t0 is None:
                self._t0 = self.clock()
            events = []
            for k in self.detector.feed(samples):
                self.count += 1
                e = Event(type="pass", t=round(self._t0 + k.t, 3), table=self.table, seat=self.seat,
                          source="device",
                          confidence=confidence(k.snr_db, self.detector.min_snr_db),
                          uid=f"knock-{self.table}-{self.seat}:{self._t0:.3f}:{self.count}",
                          extra={"device": f"knock-{self.seat}", "detector": "knock"})
                self.emit(e)
                events.append(e)
            return events

    def start(self) -> bool:
        try:
            import sounddevice as sd
            self._stream = sd.InputStream(device=self.device, channels=1, samplerate=self.rate,
                                          callback=lambda data, frames, when, status:
                                          self.take(data[:, 0].copy()))
            self._stream.start()
        except Exception as exc:   # no PortAudio, no such device, device busy
            self.failed = f"{type(exc).__name__}: {exc}"
            log.warning("knock detector for seat %s has no input (%s); off", self.seat, self.failed)
            return False
        return True

    def stop(self) -> None:
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()
            self._stream = None


def read_wav(path: str) -> tuple[np.ndarray, int]:
    """A recording for the detector: mono float samples and the rate.
    16-bit PCM WAV (several channels: the first is used)."""
    try:
        with wave.open(path, "rb") as w:
            if w.getsampwidth() != 2:
                raise ValueError(f"{path}: {8 * w.getsampwidth()}-bit samples; need 16-bit PCM")
            raw = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
            return raw.reshape(-1, w.getnchannels())[:, 0] / 32768.0, w.getframerate()
    except (wave.Error, EOFError) as exc:
        raise ValueError(f"{path}: not a PCM WAV file ({exc})") from None
