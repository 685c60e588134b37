"""Deck enrollment: adapt the index classifier to one brand of cards from photographs.

``guandan-ref enroll-deck`` takes photographs of a deck's 54 faces, finds
each card by its outline (a light card on a darker, plain cloth), turns it
upright (:func:`find_cards`, :func:`rectify`), finds its corner indices
with the shipped detector, and crops them as the classifier's crops are
made at a table (:func:`vision.reading.index_classifier.crop`), in many
variants: turned, scaled, shifted, blurred, relit, noisy, JPEG'd, upside
down, half covered by the next card (:func:`augmented_crops`), and the
detector's own boxes on rows of the deck's cards (:func:`scene_crops`).
The shipped classifier gives each crop's 256 penultimate features; a
per-deck head (one linear layer, started from the shipped one and pulled
towards this deck's crops, :func:`fit_head`) is fitted on them in numpy;
whether a crop is an index at all stays the shipped head's answer (the
profile's NONE gate).  The result is a
:class:`vision.reading.deck_profile.DeckProfile`.  No PyTorch, no
retraining of the network: a minute or two on a 2-core CPU.

Two ways to photograph the deck:

- **single photos**: one card a picture, each file named after its card
  (``S5.jpg``, ``H10.png``, ``BJ.jpg``; any code :func:`referee.cards.parse_card`
  reads), or any names with ``labels``: the card codes in the photos' order;
- **grid photos** (``grid=(rows, cols)``): the cards laid face up in rows
  and columns with a finger's width between them, in :data:`GRID_ORDER`
  (spades 2 to A, hearts, diamonds, clubs, then the big joker and the little
  joker), left to right along the top row, then the next row down, photo
  after photo; the last photo holds what is left (``4x7``: two photos, 28
  and 26 cards).  The top of the photo is the top of the grid; a phone
  turns its photo by its orientation tag, which OpenCV applies.

Each card may lie any way up or turned a little; it must be whole in the
picture, apart from its neighbours.

>>> parse_grid("4x7")
(4, 7)
>>> len(GRID_ORDER), GRID_ORDER[:3], GRID_ORDER[-2:]
(54, ('S2', 'S3', 'S4'), ('BJ', 'LJ'))
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.reading.classes import CARD_NAMES
from vision.reading.deck_profile import DeckProfile, DeckProfileError
from vision.reading.index_classifier import LABELS, NONE, crop, softmax
from vision.reading.runtime import file_sha256

GRID_ORDER: tuple[str, ...] = CARD_NAMES        # the order cards are laid in a grid
CARD_PX = 240                                  # rectified card width (px)
ZONE_CARD_PX = 130                             # a card's width in a 640 px zone picture (2.1 px/mm)
DEFAULT_INDEX_BOX = (0.03, 0.02, 0.17, 0.28)   # fractions of the card, when the detector finds none


class EnrollError(ValueError):
    """Photos that cannot be enrolled; the message names the photo and the fix."""


def parse_grid(text: str) -> tuple[int, int]:
    """``ROWSxCOLS`` (``4x7``) as ``(rows, cols)``, 1 to 20 each."""
    parts = text.lower().replace("×", "x").split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise EnrollError(f"{text!r} is not a grid; give ROWSxCOLS, e.g. 4x7")
    rows, cols = (int(p) for p in parts)
    if not (1 <= rows <= 20 and 1 <= cols <= 20):
        raise EnrollError(f"grid {text}: rows and columns go from 1 to 20")
    return rows, cols


def grid_counts(rows: int, cols: int, total: int = len(GRID_ORDER)) -> list[int]:
    """How many cards each grid photo holds.

    >>> grid_counts(4, 7)
    [28, 26]
    """
    per = rows * cols
    return [min(per, total - k) for k in range(0, total, per)]


# -- finding cards -------------------------------------------------------------

def _order_portrait(quad: np.ndarray) -> np.ndarray:
    """Corners clockwise from the top-left, the first side a short one (portrait)."""
    c = quad.mean(axis=0)
    ang = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    q = quad[np.argsort(ang)]                      # clockwise in image coordinates (y down)
    start = int(np.argmin(q.sum(axis=1)))          # nearest the picture's top-left
    q = np.roll(q, -start, axis=0)
    if np.linalg.norm(q[1] - q[0]) > np.linalg.norm(q[2] - q[1]):   # lying on its side
        q = np.roll(q, -1, axis=0)
    return q.astype(np.float32)


def find_cards(image: np.ndarray, count: int) -> list[np.ndarray]:
    """The outlines of the ``count`` cards in a photo (each 4 corners, portrait,
    clockwise from the top-left); fewer or more when the photo does not show
    that many cards apart (the caller says so).

    A card is a light region on a darker cloth, shaped like a card.  A court
    card's dark picture may reach its thin white border and break it into
    pieces: the light regions are closed over wider and wider gaps (less
    than the cards lie apart, a finger's width) until ``count`` cards show.
    """
    h, w = image.shape[:2]
    k = min(1.0, 1200 / max(h, w))                 # outlines on a smaller copy, corners scaled back
    small = cv2.resize(image, (int(w * k), int(h * k)), interpolation=cv2.INTER_AREA) if k < 1 else image
    gray = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    _, light = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    light = cv2.morphologyEx(light, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # and the card's outline against the cloth: an edge all round it, whatever its picture
    edges = cv2.Canny(gray, 40, 120)
    light |= cv2.dilate(edges, np.ones((3, 3), np.uint8))
    best: list[np.ndarray] = []
    for gap in (0.0, 0.012, 0.024, 0.036, 0.048):
        size = int(gap * min(light.shape)) | 1
        mask = light if size < 3 else cv2.morphologyEx(
            light, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
        quads = [q / k for q in _card_shapes(mask, count)]
        if len(quads) == count:
            return quads
        if abs(len(quads) - count) < abs(len(best) - count) or not best:
            best = quads
    return best


def _card_shapes(mask: np.ndarray, count: int) -> list[np.ndarray]:
    """Card-shaped light regions of a mask (outlines in its pixels)."""
    # every light region's outer boundary, also those inside another one's hole
    # (a light line round the cloth, a tray's rim)
    contours, tree = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    area = mask.shape[0] * mask.shape[1]
    shapes = []
    for c, t in zip(contours, tree[0] if tree is not None else []):
        a = cv2.contourArea(c)
        if t[3] >= 0 or not 0.002 * area <= a <= 0.6 * area:
            continue
        hull = cv2.convexHull(c)
        rect = cv2.minAreaRect(hull)
        side = sorted(rect[1])
        if a < 0.8 * cv2.contourArea(hull) or not 1.15 <= side[1] / max(side[0], 1e-6) <= 1.9:
            continue
        shapes.append((a, hull, rect))
    if not shapes:
        return []
    shapes.sort(key=lambda s: -s[0])
    ref = float(np.median([s[0] for s in shapes[:count]]))
    quads = []
    for a, hull, rect in shapes[:1] if count == 1 else shapes:
        if not 0.5 * ref <= a <= 1.8 * ref:
            continue
        box = cv2.boxPoints(rect)
        approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2)
        quad = approx if (len(approx) == 4 and cv2.contourArea(approx.astype(np.float32))
                          >= 0.9 * cv2.contourArea(box)) else box
        quads.append(_order_portrait(np.float32(quad)))
    return quads


def card_aspect(quad: np.ndarray) -> float:
    """Height over width of one outline."""
    wdt = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    hgt = (np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
    return float(hgt / max(wdt, 1e-6))


def rectify(image: np.ndarray, quad: np.ndarray, aspect: float, width: int = CARD_PX) -> np.ndarray:
    """The card inside ``quad``, upright (or upside down), ``width`` px wide."""
    hgt = int(round(width * aspect))
    dst = np.float32([[0, 0], [width, 0], [width, hgt], [0, hgt]])
    H = cv2.getPerspectiveTransform(np.float32(quad), dst)
    return cv2.warpPerspective(image, H, (width, hgt), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def grid_order(quads: list[np.ndarray], cols: int) -> list[np.ndarray]:
    """Outlines in reading order (rows top to bottom, each left to right);
    :class:`EnrollError` if the rows do not hold ``cols`` cards (the last
    may hold fewer)."""
    if not quads:
        return []
    centres = np.array([q.mean(axis=0) for q in quads])
    heights = [np.linalg.norm(q[3] - q[0]) for q in quads]
    order = np.argsort(centres[:, 1])
    rows, row = [], [order[0]]
    for a, b in zip(order, order[1:]):
        if centres[b, 1] - centres[a, 1] > 0.5 * float(np.median(heights)):
            rows.append(row)
            row = []
        row.append(b)
    rows.append(row)
    sizes = [len(r) for r in rows]
    if any(n != cols for n in sizes[:-1]) or sizes[-1] > cols:
        raise EnrollError(f"found rows of {', '.join(map(str, sizes))} cards, expected rows of {cols}")
    return [quads[i] for r in rows for i in sorted(r, key=lambda i: centres[i, 0])]


# -- photos to cards -----------------------------------------------------------

def read_photo(path: str | Path) -> np.ndarray:
    """A photo as BGR, turned by its orientation tag; :class:`EnrollError` if it cannot be read."""
    p = Path(path)
    if not p.is_file():
        raise EnrollError(f"photo {path} does not exist")
    img = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if img is None:
        raise EnrollError(f"photo {path} is not a picture OpenCV can read (JPEG, PNG, ...)")
    return img


def cards_from_photos(photos: list[tuple[str, np.ndarray]], labels: list[str] | None = None,
                      grid: tuple[int, int] | None = None) -> tuple[dict[str, np.ndarray], float]:
    """The rectified card of each of the 54 faces (by code, CARD_PX wide) and the deck's aspect.

    ``photos``: (name, picture).  Single photos: each shows one card, named
    by ``labels`` in order, else by its file name's stem.  ``grid``:
    (rows, cols), the photos in order (see the module's doc), the cards in
    :data:`GRID_ORDER` or in the order of ``labels`` (54 codes).
    """
    from referee.cards import CardError, parse_card

    found: list[tuple[str, str, np.ndarray, np.ndarray]] = []      # (code, photo, picture, outline)
    if grid is not None:
        rows, cols = grid
        order = tuple(labels) if labels is not None else GRID_ORDER
        if sorted(order) != sorted(CARD_NAMES):
            raise EnrollError("a grid's labels must name each of the 54 faces once")
        counts = grid_counts(rows, cols)
        if len(photos) != len(counts):
            raise EnrollError(f"a {rows}x{cols} grid takes {len(counts)} photo(s) for 54 cards "
                              f"({' + '.join(map(str, counts))}), got {len(photos)}")
        at = 0
        for (name, img), n in zip(photos, counts):
            quads = find_cards(img, n)
            if len(quads) != n:
                raise EnrollError(f"photo {name}: found {len(quads)} cards, expected {n} "
                                  f"(lay them apart on a darker plain cloth, all in the picture)")
            try:
                quads = grid_order(quads, cols)
            except EnrollError as exc:
                raise EnrollError(f"photo {name}: {exc}") from None
            found += [(order[at + i], name, img, q) for i, q in enumerate(quads)]
            at += n
    else:
        if labels is not None and len(labels) != len(photos):
            raise EnrollError(f"{len(labels)} labels for {len(photos)} photos")
        if len(photos) != len(CARD_NAMES):
            raise EnrollError(f"{len(photos)} photos given; single photos need one of each of the "
                              f"{len(CARD_NAMES)} faces (or --grid ROWSxCOLS for photos of a grid)")
        for k, (name, img) in enumerate(photos):
            text = labels[k] if labels is not None else Path(name).stem
            try:
                code = parse_card(text).code
            except CardError:
                raise EnrollError(f"photo {name}: {text!r} does not name a card (name the file S5.jpg, "
                                  f"H10.jpg, BJ.jpg, ... or give --labels)") from None
            quads = find_cards(img, 1)
            if not quads:
                raise EnrollError(f"photo {name}: no card found (a light card on a darker plain cloth)")
            found.append((code, name, img, quads[0]))
        seen: dict[str, str] = {}
        for code, name, _, _ in found:
            if code in seen:
                raise EnrollError(f"photos {seen[code]} and {name} both show {code}")
            seen[code] = name
        missing = [c for c in CARD_NAMES if c not in seen]
        if missing:
            raise EnrollError(f"no photo of {', '.join(missing)}")
    aspect = float(np.median([card_aspect(q) for _, _, _, q in found]))
    if not 1.2 <= aspect <= 1.8:
        raise EnrollError(f"the cards found are {aspect:.2f} times as tall as wide; a playing card is "
                          f"about 1.4 (is the cloth darker than the cards?)")
    return {code: rectify(img, q, aspect) for code, _, img, q in found}, aspect


# -- where the indices are -----------------------------------------------------

def _mirror(box: tuple[float, ...]) -> tuple[float, float, float, float]:
    """A box (fractions of the card) turned half a turn about the card's centre."""
    x0, y0, x1, y1 = box
    return (1 - x1, 1 - y1, 1 - x0, 1 - y0)


def _iou(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / max(1e-9, (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def index_boxes(detector, cards: dict[str, np.ndarray]) -> tuple[dict[str, tuple], tuple, int]:
    """Each card's top-left index box (fractions of the card; the bottom-right
    one is it turned, :func:`_mirror`), the deck's usual box and how many
    cards the detector found it on.  The detector sees each card as on a
    table (130 px wide in a 640 px zone); a card where it finds none, or
    finds a box far from the deck's usual one, takes the usual one."""
    W, H = 640, 448
    canvases, places = [], []
    for code, img in cards.items():
        ch = int(round(ZONE_CARD_PX * img.shape[0] / img.shape[1]))
        small = cv2.resize(img, (ZONE_CARD_PX, ch), interpolation=cv2.INTER_AREA)
        canvas = np.full((H, W, 3), 45, np.uint8)
        x0, y0 = (W - ZONE_CARD_PX) // 2, (H - ch) // 2
        canvas[y0:y0 + ch, x0:x0 + ZONE_CARD_PX] = small
        canvases.append(canvas)
        places.append((code, x0, y0, ch))
    found = detector.find_boxes_many(canvases, scale=detector.imgsz / W) if canvases else []
    own: dict[str, list] = {}
    for (code, x0, y0, ch), dets in zip(places, found):
        boxes = [((d.box[0] - x0) / ZONE_CARD_PX, (d.box[1] - y0) / ch, (d.box[2] - x0) / ZONE_CARD_PX,
                  (d.box[3] - y0) / ch) for d in dets if d.name != "HAND"]
        tl = [b for b in boxes if (b[0] + b[2]) / 2 < 0.4 and (b[1] + b[3]) / 2 < 0.35]
        br = [_mirror(b) for b in boxes if (b[0] + b[2]) / 2 > 0.6 and (b[1] + b[3]) / 2 > 0.65]
        own[code] = [min(tl, key=lambda b: b[0] + b[1])] if tl else []
        own[code] += [min(br, key=lambda b: b[0] + b[1])] if br else []
    every = [b for bs in own.values() for b in bs]
    usual = tuple(float(v) for v in np.median(every, axis=0)) if every else DEFAULT_INDEX_BOX
    boxes = {}
    for code, bs in own.items():
        good = [b for b in bs if _iou(b, usual) > 0.3]
        boxes[code] = tuple(float(v) for v in np.mean(good, axis=0)) if good else usual
    return boxes, usual, sum(bool(b) for b in own.values())


# -- crops ---------------------------------------------------------------------

def _stock_or_cloth(rng: np.random.Generator) -> np.ndarray:
    """A border colour: the cloth, or the card lying under this one."""
    if rng.random() < 0.5:
        return rng.uniform(15, 90, 3)
    return np.full(3, rng.uniform(190, 250)) + rng.normal(0, 6, 3)


def _variant(card: np.ndarray, box_px: tuple[float, ...], rng: np.random.Generator,
             jitter: float = 0.08) -> np.ndarray:
    """One classifier crop of the index at ``box_px`` (pixels of ``card``) as
    a table camera could show it: the card at 85-145 px wide (a 640 px zone
    picture), turned up to 7°, the next card covering its right part now
    and then, light, blur, noise and JPEG, the box jittered as a detector's."""
    x0, y0, x1, y1 = box_px
    bw, bh = x1 - x0, y1 - y0
    pad = int(max(bw, bh) * 1.2)
    border = _stock_or_cloth(rng)
    src = cv2.copyMakeBorder(card, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=tuple(float(v) for v in border))
    cx, cy = (x0 + x1) / 2 + pad, (y0 + y1) / 2 + pad
    s = rng.uniform(85, 145) / card.shape[1]
    angle = rng.normal(0, 3.5)
    pw, ph = int(np.ceil(3 * bw * s)) + 8, int(np.ceil(3 * bh * s)) + 8
    M = cv2.getRotationMatrix2D((cx, cy), angle, s)
    M[0, 2] += pw / 2 - cx
    M[1, 2] += ph / 2 - cy
    patch = cv2.warpAffine(src, M, (pw, ph), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    corners = np.float32([[x0 + pad, y0 + pad, 1], [x1 + pad, y0 + pad, 1], [x1 + pad, y1 + pad, 1],
                          [x0 + pad, y1 + pad, 1]]) @ M.T
    b = [corners[:, 0].min(), corners[:, 1].min(), corners[:, 0].max(), corners[:, 1].max()]
    w, h = b[2] - b[0], b[3] - b[1]
    if rng.random() < 0.3:          # the next card of a fan, its edge past the index
        edge = int(b[2] + rng.uniform(0.05, 0.4) * w)
        if edge < pw:
            patch[:, edge:] = np.full(3, rng.uniform(200, 250)) + rng.normal(0, 4, 3)
            patch[:, max(0, edge - 1):edge] *= rng.uniform(0.4, 0.8)
    # light: gain per channel, a little offset
    patch = patch * rng.uniform(0.6, 1.25) * rng.uniform(0.9, 1.1, 3) + rng.uniform(-12, 12)
    r = rng.random()
    if r < 0.5:
        patch = cv2.GaussianBlur(patch, (0, 0), rng.uniform(0.3, 1.1))
    elif r < 0.62:                   # motion blur along a random direction
        k = int(rng.integers(3, 5))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1 / k
        kern = cv2.warpAffine(kern, cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1), (k, k))
        patch = cv2.filter2D(patch, -1, kern / max(float(kern.sum()), 1e-6))
    patch = patch + rng.normal(0, rng.uniform(1, 6), patch.shape)
    out = np.clip(patch, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        out = cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(55, 95))])[1],
                           cv2.IMREAD_COLOR)
    j = rng.normal(0, jitter, 4) * np.array([w, h, w, h])
    return crop(out, (b[0] + j[0], b[1] + j[1], b[2] + j[2], b[3] + j[3]))


def augmented_crops(cards: dict[str, np.ndarray], boxes: dict[str, tuple], per_corner: int,
                    rng: np.random.Generator, negatives: int = 8) -> tuple[list[np.ndarray], np.ndarray]:
    """Classifier crops of every card's two indices, each seen upright and
    upside down (a card lies either way), ``per_corner`` variants each, and
    ``negatives`` crops a card of its body (pips, pictures: label NONE)."""
    crops, labels = [], []
    for code, card in cards.items():
        label = LABELS.index(code)
        h, w = card.shape[:2]
        turned = cv2.rotate(card, cv2.ROTATE_180)
        tl = boxes[code]
        for img in (card, turned):
            for fb in (tl, _mirror(tl)):
                px = (fb[0] * w, fb[1] * h, fb[2] * w, fb[3] * h)
                for _ in range(per_corner):
                    crops.append(_variant(img, px, rng))
                    labels.append(label)
        bw, bh = tl[2] - tl[0], tl[3] - tl[1]
        made = 0
        while made < negatives:
            fx, fy = rng.uniform(0, 1 - bw), rng.uniform(0, 1 - bh)
            fb = (fx, fy, fx + bw, fy + bh)
            if max(_iou(fb, tl), _iou(fb, _mirror(tl))) > 0.05:
                continue
            img = card if rng.random() < 0.5 else turned
            crops.append(_variant(img, (fb[0] * w, fb[1] * h, fb[2] * w, fb[3] * h), rng))
            labels.append(NONE)
            made += 1
    return crops, np.array(labels, np.int64)


def row_scenes(cards: dict[str, np.ndarray], boxes: dict[str, tuple], scenes: int,
               rng: np.random.Generator, tight: float = 0.2) -> tuple[list[np.ndarray], list[list], list[list[str]]]:
    """Rows of this deck's rectified cards laid as on a table: the deck's
    cards 2-8 in a row on a dark cloth (a 640 x 448 zone, cards 85-140 px
    wide, each covering 20-110 % of the last, a quarter upside down, a
    little turned).  Returns the pictures, each one's index boxes
    ``(code, box, share in view)`` and each one's play (its cards left to
    right, as a zone read names them).  ``tight``: the least share of a
    card's width left in view by the next one."""
    W, H = 640, 448
    codes = list(cards)
    pictures, truths, plays = [], [], []
    for _ in range(scenes):
        img = np.empty((H, W, 3), np.float32)
        img[:] = rng.uniform(15, 90, 3)
        img += rng.normal(0, 4, (H, W, 1))
        top = np.full((H, W), -1, np.int32)
        n = int(rng.integers(2, 9))
        cw = rng.uniform(85, 140)
        spacing = rng.uniform(tight, 1.1)
        cw = min(cw, 0.94 * W / (1 + (n - 1) * spacing))
        row_angle = rng.normal(0, 4)
        x = rng.uniform(0.03 * W, max(0.03 * W, 0.97 * W - cw * (1 + (n - 1) * spacing)))
        y = rng.uniform(0.2 * H + 0.7 * cw, max(0.2 * H + 0.7 * cw, 0.8 * H - 0.7 * cw))
        idx_boxes = []            # (label, corners of the index in the picture)
        for k in range(n):
            code = codes[int(rng.integers(len(codes)))]
            card = cards[code]
            ch, cwid = card.shape[:2]
            s = cw / cwid
            angle = row_angle + rng.normal(0, 1.5) + (180 if rng.random() < 0.25 else 0)
            cx = x + cw / 2 + k * cw * spacing * np.cos(np.radians(row_angle))
            cy = y + k * cw * spacing * np.sin(np.radians(row_angle)) + rng.normal(0, 3)
            M = cv2.getRotationMatrix2D((cwid / 2, ch / 2), -angle, s)
            M[0, 2] += cx - cwid / 2
            M[1, 2] += cy - ch / 2
            alpha = cv2.warpAffine(np.full((ch, cwid), 255, np.uint8), M, (W, H), flags=cv2.INTER_LINEAR)
            warped = cv2.warpAffine(card, M, (W, H), flags=cv2.INTER_AREA)
            a = alpha.astype(np.float32)[:, :, None] / 255
            img = img * (1 - a) + warped.astype(np.float32) * a
            top[alpha > 127] = k
            for fb in (boxes[code], _mirror(boxes[code])):
                pts = np.float32([[fb[0] * cwid, fb[1] * ch, 1], [fb[2] * cwid, fb[1] * ch, 1],
                                  [fb[2] * cwid, fb[3] * ch, 1], [fb[0] * cwid, fb[3] * ch, 1]]) @ M.T
                idx_boxes.append((code, k, pts))
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.0)) + rng.normal(0, rng.uniform(1, 5), img.shape)
        pic = np.clip(img * rng.uniform(0.7, 1.2), 0, 255).astype(np.uint8)
        truth = []
        for code, k, pts in idx_boxes:
            box = (pts[:, 0].min(), pts[:, 1].min(), pts[:, 0].max(), pts[:, 1].max())
            xs = np.clip(np.linspace(box[0], box[2], 5)[1:-1].astype(int), 0, W - 1)
            ys = np.clip(np.linspace(box[1], box[3], 5)[1:-1].astype(int), 0, H - 1)
            shown = float(np.mean(top[np.ix_(ys, xs)] == k))
            truth.append((code, box, shown))
        pictures.append(pic)
        truths.append(truth)
        plays.append([code for code, k, _ in idx_boxes[::2]])
    return pictures, truths, plays


