"""Real photographs no one here made, for the hand model: hands, and tables without one.

Public sets whose licences allow training and measuring (the
photographs are not in this repository; a few are copied into
``tests/data/real/`` with their licences, see the README there):

=========  =================================================================  ===========  ========================
name       source (repository, commit, folder)                                licence      what
=========  =================================================================  ===========  ========================
hands      ragadag621/hand-tracking-project-using-YOLOv5 a7dbe15              CC BY 4.0    2,801 photographs of real
           ``HandDetect/hands.v2i.yolov8-obb`` (Roboflow Universe "hands",               hands (palms, backs,
           golfballtracking-project-sypem/hands-dguzk, v2)                               fingers) on walls, floors,
                                                                                         desks, clothes; each hand
                                                                                         boxed (oriented)
tables     shreypatel1/grasp-point-calculation 919a881                        CC BY 4.0    440 photographs of wooden
           ``datasets/card-detect`` (Roboflow Universe "card detect",                    blocks on a light wooden
           empamos/card-detect-49zev, v11)                                               table and on white tables,
                                                                                         no hand
edje       EdjeElectronics/TensorFlow-Object-Detection-API-Tutorial-          Apache-2.0   363 photographs of real
           Train-Multiple-Objects-Windows-10 c164582 ``images``                          playing cards on carpet,
                                                                                         cloth, knitwear; no hand
overhead   Endrevh/hand-tracking 04a7e70 ``data/workspace_images``            MIT          60 photographs taken from
                                                                                         above a metal workbench, an
                                                                                         arm reaching in, bare or
                                                                                         gloved; measured only
rps        FraSeb6/prs_project 86de61b ``data`` ("rps-cv images"              CC BY-SA     2,188 photographs taken
           by Julien de la Bruère-Terreault, for DrGFreeman/rps-cv)           4.0          from above a green cloth,
                                                                                           a hand reaching in from
                                                                                           the edge (rock, paper,
                                                                                           scissors); a held-out third
=========  =================================================================  ===========  ========================

Build the folder once (``ROOT``), from clones of the repositories::

    git -C hands-repo archive a7dbe15 HandDetect/hands.v2i.yolov8-obb | tar x --strip-components=2 -C ROOT/hands
    git -C tables-repo archive 919a881 datasets/card-detect | tar x --strip-components=2 -C ROOT/tables
    git -C edje-repo archive c164582 images LICENSE | tar x -C ROOT/edje
    git -C overhead-repo archive 04a7e70 data/workspace_images LICENSE | tar x -C ROOT/overhead
    git -C rps-repo archive 86de61b data | tar x -C ROOT/rps

(make the five folders first; ``rps/data/README_rpc-cv-images.txt`` is
the set's own notice: author and licence).  Each set keeps its own split: the
``train`` photographs may be trained on; ``valid`` and ``test`` (for edje:
``test``) are only measured, and :func:`held_out_hands` also leaves out
every validation photograph whose source photograph (the name before
Roboflow's ``.rf.``) is among the training ones: Roboflow's copies of one
photograph, flipped or turned, must not be on both sides.

A zone picture is wider than tall (the zone 640x448, its margin around it);
the photographs are square or upright, so :func:`zone_view` cuts a
zone-shaped window out of one.

The ``overhead`` set is the only one seen as our camera sees a table: from
above, an arm reaching in from the picture's edge.  It has no labels; every
photograph shows a hand over the middle (checked by eye), and
:data:`OVERHEAD_KINDS` says which are bare, in a clear glove or in an
opaque one.  It is never trained on: it measures how the hand rule does on
a view unlike the eye-level close-ups it learnt from.

The ``rps`` set is a second view from above: a Raspberry Pi camera looking
down on a green cloth (as on a felt table), one hand at a time reaching in
from the picture's edge, as a fist, a flat hand or two fingers
(:data:`RPS_GESTURES`).  Every photograph shows a hand over its middle;
there are none without one.  Its held-out third (:data:`RPS_HELD_OUT`) is
only measured; the shipped hand model is trained on none of it (training
on the rest, ``hand_model --green-cloth``, was tried and not shipped:
models/MODEL_CARD.md).  Its licence is
share-alike: the photographs (and any copy of them in ``tests/data``) stay
CC BY-SA 4.0 with their author named.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image      # reads a photograph's size from its header (Pillow comes with reportlab)

from vision.reading.table import ZONE_PX

SPLITS = ("train", "valid", "test")
SOURCES = {
    "hands": ("ragadag621/hand-tracking-project-using-YOLOv5", "a7dbe15", "CC BY 4.0"),
    "tables": ("shreypatel1/grasp-point-calculation", "919a881", "CC BY 4.0"),
    "edje": ("EdjeElectronics/TensorFlow-Object-Detection-API-Tutorial-Train-Multiple-Objects-Windows-10",
             "c164582", "Apache-2.0"),
    "overhead": ("Endrevh/hand-tracking", "04a7e70", "MIT"),
    "rps": ("FraSeb6/prs_project", "86de61b", "CC BY-SA 4.0"),
}
# which overhead photographs (by number) show what, as seen by eye: skin shows
# through a clear plastic glove; orange nitrile, black and white work gloves hide it
OVERHEAD_KINDS = {"bare": range(1, 12), "clear glove": range(24, 40),
                  "opaque glove": [*range(12, 24), *range(40, 61)]}
# the rps set's folders: a fist, a flat hand, two fingers (each photograph a hand over the green cloth)
RPS_GESTURES = ("rock", "paper", "scissors")
RPS_HELD_OUT = 1 / 3   # the share of each gesture's photographs (the first by name) never trained on
ASPECT = ZONE_PX[0] / ZONE_PX[1]      # a zone's width over its height
HAND_COVER = 0.05     # a hand's box covering this share of a window is a hand over the zone


class RealPhotosError(Exception):
    """The folder of real photographs is missing or not as built by the module's recipe."""


