"""Index-classifier crops from real photographs whose corner indices are boxed and named.

The photographs: CardCounterML's training split,
https://github.com/Ammememe/CardCounterML (commit a0e040b, folder
``datasets``; the Roboflow Universe project
cadyzedevelopmenthub/card-detection-zk7wu, version 12, CC BY 4.0): each
card's corner indices boxed and labelled by face (``10C`` ... ``KS``,
``RED JOKER``, ``BLACK JOKER``), three copies of each source photograph
(brightness, a little blur and noise, a few degrees' shear), squeezed to
640x640 by the export.  Only its real photographs of cards are cropped
(:func:`group_of`):

- ``phone``: phone photographs of a white-stock deck, one to a few cards
  on wooden and white tables, black stone, cloth (``IMG_2022*``);
- ``black-gold``: phone photographs of a black deck printed in gold
  (``IMG_7xxx``): an art deck;
- ``webcam``: a webcam's frames of single cards (and jokers) held up to it
  (``<face>-<uuid>``).

Left out: the webcam frames of piles (``WIN_*``: the sitting whose
photographs in ``valid`` and ``test`` ``benchmarks/bench_real_piles.py``
measures), the generated scenes (nine-digit names), screenshots of online
poker tables and index crops pasted on black.  Build the folder once::

    git -C ccml-repo archive a0e040b datasets/train | tar x -C CCML_DIR
    python -m vision.training.labelled_index_crops CCML_DIR OUT.npz

Each photograph is put back in its own shape (:func:`best_aspect`: the
export squeezed photographs of several shapes; its group's camera's shape,
:data:`GROUP_ASPECT`, unless the shipped detector finds its labelled
indices clearly more surely in another) and
scaled so that its labelled indices are as tall as in a zone picture
(:data:`vision.training.real_piles.INDEX_PX`); every box the detector
finds, as the picture lies and turned upright
(:func:`vision.training.real_crops.detector_crops`), that lies on a
labelled index (each box's centre inside the other) is cropped with that
index's face as its only label, and a labelled index no box was found on
is cut at its labelled box.  A box on no labelled index is left out
(an index the labeller skipped, a pip, a court picture: the synthetic
crops teach ``NONE``), or with ``--negatives``, where it lies well off
every labelled index, cut as ``NONE`` (:func:`off_indices`).  Saved as
:mod:`vision.training.real_crops` saves (``x``, ``allowed``, ``photo``:
the source photograph, so that its three copies are held out together;
and ``group``), for
``python -m vision.training.index_classifier DATA --train --real OUT.npz``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.reading.index_classifier import LABELS, NONE
from vision.training.real_piles import INDEX_PX

SOURCE = ("Ammememe/CardCounterML", "a0e040b",
          "CC BY 4.0 (Roboflow Universe cadyzedevelopmenthub/card-detection-zk7wu v12)")
# the set's 55 class names in its data.yaml order
SET_NAMES = [r + s for r in ("10", "2", "3", "4", "5", "6", "7", "8", "9", "A") for s in "CDHS"] + \
    ["BACK", "BLACK JOKER"] + [r + s for r in "JKQ" for s in "CDHS"] + ["RED JOKER"]
ASPECTS = (9 / 16, 3 / 4, 1.0, 4 / 3, 16 / 9)     # the shapes a photograph may have had (width over height)
_GROUPS = ((re.compile(r"^IMG_2022\d{4}_\d{6}_jpg\.rf\."), "phone"),
           (re.compile(r"^IMG_7\d{3}_JPG\.rf\."), "black-gold"),
           (re.compile(r"^(10|[2-9AJQK])[cdhs]-[0-9a-f]{8}-|^Joker-[0-9a-f]{8}-|^backcard-"), "webcam"))
GROUPS = tuple(g for _, g in _GROUPS)
# each group's camera's shape, kept unless another shape finds its indices a tenth more surely
# (measured on every 15th photograph: phone and webcam; the black-gold deck's indices are found too
# seldom to tell, and were taken by phone)
GROUP_ASPECT = {"phone": 3 / 4, "black-gold": 3 / 4, "webcam": 4 / 3}
NEAR = 0.5         # a box this share of a labelled index's size beside it may still be that index

# one labelled index: its face (None: a card's back) and its box in shares of the picture's sides
Index = tuple[str | None, float, float, float, float]


class LabelledCropsError(ValueError):
    """A folder or label file that is not as the module's doc builds it."""


