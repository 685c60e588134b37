"""Second stage, at run time: a small CNN names a corner index from its crop.

The YOLO detector only says where the corner indices are (two classes,
index and hand).  This classifier looks at the crop around one detected
index, resized to :data:`CROP_W` x :data:`CROP_H`, and names its card face
(or ``NONE``: not an index at all, which throws out false detections).

Crops come from zone pictures at :data:`vision.reading.table.ZONE_PX` (640 px
wide), where an index is ~35 px tall.  :class:`IndexClassifier` runs the
exported ONNX on ONNX Runtime (:data:`FLOAT_MODEL`; where asked, its
convolutions in 8 bits: :data:`EIGHT_BIT_MODEL`, made by
:mod:`vision.training.quantize_classifier`); making its data and training it is
:mod:`vision.training.index_classifier`.  With a deck profile
(:mod:`vision.reading.deck_profile`, from ``guandan-ref enroll-deck``) the
same run also gives the crops' features, and the deck's own head names them.

>>> clf = IndexClassifier()                                        # doctest: +SKIP
>>> clf.classify(zone_image, [(10, 12, 22, 38)])                    # doctest: +SKIP
[('S5', 0.998)]
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import cv2
import numpy as np

from vision.reading.classes import CARD_NAMES
from vision.reading.deck_profile import EMBEDDING_OUTPUT, DeckProfile, DeckProfileError
from vision.reading.runtime import eight_bit_exact, file_sha256, model_path, open_model, shipped_model

CROP_W, CROP_H = 32, 48
LABELS = CARD_NAMES + ("NONE",)
NONE = len(CARD_NAMES)
log = logging.getLogger(__name__)
# the float model's convolutions in 8 bits, half the time on two cores where
# the CPU sums 8-bit products exactly (vision.training.quantize_classifier;
# models/MODEL_CARD.md), run only where GUANDAN_EIGHT_BIT=1 asks for it
# (vision.reading.runtime.eight_bit_chosen); a table runs the float one
EIGHT_BIT_MODEL = Path(__file__).resolve().parents[2] / "models" / "index-classifier-int8.onnx"
FLOAT_MODEL = EIGHT_BIT_MODEL.with_name("index-classifier.onnx")  # its source, and what training continues from
ENV = "GUANDAN_INDEX_MODEL"  # the environment variable naming another model file
MARGIN = 0.15          # crops take this share of the box's size around it


def shipped_classifier(deck: str | Path | DeckProfile | None = None) -> Path:
    """The shipped classifier file a table runs when none is named: the one
    a deck profile was made for, if it is one of the two shipped files (a
    profile fits one file's features, :class:`DeckProfileError` with any
    other), else the float one (the 8-bit one where ``GUANDAN_EIGHT_BIT=1``:
    :func:`vision.reading.runtime.shipped_model`).

    >>> shipped_classifier() in (EIGHT_BIT_MODEL, FLOAT_MODEL)
    True
    """
    if deck is not None:
        made_for = (deck if isinstance(deck, DeckProfile) else DeckProfile.load(deck)).classifier_sha256
        for path in (EIGHT_BIT_MODEL, FLOAT_MODEL):
            if path.exists() and file_sha256(path) == made_for:
                if path == EIGHT_BIT_MODEL and not eight_bit_exact():
                    log.warning("deck profile made for the 8-bit index classifier, on a CPU that sums 8-bit "
                                "products in 16 bits: reads may lose cards (enroll the deck again on this node "
                                "for the float classifier; models/MODEL_CARD.md)")
                return path
    return shipped_model(EIGHT_BIT_MODEL, FLOAT_MODEL)


def crop(image: np.ndarray, box, margin: float = MARGIN, size: tuple[int, int] = (CROP_W, CROP_H)) -> np.ndarray:
    """The box with a margin, resized to ``size`` (the classifier's input by default; BGR uint8)."""
    x0, y0, x1, y1 = box[:4]
    return turned_crop(image, ((x0 + x1) / 2, (y0 + y1) / 2), (x1 - x0, y1 - y0), 0.0, margin, size)


def turned_crop(image: np.ndarray, centre: tuple[float, float], size: tuple[float, float], turn: float,
                margin: float = MARGIN, out: tuple[int, int] = (CROP_W, CROP_H)) -> np.ndarray:
    """An index of ``size`` (width, height as it stands) centred at ``centre``
    and turned ``turn`` degrees (clockwise as drawn, y down), cut out upright
    with a margin of ``margin`` of its size, resized to ``out`` (an index the
    detector boxed where it lies turned: its box is larger than the index and
    upright).  Unturned, it is :func:`crop` of the index's box.

    >>> img = np.zeros((100, 100, 3), np.uint8)
    >>> img[40:60, 45:55] = 255
    >>> # a wide box over the tall bar: turned a quarter turn, the bar fills more of it
    >>> wide = [turned_crop(img, (50, 50), (20, 10), t) for t in (0.0, 90.0)]
    >>> [round(float((c > 127).mean()), 1) for c in wide]
    [0.4, 0.6]
    """
    w, h = size[0] * (1 + 2 * margin), size[1] * (1 + 2 * margin)
    t = np.radians(turn)
    ux, uy = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    tl = np.array(centre, float) - ux * w / 2 - uy * h / 2
    src = np.float32([tl, tl + ux * w, tl + uy * h])
    dst = np.float32([[0, 0], [out[0], 0], [0, out[1]]])
    M = cv2.getAffineTransform(src, dst)
    return cv2.warpAffine(image, M, out, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def to_blob(crops: list[np.ndarray]) -> np.ndarray:
    """Crops (BGR uint8) as the network takes them: RGB in 0..1, N x 3 x H x W
    (training feeds it the same way)."""
    x = np.stack(crops).astype(np.float32) / 255.0
    return np.ascontiguousarray(x[:, :, :, ::-1].transpose(0, 3, 1, 2))   # RGB, NCHW


def softmax(logits: np.ndarray) -> np.ndarray:
    """Each row's probabilities."""
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class IndexClassifier:
    """The exported classifier on ONNX Runtime.

    ``deck``: a deck profile (its path, or a loaded :class:`DeckProfile`)
    made for this classifier file; its head then names the crops
    (:class:`DeckProfileError` if it was made for another classifier or
    labels).  Without one, the shipped head does, as always.
    """

    deck: DeckProfile | None = None

    def __init__(self, model: str | Path | None = None, threads: int = 2,
                 deck: str | Path | DeckProfile | None = None):
        path = model_path(model, ENV, EIGHT_BIT_MODEL) if model or os.environ.get(ENV) else shipped_classifier(deck)
        self.session, self.input_name = open_model("index classifier", path, threads)
        self.model_path = path
        outputs = {o.name: o for o in self.session.get_outputs()}
        self.logits_name = self.session.get_outputs()[0].name
        self.features = outputs[EMBEDDING_OUTPUT].shape[1] if EMBEDDING_OUTPUT in outputs else None
        self.deck = None
        if deck is not None:
            self.use_deck(deck)

    def use_deck(self, deck: str | Path | DeckProfile | None) -> None:
        """Name crops with this deck profile's head from now on (None: the shipped head)."""
        if deck is None:
            self.deck = None
            return
        if self.features is None:
            raise DeckProfileError(f"index classifier {self.model_path} has no '{EMBEDDING_OUTPUT}' output; "
                                   f"add it with python -m vision.training.index_classifier "
                                   f"{self.model_path} --add-embedding")
        if isinstance(deck, DeckProfile):
            if deck.classifier_sha256 != file_sha256(self.model_path):
                raise DeckProfileError(f"deck profile {deck.name} was made for another index classifier "
                                       f"than {self.model_path}; enroll the deck again with it")
            self.deck = deck
        else:
            self.deck = DeckProfile.load(deck, self.model_path, self.features)

    def logits_and_features(self, crops: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """The shipped head's logits (N x 55) and the features (N x 256) of each crop."""
        if self.features is None:
            raise DeckProfileError(f"index classifier {self.model_path} has no '{EMBEDDING_OUTPUT}' output")
        if not crops:
            return np.zeros((0, len(LABELS)), np.float32), np.zeros((0, self.features), np.float32)
        logits, emb = self.session.run([self.logits_name, EMBEDDING_OUTPUT], {self.input_name: to_blob(crops)})
        return logits, emb

    def probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        """Each crop's (from :func:`crop` or :func:`turned_crop`) probability
        of each label in :data:`LABELS` (N x 55), in one run."""
        if not crops:
            return np.zeros((0, len(LABELS)), np.float32)
        if self.deck is None:
            logits = self.session.run([self.logits_name], {self.input_name: to_blob(crops)})[0]
        else:
            logits = self.deck.logits(*self.logits_and_features(crops))
        return softmax(logits)

    def ranked_many(self, pictures: list[tuple[np.ndarray, list]], top: int = 4) -> list[list[list[tuple[str, float]]]]:
        """:meth:`ranked` for several (image, boxes) at once, in one model run."""
        p = self.probabilities([crop(image, b) for image, boxes in pictures for b in boxes])
        order = np.argsort(-p, axis=1)[:, :top]
        flat = [[(LABELS[int(k)], float(p[n, k])) for k in row] for n, row in enumerate(order)]
        out, at = [], 0
        for _, boxes in pictures:
            out.append(flat[at:at + len(boxes)])
            at += len(boxes)
        return out

    def classify(self, image: np.ndarray, boxes) -> list[tuple[str, float]]:
        """(label, probability) for each box; label ``NONE`` for a non-index."""
        return [r[0] for r in self.ranked(image, boxes, top=1)]

    def ranked(self, image: np.ndarray, boxes, top: int = 4) -> list[list[tuple[str, float]]]:
        """The ``top`` likeliest (label, probability) for each box, best first."""
        return self.ranked_many([(image, list(boxes))], top)[0]
