"""Real photographs of piles of cards, as zone pictures: the phone set's
loaders, and its training photographs boxed at their indices.

The phone set: farukalamai/realtime-poker-card-detection-jetson at commit
b4f4f13 (the Roboflow Universe project roboflow-jvuqo/poker-cards-fmjio,
version 4, CC BY 4.0): phone photographs of one real deck (no jokers), each
card's visible part boxed and labelled by face, stretched to 640x640 by the
export. Its ``valid`` and ``test`` photographs are for measuring only
(``benchmarks/bench_real_piles.py --set phone``, which also says how to
build the folder); its ``train`` split (811 copies, about half mirrored)
may be trained on.

:func:`write_index_boxes` makes a YOLO split of the training photographs
for the detector: the shipped reader reads each one as a zone, and only a
photograph it reads completely (every labelled face once, nothing else)
is kept, so that no index in it is left unlabelled (an unlabelled index
would teach the detector to miss it). Each card's index boxes found as
the picture lies are its labels (``INDEX``); a photograph with a box
mapped back from a turned read (larger than an index) is left out too.
A corner index the reader did not attach to any card (on a deck printing
all four corners it needs only one a card) stays unboxed: checked by eye on
one kept photograph, one or two of its 16 indices.
Pictures are halved, as ``make_dataset`` halves generated zones, so an
index has the detector's training size.

The same is done for the EdjeElectronics set's ``train`` split
(``--set edje``; :mod:`vision.training.real_crops` says how to build its
folder): a Bicycle-style deck that prints an index in two corners only, as
the zone reader expects, on carpet, cloth and knitwear. Its labels give
each card's rank, not its suit, so a photograph is kept where the ranks
read are the labelled ranks, each as often, no joker, and every card read
from both its corners (:func:`rank_index_boxes`: 167 of the 296
photographs, 464 index boxes, with the reader of 2026-12-04 evening); each
photograph is scaled as
``benchmarks/bench_real_photos.py`` scales it. Its ``test`` split stays for
measuring.

    python -m vision.training.real_piles PHONE_DIR data/real_index --split train
    python -m vision.training.real_piles --set edje EDJE_DIR data/real_index_edje
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:
    from vision.reading.detector import ZoneRead

CARD_PX = 188.0   # a card's height (88 mm) in generated zone pictures (vision.training.card_faces)
INDEX_PX = 37.0   # the median index box's height in generated zone pictures (held-out decks, 2.13 px/mm)
# The phone set's frame, squeezed to 640x640 by the export: all its photographs
# were taken with the phone held level (4:3).
PHONE_ASPECT = 4 / 3
PHONE_DIR = "datasets/poker-cards-4"
TURNED_BOX = 1.3   # an index box this much larger than the median one was mapped back from a turned read

# one label: (face or None, box width, box height), the box as shares of the picture's sides
Label = tuple[str | None, float, float]


class RealPilesError(ValueError):
    """A photo folder that is not built as the module's doc says."""


def phone_face(name: str) -> str:
    """The referee's code of one of the phone set's class names (``10 of clubs`` -> ``CT``).

    >>> phone_face("10 of clubs"), phone_face("ace of spades"), phone_face("jack  of clubs"), phone_face("3 of hearts")
    ('CT', 'SA', 'CJ', 'H3')
    """
    rank, suit = (w.strip() for w in name.split(" of "))
    return suit[0].upper() + {"10": "T", "ace": "A", "jack": "J", "queen": "Q", "king": "K"}.get(rank, rank)


def yolo_labels(path: Path, code) -> list[Label]:
    """A photograph's YOLO label file's rows as :data:`Label`\\ s, class numbers named by ``code``."""
    labels = path.parent.parent / "labels" / (path.stem + ".txt")
    rows = [line.split() for line in labels.read_text().splitlines() if line.strip()]
    return [(code(int(r[0])), float(r[3]), float(r[4])) for r in rows]


def phone_names(folder: Path) -> list[str]:
    """The phone set's class names, from its ``data.yaml``."""
    try:
        # (its names line is a flow list of quoted strings: no YAML library needed at a table)
        line = next(x for x in (folder / PHONE_DIR / "data.yaml").read_text().splitlines() if x.startswith("names:"))
        return list(ast.literal_eval(line.split(":", 1)[1].strip()))
    except (OSError, StopIteration, ValueError, SyntaxError) as exc:
        raise RealPilesError(f"no class names in {folder / PHONE_DIR}/data.yaml: {exc!r} "
                             "(see benchmarks/bench_real_piles.py's doc)") from None


def phone_photographs(folder: Path, splits: tuple[str, ...] = ("valid", "test")) -> list[tuple[Path, list[Label]]]:
    """The phone set's photographs of ``splits`` (the 88 valid and test ones by default), each with its labels."""
    names = phone_names(folder)
    out = [(path, yolo_labels(path, lambda k: phone_face(names[k])))
           for split in splits for path in sorted((folder / PHONE_DIR / split / "images").glob("*.jpg"))]
    if not out:
        raise RealPilesError(f"no photographs under {folder / PHONE_DIR} {'/'.join(splits)} "
                             "(see benchmarks/bench_real_piles.py's doc)")
    return out