def face(name: str) -> str | None:
    """The referee's code of one of the set's class names (``10C`` -> ``CT``; ``BACK`` -> None).

    >>> face("10C"), face("AS"), face("RED JOKER"), face("BLACK JOKER"), face("BACK")
    ('CT', 'SA', 'BJ', 'LJ', None)
    """
    if name == "BACK":
        return None
    if name.endswith("JOKER"):
        return "BJ" if name.startswith("RED") else "LJ"
    rank, suit = name[:-1], name[-1]
    return suit + {"10": "T"}.get(rank, rank)


def group_of(name: str) -> str | None:
    """Which of :data:`GROUPS` a photograph's file name belongs to; None for
    what is not cropped (the measured sitting's webcam frames, generated
    scenes, screenshots, pasted index crops).

    >>> group_of("IMG_20220921_194222_jpg.rf.e6c639d0bfbde48bf09f44b361cf61c0.jpg")
    'phone'
    >>> group_of("IMG_7730_JPG.rf.843a9b759f6ad251c759440f2c1908b3.jpg")
    'black-gold'
    >>> group_of("Jh-c6a5aca1-3990-11ed_jpg.rf.0a.jpg"), group_of("Joker-13f3ca9e-3993-11ed_jpg.rf.1.jpg")
    ('webcam', 'webcam')
    >>> [group_of(n) for n in ("WIN_20240627_12_30_28_Pro_jpg.rf.4b.jpg", "000534301_jpg.rf.3.jpg", "A_1_jpg.rf.9.jpg")]
    [None, None, None]
    """
    return next((g for pattern, g in _GROUPS if pattern.search(name)), None)


def source_of(name: str) -> str:
    """The source photograph of one of the export's copies (its name before ``.rf.``).

    >>> source_of("IMG_7730_JPG.rf.843a9b759f6ad251c759440f2c1908b3.jpg")
    'IMG_7730_JPG'
    """
    return name.split(".rf.")[0]


