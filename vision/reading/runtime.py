"""ONNX Runtime sessions for the card models: CPU only, a fixed number of threads."""

from __future__ import annotations

from pathlib import Path


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