@dataclass(frozen=True)
class Photo:
    """One photograph: where it is, and its hands' boxes in pixels (x0, y0, x1, y1)."""

    path: Path
    hands: tuple[tuple[float, float, float, float], ...] = ()

    @property
    def source(self) -> str:
        """The photograph it was made from (Roboflow names its copies ``NAME.rf.HASH``)."""
        return self.path.name.split(".rf.")[0]


def _images(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise RealPhotosError(f"{folder} not found (see vision/training/real_photos.py to build it)")
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))


def _obb_boxes(label: Path, w: int, h: int) -> tuple[tuple[float, float, float, float], ...]:
    """Axis-aligned boxes around the oriented boxes of a YOLO-OBB label file
    (``class x1 y1 .. x4 y4``, normalised)."""
    out = []
    for line in label.read_text().split("\n"):
        v = line.split()
        if len(v) != 9:
            continue
        xy = np.array([float(t) for t in v[1:]]).reshape(4, 2) * (w, h)
        out.append((float(xy[:, 0].min()), float(xy[:, 1].min()), float(xy[:, 0].max()), float(xy[:, 1].max())))
    return tuple(out)


def hand_photos(root: Path, split: str) -> list[Photo]:
    """The hand photographs of one split, with their hands' boxes."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    folder = Path(root) / "hands" / split
    out = []
    for p in _images(folder / "images"):
        label = folder / "labels" / (p.stem + ".txt")
        if not label.exists():
            continue
        # the header gives the size: decoding 2,801 photographs here only to
        # measure them doubled the time of building the training data
        with Image.open(p) as img:
            w, h = img.size
        out.append(Photo(p, _obb_boxes(label, w, h)))
    return out


def _thumbnail(path: Path) -> np.ndarray:
    """16x16 grey, zero mean and unit spread: a photograph's look, for finding near copies."""
    g = cv2.resize(cv2.imread(str(path), cv2.IMREAD_GRAYSCALE), (16, 16), interpolation=cv2.INTER_AREA)
    g = g.astype(np.float32)
    return (g - g.mean()) / (g.std() + 1e-6)


def held_out_hands(root: Path, unlike: float | None = None) -> list[Photo]:
    """The validation and test hand photographs whose source photograph is
    not among the training ones (those alone are fit to measure with).

    The set holds bursts of one scene shot moments apart under different
    names; ``unlike``: also leave out every photograph whose thumbnail lies
    closer than this (mean absolute difference of :func:`_thumbnail`, any
    training photograph turned or flipped) to a training one: 0.45 keeps
    about half, scenes of their own."""
    train = hand_photos(root, "train")
    trained = {p.source for p in train}
    out = [p for s in ("valid", "test") for p in hand_photos(root, s) if p.source not in trained and p.hands]
    if unlike is None:
        return out
    looks = []
    for p in train:
        t = _thumbnail(p.path)
        for k in range(4):
            a = np.rot90(t, k)
            looks += [a.ravel(), a[:, ::-1].ravel()]
    bank = np.stack(looks)
    return [p for p in out if float(np.abs(bank - _thumbnail(p.path).ravel()).mean(axis=1).min()) >= unlike]


