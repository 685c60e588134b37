"""The index classifier's training data: crops of corner indices and of
what is not one, cut from synthetic scenes (:mod:`vision.training.synth`).

Each crop is what :func:`vision.reading.index_classifier.crop` hands the
classifier at run time; the label is the card's class number
(:data:`vision.reading.classes.CARD_NAMES`) or :data:`NONE`.  Every scene
draws from its own generator (seeded by the run's seed and its number), so
the same seed gives the same crops byte for byte.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.reading.classes import CARD_NAMES, JOKERS
from vision.reading.index_classifier import NONE, crop

JOKER_IDS = tuple(CARD_NAMES.index(j) for j in JOKERS)   # the jokers' class numbers
NONE_ONLY = np.zeros(NONE + 1, bool)   # the allowed labels of a crop that is no index
NONE_ONLY[NONE] = True
NONE_ONLY.setflags(write=False)


def ink_box(image: np.ndarray, box, tighter: float = 0.85) -> tuple[float, float, float, float] | None:
    """The box around the ink inside ``box`` (whatever is far from the card
    stock, the brightest colour there), or None when that is not clearly
    tighter (both sides over ``tighter`` of the box's).

    A joker's corner mark is often a round picture, shorter than a rank
    index: a detector may box just the mark, and the classifier must still
    read it as a joker.

    >>> img = np.full((60, 40, 3), 250, np.uint8); img[10:22, 10:22] = (30, 30, 200)
    >>> ink_box(img, (8, 8, 24, 40))
    (10.0, 10.0, 22.0, 22.0)
    """
    found = _ink(image, box)
    if found is None:
        return None
    ink, (x0, y0, x1, y1) = found
    ys, xs = np.nonzero(ink)
    if len(xs) < 4:
        return None
    ib = (float(x0 + xs.min()), float(y0 + ys.min()), float(x0 + xs.max() + 1), float(y0 + ys.max() + 1))
    if ib[2] - ib[0] > tighter * (x1 - x0) and ib[3] - ib[1] > tighter * (y1 - y0):
        return None
    return ib


def _ink(image: np.ndarray, box) -> tuple[np.ndarray, tuple[int, int, int, int]] | None:
    """Where ``box`` (cut to the picture) holds ink: pixels far from the
    card stock, the brightest colour there; with the box in whole pixels.
    None for a box outside the picture."""
    h, w = image.shape[:2]
    x0, y0 = max(0, int(box[0])), max(0, int(box[1]))
    x1, y1 = min(w, int(np.ceil(box[2]))), min(h, int(np.ceil(box[3])))
    patch = image[y0:y1, x0:x1].astype(np.int16)
    if patch.size == 0:
        return None
    grey = patch.sum(axis=2)
    paper = np.median(patch[grey >= np.percentile(grey, 75)], axis=0)
    return np.abs(patch - paper).max(axis=2) > 60, (x0, y0, x1, y1)


def _jittered(box, sx: float, sy: float, rng: np.random.Generator) -> tuple[float, float, float, float]:
    """``box`` with each edge moved at random (sd ``sx`` across, ``sy`` down), as a detector's box is off."""
    j = rng.normal(0, 1, 4) * np.array([sx, sy, sx, sy])
    return box[0] + j[0], box[1] + j[1], box[2] + j[2], box[3] + j[3]


def _intersections(box, boxes: np.ndarray) -> np.ndarray:
    """The area ``box`` shares with each of ``boxes`` (N x 4)."""
    ix = np.clip(np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0]), 0, None)
    iy = np.clip(np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1]), 0, None)
    return ix * iy


def _iou(box, boxes: np.ndarray) -> np.ndarray:
    """Intersection over union of one box with each of ``boxes`` (N x 4)."""
    if len(boxes) == 0:
        return np.zeros(0)
    inter = _intersections(box, boxes)
    area = (box[2] - box[0]) * (box[3] - box[1])
    return inter / (area + (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]) - inter)