def index_labels(path: Path) -> list[Index]:
    """A photograph's labelled indices (its YOLO label file beside ``images/``):
    a row is a class number and a box (centre, width, height) or, where the
    labeller drew an outline, the outline's points (its box is taken).

    Raises :class:`LabelledCropsError` for a row that is neither, a class
    number outside the set's or a point outside the picture."""
    labels = path.parent.parent / "labels" / (path.stem + ".txt")
    out: list[Index] = []
    for n, line in enumerate(labels.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            k, *rest = line.split()
            cls, v = int(k), [float(x) for x in rest]
        except ValueError:
            raise LabelledCropsError(f"{labels}:{n}: not a class number and shares: {line!r}") from None
        if not 0 <= cls < len(SET_NAMES) or not (len(v) == 4 or (len(v) >= 6 and len(v) % 2 == 0)) \
                or not all(np.isfinite(v)) or not all(0 <= x <= 1 for x in v):
            raise LabelledCropsError(f"{labels}:{n}: class, box or outline out of range: {line!r}")
        if len(v) == 4:
            cx, cy, w, h = v
            box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
        else:
            box = (min(v[0::2]), min(v[1::2]), max(v[0::2]), max(v[1::2]))
        out.append((face(SET_NAMES[cls]), *box))
    return out


def as_zone(img: np.ndarray, labels: list[Index], aspect: float) -> tuple[np.ndarray, np.ndarray]:
    """A squeezed photograph in the shape ``aspect`` (width over height) and
    scaled so that its labelled indices' median longer side is
    :data:`INDEX_PX`; and the labelled boxes in its pixels (N x 4).

    >>> pic, boxes = as_zone(np.zeros((640, 640, 3), np.uint8), [("S5", 0.1, 0.1, 0.2, 0.25)], 4 / 3)
    >>> pic.shape, boxes.round(1).tolist()
    ((247, 329, 3), [[32.9, 24.7, 65.8, 61.8]])
    """
    h = img.shape[0]
    w = h * aspect
    shares = np.array([b[1:] for b in labels], float).reshape(-1, 4)
    sides = np.maximum((shares[:, 2] - shares[:, 0]) * w, (shares[:, 3] - shares[:, 1]) * h)
    s = INDEX_PX / float(np.median(sides))
    size = (max(32, int(round(w * s))), max(32, int(round(h * s))))
    pic = cv2.resize(img, size, interpolation=cv2.INTER_AREA if s * w < img.shape[1] else cv2.INTER_CUBIC)
    return pic, shares * np.array([size[0], size[1], size[0], size[1]], float)


def on_index(box, boxes: np.ndarray) -> int | None:
    """Which labelled box (of ``boxes``, N x 4) ``box`` lies on: each one's
    centre inside the other (a box mapped back from a turned read is larger
    than the index); None for none, or more than one.

    >>> labelled = np.array([[0, 0, 20, 40], [100, 0, 120, 40]], float)
    >>> on_index((2, 3, 22, 45), labelled), on_index((40, 0, 60, 40), labelled), on_index((-20, -30, 140, 70), labelled)
    (0, None, None)
    """
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    lx, ly = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    hit = ((boxes[:, 0] <= cx) & (cx <= boxes[:, 2]) & (boxes[:, 1] <= cy) & (cy <= boxes[:, 3])
           & (box[0] <= lx) & (lx <= box[2]) & (box[1] <= ly) & (ly <= box[3]))
    found = np.flatnonzero(hit)
    return int(found[0]) if len(found) == 1 else None


def best_aspect(finder, img: np.ndarray, labels: list[Index], default: float = 1.0) -> float:
    """The shape (of :data:`ASPECTS`) in which ``finder`` finds the
    photograph's labelled indices most surely (the sum, over the labels, of
    the best score of a box found on each, as the picture lies); ``default``
    unless another finds them a tenth more surely."""
    from vision.reading.table import ZONE_PX

    shapes = (default,) + tuple(a for a in ASPECTS if a != default)
    pictures, boxes = zip(*(as_zone(img, labels, a) for a in shapes))
    scale = finder.imgsz / max(ZONE_PX)
    sums = []
    for found, labelled in zip(finder.find_boxes_many(list(pictures), scale), boxes):
        best = np.zeros(len(labelled))
        for d in found:
            k = on_index(d.box, labelled) if d.name != "HAND" else None
            if k is not None:
                best[k] = max(best[k], d.confidence)
        sums.append(best.sum())
    k = int(np.argmax(sums))
    return shapes[k] if sums[k] > 1.1 * sums[0] else default


def off_indices(box, boxes: np.ndarray, grow: float = NEAR) -> bool:
    """Whether ``box``'s centre lies outside every one of ``boxes`` (N x 4)
    grown by ``grow`` of its size each way: on a court picture, a pip, a
    card's back or the table, not on an index that a labeller boxed a
    little tightly.

    >>> labelled = np.array([[0, 0, 20, 40]], float)
    >>> off_indices((18, 0, 38, 40), labelled), off_indices((40, 50, 60, 90), labelled)
    (False, True)
    """
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    gx, gy = grow * (boxes[:, 2] - boxes[:, 0]), grow * (boxes[:, 3] - boxes[:, 1])
    near = ((boxes[:, 0] - gx <= cx) & (cx <= boxes[:, 2] + gx) & (boxes[:, 1] - gy <= cy) & (cy <= boxes[:, 3] + gy))
    return not near.any()


def photo_crops(finder, img: np.ndarray, labels: list[Index], rng: np.random.Generator,
                default_aspect: float = 1.0, jitter: int = 2,
                negatives: bool = False) -> tuple[list[tuple[np.ndarray, np.ndarray]], float]:
    """One photograph's (crop, allowed labels) pairs, each allowing its
    labelled index's face alone: the detector's boxes on labelled indices,
    then each labelled index no box was found on, cut at its labelled box
    (and ``jitter`` times moved a little), so that the classifier also
    learns indices this detector boxes only at other angles or scales.
    With ``negatives``, a box found well off every labelled index
    (:func:`off_indices`) is cut as ``NONE`` alone: where the labeller boxed
    every index in sight, what else the detector boxes is a court picture,
    a pip or the table.  And the shape it was read in (:func:`best_aspect`)."""
    from vision.reading.index_classifier import crop
    from vision.training.classifier_data import _jittered
    from vision.training.real_crops import detector_crops

    faced = [b for b in labels if b[0] is not None]
    if not faced:
        return [], default_aspect
    aspect = best_aspect(finder, img, faced, default_aspect)
    pic, boxes = as_zone(img, faced, aspect)
    masks = []
    for code, *_ in faced:
        m = np.zeros(len(LABELS), bool)
        m[LABELS.index(code)] = True
        masks.append(m)
    found: set[int] = set()
    nothing = np.zeros(len(LABELS), bool)
    nothing[NONE] = True

    def allowed_of(box):
        k = on_index(box, boxes)
        if k is None:
            return nothing if negatives and off_indices(box, boxes) else None
        found.add(k)
        return masks[k]

    out, _ = detector_crops(finder, pic, allowed_of, rng, jitter)
    for k in sorted(set(range(len(faced))) - found):
        box = boxes[k]
        bw, bh = box[2] - box[0], box[3] - box[1]
        out.append((crop(pic, box), masks[k]))
        for _ in range(jitter):
            out.append((crop(pic, _jittered(box, 0.08 * bw, 0.08 * bh, rng)), masks[k]))
    return out, aspect


def photographs(folder: Path, groups: tuple[str, ...] = GROUPS) -> list[tuple[Path, str]]:
    """The training split's photographs of ``groups``, by name, each with its group."""
    images = Path(folder) / "datasets" / "train" / "images"
    if not images.is_dir():
        raise LabelledCropsError(f"{images} not found (see vision/training/labelled_index_crops.py to build it)")
    unknown = set(groups) - set(GROUPS)
    if unknown:
        raise LabelledCropsError(f"unknown groups {sorted(unknown)} (of {', '.join(GROUPS)})")
    out = [(p, g) for p in sorted(images.glob("*.jpg")) if (g := group_of(p.name)) in groups]
    if not out:
        raise LabelledCropsError(f"no photographs of {', '.join(groups)} in {images}")
    return out


def build(folder: Path, seed: int = 0, detector: Path | None = None, groups: tuple[str, ...] = GROUPS,
          progress=None, negatives: bool = False) -> dict[str, np.ndarray]:
    """The crops of every photograph of ``groups``, with their labels; see the
    module's docstring (``negatives``: :func:`photo_crops`).  ``progress(done,
    total)`` is called as it goes."""
    from vision.reading.detector import CardDetector

    finder = CardDetector(detector, classifier=False, threads=1)
    photos = photographs(folder, groups)
    xs, allowed, names, kinds = [], [], [], []
    for n, (path, group) in enumerate(photos):
        img = cv2.imread(str(path))
        if img is None:
            raise LabelledCropsError(f"cannot read {path}")
        crops, _ = photo_crops(finder, img, index_labels(path), np.random.default_rng([seed, n]),
                               GROUP_ASPECT[group], negatives=negatives)
        for x, a in crops:
            xs.append(x)
            allowed.append(a)
            names.append(source_of(path.name))
            kinds.append(group)
        if progress is not None:
            progress(n + 1, len(photos))
    if not xs:
        raise LabelledCropsError("the detector found no labelled index")
    return {"x": np.stack(xs), "allowed": np.stack(allowed), "photo": np.array(names), "group": np.array(kinds)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.training.labelled_index_crops",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path, help="the folder holding datasets/train (see above)")
    ap.add_argument("out", type=Path, help="the .npz to write")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--detector", type=Path, help="the ONNX detector (default: the shipped one)")
    ap.add_argument("--groups", default=",".join(GROUPS), help=f"which photographs (default: {','.join(GROUPS)})")
    ap.add_argument("--negatives", action="store_true",
                    help="also cut boxes found well off every labelled index, as NONE")
    args = ap.parse_args(argv)

    def progress(done: int, total: int) -> None:
        if done % 100 == 0 or done == total:
            print(f"{done}/{total} photographs", file=sys.stderr, flush=True)

    try:
        data = build(args.folder, args.seed, args.detector, tuple(g for g in args.groups.split(",") if g), progress,
                     args.negatives)
    except (LabelledCropsError, OSError) as exc:
        print(f"labelled_index_crops: {exc}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **data)
    for g in GROUPS:
        mine = data["group"] == g
        none = int(data["allowed"][mine][:, NONE].sum())
        print(f"{g}: {int(mine.sum())} crops ({none} NONE) from {len(set(data['photo'][mine]))} source photographs")
    print(f"{len(data['x'])} crops -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
