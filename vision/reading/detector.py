"""Read the cards in one play-zone picture with the exported ONNX model.

No PyTorch here: ONNX Runtime runs the detector, which finds corner indices
(rank and suit printed in a card's corner), and the index classifier
(:mod:`vision.reading.index_classifier`), which names them.  Indices are then
grouped into physical cards *by geometry* (:mod:`vision.reading.pairing`):
a pair of ``S5`` counts as two.  Cards come out left to right.

>>> det = CardDetector()                                  # doctest: +SKIP
>>> read = det.read_zone(cv2.imread("zone.jpg"))          # doctest: +SKIP
>>> [c.name for c in read.cards], read.hand               # doctest: +SKIP
(['S5', 'S5', 'H5'], False)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

import cv2
import numpy as np

from referee.cards import COPIES
from vision.reading.classes import DETECTOR_NAMES, JOKERS
from vision.reading.deck_profile import DeckProfileError
from vision.reading.hand_landmarks import HandLandmarks
from vision.reading.hand_model import DEFAULT_MODEL as HAND_MODEL, ENV as HAND_ENV, HandModel
from vision.reading.index_classifier import (ENV as CLF_ENV, LABELS as CLF_LABELS, NONE as CLF_NONE,
                                             IndexClassifier, shipped_classifier, turned_crop)
from vision.reading.looks import laid_where
from vision.reading.orientation import (OTHER_LINES, TURN_FROM, Region, Turns, Upright, cards_hull, line_turns,
                                        lines_apart, turn_angles, upright)
from vision.reading.pairing import (BOTTOM_MIN, FOUR_CORNER_SIDES, FOUR_CORNER_SQUARE, PAIR_DY_MAX, PAIR_RATIO,
                                    RESCUE_FLOOR, SAME_INDEX, CardRead, IndexDetection, _corner_of, _corner_pair_error,
                                    _surely_two, height_bands, one_per_index, pair_indices)
from vision.reading.runtime import ParallelSession, RuntimeSettingError, Workers, model_path, shipped_model

# The detector as trained (32-bit floats), the one a table runs; and its
# convolutions quantised to 8 bits (vision.training.quantize_detector), a
# fifth faster on a CPU with 8-bit dot products but worse on real
# photographs, run only where GUANDAN_EIGHT_BIT=1 asks for it
# (vision.reading.runtime.eight_bit_chosen; models/MODEL_CARD.md, "The
# float models on every CPU")
FLOAT_MODEL = Path(__file__).resolve().parents[2] / "models" / "cards-yolo11n.onnx"
EIGHT_BIT_MODEL = Path(__file__).resolve().parents[2] / "models" / "cards-yolo11n-int8.onnx"
T = TypeVar("T")


class DetectorError(RuntimeError):
    """The model is missing or unusable, or the picture is not a picture."""


@dataclass
class ZoneRead:
    """What one zone picture shows: cards left to right, and whether a hand is in it."""

    cards: list[CardRead] = field(default_factory=list)
    hand: bool = False
    hand_confidence: float = 0.0      # the detector's strongest hand box over the zone
    hand_probability: float | None = None   # the hand model's, its surest box (None: no hand model loaded)
    hand_presence: float | None = None      # MediaPipe's, the surest hand over the zone (None: not loaded)
    hand_boxes: tuple[tuple[float, float, float, float], ...] = ()   # the detector's hand boxes over the zone
    printed: tuple[str, ...] = ()     # printed PASS / COUNTn cards (vision.reading.printed_cards)
    # the surest card another read of the zone (another turn) found where none
    # of these cards has an index: (name, confidence), or None (_left_out)
    left_out: tuple[str, float] | None = None
    # something new lies in the zone that no card read explains: set by the
    # table watcher (vision.reading.laid.EmptyLook), reported as an unread play
    unread: bool = False
    # more lies in the zone than the cards read cover: the largest such patch
    # as a share of a card's area (0.0: none), set by the table watcher
    # (vision.reading.laid.EmptyLook); a card read from no index is asked about
    unexplained: float = 0.0

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.cards]

    @property
    def weakest(self) -> float:
        """The weakest card's confidence (1.0 for an empty zone)."""
        return min((c.confidence for c in self.cards), default=1.0)

    @property
    def confidence(self) -> float:
        """The read's raw score: the :attr:`weakest` card's confidence, or
        less where another read of the zone found a card this one leaves out
        (:attr:`left_out`): one less that card's confidence.
        A card missed lowers no card's confidence, but a turn that read it
        says it may be there (models/MODEL_CARD.md, "A card another turn saw").
        0.0 where more lies in the zone than the cards read cover
        (:attr:`unexplained`): a card the reader names from no index.

        >>> card = lambda n, p: CardRead(n, p, (0, 0, 9, 9), ())
        >>> ZoneRead([card("S5", 0.97), card("H5", 0.9)]).confidence
        0.9
        >>> round(ZoneRead([card("S5", 0.97)], left_out=("H5", 0.7)).confidence, 2)
        0.3
        >>> ZoneRead([card("S5", 0.97)], unexplained=0.4).confidence
        0.0
        """
        if self.unexplained:
            return 0.0
        return min(self.weakest, 1.0 - self.left_out[1]) if self.left_out else self.weakest

    def to_dict(self) -> dict:
        out = {"cards": [c.to_dict() for c in self.cards], "hand": self.hand,
               "confidence": round(self.confidence, 4)}
        if self.printed:
            out["printed"] = list(self.printed)
        if self.left_out:
            out["left_out"] = {"card": self.left_out[0], "confidence": round(self.left_out[1], 4)}
        if self.unread:
            out["unread"] = True
        if self.unexplained:
            out["unexplained"] = self.unexplained
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


def _trained_size(session) -> int:
    """The long side a dynamic-size model was exported at (ultralytics' metadata), else 320."""
    meta = session.get_modelmeta().custom_metadata_map.get("imgsz", "")
    sizes = [int(v) for v in meta.strip("[]() ").replace(",", " ").split() if v.isdigit()]
    return max(sizes) if sizes else 320


SURE = 0.8   # a card read with this confidence adds nothing when two turns of a zone are weighed
UNSURE_FROM = 0.6  # a zone read as nothing keeps a read's faces this sure (asked about: under SURE)
SURE_JOKER = 0.97  # a joker read in another turn than the surer read's must be this sure,
JOKER_TURN = 30.0  # or SURE in a turn of less than this many degrees (models/MODEL_CARD.md, "Jokers in fans")
# a lone corner from another turn this far below a kept one of its name
# (index heights), and leaning from it by at most this share of that: one
# card's edge (a deck printing all four corners), not another card
EDGE_MIN, EDGE_SLANT = 2.0, 0.25
# a card's two long edges read as two cards: lengths within this share, and
# directions this close (cos: about 18 degrees)
EDGES_ALIKE, EDGES_PARALLEL = 0.15, 0.95
TWIN_TURN = 30.0   # lone corners of one name read in turns this far apart: two cards ("A twin pushed in crooked")
DOUBT_BOX = 0.3   # a box the detector is this sure of, left unnamed, may be a card turned its own way
ROW_STEP = 2.5    # index heights: cards whose centres step down this much lie in another row
BOX_SURE = 0.9    # a faint box's index cut out turned its own way and named this surely is a doubt
BOX_SHIFT = 0.2   # of a faint box's size: its index is also cut out this far off its centre each way
SQUARER = 1.2     # a faint box this much wider for its height than an upright index may be a turned one
DIAGONAL_MIDDLE = 0.5   # index heights: two lone corners' middle from a card's, as its other diagonal
DIAGONAL_LENGTH = 1.35  # and their distance over the card's diagonal, either way
DIAGONALS_CROSS = 45.0  # degrees: a card's two diagonals (of its index centres) cross at about 70-80
# a lone corner of a two-cornered card's name at its top-right or bottom-left
# spot, on a deck seen to print four corners, makes a corner this square
# (cosine; about 17 degrees, where pairing takes 6): a tilted view or a turned
# card's leaning boxes skew it (chosen on the phone set's training photographs)
FOUR_CORNER_LOOSE = 0.3
# a lone corner of a two-cornered card's name within this share of an index's
# height of the card's top-right or bottom-left spot (its read corners'
# rectangle's), the card standing within this many degrees of upright, is
# that card's own print
WITHIN_NEAR, WITHIN_UPRIGHT = 0.5, 12.0
THIRD_CORNER_SIDE = 1.2   # index heights: a card's index rectangle's short side is at least this
LONE_CORNERS_APART = 4.0  # index heights: two corners of one card lie at most this far apart (its diagonal)
OVERSIZED = 1.8   # a box this many times a zone's typical index both ways is a card's pips or picture
# a box the detector is sure of (DOUBT_BOX) that the classifier leaves unnamed is
# cut out again this much smaller about its middle; a face (not a joker) named
# so this surely is read.  At the zone's scale a real card's index turned
# upright is often boxed a quarter too large, and the loose crop reads as no
# index (models/MODEL_CARD.md, "A sure box looked at again, tighter")
TIGHT_SHRINK, TIGHT_SURE = 0.8, 0.6
TIGHT_NOT_BELOW = 0.99   # a box the loose crop names no index this surely is a pip or a picture: not looked at
# a box named a joker is cut out again this much larger about its middle; where
# that crop names no joker likeliest, the joker is no surer than that crop says
# (a real card's lone corner pip or a rank without its suit reads as a joker in
# its tight box: models/MODEL_CARD.md, "A joker looked at again, looser")
JOKER_LOOSE = 1.2