def make_crops(out: Path, scenes: int, seed: int, detector: Path | None = None,
               joker_scenes: float = 0.0, joker_designs: float = 0.0, ink_weight: float = 0.0,
               tight_jokers: bool = False, index_designs: float = 0.0, body_negatives: int = 0,
               outline_prints: float = 0.0, lamp_tints: float = 0.0, stock_tints: float = 0.0,
               hanzi_jokers: float = 0.0, decks: tuple[str, ...] | None = None,
               drawn_jokers: bool = True, sideways_jokers: float = 0.0, face_down: float = 0.0,
               drawn_backs: float = 0.0, stacked_jokers: float = 0.0, emblem_jokers: float = 0.0) -> None:
    """Crops of every labelled index (boxes jittered like a detector's) plus
    non-index crops of cloth, card faces and hands; saved as one .npz.
    ``decks``: the decks the scenes are drawn from (default
    :data:`vision.training.card_art.TRAIN_DECKS`; PySolFC's with jokers drawn on their stock, or
    ``drawn_jokers=False``: as the sets print them, with none, as the candidate classifiers'
    PySolFC crops were made: ``models/candidates``).

    With ``detector`` (an ONNX card detector), every box it finds is cropped
    too: named after the index it covers, or ``NONE`` when it covers none
    (its false alarms on pips and faces are the negatives that matter).
    ``tight_jokers``: a joker's index is also cropped tight around its ink
    (:func:`ink_box`).  ``body_negatives``: this many more non-index crops a
    scene, drawn within the row of cards (pips and pictures of unseen decks
    must not read as jokers).
    ``joker_scenes``, ``joker_designs``, ``ink_weight``, ``index_designs``, ``outline_prints``,
    ``lamp_tints``, ``stock_tints``, ``hanzi_jokers``, ``sideways_jokers``, ``stacked_jokers``,
    ``emblem_jokers``, ``face_down`` and ``drawn_backs``
    (a card back's detector boxes are ``NONE`` crops): see
    :class:`vision.training.synth.SceneGenerator` (jokers are rare in ordinary plays, and a dozen
    decks' jokers teach a dozen pictures rather than the big/little colour rule).
    """
    from vision.training.synth import SceneGenerator

    gen = SceneGenerator(scene_decks(decks, drawn_jokers), joker_scenes=joker_scenes, joker_designs=joker_designs,
                         ink_weight=ink_weight, index_designs=index_designs, outline_prints=outline_prints,
                         lamp_tints=lamp_tints, stock_tints=stock_tints, hanzi_jokers=hanzi_jokers,
                         sideways_jokers=sideways_jokers, face_down=face_down, drawn_backs=drawn_backs,
                         stacked_jokers=stacked_jokers, emblem_jokers=emblem_jokers)
    finder = None
    if detector is not None:
        from vision.reading.detector import CardDetector

        finder = CardDetector(detector, classifier=False, threads=1)
    xs, ys = [], []
    for i in range(scenes):
        rng = np.random.default_rng([seed, 77, i])
        scene = gen.random_scene(rng)
        for x, y in _scene_crops(scene, rng, finder, tight_jokers, body_negatives):
            xs.append(x)
            ys.append(y)
        if (i + 1) % 500 == 0:
            print(f"{i + 1}/{scenes} scenes, {len(xs)} crops", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out / f"crops_{seed}.npz", x=np.stack(xs), y=np.array(ys, np.int64))
    print(f"{len(xs)} crops -> {out / f'crops_{seed}.npz'}")


def scene_decks(names: tuple[str, ...] | None = None, drawn_jokers: bool = True) -> list:
    """The decks training scenes are drawn from: ``names`` (default
    :data:`vision.training.card_art.TRAIN_DECKS`), PySolFC's with a pair of
    jokers drawn on their stock (the sets print none), or as they print
    them with ``drawn_jokers=False``."""
    from vision.training.card_art import PYSOL_DECKS, TRAIN_DECKS, load_decks
    from vision.training.joker_art import with_drawn_jokers

    return [with_drawn_jokers(d) if drawn_jokers and d.name in PYSOL_DECKS else d
            for d in load_decks(names or TRAIN_DECKS)]


