"""ONNX Runtime sessions for the card models: CPU only, a fixed number of threads."""

from __future__ import annotations

import hashlib
import logging
import os
import platform
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import numpy as np

log = logging.getLogger(__name__)


def model_path(given: str | Path | None, env: str, default: Path) -> Path:
    """A model's file: ``given``, else the environment variable ``env``, else the shipped ``default``.

    >>> model_path("mine.onnx", "GUANDAN_NO_SUCH_VARIABLE", Path("shipped.onnx")).name
    'mine.onnx'
    >>> model_path(None, "GUANDAN_NO_SUCH_VARIABLE", Path("shipped.onnx")).name
    'shipped.onnx'
    """
    return Path(given or os.environ.get(env) or default)


EIGHT_BIT_ENV = "GUANDAN_EIGHT_BIT"   # "1": the 8-bit models, "0" or unset: the float ones (the default)
# x86 instructions that sum 8-bit products in 32 bits.  Without them the
# 8-bit convolutions (SSE, AVX2, AVX-512) sum pairs in 16 bits, which
# saturate: on an AVX2-only AMD EPYC the 8-bit models read held-out plays
# 0.947 exact where the float ones read 0.993 (OpenVINO's
# "Saturation (overflow) issue"; models/MODEL_CARD.md, "8-bit models
# only where the CPU sums them exactly")
EIGHT_BIT_FLAGS = ("avx512_vnni", "avx_vnni", "amx_int8")


class RuntimeSettingError(ValueError):
    """A runtime setting from the environment that is not one of its values."""


def eight_bit_exact(cpu_flags: str | None = None, machine: str | None = None) -> bool:
    """Whether this CPU sums 8-bit products exactly, so the 8-bit models
    read as they were measured: an x86 CPU reporting an 8-bit dot product
    (:data:`EIGHT_BIT_FLAGS`) or an ARM one (``asimddp``); not where there
    is no such flag, or no ``/proc/cpuinfo`` to say.  ``cpu_flags`` and
    ``machine`` stand in for the machine's own (tests).

    >>> eight_bit_exact("fpu avx2 avx512f avx512_vnni", "x86_64"), eight_bit_exact("fpu avx2 fma", "x86_64")
    (True, False)
    >>> eight_bit_exact("fp asimd asimddp", "aarch64"), eight_bit_exact("", "x86_64")
    (True, False)
    """
    flags = set((_cpu_flags() if cpu_flags is None else cpu_flags).split())
    arm = (machine or platform.machine()).lower() in ("aarch64", "arm64")
    return bool(flags & ({"asimddp"} if arm else set(EIGHT_BIT_FLAGS)))


