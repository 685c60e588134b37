"""How ``models/palm-detection.onnx`` and ``models/hand-landmarks.onnx`` were made.

MediaPipe Hands' two models (Google, Apache-2.0, the licence in
``models/LICENSE-mediapipe.txt``) come inside the ``mediapipe`` 0.10.14
wheel from PyPI as TensorFlow Lite files; later wheels download them at run
time, which a table node must never do.  This takes them out of the wheel,
checks them against the SHA-256 sums below, and converts them to ONNX with
``tf2onnx`` (opset 17), so a table runs them on ONNX Runtime like the
other models (:mod:`vision.reading.hand_landmarks`).

tf2onnx needs TensorFlow, which nothing else here needs: give it its own
environment and name its Python with ``--python``::

    python -m venv /tmp/convert && /tmp/convert/bin/pip install tf2onnx==1.17.0 tensorflow-cpu==2.21.0
    pip download mediapipe==0.10.14 --no-deps -d /tmp/wheel
    python -m vision.training.hand_landmarks_export /tmp/wheel/mediapipe-0.10.14-*.whl \\
        --python /tmp/convert/bin/python --out models

The files shipped were made so (their SHA-256 sums are in
models/MODEL_CARD.md, "Hands found by MediaPipe's models").
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# (member of the wheel, its SHA-256, the ONNX file it becomes)
MODELS = (
    ("mediapipe/modules/palm_detection/palm_detection_full.tflite",
     "1b14e9422c6ad006cde6581a46c8b90dd573c07ab7f3934b5589e7cea3f89a54", "palm-detection.onnx"),
    ("mediapipe/modules/hand_landmark/hand_landmark_full.tflite",
     "11c272b891e1a99ab034208e23937a8008388cf11ed2a9d776ed3d01d0ba00e3", "hand-landmarks.onnx"),
)
OPSET = 17


class ExportError(Exception):
    """The wheel is not the one the models come from, or the conversion failed."""


def extract(wheel: Path, folder: Path) -> list[tuple[Path, str]]:
    """The two TensorFlow Lite files written into ``folder``, each with the
    ONNX name it becomes; :class:`ExportError` if one is missing or not the
    file the shipped models were made from."""
    out = []
    try:
        with zipfile.ZipFile(wheel) as z:
            for member, digest, onnx_name in MODELS:
                try:
                    data = z.read(member)
                except KeyError:
                    raise ExportError(f"{wheel.name} has no {member}: use the mediapipe 0.10.14 wheel") from None
                if hashlib.sha256(data).hexdigest() != digest:
                    raise ExportError(f"{member} in {wheel.name} is not the file the shipped models were made from")
                path = folder / Path(member).name
                path.write_bytes(data)
                out.append((path, onnx_name))
    except (OSError, zipfile.BadZipFile) as exc:
        raise ExportError(f"cannot read the wheel {wheel}: {exc}") from None
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("wheel", type=Path, help="mediapipe-0.10.14-*.whl")
    ap.add_argument("--python", default=sys.executable, help="a Python with tf2onnx and TensorFlow")
    ap.add_argument("--out", type=Path, default=Path("models"))
    args = ap.parse_args(argv)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for tflite, onnx_name in extract(args.wheel, Path(tmp)):
                target = args.out / onnx_name
                done = subprocess.run([args.python, "-m", "tf2onnx.convert", "--tflite", str(tflite),
                                       "--output", str(target), "--opset", str(OPSET)],
                                      capture_output=True, text=True)
                if done.returncode != 0:
                    raise ExportError(f"tf2onnx failed on {tflite.name}: {done.stderr.strip()[-400:]}")
                print(f"{target}  sha256 {hashlib.sha256(target.read_bytes()).hexdigest()}")
    except ExportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