def joker_crops_again(source: Path, out: Path, seed: int) -> Path:
    """The joker crops of ``source`` (a ``crops_*.npz``) written again as
    ``out/crops_SEED.npz``: in a training folder beside ``source`` they are
    drawn twice as often.  The first candidate classifier's recipe
    (``models/candidates/pysol-p3e2``) adds a set of decks that prints no
    jokers (PySolFC's); without this the share of joker crops it met fell
    from 13 % to 7 %, and it read fewer real jokers (models/MODEL_CARD.md,
    "PySolFC's card sets teach the classifier").

    >>> import tempfile
    >>> tmp = tempfile.TemporaryDirectory()
    >>> d = Path(tmp.name)
    >>> names = ["BJ", "S5", "LJ", "NONE"]
    >>> y = np.array([CARD_NAMES.index(n) if n != "NONE" else NONE for n in names])
    >>> np.savez(d / "crops_1.npz", x=np.zeros((4, 2, 2, 3), np.uint8), y=y)
    >>> again = joker_crops_again(d / "crops_1.npz", d, 2)
    >>> again.name, [CARD_NAMES[k] for k in np.load(again)["y"]]
    ('crops_2.npz', ['BJ', 'LJ'])
    >>> tmp.cleanup()
    """
    path = out / f"crops_{seed}.npz"
    if path.resolve() == Path(source).resolve():
        raise ValueError(f"{path}: would overwrite its own source")
    with np.load(source) as data:
        jokers = np.isin(data["y"], [CARD_NAMES.index(j) for j in JOKERS])
        if not jokers.any():
            raise ValueError(f"{source}: no joker crops")
        x, y = data["x"][jokers], data["y"][jokers]
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, x=x, y=y)
    return path


def _scene_crops(scene, rng: np.random.Generator, finder, tight_jokers: bool,
                 body_negatives: int) -> list[tuple[np.ndarray, int]]:
    """One scene's (crop, label) pairs: its labelled indices, the detector's
    boxes, then the negatives (in this order: the draws from ``rng`` follow it)."""
    img = scene.image
    cards = [(c, (x0, y0, x1, y1)) for c, x0, y0, x1, y1 in scene.labels if c < NONE]   # hands left out
    boxes = np.array([b for _, b in cards]).reshape(-1, 4)
    # with a detector's boxes too, one jittered crop an index is enough
    out = _index_crops(img, cards, rng, 1 if finder else 2, tight_jokers)
    if finder is not None:
        out += _detector_crops(finder, img, boxes, [c for c, _ in cards])
    sizes = [(b[2] - b[0], b[3] - b[1]) for _, b in cards]
    out += [(x, NONE) for x in _negative_crops(img, boxes, sizes, rng, body_negatives)]
    return out


def _index_crops(img: np.ndarray, cards, rng: np.random.Generator, per_index: int,
                 tight_jokers: bool) -> list[tuple[np.ndarray, int]]:
    """``per_index`` crops of each labelled index, its box jittered (sd 10 %);
    with ``tight_jokers``, a joker's also cropped around its mark alone."""
    out = []
    for c, (x0, y0, x1, y1) in cards:
        bw, bh = x1 - x0, y1 - y0
        for _ in range(per_index):
            out.append((crop(img, _jittered((x0, y0, x1, y1), 0.1 * bw, 0.1 * bh, rng)), c))
        if tight_jokers and c in JOKER_IDS:
            ib = ink_box(img, (x0, y0, x1, y1))
            if ib is not None:          # the mark alone, as a detector may box it
                out.append((crop(img, _jittered(ib, 0.05 * bw, 0.05 * bh, rng)), c))
    return out


def _detector_crops(finder, img: np.ndarray, boxes: np.ndarray, classes: list[int]) -> list[tuple[np.ndarray, int]]:
    """A crop of every index box the detector finds: named after the labelled
    index it covers (IoU 0.5 or more), ``NONE`` when it covers none (under
    0.2); boxes in between are left out."""
    out = []
    for d in finder.find_boxes(img):
        if d.name == "HAND":
            continue
        ious = _iou(np.array(d.box), boxes)
        best = int(ious.argmax()) if len(ious) else -1
        if best >= 0 and ious[best] >= 0.5:
            out.append((crop(img, d.box), classes[best]))
        elif best < 0 or ious[best] < 0.2:
            out.append((crop(img, d.box), NONE))
    return out