def _cpu_flags() -> str:
    """The first processor's flags from ``/proc/cpuinfo`` (``Features`` on ARM); empty where there is none."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("flags", "Features"):
                    return value
    except OSError:
        pass
    return ""


def eight_bit_chosen() -> bool:
    """Whether the table runs the 8-bit models: only where
    ``GUANDAN_EIGHT_BIT=1`` says so (``0`` or unset: the float ones; any
    other value is a :class:`RuntimeSettingError`).

    The float models are the default on every CPU: they read the same
    everywhere, so a node and the machine replaying its log for an appeal
    agree, and on real photographs they read better than the 8-bit ones
    even where the CPU sums 8-bit products exactly (on a VNNI EPYC, phone
    photographs: card precision 0.745 against 0.731, 15 phantom jokers
    against 20; models/MODEL_CARD.md, "The float models on every CPU").
    The 8-bit ones are a fifth faster there, for a node short of time.
    """
    given = os.environ.get(EIGHT_BIT_ENV, "").strip()
    if given not in ("", "0", "1"):
        raise RuntimeSettingError(f"{EIGHT_BIT_ENV} must be 1 (the 8-bit models) or 0 (the float ones), "
                                  f"not {given[:20]!r}")
    return given == "1"


def shipped_model(eight_bit: Path, float_model: Path) -> Path:
    """The shipped model a table runs: the float one, or the 8-bit file where
    :func:`eight_bit_chosen` (with a warning in the log where the CPU does
    not sum 8-bit products exactly: :func:`eight_bit_exact`)."""
    if not eight_bit_chosen():
        return float_model
    if not eight_bit_exact():
        key = str(eight_bit)
        if key not in _warned_inexact:
            _warned_inexact.add(key)
            log.warning("%s=1 on a CPU without an 8-bit dot product: %s sums 8-bit products in 16 bits "
                        "there and loses cards (models/MODEL_CARD.md)", EIGHT_BIT_ENV, eight_bit.name)
    return eight_bit


_warned_inexact: set[str] = set()


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a model file (a deck profile's classifier, a confidence curve's detector)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def open_model(kind: str, path: Path, threads: int = 2):
    """A :class:`ParallelSession` on the model at ``path`` and its input's name;
    :class:`FileNotFoundError` naming the ``kind`` of model if there is none."""
    if not path.exists():
        raise FileNotFoundError(f"{kind} not found: {path}")
    session = ParallelSession(path, threads)
    return session, session.get_inputs()[0].name


T = TypeVar("T")
R = TypeVar("R")


class Workers:
    """A few threads that share out a list's work: OpenCV's and NumPy's loops
    let go of Python's lock, so a zone's picture work (turning, edges,
    resizing) runs on one core while another zone's runs on the other.  One
    thread (or one item) runs in the caller's thread, in order.

    >>> Workers(2).map(lambda x: x * x, [1, 2, 3])
    [1, 4, 9]
    >>> Workers(1).submit(sum, [1, 2]).result()
    3
    """

    def __init__(self, threads: int = 2, name: str = "picture-work"):
        self.threads = max(1, int(threads))
        self.name = name
        self._pool: ThreadPoolExecutor | None = None
        self._pid = 0

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``[fn(x) for x in items]``, shared out between the threads."""
        items = list(items)
        if self.threads == 1 or len(items) <= 1:
            return [fn(x) for x in items]
        return list(self._executor().map(fn, items))

    def submit(self, fn: Callable[..., R], *args) -> Future[R]:
        """``fn(*args)`` started in a thread of its own (one thread: run now),
        its result to be taken from the :class:`~concurrent.futures.Future`."""
        if self.threads == 1:
            done: Future[R] = Future()
            try:
                done.set_result(fn(*args))
            except Exception as exc:     # raised again by result(), as a thread's would be
                done.set_exception(exc)
            return done
        return self._executor().submit(fn, *args)

    @property
    def started(self) -> bool:
        """Whether any thread was started (one thread never starts one)."""
        return self._pool is not None

    def _executor(self) -> ThreadPoolExecutor:
        # a process forked from this one has none of its threads: a pool of its own
        if self._pool is None or self._pid != os.getpid():
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix=self.name)
            self._pid = os.getpid()
        return self._pool


def cpu_session(path: str | Path, threads: int = 2):
    """An inference session on the CPU with ``threads`` threads, quiet logging.

    Raises whatever ONNX Runtime raises for a file that is not a model.
    """
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    # no busy-waiting between runs: the detector's and the classifier's
    # threads took turns spinning on the same 2 cores (a 4-zone frame 108 -> 64 ms)
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