class CardDetector:
    """The ONNX corner-index detector plus the pairing step.

    ``threads`` caps ONNX Runtime's threads (a table node shares its CPU).
    ``hand_conf``: the score from which the detector's box is a hand (or,
    with the hand model, a hand proposed to it); by default
    :attr:`DEFAULT_HAND_CONF` alone, :attr:`HAND_PROPOSAL_CONF` with the model.
    ``deck``: a deck profile from ``guandan-ref enroll-deck``
    (:mod:`vision.reading.deck_profile`): the classifier names indices with
    that deck's head (None: the shipped one).
    ``turn_from``: zones whose cards are turned this many degrees or more are
    also read turned back upright (None: never); ``own_turns``: cards turned
    each its own way (a fan, a card pushed in crooked) are also read turned
    by each one's angle, the reads merged card by card (see models/MODEL_CARD.md,
    "Cards turned each its own way"); ``box_turns``: a faint box the
    classifier does not name whose index it names surely cut out turned by
    one of those angles also calls for those reads (a card turned far, alone,
    its long edges covered or at the picture's border; False: not looked for);
    ``merge_turns``: a zone read as it lies and turned as a whole keeps the
    other reads' sure cards where the surer read has none (a card turned far
    beside cards that are not; False: the surer read alone);
    ``quarter_turns``: a zone whose surer read names a joker or leaves a
    box it is fairly sure of unnamed, or names no card where it boxed a
    faint index, is also read a quarter turn further,
    and that read kept where it is the surer, names as many sure faces and
    no more jokers (a card lying across the zone shows its indices on
    their side, which read as jokers or as nothing; False: not).
    ``line_turns`` (with ``own_turns``): a zone whose surer read has an
    unsure card, or none where the detector boxed a faint index, is also
    read turned by the angle of its longest straight edges (a card's,
    :func:`vision.reading.orientation.line_turns`) where no other turn has
    tried that angle, merged card by card (the edge histogram can miss a
    card on a grained board; False: not).
    ``tight_looks``: a box the detector is fairly sure of that the
    classifier leaves unnamed is cut out again a fifth tighter and read
    where that crop names a face surely (:meth:`_looked_at_tighter`; at the
    zone's scale a real index turned upright is often boxed loosely;
    False: not).
    ``joker_looks``: a box named a joker is cut out again a fifth looser;
    where that crop names no joker likeliest, the joker's confidence falls
    to that crop's for it (:meth:`_jokers_looked_at_looser`: a real card's
    lone corner pip or a rank without its suit reads as a joker in its
    tight box; False: not).  Not with a deck profile, whose head learnt the
    deck's own jokers.
    ``hand_landmarks`` (the default): where the detector proposes a hand
    (a box from ``hand_conf``, by default :attr:`HAND_PROPOSAL_CONF`),
    MediaPipe's palm detector and hand landmark model
    (:mod:`vision.reading.hand_landmarks`) say whether a real hand is
    there: one with a joint over the zone, not only over its margin (see
    models/MODEL_CARD.md, "Hands found by MediaPipe's models").  False:
    ``hand_model``, the hand model (:mod:`vision.reading.hand_model`)
    judges each box the detector proposes: a hand is over the zone when it
    gives a box ``hand_threshold`` or more; ``hand_model=False`` as well:
    the detector's hand boxes alone say it, from :attr:`DEFAULT_HAND_CONF`
    ("Hands on real photographs").
    """

    DEFAULT_HAND_CONF = 0.3
    HAND_PROPOSAL_CONF = 0.1
    DEFAULT_HAND_THRESHOLD = 0.5

    def __init__(self, model: str | Path | None = None, imgsz: int | None = None,
                 conf: float | None = None, iou: float = 0.3, hand_conf: float | None = None, threads: int = 2,
                 classifier: str | Path | bool | None = None, index_conf: float = 0.25,
                 turn_from: float | None = TURN_FROM, deck: str | Path | None = None,
                 own_turns: bool = True, box_turns: bool = True, crop_turns: bool = True, merge_turns: bool = True,
                 quarter_turns: bool = True, line_turns: bool = True, hand_model: str | Path | bool | None = None,
                 hand_threshold: float | None = None, hand_landmarks: bool = True, unsure_reads: bool = True,
                 tight_looks: bool = True, joker_looks: bool = True):
        try:
            path = model_path(model, "GUANDAN_CARD_MODEL", shipped_model(EIGHT_BIT_MODEL, FLOAT_MODEL))
        except RuntimeSettingError as exc:
            raise DetectorError(str(exc)) from None
        self.session = _load("card model", path, lambda p: ParallelSession(p, threads))
        inp = self.session.get_inputs()[0]
        rows = self.session.get_outputs()[0].shape[1]      # 4 box values + one score per class
        if isinstance(rows, int) and rows - 4 != len(DETECTOR_NAMES):
            classes = rows - 4
            raise DetectorError(f"card model {path} has {classes} classes, expected "
                                f"{len(DETECTOR_NAMES)} ({', '.join(DETECTOR_NAMES)}): train it with vision.training.make_dataset data")
        self.input_name = inp.name
        # A model exported with dynamic axes (vision.training.train) takes any batch and
        # any stride-aligned size: zones go in as rectangles, several at once.
        # An older fixed-size model takes one square at a time.
        fixed = all(isinstance(v, int) for v in inp.shape[2:])
        self.fixed_size = (int(inp.shape[3]), int(inp.shape[2])) if fixed else None
        self.batches = not isinstance(inp.shape[0], int)
        self.imgsz = imgsz or (max(self.fixed_size) if fixed else _trained_size(self.session))
        self.iou = iou
        self.model_path = path
        # Second stage (vision.reading.index_classifier): names each box the detector
        # finds.  classifier=False: boxes only (find_boxes), e.g. to make data.
        self.classifier = None
        if classifier is not False:
            try:
                # (the shipped file only where none is named: it may read the deck profile)
                clf_path = Path(classifier) if isinstance(classifier, (str, Path)) and classifier else \
                    Path(os.environ[CLF_ENV]) if os.environ.get(CLF_ENV) else shipped_classifier(deck)
            except (DeckProfileError, RuntimeSettingError) as exc:
                raise DetectorError(str(exc)) from None
            self.classifier = _load("index classifier", clf_path, lambda p: IndexClassifier(p, threads=threads))
            try:
                self.classifier.use_deck(deck)
            except DeckProfileError as exc:
                raise DetectorError(str(exc)) from None
        elif deck is not None:
            raise DetectorError("a deck profile needs the index classifier (classifier=False given)")
        self.hand_model = None
        self.hand_landmarks = None
        if hand_landmarks:
            if hand_model not in (None, False) or hand_threshold is not None:
                raise DetectorError("a hand model or its threshold is used only with hand_landmarks=False")
            try:
                self.hand_landmarks = HandLandmarks(threads=threads)
            except Exception as exc:      # missing, or not a model (ONNX Runtime raises its own types)
                raise DetectorError(f"cannot load MediaPipe's hand models: {exc}") from None
        elif hand_model is not False:
            hand_path = model_path(hand_model, HAND_ENV, HAND_MODEL)
            self.hand_model = _load("hand model", hand_path, lambda p: HandModel(p, threads=threads))
        self.hand_threshold = self.DEFAULT_HAND_THRESHOLD if hand_threshold is None else hand_threshold
        # with a second stage judging them, the detector proposes more boxes
        judged = self.hand_model is not None or self.hand_landmarks is not None
        default_conf = self.HAND_PROPOSAL_CONF if judged else self.DEFAULT_HAND_CONF
        self.hand_conf = default_conf if hand_conf is None else hand_conf
        # the detector only has to find indices, so its threshold is low;
        # the classifier's (index_conf) decides what an index shows
        self.conf = 0.1 if conf is None else conf
        self.index_conf = index_conf
        # zones whose cards are turned this many degrees or more are turned back
        # upright before they are read (vision.reading.orientation); None: never
        self.turn_from = turn_from
        # cards turned each its own way (a fan, a card pushed in crooked): the
        # zone is also read turned by each card's angle and the reads merged card by card
        self.own_turns = own_turns
        # a faint box left unnamed that the classifier names cut out turned by one
        # of the zone's angles is a doubt too (its card may lie alone, far turned)
        self.box_turns = box_turns
        # a zone read turned is turned only where its cards lie, its canvas cut to
        # their edges as turned (vision.reading.orientation.cards_hull): False
        # turns it whole, as before 2026-12-02
        self.crop_turns = crop_turns
        # a zone read as it lies and turned as a whole, another read than the
        # surer one finding a sure card where it has none: the reads are merged
        # card by card (False: the surer read alone, as before 2026-12-02)
        self.merge_turns = merge_turns
        # a zone whose surer read names a joker or leaves a sure box unnamed is
        # also read a quarter turn further: an index on its side reads as a
        # joker or as nothing (False: not, as before 2026-12-04)
        self.quarter_turns = quarter_turns
        # a zone read unsure, or empty with a faint box, is also read turned by
        # its longest straight edges' angle where no turn has tried it (False: not)
        self.line_turns = line_turns
        # a zone no read names a card in surely keeps the unsure faces of its
        # read that has the most (_unsure_read; False: read as nothing, as before 2026-12-05)
        self.unsure_reads = unsure_reads
        # a sure box left unnamed is cut out again tighter (TIGHT_SHRINK; False:
        # not, as before 2026-12-06, session 48)
        self.tight_looks = tight_looks
        # a box named a joker is cut out again looser (JOKER_LOOSE; False: not,
        # as before 2026-12-07, session 58)
        self.joker_looks = joker_looks
        # each zone's picture work (edges, turning, resizing) on its own core
        # beside the others' (vision.reading.runtime.Workers)
        self.workers = Workers(threads)

    def find_boxes(self, image: np.ndarray) -> list[IndexDetection]:
        """Where the corner indices (named ``INDEX``) and hands (``HAND``) are.

        The detector has two classes (:data:`vision.reading.classes.DETECTOR_NAMES`);
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
        boxed = self.workers.map(lambda im: letterbox(im, self.fixed_size or input_size(
            (im.shape[1], im.shape[0]), self.imgsz, scale=scale)), images)
        groups: dict[tuple, list[int]] = {}
        for k, (img, _, _) in enumerate(boxed):
            groups.setdefault(img.shape if self.batches else (k,), []).append(k)
        preds: list = [None] * len(images)
        # the groups run side by side, each split between the cores (ParallelSession)
        outs = self.session.run_many(None, [
            {self.input_name: cv2.dnn.blobFromImages([boxed[k][0] for k in members], 1 / 255.0, swapRB=True)}
            for members in groups.values()])
        for members, out in zip(groups.values(), outs):
            for k, pred in zip(members, out[0]):
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

    def _name_indices_many(self, images: list[np.ndarray], founds: list[list[IndexDetection]],
                           doubts: list[bool] | None = None,
                           faint: list[list[IndexDetection]] | None = None) -> list[list[IndexDetection]]:
        """Let the classifier name every index box (all pictures' crops in one
        run); drop the ones it calls NONE.  ``doubts``: appended, for each
        picture, whether the detector is fairly sure of a box
        (:data:`DOUBT_BOX`) that the classifier does not name, away from every
        index it names (a card turned its own way often reads so).
        ``faint``: appended, for each picture, the boxes the classifier does
        not name whose detector confidence is under :data:`DOUBT_BOX`, away
        from every index it names."""
        boxes = [[d for d in found if d.name != "HAND"] for found in founds]
        # every picture's crops in one classifier run
        ranked = self.classifier.ranked_many([(im, [d.box for d in b]) for im, b in zip(images, boxes)])
        nameds: list[list[IndexDetection]] = []
        unnameds: list[list[IndexDetection]] = []
        # (picture, box) of the sure boxes left unnamed that are not surely no index
        unsure: list[tuple[int, IndexDetection]] = []
        for i, (b, rk) in enumerate(zip(boxes, ranked)):
            named, unnamed = [], []
            for d, r in zip(b, rk):
                label, p = r[0]
                if label != "NONE" and p >= self.index_conf:
                    named.append(IndexDetection(label, p, d.box, tuple(r[1:])))
                else:
                    unnamed.append(d)
                    if d.confidence >= DOUBT_BOX and (label != "NONE" or p < TIGHT_NOT_BELOW):
                        unsure.append((i, d))
            nameds.append(named)
            unnameds.append(unnamed)
        if self.tight_looks and unsure:
            self._looked_at_tighter(images, nameds, unnameds, unsure)
        # (a deck profile's head was fitted on that deck's own jokers: not looked at again)
        if self.joker_looks and self.classifier.deck is None:
            self._jokers_looked_at_looser(images, nameds)
        out = []
        for found, named, unnamed in zip(founds, nameds, unnameds):
            kept = one_per_index(named)
            out.append(kept + [d for d in found if d.name == "HAND"])
            # (a second box on an index already read is no doubt: one_per_index's rule)
            apart = [d for d in unnamed if all(_apart_boxes(d, k) for k in kept)]
            if doubts is not None:
                doubts.append(any(d.confidence >= DOUBT_BOX for d in apart))
            if faint is not None:
                faint.append([d for d in apart if d.confidence < DOUBT_BOX])
        return out

    def _looked_at_tighter(self, images: list[np.ndarray], nameds: list[list[IndexDetection]],
                           unnameds: list[list[IndexDetection]], unsure: list[tuple[int, IndexDetection]]) -> None:
        """Each box of ``unsure`` (its picture's number and the box: one the
        detector is fairly sure of, :data:`DOUBT_BOX`, left in ``unnameds``
        and not named no index :data:`TIGHT_NOT_BELOW` or more) away from
        every index of its picture's ``nameds``, cut out again
        :data:`TIGHT_SHRINK` of its size about its middle; where that crop
        names a face likeliest (never a joker: a pip or a picture cut small
        may look like one), :data:`TIGHT_SURE` or more (and ``index_conf``
        or more), and no card of that face is read a card's corners away (a
        deck printing four corners: the loose crop showed its other two
        beside the card's edge), the box is read as that face at that
        probability (moved from ``unnameds`` to ``nameds``, in place).  All
        pictures' crops in one classifier run."""
        looks = [(i, d) for i, d in unsure if all(_apart_boxes(d, k) for k in nameds[i])]
        if not looks:
            return
        ranked = self.classifier.ranked_many([(images[i], [_tighter(d.box)]) for i, d in looks])
        for (i, d), ((face, p), *others) in zip(looks, (r[0] for r in ranked)):
            if face == "NONE" or face in JOKERS or p < max(TIGHT_SURE, self.index_conf) \
                    or any(n.name == face and _within_a_card(d, n) for n in nameds[i]):
                continue
            nameds[i].append(IndexDetection(face, p, d.box, tuple(others)))
            unnameds[i].remove(d)

    def _jokers_looked_at_looser(self, images: list[np.ndarray], nameds: list[list[IndexDetection]]) -> None:
        """Each index of ``nameds`` named a joker, cut out again
        :data:`JOKER_LOOSE` of its size about its middle: where that crop
        names no joker likeliest, the index keeps its name at no more than
        that crop's probability of it (not under ``index_conf``), so a play
        it is in is asked about, not trusted (in place).  A real card's lone
        corner pip, or a rank boxed without its suit, reads as a joker in
        its own box and as the card or no index with the card's edge or the
        rest of its index in view; a joker's mark reads as one either way
        (models/MODEL_CARD.md, "A joker looked at again, looser").  All
        pictures' crops in one classifier run."""
        looks = [(i, k) for i, named in enumerate(nameds) for k, d in enumerate(named) if d.name in JOKERS]
        if not looks:
            return
        ranked = self.classifier.ranked_many([(images[i], [_scaled(nameds[i][k].box, JOKER_LOOSE)])
                                              for i, k in looks])
        for (i, k), (loose,) in zip(looks, ranked):
            d = nameds[i][k]
            if loose[0][0] in JOKERS:
                continue
            # a name off the loose crop's short list is at most as likely as its last
            p = next((q for n, q in loose if n == d.name), loose[-1][1])
            nameds[i][k] = replace(d, confidence=max(self.index_conf, min(d.confidence, p)))

    def read_zone(self, image: np.ndarray) -> ZoneRead:
        """The cards in one zone picture, left to right, and whether a hand covers it."""
        return self.read_zones([image])[0]

    def read_zones(self, images: list[np.ndarray], scale: float | None = None,
                   margin: int = 0, empties: list[np.ndarray | None] | None = None) -> list[ZoneRead]:
        """:meth:`read_zone` for several zone pictures at once (one detector
        run and one classifier run for all of them: faster than one by one).
        ``scale``: see :meth:`find_boxes_many`.  ``margin``: each picture
        shows this many pixels of cloth around its zone
        (:meth:`vision.reading.table.TableGeometry.rectify`); cards whose centre lies
        there, and hands that do not reach into the zone, belong to
        neighbours and are left out.  ``empties``: each zone's picture as it
        lay empty (None where not known): the zone's angles and the part of
        it turned upright are then found from the edges of what was laid
        since (:func:`vision.reading.looks.laid_where`), not a wooden board's
        grain or a cloth's pattern."""
        if self.classifier is None:
            raise DetectorError("no index classifier loaded: this detector only finds boxes")
        if not images:
            return []
        wheres: list[np.ndarray | None] = [None] * len(images)
        if empties is not None:
            wheres = self.workers.map(lambda z: laid_where(empties[z], images[z])
                                      if z < len(empties) and empties[z] is not None else None,
                                      range(len(images)))
        # a zone whose cards seem turned is also read turned back upright
        # (larger pictures, their own detector run), near 45 degrees both ways
        # round; the read as it lies stays a candidate (a wood grain or a cloth's
        # weave can seem turned) and alone says whether a hand is there
        found = self.workers.map(lambda z: turn_angles(images[z], margin, self.turn_from, self.own_turns, wheres[z])
                                 if self.turn_from is not None else Turns([], [], 0.0), range(len(images)))
        # only the part of the zone the cards lie in is turned (on 12 generated
        # tables a quarter less of the detector's work), where crop_turns, and
        # the canvas is cut to the cards' edges as turned
        regions: dict[int, Region | None] = {}

        def turned(z: int, t: float) -> Upright:
            if z not in regions:
                regions[z] = cards_hull(images[z], where=wheres[z]) if self.crop_turns else None
            return upright(images[z], t, regions[z])

        variants: list[list[Upright | None]] = self.workers.map(
            lambda z: [None] + [turned(z, t) for t in found[z].whole], range(len(images)))
        owns = [f.own for f in found]
        wholes = [list(f.whole) for f in found]
        tried, doubts, widths, faint = self._reads(images, variants, scale, margin)
        picked = [surest(t) for t in tried]
        best = [t[k] for t, k in zip(tried, picked)]
        # zones kept turned a quarter turn further: the angle their cards lay on their side at
        across = self._quarter_turned(images, turned, tried, doubts, wholes, picked, best, scale, margin, faint) \
            if self.quarter_turns else {}
        every = [list(t) for t in tried]      # each zone's reads, the later turns' too
        # a card whose angle the edge histogram missed (a board's long grain sets
        # the zone's angle; a white card on light wood has faint edges): where a
        # read has an unsure card, or none but a faint box, its longest straight
        # edges at an angle no turn has tried are a card's own turn too
        if self.line_turns and self.own_turns and self.turn_from is not None:
            more_turns = self.workers.map(
                lambda z: line_turns(images[z], margin, (0.0, found[z].tilt, *wholes[z], *owns[z]), self.turn_from,
                                     wheres[z])
                if (faint[z] if not best[z].cards else any(c.confidence < SURE for c in best[z].cards)) else [],
                range(len(images)))
            owns = [o + m for o, m in zip(owns, more_turns)]
        # cards turned each its own way (the edges cluster at other angles too,
        # and the surer read has a box it does not name or an unsure card, or
        # long straight edges lie at another angle: a pip's or a picture's are
        # short): the zone is also read turned by each of those angles, merged card by card
        again = [z for z, yes in enumerate(self.workers.map(lambda z: bool(owns[z]) and (
            doubts[z][picked[z]] or any(c.confidence < SURE for c in best[z].cards)
            or lines_apart(images[z], margin, (found[z].tilt, *wholes[z]), self.turn_from) >= OTHER_LINES),
            range(len(images)))) if yes]
        if self.box_turns:
            # or a box the detector is less sure of, left unnamed, is named surely
            # cut out turned by one of those angles (a card turned far its own way,
            # lying alone: its edges may be at the picture's border)
            faint_z = [z for z in range(len(images)) if z not in again and faint[z] and widths[z][0] > 0
                       and any(owns[z])]
            # (only boxes wider for their height than an upright index: an index's
            # box turned far is squarer, an upright box the classifier has read already)
            named = self._named_turned([(images[z], [d for d in faint[z] if d.width * widths[z][1]
                                                     >= SQUARER * d.height * widths[z][0]],
                                         [t for t in owns[z] if t], widths[z]) for z in faint_z])
            again = sorted(again + [z for z, yes in zip(faint_z, named) if yes])
        # a zone read as it lies and turned as a whole, each read finding sure
        # cards where the other has none (a card turned far beside one that is
        # not): the surer read alone would lose the other's; merged card by card
        for z in range(len(images)):
            if self.merge_turns and z not in again and len(tried[z]) > 1 \
                    and _adds_sure(best[z], tried[z], [0.0, *wholes[z]], widths[z]):
                best[z] = _merged(best[z], tried[z], [0.0, *wholes[z]], widths[z])
        if again:
            more, _, more_widths, _ = self._reads([images[z] for z in again],
                                                  self.workers.map(lambda z: [turned(z, t) for t in owns[z] if t],
                                                                   again),
                                                  scale, margin, either_corner=True,
                                                  sizes=[widths[z] for z in again])
            for z, extra, size in zip(again, more, more_widths):
                own = [t for t in owns[z] if t]       # these reads' turns
                if z in across:
                    # (as its whole turns: a joker read where those cards lie on their side is their index)
                    extra = _sideways_jokers_dropped(extra, own, across[z])
                every[z] += extra
                # an index's size from the first reads, else (they found none) from these
                # (of size 0, one card read in two turns was counted twice)
                best[z] = _merged(best[z], tried[z] + extra, [0.0, *wholes[z], *own],
                                  widths[z] if widths[z][0] > 0 else size)
        # a zone no read names a card in surely, where a read names one unsurely
        # (a real card turned far: its index soft once turned back), keeps that
        # read's cards: unsure, they are asked about, where before nothing was read
        best = [b if b.cards else _unsure_read(b, e) for b, e in zip(best, every)] if self.unsure_reads else best
        # a lone corner where a card of its name has its top-right or
        # bottom-left index: that card's, on a deck printing all four corners
        best = [replace(b, cards=_four_corners_dropped(b.cards)) for b in best]
        # and two lone corners of one name about a card of it, as its other diagonal (a
        # card turned too far for the square-corner test: one joker read as three)
        best = [replace(b, cards=_other_diagonal_dropped(b.cards)) for b in best]
        # and two cards of one name, each two corners along one long edge, that
        # make a card's rectangle together: one card leaning in a fan
        best = [replace(b, cards=_edges_joined(b.cards)) for b in best]
        # and a lone corner that makes a card's rectangle with a card of its name
        # read from one edge's two corners: that card's third corner, or a twin
        # lying so by chance, which the referee is asked about (the corner is
        # the read's left-out card)
        thirds = [_two_lone_corners_joined(*_third_corners_joined(b.cards)) for b in best]
        best = [replace(b, cards=kept) for b, (kept, _) in zip(best, thirds)]
        # and a face read more than two decks hold, its copies past two read
        # from one corner alone (a joker's round emblem in every corner, a pip):
        # left out, and the surest of them the read's left-out card, which
        # asks the referee (the third copy asked before, as no real play)
        past = [_past_two_decks(b.cards) for b in best]
        best = [replace(b, cards=kept) for b, (kept, _) in zip(best, past)]
        # whether a hand is there: the read as it lies alone
        reads = [replace(b, hand=t[0].hand, hand_confidence=t[0].hand_confidence, hand_boxes=t[0].hand_boxes,
                         left_out=max([x for x in (_left_out(b, e, w), *((c.name, c.confidence) for c in over + joined))
                                       if x], key=lambda nc: nc[1], default=None))
                 for b, t, e, w, (_, over), (_, joined) in zip(best, tried, every, widths, past, thirds)]
        if self.hand_landmarks is not None:
            reads = self._landmark_hands(images, reads, margin)
        elif self.hand_model is not None:
            # the hand model judges each box the detector took for a hand (it took
            # real wood, cork and shadows for hands); every zone's boxes in one run
            boxed = [(im, b) for im, r in zip(images, reads) for b in r.hand_boxes]
            probs = iter(self.hand_model.probabilities(boxed).tolist())
            judged = []
            for r in reads:
                p = max((next(probs) for _ in r.hand_boxes), default=0.0)
                judged.append(replace(r, hand=p >= self.hand_threshold, hand_probability=round(p, 4)))
            reads = judged
        return reads

    def _quarter_turned(self, images: list[np.ndarray], turned: Callable[[int, float], Upright],
                        tried: list[list[ZoneRead]], doubts: list[list[bool]], wholes: list[list[float]],
                        picked: list[int], best: list[ZoneRead], scale: float | None, margin: int,
                        faint: list[list[IndexDetection]]) -> dict[int, float]:
        """Each zone whose surer read names a joker or leaves a box the
        detector is fairly sure of unnamed (:meth:`_name_indices_many`'s
        doubt), or reads no card although the detector boxed a faint index
        there (``faint``), read again turned a quarter turn further than that
        read.
        Where that read is the surer (:func:`surest`), names at least as
        many sure faces (:data:`SURE`, not jokers) as the other has cards,
        and no more jokers, it is kept as one of the zone's turns
        (``tried``, ``doubts``, ``wholes``, ``picked`` and ``best`` change
        in place), and the jokers of the reads that see its cards on their
        side are dropped.  Returns, for each zone where it is kept, the
        angle of the read it replaced.  A card lying across the zone shows
        its indices on their side: they read as jokers or as nothing, and the
        quarter turn shows them upright.  (One quarter turn is enough: a card
        turned half a turn shows its indices as it stands.)  A joker bomb
        seen a quarter turn further names no sure faces, so it stays as read;
        a card turned far the other way may read as a joker there, which is
        not taken (models/MODEL_CARD.md, "Cards lying across the zone")."""
        # (a card lying across the zone alone often gets no index box the
        # detector is sure of, and the read finds nothing: an empty play at
        # full confidence; the detector still boxes a faint index there. Not
        # for a hand it proposes: over an empty zone a gloved hand, which the
        # hand models miss, read as a sure C6 a quarter turn further)
        zones = [z for z in range(len(images)) if doubts[z][picked[z]] or _jokers(best[z])
                 or (not best[z].cards and bool(faint[z]))]
        kept: dict[int, float] = {}
        if not zones:
            return kept
        angle = {z: [0.0, *wholes[z]][picked[z]] + 90.0 for z in zones}
        reads, more_doubts, _, _ = self._reads([images[z] for z in zones],
                                               self.workers.map(lambda z: [turned(z, angle[z])], zones), scale, margin)
        for z, (read,), (doubt,) in zip(zones, reads, more_doubts):
            if surest([best[z], read]) == 1 and _sure_faces(read) >= len(best[z].cards) \
                    and _jokers(read) <= _jokers(best[z]):
                # the jokers of the reads that see its cards on their side are
                # those indices (merging would take them back where the quarter
                # turn finds a card's other corner instead)
                kept[z] = angle[z] - 90.0
                tried[z] = _sideways_jokers_dropped(tried[z], [0.0, *wholes[z]], kept[z]) + [read]
                doubts[z].append(doubt)
                wholes[z].append(angle[z])
                picked[z], best[z] = len(tried[z]) - 1, read
        return kept

    def _landmark_hands(self, images: list[np.ndarray], reads: list[ZoneRead], margin: int) -> list[ZoneRead]:
        """Each read with whether MediaPipe's models find a hand reaching into
        its zone (not only over its margin), and the surest one's presence:
        searched only where the detector proposed a hand (it proposes one on
        nearly every real picture but seldom on a still cloth; a palm search
        costs about 12 ms a zone), those zones side by side."""
        asked = [z for z, r in enumerate(reads) if r.hand_boxes]
        found = dict(zip(asked, self.hand_landmarks.hands_many([images[z] for z in asked])))
        out = []
        for z, (image, read) in enumerate(zip(images, reads)):
            h, w = image.shape[:2]
            zone = (margin, margin, w - margin, h - margin)
            over = [x.presence for x in found.get(z, []) if x.reaches(zone)]
            out.append(replace(read, hand=bool(over), hand_presence=max(over, default=0.0)))
        return out

    def _reads(self, images: list[np.ndarray], variants: list[list[Upright | None]], scale: float | None,
               margin: int, either_corner: bool = False, sizes: list[tuple[float, float]] | None = None
               ) -> tuple[list[list[ZoneRead]], list[list[bool]], list[tuple[float, float]],
                          list[list[IndexDetection]]]:
        """Each zone read as each of its variants shows it (None: as it lies),
        in one detector and one classifier run, whether each variant's
        picture leaves a doubt (see :meth:`_name_indices_many`), each
        zone's typical index width and height as read upright (px), and the
        faint boxes its first variant's picture leaves unnamed (ibid.).
        ``either_corner``: see :meth:`_zone_read`.  A box :func:`_oversized`
        for the zone's typical index (``sizes``, each zone's from earlier
        reads, where they found one; else these reads') is left out."""
        pictures = [u.image if u else im for im, vs in zip(images, variants) for u in vs]
        flat: list[bool] = []
        faint: list[list[IndexDetection]] = []
        named = self._name_indices_many(pictures, self.find_boxes_many(pictures, scale), flat, faint)
        found, doubt, weak = iter(named), iter(flat), iter(faint)
        tried, widths, faints = [], [], []
        for z, (im, vs) in enumerate(zip(images, variants)):
            dets = [next(found) for _ in vs]
            faints.append(([next(weak) for _ in vs] or [[]])[0])
            # an index's size as read upright (a box mapped back from a turned picture is larger)
            wh = [(d.width, d.height) for ds in dets for d in ds if d.name != "HAND"]
            size = tuple(float(v) for v in np.median(wh, axis=0)) if wh else (0.0, 0.0)
            widths.append(size)
            typical = sizes[z] if sizes and sizes[z][0] > 0 else size
            tried.append([self._zone_read(im, u, [d for d in ds if not _oversized(d, typical)], margin,
                                          either_corner) for u, ds in zip(vs, dets)])
        return tried, [[next(doubt) for _ in vs] for vs in variants], widths, faints

    def _named_turned(self, jobs: list[tuple[np.ndarray, list[IndexDetection], list[float], tuple[float, float]]]
                      ) -> list[bool]:
        """For each job (a picture, boxes in it, angles, an index's width and
        height as it stands), whether the classifier names one of the boxes'
        indices surely (:data:`BOX_SURE`, jokers :data:`SURE_JOKER`) cut out
        turned by one of the angles (:func:`vision.reading.index_classifier.turned_crop`),
        about the box's centre and :data:`BOX_SHIFT` of its size each way (a
        faint box sits loosely on a turned index).  All crops in one classifier run."""
        crops, owner = [], []
        for j, (pic, boxes, angles, size) in enumerate(jobs):
            for d in boxes:
                for dx, dy in ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)):
                    centre = (d.center[0] + dx * BOX_SHIFT * d.width, d.center[1] + dy * BOX_SHIFT * d.height)
                    for a in angles:
                        crops.append(turned_crop(pic, centre, size, a))
                        owner.append(j)
        out = [False] * len(jobs)
        if crops:
            p = self.classifier.probabilities(crops)
            p[:, CLF_NONE] = 0.0          # the likeliest name, NONE aside
            for j, k, c in zip(owner, p.argmax(axis=1), p.max(axis=1)):
                out[j] |= bool(c >= (SURE_JOKER if CLF_LABELS[int(k)] in JOKERS else BOX_SURE))
        return out

    @staticmethod
    def _zone_read(im: np.ndarray, u: Upright | None, dets: list[IndexDetection], margin: int,
                   either_corner: bool = False) -> ZoneRead:
        """One zone's read from what was found in its picture (``u``: turned
        upright first).  ``either_corner``: a lone index whose card, taken
        for its top-left corner, would lie outside the zone is taken for its
        bottom-right one where that card lies inside (a card pushed in crooked
        may show only its far corner; a turned index reads either way up)."""
        h, w = im.shape[:2]
        zone = (margin, margin, w - margin, h - margin)
        hands = [d for d in dets if d.name == "HAND" and _overlaps(u.box(d.box) if u else d.box, zone)]
        # paired and put in order where the cards stand upright
        cards = pair_indices([d for d in dets if d.name != "HAND"])
        if u:
            cards = [_card_back(c, u) for c in cards]
        if margin > 0:    # (without one, a card cut off at the edge may have its centre outside)
            inside = lambda p: zone[0] <= p[0] <= zone[2] and zone[1] <= p[1] <= zone[3]     # noqa: E731
            if either_corner:
                cards = [_far_corner(c) if len(c.indices) == 1 and not inside(c.centre)
                         and inside(_far_corner(c).centre) else c for c in cards]
            cards = [c for c in cards if inside(c.centre)]
        return ZoneRead(cards=cards, hand=bool(hands),
                        hand_confidence=max((d.confidence for d in hands), default=0.0),
                        hand_boxes=tuple(u.box(d.box) if u else d.box for d in hands))