def _negative_crops(img: np.ndarray, boxes: np.ndarray, sizes: list, rng: np.random.Generator,
                    body_negatives: int) -> list[np.ndarray]:
    """Random boxes of an index's size that miss every index: three anywhere
    (mostly cloth) and ``body_negatives`` on the cards' bodies (pips, pictures)."""
    h, w = img.shape[:2]
    bw, bh = np.median(sizes, axis=0) if sizes else (0.037 * w, 0.083 * h)
    areas = [((0.0, 0.0, float(w), float(h)), 3)]
    if body_negatives and len(boxes):     # the row's extent: the indices' span and an index's size around it
        areas.append(((max(0.0, boxes[:, 0].min() - bw), max(0.0, boxes[:, 1].min() - bh),
                       min(float(w), boxes[:, 2].max() + bw), min(float(h), boxes[:, 3].max() + bh)),
                      body_negatives))
    out = []
    for (ax0, ay0, ax1, ay1), count in areas:
        for _ in range(count):
            sc = rng.uniform(0.7, 1.4)
            x0 = rng.uniform(ax0, max(ax0, ax1 - bw * sc))
            y0 = rng.uniform(ay0, max(ay0, ay1 - bh * sc))
            b = np.array([x0, y0, x0 + bw * sc, y0 + bh * sc])
            if len(boxes) and (_intersections(b, boxes) / ((b[2] - b[0]) * (b[3] - b[1]))).max() > 0.25:
                continue
            out.append(crop(img, b))
    return out


# A half-covered index's label (:func:`covered_label`): the shares of its rank
# and of its suit's pip that must show (the rest under the next card).
RANK_SHOWS = 0.8        # the rank can be named
SUIT_SHOWS = 0.35       # the suit can be told (a third of a pip: its colour and outline)
RANK_GLIMPSED = 0.35    # under this, the crop is not made (the covering card's own index fills it)
JOKER_SHOWS = 0.6       # a joker's mark (one picture or a vertical word, no rank and suit)


def covered_label(card: str, rank: float, suit: float, whole: float) -> np.ndarray | None:
    """The labels a crop of ``card``'s corner index may have (a bool row of
    :data:`vision.reading.index_classifier.LABELS`) when only shares ``rank``,
    ``suit`` and ``whole`` of its rank, its suit's pip and all of it show
    (:attr:`vision.training.synth.Scene.corners`); None: crop nothing.

    The rule: rank and suit both show enough (:data:`RANK_SHOWS`,
    :data:`SUIT_SHOWS`): the card's face alone, however much else is
    covered; the rank shows but the suit does not: any suit of that rank, or
    ``NONE`` (no reader can tell the suit; the classifier is not pushed to
    guess); only part of the rank shows: the face or ``NONE``; under
    :data:`RANK_GLIMPSED` of it: nothing (a crop there shows the covering
    card's own index).  A joker: its face from :data:`JOKER_SHOWS` of its
    mark, the face or ``NONE`` from :data:`RANK_GLIMPSED`.

    >>> from vision.reading.index_classifier import LABELS
    >>> [LABELS[i] for i in np.flatnonzero(covered_label("H7", 0.9, 0.2, 0.6))]
    ['S7', 'H7', 'D7', 'C7', 'NONE']
    >>> [LABELS[i] for i in np.flatnonzero(covered_label("H7", 0.95, 0.5, 0.7))]
    ['H7']
    >>> covered_label("H7", 0.2, 1.0, 0.6) is None
    True
    """
    rank, suit, whole = min(rank, 1.0), min(suit, 1.0), min(whole, 1.0)
    allowed = np.zeros(NONE + 1, bool)
    c = CARD_NAMES.index(card)
    if c in JOKER_IDS:
        if whole < RANK_GLIMPSED:
            return None
        allowed[c] = True
        allowed[NONE] = whole < JOKER_SHOWS
        return allowed
    if rank < RANK_GLIMPSED:
        return None
    if rank >= RANK_SHOWS and suit >= SUIT_SHOWS:
        allowed[c] = True
    elif rank >= RANK_SHOWS:
        allowed[[CARD_NAMES.index(s + card[1]) for s in "SHDC"]] = True
        allowed[NONE] = True
    else:
        allowed[c] = allowed[NONE] = True
    return allowed