def zone_picture(img: np.ndarray, labels: list[Label], aspect: float, longest_px: float) -> np.ndarray:
    """A photograph squeezed by its set's export, in its own shape again (width
    over height ``aspect``) and scaled so that its labels' median box's longer
    side is ``longest_px`` (an index's height for index boxes, :data:`CARD_PX`
    for card boxes).

    >>> zone_picture(np.zeros((640, 640, 3), np.uint8), [("S5", 0.2, 0.25)], 4 / 3, 188.0).shape
    (705, 940, 3)
    """
    h = img.shape[0]
    w = h * aspect
    s = longest_px / float(np.median([max(bw * w, bh * h) for _, bw, bh in labels]))
    return cv2.resize(img, (int(round(w * s)), int(round(h * s))), interpolation=cv2.INTER_AREA)


def read_as_zone(det, img: np.ndarray, labels: list[Label], aspect: float = PHONE_ASPECT,
                 longest_px: float = CARD_PX) -> tuple[np.ndarray, "ZoneRead"]:
    """A photograph as a zone picture (:func:`zone_picture`) and ``det``'s
    read of it whole (:func:`read_whole`)."""
    picture = zone_picture(img, labels, aspect, longest_px)
    return picture, read_whole(det, picture)


def read_edje(det, img: np.ndarray, boxes: list[dict]) -> tuple[np.ndarray, "ZoneRead"]:
    """An EdjeElectronics photograph scaled so that its labelled cards are as
    wide as a zone picture's (:func:`vision.training.real_crops.scaled_photo`),
    and ``det``'s read of it whole (:func:`read_whole`)."""
    from vision.training.real_crops import scaled_photo

    picture, _ = scaled_photo(img, boxes)
    return picture, read_whole(det, picture)


def read_whole(det, picture: np.ndarray) -> "ZoneRead":
    """``det``'s read of a picture whole, as one zone at the zone pictures' scale and with no margin."""
    from vision.reading.table import ZONE_PX

    return det.read_zones([picture], det.imgsz / max(ZONE_PX), 0)[0]


def index_boxes(read, truth: set[str]) -> list[tuple[float, float, float, float]] | None:
    """The index boxes of a read that names exactly the faces ``truth``, each
    once, and boxes none of its indices from a turned read; else None.

    >>> from vision.reading.pairing import CardRead, IndexDetection
    >>> from vision.reading.detector import ZoneRead
    >>> at = lambda n, x: IndexDetection(n, 0.95, (x, 10, x + 20, 50))
    >>> card = lambda n, x: CardRead(n, 0.95, (0, 0, 1, 1), (at(n, x),))
    >>> read = ZoneRead([card("S5", 0), card("H6", 60)])
    >>> index_boxes(read, {"S5", "H6"})
    [(0, 10, 20, 50), (60, 10, 80, 50)]
    >>> index_boxes(read, {"S5"}) is None, index_boxes(read, {"S5", "H6", "C7"}) is None
    (True, True)
    """
    names = Counter(read.names)
    if set(names) != truth or any(n > 1 for n in names.values()):
        return None
    return _as_lies(read)


def rank_index_boxes(read, ranks: Counter) -> list[tuple[float, float, float, float]] | None:
    """The index boxes of a read whose cards' ranks are ``ranks``, each as
    often, each card read from two corners, with no joker and no box from a
    turned read; else None (a set labelled by rank alone, as
    EdjeElectronics' is). Its deck prints two corners: a card read from one
    often shows the other unboxed (one card in four of the reads that name
    the right ranks, some with the other corner in plain view, which would
    teach the detector to miss it).

    >>> from vision.reading.pairing import CardRead, IndexDetection
    >>> from vision.reading.detector import ZoneRead
    >>> card = lambda n, x: CardRead(n, 0.95, (0, 0, 1, 1), (IndexDetection(n, 0.95, (x, 10, x + 20, 50)),))
    >>> at = lambda n, x, y: IndexDetection(n, 0.95, (x, y, x + 20, y + 40))
    >>> card = lambda n, x: CardRead(n, 0.95, (0, 0, 1, 1), (at(n, x, 10), at(n, x + 100, 150)))
    >>> read = ZoneRead([card("SQ", 0), card("HQ", 60)])
    >>> rank_index_boxes(read, Counter("QQ"))
    [(0, 10, 20, 50), (100, 150, 120, 190), (60, 10, 80, 50), (160, 150, 180, 190)]
    >>> rank_index_boxes(read, Counter("Q")) is None, rank_index_boxes(ZoneRead([card("BJ", 0)]), Counter()) is None
    (True, True)
    >>> rank_index_boxes(ZoneRead([CardRead("SQ", 0.95, (0, 0, 1, 1), (at("SQ", 0, 10),))]), Counter("Q")) is None
    True
    """
    if any(n in ("BJ", "LJ") for n in read.names) or Counter(n[1] for n in read.names) != ranks:
        return None
    if any(len(c.indices) < 2 for c in read.cards):
        return None
    return _as_lies(read)


