"""Cards the reader names nothing, caught as something laid; bare real pictures under another light, never.

The table watcher remembers each play zone's look while it lies empty, and
a zone read as nothing whose picture shows something new laid inside it is
reported as an unread play, so the referee is asked what was laid
(:mod:`vision.reading.laid`).  Two measures, on real pictures no one here
made, read by the shipped models:

- **caught**: pictures of the card-face set (:mod:`vision.training.card_faces`,
  measured only, never trained on), each laid alone on a real surface
  (Debian's, :mod:`vision.training.real_surfaces`, one drawn for each
  picture) at each ``--angles`` value, the zone seen bare first.  Of those
  the reader reads as nothing, the share marked (the referee asked; before,
  the play vanished).
- **false marks**: real pictures with no card, each seen as it is and then
  under another light (warm, cold, dim, a hard shadow band across the zone:
  :func:`vision.training.real_surfaces.relight`): the surfaces, and the
  tables set's photographs of ``--table-split``
  (:mod:`vision.training.real_photos`).  Each mark would be a request to
  the referee about nothing; so would a card read there (counted too).

The cards and the photographs are real; the laying, the turn and the
light's change are ours.

    python benchmarks/bench_unread.py --root ROOT [--face-splits train] [--faces 500] [--table-split train]
        [--tables N] [--angles 0,20,40] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_card_faces import angle_list  # noqa: E402
from vision.reading.detector import CardDetector, ZoneRead  # noqa: E402
from vision.reading.laid import EmptyLook  # noqa: E402
from vision.reading.table import ZONE_MARGIN_MM, ZONE_PX, Zone  # noqa: E402
from vision.training.card_faces import CardFacesError, face_pictures, zone_picture  # noqa: E402
from vision.training.real_photos import table_photos  # noqa: E402
from vision.training.real_surfaces import LIGHTS, relight, surfaces, zone_surface  # noqa: E402


def marked(det: CardDetector, bare: np.ndarray, now: np.ndarray, margin: int) -> tuple[ZoneRead, bool]:
    """``now``'s read, and whether it is marked unread, the zone seen as ``bare`` first."""
    first, then = det.read_zones([bare, now], det.imgsz / max(ZONE_PX), margin)
    look = EmptyLook()
    look("zone", 0.0, bare, margin, first)
    return then, look("zone", 0.5, now, margin, then).unread


def caught(det: CardDetector, root: Path, splits: tuple[str, ...], n: int, angles: tuple[float, ...],
           rng: np.random.Generator) -> dict:
    """The first measure, by angle."""
    faces = [f for s in splits for f in face_pictures(root, s)]
    if n and n < len(faces):
        faces = [faces[i] for i in sorted(rng.choice(len(faces), n, replace=False))]
    kinds = surfaces()
    if not kinds:
        raise CardFacesError("no real surfaces installed (apt-get install mate-backgrounds mypaint-data-extras)")
    out: dict = {"pictures": len(faces), "splits": list(splits)}
    for angle in angles:
        c: Counter = Counter()
        for k, f in enumerate(faces):
            img = cv2.imread(str(f.path), cv2.IMREAD_COLOR)
            if img is None:
                raise CardFacesError(f"cannot read {f.path}")
            bare = zone_surface(kinds[int(rng.integers(len(kinds)))], ZONE_PX, rng)
            read, mark = marked(det, bare, zone_picture(img, bare, angle), 0)
            c["nothing_read"] += not read.cards
            c["nothing_read_marked"] += not read.cards and mark
            if (k + 1) % 100 == 0:
                print(f"  {angle:g} degrees: {k + 1}/{len(faces)}", file=sys.stderr, flush=True)
        out[f"turned {angle:g} degrees"] = {
            "read_as_nothing": c["nothing_read"], "of_them_marked": c["nothing_read_marked"],
            "share_marked": round(c["nothing_read_marked"] / max(1, c["nothing_read"]), 4)}
    return out


def false_marks(det: CardDetector, root: Path, split: str, n: int, rng: np.random.Generator) -> dict:
    """The second measure, by set and light."""
    margin = Zone.margin_px(ZONE_MARGIN_MM)
    size = (ZONE_PX[0] + 2 * margin, ZONE_PX[1] + 2 * margin)
    pictures = [("surfaces", zone_surface(s, size, rng)) for s in surfaces() for _ in range(2)]
    tables = table_photos(root, split)[:n or None]
    if not tables:
        raise CardFacesError(f"no tables photographs under {root}/tables/{split} (vision/training/real_photos.py)")
    pictures += [(f"tables ({split})", cv2.resize(cv2.imread(str(p.path)), size, interpolation=cv2.INTER_AREA))
                 for p in tables]
    c: Counter = Counter()
    for k, (kind, bare) in enumerate(pictures):
        for light in LIGHTS[1:]:
            read, mark = marked(det, bare, relight(bare, light, rng), margin)
            # a card read where none lies: a play the referee is asked about
            c[f"{kind}, {light}: a card read"] += bool(read.cards)
            if read.cards or read.hand:
                c[f"{kind}, {light}: read with a card or a hand"] += 1     # (a mark needs an empty read)
                continue
            c[f"{kind}, {light}: pictures"] += 1
            c[f"{kind}, {light}: marked"] += mark
        if (k + 1) % 100 == 0:
            print(f"  bare pictures: {k + 1}/{len(pictures)}", file=sys.stderr, flush=True)
    return dict(sorted(c.items()))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, required=True,
                    help="the folder holding faces/ and tables/ (vision/training/card_faces.py, real_photos.py)")
    ap.add_argument("--face-splits", default="train", help="comma-separated: train, valid, test")
    ap.add_argument("--faces", type=int, default=500, help="card-face pictures drawn (0: all)")
    ap.add_argument("--table-split", default="train", choices=("train", "valid", "test"))
    ap.add_argument("--tables", type=int, default=0, help="tables photographs used (0: all)")
    ap.add_argument("--angles", type=angle_list, default=(0.0, 20.0, 40.0), help="comma-separated degrees (-90 to 90)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    angles = args.angles
    if args.faces < 0 or args.tables < 0:
        ap.error("--faces, --tables: 0 or more")
    det = CardDetector(threads=args.threads)
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    try:
        out = {"caught (cards read as nothing, marked)": caught(det, args.root, tuple(args.face_splits.split(",")),
                                                                args.faces, angles, rng),
               "false marks (bare real pictures, another light)": false_marks(det, args.root, args.table_split,
                                                                                   args.tables, rng)}
    except CardFacesError as exc:
        ap.error(str(exc))
    out["seconds"] = round(time.perf_counter() - start, 1)
    print(json.dumps(out, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
