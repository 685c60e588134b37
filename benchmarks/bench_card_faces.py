"""Single cards of many real decks, read as a zone: faces right, phantom jokers, cards counted twice.

The pictures are :mod:`vision.training.card_faces`' set (real card faces of
a few hundred decks, gathered from the web; measured only, never trained or
tuned on), its ``valid`` and ``test`` splits (530 pictures) by default.
Each is laid alone on a real table surface (Debian's wooden boards, as
:mod:`vision.training.real_surfaces` has them; a plain grey one if the
package is absent) at the zone pictures' card size, upright and turned by
each ``--angles`` value, and read as the table watcher reads a zone.

Printed per angle: pictures read exactly (the one card, or one joker of
either kind in a joker picture), the rank right (the one card read has the
right rank), nothing read, more than one card read (a card counted twice:
many decks print an index in all four corners), phantom jokers (a joker
read in a picture of another card) and jokers read in joker pictures; and
what would reach the referee unasked: reads whose play confidence
(calibrated, :func:`vision.reading.tracker.play_confidence`) is at or above
the table's default ``min_confidence``, right and wrong (below it the
referee is asked to confirm, and nothing counts until confirmed).  Each
figure also for the pictures on white card stock, as tournament decks are
printed, and for the rest, the set's art decks
(:func:`vision.training.card_faces.white_stock`, a rule of thumb).  The
cards, not the surface, are real; the turn is ours.

    python benchmarks/bench_card_faces.py --root ROOT [--splits valid,test] [--angles 0,20,40] [--per-picture FILE]
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

from referee.settings import Settings  # noqa: E402
from vision.reading.classes import JOKERS  # noqa: E402
from vision.reading.detector import CardDetector  # noqa: E402
from vision.reading.tracker import calibration_for, play_confidence  # noqa: E402
from vision.reading.table import ZONE_PX  # noqa: E402
from vision.training.card_faces import (JOKER, SOURCE, CardFacesError, face_pictures, white_stock,  # noqa: E402
                                        zone_picture)

BATCH = 8


def _surface(seed: int) -> tuple[str, np.ndarray]:
    """The table surface the cards lie on: the wooden boards if installed."""
    from vision.training.real_surfaces import surfaces, zone_surface

    wood = [s for s in surfaces() if s.name == "wood"]
    if not wood:
        return "plain grey (mate-backgrounds not installed)", np.full((ZONE_PX[1], ZONE_PX[0], 3), 120, np.uint8)
    return f"wood ({wood[0].package}, {wood[0].licence})", zone_surface(wood[0], ZONE_PX, np.random.default_rng(seed))


def measure(det: CardDetector, root: Path, splits: tuple[str, ...] = ("valid", "test"),
            angles: tuple[float, ...] = (0.0, 20.0, 40.0), seed: int = 0,
            per_picture: list | None = None) -> dict:
    """The figures of the module's docstring, by angle.  ``per_picture``:
    a list that gets one dict a picture and angle (its path under ``root``,
    face, angle, stock, cards read, play confidence and whether the referee
    would be asked), to set two readers' reads side by side."""
    faces = [f for s in splits for f in face_pictures(root, s)]
    calibration, asked_below = calibration_for(det), Settings().min_confidence
    surface_name, surface = _surface(seed)
    out: dict = {"source": f"{SOURCE[0]} {SOURCE[1]} ({SOURCE[2]}); real card faces, not made here",
                 "splits": list(splits), "pictures": len(faces), "surface": surface_name}
    stock: dict[Path, bool] = {}
    for angle in angles:
        by_stock = {True: Counter(), False: Counter()}
        for i in range(0, len(faces), BATCH):
            batch = faces[i:i + BATCH]
            pics = []
            for f in batch:
                img = cv2.imread(str(f.path), cv2.IMREAD_COLOR)
                if img is None:
                    raise CardFacesError(f"cannot read {f.path}")
                stock.setdefault(f.path, white_stock(img))
                pics.append(zone_picture(img, surface, angle))
            for f, read in zip(batch, det.read_zones(pics, det.imgsz / max(ZONE_PX), 0)):
                c = by_stock[stock[f.path]]
                names = read.names
                jokers = sum(n in JOKERS for n in names)
                # what the referee would get: below the table's threshold a request to confirm
                confidence = play_confidence(read.confidence, names, calibration)[0] if names else 0.0
                unasked = bool(names) and confidence >= asked_below
                if f.face == JOKER:
                    c["joker_pictures"] += 1
                    exact = len(names) == 1 and jokers == 1
                    c["jokers_read"] += exact
                else:
                    c["card_pictures"] += 1
                    exact = names == [f.face]
                    c["rank_right"] += len(names) == 1 and names[0] not in JOKERS and names[0][1:] == f.face[1:]
                    c["phantom_jokers"] += jokers > 0
                    c["phantom_jokers_unasked"] += jokers > 0 and unasked
                c["exact"] += exact
                if per_picture is not None:
                    per_picture.append({"picture": str(f.path.relative_to(root)), "face": f.face, "angle": angle,
                                        "white_stock": stock[f.path], "read": names,
                                        "raw": round(float(read.confidence), 5), "exact": bool(exact),
                                        "confidence": round(float(confidence), 4), "asked": not unasked})
                c["exact_unasked"] += exact and unasked
                c["wrong_unasked"] += bool(names) and not exact and unasked
                c["nothing_read"] += not names
                c["more_than_one_card"] += len(names) > 1
        out[f"turned {angle:g} degrees"] = {
            key: _figures(c) for key, c in (("all", by_stock[True] + by_stock[False]), ("white card stock", by_stock[True]),
                                            ("coloured or dark stock (art decks)", by_stock[False]))}
    return out