def _as_lies(read) -> list[tuple[float, float, float, float]] | None:
    """A read's index boxes, or None where it has none or one was mapped back from a turned read."""
    boxes = [d.box for c in read.cards for d in c.indices]
    if not boxes:
        return None
    w, h = np.median([[b[2] - b[0], b[3] - b[1]] for b in boxes], axis=0)
    if any(b[2] - b[0] > TURNED_BOX * w or b[3] - b[1] > TURNED_BOX * h for b in boxes):
        return None
    return boxes


SETS = ("phone", "edje")     # the sets whose training photographs can be boxed


def _image(path: Path) -> np.ndarray:
    img = cv2.imread(str(path))
    if img is None:
        raise RealPilesError(f"cannot read {path}")
    return img


def _phone_photos(folder: Path, split: str) -> list:
    """The phone set's ``split`` photographs, each with what reads it: its zone
    picture and its index boxes where read completely."""
    def reader(path: Path, labels: list[Label]):
        def read(det):
            picture, zone = read_as_zone(det, _image(path), labels)
            return picture, index_boxes(zone, {f for f, _, _ in labels if f})
        return read
    return [(path, reader(path, labels)) for path, labels in phone_photographs(folder, (split,))]


def _edje_photos(folder: Path, split: str) -> list:
    """The same for EdjeElectronics' photographs, scaled as bench_real_photos scales them and judged by rank."""
    from vision.training.real_crops import RANKS, load_labels

    try:
        by = load_labels(folder, split)
    except FileNotFoundError as exc:
        raise RealPilesError(str(exc)) from None

    def reader(path: Path, labelled: list[dict]):
        def read(det):
            picture, zone = read_edje(det, _image(path), labelled)
            return picture, rank_index_boxes(zone, Counter(RANKS[b["class"]] for b in labelled))
        return read
    return [(folder / "images" / split / name, reader(folder / "images" / split / name, labelled))
            for name, labelled in sorted(by.items())]


def write_index_boxes(folder: Path, out: Path, split: str = "train", det=None, progress=None,
                      kind: str = "phone") -> Counter:
    """A set's ``split`` photographs read completely (``kind``: one of :data:`SETS`),
    as a YOLO split ``out/images/split`` + ``out/labels/split`` (class 0,
    ``INDEX``); returns the counts (photographs, kept, index boxes)."""
    from vision.reading.detector import CardDetector

    if kind not in SETS:
        raise RealPilesError(f"no set {kind!r}: one of {', '.join(SETS)}")
    photos = (_phone_photos if kind == "phone" else _edje_photos)(folder, split)
    det = det or CardDetector(threads=2)
    img_dir, lab_dir = out / "images" / split, out / "labels" / split
    img_dir.mkdir(parents=True, exist_ok=True)
    lab_dir.mkdir(parents=True, exist_ok=True)
    tally: Counter = Counter()
    for k, (path, read) in enumerate(photos):
        picture, boxes = read(det)
        tally["photographs"] += 1
        if boxes is not None:
            h, w = picture.shape[:2]
            half = cv2.resize(picture, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
            cv2.imwrite(str(img_dir / f"{path.stem}.jpg"), half, [cv2.IMWRITE_JPEG_QUALITY, 95])
            rows = [f"0 {(x0 + x1) / 2 / w:.6f} {(y0 + y1) / 2 / h:.6f} {(x1 - x0) / w:.6f} {(y1 - y0) / h:.6f}"
                    for x0, y0, x1, y1 in boxes]
            (lab_dir / f"{path.stem}.txt").write_text("\n".join(rows) + "\n")
            tally["kept"] += 1
            tally["index_boxes"] += len(boxes)
        if progress:
            progress(k + 1, len(photos))
    return tally


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.training.real_piles", description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path, help="the set's folder (the phone set: benchmarks/bench_real_piles.py's doc; "
                    "edje: vision/training/real_crops.py's)")
    ap.add_argument("out", type=Path, help="the YOLO data folder to write (kept out of git)")
    ap.add_argument("--split", default="train", choices=("train",),
                    help="which split (only train: valid and test are for measuring)")
    ap.add_argument("--set", dest="kind", default="phone", choices=SETS,
                    help="phone (farukalamai, a four-corner deck) or edje (EdjeElectronics, two corners)")
    ap.add_argument("--threads", type=int, default=2, choices=range(1, 65), metavar="1-64")
    args = ap.parse_args(argv)
    from vision.reading.detector import CardDetector

    def show(k: int, n: int) -> None:
        if k % 50 == 0 or k == n:
            print(f"{k}/{n} photographs read", file=sys.stderr, flush=True)

    try:
        tally = write_index_boxes(args.folder, args.out, args.split, CardDetector(threads=args.threads), show,
                                  args.kind)
    except RealPilesError as exc:
        print(f"real_piles: {exc}", file=sys.stderr)
        return 2
    print(f"{tally['kept']} of {tally['photographs']} photographs read completely, "
          f"{tally['index_boxes']} index boxes -> {args.out / 'images' / args.split}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