def surest(reads: list[ZoneRead]) -> int:
    """Which of one zone's reads (as it lies first, then turned) to keep: the
    surer one, the first on a tie.  An index seen sideways is read unsure,
    often as a joker, so each card counts by how far it is over
    :data:`SURE`.  But where that is a turned read that finds nothing, the
    read as it lies wins if it has cards: that turn was suggested by the
    surface (wood grain, a cloth's weave), not by turned cards, and cards
    read unsure go to the referee to confirm.  (Not the other way round: a
    turned read with an unsure card or two where the read as it lies finds
    nothing reads a book's print or a carpet; its sure cards are added later,
    card by card.)

    >>> unsure = ZoneRead([CardRead("H8", 0.77, (0, 0, 9, 9), ())])
    >>> surest([unsure, ZoneRead()]), surest([ZoneRead(), unsure])
    (0, 0)
    >>> surest([unsure, ZoneRead([CardRead("H8", 0.95, (0, 0, 9, 9), ())])])
    1
    """
    k = max(range(len(reads)), key=lambda k: sum(c.confidence - SURE for c in reads[k].cards))
    return 0 if not reads[k].cards and reads[0].cards else k


def _unsure_read(best: ZoneRead, reads: list[ZoneRead]) -> ZoneRead:
    """``best`` (a zone's read that names no card) with the cards of the one
    of the zone's ``reads`` (as it lies and turned) whose unsure faces weigh
    most: its faces read from :data:`UNSURE_FROM` up to :data:`SURE`, not
    jokers (an index on its side reads as one); ``best`` where none has one.

    >>> card = lambda n, p: CardRead(n, p, (0, 0, 9, 9), ())
    >>> reads = [ZoneRead(), ZoneRead([card("LJ", 0.71)]), ZoneRead([card("SA", 0.67), card("D4", 0.2)])]
    >>> _unsure_read(ZoneRead(), reads).names
    ['SA']
    >>> _unsure_read(ZoneRead(), [ZoneRead([card("S9", 0.3)])]).names
    []
    """
    unsure = [[c for c in r.cards if c.name not in JOKERS and UNSURE_FROM <= c.confidence < SURE] for r in reads]
    cards = max(unsure, key=lambda cs: sum(c.confidence for c in cs), default=[])
    return replace(best, cards=cards) if cards else best


