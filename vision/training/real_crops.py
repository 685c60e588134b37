"""Index-classifier crops from real photographs, with partial labels.

The photographs: EdjeElectronics' card set,
https://github.com/EdjeElectronics/TensorFlow-Object-Detection-API-Tutorial-Train-Multiple-Objects-Windows-10
(Apache-2.0, commit c164582): phone and webcam photos of a Bicycle-style
deck (ranks 9 to A) on carpet, cloth and knitwear, each card labelled with a
box around the whole card and its rank only (``images/train_labels.csv``).
Only the ``train`` split is cropped here; ``images/test`` is kept for
measuring (``benchmarks/bench_real_photos.py``).  Build the folder once::

    git clone https://github.com/EdjeElectronics/TensorFlow-Object-Detection-API-Tutorial-Train-Multiple-Objects-Windows-10 edje-repo
    git -C edje-repo archive c164582 images LICENSE | tar x -C EDJE_DIR
    python -m vision.training.real_crops EDJE_DIR OUT.npz

Each photograph is scaled as the benchmark scales it (its cards as wide as
in a zone picture, :func:`photo_scale`), read as it lies and turned upright
as :class:`vision.reading.detector.CardDetector` turns a zone
(:mod:`vision.reading.orientation`), and every box the shipped detector
finds is cropped as the classifier's crops are made
(:func:`vision.reading.index_classifier.crop`).  The labels do not say where
the indices are, so each crop gets the set of labels it may have
(:func:`allowed_labels`): a box on a labelled card of rank R may be that
card's index (any of R's four suits: the labels give no suit) or something
else on the card (``NONE``); a box on the card's middle, where no index is
printed at any angle, or off every card, is ``NONE``.  Jokers are never
allowed (the deck has none).  A few random boxes of an index's size on the
cards' middles and on the background are added as ``NONE``.  The same
folder gives the same crops byte for byte.

Saved: ``x`` (N x 48 x 32 x 3 BGR uint8 crops), ``allowed`` (N x 55 bool,
one column a label of :data:`vision.reading.index_classifier.LABELS`) and
``photo`` (each crop's photograph), for
``python -m vision.training.index_classifier DATA --train --real OUT.npz``.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

from vision.reading.classes import CARD_NAMES
from vision.reading.index_classifier import LABELS, NONE, crop
from vision.reading.table import ZONE_PX

SOURCE = ("EdjeElectronics/TensorFlow-Object-Detection-API-Tutorial-Train-Multiple-Objects-Windows-10",
          "c164582", "Apache-2.0")
RANKS = {"nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}
CARD_PX = 63 * ZONE_PX[0] / 300        # a card's width in a zone picture (300 mm zone at 640 px)
MIDDLE = 0.2       # a box centred within this share of a card's box from its centre is on no index


def load_labels(folder: Path, split: str) -> dict[str, list[dict]]:
    """The labelled card boxes of ``split`` (train/test), by photograph's file name."""
    labels = Path(folder) / "images" / f"{split}_labels.csv"
    if not labels.exists():
        raise FileNotFoundError(f"{labels} not found (see vision/training/real_crops.py to build the folder)")
    by: dict[str, list[dict]] = defaultdict(list)
    with open(labels, newline="") as f:
        for row in csv.DictReader(f):
            by[row["filename"]].append(row)
    return by


def photo_scale(boxes: list[dict]) -> float:
    """The factor that makes a photograph's cards as wide as a zone picture's
    (the median of the labelled boxes' short sides taken for a card's width).

    >>> round(photo_scale([{"xmin": 0, "ymin": 0, "xmax": 67, "ymax": 90}]), 3)
    2.006
    """
    short = float(np.median([min(int(b["xmax"]) - int(b["xmin"]), int(b["ymax"]) - int(b["ymin"]))
                             for b in boxes]))
    return CARD_PX / max(1.0, short)


def scaled_photo(img: np.ndarray, boxes: list[dict]) -> tuple[np.ndarray, float]:
    """The photograph scaled by :func:`photo_scale`, and the factor."""
    s = photo_scale(boxes)
    out = cv2.resize(img, (max(32, round(img.shape[1] * s)), max(32, round(img.shape[0] * s))),
                     interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)
    return out, s


def rank_mask(rank: str) -> np.ndarray:
    """The labels a card of ``rank`` (``"9"``..``"A"``) may show in its corner: its four suits."""
    m = np.zeros(len(LABELS), bool)
    for suit in "SHDC":
        m[CARD_NAMES.index(suit + rank)] = True
    return m


def allowed_labels(box, cards: list[tuple[str, tuple[float, float, float, float]]]) -> np.ndarray:
    """The labels a crop of ``box`` may have, given the photograph's labelled
    cards (rank, whole-card box): ``NONE`` always; a card's four suits of its
    rank when the box's centre lies on that card but not in its middle
    (:data:`MIDDLE`).

    >>> cards = [("9", (0.0, 0.0, 100.0, 140.0))]
    >>> [LABELS[k] for k in np.flatnonzero(allowed_labels((5, 5, 25, 40), cards))]
    ['S9', 'H9', 'D9', 'C9', 'NONE']
    >>> [LABELS[k] for k in np.flatnonzero(allowed_labels((40, 55, 60, 85), cards))]
    ['NONE']
    >>> [LABELS[k] for k in np.flatnonzero(allowed_labels((200, 5, 220, 40), cards))]
    ['NONE']
    """
    m = np.zeros(len(LABELS), bool)
    m[NONE] = True
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    for rank, (x0, y0, x1, y1) in cards:
        if not (x0 <= cx <= x1 and y0 <= cy <= y1):
            continue
        mx, my = (x0 + x1) / 2, (y0 + y1) / 2
        if abs(cx - mx) <= MIDDLE * (x1 - x0) and abs(cy - my) <= MIDDLE * (y1 - y0):
            continue
        m |= rank_mask(rank)
    return m


