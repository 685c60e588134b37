"""Whether what the detector boxed as a hand is one: a small CNN on the box, at run time.

The card detector boxes hands, but it learnt them from drawn hands on
generated cloths: on real photographs it finds nearly every real hand and
also takes wood, cork, carpet, paper and shadows for hands (models/MODEL_CARD.md,
"Hands on real photographs").  As the index classifier does for index
boxes, this second stage looks at each hand box the detector proposes and
says whether a hand is in it.  It was trained on photographs of real hands
and of real tables without one (:mod:`vision.training.real_photos`) and on
generated scenes.  Making it: :mod:`vision.training.hand_model`.

>>> model = HandModel()                                            # doctest: +SKIP
>>> model.probabilities([(zone_picture, (120.0, 40.0, 420.0, 300.0))])   # doctest: +SKIP
array([0.998], dtype=float32)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.reading.index_classifier import crop as index_crop, to_blob
from vision.reading.runtime import model_path, open_model

INPUT = 64            # crops are INPUT x INPUT
MARGIN = 0.1          # crops take this share of the box's size around it
DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "models" / "hand-classifier.onnx"
ENV = "GUANDAN_HAND_MODEL"   # the environment variable naming another model file


def crop(image: np.ndarray, box: tuple[float, ...], margin: float = MARGIN) -> np.ndarray:
    """The box with a margin around it, at the model's input size (BGR uint8);
    the index classifier's crop, square (a box at least a pixel each way)."""
    x0, y0, x1, y1 = box[:4]
    return index_crop(image, (x0, y0, max(x1, x0 + 1.0), max(y1, y0 + 1.0)), margin, (INPUT, INPUT))


class HandModel:
    """The exported hand model on ONNX Runtime (one logit a crop)."""

    def __init__(self, model: str | Path | None = None, threads: int = 2):
        path = model_path(model, ENV, DEFAULT_MODEL)
        self.session, self.input_name = open_model("hand model", path, threads)
        self.model_path = path

    def probabilities(self, boxed: list[tuple[np.ndarray, tuple[float, ...]]]) -> np.ndarray:
        """For each (picture, box), the probability that a hand is in the box."""
        if not boxed:
            return np.zeros(0, np.float32)
        logits = self.session.run(None, {self.input_name: to_blob([crop(im, b) for im, b in boxed])})[0]
        return (1.0 / (1.0 + np.exp(-logits.reshape(-1)))).astype(np.float32)
