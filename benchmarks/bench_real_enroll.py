"""Deck enrollment on a real deck: one set of photographs enrolls it, others measure it.

The deck is the phone set's (``bench_real_piles.py --set phone``): a real
four-corner deck no model here was trained on.  Its export's ``train``
split (811 photographs, other shots of the same sitting than the 88 the
benchmark reads; CC BY 4.0 like them) stands in for the photographs an
organiser would take of the deck: each labelled card that lies clear
enough is cut out and turned upright, one face per card code, and the
deck is enrolled from those faces (:func:`vision.reading.enroll.enroll`,
as ``guandan-ref enroll-deck`` does once it has the faces).  Then the
valid and test photographs are read with and without the profile.  Build
DIR as ``bench_real_piles.py`` says, adding the training split:

    git -C phone-repo archive b4f4f13 datasets/poker-cards-4/train | tar x -C DIR

then ``python benchmarks/bench_real_enroll.py --dir DIR``.

How the faces are found (:func:`training_faces`): each photograph gets its
4:3 shape back and is enlarged 1.5 times; in each labelled card box, with
a quarter of its size around it and then half, the card's outline is found as enrollment
finds it (:func:`vision.reading.enroll.find_cards`) and kept where it has a
card's shape (1.25-1.6 times as tall as wide), fills at least
:data:`MIN_FILL` of its box and is centred in it (a box's outline may be a
neighbour's); it is turned upright (:func:`vision.reading.enroll.rectify`).
The export mirrored about half of the training copies: a photograph whose
cards' top-left index the shipped classifier reads better mirrored is
mirrored back (:func:`mirrored`).  Of each face's copies the one the
shipped classifier reads surest is kept, and none under :data:`MIN_READ`
(a box holding two cards, a card turned up wrong).  Faces not found stay
unenrolled; the deck has no jokers.  Printed: faces enrolled, the
enrollment's time and check, and for the 88 photographs with the shipped
head and with the profile, ``bench_real_piles``' figures and card recall
apart for enrolled faces and the others.  A profile is made for the 54
faces at a table; one made from fewer names the others badly, which the
split shows.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_real_piles import measure, phone_names  # noqa: E402
from vision.reading.classes import CARD_NAMES  # noqa: E402
from vision.reading.classes import JOKERS  # noqa: E402
from vision.reading.detector import CardDetector  # noqa: E402
from vision.reading.enroll import DEFAULT_INDEX_BOX, card_aspect, enroll, find_cards, rectify  # noqa: E402
from vision.reading.index_classifier import LABELS, crop  # noqa: E402
from vision.training.real_piles import PHONE_ASPECT, PHONE_DIR, phone_face  # noqa: E402

ENLARGE = 1.5      # the 640 px export enlarged this much before cards are cut out
MARGINS = (0.25, 0.5)  # of a box's size, around it, where its card's outline is looked for, in turn (enrollment
#                        looks for cards filling at most 0.6 of a picture: an upright card needs the wider one)
MIN_FILL = 0.45    # an outline filling less of its box is a part of the card
OFF_CENTRE = 0.15  # of the box's size: an outline centred further off is another card
ASPECTS = (1.25, 1.6)
MIN_READ = 0.1     # a face the shipped classifier gives less than this is not that card, cut out well


def card_boxes(label_file: Path, names: list[str]) -> list[tuple[str, float, float, float, float]]:
    """A YOLO label file's card boxes: (face, centre x, centre y, width, height), shares of the picture.

    >>> import tempfile; f = Path(tempfile.mkdtemp()) / "a.txt"; _ = f.write_text("1 0.5 0.4 0.2 0.3\\n")
    >>> card_boxes(f, ["2 of clubs", "10 of hearts"])
    [('HT', 0.5, 0.4, 0.2, 0.3)]
    """
    rows = [r.split() for r in label_file.read_text().splitlines() if r.strip()]
    return [(phone_face(names[int(r[0])]), *(float(v) for v in r[1:5])) for r in rows]


def cut_out(image: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray | None:
    """The card in one labelled box (shares of ``image``), upright (or upside
    down), or None where no card-shaped outline fills the box.

    >>> pic = np.full((300, 400, 3), 40, np.uint8); pic[100:240, 150:250] = 235
    >>> cut_out(pic, (0.5, 0.5667, 0.25, 0.4667)).shape
    (336, 240, 3)
    >>> cut_out(pic, (0.2, 0.2, 0.1, 0.1)) is None
    True
    """
    h, w = image.shape[:2]
    cx, cy, bw, bh = box
    for margin in MARGINS:
        x0, x1 = int(max(0, (cx - bw / 2 * (1 + margin)) * w)), int(min(w, (cx + bw / 2 * (1 + margin)) * w))
        y0, y1 = int(max(0, (cy - bh / 2 * (1 + margin)) * h)), int(min(h, (cy + bh / 2 * (1 + margin)) * h))
        piece = image[y0:y1, x0:x1]
        quads = find_cards(piece, 1) if piece.size else []
        if not quads or not ASPECTS[0] <= card_aspect(quads[0]) <= ASPECTS[1] \
                or cv2.contourArea(quads[0]) < MIN_FILL * bw * w * bh * h:
            continue
        mx, my = quads[0].mean(axis=0) + (x0, y0)
        if abs(mx - cx * w) <= OFF_CENTRE * bw * w and abs(my - cy * h) <= OFF_CENTRE * bh * h:
            return rectify(piece, quads[0], 1.4)
    return None


def index_probability(classifier, cards: list[np.ndarray], codes: list[str]) -> np.ndarray:
    """The shipped classifier's probability of each card's code for its
    top-left index, cut at the usual place (:data:`DEFAULT_INDEX_BOX`)."""
    if not cards:
        return np.zeros(0)
    crops = []
    for card in cards:
        h, w = card.shape[:2]
        x0, y0, x1, y1 = DEFAULT_INDEX_BOX
        crops.append(crop(card, (x0 * w, y0 * h, x1 * w, y1 * h)))
    p = classifier.probabilities(crops)
    return p[np.arange(len(cards)), [LABELS.index(c) for c in codes]]


def mirrored(classifier, cards: list[np.ndarray], codes: list[str]) -> tuple[bool, np.ndarray]:
    """Whether one photograph's cards (upright, with their codes) were
    mirrored: their indices read better mirrored back (the sum over the
    cards of the log ratio of the two readings' probabilities); and each
    card's probability of its code the way round it is kept."""
    as_is = index_probability(classifier, cards, codes)
    back = index_probability(classifier, [cv2.flip(c, 1) for c in cards], codes)
    flipped = float(np.sum(np.log(back + 1e-4) - np.log(as_is + 1e-4))) > 0
    return flipped, back if flipped else as_is


def training_faces(folder: Path, classifier, log=None) -> tuple[dict[str, np.ndarray], dict]:
    """One upright face per card code from the training photographs (see the
    module's doc), and what was found: photographs, cards cut out, photographs
    mirrored back, faces dropped."""
    split = folder / PHONE_DIR / "train"
    names = phone_names(folder)
    photos = sorted((split / "images").glob("*.jpg"))
    if not photos:
        raise SystemExit(f"bench_real_enroll: no training photographs under {split}/images (see the module's doc)")
    best: dict[str, tuple[float, np.ndarray]] = {}
    cut = flipped = 0
    for k, path in enumerate(photos):
        img = cv2.imread(str(path))
        if img is None:
            continue
        hgt = int(img.shape[0] * ENLARGE)
        img = cv2.resize(img, (int(round(hgt * PHONE_ASPECT)), hgt), interpolation=cv2.INTER_CUBIC)
        found = [(code, c) for code, *box in card_boxes(split / "labels" / (path.stem + ".txt"), names)
                 if (c := cut_out(img, tuple(box))) is not None]
        if not found:
            continue
        codes, cards = [c for c, _ in found], [c for _, c in found]
        cut += len(cards)
        back, probabilities = mirrored(classifier, cards, codes)
        if back:
            flipped += 1
            cards = [cv2.flip(c, 1) for c in cards]
        for code, card, p in zip(codes, cards, probabilities):
            if p > best.get(code, (-1.0, None))[0]:
                best[code] = (float(p), card)
        if log and (k + 1) % 200 == 0:
            log(f"{k + 1} of {len(photos)} photographs, {cut} cards cut out, {len(best)} faces")
    faces = {code: card for code, (p, card) in best.items() if p >= MIN_READ}
    return faces, {"training_photographs": len(photos), "cards_cut_out": cut, "photographs_mirrored_back": flipped,
                   "faces": len(faces), "faces_dropped": sorted(set(best) - set(faces)),
                   "faces_not_found": sorted(c for c in CARD_NAMES if c not in best and c not in JOKERS)}


def recall_split(rows: list[dict], enrolled: set[str]) -> dict:
    """Card recall over the photographs for enrolled faces and for the others."""
    n, found = Counter(), Counter()
    for r in rows:
        read = Counter(r["read"])
        for f, k in Counter(r["truth"]).items():
            side = "enrolled" if f in enrolled else "others"
            n[side] += k
            found[side] += min(k, read[f])
    return {f"recall_{s}_faces": f"{found[s]}/{n[s]} = {found[s] / max(1, n[s]):.3f}" for s in ("enrolled", "others")}


def _share(text: str) -> float:
    """A share from 0 to 1 (``--blend``).

    >>> _share("0.5")
    0.5
    >>> _share("nan")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 'nan' is not a share from 0 to 1
    """
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a share from 0 to 1")
    return v


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", type=Path, required=True, help="the folder built as the module's doc says")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None, help="keep the deck profile here (.npz)")
    ap.add_argument("--head", choices=("logistic", "prototypes"), default="logistic")
    ap.add_argument("--blend", type=_share, default=1.0,
                    help="the deck head's share (0-1; the rest the shipped head's)")
    args = ap.parse_args()
    say = lambda msg: print(f"bench_real_enroll: {msg}", file=sys.stderr, flush=True)   # noqa: E731
    det = CardDetector(threads=args.threads)
    faces, found = training_faces(args.dir, det.classifier, say)
    say(f"{found['faces']} faces; enrolling")
    t0 = time.perf_counter()
    result = enroll(det, faces, "phone-set deck", head=args.head, blend=args.blend, log=say)
    seconds = time.perf_counter() - t0
    out = args.out or Path(tempfile.mkdtemp()) / "phone-deck.npz"
    result.profile.save(out)
    shipped = measure(det, args.dir, "phone", per_photo=True)
    profiled = measure(CardDetector(threads=args.threads, deck=out), args.dir, "phone", per_photo=True)
    print(json.dumps({
        "source": "farukalamai/realtime-poker-card-detection-jetson b4f4f13 (CC BY 4.0): train split enrolls, "
                  "valid and test measure; real, not made here",
        **found, "enroll_seconds": round(seconds, 1), "head": args.head, "blend": args.blend,
        "enroll_cpu_seconds": round(result.cpu_seconds, 1),
        "check_crops_shipped": round(result.check_shipped, 4), "check_crops_profile": round(result.check_deck, 4),
        "profile": str(out),
        **{name: {**{k: v for k, v in m.items() if k != "per_photograph"},
                  **recall_split(m["per_photograph"], set(faces))}
           for name, m in (("shipped", shipped), ("with_profile", profiled))}}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