def _sideways_jokers_dropped(reads: list[ZoneRead], turns: list[float], across: float) -> list[ZoneRead]:
    """``reads`` (turned ``turns`` degrees) without the jokers of those turned
    within :data:`JOKER_TURN` of ``across`` (half-turn-wise): there the
    cards a quarter turn further lie on their side, and an index on its
    side reads as a joker.

    >>> card = lambda n: CardRead(n, 0.9, (0, 0, 9, 9), ())
    >>> reads = [ZoneRead([card("S5"), card("LJ")]), ZoneRead([card("BJ")])]
    >>> [r.names for r in _sideways_jokers_dropped(reads, [0.0, 90.0], 180.0)]
    [['S5'], ['BJ']]
    """
    return [replace(r, cards=[c for c in r.cards if c.name not in JOKERS])
            if abs((t - across + 90.0) % 180.0 - 90.0) < JOKER_TURN else r for r, t in zip(reads, turns)]


def _jokers(read: ZoneRead) -> int:
    """How many jokers ``read`` names."""
    return sum(c.name in JOKERS for c in read.cards)


def _sure_faces(read: ZoneRead) -> int:
    """How many cards ``read`` names surely (:data:`SURE`) as faces, not jokers."""
    return sum(c.name not in JOKERS and c.confidence >= SURE for c in read.cards)