def covered_scene(gen, rng: np.random.Generator, margin: int = 0):
    """A scene whose cards cover each other's indices in the ways a table
    shows: one or two cards pushed in crooked (15-45 degrees either way,
    0.4), a fan laid as a held hand (spread 30-90 degrees, 0.25), a tight
    fan (each card showing little more than its index strip; 0.2) or a row
    turned 0-45 degrees as a whole (0.15); plays of two cards or more."""
    from vision.training.synth import play_for_deck

    deck = gen.decks[int(rng.integers(len(gen.decks)))]
    cards: list[str] = []
    while len(cards) < 2:
        cards = play_for_deck(rng, deck)
    r = rng.random()
    kw: dict = {}
    if r < 0.4:
        turns = [0.0] * len(cards)
        for k in rng.choice(len(cards), size=min(len(cards), int(rng.integers(1, 3))), replace=False):
            turns[int(k)] = float(rng.uniform(15, 45) * rng.choice([-1, 1]))
        kw = {"card_turns": turns}
    elif r < 0.65:
        kw = {"spread": float(rng.uniform(30, 90))}
    elif r < 0.85:
        tight = max(0.17, deck.index_box[2] + 0.03)
        kw = {"spacing": float(rng.uniform(tight - 0.03, tight + 0.08)),
              "turn": float(rng.uniform(0, 15) * rng.choice([-1, 1]))}
    else:
        kw = {"turn": float(rng.uniform(0, 45) * rng.choice([-1, 1]))}
    return gen.render(cards, rng, deck=deck, margin=margin, hand=bool(rng.random() < 0.1), **kw)


SIDEWAYS_SPREAD = 15.0   # degrees either side of a quarter turn (--sideways crops)


def _turn_groups(angles: list[float], within: float = 3.0) -> list[tuple[float, list[int]]]:
    """Cards' angles gathered into turns (one per group of angles within
    ``within`` degrees of its first): (the turn, the cards it stands upright)."""
    groups: list[tuple[float, list[int]]] = []
    for k in np.argsort(angles):
        a = float(angles[k])
        if groups and a - groups[-1][0] <= within:
            groups[-1][1].append(int(k))
        else:
            groups.append((a, [int(k)]))
    return [(float(np.mean([angles[k] for k in ks])), ks) for _, ks in groups]


def covered_crops(scene, rng: np.random.Generator, finder=None,
                  only_covered: float = 0.0, sideways: bool = False) -> list[tuple[np.ndarray, np.ndarray]]:
    """One scene's (crop, allowed labels) pairs, cut as the reader cuts them:
    the picture turned upright by each card's angle
    (:func:`vision.reading.orientation.upright`), and in it a jittered crop
    of each of those cards' corner indices (:func:`covered_label`), and
    every box ``finder`` (a detector) finds there: labelled as the corner it
    covers (IoU 0.5 or more, of a corner whose rank shows at least
    :data:`RANK_GLIMPSED`), ``NONE`` when it covers no such corner (under
    0.2), left out in between.  ``only_covered`` (e.g. 0.95): only corners
    showing less than that share of themselves, each cropped three times,
    and the detector's boxes on them (no ``NONE`` crops).

    ``sideways``: the picture is turned a quarter turn wrong instead (each
    group's angle plus or minus 90 degrees, give or take
    :data:`SIDEWAYS_SPREAD`), as the reader turns a zone whose cards lie near
    45 degrees both ways round: each index then lies on its side and may be
    read as its card or ``NONE``, never as another card or a joker (a
    sideways index was named a joker at 0.93-0.98, model card "Phantom
    jokers asked about")."""
    from vision.reading.orientation import upright

    out = []
    for turn, ks in _turn_groups(scene.angles):
        if sideways:
            turn += float(rng.choice([-90.0, 90.0]) + rng.uniform(-SIDEWAYS_SPREAD, SIDEWAYS_SPREAD))
        if abs(turn) < 1.0:
            pic, to_pic = scene.image, np.array([[1.0, 0, 0], [0, 1.0, 0]])
        else:
            u = upright(scene.image, turn)
            pic, to_pic = u.image, cv2.invertAffineTransform(u.back)
        boxes, labels, others = [], [], []
        for k, quad, rank, suit, whole in scene.corners:
            q = quad @ to_pic[:, :2].T + to_pic[:, 2]
            box = (q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max())
            if min(rank, 1.0) < RANK_GLIMPSED:
                continue
            if k not in ks:
                others.append(box)
                continue
            allowed = covered_label(scene.cards[k], rank, suit, whole)
            if allowed is None or (only_covered and whole >= only_covered):
                continue
            if sideways:
                allowed = allowed | NONE_ONLY
            bw, bh = box[2] - box[0], box[3] - box[1]
            for _ in range(3 if only_covered else 1):
                out.append((crop(pic, _jittered(box, 0.1 * bw, 0.1 * bh, rng)), allowed))
            boxes.append(box)
            labels.append(allowed)
        if finder is None:
            continue
        mine, every = np.array(boxes).reshape(-1, 4), np.array(boxes + others).reshape(-1, 4)
        for d in finder.find_boxes(pic):
            if d.name == "HAND":
                continue
            ious = _iou(np.array(d.box), mine)
            if len(ious) and ious.max() >= 0.5:
                out.append((crop(pic, d.box), labels[int(ious.argmax())]))
            elif not only_covered and (not len(every) or _iou(np.array(d.box), every).max() < 0.2):
                out.append((crop(pic, d.box), NONE_ONLY))
    return out


