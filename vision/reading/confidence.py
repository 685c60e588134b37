"""A play's confidence as a probability: the raw score mapped through a calibration.

The raw score of a read is its weakest card's confidence, or one less a
card another turn of the zone saw and the read leaves out
(:attr:`vision.reading.detector.ZoneRead.confidence`).  The calibration
(``models/confidence-calibration.json``, made by
:mod:`vision.training.calibrate_confidence` on held-out synthetic plays,
fans and crooked cards among them) maps it, per group of play sizes, to the
share of such plays whose cards were read right (:func:`read_right`, order
aside): the threshold in a table's settings (``min_confidence``) is then an
error rate, not an arbitrary score.  Applied with ``numpy.interp`` (flat
beyond the end knots), so a table node needs nothing more than numpy.  A
deck profile (``guandan-ref enroll-deck``) scores crops with its own head
and carries its own curve, fitted the same way (:func:`fit_curves`) on rows
of the deck's cards; a table reading with the profile applies that one
(:func:`vision.reading.tracker.calibration_for`).

A detector's scores are its own, so each shipped detector has its own
curve, and each curve names the model file it was fitted for (the
``detector`` field: file name and SHA-256, :func:`model_id`):
``models/confidence-calibration-float.json`` for the float detector a table
runs, ``models/confidence-calibration.json`` for the 8-bit one it runs where
``GUANDAN_EIGHT_BIT=1`` (:func:`vision.reading.runtime.shipped_model`).
Each was fitted with the classifier a table runs beside that detector (its
``classifier`` field: 8-bit with 8-bit, float with float, since 2026-12-04).
:func:`calibration_for_model` picks the one fitted for the detector in use.

>>> cal = Calibration({"size_groups": [{"name": "all", "min_cards": 1, "max_cards": 99}],
...                    "curves": {"all": {"x": [0.3, 0.9], "p": [0.2, 0.99]}}})
>>> cal(0.1, 3), round(cal(0.6, 3), 3), cal(1.0, 3)
(0.2, 0.595, 0.99)
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import numpy as np

from vision.reading.runtime import file_sha256

DEFAULT_CALIBRATION = Path(__file__).resolve().parents[2] / "models" / "confidence-calibration.json"
# every shipped curve, each fitted for one detector file (its "detector" field)
SHIPPED_CALIBRATIONS = (DEFAULT_CALIBRATION, DEFAULT_CALIBRATION.with_name("confidence-calibration-float.json"))
MAX_FILE_BYTES = 1 << 20     # a calibration file is a few kB of knots and figures
ENV = "GUANDAN_CONFIDENCE_CALIBRATION"   # names another curve file, whatever the detector

log = logging.getLogger(__name__)

# Groups of play sizes (cards read) that may each have their own curve.  The
# shipped calibration has one: with ~0.5 % of held-out plays wrong, curves
# per size had no wrong play at all in some groups (flat at 1.0, whatever
# the score), which is no evidence (vision.training.calibrate_confidence).
SIZE_GROUPS = (("all", 1, 99),)


def read_right(read: list[str], true: list[str]) -> bool:
    """Whether a play's cards are read right: the same cards, in any order.
    What the calibration counts as a play read exactly (since 2026-12-02;
    before, in order too): the referee judges a play by its cards, and in a
    fan the order along the row is often not the order laid, which changes
    no ruling.

    >>> read_right(["S5", "H5"], ["H5", "S5"]), read_right(["S5"], ["S5", "S5"])
    (True, False)
    """
    return sorted(read) == sorted(true)


def size_group(n: int, groups=SIZE_GROUPS) -> str:
    for name, lo, hi in groups:
        if lo <= n <= hi:
            return name
    return groups[-1][0] if n > groups[-1][2] else groups[0][0]


def fit_curves(recs: list[dict], groups=SIZE_GROUPS) -> dict:
    """Isotonic P(exact | raw) per size group, as knots for numpy.interp.

    ``recs``: one a play read, ``{"raw": score, "read": [names], "exact": bool}``.
    Used to make the shipped calibration
    (:mod:`vision.training.calibrate_confidence`) and each deck profile's own
    (:func:`vision.reading.enroll.enroll`); needs scipy (making time only).

    >>> recs = [{"raw": 0.4 + k / 100, "read": ["S5"], "exact": k % 5 > 0} for k in range(50)]
    >>> c = fit_curves(recs)["all"]
    >>> all(0 < p < 1 for p in c["p"]) and c["p"] == sorted(c["p"]) and sum(c["plays"]) == 50
    True
    """
    from scipy.optimize import isotonic_regression

    curves = {}
    for name, _, _ in groups:
        rs = [r for r in recs if size_group(len(r["read"]), groups) == name]
        if not rs:
            raise ValueError(f"no plays of size group {name} to fit")
        x = np.array([r["raw"] for r in rs])
        y = np.array([float(r["exact"]) for r in rs])
        order = np.argsort(x, kind="stable")
        x, y = x[order], y[order]
        # ties share one value (the mean of their outcomes), weighted by their count
        ux, inv, counts = np.unique(x, return_inverse=True, return_counts=True)
        uy = np.bincount(inv, weights=y) / counts
        p = isotonic_regression(uy, weights=counts, increasing=True).x
        # Laplace estimate per block (never exactly 0 or 1 from a finite sample),
        # then monotone again over the blocks
        blocks = np.r_[0, np.nonzero(np.diff(p))[0] + 1]
        bn = np.add.reduceat(counts, blocks)
        bk = np.add.reduceat(uy * counts, blocks)
        bp = isotonic_regression((bk + 1) / (bn + 2), weights=bn, increasing=True).x
        p = np.repeat(bp, np.diff(np.r_[blocks, len(p)]))
        # one knot per constant block, at the block's weighted mean score: the curve
        # rises linearly between blocks instead of in steps at arbitrary scores
        knots_x, knots_y, n = [], [], []
        start = 0
        for k in range(1, len(p) + 1):
            if k == len(p) or p[k] != p[start]:
                w = counts[start:k]
                knots_x.append(float(np.average(ux[start:k], weights=w)))
                knots_y.append(float(p[start]))
                n.append(int(w.sum()))
                start = k
        curves[name] = {"x": [round(v, 5) for v in knots_x], "p": [round(v, 5) for v in knots_y],
                        "plays": n}
    return curves


class CalibrationError(ValueError):
    """The calibration file is missing or malformed."""


class Calibration:
    """Raw score and cards read -> calibrated P(the play's cards are read right, in any order)."""

    def __init__(self, doc: dict):
        try:
            self.groups = tuple((g["name"], int(g["min_cards"]), int(g["max_cards"]))
                                for g in doc["size_groups"])
            self.curves = {}
            for name, _, _ in self.groups:
                c = doc["curves"][name]
                x, p = np.asarray(c["x"], float), np.asarray(c["p"], float)
                if len(x) == 0 or x.ndim != 1 or x.shape != p.shape:
                    raise CalibrationError(f"curve {name}: x and p must be non-empty and alike")
                if not (np.isfinite(x).all() and np.isfinite(p).all()):
                    raise CalibrationError(f"curve {name}: knots must be finite numbers")
                if np.any(np.diff(x) < 0) or np.any(np.diff(p) < 0) or p.min() < 0 or p.max() > 1:
                    raise CalibrationError(f"curve {name} is not increasing within 0..1")
                self.curves[name] = (x, p)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, CalibrationError):
                raise
            raise CalibrationError(f"malformed calibration: {exc!r}") from None
        self.doc = doc

    @classmethod
    def load(cls, path: str | Path | None = None) -> "Calibration":
        path = Path(path or os.environ.get(ENV) or DEFAULT_CALIBRATION)
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise CalibrationError(f"{path} is no confidence calibration: over {MAX_FILE_BYTES} bytes")
            doc = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise CalibrationError(f"cannot read confidence calibration {path}: {exc}") from None
        except ValueError as exc:        # not JSON, not UTF-8
            raise CalibrationError(f"{path} is no confidence calibration: {exc}") from None
        if not isinstance(doc, dict):
            raise CalibrationError(f"{path} is no confidence calibration: not a JSON object")
        try:
            return cls(doc)
        except CalibrationError as exc:
            raise CalibrationError(f"{path}: {exc}") from None

    def __call__(self, raw: float, cards: int) -> float:
        x, p = self.curves[size_group(cards, self.groups)]
        return float(np.interp(raw, x, p))


