"""ONNX Runtime sessions for the card models: CPU only, a fixed number of threads."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


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
    """A :func:`cpu_session` on the model at ``path`` and its input's name;
    :class:`FileNotFoundError` naming the ``kind`` of model if there is none."""
    if not path.exists():
        raise FileNotFoundError(f"{kind} not found: {path}")
    session = cpu_session(path, threads)
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
