"""Read the cards in one play-zone picture with the exported ONNX model.

No PyTorch here: ONNX Runtime runs the detector, which finds corner indices
(rank and suit printed in a card's corner).  Indices are then grouped into
physical cards *by geometry*: a card shows its top-left index and, when
nothing covers it, the turned bottom-right one, about a card's diagonal away
and of the same class.  Two indices of the same class anywhere else are two
cards, so a pair of ``S5`` counts as two.  Cards come out left to right.

>>> det = CardDetector()                                  # doctest: +SKIP
>>> read = det.read_zone(cv2.imread("zone.jpg"))          # doctest: +SKIP
>>> [c.name for c in read.cards], read.hand               # doctest: +SKIP
(['S5', 'S5', 'H5'], False)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.classes import DETECTOR_NAMES
from vision.runtime import cpu_session

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "cards-yolo11n.onnx"

# Geometry of a corner-index pair, measured on the decks (in the row's frame):
# from the top-left index centre to the bottom-right one, dy is 1.4 to 4
# index heights and dx/dy about 0.78.
PAIR_RATIO = 0.78
PAIR_RATIO_TOL = 0.55
PAIR_DY_MAX = 5.5
BOTTOM_MIN = 1.2       # an index this far below the top band is a bottom-right one
MAX_ROW_ANGLE = 20     # degrees
SAME_INDEX = 0.6       # boxes closer than this share of an index's size are one index
LEFTOVER_TURN = 35    # degrees: how far a leftover same-name corner pair may turn
RESCUE_TOL = 0.5       # index heights: a corner pair named two ways must sit this true
RESCUE_FLOOR = 1e-3    # a name outside a corner's short list still counts this much (a cut-off corner lists no good one)


class DetectorError(RuntimeError):
    """The model is missing or unusable, or the picture is not a picture."""


@dataclass(frozen=True)
class IndexDetection:
    """One detected corner index (or a hand): class name, confidence, box in pixels.

    ``alternatives``: the classifier's likeliest names with their
    probabilities, best first (empty when nothing else was considered).
    """

    name: str
    confidence: float
    box: tuple[float, float, float, float]
    alternatives: tuple[tuple[str, float], ...] = ()

    def probability(self, name: str) -> float:
        """How likely this index shows ``name`` (its confidence if it is its name)."""
        if name == self.name:
            return self.confidence
        return next((p for n, p in self.alternatives if n == name), 0.0)

    @property
    def center(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]


@dataclass(frozen=True)
class CardRead:
    """One physical card: its face, confidence, and the indices that show it.

    ``centre``: where the card's middle lies in the picture, from its two
    indices or, with one showing, from the row's typical corner-to-corner
    offset (which zone a card lies in is decided by it).
    """

    name: str
    confidence: float
    box: tuple[float, float, float, float]
    indices: tuple[IndexDetection, ...]
    centre: tuple[float, float] | None = None

    def to_dict(self) -> dict:
        return {"card": self.name, "confidence": round(self.confidence, 4),
                "box": [round(v, 1) for v in self.box], "indices": len(self.indices)}


@dataclass
class ZoneRead:
    """What one zone picture shows: cards left to right, and whether a hand is in it."""

    cards: list[CardRead] = field(default_factory=list)
    hand: bool = False
    hand_confidence: float = 0.0
    printed: tuple[str, ...] = ()     # printed PASS / COUNTn cards (vision.printed_cards)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.cards]

    @property
    def confidence(self) -> float:
        """The weakest card's confidence (1.0 for an empty zone)."""
        return min((c.confidence for c in self.cards), default=1.0)

    def to_dict(self) -> dict:
        out = {"cards": [c.to_dict() for c in self.cards], "hand": self.hand,
               "confidence": round(self.confidence, 4)}
        if self.printed:
            out["printed"] = list(self.printed)
        return out