_default: Calibration | None = None


def default_calibration() -> Calibration:
    """The shipped calibration, loaded once."""
    global _default
    if _default is None:
        _default = Calibration.load()
    return _default


def model_id(path: str | Path) -> str:
    """A model file as a curve's ``detector`` field names it: its name and the
    first 16 hex digits of its SHA-256 (the model card lists them whole)."""
    return f"{Path(path).name} (sha256 {file_sha256(path)[:16]})"


_for_model: dict[str, Calibration] = {}
_checked_classifier: set[tuple[str, str]] = set()     # (curve's classifier, file in use): hashed once


def calibration_for_model(path: str | Path, classifier: str | Path | None = None) -> Calibration:
    """The shipped curve fitted for the detector in the file at ``path``
    (:data:`SHIPPED_CALIBRATIONS`, by their ``detector`` field), loaded once.

    A curve file named by ``GUANDAN_CONFIDENCE_CALIBRATION`` wins over them.
    A detector no shipped curve was fitted for (a new export, a model made
    again) gets the default curve, with a warning in the log: its plays'
    confidence is then not the error rate the threshold assumes until
    ``python -m vision.training.calibrate_confidence`` fits one for it.
    The index classifier's scores are half of a play's raw score, so a
    curve also names the classifier it was fitted with (its ``classifier``
    field); read with another (``classifier``: its file), the log warns
    the same way, once.
    """
    if os.environ.get(ENV):
        return default_calibration()
    found = _for_detector(path)
    fitted = found.doc.get("classifier")
    if classifier is not None and fitted:
        key = (fitted, str(classifier))
        if key not in _checked_classifier:
            _checked_classifier.add(key)
            if fitted != model_id(classifier):
                log.warning("the confidence curve for %s was fitted with the index classifier %s, not %s: its "
                            "plays' confidence is not measured for it (fit one with python -m "
                            "vision.training.calibrate_confidence, models/MODEL_CARD.md)",
                            found.doc.get("detector"), fitted, Path(classifier).name)
    return found


def _for_detector(path: str | Path) -> Calibration:
    """:func:`calibration_for_model`'s curve for a detector file, cached."""
    name = model_id(path)
    if name not in _for_model:
        # (the default as loaded once, so a table's trackers share it)
        shipped = [default_calibration()] + [Calibration.load(f) for f in SHIPPED_CALIBRATIONS[1:] if f.exists()]
        found = next((c for c in shipped if c.doc.get("detector") == name), None)
        if found is None:
            log.warning("no shipped confidence calibration was fitted for the detector %s: its plays' "
                        "confidence uses %s's curve, not measured for it (fit one with python -m "
                        "vision.training.calibrate_confidence, models/MODEL_CARD.md)", name,
                        default_calibration().doc.get("detector", "the default"))
            found = default_calibration()
        _for_model[name] = found
    return _for_model[name]
