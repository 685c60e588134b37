"""ONNX Runtime sessions for the card models: CPU only, a fixed number of threads."""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np


def model_path(given: str | Path | None, env: str, default: Path) -> Path:
    """A model's file: ``given``, else the environment variable ``env``, else the shipped ``default``.

    >>> model_path("mine.onnx", "GUANDAN_NO_SUCH_VARIABLE", Path("shipped.onnx")).name
    'mine.onnx'
    >>> model_path(None, "GUANDAN_NO_SUCH_VARIABLE", Path("shipped.onnx")).name
    'shipped.onnx'
    """
    return Path(given or os.environ.get(env) or default)


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

    Work that cannot be split (one picture, or a model that takes a batch of
    one) runs on a session of ``threads`` threads as before.  A session may be
    run at once from several threads (ONNX Runtime's runs are thread-safe).

    >>> from pathlib import Path
    >>> s = ParallelSession(Path(__file__).parents[2] / "models" / "index-classifier.onnx", threads=2)
    >>> x = np.zeros((5, 3, 48, 32), np.float32)
    >>> name = s.get_inputs()[0].name
    >>> np.array_equal(s.run(None, {name: x})[0], s.one.run(None, {name: x})[0])
    True
    """

    def __init__(self, path: str | Path, threads: int = 2):
        self.threads = max(1, int(threads))
        # unsplittable work keeps every thread (a lone turned zone; a model
        # that takes one picture a run, as MediaPipe's do, has no other session)
        self.wide = cpu_session(path, self.threads)
        self.splits = not isinstance(self.wide.get_inputs()[0].shape[0], int)     # a dynamic batch axis
        self.one = cpu_session(path, 1) if self.threads > 1 and self.splits else self.wide
        self._pool: ThreadPoolExecutor | None = None
        self._pid = 0

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
        sizes = [len(next(iter(f.values()))) for f in feeds]
        parts = self.parts(sizes)
        if len(parts) <= 1 or 0 in sizes or self.one is self.wide:
            return [self.wide.run(output_names, f) for f in feeds]

        def one(part: tuple[int, int, int]) -> list[np.ndarray]:
            k, a, b = part
            return self.one.run(output_names, {name: v[a:b] for name, v in feeds[k].items()})

        done = list(self._executor().map(one, parts))
        out: list[list[np.ndarray]] = []
        for k in range(len(feeds)):
            mine = [d for (j, _, _), d in zip(parts, done) if j == k]
            out.append([np.concatenate(o) if len(o) > 1 else o[0] for o in zip(*mine)])
        return out

    def parts(self, sizes: list[int]) -> list[tuple[int, int, int]]:
        """How batches of ``sizes`` pictures are shared out: (batch, first,
        end) parts, at least one a thread where there are pictures enough,
        the largest split in two first.

        >>> s = ParallelSession.__new__(ParallelSession)
        >>> s.threads, s.splits = 2, True
        >>> s.parts([4])
        [(0, 0, 2), (0, 2, 4)]
        >>> s.parts([1, 1, 1])
        [(0, 0, 1), (1, 0, 1), (2, 0, 1)]
        >>> s.parts([1])
        [(0, 0, 1)]
        """
        parts = [(k, 0, n) for k, n in enumerate(sizes) if n > 0]
        while self.splits and len(parts) < self.threads:
            k, a, b = max(parts, key=lambda p: p[2] - p[1], default=(0, 0, 0))
            if b - a < 2:
                break
            i = parts.index((k, a, b))
            mid = (a + b + 1) // 2
            parts[i:i + 1] = [(k, a, mid), (k, mid, b)]
        return parts

    def _executor(self) -> ThreadPoolExecutor:
        # a process forked from this one has none of its threads: a pool of its own
        if self._pool is None or self._pid != os.getpid():
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="onnx-run")
            self._pid = os.getpid()
        return self._pool