def table_photos(root: Path, split: str) -> list[Photo]:
    """Tables without a hand (wooden blocks on wood or white): one split."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    return [Photo(p) for p in _images(Path(root) / "tables" / split / "images")]


def card_photos(root: Path, split: str) -> list[Photo]:
    """Real cards on carpet and cloth, no hand (EdjeElectronics): ``train`` or ``test``."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be train or test, got {split!r}")
    return [Photo(p) for p in _images(Path(root) / "edje" / "images" / split)]


def overhead_photos(root: Path, kind: str) -> list[Photo]:
    """The overhead photographs of one kind (:data:`OVERHEAD_KINDS`), each with a hand over its middle."""
    if kind not in OVERHEAD_KINDS:
        raise ValueError(f"kind must be one of {tuple(OVERHEAD_KINDS)}, got {kind!r}")
    numbers = set(OVERHEAD_KINDS[kind])
    return [Photo(p) for p in _images(Path(root) / "overhead" / "data" / "workspace_images")
            if p.stem.isdigit() and int(p.stem) in numbers]


def green_cloth_photos(root: Path, gesture: str, split: str | None = None) -> list[Photo]:
    """The ``rps`` photographs of one gesture (:data:`RPS_GESTURES`), each
    with a hand over its middle, seen from above a green cloth.

    ``split``: ``None`` for all of them, ``"test"`` for the first
    :data:`RPS_HELD_OUT` of them by name (the names are random, so a random
    share; only ever measured), ``"train"`` for the rest."""
    if gesture not in RPS_GESTURES:
        raise ValueError(f"gesture must be one of {RPS_GESTURES}, got {gesture!r}")
    photos = [Photo(p) for p in _images(Path(root) / "rps" / "data" / gesture)]
    if split is None:
        return photos
    if split not in ("train", "test"):
        raise ValueError(f"split must be train or test, got {split!r}")
    held = round(len(photos) * RPS_HELD_OUT)
    return photos[:held] if split == "test" else photos[held:]


def off_green_box(img: np.ndarray) -> Box | None:
    """The box (x0, y0, x1, y1) around the largest thing on a green cloth
    that is not the cloth: in an ``rps`` photograph, the hand and its arm.
    ``None`` when nothing but cloth is seen.

    The set has no labels, but its cloth is one saturated green, so the hand
    is whatever is not (its own project cut hands out the same way).

    >>> img = np.zeros((100, 150, 3), np.uint8); img[:] = (40, 160, 40)
    >>> img[30:70, 90:150] = (120, 150, 200)
    >>> off_green_box(img)
    (90.0, 30.0, 150.0, 70.0)
    >>> off_green_box(img[:, :80]) is None
    True
    """
    n, parts, stats = _off_green(img)
    if n < 2:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    # specks of glare or dust are not a hand: a hand covers a good share of the picture
    if stats[k, cv2.CC_STAT_AREA] < 0.02 * img.shape[0] * img.shape[1]:
        return None
    x, y, w, h = (float(v) for v in stats[k, :4])
    # a box over nearly all the picture is the cloth not recognised (a dim or
    # glaring photograph), not a hand: no box rather than a wrong one
    if w * h > 0.9 * img.shape[0] * img.shape[1]:
        return None
    return (x, y, x + w, y + h)


Box = tuple[float, float, float, float]