def scene_crops(detector, cards: dict[str, np.ndarray], boxes: dict[str, tuple], scenes: int,
                rng: np.random.Generator) -> tuple[list[np.ndarray], np.ndarray]:
    """Crops of the boxes the detector finds on rows of this deck's cards, as
    the classifier meets them at a table: the deck's rectified cards laid
    2-8 in a row on a dark cloth (a 640 x 448 zone, cards 85-140 px wide,
    each covering 20-110 % of the last, a quarter upside down, a little
    turned), read by the detector as a table reads a zone.  A box on an
    index in view takes that card's label; a box on no index (a pip, a
    picture, a card's edge) is ``NONE``: the deck's own false alarms, which
    the shipped head knew to throw out on the decks it was trained on."""
    W = 640
    pictures, truths, _ = row_scenes(cards, boxes, scenes, rng)
    found = detector.find_boxes_many(pictures, scale=detector.imgsz / W)
    crops, labels = [], []
    for pic, truth, dets in zip(pictures, truths, found):
        for d in dets:
            if d.name == "HAND":
                continue
            best = max(truth, key=lambda t: _iou(d.box, t[1]))
            iou = _iou(d.box, best[1])
            if iou >= 0.4 and best[2] >= 0.7:
                label = LABELS.index(best[0])
            elif max(_iou(d.box, t[1]) for t in truth) < 0.1:
                label = NONE
            else:
                continue            # half on an index, or on a covered one: no clear answer
            crops.append(crop(pic, d.box))
            labels.append(label)
    return crops, np.array(labels, np.int64)


