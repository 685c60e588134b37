"""Card reading on real photographs no one here made: the EdjeElectronics card photos.

The set: EdjeElectronics/TensorFlow-Object-Detection-API-Tutorial-Train-
Multiple-Objects-Windows-10 (Apache-2.0, commit c164582), ``images/test``: 67
phone and webcam photographs of a Bicycle-style deck (9 to A, all suits) on
carpet, cloth, knitwear and a jacket, single cards and rows of 2-4, cards at
any angle, some sideways, labelled by rank with a box around each card.  The
photographs are not in this repository (a fetched repository's files are not
committed here); build the folder once:

    git clone https://github.com/EdjeElectronics/TensorFlow-Object-Detection-API-Tutorial-Train-Multiple-Objects-Windows-10 edje-repo
    git -C edje-repo archive c164582 images LICENSE | tar x -C DIR

then ``python benchmarks/bench_real_photos.py --dir DIR``.  The ``train``
split's photographs teach the index classifier (:mod:`vision.training.real_crops`);
the ``test`` split, measured here, was used to train or tune nothing.
``GUANDAN_INDEX_MODEL`` measures another classifier.

Each photograph is scaled so that its cards are as wide as a zone picture's
(63 mm at 2.13 px/mm: the median of the labelled boxes' short sides is
taken for a card's width) and read whole, as one zone.  The labels give
ranks only, so what is compared is ranks: per photograph the multiset of the
ranks read against the labelled ones.  Printed: rank recall and precision,
photographs read exactly (as rank multisets, and no joker read: from
2026-12-01; before, a phantom joker did not spoil a photograph), jokers
read (there are none in these photographs), and the same for the photographs whose cards all
lie within 45 degrees of upright (told from the read-independent label
boxes: a box wider than tall holds a card lying sideways).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_real_piles import add_turn_options, turn_settings  # noqa: E402
from vision.reading.detector import CardDetector  # noqa: E402
from vision.training.real_crops import RANKS, load_labels  # noqa: E402
from vision.training.real_piles import read_edje  # noqa: E402


def load(folder: Path, split: str) -> dict[str, list[dict]]:
    """The labelled boxes of ``split`` (train/test), by photograph."""
    try:
        return load_labels(folder, split)
    except FileNotFoundError as exc:
        raise SystemExit(f"bench_real_photos: {exc}") from None


def read_photo(det: CardDetector, path: Path, boxes: list[dict]) -> list[str]:
    """The card names read off one photograph scaled to the zone pictures' card size
    (:func:`vision.training.real_crops.scaled_photo`, as the classifier's real crops are made)."""
    img = cv2.imread(str(path))
    if img is None:
        raise SystemExit(f"bench_real_photos: cannot read {path}")
    return read_edje(det, img, boxes)[1].names


def measure(det: CardDetector, folder: Path, split: str) -> dict:
    by = load(folder, split)
    groups = {"all": Counter(), "upright_within_45": Counter()}
    for name, boxes in sorted(by.items()):
        truth = Counter(RANKS[b["class"]] for b in boxes)
        names = read_photo(det, folder / "images" / split / name, boxes)
        got = Counter(n[1] for n in names if n not in ("BJ", "LJ"))
        jokers = sum(n in ("BJ", "LJ") for n in names)
        sideways = any(int(b["xmax"]) - int(b["xmin"]) > int(b["ymax"]) - int(b["ymin"]) for b in boxes)
        for key in ("all",) + (() if sideways else ("upright_within_45",)):
            g = groups[key]
            g["photos"] += 1
            g["cards"] += sum(truth.values())
            g["read"] += sum(got.values())
            g["right"] += sum((truth & got).values())
            g["exact"] += truth == got and not jokers     # a joker read where none lies spoils the play
            g["jokers"] += jokers
    return {k: {"photographs": g["photos"], "cards": g["cards"],
                "rank_recall": round(g["right"] / max(1, g["cards"]), 4),
                "rank_precision": round(g["right"] / max(1, g["read"]), 4),
                "photographs_exact": round(g["exact"] / max(1, g["photos"]), 4),
                "jokers_read": g["jokers"]} for k, g in groups.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", type=Path, required=True, help="the folder holding images/ (see above)")
    ap.add_argument("--split", choices=("test", "train"), default="test")
    ap.add_argument("--threads", type=int, default=2)
    add_turn_options(ap)
    args = ap.parse_args()
    turning, said = turn_settings(args)
    out = {"source": "EdjeElectronics card photographs (Apache-2.0), real, not made here",
           "split": args.split, **said}
    for label, turn_from in (("turning_rows_upright", 12.0), ("as_they_lie", None)):
        det = CardDetector(threads=args.threads, turn_from=turn_from, **turning)
        out[label] = measure(det, args.dir, args.split)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