def _merged(best: ZoneRead, tried: list[ZoneRead], turns: list[float], size: tuple[float, float]) -> ZoneRead:
    """One read of a zone whose cards are turned each its own way, from its
    reads turned several ways (``turns``: each read's angle; cards in the
    zone picture's pixels; ``size``: an index's width and height as read
    upright).  The sure cards of ``best`` (:data:`SURE`) stay, a pair joined
    on a corner another turn reads surely as another face undone
    (:func:`_unjoined`).  Then the sure cards of the other turns (jokers from
    :data:`SURE_JOKER`, or :data:`SURE` in a read turned less than
    :data:`JOKER_TURN` where no read names a face: a sideways index is often
    read as one, :func:`_sure_elsewhere`; a pair of two surely different
    faces parted, :func:`_parted`), paired corners first,
    then the surer, where no kept card has an index at one of theirs
    (:func:`_same_place`: one card read in two turns counts once), a lone
    corner not where a kept lone corner of its name is that card's other
    corner (in either one's turn, the two read in turns less than
    :data:`TWIN_TURN` apart: further apart, a twin pushed in crooked, but
    not for a joker, which an index on its side often reads as); then the
    other corner of a pair from another turn that joined a kept card of
    another name, or of its name where that corner cannot be the kept
    card's own (:func:`_may_be_corner_of`: a twin); then ``best``'s unsure
    cards, where still free, and the unsure faces (from :data:`UNSURE_FROM`,
    not jokers) of the turns whose sure cards were kept, a lone corner not
    where a kept card of its name has another corner (:func:`_four_corner_of`,
    loosely): a card read unsurely beside them is asked about, not lost.  A
    joker short of :data:`SURE_JOKER` where a kept card has its top-right or
    bottom-left index is dropped (:func:`_on_four_corner`).  Cards come out along the
    row: the line through their centres, left to right."""
    if not any(r.cards for r in tried):
        return best
    first = next(k for k, r in enumerate(tried) if r is best)      # (reads compare equal by value)
    order = lambda ck: (-min(len(ck[0].indices), 2), -ck[0].confidence)     # noqa: E731
    rest = sorted(_sure_elsewhere(best, tried, turns, size), key=order)
    half = _half_card(best, turns[first], size[1])
    others = [o for o, _ in rest]
    kept = [_unjoined(c, others, size[0], turns[first], half) for c in best.cards if c.confidence >= SURE]
    origin: dict[int, int] = {id(c): first for c in kept}      # each kept card's read
    later: list[tuple[CardRead, int]] = []

    def free_of(card: CardRead) -> tuple[IndexDetection, ...]:
        return tuple(d for d in card.indices if not any(
            _same_place(d, e, size[0])
            for c in kept for e in c.indices))

    for card, k in rest:
        free = free_of(card)
        if len(free) == len(card.indices):
            # a lone corner where a kept lone corner of its name is the same card's other one
            if len(free) == 1 and any(c.name == card.name and len(c.indices) == 1
                                      and (card.name in JOKERS or abs(turns[k] - turns[origin[id(c)]]) < TWIN_TURN)
                                      and any(
                    _corners_of_one(c.indices[0], free[0], turns[t], size[1]) for t in (k, origin[id(c)])) for c in kept):
                continue
            kept.append(card)
            origin[id(card)] = k
        elif free and free[0].probability(card.name) >= SURE and not any(
                c.name == card.name and _may_be_corner_of(c, free[0], size) for c in kept for e in c.indices
                for d in card.indices if d not in free and _same_place(d, e, size[0])):
            # a pair one of whose corners is a kept card of another name, or of
            # its name with both its corners kept elsewhere (a turn that paired
            # two cards' corners: a card's twin beside it, pushed in crooked):
            # the other corner alone, if it shows the name surely and no other
            # read of it is kept by then
            d = free[0]
            later.append((CardRead(card.name, d.probability(card.name), d.box, free, card.centre), k))
    # then those lone corners, then what the surer read was unsure of
    for card, k in later + sorted(((c, first) for c in best.cards if c.confidence < SURE), key=order):
        if len(free_of(card)) == len(card.indices):
            kept.append(card)
            origin[id(card)] = k
    # then the unsure faces (not jokers) of the other turns whose sure cards
    # were kept: a card beside those, read unsurely in that turn and in no
    # other, is asked about, not lost (a row turned 41 degrees read as one
    # queen of two); but not a lone corner where a kept card of its name has
    # its top-right or bottom-left index (a deck printing four corners: one
    # card read twice)
    given = sorted({origin[id(c)] for c in kept} - {first})
    for card, k in sorted(((c, k) for k in given for c in tried[k].cards
                           if c.name not in JOKERS and UNSURE_FROM <= c.confidence < SURE), key=order):
        if len(free_of(card)) == len(card.indices) and not _four_corner_of(card, kept, FOUR_CORNER_LOOSE):
            kept.append(card)
            origin[id(card)] = k
    # a joker short of SURE_JOKER where a kept card printing all four corners
    # has its top-right or bottom-left index: that index, on its side
    kept = [c for c in kept if not _on_four_corner(c, kept)]
    # a lone corner from another turn: its centre as that turn shows it (that
    # read's guess leans as its other cards do, and guessed which corner it is among them)
    kept = [_lone_centre(c, turns[origin[id(c)]], half) if len(c.indices) == 1 and origin[id(c)] != first else c
            for c in kept]
    return replace(best, cards=_along_row(kept, size[1]))


def _unjoined(card: CardRead, others: list[CardRead], width: float, turn: float, half: np.ndarray) -> CardRead:
    """``card`` (a sure card of the read kept, turned ``turn`` degrees) as its
    other corner alone, where the pairing named one of its two corners as
    both find likeliest together though that corner alone reads another
    face (:func:`vision.reading.pairing._rescue_pairs`), and one of
    ``others`` (the other turns' sure cards), of another face, has an index
    there that reads that face surely (:data:`SURE`): a card pushed in
    crooked whose index lies where its neighbour's far corner would, seen
    upright by its own turn.  Kept paired, that card was lost (its index
    taken for the kept card's).  ``width``: see :func:`_same_place`; ``half``:
    see :func:`_lone_centre`.

    >>> at = lambda n, p, x, y: IndexDetection(n, p, (x - 7, y - 14, x + 7, y + 14))
    >>> c3 = CardRead("C3", 0.96, (213, 79, 300, 215), (at("C3", 0.96, 220, 93), at("BJ", 0.3, 293, 201)))
    >>> d3 = CardRead("D3", 0.97, (286, 187, 300, 215), (at("D3", 0.97, 293, 201),))
    >>> lone = _unjoined(c3, [d3], 13.6, 0.0, np.array([45.0, 60.0]))
    >>> lone.name, [d.center for d in lone.indices], lone.centre
    ('C3', [(220.0, 93.0)], (265.0, 153.0))
    >>> _unjoined(c3, [replace(d3, name="C3")], 13.6, 0.0, np.array([45.0, 60.0])) is c3     # its own name there
    True
    """
    if len(card.indices) != 2:
        return card
    for k, d in enumerate(card.indices):
        if d.name != card.name and any(o.name != card.name and any(
                _same_place(d, e, width) and e.probability(o.name) >= SURE for e in o.indices) for o in others):
            other = card.indices[1 - k]
            return _lone_centre(CardRead(card.name, other.probability(card.name), other.box, (other,)), turn, half)
    return card


def _may_be_corner_of(card: CardRead, d: IndexDetection, size: tuple[float, float]) -> bool:
    """Whether index ``d`` (zone pixels) may be one of ``card``'s own: the
    card shows one corner only (``d`` may be its other), ``d`` lies where one
    of its indices does (:func:`_where`: a turn boxes an index a little
    off), or ``d`` sits as its top-right or bottom-left index (a deck
    printing all four corners, :func:`vision.reading.pairing._corner_of`).
    A card whose two corners are both read has no other place for a third
    of its name, so an index elsewhere is another card: the second copy of
    a face beside its twin.  ``size``: an index's width and height as read
    upright.

    >>> at = lambda x, y: IndexDetection("D8", 0.95, (x - 8, y - 16, x + 8, y + 16))
    >>> two = CardRead("D8", 0.98, (0, 0, 1, 1), (at(540, 228), at(639, 346)))
    >>> _may_be_corner_of(two, at(545, 320), (20.0, 41.6))
    False
    >>> _may_be_corner_of(replace(two, indices=two.indices[:1]), at(545, 320), (20.0, 41.6))
    True
    >>> _may_be_corner_of(two, at(533, 237), (20.0, 41.6))      # its top-left index, boxed 11 px off
    True
    >>> _may_be_corner_of(two, at(639, 228), (20.0, 41.6)), _may_be_corner_of(two, at(540, 346), (20.0, 41.6))
    (True, True)
    """
    if len(card.indices) < 2 or any(_where(d, e, size) for e in card.indices):
        return True
    return _at_other_corner(card, d)


def _at_other_corner(card: CardRead, d: IndexDetection, square: float = FOUR_CORNER_SQUARE) -> bool:
    """Whether index ``d`` sits as ``card``'s top-right or bottom-left index
    (a card whose two corners are read; :func:`vision.reading.pairing._corner_of`,
    its corner's cosine at most ``square``)."""
    centres = np.array([card.indices[0].center, card.indices[1].center, d.center], float)
    return _corner_of(centres, (0, 1), 2, square) is not None


def _edges_of_one(a: CardRead, b: CardRead) -> bool:
    """Whether two cards of one name, each read from two corners, are one
    card's two long edges (a deck printing all four corners): the same edge
    one card's width across, at a right angle to within
    :data:`vision.reading.pairing.FOUR_CORNER_SQUARE`, the card's short side
    over its long one within :data:`vision.reading.pairing.FOUR_CORNER_SIDES`.
    A card leaning in a fan makes each edge's two indices look like a
    card's top-left and bottom-right ones.

    >>> at = lambda x, y: IndexDetection("H2", 0.95, (x - 8, y - 16, x + 8, y + 16))
    >>> left = CardRead("H2", 0.93, (0, 0, 1, 1), (at(91, 171), at(129, 266)))
    >>> right = CardRead("H2", 0.98, (0, 0, 1, 1), (at(196, 237), at(156, 139)))
    >>> _edges_of_one(left, right), _edges_of_one(left, replace(right, name="C2"))
    (True, False)
    >>> _edges_of_one(left, CardRead("H2", 0.98, (0, 0, 1, 1), (at(191, 171), at(229, 266))))   # a twin along the row
    False
    """
    if a.name != b.name or len(a.indices) != 2 or len(b.indices) != 2:
        return False
    pa = sorted((np.array(d.center, float) for d in a.indices), key=lambda v: v[1])
    pb = sorted((np.array(d.center, float) for d in b.indices), key=lambda v: v[1])
    ea, eb = pa[1] - pa[0], pb[1] - pb[0]
    la, lb = float(np.hypot(*ea)), float(np.hypot(*eb))
    if min(la, lb) == 0 or abs(la - lb) > EDGES_ALIKE * max(la, lb) or float(ea @ eb) < EDGES_PARALLEL * la * lb:
        return False        # not one edge's length and direction
    side = pb[0] - pa[0]
    ls = float(np.hypot(*side))
    if ls == 0 or abs(float(side @ ea)) > FOUR_CORNER_SQUARE * ls * la:
        return False        # not square
    return FOUR_CORNER_SIDES[0] <= ls / la <= FOUR_CORNER_SIDES[1]


def _union_box(a: CardRead | IndexDetection, b: CardRead | IndexDetection) -> tuple[float, float, float, float]:
    """The box holding ``a``'s and ``b``'s (cards or indices), as one card joined of them has."""
    return (min(a.box[0], b.box[0]), min(a.box[1], b.box[1]), max(a.box[2], b.box[2]), max(a.box[3], b.box[3]))


def _edges_joined(cards: list[CardRead]) -> list[CardRead]:
    """``cards`` with each two that are one card's edges (:func:`_edges_of_one`)
    one card of four indices, where the first stood."""
    out = list(cards)
    for a in cards:
        for b in cards:
            if a is not b and a in out and b in out and _edges_of_one(a, b):
                dets = a.indices + b.indices
                box = _union_box(a, b)
                centre = tuple(float(v) for v in np.mean([d.center for d in dets], axis=0))
                out[out.index(a)] = CardRead(a.name, max(a.confidence, b.confidence), box, dets, centre)
                out.remove(b)
    return out