# -- the profile's own confidence calibration ------------------------------------

def fit_calibration(detector, profile: DeckProfile, cards: dict[str, np.ndarray], boxes: dict[str, tuple],
                    rows: int, rng: np.random.Generator, log=None, batch: int = 25) -> dict:
    """The profile's own confidence calibration (a
    :class:`vision.reading.confidence.Calibration` document): ``rows`` rows
    of the deck's cards (:func:`row_scenes`, other draws than the head's
    rows: none of them gave the head a crop; only rows where every card
    shows an index, as players leave them) read as a table reads a zone,
    with this profile, and the same isotonic + Laplace curve as the
    shipped one (:func:`vision.reading.confidence.fit_curves`) fitted to
    "read exactly" on the raw score.  ``log`` hears the progress."""
    from vision.reading.confidence import SIZE_GROUPS, calibration_for_model, fit_curves, read_right

    say = log or (lambda msg: None)
    clf = detector.classifier
    # as players lay a row, every index in view: the next card leaves the index's width and a bit
    # (the scene generator's rule, vision.training.synth)
    tight = max(0.2, max(b[2] for b in boxes.values()) + 0.03)
    kept, recs, drawn = clf.deck, [], 0
    clf.use_deck(profile)
    try:
        while len(recs) < rows and drawn < 4 * rows:
            pictures, truths, plays = row_scenes(cards, boxes, batch, rng, tight)
            drawn += batch
            # a play whose every card shows an index (players leave them in view):
            # a row whose next card hides one says nothing of the reading
            seen = [i for i, t in enumerate(truths)
                    if all(max(a[2], b[2]) >= 0.7 for a, b in zip(t[::2], t[1::2]))][:rows - len(recs)]
            reads = detector.read_zones([pictures[i] for i in seen], detector.imgsz / 640, 0)
            recs += [{"raw": round(r.confidence, 5), "read": r.names, "exact": read_right(r.names, plays[i])}
                     for r, i in zip(reads, seen)]
            say(f"confidence calibration: {len(recs)} of {rows} held-back rows read with the profile "
                f"({sum(r['exact'] for r in recs)} exactly)")
    finally:
        clf.deck = kept
    rows = len(recs)
    exact = sum(r["exact"] for r in recs)
    curves = fit_curves(recs)
    # The rows are read well: their lowest score is far above the lowest a
    # table meets, and a curve is flat beyond its ends, so a weak read would
    # take the rows' lowest probability.  Below the rows' scores the shipped
    # curve (measured on 2,000 plays, weak reads among them) stands instead,
    # never above the deck curve's first value: the curve still rises.
    shipped = calibration_for_model(detector.model_path, clf.model_path)
    for name, curve in curves.items():
        sx, sp = shipped.curves.get(name, next(iter(shipped.curves.values())))
        low = [(float(x), min(float(p), curve["p"][0])) for x, p in zip(sx, sp) if x < curve["x"][0]]
        curve["x"] = [round(x, 5) for x, _ in low] + curve["x"]
        curve["p"] = [round(p, 5) for _, p in low] + curve["p"]
        curve["plays"] = [0] * len(low) + curve["plays"]
    return {
        "what": "P(a play is read exactly, every card in order) from its raw score (the weakest "
                "card's confidence) with this deck profile; numpy.interp over the knots, flat beyond the ends",
        "method": "isotonic regression (scipy.optimize.isotonic_regression), one knot per block, "
                  "Laplace estimate per block (vision.reading.confidence.fit_curves)",
        "data": f"{rows} rows of 2-8 of the deck's enrolled cards laid by the enrollment "
                f"(vision.reading.enroll.row_scenes; {drawn} drawn, those where every card shows an index "
                f"kept), held back from the head, read with this profile; "
                f"below the rows' lowest score the shipped curve's knots (plays 0), capped at the deck's first value",
        "plays": rows, "exact": int(exact),
        "size_groups": [{"name": n, "min_cards": lo, "max_cards": hi} for n, lo, hi in SIZE_GROUPS],
        "curves": curves,
    }


