"""A deck profile: the index classifier adapted to one brand of cards.

An event plays with its own cards; ``guandan-ref enroll-deck`` photographs
that deck's faces and fits, on the shipped classifier's 256 penultimate
features (its ONNX output ``embedding``), a small head of its own: one
linear layer, 55 labels, started from the shipped last layer and pulled
towards the deck's own crops (:mod:`vision.reading.enroll`).  At a table the
classifier runs as before and the profile's head turns the same run's
features into the labels' scores (:meth:`DeckProfile.logits`): ONNX Runtime
and numpy, no retraining, no PyTorch.

The file is a numpy ``.npz`` (no pickles) holding:

- ``format`` (:data:`FORMAT`) and ``version`` (:data:`VERSION`);
- ``labels``: the classifier's labels, in its order (54 faces and NONE);
- ``classifier_sha256``: the classifier file it was made for; a profile
  fits one classifier's features and is refused by any other;
- ``weight`` (55 x 256), ``bias`` (55) and ``blend``: the head, mixed with
  the shipped head as ``blend * deck + (1 - blend) * shipped`` (logits);
- ``meta``: JSON (the deck's name, when it was made, how many photos and
  crops, the enrollment's time and its own check);
- ``calibration`` (optional): JSON, the profile's own confidence
  calibration (:class:`vision.reading.confidence.Calibration`'s document),
  fitted by the enrollment on rows of the deck's cards it held back from the
  head: the profile's scores are not the shipped head's, so the shipped
  curve does not say what they mean.  A table applies it with the profile
  (:func:`vision.reading.tracker.calibration_for`); a profile without one
  (made before) falls back to the shipped curve, and the table says so.

>>> p = DeckProfile(weight=np.zeros((len(LABELS), 4), np.float32),
...                 bias=np.zeros(len(LABELS), np.float32), blend=1.0, classifier_sha256="0" * 64)
>>> p.logits(np.ones((1, len(LABELS)), np.float32), np.ones((1, 4), np.float32)).shape
(1, 55)
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from storage.files import replaced_when_complete
from vision.reading.classes import CARD_NAMES
from vision.reading.confidence import Calibration, CalibrationError
from vision.reading.runtime import file_sha256

FORMAT = "guandan-deck-profile"
VERSION = 1
EMBEDDING_OUTPUT = "embedding"        # the classifier's penultimate features (ONNX output name)
LABELS = CARD_NAMES + ("NONE",)       # = vision.reading.index_classifier.LABELS (no import cycle)


# Profiles shipped in models/, named in a table config or on a command line by
# name alone (``[[camera]] deck = "hanzi-jokers"``): made for the shipped float
# classifier, each with its own confidence curve (models/MODEL_CARD.md)
SHIPPED_PROFILES = {
    # decks printing their jokers' corners 大王 / 小王: a last layer fitted on
    # generated crops of such jokers and real court cards' crops
    # (vision.training.joker_head; "A shipped profile for 大王 and 小王")
    "hanzi-jokers": Path(__file__).resolve().parents[2] / "models" / "hanzi-jokers.npz",
}


def profile_path(value: str | Path) -> Path:
    """A deck profile's file: a shipped profile's name (:data:`SHIPPED_PROFILES`)
    or the path given (a profile's file ends ``.npz``, a name does not).

    >>> profile_path("hanzi-jokers").relative_to(Path(__file__).resolve().parents[2]).as_posix()
    'models/hanzi-jokers.npz'
    >>> profile_path("venue/our-deck.npz").as_posix()
    'venue/our-deck.npz'
    """
    return SHIPPED_PROFILES.get(str(value), Path(value))


class DeckProfileError(ValueError):
    """A deck profile that cannot be used here; the message says why and what to do."""


@dataclass
class DeckProfile:
    """One deck's head on the classifier's features (see the module's doc)."""

    weight: np.ndarray                  # labels x features
    bias: np.ndarray                    # labels
    blend: float                        # share of the deck's logits (1: the deck's head alone)
    classifier_sha256: str
    labels: tuple[str, ...] = LABELS
    meta: dict = field(default_factory=dict)
    none_gate: bool = False             # NONE's probability from the shipped head, the faces' from the deck's
    calibration: dict | None = None     # the profile's own confidence calibration (None: made without one)

    @property
    def name(self) -> str:
        return str(self.meta.get("deck", "")) or "deck"

    def confidence_calibration(self) -> Calibration | None:
        """The raw score -> P(read exactly) mapping fitted for this profile (None: it has none)."""
        return Calibration(self.calibration) if self.calibration is not None else None

    def logits(self, shipped: np.ndarray, embedding: np.ndarray) -> np.ndarray:
        """The labels' scores for crops whose shipped logits and features are given (N x 55)."""
        deck = embedding.astype(np.float32) @ self.weight.T + self.bias
        mixed = self.blend * deck + (1.0 - self.blend) * shipped
        if not self.none_gate:
            return mixed
        # is it an index at all: the shipped head's answer (trained on every
        # deck's false boxes); which face: the deck's
        none = len(self.labels) - 1
        ls = shipped - shipped.max(axis=1, keepdims=True)
        log_ps = ls - np.log(np.exp(ls).sum(axis=1, keepdims=True))
        faces = mixed[:, :none] - mixed[:, :none].max(axis=1, keepdims=True)
        log_pf = faces - np.log(np.exp(faces).sum(axis=1, keepdims=True))
        p_index = np.log1p(-np.minimum(np.exp(log_ps[:, none]), 1 - 1e-7))[:, None]
        return np.concatenate([log_pf + p_index, log_ps[:, none:]], axis=1)

    def save(self, path: str | Path) -> None:
        """Write the profile (``.npz``)."""
        path = Path(path)
        if path.suffix.lower() != ".npz":
            raise DeckProfileError(f"{path}: a deck profile is a .npz file")
        extra = {} if self.calibration is None else {
            "calibration": np.array(json.dumps(self.calibration, ensure_ascii=False))}
        fields = dict(format=np.array(FORMAT), version=np.array(VERSION), **extra,
                      labels=np.array(self.labels), classifier_sha256=np.array(self.classifier_sha256),
                      weight=self.weight.astype(np.float32), bias=self.bias.astype(np.float32),
                      blend=np.array(float(self.blend), np.float32),
                      none_gate=np.array(bool(self.none_gate)),
                      meta=np.array(json.dumps(self.meta, ensure_ascii=False)))
        with replaced_when_complete(path) as tmp:      # never half a profile under the real name
            np.savez_compressed(tmp, **fields)

    @classmethod
    def load(cls, path: str | Path, classifier: str | Path | None = None,
             features: int | None = None) -> "DeckProfile":
        """Read and check a profile; :class:`DeckProfileError` says what is wrong.

        ``classifier``: the classifier file it will run with (its SHA-256 must
        be the one the profile was made for); ``features``: that
        classifier's embedding width.
        """
        path = Path(path)
        if not path.is_file():
            raise DeckProfileError(f"deck profile {path} does not exist (make one with guandan-ref enroll-deck, "
                                   f"or name a shipped one: {', '.join(SHIPPED_PROFILES)})")
        try:
            with np.load(path, allow_pickle=False) as z:
                data = {k: z[k] for k in z.files}
        except (OSError, ValueError, zipfile.BadZipFile, EOFError):
            raise DeckProfileError(f"{path} is not a deck profile (.npz from guandan-ref enroll-deck)") from None
        missing = {"format", "version", "labels", "classifier_sha256", "weight", "bias", "blend"} - set(data)
        if str(data.get("format", "")) != FORMAT or missing:
            raise DeckProfileError(f"{path} is not a deck profile (.npz from guandan-ref enroll-deck)")
        version = int(data["version"])
        if version != VERSION:
            raise DeckProfileError(f"{path} is a version {version} deck profile; this program reads version "
                                   f"{VERSION}: enroll the deck again")
        labels = tuple(str(s) for s in data["labels"].reshape(-1))
        if labels != LABELS:
            raise DeckProfileError(f"{path} was made for a classifier with other labels ({len(labels)}: "
                                   f"{' '.join(labels[:4])} ...); enroll the deck again with this classifier")
        weight, bias = data["weight"], data["bias"]
        if (weight.ndim != 2 or weight.shape[0] != len(LABELS) or bias.shape != (len(LABELS),)
                or not np.isfinite(weight).all() or not np.isfinite(bias).all()
                or (features is not None and weight.shape[1] != features)):
            raise DeckProfileError(f"{path}: its head ({'x'.join(map(str, weight.shape))}) does not fit "
                                   f"this classifier; enroll the deck again")
        blend = float(data["blend"])
        if not 0.0 <= blend <= 1.0:
            raise DeckProfileError(f"{path}: blend {blend} is not from 0 to 1")
        sha = str(data["classifier_sha256"])
        if classifier is not None and sha != file_sha256(classifier):
            raise DeckProfileError(f"{path} was made for another index classifier than {classifier}; "
                                   f"enroll the deck again with it")
        try:
            meta = json.loads(str(data.get("meta", "{}")))
        except ValueError:
            meta = {}
        calibration = None
        if "calibration" in data:           # older profiles have none: the shipped curve then
            try:
                calibration = json.loads(str(data["calibration"]))
                Calibration(calibration)
            except (ValueError, CalibrationError) as exc:
                raise DeckProfileError(f"{path}: its confidence calibration is unusable ({exc}); "
                                       f"enroll the deck again") from None
        return cls(weight.astype(np.float32), bias.astype(np.float32), blend, sha, labels,
                   meta if isinstance(meta, dict) else {}, bool(data.get("none_gate", False)), calibration)
