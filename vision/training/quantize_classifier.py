"""The index classifier with 8-bit weights and activations, for a lighter table node.

After the detector went to 8 bits ("Speed over many tables",
models/MODEL_CARD.md) the classifier was the next largest share of a
whole-table frame: about 35 ms of 130 on the 2-core VNNI machine, its 58
million multiply-adds a crop running at the CPU's float peak.  Its six
convolutions in 8 bits take half the time with two threads.  This makes
that model from the float one with the detector's recipe
(:func:`vision.training.quantize_detector.quantize_convolutions`: ONNX
Runtime's static quantisation, QDQ, weights 8-bit per channel, activations
8-bit per tensor, convolutions only; the two dense layers and the
``embedding`` output stay float).  The activations' ranges are calibrated
on the classifier's own inputs: every crop it is handed while the shipped
detector and the float classifier read generated zone pictures of the
training decks and cloths, four at a time as a table's zones (rows, turned
rows, tight fans, fans and crooked cards each card its own way, some with
hands), the turned reads' crops included.  No held-out deck, cloth or seed
is used::

    python -m vision.training.quantize_classifier --out models/index-classifier-int8.onnx

As with the detector, the bytes depend on the CPU (its float sums, and which
turned reads the float scores ask for), so the shipped file is kept by its
SHA-256 (models/MODEL_CARD.md, "The index classifier in 8 bits"); a file made
again must be measured with the benches and its confidence curve fitted
before it replaces it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from vision.reading.detector import CardDetector
from vision.reading.index_classifier import FLOAT_MODEL
from vision.reading.table import ZONE_MARGIN_MM, ZONE_PX, Zone
from vision.training.quantize_detector import _Recording, arguments, quantize_convolutions
from vision.training.synth import MULTI_CARD_KINDS, SceneGenerator, play_for_deck

SEED = 20261203


def training_scenes() -> SceneGenerator:
    """The scene generator of the training decks and cloths."""
    from vision.training.card_art import TRAIN_DECKS, load_decks

    return SceneGenerator(load_decks(TRAIN_DECKS))


def zone_pictures(gen: SceneGenerator, rng: np.random.Generator, count: int, margin: int) -> list[np.ndarray]:
    """``count`` generated zone pictures from ``gen`` (:func:`training_scenes`):
    25 % rows turned as a whole, 15 % tight fans, 15 % fans and 15 % rows
    with cards pushed in crooked (each card its own turn), the rest rows as
    laid; a quarter of the pictures not fanned or crooked with a hand."""
    out = []
    while len(out) < count:
        deck = gen.decks[int(rng.integers(len(gen.decks)))]
        kind = rng.random()
        kw: dict = {}
        if kind < 0.25:
            kw["turn"] = float(rng.uniform(-45, 45))
        elif kind < 0.4:
            kw["spacing"] = float(rng.uniform(0.2, 0.35))
        cards = play_for_deck(rng, deck, str(rng.choice(MULTI_CARD_KINDS)) if kind >= 0.4 else None)
        if 0.4 <= kind < 0.55:
            kw["spread"] = float(rng.uniform(30, 90))
        elif 0.55 <= kind < 0.7:
            turns = [0.0] * len(cards)
            for k in rng.choice(len(cards), size=min(len(cards), int(rng.integers(1, 3))), replace=False):
                turns[int(k)] = float(rng.uniform(15, 45) * rng.choice([-1, 1]))
            kw["card_turns"] = turns
        hand = bool(rng.random() < 0.25) and "spread" not in kw and "card_turns" not in kw
        out.append(gen.render(cards, rng, deck=deck, margin=margin, hand=hand, **kw).image)
    return out


def calibration_inputs(zones: int, seed: int = SEED, model: Path = FLOAT_MODEL) -> list[dict[str, np.ndarray]]:
    """The float classifier's (``model``'s) inputs (each run's feed) while the shipped
    detector reads ``zones`` generated zone pictures (:func:`zone_pictures`),
    four at a time."""
    rng = np.random.default_rng(seed)
    det = CardDetector(classifier=model, threads=1, hand_landmarks=False, hand_model=False)
    recorder = _Recording(det.classifier.session)
    det.classifier.session = recorder
    margin = Zone.margin_px(ZONE_MARGIN_MM)
    scale = det.imgsz / max(ZONE_PX)
    gen = training_scenes()      # (the decks loaded once, not for every four zones)
    for first in range(0, zones, 4):
        det.read_zones(zone_pictures(gen, rng, min(4, zones - first), margin), scale, margin)
    return recorder.feeds


def quantize(out: Path, zones: int = 160, seed: int = SEED, model: Path = FLOAT_MODEL) -> int:
    """Write the quantised classifier to ``out``; returns the number of crops calibrated on."""
    feeds = calibration_inputs(zones, seed, model)
    quantize_convolutions(model, out, feeds)
    return sum(len(next(iter(f.values()))) for f in feeds)


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv, "python -m vision.training.quantize_classifier", __doc__.split("\n")[0], "classifier",
                     FLOAT_MODEL, SEED)
    n = quantize(args.out, args.zones, args.seed, args.model)
    print(f"{args.out}: calibrated on {n} crops from {args.zones} zone pictures", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
