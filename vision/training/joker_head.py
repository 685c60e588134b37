"""A deck profile for decks that print their jokers' names, 大王 and 小王.

Many Chinese decks print each joker's corner as its Chinese name; the
shipped classifier never learnt them (3 % of generated joker fans exact,
models/MODEL_CARD.md, "Jokers printed 大王 and 小王").  Retraining the
whole network on them taught it to see a little joker in real court cards
("Classifiers trained on them: tried, not shipped").  This fits only a
new last layer on the shipped classifier's 256 features (the network is
unchanged), saved as a deck profile
(:class:`vision.reading.deck_profile.DeckProfile`) that a table config
can name (``[[camera]] deck = "hanzi-jokers"``) as it names an enrolled
deck's.  Shipped as ``models/hanzi-jokers.npz``
(:data:`vision.reading.deck_profile.SHIPPED_PROFILES`) since 2026-12-06:
fitted with real court cards and pips of two more decks as ``NONE``
(CardCounterML's photographs, ``--real-negatives``), it reads generated
大王 / 小王 plays far better and reads no joker in Edje's real court
cards, at a few more phantom jokers on real single faces and a little
lower recall on the phone deck (models/MODEL_CARD.md, "A shipped profile
for 大王 and 小王"); the shipped classifier alone stays the default.

The layer is fitted on the classifier's labelled crops
(``python -m vision.training.index_classifier DIR --scenes N --seed S
--detector models/cards-yolo11n.onnx ... --hanzi-jokers 0.4``; crops of
training decks only) with cross-entropy, on real photographs' crops with
sets of allowed labels (:mod:`vision.training.real_crops`: court cards and
pips of a real deck, never jokers) with the same partial-label loss the
network was trained with, and pulled back to the shipped layer by an L2
term (what the crops do not show keeps the shipped answer).  Its own
confidence calibration is fitted on generated plays of the held-out decks
with their jokers printed 大王 / 小王, on seeds the benchmark does not read
(:data:`CALIBRATION_SEED`).  Needs PyTorch (the ``train`` extra); a table
reads the profile with numpy.

    python -m vision.training.joker_head CROPS.npz ... --real REAL.npz ... \
        [--real-negatives LABELLED.npz ...] --out hanzi-jokers.npz
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

CALIBRATION_SEED = 2613     # generated plays the curve is fitted on (not a seed any model or figure used)
L2 = 1e-3                   # pull back to the shipped layer (per weight, squared)
REAL_WEIGHT = 1.0           # the real crops' loss beside the labelled crops'


def fit_layer(features: np.ndarray, labels: np.ndarray, real_features: np.ndarray, real_allowed: np.ndarray,
              w0: np.ndarray, b0: np.ndarray, l2: float = L2, real_weight: float = REAL_WEIGHT,
              epochs: int = 8, batch: int = 1024, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A last layer (weight, bias) fitted from ``w0``, ``b0`` on labelled
    features and on real features whose label is one of a set (``real_allowed``,
    N x labels, bool): Adam, ``epochs`` passes over the labelled ones, each
    batch with half as many real ones drawn at random.

    >>> rng = np.random.default_rng(0)
    >>> f = rng.normal(size=(400, 4)).astype(np.float32); y = (f[:, 0] > 0).astype(int)
    >>> allowed = np.ones((10, 2), bool)
    >>> zeros = np.zeros((2, 4), np.float32), np.zeros(2, np.float32)
    >>> w, b = fit_layer(f, y, f[:10], allowed, *zeros, l2=0, epochs=20, batch=32)
    >>> float(((f @ w.T + b).argmax(1) == y).mean()) > 0.95
    True
    >>> w, b = fit_layer(f, y, f[:10], allowed, *zeros, l2=1e3, epochs=20, batch=32)   # held to the start
    >>> float(np.abs(w).max()) < 0.01
    True
    """
    import torch

    from vision.training.index_classifier import partial_label_loss

    gen = torch.Generator().manual_seed(seed)
    x, y = torch.from_numpy(features.astype(np.float32)), torch.from_numpy(labels.astype(np.int64))
    rx, ra = torch.from_numpy(real_features.astype(np.float32)), torch.from_numpy(real_allowed.astype(bool))
    w_ship, b_ship = torch.from_numpy(w0.astype(np.float32)), torch.from_numpy(b0.astype(np.float32))
    w, b = w_ship.clone().requires_grad_(True), b_ship.clone().requires_grad_(True)
    opt = torch.optim.Adam([w, b], lr=2e-3)
    for _ in range(epochs):
        order = torch.randperm(len(x), generator=gen)
        for k in range(0, len(x), batch):
            i = order[k:k + batch]
            r = torch.randint(0, len(rx), (max(1, len(i) // 2),), generator=gen)
            loss = torch.nn.functional.cross_entropy(x[i] @ w.T + b, y[i])
            # a real crop's label is one of its allowed set: the set's probability
            loss = loss + real_weight * partial_label_loss(rx[r] @ w.T + b, ra[r]).mean()
            loss = loss + l2 * ((w - w_ship) ** 2).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
    return w.detach().numpy(), b.detach().numpy()


def calibration(detector, plays: int, seed: int = CALIBRATION_SEED) -> dict:
    """The profile's confidence calibration (a
    :class:`vision.reading.confidence.Calibration` document): ``plays`` plays
    of the benchmark's mix and as many fans and rows with crooked cards with
    jokers in them, of the held-out decks with their jokers printed 大王 /
    小王, read with the profile ``detector``'s classifier uses."""
    from vision.reading.confidence import SIZE_GROUPS, fit_curves
    from vision.training.calibrate_confidence import KINDS, collect
    from vision.training.card_art import HELD_OUT_DECKS, load_decks
    from vision.training.joker_art import hanzi_joker_deck

    decks = [hanzi_joker_deck(d, seed) for d in load_decks(HELD_OUT_DECKS)]
    # (the turned plays hold jokers; the mix holds them as the benchmark's plays do)
    recs = [r for kind in KINDS for r in collect(detector, plays, seed, kind=kind, decks=decks, jokers=kind != "mix")]
    return {
        "what": "P(a play's cards are read right, order aside) from its raw score with this profile; "
                "numpy.interp over the knots, flat beyond the ends",
        "method": "isotonic regression, one knot per block, Laplace estimate per block "
                  "(vision.reading.confidence.fit_curves)",
        "data": f"generated plays of the held-out decks ({', '.join(HELD_OUT_DECKS)}) with their jokers printed "
                f"大王 / 小王, held-out cloths: {plays} of the benchmark's mix and {plays} each of fans and rows "
                f"with crooked cards holding jokers, seed {seed}",
        "plays": len(recs), "exact": int(sum(r["exact"] for r in recs)),
        "size_groups": [{"name": n, "min_cards": lo, "max_cards": hi} for n, lo, hi in SIZE_GROUPS],
        "curves": fit_curves(recs),
    }


def main(argv: list[str] | None = None) -> int:
    from vision.reading.deck_profile import DeckProfile
    from vision.reading.detector import CardDetector
    from vision.reading.enroll import _run, shipped_head
    from vision.reading.runtime import file_sha256
    from vision.training.index_classifier import _real_split

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("crops", type=Path, nargs="+", help="crops_*.npz from vision.training.index_classifier")
    ap.add_argument("--real", type=Path, nargs="+", required=True,
                    help="real crops with sets of allowed labels (vision.training.real_crops, labelled_index_crops)")
    ap.add_argument("--real-negatives", type=Path, nargs="*", default=[],
                    help="real crops of which only those labelled NONE are taken (labelled_index_crops "
                         "--negatives: court pictures and pips of other decks)")
    ap.add_argument("--out", type=Path, required=True, help="the profile (.npz)")
    ap.add_argument("--calibration-plays", type=int, default=300, help="plays of each kind (0: no curve)")
    ap.add_argument("--l2", type=float, default=L2)
    ap.add_argument("--real-weight", type=float, default=REAL_WEIGHT)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    for f in [*args.crops, *args.real, *args.real_negatives]:
        if not f.is_file():
            ap.error(f"{f} does not exist")
    if args.out.suffix.lower() != ".npz":
        ap.error(f"--out {args.out}: a deck profile is a .npz file")
    t0 = time.time()
    det = CardDetector(threads=args.threads)
    clf = det.classifier
    xs, ys, zs = [], [], []
    for f in args.crops:
        with np.load(f) as d:
            z, feats = _run(clf, list(d["x"]))
            xs.append(feats), ys.append(d["y"]), zs.append(z)
        print(f"{f.name}: {len(ys[-1])} crops ({time.time() - t0:.0f} s)", flush=True)
    features, labels, logits = np.vstack(xs), np.concatenate(ys), np.vstack(zs)
    # the held-out photographs stay out, as in training
    parts = [_real_split(f)[0] for f in args.real] + [_real_split(f, only_none=True)[0] for f in args.real_negatives]
    rx, ra = np.concatenate([x for x, _ in parts]), np.concatenate([a for _, a in parts])
    _, real_features = _run(clf, list(rx))
    w0, b0 = shipped_head(features, logits)
    w, b = fit_layer(features, labels, real_features, ra, w0, b0, args.l2, args.real_weight)
    # no NONE gate: whether a crop is an index is this layer's answer too (the
    # shipped head's calls most 小王 corners no index; measured in the model card)
    profile = DeckProfile(w.astype(np.float32), b.astype(np.float32), 1.0, file_sha256(clf.model_path),
                          none_gate=False,
                          meta={"deck": "decks printing 大王 / 小王 (generated crops, last layer only)",
                                "made": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                "made_by": "python -m vision.training.joker_head " + " ".join(
                                    [f.name for f in args.crops] + ["--real", *(f.name for f in args.real)]
                                    + (["--real-negatives", *(f.name for f in args.real_negatives)]
                                       if args.real_negatives else []) + ["--l2", str(args.l2),
                                     "--real-weight", str(args.real_weight),
                                     "--calibration-plays", str(args.calibration_plays)]),
                                "crops": int(len(labels)), "real_crops": int(len(rx)),
                                "classifier": Path(clf.model_path).name})
    if args.calibration_plays:
        clf.use_deck(profile)
        profile.calibration = calibration(det, args.calibration_plays)
        print(f"calibration: {profile.calibration['exact']} of {profile.calibration['plays']} plays read right",
              flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    profile.save(args.out)
    print(json.dumps({"out": str(args.out), "seconds": round(time.time() - t0, 1), **profile.meta},
                     ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
