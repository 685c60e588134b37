"""Calibrate a play's confidence: the raw score -> P(the play's cards are read right).

The raw score of one read is its weakest card's confidence (a card's is the
classifier's probability for its best corner), or one less the surest card
another turn of the zone found and the read leaves out
(:attr:`ZoneRead.confidence`).  It is not a probability that the play is
right: a long play has more cards to get wrong, and a card no turn saw
lowers nothing.  Here held-out synthetic plays (the benchmark's decks and
cloths, :mod:`benchmarks.bench_vision`, on seeds never used to train or
choose the models; the benchmark's mix of plays, mostly rows, and as many
fans and rows with cards pushed in crooked as ``--fit-turned`` says,
:func:`vision.training.synth.turned_scenes`) are read as the table watcher
reads them, and an isotonic regression (``scipy.optimize``, PAV) maps the
raw score to the observed share of plays whose cards were read right
(:func:`vision.reading.confidence.read_right`, order aside; one curve
for all play sizes: see :data:`vision.reading.confidence.SIZE_GROUPS`).  Each
block of the fit is then given the Laplace estimate (exact + 1) / (plays + 2)
and made monotone again: 340 plays all read right say "about 0.997", not "1".  The curve is shipped as a small
JSON file (``models/confidence-calibration.json``) that the tracker applies
with ``numpy.interp`` (:mod:`vision.reading.confidence`), no scipy at a table.

A second seed's plays, not used in the fit, give the reliability table and
what a threshold means (of plays accepted, how many are wrong; of wrong
plays, how many are caught).

    python -m vision.training.calibrate_confidence --fit-seed 2611 --fit-plays 1200 --fit-turned 300 \\
        --eval-seed 2612 --eval-plays 800 --eval-turned 200 --records runs/calibration \\
        --out models/confidence-calibration.json

Each detector gets its own curve (``--model``; the curve names the file it
was fitted for, and a table picks the one for its detector,
:func:`vision.reading.confidence.calibration_for_model`), fitted with the
classifier a table runs beside it: the float one's is
``models/confidence-calibration-float.json``, fitted with the float
classifier (``GUANDAN_INDEX_MODEL=models/index-classifier.onnx``; a CPU
without 8-bit dot products runs it by default).  The curve's ``made_by``
names both files.

Synthetic pictures only: on real cameras the curve must be measured again.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from vision.reading.confidence import SIZE_GROUPS, Calibration, model_id, read_right
from vision.reading.confidence import fit_curves as fit  # noqa: F401  (also deck enrollment's fit)
from vision.reading.detector import EIGHT_BIT_MODEL, FLOAT_MODEL, CardDetector
from vision.reading.index_classifier import ENV as CLF_ENV, shipped_classifier
from vision.reading.runtime import RuntimeSettingError, file_sha256, model_path, shipped_model
from vision.reading.tracker import play_confidence
from vision.reading.table import ZONE_MARGIN_MM, ZONE_PX, Zone
from vision.training.card_art import HELD_OUT_DECKS
from vision.training.synth import TURNED_KINDS, held_out_scenes, turned_scenes

# seeds the models were trained, validated or chosen on (models/MODEL_CARD.md): never calibrate on them
USED_SEEDS = {1, 3, 5, 6, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 41, 51, 61, 63,
              101, 105, 109, 301, 311, 401, 555, 777, 888, 999, 424242}


# the kinds of held-out plays read: the benchmark's mix (mostly rows), and
# plays whose cards are turned each their own way (vision.training.synth.turned_scenes)
KINDS = ("mix", *TURNED_KINDS)


def collect(det: CardDetector, plays: int, seed: int, margin_mm: float = ZONE_MARGIN_MM,
            kind: str = "mix", decks: list | None = None, jokers: bool = False) -> list[dict]:
    """Read ``plays`` held-out plays of ``kind`` (:data:`KINDS`) drawn as the
    benchmark draws them (``decks``: laid with these decks instead;
    ``jokers``: turned plays with jokers in them); one record each."""
    margin = Zone.margin_px(margin_mm)
    out = []
    scenes = held_out_scenes(plays, seed, margin, decks) if kind == "mix" else \
        turned_scenes(plays, seed, kind, margin, decks=decks, jokers=jokers)
    for i, deck, scene in scenes:
        read = det.read_zones([scene.image], det.imgsz / max(ZONE_PX), margin)[0]
        confs = [c.confidence for c in read.cards]
        out.append({"i": i, "kind": kind, "deck": deck.name, "true": list(scene.cards), "read": read.names,
                    "raw": round(read.confidence, 5), "product": round(float(np.prod(confs)) if confs else 1.0, 5),
                    "exact": read_right(read.names, list(scene.cards))})
    return out


def records(det_factory, path: Path | None, plays: int, seed: int, model: str = "",
            kind: str = "mix") -> list[dict]:
    """The records of one seed and kind of play, read again only if not
    cached in ``path`` for this ``model`` (a tag of the detector and
    classifier files: another detector's or classifier's reads are not
    reused; a change to the reading code needs a fresh folder)."""
    if plays <= 0:
        return []
    name = f"seed{seed}-{plays}{'' if kind == 'mix' else '-' + kind}{'-' + model if model else ''}.jsonl"
    f = path / name if path else None
    if f is not None and f.exists():
        # (records read before 2026-12-02 counted the order too)
        return [r | {"exact": read_right(r["read"], r["true"])}
                for r in map(json.loads, f.read_text().splitlines())]
    recs = collect(det_factory(), plays, seed, kind=kind)
    if f is not None:
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return recs


def _shown(path: Path) -> str:
    """A model file as a command line run from the repository names it."""
    root = Path(__file__).resolve().parents[2]
    path = Path(path).resolve()
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def reliability(cal: Calibration, recs: list[dict], edges=(0, 0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 1.0001)) -> list[dict]:
    """Predicted against observed exact share, in bins of the calibrated confidence."""
    p = np.array([cal(r["raw"], len(r["read"])) for r in recs])
    y = np.array([float(r["exact"]) for r in recs])
    rows = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (p >= lo) & (p < hi)
        if m.any():
            rows.append({"bin": f"{lo:g}-{min(hi, 1):g}", "plays": int(m.sum()),
                         "predicted": round(float(p[m].mean()), 4), "observed": round(float(y[m].mean()), 4)})
    return rows


def by_kind(cal: Calibration, recs: list[dict], threshold: float) -> dict:
    """:func:`at_threshold` for each kind of play in ``recs``."""
    return {k: at_threshold(cal, [r for r in recs if r.get("kind", "mix") == k], threshold)
            for k in KINDS if any(r.get("kind", "mix") == k for r in recs)}


def at_threshold(cal: Calibration | None, recs: list[dict], threshold: float) -> dict:
    """What a threshold does to the tracker's play events: accepted plays that
    are wrong, wrong plays caught (a third copy of a card halves the confidence,
    as in the tracker)."""
    p = np.array([play_confidence(r["raw"], r["read"], cal)[0] for r in recs])
    wrong = np.array([not r["exact"] for r in recs])
    acc = p >= threshold
    return {"threshold": threshold, "plays": len(recs), "wrong": int(wrong.sum()),
            "accepted": int(acc.sum()), "accepted_wrong": int((acc & wrong).sum()),
            "accepted_wrong_rate": round(float((acc & wrong).sum() / max(1, acc.sum())), 4),
            "asked": int((~acc).sum()), "wrong_caught": int((~acc & wrong).sum()),
            "wrong_caught_rate": round(float((~acc & wrong).sum() / max(1, wrong.sum())), 4)}


def brier(cal: Calibration | None, recs: list[dict]) -> float:
    p = np.array([cal(r["raw"], len(r["read"])) if cal else r["raw"] for r in recs])
    y = np.array([float(r["exact"]) for r in recs])
    return round(float(np.mean((p - y) ** 2)), 5)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fit-seed", type=int, nargs="+", default=[2611])
    ap.add_argument("--fit-plays", type=int, default=1200, help="plays per fitting seed")
    ap.add_argument("--eval-seed", type=int, default=2612)
    ap.add_argument("--eval-plays", type=int, default=500)
    ap.add_argument("--fit-turned", type=int, default=300,
                    help="plays of each kind turned its own way (fans, crooked cards) per fitting seed")
    ap.add_argument("--eval-turned", type=int, default=200,
                    help="plays of each kind turned its own way on the evaluation seed")
    ap.add_argument("--model", type=Path, default=None,
                    help="the detector to fit the curve for (default: the one a table on this CPU runs; "
                         "the index classifier likewise, or GUANDAN_INDEX_MODEL)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--records", type=Path, default=None, help="cache the reads here (JSON lines a seed)")
    ap.add_argument("--out", type=Path, default=None, help="write the calibration JSON here")
    ap.add_argument("--threshold", type=float, default=0.8)
    args = ap.parse_args(argv)
    for s in (*args.fit_seed, args.eval_seed):
        if s in USED_SEEDS:
            ap.error(f"seed {s} was used to train or choose the models (models/MODEL_CARD.md)")
    if args.eval_seed in args.fit_seed:
        ap.error("the evaluation seed must differ from the fitting seed")
    # the files a table runs (vision.reading.runtime.shipped_model: GUANDAN_EIGHT_BIT), as CardDetector picks them
    try:
        model = model_path(args.model, "GUANDAN_CARD_MODEL", shipped_model(EIGHT_BIT_MODEL, FLOAT_MODEL))
        classifier = model_path(None, CLF_ENV, shipped_classifier())
    except RuntimeSettingError as exc:       # GUANDAN_EIGHT_BIT set to something else than 1 or 0
        ap.error(str(exc))
    if not model.is_file():
        ap.error(f"no detector model file {model}")
    # reads are another detector's or another classifier's: not reused
    tag = f"{file_sha256(model)[:8]}-{file_sha256(classifier)[:8]}"
    det = None

    def factory():
        nonlocal det
        det = det or CardDetector(model, threads=args.threads)
        return det

    t0 = time.time()
    fit_recs = [r for s in args.fit_seed for r in records(factory, args.records, args.fit_plays, s, tag)
                + [r for k in TURNED_KINDS for r in records(factory, args.records, args.fit_turned, s, tag, k)]]
    eval_recs = records(factory, args.records, args.eval_plays, args.eval_seed, tag) + [
        r for k in TURNED_KINDS for r in records(factory, args.records, args.eval_turned, args.eval_seed, tag, k)]
    doc = {
        "what": "P(a play's cards are read right, order aside) from its raw score "
                "(the weakest card's confidence, or one less a card another turn saw and the read "
                "leaves out), by the number of cards read; "
                "numpy.interp over the knots, flat beyond the ends",
        "method": "isotonic regression (scipy.optimize.isotonic_regression), one knot per block",
        "data": f"synthetic held-out plays: decks {', '.join(HELD_OUT_DECKS)}, held-out cloths, camera "
                f"effects, no hands, read with the {ZONE_MARGIN_MM:g} mm margin; the benchmark's mix of plays "
                f"and, of each seed, as many fans and as many rows with cards pushed in crooked as "
                f"--fit-turned / --eval-turned say; fitted on seeds "
                f"{', '.join(map(str, args.fit_seed))} ({len(fit_recs)} plays), checked on seed {args.eval_seed} "
                f"({len(eval_recs)} plays)",
        # both files named: which ones a table picks follows GUANDAN_EIGHT_BIT (shipped_model)
        "made_by": f"{CLF_ENV}={_shown(classifier)} python -m vision.training.calibrate_confidence " + " ".join(
            f"--{k} {v}" for k, v in (("model", _shown(model)),
               ("fit-seed", " ".join(map(str, args.fit_seed))), ("fit-plays", args.fit_plays),
               ("fit-turned", args.fit_turned), ("eval-seed", args.eval_seed), ("eval-plays", args.eval_plays),
               ("eval-turned", args.eval_turned))),
        # the curve is the detector's: another model file (the float one, a new
        # export) reads with other scores and needs its own fit
        "detector": model_id(model),
        "classifier": model_id(classifier),
        "synthetic_only": True,
        "size_groups": [{"name": n, "min_cards": lo, "max_cards": hi} for n, lo, hi in SIZE_GROUPS],
        "curves": fit(fit_recs),
    }
    cal = Calibration(doc)
    report = {
        "fit": {"plays": len(fit_recs), "exact": sum(r["exact"] for r in fit_recs)},
        "eval": {"plays": len(eval_recs), "exact": sum(r["exact"] for r in eval_recs)},
        "reliability_eval": reliability(cal, eval_recs),
        "threshold_eval_calibrated": at_threshold(cal, eval_recs, args.threshold),
        "threshold_eval_by_kind": by_kind(cal, eval_recs, args.threshold),
        "threshold_eval_raw": at_threshold(None, eval_recs, args.threshold),
        "thresholds_eval_calibrated": [at_threshold(cal, eval_recs, t) for t in (0.5, 0.8, 0.9, 0.95, 0.99, 0.995)],
        "brier_eval": {"calibrated": brier(cal, eval_recs), "raw": brier(None, eval_recs)},
        "wrong_eval": [{k: r.get(k, "mix") for k in ("i", "kind", "deck", "true", "read", "raw")}
                       | {"calibrated": round(cal(r["raw"], len(r["read"])), 4),
                          "event_confidence": play_confidence(r["raw"], r["read"], cal)[0]}
                       for r in eval_recs if not r["exact"]],
        "seconds": round(time.time() - t0, 1),
    }
    doc["check"] = {k: report[k] for k in ("eval", "reliability_eval", "threshold_eval_calibrated",
                                           "threshold_eval_by_kind", "threshold_eval_raw", "thresholds_eval_calibrated", "brier_eval")}
    if args.out:
        args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