def _third_corners_joined(cards: list[CardRead]) -> tuple[list[CardRead], list[CardRead]]:
    """``cards``, where they name one face alone, with each lone corner that
    is a third corner of a card of its name read from two
    (:func:`_third_corner_of`) joined to that card (one card of three
    indices, its centre the middle of the rectangle's diagonal), and the
    lone corners so joined.  On a deck printing all four
    corners, a card turned about 20 degrees has its right edge's two
    indices paired as a top-left and bottom-right, its top-left one left
    alone: one card read as two, surely (real single cards laid on wood,
    "A card's third corner" in models/MODEL_CARD.md).  A twin can lie so
    by chance (a crooked card's two corners, its twin's beside them): the
    corners joined are for the referee to be asked about.

    >>> at = lambda n, x, y: IndexDetection(n, 0.9, (x - 8, y - 16, x + 8, y + 16))
    >>> edge = CardRead("DA", 0.96, (0, 0, 1, 1), (at("DA", 240, 100), at("DA", 215, 170)))   # TR, BR
    >>> kept, joined = _third_corners_joined([edge, CardRead("DA", 0.98, (0, 0, 1, 1), (at("DA", 192, 83),))])
    >>> [(c.name, len(c.indices)) for c in kept], [(c.name, c.confidence) for c in joined]      # TL
    ([('DA', 3)], [('DA', 0.98)])
    >>> [len(x) for x in _third_corners_joined([edge, CardRead("DA", 0.98, (0, 0, 1, 1), (at("DA", 150, 83),))])]
    [2, 0]
    """
    out, joined = list(cards), []
    # only where the read names that one face: a single card laid alone, the
    # commonest play; among other cards a crooked card's twin lies so by chance
    # more often (on generated crooked rows of two-corner decks, 6 plays of 150)
    if len({c.name for c in cards}) != 1:
        return out, joined
    for k in cards:
        # (not jokers: a joker bomb is two pairs of twins, and many jokers
        # print their emblem in every corner, which _past_two_decks weighs)
        if len(k.indices) != 1 or k not in out or k.name in JOKERS:
            continue
        for c in out:
            if c is not k and c.name == k.name and len(c.indices) == 2:
                far = _third_corner_of(c, k.indices[0])
                if far is not None:
                    dets = c.indices + k.indices
                    box = _union_box(c, k)
                    centre = tuple(float(v) for v in (np.array(far.center) + np.array(k.indices[0].center)) / 2)
                    out[out.index(c)] = CardRead(c.name, max(c.confidence, k.confidence), box, dets, centre)
                    out.remove(k)
                    joined.append(k)
                    break
    return out, joined


def _two_lone_corners_joined(cards: list[CardRead], joined: list[CardRead]) -> tuple[list[CardRead], list[CardRead]]:
    """``cards`` and ``joined`` as :func:`_third_corners_joined` gives them,
    and where ``cards`` are two lone corners and nothing else, of one face
    or of two not each named surely (:func:`vision.reading.pairing._surely_two`),
    :data:`THIRD_CORNER_SIDE` to :data:`LONE_CORNERS_APART` index heights
    apart, those two joined as one card (the second corner joined too): a
    four-corner card laid alone whose top two indices alone are read (its
    bottom ones turned past the detector, or under the zone's edge).  Twins
    laid as a pair can show one corner each so: the referee is asked.

    >>> at = lambda n, x, y: IndexDetection(n, 0.9, (x - 8, y - 16, x + 8, y + 16))
    >>> lone = lambda n, x, y: CardRead(n, 0.9, (0, 0, 1, 1), (at(n, x, y),))
    >>> kept, joined = _two_lone_corners_joined([lone("C8", 100, 100), lone("C8", 170, 75)], [])
    >>> [(c.name, len(c.indices)) for c in kept], [c.name for c in joined]
    ([('C8', 2)], ['C8'])
    >>> [len(x) for x in _two_lone_corners_joined([lone("C8", 100, 100), lone("C8", 300, 75)], [])]   # far apart
    [2, 0]
    >>> [len(x) for x in _two_lone_corners_joined([lone("C8", 100, 100), lone("D8", 170, 75)], [])]   # both sure
    [2, 0]
    >>> unsure = CardRead("S8", 0.7, (0, 0, 1, 1), (IndexDetection("S8", 0.7, (162, 59, 178, 91), (("C8", 0.25),)),))
    >>> [(c.name, len(c.indices)) for c in _two_lone_corners_joined([lone("C8", 100, 100), unsure], [])[0]]
    [('C8', 2)]
    """
    if len(cards) != 2 or any(len(c.indices) != 1 for c in cards) or {c.name for c in cards} & set(JOKERS):
        return cards, joined
    a, b = cards[0].indices[0], cards[1].indices[0]
    ih = (a.height + b.height) / 2
    apart = float(np.hypot(*np.subtract(a.center, b.center)))
    # (two corners named apart, each surely and neither the other's face at all, are two cards)
    if not THIRD_CORNER_SIDE * ih <= apart <= LONE_CORNERS_APART * ih or _surely_two(a, b):
        return cards, joined
    # the face both corners find likeliest together (one of them misread: a suit's pip half seen)
    name = max({a.name, b.name},
               key=lambda n: max(RESCUE_FLOOR, a.probability(n)) * max(RESCUE_FLOOR, b.probability(n)))
    first, second = sorted(cards, key=lambda c: (c.name != name, -c.confidence))
    centre = tuple(float(v) for v in (np.array(a.center) + np.array(b.center)) / 2)
    return [CardRead(name, first.confidence, _union_box(a, b), (a, b), centre)], joined + [second]


def _third_corner_of(card: CardRead, d: IndexDetection) -> IndexDetection | None:
    """Where index ``d`` and ``card``'s two indices are three corners of one
    card's rectangle, the square corner at one of ``card``'s two (cosine at
    most :data:`vision.reading.pairing.FOUR_CORNER_SQUARE`, the short side
    over the long one within :data:`vision.reading.pairing.FOUR_CORNER_SIDES`,
    the short side at least :data:`THIRD_CORNER_SIDE` index heights): the
    other of ``card``'s two (the diagonal's end), else None.  ``card``'s
    two are then one edge's corners; ``d`` sitting as a square corner of
    them itself is :func:`_four_corner_of`'s test."""
    ih = float(np.mean([x.height for x in (*card.indices, d)]))
    k = np.array(d.center, float)
    for vertex, other in ((card.indices[0], card.indices[1]), (card.indices[1], card.indices[0])):
        v = np.array(vertex.center, float)
        e, f = np.array(other.center, float) - v, k - v
        le, lf = float(np.hypot(*e)), float(np.hypot(*f))
        if min(le, lf) < THIRD_CORNER_SIDE * ih or abs(float(e @ f)) > FOUR_CORNER_SQUARE * le * lf:
            continue
        if FOUR_CORNER_SIDES[0] <= min(le, lf) / max(le, lf) <= FOUR_CORNER_SIDES[1]:
            return other
    return None


def _past_two_decks(cards: list[CardRead]) -> tuple[list[CardRead], list[CardRead]]:
    """``cards`` less a face's copies past the :data:`referee.cards.COPIES`
    two decks hold, where those are read from one corner alone (the weakest
    such first; a card read from two corners never), and the copies left
    out.  Such a copy is a corner of a copy kept (decks printing all four
    corners, jokers whose emblem is round) or a pip.

    >>> at = lambda n, x: IndexDetection(n, 0.9, (x, 0, x + 16, 32))
    >>> two = lambda n, p, x: CardRead(n, p, (0, 0, 1, 1), (at(n, x), at(n, x + 90)))
    >>> lone = lambda n, p, x: CardRead(n, p, (0, 0, 1, 1), (at(n, x),))
    >>> kept, out = _past_two_decks([two("LJ", 0.97, 0), lone("LJ", 0.61, 40), lone("LJ", 0.98, 70),
    ...                              lone("S5", 0.9, 200)])
    >>> [(c.name, c.confidence) for c in kept], [(c.name, c.confidence) for c in out]
    ([('LJ', 0.97), ('LJ', 0.98), ('S5', 0.9)], [('LJ', 0.61)])
    >>> [len(x) for x in _past_two_decks([two("S5", 0.9, 0), two("S5", 0.9, 200), two("S5", 0.9, 400)])]
    [3, 0]
    """
    drop: set[int] = set()
    for name in {c.name for c in cards}:
        mine = [k for k, c in enumerate(cards) if c.name == name]
        lone = sorted((k for k in mine if len(cards[k].indices) == 1), key=lambda k: cards[k].confidence)
        drop.update(lone[:max(0, len(mine) - COPIES)])
    return [c for k, c in enumerate(cards) if k not in drop], [c for k, c in enumerate(cards) if k in drop]


def _four_corners_dropped(cards: list[CardRead]) -> list[CardRead]:
    """``cards`` less the lone corners that are another card's own
    (:func:`_four_corner_of`): within the pairing's square-corner test, or
    within :data:`FOUR_CORNER_LOOSE` where the read shows the deck prints
    four corners (such a corner found so, or a card read from three or
    four).  A tilted view or a turned card's leaning boxes skew a corner
    past the square test; on a deck printing two corners the loose test
    would take a twin laid in a fan for its card's corner.

    >>> at = lambda n, x, y: IndexDetection(n, 0.9, (x - 8, y - 16, x + 8, y + 16))
    >>> d8 = CardRead("D8", 0.98, (0, 0, 1, 1), (at("D8", 540, 228), at("D8", 639, 346)))
    >>> lone = lambda n, x, y: CardRead(n, 0.9, (0, 0, 1, 1), (at(n, x, y),))
    >>> len(_four_corners_dropped([d8, lone("D8", 660, 212)]))        # 74 degrees, two corners printed?
    2
    >>> s5 = CardRead("S5", 0.98, (0, 0, 1, 1), (at("S5", 40, 228), at("S5", 139, 346), at("S5", 139, 228)))
    >>> len(_four_corners_dropped([d8, lone("D8", 660, 212), s5]))    # a card read from three corners
    2
    >>> len(_four_corners_dropped([d8, lone("D8", 650, 218)]))        # 80 degrees, at its top-right spot
    1
    """
    # (no corner within the square test and no card of three corners: the loose test is not taken)
    four = any(len(c.indices) >= 3 for c in cards) or any(_four_corner_of(c, cards) for c in cards)
    # and a lone corner at a card's own top-right or bottom-left spot is that card's, on any deck
    return [c for c in cards
            if not (_within_corners_of(c, cards) or four and _four_corner_of(c, cards, FOUR_CORNER_LOOSE))]


def _within_corners_of(card: CardRead, cards: list[CardRead]) -> bool:
    """Whether ``card`` is a lone corner lying where another of ``cards``
    of its name, read from two corners (its top-left and bottom-right index
    centres, the card standing within :data:`WITHIN_UPRIGHT` degrees of
    upright either way up), has its top-right or bottom-left index: within
    :data:`WITHIN_NEAR` of an index's height of that spot (the rectangle's
    corner, as the picture's axes give it).  That card's own print, not a
    twin's: a twin lying on top, its index there and its card turned as
    this one, would cover this card's far corner, which is read; a twin
    lying under it would have its index covered.  A four-corner deck's
    top-right index seen from a tilted camera lies so, its corner too skewed
    for the square test (:func:`_four_corner_of`), on a deck the read does
    not show to print four.  (Anywhere within the rectangle is too far: two
    twins' corners paired as one card, the fan's other twin lies there.)

    >>> at = lambda n, x, y: IndexDetection(n, 0.9, (x - 8, y - 16, x + 8, y + 16))
    >>> d8 = CardRead("D8", 0.98, (0, 0, 1, 1), (at("D8", 540, 228), at("D8", 639, 346)))
    >>> lone = lambda n, x, y: CardRead(n, 0.9, (0, 0, 1, 1), (at(n, x, y),))
    >>> [_within_corners_of(lone("D8", x, y), [d8]) for x, y in ((630, 226), (545, 340), (600, 280), (700, 228))]
    [True, True, False, False]
    >>> _within_corners_of(lone("C8", 630, 226), [d8])           # another face: a card of its own
    False
    >>> turned = CardRead("D8", 0.98, (0, 0, 1, 1), (at("D8", 540, 228), at("D8", 560, 400)))   # 30 degrees
    >>> _within_corners_of(lone("D8", 560, 230), [turned])
    False
    """
    return _lone_corner_of(card, cards, _at_corner_spot)