class ParallelSession:
    """A model run on up to ``threads`` cores by running parts of its work at
    once, each part on one core: the pictures of a batch split between them,
    or several batches (pictures of different sizes) side by side.

    ONNX Runtime's own threads share out the work of one picture's layers,
    and on a 2-core node the second one was mostly idle: four zones in one
    detector run took 40 ms with two of them and 22 ms as two runs of two
    zones at once, one thread each (the 8-bit detector on a 2-core Xeon;
    float 36 -> 24 ms; four turned zones one by one 93 -> 50 ms; a whole
    table's frame 132 -> 96 ms; models/MODEL_CARD.md, "Speed over many
    tables").  Each picture's output is the same either way: a picture is
    computed alone within a batch.

    Work that cannot be split (one picture) runs on a session of ``threads``
    threads as before.  A model that takes a batch of one (MediaPipe's) runs
    several pictures side by side, each on one core (a table's four palm
    searches: 44 -> 30 ms).  A session may be run at once from several
    threads (ONNX Runtime's runs are thread-safe).

    >>> from pathlib import Path
    >>> s = ParallelSession(Path(__file__).parents[2] / "models" / "index-classifier.onnx", threads=2)
    >>> x = np.zeros((5, 3, 48, 32), np.float32)
    >>> name = s.get_inputs()[0].name
    >>> np.array_equal(s.run(None, {name: x})[0], s.one.run(None, {name: x})[0])
    True
    """

    def __init__(self, path: str | Path, threads: int = 2):
        self.threads = max(1, int(threads))
        # unsplittable work keeps every thread (a lone turned zone, one palm search)
        self.wide = cpu_session(path, self.threads)
        self.splits = not isinstance(self.wide.get_inputs()[0].shape[0], int)     # a dynamic batch axis
        self.one = cpu_session(path, 1) if self.threads > 1 else self.wide
        self.workers = Workers(self.threads, "onnx-run")

    def get_inputs(self):
        return self.wide.get_inputs()

    def get_outputs(self):
        return self.wide.get_outputs()

    def get_modelmeta(self):
        return self.wide.get_modelmeta()

    def run(self, output_names: list[str] | None, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        """As ``onnxruntime.InferenceSession.run``, the batch shared out between the cores."""
        return self.run_many(output_names, [feeds])[0]

    def run_many(self, output_names: list[str] | None,
                 feeds: list[dict[str, np.ndarray]]) -> list[list[np.ndarray]]:
        """:meth:`run` for several inputs (e.g. batches of different picture
        sizes) at once; their outputs in the same order."""
        first = [next(iter(f.values())) for f in feeds]
        sizes = [len(v) for v in first]
        work = [int(np.prod(v.shape[1:])) for v in first]      # one picture's values
        shares = self.shares(sizes, work)
        if len(shares) <= 1 or 0 in sizes or self.one is self.wide:
            return [self.wide.run(output_names, f) for f in feeds]

        def one(share: list[tuple[int, int, int]]) -> list[list[np.ndarray]]:
            return [self.one.run(output_names, {name: v[a:b] for name, v in feeds[k].items()})
                    for k, a, b in share]

        done = self.workers.map(one, shares)
        parts = [(part, out) for share, outs in zip(shares, done) for part, out in zip(share, outs)]
        result: list[list[np.ndarray]] = []
        for k in range(len(feeds)):
            mine = [out for (j, _, _), out in sorted(parts, key=lambda p: p[0]) if j == k]
            result.append([np.concatenate(o) if len(o) > 1 else o[0] for o in zip(*mine)])
        return result

    def shares(self, sizes: list[int], work: list[int] | None = None) -> list[list[tuple[int, int, int]]]:
        """How batches of ``sizes`` pictures, each picture of a batch costing
        ``work`` (its values; 1 each if not given), are shared out between the
        threads: for each thread, the (batch, first, end) parts it runs one
        after another.  Pictures go one by one, the costliest first, to the
        thread with the least work so far (a table's four zones and two larger
        turned pictures: each core gets about half the pixels, where taking
        the batches in order left one core idle a tenth of the time), then a
        thread's pictures of one batch run as one part.  A model that cannot
        split a batch keeps each batch whole.

        >>> s = ParallelSession.__new__(ParallelSession)
        >>> s.threads, s.splits = 2, True
        >>> s.shares([4])
        [[(0, 0, 2)], [(0, 2, 4)]]
        >>> s.shares([1, 1, 1])
        [[(0, 0, 1), (2, 0, 1)], [(1, 0, 1)]]
        >>> s.shares([4, 1, 1], [1, 2, 2])      # four zones, two pictures twice as large
        [[(1, 0, 1), (0, 0, 2)], [(2, 0, 1), (0, 2, 4)]]
        >>> s.shares([1])
        [[(0, 0, 1)]]
        """
        work = work or [1] * len(sizes)
        bins = max(1, min(self.threads, sum(sizes) if self.splits else sum(1 for n in sizes if n)))
        load = [0] * bins
        counts = [[0] * len(sizes) for _ in range(bins)]
        units = [(k, 1 if self.splits else n) for k, n in enumerate(sizes) for _ in range(n if self.splits else 1)
                 if n > 0]
        for k, n in sorted(units, key=lambda u: -work[u[0]] * u[1]):   # a stable sort: ties keep their order
            t = load.index(min(load))
            load[t] += work[k] * n
            counts[t][k] += n
        shares: list[list[tuple[int, int, int]]] = [[] for _ in range(bins)]
        start = [0] * len(sizes)
        for t in range(bins):
            for k in sorted(range(len(sizes)), key=lambda k: -work[k]):
                if counts[t][k]:
                    shares[t].append((k, start[k], start[k] + counts[t][k]))
                    start[k] += counts[t][k]
        return [s for s in shares if s]