def detector_crops(finder, pic: np.ndarray, allowed_of, rng: np.random.Generator,
                   jitter: int = 2) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[tuple[float, float]]]:
    """Every box ``finder`` finds in ``pic`` (a picture at the zone pictures'
    scale), read as it lies and turned upright where its cards seem turned
    (as :class:`vision.reading.detector.CardDetector` turns a zone), cropped
    as the reader crops it (as found and ``jitter`` times moved a little, sd
    8 %), with the labels ``allowed_of`` gives the box in ``pic``'s own pixels
    (a box it gives None is left out); and the kept boxes' sizes."""
    from vision.reading.orientation import TURN_FROM, turns, upright
    from vision.training.classifier_data import _jittered

    variants = [None] + [upright(pic, t) for t in turns(pic, 0, TURN_FROM)]
    pictures = [u.image if u else pic for u in variants]
    scale = finder.imgsz / max(ZONE_PX)
    out, sizes = [], []
    for u, p, found in zip(variants, pictures, finder.find_boxes_many(pictures, scale)):
        for d in found:
            if d.name == "HAND":
                continue
            # labelled in the picture's own pixels, cropped upright as the reader crops it
            allowed = allowed_of(u.box(d.box) if u else d.box)
            if allowed is None:
                continue
            bw, bh = d.box[2] - d.box[0], d.box[3] - d.box[1]
            sizes.append((bw, bh))
            out.append((crop(p, d.box), allowed))
            for _ in range(jitter):
                out.append((crop(p, _jittered(d.box, 0.08 * bw, 0.08 * bh, rng)), allowed))
    return out, sizes


def photo_crops(finder, img: np.ndarray, boxes: list[dict], rng: np.random.Generator,
                jitter: int = 2, random_boxes: int = 6) -> list[tuple[np.ndarray, np.ndarray]]:
    """One photograph's (crop, allowed labels) pairs: every detector box
    (:func:`detector_crops`), then ``random_boxes`` random index-sized boxes,
    half on the cards' middles, half off every card (``NONE``)."""
    from vision.training.classifier_data import _intersections

    pic, s = scaled_photo(img, boxes)
    cards = [(RANKS[b["class"]], tuple(float(b[k]) * s for k in ("xmin", "ymin", "xmax", "ymax"))) for b in boxes]
    out, sizes = detector_crops(finder, pic, lambda box: allowed_labels(box, cards), rng, jitter)
    bw, bh = np.median(sizes, axis=0) if sizes else (0.22 * CARD_PX, 0.4 * CARD_PX)
    h, w = pic.shape[:2]
    card_boxes = np.array([b for _, b in cards]).reshape(-1, 4)
    only_none = np.zeros(len(LABELS), bool)
    only_none[NONE] = True
    for k in range(random_boxes):
        sc = rng.uniform(0.8, 1.3)
        if k % 2 == 0:      # on a card's middle: pips, court pictures
            x0, y0, x1, y1 = cards[int(rng.integers(len(cards)))][1]
            cx = rng.uniform(-MIDDLE, MIDDLE) * (x1 - x0) + (x0 + x1) / 2
            cy = rng.uniform(-MIDDLE, MIDDLE) * (y1 - y0) + (y0 + y1) / 2
        else:               # the background, off every card
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        b = np.array([cx - bw * sc / 2, cy - bh * sc / 2, cx + bw * sc / 2, cy + bh * sc / 2])
        if not allowed_labels(b, cards)[:NONE].any() and (k % 2 == 0 or _intersections(b, card_boxes).max() == 0):
            out.append((crop(pic, b), only_none))
    return out


def build(folder: Path, split: str = "train", seed: int = 0, detector: Path | None = None,
          photos: list[str] | None = None) -> dict[str, np.ndarray]:
    """The crops of every photograph of ``split`` (or just ``photos``, by file
    name), with their allowed labels; see the module's docstring."""
    if split == "test":
        raise ValueError("the test split is for measuring only")
    from vision.reading.detector import CardDetector

    finder = CardDetector(detector, classifier=False, threads=1)
    by = load_labels(folder, split)
    xs, allowed, names = [], [], []
    for n, name in enumerate(sorted(by)):
        if photos is not None and name not in photos:
            continue
        img = cv2.imread(str(Path(folder) / "images" / split / name))
        if img is None:
            raise FileNotFoundError(f"cannot read {Path(folder) / 'images' / split / name}")
        for x, a in photo_crops(finder, img, by[name], np.random.default_rng([seed, n])):
            xs.append(x)
            allowed.append(a)
            names.append(name)
    return {"x": np.stack(xs), "allowed": np.stack(allowed), "photo": np.array(names)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.training.real_crops", description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path, help="the folder holding images/ (see above)")
    ap.add_argument("out", type=Path, help="the .npz to write")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--detector", type=Path, help="the ONNX detector (default: the shipped one)")
    args = ap.parse_args(argv)
    try:
        data = build(args.folder, "train", args.seed, args.detector)
    except FileNotFoundError as exc:
        print(f"real_crops: {exc}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **data)
    a = data["allowed"]
    print(f"{len(a)} crops from {len(set(data['photo']))} photographs, "
          f"{int((a[:, :NONE].any(axis=1)).sum())} may be an index, {int((~a[:, :NONE].any(axis=1)).sum())} NONE only "
          f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
