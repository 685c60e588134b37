"""Card reading on real photographs of overlapping cards no one here made: CardCounterML's webcam shots.

The set: Ammememe/CardCounterML (commit a0e040b), ``datasets/valid`` and
``datasets/test``, the ten photographs named ``WIN_2024*`` (the Roboflow
Universe project cadyzedevelopmenthub/card-detection-zk7wu, version 12,
licence CC BY 4.0 in its ``data.yaml`` and ``README.dataset.txt``): a real
white-stock standard deck seen obliquely from above by a webcam, on a white
table, on a knitted blanket and beside a phone, 3 to 12 cards a photograph,
lying over each other at every angle (many beyond 45 degrees, some upside
down), each card's corner indices labelled by face.  Those ten are as the
webcam took them (squeezed to 640x640); the set's training split holds the
other shots only as noisy, blurred copies, and is not used.  The
photographs are not in this repository; build the folder once:

    git clone https://github.com/Ammememe/CardCounterML ccml-repo
    git -C ccml-repo archive a0e040b datasets/valid datasets/test data.yaml README.dataset.txt | tar x -C DIR

then ``python benchmarks/bench_real_piles.py --dir DIR``.  Nothing here was
trained or tuned on them.

Each photograph gets its 16:9 shape back and is scaled so that the median
labelled index box's longer side is :data:`INDEX_PX` (an upright index's
box in a generated zone picture), then read whole, as one zone.  Compared
per photograph: the set of faces labelled (a face is one card: one deck)
against the faces read.  Printed: card recall and precision, photographs
read exactly, phantom jokers (there are no jokers in these ten).  These are
piles, not plays laid in a zone (cards within 45 degrees of its axis), so
the figures say how the reader copes with real overlapping cards at any
angle, not how it meets the aims for plays.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.reading.detector import CardDetector  # noqa: E402
from vision.reading.table import ZONE_PX  # noqa: E402

INDEX_PX = 37.0   # the median index box's height in generated zone pictures (held-out decks, 2.13 px/mm)
ASPECT = 16 / 9   # the webcam's frame, squeezed into 640x640 by the set's export
# the set's 55 classes in its data.yaml order, as the referee's codes (BACK: no face)
SET_NAMES = [r + s for r in ("10", "2", "3", "4", "5", "6", "7", "8", "9", "A") for s in "CDHS"] + \
    ["BACK", "BLACK JOKER"] + [r + s for r in "JKQ" for s in "CDHS"] + ["RED JOKER"]


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


def photographs(folder: Path) -> list[tuple[Path, list[tuple[str | None, float, float]]]]:
    """The ten photographs, each with its labels as (face, box width, box height) in the photograph's pixels."""
    out = []
    for path in sorted(folder.glob("datasets/*/images/WIN_*.jpg")):
        labels = path.parent.parent / "labels" / (path.stem + ".txt")
        rows = [line.split() for line in labels.read_text().splitlines() if line.strip()]
        out.append((path, [(face(SET_NAMES[int(r[0])]), float(r[3]), float(r[4])) for r in rows]))
    if not out:
        raise SystemExit(f"bench_real_piles: no WIN_*.jpg photographs under {folder}/datasets (see the module's doc)")
    return out


def zone_picture(path: Path, labels: list[tuple[str | None, float, float]]) -> np.ndarray:
    """The photograph in its own shape, scaled so that its median index box is :data:`INDEX_PX` long."""
    img = cv2.imread(str(path))
    if img is None:
        raise SystemExit(f"bench_real_piles: cannot read {path}")
    h = img.shape[0]
    w = int(round(h * ASPECT))
    s = INDEX_PX / float(np.median([max(bw * w, bh * h) for _, bw, bh in labels]))
    return cv2.resize(img, (int(round(w * s)), int(round(h * s))), interpolation=cv2.INTER_AREA)


def measure(det: CardDetector, folder: Path, per_photo: bool = False) -> dict:
    tally: Counter = Counter()
    rows = []
    for path, labels in photographs(folder):
        truth = {f for f, _, _ in labels if f}
        read = det.read_zones([zone_picture(path, labels)], det.imgsz / max(ZONE_PX), 0)[0]
        got = Counter(read.names)
        tally["cards"] += len(truth)
        tally["found"] += sum(1 for f in truth if got[f])
        tally["read"] += sum(got.values())
        tally["right"] += sum(min(n, 1) for f, n in got.items() if f in truth)
        tally["phantom_jokers"] += sum(n for f, n in got.items() if f in ("BJ", "LJ") and f not in truth)
        tally["exact"] += set(got) == truth and max(got.values(), default=1) == 1
        rows.append({"photo": path.name[:24], "truth": sorted(truth), "read": read.names})
    out = {"photographs": len(rows), "cards": tally["cards"],
           "card_recall": round(tally["found"] / max(1, tally["cards"]), 3),
           "card_precision": round(tally["right"] / max(1, tally["read"]), 3),
           "photographs_exact": round(tally["exact"] / max(1, len(rows)), 3),
           "phantom_jokers": tally["phantom_jokers"]}
    return {**out, "per_photograph": rows} if per_photo else out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", type=Path, required=True, help="the folder built as the module's doc says")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--per-photograph", action="store_true", help="also each photograph's faces and read")
    args = ap.parse_args()
    det = CardDetector(threads=args.threads)
    print(json.dumps({"source": "Ammememe/CardCounterML a0e040b (Roboflow cadyzedevelopmenthub/card-detection-"
                                "zk7wu v12, CC BY 4.0): real, not made here",
                      "detector": det.model_path.name, "index_classifier": det.classifier.model_path.name,
                      **measure(det, args.dir, args.per_photograph)}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