# -- the head ------------------------------------------------------------------

def shipped_head(features: np.ndarray, logits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The shipped last layer (weight, bias), recovered from crops' features
    and logits (the layer is linear: least squares gives it back exactly on
    the features' span, no ONNX parsing needed)."""
    A = np.hstack([features, np.ones((len(features), 1), np.float32)]).astype(np.float64)
    sol, *_ = np.linalg.lstsq(A, logits.astype(np.float64), rcond=None)
    return sol[:-1].T.astype(np.float32), sol[-1].astype(np.float32)


def fit_head(features: np.ndarray, labels: np.ndarray, w0: np.ndarray, b0: np.ndarray,
             l2: float = 1e-3, steps: int = 300, lr: float = 0.01) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression on the features, from the shipped
    layer (``w0``, ``b0``) and pulled back to it by ``l2`` (labels the deck's
    crops never show, NONE's other false boxes, keep the shipped answers);
    full-batch Adam in numpy."""
    W, b = w0.astype(np.float64).copy(), b0.astype(np.float64).copy()
    X = features.astype(np.float64)
    Y = np.zeros((len(X), W.shape[0]))
    Y[np.arange(len(X)), labels] = 1
    m = [np.zeros_like(W), np.zeros_like(b)]
    v = [np.zeros_like(W), np.zeros_like(b)]
    for t in range(1, steps + 1):
        P = softmax(X @ W.T + b)
        G = (P - Y) / len(X)
        grads = [G.T @ X + l2 * (W - w0), G.sum(axis=0)]
        for k, (p, g) in enumerate(zip((W, b), grads)):
            m[k] = 0.9 * m[k] + 0.1 * g
            v[k] = 0.999 * v[k] + 0.001 * g * g
            p -= lr * (m[k] / (1 - 0.9 ** t)) / (np.sqrt(v[k] / (1 - 0.999 ** t)) + 1e-8)
    return W.astype(np.float32), b.astype(np.float32)


def prototype_head(features: np.ndarray, labels: np.ndarray, w0: np.ndarray,
                   b0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest class mean as a linear layer: logit_c = (e . mu_c - |mu_c|^2 / 2) / tau,
    tau the mean squared distance to the own mean; labels without crops keep the shipped row."""
    W, b = w0.copy(), b0.copy()
    means = {c: features[labels == c].mean(axis=0) for c in np.unique(labels)}
    tau = float(np.mean([np.sum((features[labels == c] - mu) ** 2, axis=1).mean() for c, mu in means.items()]))
    tau = max(tau, 1e-6) / 8
    for c, mu in means.items():
        W[c] = mu / tau
        b[c] = -float(mu @ mu) / (2 * tau)
    return W.astype(np.float32), b.astype(np.float32)


@dataclass
class EnrollResult:
    profile: DeckProfile
    seconds: float
    crops: int
    check_shipped: float            # share of check crops the head before enrollment names right (start's if given)
    check_deck: float               # the same with the profile
    cpu_seconds: float = 0.0        # processor time (all threads), for a figure a busy machine does not inflate


def enroll(detector, cards: dict[str, np.ndarray], deck_name: str = "", per_corner: int = 24,
           head: str = "logistic", blend: float = 1.0, seed: int = 0, negatives: int = 8,
           scenes: int = 200, none_gate: bool = True, calibration_rows: int = 400, log=None,
           start: DeckProfile | None = None) -> EnrollResult:
    """Fit a deck profile on rectified cards (:func:`cards_from_photos`).

    ``detector``: a :class:`vision.reading.detector.CardDetector` (its
    detector finds the indices, its classifier gives the features).
    ``head``: ``logistic`` (:func:`fit_head`) or ``prototypes``
    (:func:`prototype_head`); ``blend``: the deck head's share
    (:class:`DeckProfile`); ``negatives``: crops a card of its body (NONE);
    ``scenes``: rows of the deck's cards whose detector boxes are cropped
    too (:func:`scene_crops`); ``none_gate``: whether a crop is an index at
    all stays the shipped head's answer (:class:`DeckProfile`), the deck's
    head names the face.  A separate set of variants (other draws) checks
    the result: ``check_shipped`` and ``check_deck`` in the result.
    ``calibration_rows``: rows of the deck's cards held back from the head
    and read with the new profile to fit its own confidence calibration
    (:func:`fit_calibration`; 0: none, the table then applies the shipped
    curve to the profile's scores).
    ``start``: a profile whose head the deck's is fitted from and pulled back
    to instead of the shipped one, its NONE gate kept (a shipped profile such
    as ``hanzi-jokers``: the shipped head, and its NONE, call most 小王
    corners no index, so a deck printing them enrolled from it reads its
    jokers worse than that profile alone; models/MODEL_CARD.md, "A shipped
    profile for 大王 and 小王").  It must be made for ``detector``'s classifier.
    """
    t0, c0 = time.perf_counter(), time.process_time()
    say = log or (lambda msg: None)
    clf = detector.classifier
    if start is not None and start.classifier_sha256 != file_sha256(clf.model_path):
        raise DeckProfileError(f"deck profile {start.name} was made for another index classifier than "
                               f"{clf.model_path}: it cannot be enrolled from")
    boxes, usual, seen = index_boxes(detector, cards)
    say(f"index boxes: the detector found them on {seen} of {len(cards)} cards; usual box "
        f"{', '.join(f'{v:.3f}' for v in usual)}")
    rng = np.random.default_rng([seed, 1])
    crops, y = augmented_crops(cards, boxes, per_corner, rng, negatives)
    if scenes:
        more, ym = scene_crops(detector, cards, boxes, scenes, np.random.default_rng([seed, 3]))
        say(f"{len(more)} crops of the detector's boxes on {scenes} rows of the deck's cards "
            f"({int((ym == NONE).sum())} on no index)")
        crops, y = crops + more, np.concatenate([y, ym])
    chk, yc = augmented_crops(cards, boxes, max(2, per_corner // 6), np.random.default_rng([seed, 2]))
    say(f"{len(crops)} crops to fit, {len(chk)} to check")
    z, f = _run(clf, crops)
    zc, fc = _run(clf, chk)
    w0, b0 = shipped_head(np.vstack([f, fc]), np.vstack([z, zc]))
    if start is not None:
        # the start's head as it reads: its share of its own layer, the rest the shipped one's
        w0 = start.blend * start.weight.astype(np.float64) + (1 - start.blend) * w0
        b0 = start.blend * start.bias.astype(np.float64) + (1 - start.blend) * b0
        none_gate = start.none_gate
    if head == "logistic":
        W, b = fit_head(f, y, w0, b0)
    elif head == "prototypes":
        W, b = prototype_head(f, y, w0, b0)
    else:
        raise ValueError(f"unknown head {head!r}")
    profile = DeckProfile(W, b, blend, file_sha256(clf.model_path), none_gate=none_gate)
    before = float(((start.logits(zc, fc) if start is not None else zc).argmax(1) == yc).mean())
    after = float((profile.logits(zc, fc).argmax(1) == yc).mean())
    if calibration_rows:
        profile.calibration = fit_calibration(detector, profile, cards, boxes, calibration_rows,
                                              np.random.default_rng([seed, 4, 4]), say)
        say("confidence calibration of the profile: raw score " + ", ".join(
            f"{x:.3f} -> {p:.3f}" for x, p in zip(*(next(iter(profile.calibration["curves"].values()))[k] for k in "xp"))))
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    profile.meta = {"deck": deck_name, "made": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "head": head, "blend": blend, "none_gate": none_gate,
                    **({"start": start.name} if start is not None else {}),
                    "cards": len(cards), "crops": len(crops), "index_box": list(usual),
                    "detector_found_index": seen, "check_crops": len(chk),
                    "check_shipped": round(before, 4), "check_deck": round(after, 4),
                    "calibration_rows": calibration_rows,
                    "calibration_rows_exact": profile.calibration["exact"] if profile.calibration else None,
                    "seconds": round(seconds, 1), "cpu_seconds": round(cpu, 1),
                    "classifier": Path(clf.model_path).name}
    say(f"check crops named right: {'shipped' if start is None else start.name} {before:.3f}, "
        f"with the profile {after:.3f}")
    return EnrollResult(profile, seconds, len(crops), before, after, cpu)


def _run(clf, crops: list[np.ndarray], batch: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """Logits and features of many crops, in batches."""
    zs, fs = [], []
    for k in range(0, len(crops), batch):
        z, f = clf.logits_and_features(crops[k:k + batch])
        zs.append(z)
        fs.append(f)
    return np.vstack(zs), np.vstack(fs)
