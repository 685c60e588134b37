"""Card reading on real photographs of overlapping cards no one here made: two public sets.

``--set ccml`` (the default): Ammememe/CardCounterML (commit a0e040b),
``datasets/valid`` and ``datasets/test``, the ten photographs named
``WIN_2024*`` (the Roboflow Universe project
cadyzedevelopmenthub/card-detection-zk7wu, version 12, licence CC BY 4.0 in
its ``data.yaml`` and ``README.dataset.txt``): a real white-stock standard
deck seen obliquely from above by a webcam, on a white table, on a knitted
blanket and beside a phone, 3 to 12 cards a photograph, lying over each
other at every angle (many beyond 45 degrees, some upside down), each
card's corner indices labelled by face.  Those ten are as the webcam took
them (squeezed to 640x640); the set's training split holds the other shots
only as noisy, blurred copies, and is not used.  Build the folder once:

    git clone https://github.com/Ammememe/CardCounterML ccml-repo
    git -C ccml-repo archive a0e040b datasets/valid datasets/test data.yaml README.dataset.txt | tar x -C DIR

``--set phone``: farukalamai/realtime-poker-card-detection-jetson at commit
b4f4f13 (the folder was deleted from the repository later; the Roboflow
Universe project roboflow-jvuqo/poker-cards-fmjio, version 4, licence
CC BY 4.0 in ``README.dataset.txt``; the repository's own files MIT):
the 88 photographs of its ``valid`` and ``test`` splits, taken with a phone
on 16 March 2022, 4 to 8 cards of a real deck (no jokers) lying apart or
over each other at every angle, on a white table, patterned and plain
cloth, a green tablecloth and dark fabric, in room light; each card's
visible part boxed and labelled by face.  The export stretched each to
640x640 and put flipped copies only in the training split, which this
benchmark does not use (``vision.training.real_piles`` boxes it for
training).  Build the folder once:

    git clone https://github.com/farukalamai/realtime-poker-card-detection-jetson phone-repo
    git -C phone-repo archive b4f4f13 datasets/poker-cards-4/valid datasets/poker-cards-4/test \\
        datasets/poker-cards-4/data.yaml datasets/poker-cards-4/README.dataset.txt LICENSE | tar x -C DIR

then ``python benchmarks/bench_real_piles.py --set SET --dir DIR``.  The
photographs are not in this repository, and nothing here was trained or
tuned on them.  ``--deck PROFILE`` reads them with a deck profile, as a
table naming it does (``bench_real_enroll.py`` makes one of the phone
set's deck from its training split).

Each photograph gets its own shape back (CardCounterML: the webcam's 16:9;
the phone set: 4:3, :data:`PHONE_ASPECT`) and is scaled to
the zone pictures' 2.13 px/mm (CardCounterML: the median labelled index
box's longer side becomes :data:`INDEX_PX`; the phone set: the median
card box's longer side becomes a card's height, :data:`CARD_PX`), then read
whole, as one zone.  Compared per photograph: the set of faces labelled (a
face is one card: one deck) against the faces read.  Printed: card recall
and precision, photographs read exactly, phantom jokers (there are no
jokers in either set's photographs).  These are piles, not plays laid in a
zone (cards within 45 degrees of its axis), so the figures say how the
reader copes with real overlapping cards at any angle, not how it meets
the aims for plays; the phone set also gives recall apart for the cards
whose box is taller than wide (within about 45 degrees of upright, or of
upside down, if the card shows whole) and for the others (only roughly:
a tilted view makes an upright card look wider).  ``--px-per-mm
ACROSS[,ALONG]`` reads each as a camera seeing the cloth that finely gives
it (:func:`seen_at`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.settings import Settings  # noqa: E402
from vision.reading.deck_profile import DeckProfileError  # noqa: E402
from vision.reading.classes import JOKERS  # noqa: E402
from vision.reading.detector import CardDetector, DetectorError  # noqa: E402
from vision.reading.table import PLAY_ZONE_MM, ZONE_PX  # noqa: E402
from vision.reading.tracker import calibration_for, play_confidence  # noqa: E402
from vision.training import real_piles  # noqa: E402
# the phone set's loaders live with the training tools that also read its training split
from vision.training.real_piles import CARD_PX, INDEX_PX, PHONE_ASPECT, Label, yolo_labels  # noqa: E402
# CardCounterML's class names as the referee's codes: the training tools read its training split too
from vision.training.labelled_index_crops import SET_NAMES, face  # noqa: E402

ZONE_PX_PER_MM = ZONE_PX[0] / PLAY_ZONE_MM[0]   # the zone pictures' scale (2.13 px/mm)


def seen_at(picture: np.ndarray, across: float, along: float | None = None) -> np.ndarray:
    """A zone picture as a camera that sees the cloth at ``across`` camera
    pixels a millimetre (and ``along`` up and down the zone: a camera tilted
    that way sees it shorter; None: the same) gives it once the table
    watcher has rectified it: the camera's pixels each the mean of the
    cloth they see (OpenCV's area resampling), then drawn back up to the
    zone pictures' scale as :meth:`vision.reading.table.TableGeometry.rectify`
    draws them (linear).  At :data:`ZONE_PX_PER_MM` or finer, the picture as it is.

    >>> img = np.zeros((40, 60, 3), np.uint8); img[:, 30:] = 200
    >>> out = seen_at(img, ZONE_PX_PER_MM / 4)
    >>> out.shape, int(out[0, 0, 0]), int(out[0, -1, 0]), 0 < int(out[0, 30, 0]) < 200
    ((40, 60, 3), 0, 200, True)
    >>> seen_at(img, 3.0) is img
    True
    """
    along = across if along is None else along
    if across >= ZONE_PX_PER_MM and along >= ZONE_PX_PER_MM:
        return picture
    h, w = picture.shape[:2]
    fx, fy = min(1.0, across / ZONE_PX_PER_MM), min(1.0, along / ZONE_PX_PER_MM)
    small = cv2.resize(picture, (max(1, round(w * fx)), max(1, round(h * fy))), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def px_per_mm_value(text: str) -> tuple[float, float]:
    """A ``--px-per-mm`` value: ACROSS or ACROSS,ALONG, each finite, 0.3 up to the zone pictures' scale.

    >>> px_per_mm_value("1.5"), px_per_mm_value("2,1.2")
    ((1.5, 1.5), (2.0, 1.2))
    >>> px_per_mm_value("nan")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: nan: camera pixels a millimetre from 0.3 to 2.13
    """
    parts = text.split(",")
    try:
        values = [float(v) for v in parts]
    except ValueError:
        values = []
    if len(values) not in (1, 2) or not all(0.3 <= v <= round(ZONE_PX_PER_MM, 2) for v in values):
        raise argparse.ArgumentTypeError(f"{text}: camera pixels a millimetre from 0.3 to {ZONE_PX_PER_MM:.2f}")
    return values[0], values[-1]


PX_PER_MM_HELP = ("every zone as a camera seeing the cloth this finely gives it (0.3-2.13 camera px a mm; "
                  "ALONG: up and down the zone, a camera tilted that way; default: the zone pictures' own 2.13)")


ASPECT = 16 / 9   # CardCounterML's webcam frame, squeezed into 640x640 by the set's export
# The phone set's frame (PHONE_ASPECT, 4:3), likewise squeezed: all 88 were taken in one
# sitting with the phone held level.  Where card boxes alone would suggest 3:4 (six
# photographs), the cards are seen lying sideways, foreshortened by the tilted
# view: checked by eye.


def ccml_photographs(folder: Path) -> list[tuple[Path, list[Label]]]:
    """CardCounterML's ten photographs, each with its labels."""
    out = [(path, yolo_labels(path, lambda k: face(SET_NAMES[k])))
           for path in sorted(folder.glob("datasets/*/images/WIN_*.jpg"))]
    if not out:
        raise SystemExit(f"bench_real_piles: no WIN_*.jpg photographs under {folder}/datasets (see the module's doc)")
    return out


def phone_names(folder: Path) -> list[str]:
    """The phone set's class names, from its ``data.yaml``."""
    try:
        return real_piles.phone_names(folder)
    except real_piles.RealPilesError as exc:
        raise SystemExit(f"bench_real_piles: {exc}") from None


def phone_photographs(folder: Path) -> list[tuple[Path, list[Label]]]:
    """The phone set's 88 valid and test photographs, each with its labels."""
    try:
        return real_piles.phone_photographs(folder)
    except real_piles.RealPilesError as exc:
        raise SystemExit(f"bench_real_piles: {exc}") from None


def upright_faces(labels: list[Label], aspect: float) -> set[str]:
    """The faces whose box, in the photograph's own shape, is taller than wide.

    >>> sorted(upright_faces([("S5", 0.2, 0.4), ("H5", 0.4, 0.2)], 1.0))
    ['S5']
    """
    return {f for f, bw, bh in labels if f and bw * aspect < bh}


@dataclass(frozen=True)
class PhotoSet:
    """One public set: its photographs, their shape before the export squeezed
    them, what its boxes are (index boxes scale to :data:`INDEX_PX`, card
    boxes to :data:`CARD_PX`, and only card boxes say roughly how a card
    lies: ``by_box_shape``), and the source line printed."""

    photographs: Callable[[Path], list[tuple[Path, list[Label]]]]
    aspect: float
    longest_px: float
    by_box_shape: bool
    source: str


SETS = {
    "ccml": PhotoSet(ccml_photographs, ASPECT, INDEX_PX, False,
                     "Ammememe/CardCounterML a0e040b (Roboflow cadyzedevelopmenthub/card-detection-zk7wu v12, "
                     "CC BY 4.0): real, not made here"),
    "phone": PhotoSet(phone_photographs, PHONE_ASPECT, CARD_PX, True,
                      "farukalamai/realtime-poker-card-detection-jetson b4f4f13 (Roboflow roboflow-jvuqo/"
                      "poker-cards-fmjio v4, CC BY 4.0): real, not made here"),
}


def measure(det: CardDetector, folder: Path, which: str = "ccml", per_photo: bool = False,
            venue_curve: bool = False, px_per_mm: tuple[float, float] | None = None) -> dict:
    """The module's figures for one set.  Each photograph's read is also
    weighed as a table would weigh a play: its confidence from the curve the
    table applies (:func:`vision.reading.tracker.calibration_for`), halved
    where the cards are doubted (:func:`vision.reading.tracker.play_confidence`:
    most piles are no combination), against the table's default
    ``min_confidence``; a wrong read at or above it would reach the referee
    unasked.  ``px_per_mm``: each photograph's zone picture as a camera
    seeing the cloth that finely (across, along) gives it (:func:`seen_at`)."""
    photo_set = SETS[which]
    calibration, asked_below = calibration_for(det), Settings().min_confidence
    tally: Counter = Counter()
    rows = []
    for path, labels in photo_set.photographs(folder):
        img = cv2.imread(str(path))
        if img is None:
            raise SystemExit(f"bench_real_piles: cannot read {path}")
        truth = {f for f, _, _ in labels if f}
        picture = real_piles.zone_picture(img, labels, photo_set.aspect, photo_set.longest_px)
        read = real_piles.read_whole(det, picture if px_per_mm is None else seen_at(picture, *px_per_mm))
        got = Counter(read.names)
        exact = set(got) == truth and max(got.values(), default=1) == 1
        jokers = sum(n for f, n in got.items() if f in JOKERS and f not in truth)
        curve = calibration(read.confidence, len(read.names)) if read.names else 0.0
        unasked = bool(read.names) and play_confidence(read.confidence, read.names, calibration)[0] >= asked_below
        tally["cards"] += len(truth)
        tally["found"] += sum(1 for f in truth if got[f])
        tally["read"] += sum(got.values())
        tally["right"] += sum(min(n, 1) for f, n in got.items() if f in truth)
        tally["twice"] += sum(n - 1 for f, n in got.items() if f in truth and n > 1)
        tally["phantom_jokers"] += jokers
        tally["phantom_jokers_unasked"] += jokers if unasked else 0
        tally["exact"] += exact
        tally["curve_sure"] += curve >= asked_below
        tally["curve_sure_right"] += curve >= asked_below and exact
        tally["unasked"] += unasked
        tally["wrong_unasked"] += unasked and not exact
        if photo_set.by_box_shape:
            tall = upright_faces(labels, photo_set.aspect)
            tally["tall"] += len(tall)
            tally["tall_found"] += sum(1 for f in tall if got[f])
            tally["wide_found"] += sum(1 for f in truth - tall if got[f])
        rows.append({"photo": path.name[:24], "truth": sorted(truth), "read": read.names,
                     "raw": round(read.confidence, 5), "exact": exact, "curve": round(curve, 4), "unasked": unasked})
    out = {"photographs": len(rows), "cards": tally["cards"],
           "card_recall": round(tally["found"] / max(1, tally["cards"]), 3),
           "card_precision": round(tally["right"] / max(1, tally["read"]), 3),
           # a card read more than once (its other corners taken for more cards): part of what precision loses
           "cards_read_again": tally["twice"],
           "photographs_exact": round(tally["exact"] / max(1, len(rows)), 3),
           "phantom_jokers": tally["phantom_jokers"],
           "phantom_jokers_unasked": tally["phantom_jokers_unasked"],
           # the curve's own claim on real photographs: reads it puts at or above the
           # threshold, and how many of those were right
           f"curve_at_least_{asked_below:g}": f"{tally['curve_sure_right']}/{tally['curve_sure']} right",
           "photographs_unasked": tally["unasked"], "photographs_wrong_unasked": tally["wrong_unasked"]}
    if photo_set.by_box_shape:
        wide = tally["cards"] - tally["tall"]
        out |= {"recall_taller_boxes": f"{tally['tall_found']}/{tally['tall']} = "
                                       f"{tally['tall_found'] / max(1, tally['tall']):.3f}",
                "recall_wider_boxes": f"{tally['wide_found']}/{wide} = {tally['wide_found'] / max(1, wide):.3f}"}
    if venue_curve:
        out["venue_curve"] = venue_cross_fit(rows, calibration, asked_below)
    return {**out, "per_photograph": rows} if per_photo else out


def venue_cross_fit(rows: list[dict], shipped, threshold: float, group: str | None = None) -> dict:
    """A confidence curve of the venue's own, as ``guandan-ref camera-check
    --fit`` makes one, tried on these photographs: each half of them is
    read as a checking round would be (every read asked, the referee
    confirming the right ones and voiding the others),
    the curve fitted on that half's log by the command's own code
    (:func:`services.camera_checks.fit_records`,
    :func:`vision.reading.confidence.fit_curves`) and judged on the other
    half, beside the shipped curve: the reads each puts at ``threshold`` or
    more and how many of those are right, and the Brier score (the mean
    squared gap between the probability and the outcome).  ``rows``: one a
    read, with ``read`` (names), ``raw`` and ``exact``; the halves are odd and
    even rows, or odd and even values of the key ``group`` where given (the
    same picture read at several angles stays in one half).

    >>> from vision.reading.confidence import Calibration
    >>> sure = Calibration({"size_groups": [{"name": "all", "min_cards": 1, "max_cards": 99}],
    ...                     "curves": {"all": {"x": [0.0, 1.0], "p": [0.9, 0.99]}}})   # always sure
    >>> rows = [{"read": ["S5"], "raw": k / 100, "exact": k % 3 == 0} for k in range(100)]   # a third right
    >>> out = venue_cross_fit(rows, sure, 0.8)
    >>> out["shipped"]["at_least_0.8"], out["venue"]["at_least_0.8"], out["venue"]["mean_probability"] < 0.5
    ('34/100 right', '0/0 right', True)
    """
    from referee.events import Event
    from services.camera_checks import camera_reads, fit_records
    from vision.reading.confidence import SIZE_GROUPS, Calibration, fit_curves

    def checking_round(half: list[dict]) -> list[Event]:
        log = [Event.from_dict({"id": 1, "t": 0.0, "table": "T01", "type": "settings",
                                "settings": {"min_confidence": 1.0}})]
        for r in half:
            conf, why = play_confidence(r["raw"], r["read"], shipped)
            i = len(log) + 1
            log.append(Event.from_dict({"id": i, "t": float(i), "table": "T01", "type": "play", "seat": "S",
                                        "cards": [str(c) for c in r["read"]], "source": "vision", "confidence": conf,
                                        "raw_confidence": r["raw"], **({"doubt": why[0]} if why else {})}))
            answer = {"action": "confirm" if r["exact"] else "void"}
            log.append(Event.from_dict({"id": i + 1, "t": i + 0.5, "table": "T01", "type": "referee",
                                        "ref": i, **answer}))
        return log

    reads = [r for r in rows if r["read"]]
    if group is None:
        halves = (reads[0::2], reads[1::2])
    else:
        order = {g: k for k, g in enumerate(dict.fromkeys(r[group] for r in reads))}
        halves = tuple([r for r in reads if order[r[group]] % 2 == h] for h in (0, 1))
    tally: dict[str, Counter] = {"shipped": Counter(), "venue": Counter()}
    for k in (0, 1):
        recs = fit_records(camera_reads(checking_round(halves[k])))
        venue = Calibration({"size_groups": [{"name": n, "min_cards": lo, "max_cards": hi}
                                             for n, lo, hi in SIZE_GROUPS], "curves": fit_curves(recs)})
        for r in halves[1 - k]:
            for name, curve in (("shipped", shipped), ("venue", venue)):
                p = curve(r["raw"], len(r["read"]))
                tally[name]["reads"] += 1
                tally[name]["sure"] += p >= threshold
                tally[name]["sure_right"] += p >= threshold and r["exact"]
                tally[name]["brier"] += (p - r["exact"]) ** 2
                tally[name]["promised"] += p
    return {"how": "two halves of the photographs (odd, even), each fitted as a checking round and judged on the "
                   "other" + (f" (halves by {group})" if group else ""),
            "reads": len(reads), "right": sum(r["exact"] for r in reads),
            **{name: {f"at_least_{threshold:g}": f"{t['sure_right']}/{t['sure']} right",
                      "mean_probability": round(t["promised"] / max(1, t["reads"]), 3),
                      "brier": round(t["brier"] / max(1, t["reads"]), 4)}
               for name, t in tally.items()}}


def add_turn_options(ap: argparse.ArgumentParser) -> None:
    """``--without-quarter-turns`` and ``--without-line-turns``, shared with
    bench_real_photos.py: read as before either rule."""
    ap.add_argument("--without-quarter-turns", action="store_true",
                    help="read as before 2026-12-04: no zone read a quarter turn further (models/MODEL_CARD.md, "
                         "\"Cards lying across the zone\")")
    ap.add_argument("--without-line-turns", action="store_true",
                    help="no zone read turned by its longest straight edges' angle (models/MODEL_CARD.md, "
                         "\"A card's angle from its straight edges\")")


def turn_settings(args: argparse.Namespace) -> dict:
    """The detector's settings for :func:`add_turn_options`' flags, and what the output says of them.

    >>> turn_settings(argparse.Namespace(without_quarter_turns=True, without_line_turns=False))
    ({'quarter_turns': False, 'line_turns': True}, {'quarter_turns': False})
    """
    settings = {"quarter_turns": not args.without_quarter_turns, "line_turns": not args.without_line_turns}
    return settings, {k: v for k, v in settings.items() if not v}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", choices=sorted(SETS), default="ccml", help="which public set DIR holds")
    ap.add_argument("--dir", type=Path, required=True, help="the folder built as the module's doc says")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--per-photograph", action="store_true", help="also each photograph's faces and read")
    ap.add_argument("--deck", type=Path, default=None, metavar="PROFILE",
                    help="read with a deck profile from guandan-ref enroll-deck (.npz), as a table naming it does")
    ap.add_argument("--venue-curve", action="store_true",
                    help="also fit a venue's own confidence curve on half the photographs (as guandan-ref "
                         "camera-check --fit does on a checking round) and judge it on the other half")
    ap.add_argument("--px-per-mm", type=px_per_mm_value, metavar="ACROSS[,ALONG]", help=PX_PER_MM_HELP)
    add_turn_options(ap)
    args = ap.parse_args()
    turning, said = turn_settings(args)
    try:
        det = CardDetector(threads=args.threads, deck=args.deck, **turning)
    except (DetectorError, DeckProfileError) as exc:
        ap.error(f"--deck {args.deck}: {exc}")
    print(json.dumps({"source": SETS[args.set].source,
                      "detector": det.model_path.name, "index_classifier": det.classifier.model_path.name,
                      **({"deck_profile": args.deck.name} if args.deck else {}),
                      **said,
                      **({"camera_px_per_mm": dict(zip(("across", "along"), args.px_per_mm))} if args.px_per_mm
                         else {}),
                      **measure(det, args.dir, args.set, args.per_photograph, args.venue_curve, args.px_per_mm)},
                     indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