def _at_corner_spot(card: CardRead, d: IndexDetection) -> bool:
    """Whether index ``d`` lies at ``card``'s top-right or bottom-left spot
    (see :func:`_within_corners_of`; ``card`` read from two corners)."""
    a, b = (np.array(i.center, float) for i in card.indices[:2])
    dx, dy = np.abs(b - a)
    if dy == 0 or abs(np.degrees(np.arctan2(dx, dy) - np.arctan(PAIR_RATIO))) > WITHIN_UPRIGHT:
        return False
    p = np.array(d.center, float)
    near = WITHIN_NEAR * float(np.mean([i.height for i in card.indices[:2]]))
    return bool(min(np.hypot(*(p - (b[0], a[1]))), np.hypot(*(p - (a[0], b[1])))) <= near)


def _lone_corner_of(card: CardRead, cards: list[CardRead], at: Callable[[CardRead, IndexDetection], bool]) -> bool:
    """Whether ``card`` is a lone corner that ``at`` places on another of
    ``cards`` of its name whose two corners (or more) are read."""
    return len(card.indices) == 1 and any(
        c is not card and c.name == card.name and len(c.indices) >= 2 and at(c, card.indices[0]) for c in cards)


def _four_corner_of(card: CardRead, cards: list[CardRead], square: float = FOUR_CORNER_SQUARE) -> bool:
    """Whether ``card`` is a lone corner sitting as the top-right or
    bottom-left index of another of ``cards`` of its name whose two corners
    are read (:func:`vision.reading.pairing._corner_of`, its corner's cosine
    at most ``square``): that card's own index on a deck printing all four
    corners, which a turned read or a pairing that joined other corners left
    alone.  (Another card's index there would cover that card's bottom-right
    index or lie under it.)

    >>> at = lambda n, x, y: IndexDetection(n, 0.9, (x - 8, y - 16, x + 8, y + 16))
    >>> d8 = CardRead("D8", 0.98, (0, 0, 1, 1), (at("D8", 540, 228), at("D8", 639, 346)))
    >>> lone = lambda n, x, y: CardRead(n, 0.9, (0, 0, 1, 1), (at(n, x, y),))
    >>> _four_corner_of(lone("D8", 639, 228), [d8]), _four_corner_of(lone("D8", 540, 346), [d8])
    (True, True)
    >>> _four_corner_of(lone("D8", 700, 228), [d8]), _four_corner_of(lone("C8", 639, 228), [d8])
    (False, False)
    >>> loose = lambda x, y: _four_corner_of(lone("D8", x, y), [d8], FOUR_CORNER_LOOSE)
    >>> _four_corner_of(lone("D8", 650, 218), [d8]), loose(650, 218), loose(690, 190)   # 80, 80, 58 degrees
    (False, True, False)
    """
    return _lone_corner_of(card, cards, lambda c, d: _at_other_corner(c, d, square))


def _other_diagonal_dropped(cards: list[CardRead]) -> list[CardRead]:
    """``cards`` without pairs of lone corners that are another card's other
    diagonal: two single-index cards of a two-cornered card's name whose
    middle is that card's middle (within :data:`DIAGONAL_MIDDLE` of an
    index's height) and whose distance is that card's diagonal's (within
    :data:`DIAGONAL_LENGTH`), as the top-right and bottom-left indices of a
    deck printing all four corners lie, however far the card is turned and
    however its boxes lean.  Two other indices of one name cannot lie so:
    one would cover that card or lie under it at its corner.

    >>> at = lambda n, x, y: IndexDetection(n, 0.9, (x - 8, y - 16, x + 8, y + 16))
    >>> bj = CardRead("BJ", 0.98, (0, 0, 1, 1), (at("BJ", 552, 167), at("BJ", 536, 334)))
    >>> lone = lambda n, x, y: CardRead(n, 0.97, (0, 0, 1, 1), (at(n, x, y),))
    >>> [c.name for c in _other_diagonal_dropped([bj, lone("BJ", 455, 295), lone("BJ", 635, 202)])]
    ['BJ']
    >>> [c.name for c in _other_diagonal_dropped([bj, lone("BJ", 455, 295), lone("BJ", 700, 202)])]
    ['BJ', 'BJ', 'BJ']
    >>> [c.name for c in _other_diagonal_dropped([bj, lone("LJ", 455, 295), lone("BJ", 635, 202)])]
    ['BJ', 'LJ', 'BJ']

    A joker read from two corners that are a face card's other diagonal,
    crossing its first at :data:`DIAGONALS_CROSS` degrees or more, is those
    corners too (a queen's, turned, read as 大王 on a real phone photograph):

    >>> dq = CardRead("DQ", 0.98, (0, 0, 1, 1), (at("DQ", 344, 347), at("DQ", 507, 348)))
    >>> joker = lambda *xy: CardRead("BJ", 0.977, (0, 0, 1, 1), (at("BJ", *xy[:2]), at("BJ", *xy[2:])))
    >>> [c.name for c in _other_diagonal_dropped([dq, joker(394, 261, 458, 431)])]
    ['DQ']
    >>> [c.name for c in _other_diagonal_dropped([dq, joker(350, 330, 500, 364)])]   # along its first
    ['DQ', 'BJ']

    So is a card read from those two corners with the card's own name (a
    four-corner joker read as two), the surer of the two kept; two cards of
    one name whose middles lie apart are two cards:

    >>> bj2 = lambda *xy: CardRead("BJ", 0.97, (0, 0, 1, 1), (at("BJ", *xy[:2]), at("BJ", *xy[2:])))
    >>> [c.confidence for c in _other_diagonal_dropped([bj2(394, 261, 458, 431), joker(344, 347, 507, 348)])]
    [0.977]
    >>> len(_other_diagonal_dropped([bj2(394, 261, 458, 431), joker(444, 347, 607, 348)]))
    2
    """
    drop: set[int] = set()
    for j, c in enumerate(cards):
        if len(c.indices) != 2 or j in drop:
            continue
        p, q = (np.array(d.center, float) for d in c.indices)
        ih = float(np.mean([d.height for d in c.indices]))

        def diagonal(a: np.ndarray, b: np.ndarray) -> bool:
            return float(np.hypot(*((a + b) / 2 - (p + q) / 2))) <= DIAGONAL_MIDDLE * ih and \
                1 / DIAGONAL_LENGTH <= float(np.hypot(*(a - b))) / max(1e-6, float(np.hypot(*(p - q)))) \
                <= DIAGONAL_LENGTH

        for k, o in enumerate(cards):
            # a joker across another card, or a card of this one's name across it (its own other
            # two corners paired: a four-corner joker read twice); of two such, the surer is kept
            if k == j or k in drop or len(o.indices) != 2 or not (
                    (o.name in JOKERS and c.name not in JOKERS)
                    or (o.name == c.name and (o.confidence, -k) < (c.confidence, -j))):
                continue
            a, b = (np.array(d.center, float) for d in o.indices)
            cross = abs(float((b - a) @ (q - p))) / max(1e-6, float(np.hypot(*(b - a)) * np.hypot(*(q - p))))
            if diagonal(a, b) and cross <= np.cos(np.radians(DIAGONALS_CROSS)):
                drop.add(k)
        lone = [k for k, o in enumerate(cards) if o is not c and o.name == c.name and len(o.indices) == 1
                and k not in drop]
        for i, k in ((i, k) for i in lone for k in lone if i < k):
            if diagonal(*(np.array(cards[j].indices[0].center, float) for j in (i, k))):
                drop |= {i, k}
                break
    return [c for k, c in enumerate(cards) if k not in drop]


def _on_four_corner(card: CardRead, cards: list[CardRead]) -> bool:
    """Whether ``card`` is a joker read short of :data:`SURE_JOKER` one of
    whose indices sits as another of ``cards``' top-right or bottom-left
    index (:func:`vision.reading.pairing._corner_of`, that card's two
    corners read): on a deck printing all four corners, that index seen on
    its side, in a turn that stands another card upright, reads as a joker.

    >>> at = lambda n, x, y: IndexDetection(n, 0.9, (x - 8, y - 16, x + 8, y + 16))
    >>> d8 = CardRead("D8", 0.98, (0, 0, 1, 1), (at("D8", 540, 228), at("D8", 639, 346)))
    >>> joker = lambda x, y, p=0.9: CardRead("LJ", p, (0, 0, 1, 1), (at("LJ", x, y),))
    >>> _on_four_corner(joker(639, 228), [d8]), _on_four_corner(joker(700, 228), [d8])
    (True, False)
    >>> _on_four_corner(joker(639, 228, p=0.98), [d8])
    False
    """
    if card.name not in JOKERS or card.confidence >= SURE_JOKER:
        return False
    return any(_at_other_corner(c, d) for c in cards if c is not card and len(c.indices) == 2 for d in card.indices)


def _sure_elsewhere(best: ZoneRead, tried: list[ZoneRead], turns: list[float], size: tuple[float, float]
                   ) -> Iterator[tuple[CardRead, int]]:
    """The sure cards (:data:`SURE`) of the reads of ``tried`` (turned
    ``turns`` degrees) other than ``best``, pairs of two surely different
    faces parted (:func:`_parted`), each with its read's place in ``tried``.

    A joker from :data:`SURE_JOKER`; from :data:`SURE` only in a read turned
    less than :data:`JOKER_TURN` and where no read names another face
    surely where one of its indices lies (:func:`_where`; ``size``: an
    index's width and height as read upright).  In a read turned further a
    card on the zone's other side lies nearly on its side, and an index on
    its side is often read as a joker; the turn that stands it upright reads
    its own face.

    >>> card = lambda n, p, x: CardRead(n, p, (x, 0, x + 20, 30), (IndexDetection(n, p, (x, 0, x + 20, 30)),))
    >>> best = ZoneRead([card("S5", 0.98, 0)])
    >>> joker = ZoneRead([card("BJ", 0.9, 60)])
    >>> [[c.name for c, _ in _sure_elsewhere(best, [best, joker], [0.0, t], (20.0, 30.0))] for t in (20.0, 40.0)]
    [['BJ'], []]
    >>> face = ZoneRead([card("H7", 0.95, 62)])
    >>> [c.name for c, _ in _sure_elsewhere(best, [best, joker, face], [0.0, 20.0, -20.0], (20.0, 30.0))]
    ['H7']
    """
    faces = [e for r in tried for c in r.cards if c.name not in (*JOKERS, "NONE") and c.confidence >= SURE
             for e in c.indices]
    for k, r in enumerate(tried):
        if r is not best:
            for c in _parted(r.cards):
                if c.name == "NONE" or c.confidence < SURE:
                    continue
                if c.name in JOKERS and c.confidence < SURE_JOKER and (abs(turns[k]) >= JOKER_TURN or any(
                        _where(d, e, size) for d in c.indices for e in faces)):
                    continue
                yield c, k


def _adds_sure(best: ZoneRead, tried: list[ZoneRead], turns: list[float], size: tuple[float, float]) -> bool:
    """Whether a read of ``tried`` other than ``best`` has a sure card
    (:func:`_sure_elsewhere`) none of whose indices lies where one of
    ``best``'s does (:func:`_same_place`; ``turns``: each read's angle;
    ``size``: an index's width and height as read upright)."""
    have = [e for c in best.cards for e in c.indices]
    return size[0] > 0 and any(not any(_same_place(d, e, size[0]) for d in c.indices for e in have)
                             for c, _ in _sure_elsewhere(best, tried, turns, size))