def _off_green(img: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """The parts of a photograph on a green cloth that are not the cloth:
    ``cv2.connectedComponentsWithStats``' count, labels and stats."""
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    cloth = (hsv[..., 0] >= 35) & (hsv[..., 0] <= 90) & (hsv[..., 1] >= 60) & (hsv[..., 2] >= 40)
    thing = cv2.morphologyEx((~cloth).astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    n, parts, stats, _ = cv2.connectedComponentsWithStats(thing)
    return n, parts, stats


def green_cloth_cutout(img: np.ndarray) -> np.ndarray:
    """The hand of an ``rps`` photograph cut out of its green cloth: BGRA,
    opaque over the largest part that is not cloth (the hand and its arm),
    its edge softened a pixel; the photograph's green spill toned down.
    To lay real hands into generated scenes (``SceneGenerator(hand_cutouts=...)``).

    >>> img = np.zeros((100, 150, 3), np.uint8); img[:] = (40, 160, 40)
    >>> img[30:70, 90:150] = (120, 150, 200)
    >>> cut = green_cloth_cutout(img)
    >>> cut.shape, int(cut[50, 120, 3]), int(cut[10, 10, 3])
    ((100, 150, 4), 255, 0)
    """
    n, parts, stats = _off_green(img)
    mask = np.zeros(img.shape[:2], np.float32)
    if n >= 2:
        mask[parts == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))] = 1.0
    alpha = cv2.GaussianBlur(mask, (0, 0), 1.0)
    bgr = img.copy()
    # the cloth's green reflects on the hand's edge: no more green than red there
    bgr[..., 1] = np.minimum(bgr[..., 1], np.maximum(bgr[..., 2], bgr[..., 0]))
    return np.dstack([bgr, np.round(alpha * 255).astype(np.uint8)])


def zone_window(shape: tuple[int, ...], rng: np.random.Generator | None = None,
                scale: tuple[float, float] = (0.55, 1.0)) -> Box:
    """A zone-shaped window (x0, y0, x1, y1) of a picture of ``shape``.

    Without ``rng`` the picture's middle, as wide (or as tall) as it can
    be; with one, a random window of ``scale`` (a share of that), anywhere.
    """
    H, W = shape[:2]
    cw, ch = (W, W / ASPECT) if W / H <= ASPECT else (H * ASPECT, H)
    if rng is not None:
        s = rng.uniform(*scale)
        cw, ch = cw * s, ch * s
        x0, y0 = rng.uniform(0, W - cw), rng.uniform(0, H - ch)
    else:
        x0, y0 = (W - cw) / 2, (H - ch) / 2
    return (x0, y0, x0 + cw, y0 + ch)


def in_window(boxes: tuple[Box, ...] | list[Box], window: Box, size: tuple[int, int] = ZONE_PX) -> list[Box]:
    """Boxes moved into the pixels of the window cut to ``size``, clipped to it
    (the ones outside it left out).

    >>> in_window([(10.0, 10.0, 30.0, 30.0), (500.0, 0.0, 600.0, 10.0)], (0.0, 0.0, 200.0, 140.0), (100, 70))
    [(5.0, 5.0, 15.0, 15.0)]
    """
    sx, sy = size[0] / (window[2] - window[0]), size[1] / (window[3] - window[1])
    out = []
    for b in boxes:
        x0, y0 = max(b[0], window[0]), max(b[1], window[1])
        x1, y1 = min(b[2], window[2]), min(b[3], window[3])
        if x1 > x0 and y1 > y0:
            out.append(((x0 - window[0]) * sx, (y0 - window[1]) * sy, (x1 - window[0]) * sx, (y1 - window[1]) * sy))
    return out


def cut(img: np.ndarray, window: Box, size: tuple[int, int] = ZONE_PX, margin: int = 0) -> np.ndarray:
    """The window of the picture, resized to ``size``; with ``margin`` pixels
    around it repeating its edge (a zone picture's margin, as the table
    watcher reads one)."""
    x0, y0, x1, y1 = window
    out = cv2.resize(img[int(y0):int(round(y1)), int(x0):int(round(x1))], size, interpolation=cv2.INTER_AREA)
    return cv2.copyMakeBorder(out, margin, margin, margin, margin, cv2.BORDER_REPLICATE) if margin else out


def zone_view(img: np.ndarray, hands: tuple[Box, ...] = (),
              rng: np.random.Generator | None = None, size: tuple[int, int] = ZONE_PX,
              scale: tuple[float, float] = (0.55, 1.0), margin: int = 0) -> tuple[np.ndarray, float]:
    """A zone-shaped picture (``size``) cut from a photograph (:func:`zone_window`;
    ``margin``: see :func:`cut`), and how much of it the largest hand's box
    covers (0 to 1).  A hand counts as over the zone from :data:`HAND_COVER`.

    >>> view, cover = zone_view(np.zeros((640, 640, 3), np.uint8), ((0.0, 0.0, 320.0, 640.0),))
    >>> view.shape, cover
    ((448, 640, 3), 0.5)
    """
    window = zone_window(img.shape, rng, scale)
    area = size[0] * size[1]
    cover = max(((b[2] - b[0]) * (b[3] - b[1]) / area for b in in_window(hands, window, size)), default=0.0)
    return cut(img, window, size, margin), round(cover, 4)