def index_parts(image: np.ndarray, box) -> tuple[tuple[float, float, float, float], ...] | None:
    """The two blocks of ink inside an index's ``box``, top one first,
    split at the widest gap between rows of ink (:func:`ink_box`'s ink: far
    from the card stock), each boxed tight; None where the ink makes one
    block (a rank beside its pip, a joker's picture) or too little of it.

    Many real decks print the rank and its pip apart, or a lone pip in a
    corner, and the detector boxes each alone: a crop of either must not
    read as a joker (models/MODEL_CARD.md, "A rank or a pip boxed alone").

    >>> img = np.full((60, 40, 3), 250, np.uint8)
    >>> img[10:25, 12:24] = 20; img[32:42, 14:22] = (30, 30, 200)     # a rank, then a pip below it
    >>> index_parts(img, (8, 6, 28, 46))
    ((12.0, 10.0, 24.0, 25.0), (14.0, 32.0, 22.0, 42.0))
    >>> img[25:32, 16:18] = 20                                         # joined: one block
    >>> index_parts(img, (8, 6, 28, 46)) is None
    True
    """
    found = _ink(image, box)
    if found is None:
        return None
    ink, (x0, y0, _, _) = found
    ys = np.flatnonzero(ink.any(axis=1))
    if len(ys) < 6:
        return None
    breaks = np.flatnonzero(np.diff(ys) > 1)
    if not len(breaks):
        return None
    k = int(breaks[np.argmax(ys[breaks + 1] - ys[breaks])])      # the widest gap: after row ys[k]
    out = []
    for r0, r1 in ((ys[0], ys[k]), (ys[k + 1], ys[-1])):
        xs = np.flatnonzero(ink[r0:r1 + 1].any(axis=0))
        if r1 - r0 < 4 or len(xs) < 2:
            return None
        out.append((float(x0 + xs[0]), float(y0 + r0), float(x0 + xs[-1] + 1), float(y0 + r1 + 1)))
    return out[0], out[1]


PARTS_UPRIGHT = 4.0   # degrees: cards turned at most this much give crops of their rank and pip alone


