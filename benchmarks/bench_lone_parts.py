"""A rank or a pip boxed alone: how often the index classifier names it a joker (generated pictures).

Many real decks print a card's rank and its pip apart, or a lone pip in a
corner, and the detector then boxes each alone.  On the card faces'
training split (real) most jokers read on cards that are no joker are
such boxes: a lone pip, a "10" without its diamond, a big "3"
(models/MODEL_CARD.md, "A rank or a pip boxed alone").  This bench cuts
the same crops from generated scenes (:func:`vision.training.classifier_data.partial_crops`:
each fully showing index of an upright card split into its rank and its
pip, each boxed tight and jittered as a detector's box is) and reports,
for the classifier given, the share of each kind named a joker likeliest,
and at 0.8 or more; beside them the same scenes' whole indices, read
right.  The pictures are generated; the decks are the training decks
and PySolFC's where ``$GUANDAN_PYSOL_CARDSETS`` names them, or the two
held-out ones (``--decks held-out``).

    python benchmarks/bench_lone_parts.py [--scenes 300] [--seed 5808] [--classifier ONNX] [--decks train|held-out]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.reading.classes import JOKERS  # noqa: E402
from vision.reading.index_classifier import LABELS, NONE, IndexClassifier, crop  # noqa: E402
from vision.training.card_art import HELD_OUT_DECKS, PYSOL_DECKS, PYSOL_ENV, TRAIN_DECKS  # noqa: E402
from vision.training.classifier_data import partial_crops, scene_decks  # noqa: E402
from vision.training.synth import SceneGenerator  # noqa: E402

JOKER_IDS = [LABELS.index(j) for j in JOKERS]


def measure(clf: IndexClassifier, decks: list, scenes: int, seed: int) -> dict:
    """The figures of the module's docstring over ``scenes`` scenes of ``decks``."""
    gen = SceneGenerator(decks, hand_rate=0.0, index_designs=0.3, ink_weight=0.3, stock_tints=0.3, lamp_tints=0.3)
    parts, kinds, whole, names = [], [], [], []
    for i in range(scenes):
        rng = np.random.default_rng([seed, 89, i])
        scene = gen.random_scene(rng)
        for x, allowed in partial_crops(scene, rng):
            parts.append(x)
            kinds.append("rank" if allowed[:NONE].any() else "pip")
        for c, x0, y0, x1, y1 in scene.labels:
            if c < NONE:
                whole.append(crop(scene.image, (x0, y0, x1, y1)))
                names.append(c)
    out: dict = {"pictures": "generated", "scenes": scenes, "seed": seed, "decks": len(decks),
                 "classifier": str(clf.model_path)}
    p = clf.probabilities(parts) if parts else np.zeros((0, len(LABELS)))
    top = p.argmax(axis=1)
    for kind in ("rank", "pip"):
        k = np.array([x == kind for x in kinds], bool)
        joker = k & np.isin(top, JOKER_IDS)
        out[f"{kind} alone"] = {"crops": int(k.sum()), "named a joker": round(float(joker.sum() / max(1, k.sum())), 4),
                                "named a joker at 0.8 or more": int((joker & (p.max(axis=1) >= 0.8)).sum()),
                                "named no index": round(float((k & (top == NONE)).sum() / max(1, k.sum())), 4)}
    q = clf.probabilities(whole) if whole else np.zeros((0, len(LABELS)))
    y = np.array(names, np.int64)
    right = q.argmax(axis=1) == y
    out["whole indices"] = {"crops": len(whole), "read right": round(float(right.mean()), 4) if len(y) else None,
                            "jokers read right": f"{int((right & np.isin(y, JOKER_IDS)).sum())} of "
                                                 f"{int(np.isin(y, JOKER_IDS).sum())}"}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scenes", type=int, default=300)
    ap.add_argument("--seed", type=int, default=5808)
    ap.add_argument("--classifier", type=Path, default=None, help="index classifier ONNX (default: the shipped one)")
    ap.add_argument("--decks", choices=("train", "held-out"), default="train")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    if not 1 <= args.scenes <= 100_000:
        ap.error("--scenes: 1 to 100000")
    names = HELD_OUT_DECKS if args.decks == "held-out" else \
        TRAIN_DECKS + (tuple(PYSOL_DECKS) if os.environ.get(PYSOL_ENV) else ())
    decks = scene_decks(names)
    clf = IndexClassifier(args.classifier, threads=args.threads)
    print(json.dumps(measure(clf, decks, args.scenes, args.seed), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