def _figures(c: Counter) -> dict:
    """One group's figures from its counts."""
    n, cards = c["card_pictures"] + c["joker_pictures"], max(1, c["card_pictures"])
    return {
        "pictures": n,
        "exact": round(c["exact"] / max(1, n), 4),
        "exact_and_not_asked": round(c["exact_unasked"] / max(1, n), 4),
        "wrong_and_not_asked": c["wrong_unasked"],
        "rank_right_of_cards": round(c["rank_right"] / cards, 4),
        "nothing_read": round(c["nothing_read"] / max(1, n), 4),
        "more_than_one_card": c["more_than_one_card"],
        "phantom_jokers": f"{c['phantom_jokers']} of {c['card_pictures']}",
        "phantom_jokers_not_asked": c["phantom_jokers_unasked"],
        "jokers_read": f"{c['jokers_read']} of {c['joker_pictures']}",
    }


def angle_list(text: str) -> tuple[float, ...]:
    """``--angles``: comma-separated degrees, each from -90 to 90 (an argparse type).

    >>> angle_list("0,20,-40")
    (0.0, 20.0, -40.0)
    """
    try:
        angles = tuple(float(a) for a in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not numbers: {text!r}") from None
    if not all(np.isfinite(a) and -90 <= a <= 90 for a in angles):
        raise argparse.ArgumentTypeError("each from -90 to 90")
    return angles


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", type=Path, required=True, help="the folder holding faces/ (see vision/training/card_faces.py)")
    ap.add_argument("--splits", default="valid,test", help="comma-separated: train, valid, test")
    ap.add_argument("--angles", type=angle_list, default=(0.0, 20.0, 40.0), help="comma-separated degrees (-90 to 90)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--per-picture", type=Path, help="also write each picture's read here (JSON lines)")
    ap.add_argument("--venue-curve", action="store_true",
                    help="also fit a venue's own confidence curve on half the pictures (as guandan-ref camera-check "
                         "--fit does on a checking round) and judge it on the other half")
    args = ap.parse_args()
    angles = args.angles
    det = CardDetector(threads=args.threads)
    reads: list | None = [] if args.per_picture or args.venue_curve else None
    try:
        out = measure(det, args.root, tuple(args.splits.split(",")), angles, per_picture=reads)
    except CardFacesError as exc:
        ap.error(str(exc))
    if args.per_picture:
        args.per_picture.write_text("".join(json.dumps(r) + "\n" for r in reads or []))
    if args.venue_curve:
        from benchmarks.bench_real_piles import venue_cross_fit
        out["venue_curve"] = venue_cross_fit(reads or [], calibration_for(det), Settings().min_confidence,
                                             group="picture")
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