def partial_crops(scene, rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    """One scene's (crop, allowed labels) pairs of a rank or a pip boxed
    alone (:func:`index_parts`), from the fully showing indices of its cards
    that lie within :data:`PARTS_UPRIGHT` of upright (or upside down): the
    rank may be that rank in any suit or ``NONE`` (as :func:`covered_label`
    allows a rank whose pip is covered), the pip only ``NONE``; never a
    joker.  The shipped classifier named 67 % of such rank crops and 79 %
    of such pip crops a joker (generated, 150 scenes)."""
    centres: dict[int, list[tuple[float, np.ndarray, float]]] = {}
    for k, quad, _rank, _suit, whole in scene.corners:
        centres.setdefault(k, []).append((float(quad[:, 1].mean()), quad, whole))
    out = []
    for k, corners in centres.items():
        card = scene.cards[k]
        if card in JOKERS or len(corners) != 2 or abs(scene.angles[k]) > PARTS_UPRIGHT:
            continue
        top = min(c[0] for c in corners)
        rank = covered_label(card, 1.0, 0.0, 1.0)        # the rank showing, its pip not
        for cy, quad, whole in corners:
            if whole < 0.95:
                continue
            parts = index_parts(scene.image, (quad[:, 0].min(), quad[:, 1].min(), quad[:, 0].max(), quad[:, 1].max()))
            if parts is None:
                continue
            # the card's lower index is printed upside down: its pip above its rank
            rank_box, pip_box = parts if cy == top else parts[::-1]
            for b, allowed in ((rank_box, rank), (pip_box, NONE_ONLY)):
                bw, bh = b[2] - b[0], b[3] - b[1]
                out.append((crop(scene.image, _jittered(b, 0.08 * bw, 0.08 * bh, rng)), allowed))
    return out


def make_partial_crops(out: Path, scenes: int, seed: int, decks: tuple[str, ...] | None = None,
                       **options: float) -> Path:
    """:func:`partial_crops` of ``scenes`` random scenes (``decks``: default
    the training decks; ``options``: :class:`vision.training.synth.SceneGenerator`'s
    scene options), saved as ``out/partial_SEED.npz`` in the shape
    :func:`make_covered_crops` saves, for ``--train --real``."""
    from vision.training.synth import SceneGenerator

    gen = SceneGenerator(scene_decks(decks), **options)
    xs, allowed, photo = [], [], []
    for i in range(scenes):
        rng = np.random.default_rng([seed, 83, i])
        for x, a in partial_crops(gen.random_scene(rng), rng):
            xs.append(x)
            allowed.append(a)
            photo.append(i)
        if (i + 1) % 500 == 0:
            print(f"{i + 1}/{scenes} scenes, {len(xs)} crops", flush=True)
    if not xs:
        raise ValueError("no rank or pip boxed alone in these scenes")
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"partial_{seed}.npz"
    np.savez_compressed(path, x=np.stack(xs), allowed=np.stack(allowed), photo=np.array(photo))
    print(f"{len(xs)} crops of a rank or a pip alone -> {path}")
    return path


def make_covered_crops(out: Path, scenes: int, seed: int, detector: Path | None = None,
                       joker_designs: float = 0.0, ink_weight: float = 0.0, index_designs: float = 0.0,
                       joker_scenes: float = 0.0, only_covered: float = 0.0, outline_prints: float = 0.0,
                       sideways: bool = False, lamp_tints: float = 0.0, stock_tints: float = 0.0,
                       hanzi_jokers: float = 0.0, sideways_jokers: float = 0.0, stacked_jokers: float = 0.0,
                       emblem_jokers: float = 0.0) -> Path:
    """Crops of half-covered and turned indices from ``scenes`` scenes of
    :func:`covered_scene` (training decks and cloths, zones with the table
    watcher's margin), with their sets of allowed labels: saved as
    ``out/covered_SEED.npz`` with ``x``, ``allowed`` and ``photo`` (each
    crop's scene), the shape :mod:`vision.training.real_crops` saves, for
    ``--train --real``.  ``joker_scenes`` is not used (the plays are
    :func:`vision.training.synth.play_for_deck`'s); ``only_covered``: see
    :func:`covered_crops` (saved as ``out/covered_only_SEED.npz``); ``sideways``:
    ibid. (``out/sideways_SEED.npz``)."""
    from vision.reading.table import ZONE_MARGIN_MM, Zone
    from vision.training.card_art import TRAIN_DECKS, load_decks
    from vision.training.synth import SceneGenerator

    gen = SceneGenerator(load_decks(TRAIN_DECKS), joker_designs=joker_designs, ink_weight=ink_weight,
                         index_designs=index_designs, outline_prints=outline_prints, lamp_tints=lamp_tints,
                         stock_tints=stock_tints, hanzi_jokers=hanzi_jokers, sideways_jokers=sideways_jokers,
                         stacked_jokers=stacked_jokers, emblem_jokers=emblem_jokers)
    finder = None
    if detector is not None:
        from vision.reading.detector import CardDetector

        finder = CardDetector(detector, classifier=False, threads=1)
    margin = Zone.margin_px(ZONE_MARGIN_MM)
    xs, allowed, photo = [], [], []
    for i in range(scenes):
        rng = np.random.default_rng([seed, 79, i])
        for x, a in covered_crops(covered_scene(gen, rng, margin), rng, finder, only_covered, sideways):
            xs.append(x)
            allowed.append(a)
            photo.append(i)
        if (i + 1) % 100 == 0:
            print(f"{i + 1}/{scenes} scenes, {len(xs)} crops", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    name = "sideways" if sideways else "covered_only" if only_covered else "covered"
    path = out / f"{name}_{seed}.npz"
    np.savez_compressed(path, x=np.stack(xs), allowed=np.stack(allowed), photo=np.array(photo))
    print(f"{len(xs)} crops ({int(sum(a.sum() == 1 for a in allowed))} with one label) -> {path}")
    return path
