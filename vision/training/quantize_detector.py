"""The card detector with 8-bit weights and activations, for a lighter table node.

The detector (``models/cards-yolo11n.onnx``) costs most of a whole-table
frame.  On a CPU with 8-bit dot-product instructions (AVX-512 VNNI, AVX-VNNI,
ARM dot-product) ONNX Runtime runs a model whose convolutions are quantised
to 8 bits in a third less time on one thread (a tenth less on two: its
8-bit kernels gain little from a second thread).  This makes such a model from the
shipped one, with ONNX Runtime's own static quantisation (QDQ, weights
8-bit per channel, activations 8-bit per tensor, convolutions only).  The
activations' ranges are calibrated on what the detector really sees: its
own input pictures, recorded while a float detector reads generated zone
pictures of the training decks and cloths (rows, fans, turned plays, some
with hands) exactly as a table watcher hands them over, turned copies
included.  No held-out deck, cloth or seed is used::

    python -m vision.training.quantize_detector --out models/cards-yolo11n-int8.onnx

Whether the quantised model is as accurate is for ``benchmarks/bench_vision.py
--model`` to say (models/MODEL_CARD.md, "Speed over many tables").  The
turned copies depend on :func:`vision.reading.orientation.cards_hull`
(the cards' part of a zone and, since 2026-12-02, the canvas cut to it),
so its settings are part of the calibration, and so is the CPU (which turned
copies the float detector asks for, and the ranges' last bits): the
shipped file was made with the pad at 64 px (commit 9aaebde), and today's
command makes a slightly different one on each kind of CPU.  One made
again was measured no better (models/MODEL_CARD.md), so the shipped file
is kept by its SHA-256; a new one must be measured, and the confidence
curve fitted again for it, before it replaces it.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from pathlib import Path

import numpy as np

from vision.reading.detector import FLOAT_MODEL, CardDetector
from vision.reading.table import ZONE_MARGIN_MM, ZONE_PX, Zone


class _Recording:
    """Stands in for an ONNX Runtime session: runs the real one and keeps each feed."""

    def __init__(self, session) -> None:
        self.session = session
        self.feeds: list[dict[str, np.ndarray]] = []

    def run(self, names, feed: dict[str, np.ndarray]):
        self.feeds.append({k: v.copy() for k, v in feed.items()})
        return self.session.run(names, feed)

    def run_many(self, names, feeds: list[dict[str, np.ndarray]]):
        return [self.run(names, f) for f in feeds]

    def __getattr__(self, name: str):
        return getattr(self.session, name)


def calibration_inputs(model: Path, zones: int, seed: int) -> list[dict[str, np.ndarray]]:
    """The detector's inputs (each run's feed: its input's name and blob) while it
    reads ``zones`` generated zone pictures (training decks and cloths), four at
    a time as a table's zones."""
    from vision.training.card_art import TRAIN_DECKS, load_decks
    from vision.training.synth import SceneGenerator, random_play

    rng = np.random.default_rng(seed)
    gen = SceneGenerator(load_decks(TRAIN_DECKS))
    det = CardDetector(model, threads=1, hand_landmarks=False, hand_model=False)
    recorder = _Recording(det.session)
    det.session = recorder
    margin = Zone.margin_px(ZONE_MARGIN_MM)
    scale = det.imgsz / max(ZONE_PX)
    for first in range(0, zones, 4):
        pictures = []
        for _ in range(min(4, zones - first)):
            kind = rng.random()
            turn = float(rng.uniform(-45, 45)) if kind < 0.3 else None
            spacing = float(rng.uniform(0.2, 0.35)) if 0.3 <= kind < 0.5 else None
            scene = gen.render(random_play(rng), rng, margin=margin, hand=bool(rng.random() < 0.25),
                               turn=turn, spacing=spacing)
            pictures.append(scene.image)
        det.read_zones(pictures, scale, margin)
    return recorder.feeds


def quantize(model: Path, out: Path, zones: int = 160, seed: int = 20261202) -> int:
    """Write the quantised detector to ``out``; returns the number of input blobs calibrated on."""
    feeds = calibration_inputs(model, zones, seed)
    quantize_convolutions(model, out, feeds)
    return len(feeds)


def quantize_convolutions(model: Path, out: Path, feeds: list[dict[str, np.ndarray]]) -> None:
    """Write ``model`` with its convolutions in 8 bits to ``out``, the
    activations' ranges (min-max) calibrated on ``feeds`` (each run's input):
    ONNX Runtime's static quantisation, QDQ, weights per channel."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.left = iter(feeds)

        def get_next(self):
            return next(self.left, None)

    model, out = Path(model).resolve(), Path(out).resolve()
    # (ONNX Runtime's quantiser leaves scratch files in the working folder: work in a folder of its own)
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):
        # (the model's input size is dynamic: symbolic shape inference cannot follow it)
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(model), str(pre), skip_symbolic_shape=True)
        quantize_static(str(pre), str(out), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        op_types_to_quantize=["Conv"])


def arguments(argv: list[str] | None, prog: str, description: str, what: str, model: Path,
              seed: int) -> argparse.Namespace:
    """The command line both quantisers take (``what``: the model's kind),
    checked: 1-2000 zones, a model file that exists."""
    ap = argparse.ArgumentParser(prog=prog, description=description)
    ap.add_argument("--model", type=Path, default=model, help=f"the float {what} (default: the shipped one)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--zones", type=int, default=160, help="generated zone pictures to calibrate on (1-2000)")
    ap.add_argument("--seed", type=int, default=seed)
    args = ap.parse_args(argv)
    if not 1 <= args.zones <= 2000:
        ap.error("--zones must be 1-2000")
    if not args.model.is_file():
        ap.error(f"no model at {args.model}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv, "python -m vision.training.quantize_detector", __doc__.split("\n")[0], "detector",
                     FLOAT_MODEL, 20261202)
    n = quantize(args.model, args.out, args.zones, args.seed)
    print(f"{args.out}: calibrated on {n} input blobs from {args.zones} zone pictures", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