def _left_out(best: ZoneRead, tried: list[ZoneRead], size: tuple[float, float]) -> tuple[str, float] | None:
    """The surest card of ``tried`` (one zone's reads, every turn) none of
    whose indices lies where one of ``best``'s does, as (name, confidence),
    or None.  On generated fans and crooked cards most plays read sure but
    wrong lack a card, and a third of those had been read by another turn
    (models/MODEL_CARD.md, "A card another turn saw").

    Where one lies: :func:`_where` (``size``: an index's width and height as
    read upright); the demo's video has a C6 whose index one turn read as an
    S9 half a height off.

    >>> card = lambda n, p, x, y=0: CardRead(n, p, (x, y, x + 20, y + 30), (IndexDetection(n, p, (x, y, x + 20, y + 30)),))
    >>> best = ZoneRead([card("S5", 0.98, 0)])
    >>> _left_out(best, [best, ZoneRead([card("S5", 0.9, 2), card("H5", 0.6, 60)])], (20.0, 30.0))
    ('H5', 0.6)
    >>> _left_out(best, [best, ZoneRead([card("S9", 0.6, 3, -15)])], (20.0, 30.0)) is None
    True
    >>> _left_out(best, [best, ZoneRead([card("LJ", 0.9, 60), card("BJ", 0.98, 90)])], (20.0, 30.0))
    ('BJ', 0.98)

    A joker counts from :data:`SURE_JOKER`, or from :data:`SURE` where
    ``best`` holds a joker (a joker bomb read with a joker fewer):

    >>> jokers = ZoneRead([card("LJ", 0.97, 0)])
    >>> _left_out(jokers, [jokers, ZoneRead([card("LJ", 0.9, 60)])], (20.0, 30.0))
    ('LJ', 0.9)
    """
    have = [e for c in best.cards for e in c.indices]

    def explained(d: IndexDetection) -> bool:
        return any(_where(d, e, size) for e in have)

    # (a joker from SURE_JOKER only, as the merge takes one: a pip or a
    # sideways index read in another turn is often taken for one; on real
    # single cards those were most of the cards left out of reads read right.
    # But where the read holds a joker, another read's joker from SURE: a
    # joker bomb laid as a fan, read a joker fewer, is often a legal pair)
    floor = SURE if _jokers(best) else SURE_JOKER
    seen = [(c.name, c.confidence) for r in tried for c in r.cards
            if c.name != "NONE" and (c.name not in JOKERS or c.confidence >= floor)
            and not any(explained(d) for d in c.indices)]
    return max(seen, key=lambda nc: nc[1]) if seen and size[0] > 0 else None


def _oversized(d: IndexDetection, size: tuple[float, float]) -> bool:
    """Whether a named box is :data:`OVERSIZED` times a zone's typical index
    both ways (``size``: its median width and height): a card's pips or
    picture, not an index (one deck's indices are one size at one scale).

    >>> box = lambda w, h: IndexDetection("C4", 0.85, (0, 0, w, h))
    >>> _oversized(box(68, 88), (30, 27)), _oversized(box(32, 64), (30, 27)), _oversized(box(68, 88), (0, 0))
    (True, False, False)
    """
    return d.name != "HAND" and size[0] > 0 and d.width > OVERSIZED * size[0] and d.height > OVERSIZED * size[1]


def _where(d: IndexDetection, e: IndexDetection, size: tuple[float, float]) -> bool:
    """Whether index ``d`` lies where index ``e`` does, as two turns of a zone
    may box one index: closer than :data:`vision.reading.pairing.SAME_INDEX`
    of an index's width across and of its height up and down (``size``: an
    index's width and height as read upright; a turn may box the rank alone
    or the rank and suit, so one index's centre may lie half a height off)."""
    return abs(d.center[0] - e.center[0]) < SAME_INDEX * size[0] and \
        abs(d.center[1] - e.center[1]) < SAME_INDEX * size[1]


def _parted(cards: list[CardRead]) -> list[CardRead]:
    """``cards`` with each pair whose two corners are each read surely
    (:data:`SURE`) as different faces parted into two lone corners, each its
    own name: a turned picture shows a card's index where another card's
    bottom corner could lie, and the pairing joins them under one name
    (:func:`vision.reading.pairing._rescue_pairs`), losing the other card."""
    out = []
    for c in cards:
        a = c.indices
        if len(a) == 2 and a[0].name != a[1].name and min(a[0].confidence, a[1].confidence) >= SURE:
            out += [CardRead(d.name, d.confidence, d.box, (d,), c.centre) for d in a]
        else:
            out.append(c)
    return out


def _same_place(d: IndexDetection, e: IndexDetection, width: float) -> bool:
    """Whether two indices read in two turns are one: their centres closer
    than :data:`vision.reading.pairing.SAME_INDEX` of an index's ``width``
    (a tight fan's next index is a width or more away; the boxes themselves
    cannot say, one mapped back from a turned picture is wider than its index)."""
    return float(np.hypot(d.center[0] - e.center[0], d.center[1] - e.center[1])) < SAME_INDEX * width


def _half_card(read: ZoneRead, turn: float, ih: float) -> np.ndarray:
    """From a card's top-left index to its centre, upright (px): as ``read``'s
    paired cards show it (it was read turned by ``turn`` degrees), else from
    an index's height ``ih`` and the usual corner geometry."""
    offs = []
    for c in read.cards:
        if len(c.indices) >= 2 and c.centre:
            top = min(c.indices, key=lambda d: d.center[0] + d.center[1])       # up and left
            offs.append(_turned(np.array(c.centre) - np.array(top.center), -turn))
    if offs:
        return np.median(np.array(offs), axis=0)
    dy = 2.8 * ih
    return np.array([PAIR_RATIO * dy, dy]) / 2


def _turned(v: np.ndarray, turn: float) -> np.ndarray:
    """A vector turned ``turn`` degrees, clockwise as the picture is drawn (y down)."""
    t = np.radians(turn)
    return np.array([v[0] * np.cos(t) - v[1] * np.sin(t), v[0] * np.sin(t) + v[1] * np.cos(t)])


def _lone_centre(card: CardRead, turn: float, half: np.ndarray) -> CardRead:
    """A lone corner's card with its centre where a card upright in the
    picture turned by ``turn`` degrees has it, ``half`` (upright) from its
    index taken for the top-left one (players leave it in view; that turn
    read it, so it stands upright there; the read's own guess leans as the
    turn's other cards do, and which corner it is was guessed among them)."""
    d = card.indices[0]
    v = _turned(half, turn)
    return replace(card, centre=(d.center[0] + float(v[0]), d.center[1] + float(v[1])))


def _corners_of_one(a: IndexDetection, b: IndexDetection, turn: float, ih: float) -> bool:
    """Whether two indices (zone pixels) sit as one card's top-left and
    bottom-right corners do, or as its two corners along one long edge
    (:data:`EDGE_MIN`, :data:`EDGE_SLANT`), in the picture turned by ``turn`` degrees.

    >>> at = lambda x, y: IndexDetection("SQ", 0.9, (x - 10, y - 20, x + 10, y + 20))
    >>> [_corners_of_one(at(190, 187), at(x, 315), 0.0, 42.0) for x in (290, 200, 150)]
    [True, True, False]
    """
    v = _turned(np.array(b.center) - np.array(a.center), -turn)
    if v[1] < 0:
        v = -v
    if EDGE_MIN * ih <= v[1] <= PAIR_DY_MAX * ih and abs(v[0]) <= EDGE_SLANT * v[1]:
        return True      # one card's edge, on a deck printing all four corners
    return _corner_pair_error(v, ih) is not None


def _along_row(cards: list[CardRead], ih: float = 0.0) -> list[CardRead]:
    """Cards ordered left to right along the line through their centres;
    cards laid in rows of two or more (their centres step down by
    :data:`ROW_STEP` index heights ``ih`` or more between rows), row by row
    from the top."""
    if len(cards) < 2:
        return cards
    pts = np.array([c.centre or ((c.box[0] + c.box[2]) / 2, (c.box[1] + c.box[3]) / 2) for c in cards], float)
    rows = height_bands(pts[:, 1], ROW_STEP * ih / BOTTOM_MIN) if ih > 0 else np.zeros(len(cards), int)
    # (a row of one is a card pushed in crooked, its centre guessed from one corner)
    if rows.max() >= 1 and np.bincount(rows).min() >= 2:
        return [cards[k] for r in range(int(rows.max()) + 1)
                for k in np.flatnonzero(rows == r)[np.argsort(pts[rows == r, 0], kind="stable")]]
    centred = pts - pts.mean(axis=0)
    axis = np.linalg.svd(centred, full_matrices=False)[2][0]
    if axis[0] < 0:
        axis = -axis
    # a row lies within 45 degrees of the zone's axis: a steeper line is a short row's height
    if abs(axis[1]) > abs(axis[0]):
        axis = np.array([1.0, 0.0])
    return [cards[k] for k in np.argsort(centred @ axis, kind="stable")]


def _load(kind: str, path: Path, make: Callable[[Path], T]) -> T:
    """One of the models, or a :class:`DetectorError` naming it (missing, or
    not a model: ONNX Runtime raises its own types for corrupt files)."""
    if not path.exists():
        raise DetectorError(f"{kind} not found: {path}")
    try:
        return make(path)
    except Exception as exc:
        raise DetectorError(f"cannot load {kind} {path}: {exc}") from None


def _far_corner(card: CardRead) -> CardRead:
    """A lone index's card with its centre on the index's other side (the
    index taken for the card's other corner)."""
    (x, y), (cx, cy) = card.indices[0].center, card.centre
    return replace(card, centre=(2 * x - cx, 2 * y - cy))


def _card_back(card: CardRead, u: Upright) -> CardRead:
    """A card read in a picture turned upright, in the original picture's pixels."""
    return replace(card, box=u.box(card.box), centre=u.point(*card.centre) if card.centre else None,
                   indices=tuple(replace(d, box=u.box(d.box)) for d in card.indices))


def _apart_boxes(d: IndexDetection, k: IndexDetection) -> bool:
    """Whether two boxes lie on different indices (:func:`vision.reading.pairing.one_per_index`'s rule)."""
    return abs(d.center[0] - k.center[0]) >= SAME_INDEX * max(d.width, k.width) \
        or abs(d.center[1] - k.center[1]) >= SAME_INDEX * max(d.height, k.height)


def _within_a_card(d: IndexDetection, e: IndexDetection) -> bool:
    """Whether two index boxes lie no farther apart than a card's two corners
    (:data:`LONE_CORNERS_APART` index heights, the taller box's)."""
    return float(np.hypot(d.center[0] - e.center[0], d.center[1] - e.center[1])) \
        <= LONE_CORNERS_APART * max(d.height, e.height)


def _tighter(box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """``box`` :data:`TIGHT_SHRINK` of its size about its middle.

    >>> [round(v, 6) for v in _tighter((0.0, 0.0, 100.0, 200.0))]
    [10.0, 20.0, 90.0, 180.0]
    """
    return _scaled(box, TIGHT_SHRINK)


def _scaled(box: tuple[float, float, float, float], size: float) -> tuple[float, float, float, float]:
    """``box`` ``size`` times its size about its middle.

    >>> _scaled((10.0, 20.0, 30.0, 60.0), 1.5)
    (5.0, 10.0, 35.0, 70.0)
    """
    x0, y0, x1, y1 = box[:4]
    dx, dy = (size - 1) * (x1 - x0) / 2, (size - 1) * (y1 - y0) / 2
    return (x0 - dx, y0 - dy, x1 + dx, y1 + dy)


def _overlaps(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two (x0, y0, x1, y1) boxes share any area."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