def letterbox(image: np.ndarray, size: int | tuple[int, int]) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Scale to fit ``size`` (a square side, or ``(width, height)``), pad with grey (as ultralytics does)."""
    h, w = image.shape[:2]
    sw, sh = (size, size) if isinstance(size, int) else size
    r = min(sh / h, sw / w)
    nw, nh = int(round(w * r)), int(round(h * r))
    # shrinking: area averaging, as a coarser camera would see it (no aliasing)
    interp = cv2.INTER_AREA if r < 1 else cv2.INTER_LINEAR
    img = cv2.resize(image, (nw, nh), interpolation=interp) if (nw, nh) != (w, h) else image
    px, py = (sw - nw) / 2, (sh - nh) / 2
    top, left = int(round(py - 0.1)), int(round(px - 0.1))
    img = cv2.copyMakeBorder(img, top, sh - nh - top, left, sw - nw - left,
                             cv2.BORDER_CONSTANT, value=(114, 114, 114))
    return img, r, (left, top)


def input_size(image_wh: tuple[int, int], imgsz: int, stride: int = 32,
               scale: float | None = None) -> tuple[int, int]:
    """The smallest stride-aligned ``(width, height)`` holding the picture
    scaled so its long side is ``imgsz`` (or scaled by ``scale``): a 640x448
    zone goes in as 320x224, not padded to a 320 square (a third less work
    for the same pixels).

    >>> input_size((640, 448), 320)
    (320, 224)
    >>> input_size((294, 206), 320, scale=0.5)     # a reminder zone, as a play zone is scaled
    (160, 128)
    """
    w, h = image_wh
    r = scale or imgsz / max(w, h)
    return (int(np.ceil(round(w * r) / stride) * stride), int(np.ceil(round(h * r) / stride) * stride))


def row_angle(centres: np.ndarray, ih: float) -> float:
    """The row's slope (radians): the angle that makes the tightest bands.

    Top-left indices of a row of cards lie along one line; turned
    bottom-right ones lie along a parallel line a card's height lower.
    Angles within ±:data:`MAX_ROW_ANGLE` degrees are tried; at each, the
    heights across the row split into bands (:func:`bottom_band`) and the
    angle whose bands are narrowest (least spread about their means) wins,
    a tilt paying a small price per degree.  (Counting bands of a fixed
    width instead was fooled by cards laid a little higher or lower.)

    >>> xs = np.arange(0, 500, 50.0)
    >>> round(float(np.degrees(row_angle(np.stack([xs, 100 + np.tan(np.radians(8)) * xs], 1), 30.0))))
    8
    """
    if len(centres) < 2:
        return 0.0
    best: tuple | None = None
    for deg in np.arange(-MAX_ROW_ANGLE, MAX_ROW_ANGLE + 0.5, 1.0):
        t = np.radians(deg)
        v = -centres[:, 0] * np.sin(t) + centres[:, 1] * np.cos(t)
        low = bottom_band(v, ih)
        spread = sum(float(((v[m] - v[m].mean()) ** 2).sum()) for m in (low, ~low) if m.any())
        score = spread / (ih * ih) + 0.02 * abs(deg)
        if best is None or score < best[0]:
            best = (score, float(t))
    return best[1]


def one_per_index(indices: list[IndexDetection]) -> list[IndexDetection]:
    """Drop boxes that sit on an index another, surer box already covers.

    The detector sometimes boxes one index twice, a little apart; both
    crops then read as an index.  Two indices of different cards are at
    least an index's width apart (players leave every index in view), so
    boxes closer than :data:`SAME_INDEX` of a width are one index.

    >>> a = IndexDetection("CT", 0.95, (398, 163, 416, 198))
    >>> b = IndexDetection("CT", 0.51, (386, 157, 408, 195))
    >>> c = IndexDetection("CT", 0.90, (420, 163, 438, 198))      # the next card's
    >>> [d.confidence for d in one_per_index([b, a, c])]
    [0.95, 0.9]
    """
    kept: list[IndexDetection] = []
    for d in sorted(indices, key=lambda d: -d.confidence):
        x, y = d.center
        if all(abs(x - k.center[0]) >= SAME_INDEX * max(d.width, k.width)
               or abs(y - k.center[1]) >= SAME_INDEX * max(d.height, k.height) for k in kept):
            kept.append(d)
    return kept


def bottom_band(v: np.ndarray, ih: float) -> np.ndarray:
    """Which indices are bottom-right ones, from their heights ``v`` across the row.

    The row's top-left indices form one band and the bottom-right ones
    another, a card's height lower: the split is the widest gap between
    heights, when it is at least :data:`BOTTOM_MIN` index heights.  (Measured
    from the highest index instead, one card lifted a little above the rest
    turned the others' top indices into bottom ones.)

    >>> bottom_band(np.array([160., 180., 205., 190., 330.]), 35.0).tolist()
    [False, False, False, False, True]
    >>> bottom_band(np.array([160., 180., 205.]), 35.0).tolist()
    [False, False, False]
    """
    if len(v) < 2:
        return np.zeros(len(v), bool)
    s = np.sort(v)
    gaps = np.diff(s)
    k = int(np.argmax(gaps))
    if gaps[k] < BOTTOM_MIN * ih:
        return np.zeros(len(v), bool)
    return v > (s[k] + s[k + 1]) / 2


def _corner_pair_error(offset: np.ndarray, ih: float) -> float | None:
    """How far (in dx/dy) an offset from a top-left index to a bottom-right one
    is from a card's usual shape; None when it cannot be one card's corners."""
    dx, dy = offset
    if not (BOTTOM_MIN * ih <= dy <= PAIR_DY_MAX * ih) or dx <= 0:
        return None
    err = abs(dx / dy - PAIR_RATIO)
    return err if err <= PAIR_RATIO_TOL else None


def _rescue_pairs(indices, local, bottom, ih, groups, used, names) -> list[tuple[int, int]]:
    """Pair the indices left over when the classifier named a card's two
    corners differently: a top-left and a bottom-right index that sit, to
    within :data:`RESCUE_TOL` index heights, where the nearest matched card's
    corners sit relative to each other are one card.  Its name is the one
    both corners find likeliest together, a name missing from a corner's
    short list counting :data:`RESCUE_FLOOR` (a corner cut off by the
    picture's edge lists nothing like its card's name, the other corner
    decides).  Updates ``used`` and ``names``.
    """
    tops = [i for i in np.nonzero(~bottom)[0] if i not in used]
    bots = [j for j in np.nonzero(bottom)[0] if j not in used]
    if not tops or not bots:
        return []
    cand = []
    if groups:
        g_top = np.array([local[i] for i, _ in groups])
        g_off = np.array([local[j] - local[i] for i, j in groups])
        for i in tops:
            off = g_off[int(np.argmin(np.abs(g_top[:, 0] - local[i][0])))]   # the nearest card's, fan and all
            for j in bots:
                err = float(np.linalg.norm(local[j] - local[i] - off)) / ih
                if err <= RESCUE_TOL:
                    cand.append((err, int(i), int(j)))
    else:
        # no card to measure against: a corner pair in the usual shape, and
        # neither corner has another partner to choose from
        fits = {(int(i), int(j)) for i in tops for j in bots if _corner_pair_error(local[j] - local[i], ih) is not None}
        for i, j in fits:
            if sum(1 for a, _ in fits if a == i) == 1 and sum(1 for _, b in fits if b == j) == 1:
                cand.append((0.0, i, j))
    cand.sort()
    out = []
    for _, i, j in cand:
        if i in used or j in used:
            continue
        a, b = indices[i], indices[j]
        options = {a.name, b.name} | {n for n, _ in a.alternatives} | {n for n, _ in b.alternatives}
        best = max(options, key=lambda n: max(RESCUE_FLOOR, a.probability(n)) * max(RESCUE_FLOOR, b.probability(n)))
        used.update((i, j))
        names[i] = names[j] = best
        out.append((i, j))
    return out


def _leftover_pairs(indices, local, bottom, ih, used) -> list[tuple[int, int]]:
    """Pair a leftover top-left and bottom-right index of the same name when
    each is the other's only possible partner, the card turned up to
    :data:`LEFTOVER_TURN` degrees from the usual shape (the end of a fan).
    Every card's top-left index shows, so an unpaired bottom-right one of the
    same name is that card's far corner, not another card.  Updates ``used``.
    """
    tops = [int(i) for i in np.nonzero(~bottom)[0] if i not in used]
    bots = [int(j) for j in np.nonzero(bottom)[0] if j not in used]
    usual = np.degrees(np.arctan(PAIR_RATIO))
    fits = set()
    for i in tops:
        for j in bots:
            dx, dy = local[j] - local[i]
            if indices[i].name == indices[j].name and BOTTOM_MIN * ih <= dy <= PAIR_DY_MAX * ih \
                    and abs(np.degrees(np.arctan2(dx, dy)) - usual) <= LEFTOVER_TURN:
                fits.add((i, j))
    out = [(i, j) for i, j in sorted(fits)
           if sum(1 for a, _ in fits if a == i) == 1 and sum(1 for _, b in fits if b == j) == 1]
    for i, j in out:
        used.update((i, j))
    return out


def pair_indices(indices: list[IndexDetection]) -> list[CardRead]:
    """Group corner indices into physical cards and order them left to right.

    >>> a = IndexDetection("S5", 0.9, (10, 10, 20, 30))    # an S5, half covered by
    >>> c = IndexDetection("S5", 0.9, (40, 10, 50, 30))    # a second S5, on top,
    >>> b = IndexDetection("S5", 0.8, (87, 70, 97, 90))    # whose bottom corner shows
    >>> [(r.name, len(r.indices)) for r in pair_indices([a, b, c])]
    [('S5', 1), ('S5', 2)]
    """
    if not indices:
        return []
    ih = float(np.median([d.height for d in indices]))
    centres = np.array([d.center for d in indices], float)
    t = row_angle(centres, ih)
    rot = np.array([[np.cos(t), np.sin(t)], [-np.sin(t), np.cos(t)]])   # into the row's frame
    local = centres @ rot.T
    bottom = bottom_band(local[:, 1], ih)
    cand = []
    for i in np.nonzero(~bottom)[0]:
        for j in np.nonzero(bottom)[0]:
            if indices[i].name != indices[j].name:
                continue
            err = _corner_pair_error(local[j] - local[i], ih)
            if err is not None:
                cand.append((err, int(i), int(j)))
    cand.sort()
    used: set[int] = set()
    groups: list[tuple[int, ...]] = []
    for _, i, j in cand:
        if i in used or j in used:
            continue
        used.update((i, j))
        groups.append((i, j))
    names = {k: d.name for k, d in enumerate(indices)}
    groups += _rescue_pairs(indices, local, bottom, ih, groups, used, names)
    groups += _leftover_pairs(indices, local, bottom, ih, used)
    # typical offset (row frame) from a top-left index to its card's centre
    if groups:
        half = np.median(np.array([local[j] - local[i] for i, j in groups]), axis=0) / 2
    else:
        dy = 2.8 * ih
        half = np.array([PAIR_RATIO * dy, dy]) / 2
    groups += [(k,) for k in range(len(indices)) if k not in used]
    cards = []
    for g in groups:
        dets = [indices[k] for k in g]
        if len(g) == 2:
            centre = (local[g[0]] + local[g[1]]) / 2
        else:
            centre = local[g[0]] + (-half if bottom[g[0]] else half)
        boxes = np.array([d.box for d in dets])
        box = (float(boxes[:, 0].min()), float(boxes[:, 1].min()),
               float(boxes[:, 2].max()), float(boxes[:, 3].max()))
        conf = max(d.confidence for d in dets)
        middle = tuple(float(v) for v in centre @ rot)        # back to the picture's frame
        cards.append((float(centre[0]), CardRead(names[g[0]], conf, box, tuple(dets), middle)))
    cards.sort(key=lambda c: c[0])
    return [c for _, c in cards]


def _trained_size(session) -> int:
    """The long side a dynamic-size model was exported at (ultralytics' metadata), else 320."""
    meta = session.get_modelmeta().custom_metadata_map.get("imgsz", "")
    sizes = [int(v) for v in meta.strip("[]() ").replace(",", " ").split() if v.isdigit()]
    return max(sizes) if sizes else 320


class CardDetector:
    """The ONNX corner-index detector plus the pairing step.

    ``threads`` caps ONNX Runtime's threads (a table node shares its CPU).
    """

    def __init__(self, model: str | Path | None = None, imgsz: int | None = None,
                 conf: float | None = None, iou: float = 0.3, hand_conf: float = 0.3, threads: int = 2,
                 classifier: str | Path | bool | None = None, index_conf: float = 0.25):
        path = Path(model or os.environ.get("GUANDAN_CARD_MODEL") or DEFAULT_MODEL)
        if not path.exists():
            raise DetectorError(f"card model not found: {path}")
        try:
            self.session = cpu_session(path, threads)
        except Exception as exc:   # onnxruntime raises its own types for corrupt files
            raise DetectorError(f"cannot load card model {path}: {exc}") from None
        inp = self.session.get_inputs()[0]
        rows = self.session.get_outputs()[0].shape[1]      # 4 box values + one score per class
        if isinstance(rows, int) and rows - 4 != len(DETECTOR_NAMES):
            classes = rows - 4
            raise DetectorError(f"card model {path} has {classes} classes, expected "
                                f"{len(DETECTOR_NAMES)} ({', '.join(DETECTOR_NAMES)}): train it with vision.make_dataset data")
        self.input_name = inp.name
        # A model exported with dynamic axes (vision.train) takes any batch and
        # any stride-aligned size: zones go in as rectangles, several at once.
        # An older fixed-size model takes one square at a time.
        fixed = all(isinstance(v, int) for v in inp.shape[2:])
        self.fixed_size = (int(inp.shape[3]), int(inp.shape[2])) if fixed else None
        self.batches = not isinstance(inp.shape[0], int)
        self.imgsz = imgsz or (max(self.fixed_size) if fixed else _trained_size(self.session))
        self.iou, self.hand_conf = iou, hand_conf
        self.model_path = path
        # Second stage (vision.index_classifier): names each box the detector
        # finds.  classifier=False: boxes only (find_boxes), e.g. to make data.
        self.classifier = None
        if classifier is not False:
            from vision.index_classifier import DEFAULT_MODEL as CLF_MODEL, IndexClassifier

            clf_path = Path(classifier or os.environ.get("GUANDAN_INDEX_MODEL") or CLF_MODEL)
            if not clf_path.exists():
                raise DetectorError(f"index classifier not found: {clf_path}")
            try:
                self.classifier = IndexClassifier(clf_path, threads=threads)
            except Exception as exc:
                raise DetectorError(f"cannot load index classifier {clf_path}: {exc}") from None
        # the detector only has to find indices, so its threshold is low;
        # the classifier's (index_conf) decides what an index shows
        self.conf = 0.1 if conf is None else conf
        self.index_conf = index_conf

    def find_boxes(self, image: np.ndarray) -> list[IndexDetection]:
        """Where the corner indices (named ``INDEX``) and hands (``HAND``) are.

        The detector has two classes (:data:`vision.classes.DETECTOR_NAMES`);
        naming an index is the classifier's job.
        """
        return self.find_boxes_many([image])[0]

    def find_boxes_many(self, images: list[np.ndarray], scale: float | None = None) -> list[list[IndexDetection]]:
        """:meth:`find_boxes` for several pictures, in one model run where the
        model takes batches and the pictures share a size (a table's zones do).

        ``scale``: shrink every picture by this factor instead of fitting each
        to the model's input (zones rectified at one px/mm keep their cards
        one size, whatever the zone's size; dynamic-size models only).
        """
        for image in images:
            if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
                raise DetectorError("expected a BGR colour picture (H x W x 3)")
        boxed = [letterbox(im, self.fixed_size or input_size((im.shape[1], im.shape[0]), self.imgsz, scale=scale))
                 for im in images]
        groups: dict[tuple, list[int]] = {}
        for k, (img, _, _) in enumerate(boxed):
            groups.setdefault(img.shape if self.batches else (k,), []).append(k)
        preds: list = [None] * len(images)
        for members in groups.values():
            blob = cv2.dnn.blobFromImages([boxed[k][0] for k in members], 1 / 255.0, swapRB=True)
            out = self.session.run(None, {self.input_name: blob})[0]
            for k, pred in zip(members, out):
                preds[k] = pred.T                                   # (anchors, 4 + classes)
        return [self._boxes(pred, r, pad, im.shape[:2])
                for pred, (_, r, pad), im in zip(preds, boxed, images)]

    def _boxes(self, pred: np.ndarray, r: float, pad: tuple[float, float],
               shape: tuple[int, int]) -> list[IndexDetection]:
        """The model's raw rows for one picture -> boxes in that picture's pixels."""
        left, top = pad
        card, hand = pred[:, 4], pred[:, 5]
        is_hand = hand > card
        score = np.maximum(card, hand)
        lowest = min(self.conf, self.hand_conf)
        keep = score >= lowest
        pred, is_hand, score = pred[keep], is_hand[keep], score[keep]
        if len(pred) == 0:
            return []
        xywh = pred[:, :4].copy()
        xywh[:, 0] -= xywh[:, 2] / 2
        xywh[:, 1] -= xywh[:, 3] / 2
        idx = cv2.dnn.NMSBoxesBatched(xywh.tolist(), score.tolist(), is_hand.astype(int).tolist(),
                                      lowest, self.iou)
        h, w = shape
        found = []
        for k in np.array(idx).reshape(-1):
            if score[k] < (self.hand_conf if is_hand[k] else self.conf):
                continue
            x, y, bw, bh = xywh[k]
            box = ((x - left) / r, (y - top) / r, (x + bw - left) / r, (y + bh - top) / r)
            box = (max(0.0, box[0]), max(0.0, box[1]), min(float(w), box[2]), min(float(h), box[3]))
            found.append(IndexDetection("HAND" if is_hand[k] else "INDEX", float(score[k]),
                                        tuple(float(v) for v in box)))
        return found

    def detect_indices(self, image: np.ndarray) -> list[IndexDetection]:
        """All corner indices, each named by the classifier, and hands."""
        if self.classifier is None:
            raise DetectorError("no index classifier loaded: this detector only finds boxes")
        return self._name_indices_many([image], [self.find_boxes(image)])[0]

    def _name_indices_many(self, images: list[np.ndarray],
                           founds: list[list[IndexDetection]]) -> list[list[IndexDetection]]:
        """Let the classifier name every index box (all pictures' crops in one
        run); drop the ones it calls NONE."""
        boxes = [[d for d in found if d.name != "HAND"] for found in founds]
        # every picture's crops in one classifier run
        ranked = self.classifier.ranked_many([(im, [d.box for d in b]) for im, b in zip(images, boxes)])
        out = []
        for found, b, rk in zip(founds, boxes, ranked):
            named = []
            for d, r in zip(b, rk):
                label, p = r[0]
                if label != "NONE" and p >= self.index_conf:
                    named.append(IndexDetection(label, p, d.box, tuple(r[1:])))
            out.append(one_per_index(named) + [d for d in found if d.name == "HAND"])
        return out

    def read_zone(self, image: np.ndarray) -> ZoneRead:
        """The cards in one zone picture, left to right, and whether a hand covers it."""
        return self.read_zones([image])[0]

    def read_zones(self, images: list[np.ndarray], scale: float | None = None,
                   margin: int = 0) -> list[ZoneRead]:
        """:meth:`read_zone` for several zone pictures at once (one detector
        run and one classifier run for all of them: faster than one by one).
        ``scale``: see :meth:`find_boxes_many`.  ``margin``: each picture
        shows this many pixels of cloth around its zone
        (:meth:`vision.table.TableGeometry.rectify`); cards whose centre lies
        there, and hands that do not reach into the zone, belong to
        neighbours and are left out."""
        if self.classifier is None:
            raise DetectorError("no index classifier loaded: this detector only finds boxes")
        if not images:
            return []
        reads = []
        for im, dets in zip(images, self._name_indices_many(images, self.find_boxes_many(images, scale))):
            h, w = im.shape[:2]
            zone = (margin, margin, w - margin, h - margin)
            hands = [d for d in dets if d.name == "HAND" and _overlaps(d.box, zone)]
            cards = pair_indices([d for d in dets if d.name != "HAND"])
            if margin > 0:    # (without one, a card cut off at the edge may have its centre outside)
                cards = [c for c in cards if zone[0] <= c.centre[0] <= zone[2] and zone[1] <= c.centre[1] <= zone[3]]
            reads.append(ZoneRead(cards=cards, hand=bool(hands),
                                  hand_confidence=max((d.confidence for d in hands), default=0.0)))
        return reads


def _overlaps(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two (x0, y0, x1, y1) boxes share any area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
