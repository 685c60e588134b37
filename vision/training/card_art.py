"""Card artwork for synthetic training data, rendered from Debian's vector decks.

The decks come from the ``gnome-cards-data`` package
(``/usr/share/aisleriot/cards/*.svgz``, GPL/LGPL/public-domain artwork, see
``/usr/share/doc/gnome-cards-data/copyright``) and, never trained on, from
KDE's ``kdegames-card-data-kf5`` (``/usr/share/carddecks``, GPL-2+/LGPL/GPL-3+
artwork, see ``/usr/share/doc/kdegames-card-data-kf5/copyright``:
:data:`UNSEEN_DECKS`).  Nothing is committed: each deck is rendered once
with ``rsvg-convert`` (package ``librsvg2-bin``) into a cache folder outside
git and cut into cards.

Every deck sheet lays the cards on a 13 x 5 grid: rows clubs, diamonds,
hearts, spades (ace first), then the black joker, the red joker and the back.
In Guandan the coloured joker is the big one (大王, ``BJ``) and the black one
the little one (小王, ``LJ``).

>>> deck = load_deck("anglo")                        # doctest: +SKIP
>>> deck.cards["S5"].shape[2], deck.index_box        # doctest: +SKIP
(4, (0.03, 0.02, 0.15, 0.27))
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from storage.files import replaced_when_complete

DECK_DIR = Path("/usr/share/aisleriot/cards")

# Decks whose corner indices use the common A 2-10 J Q K letters (the ones
# Guandan players use).  Decks with French/Russian letters, German suits or
# four-colour suits are left out.
STANDARD_DECKS = (
    "anglo", "anglo_bitmap", "anglo_modern", "anglo_poker", "atlasnye", "bellot",
    "dondorf", "gnomangelo", "gnomangelo_bitmap", "neoclassical", "ornamental",
    "paris", "plastic", "simplistic", "tango", "tigullio",
)
# Decks whose two jokers look the same: their jokers are never drawn.
NO_JOKER_DECKS = ("dondorf",)
# Where the automatic measure (below) is fooled by the artwork, measured by eye.
INDEX_BOX_OVERRIDES = {
    "ornamental": (0.03, 0.03, 0.27, 0.37),
    "pysol-nicu": (0.03, 0.04, 0.27, 0.34),      # (large indices, a frame beside them)
    "pysol-spaced": (0.035, 0.03, 0.26, 0.355),  # (a pip beside the rank)
    "pysol-sylly": (0.065, 0.06, 0.27, 0.40),
    "tango": (0.015, 0.015, 0.2, 0.26),
}
# Kept out of training so the benchmark measures decks the model never saw.
HELD_OUT_DECKS = ("paris", "tigullio")
TRAIN_DECKS = tuple(d for d in STANDARD_DECKS if d not in HELD_OUT_DECKS)

KDE_DECK_DIR = Path("/usr/share/carddecks")
# KDE's decks that GNOME's do not also ship (paris, tigullio, dondorf and
# ornamental are in both; nicu-white is ornamental's indices and courts without
# its frame), with the common indices top-left: a second set of decks no model
# here was trained on, each drawn by another hand.  Left out: the oxygen decks
# (rank top-right, suit top-left), future (not card faces), konqi-modern
# (72 x 96 px bitmaps), the xskat decks (no page size; German suits),
# ancient-egyptians (a corner shows the rank alone, the suit only on the pips).
KDE_DECKS = {
    "kde-standard": "svg-standard",
    "kde-penguins": "svg-penguins",
    "kde-jolly-royal": "svg-jolly-royal",
}
# None of them draws jokers under KDE's names: their plays hold none.
UNSEEN_DECKS = tuple(KDE_DECKS)

# PySolFC's card sets (github.com/shlomif/PySolFC-Cardsets, release 3.1,
# commit 6d382152; each set's COPYRIGHT file gives its licence): bitmaps of
# many more hands' decks, for the index classifier's crops only (``--decks``
# of :mod:`vision.training.index_classifier`); the sets have no jokers: the
# crops' scenes draw a pair on each set's stock
# (:func:`vision.training.joker_art.with_drawn_jokers`).  Kept: French suits in two
# colours, the rank and suit in the top-left corner, cards at least 71 px
# wide, under the GPL (2 or later) or CC0 / CC BY-SA.  Left out: decks
# also shipped by GNOME or KDE (paris and penguins are held out for
# measuring) or by another set here (cardmage is standard's art, gdkcard-bonded
# xpat2's), historical decks with a corner pip and a rank at the top's
# middle, corners with a rank but no suit (hard-a-port, india-pantheon,
# briscola) or the suit far from it (z-minimal), four-colour decks, an index
# top-right (kabale), sets without a stated licence.  Set ``GUANDAN_PYSOL_CARDSETS`` to the folder holding the
# ``cardset-*`` folders (``git archive`` of that commit).
PYSOL_DECKS = {
    "pysol-aisleriot": "cardset-aisleriot",            # GPL-2+
    "pysol-flying-high": "cardset-flying-high",        # GPL-2+ (pictures CC0): coloured stock
    "pysol-gpl": "cardset-gpl",                        # GPL-2+
    "pysol-me-uk": "cardset-me-uk",                    # CC0
    "pysol-neo": "cardset-neo",                        # CC BY-SA (the ace of spades' logo GPL-3)
    "pysol-nicu": "cardset-nicu",                      # GPL-2+
    "pysol-oxymoron": "cardset-oxymoron",              # GPL-2+
    "pysol-spaced": "cardset-spaced",                  # GPL-2+
    "pysol-standard": "cardset-standard",              # GPL-2+
    "pysol-sylly": "cardset-sylly",                    # CC0
    "pysol-warwick": "cardset-warwick",                # GPL-2+
    "pysol-xpat2": "cardset-xpat2-nox-large",          # GPL-2+
    "pysol-xskat-french": "cardset-xskat-french-large",  # GPL-2+: an index in all four corners
}
PYSOL_ENV = "GUANDAN_PYSOL_CARDSETS"
_PYSOL_RANKS = {r: f"{k + 1:02d}" for k, r in enumerate("A23456789TJQK")}   # 01 the ace, 13 the king
_KDE_RANKS = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
_KDE_SUITS = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}

_SHEET_ROWS = ("C", "D", "H", "S")          # grid rows of the sheet
_SHEET_RANKS = "A23456789TJQK"              # grid columns
CARD_WIDTH_PX = 240                         # rendered width of one card


class CardArtError(RuntimeError):
    """A deck could not be found or rendered (message says which and why)."""


@dataclass
class Deck:
    """One rendered deck: RGBA images by card code and where the index sits.

    ``index_box`` is ``(x0, y0, x1, y1)`` as fractions of the card's width and
    height: the rank-and-suit index in the top-left corner.  The bottom-right
    index is the same box turned half a turn about the card's centre.
    """

    name: str
    cards: dict[str, np.ndarray]
    index_box: tuple[float, float, float, float]
    back: np.ndarray | None = None


def default_cache_dir() -> Path:
    """``$GUANDAN_CARD_CACHE`` or ``~/.cache/guandan-referee/card-art``."""
    env = os.environ.get("GUANDAN_CARD_CACHE")
    if env:
        return Path(env)
    return Path.home() / ".cache" / "guandan-referee" / "card-art"


def _rsvg_convert() -> str:
    """The ``rsvg-convert`` program's path; :class:`CardArtError` where it is missing."""
    exe = shutil.which("rsvg-convert")
    if exe is None:
        raise CardArtError("rsvg-convert not found (apt-get install librsvg2-bin)")
    return exe


def _render_sheet(deck: str, out: Path) -> None:
    src = DECK_DIR / f"{deck}.svgz"
    if not src.exists():
        raise CardArtError(f"deck {deck!r} not found at {src} (apt-get install gnome-cards-data)")
    exe = _rsvg_convert()
    proc = subprocess.run([exe, "-w", str(CARD_WIDTH_PX * 13), str(src), "-o", str(out)],
                          capture_output=True, text=True)
    if proc.returncode != 0 or not out.exists() or out.stat().st_size == 0:
        raise CardArtError(f"rsvg-convert failed on {src}: {proc.stderr.strip()[:300]}")


def _kde_id(code: str) -> str:
    """The SVG element id of a card in KDE's decks.

    >>> _kde_id("HT"), _kde_id("SQ"), _kde_id("C7")
    ('10_heart', 'queen_spade', '7_club')
    """
    return f"{_KDE_RANKS.get(code[1], code[1])}_{_KDE_SUITS[code[0]]}"


def _render_kde_sheet(deck: str, out: Path) -> None:
    """A KDE deck drawn card by card (``rsvg-convert -i ID``) onto a sheet laid
    as GNOME's are, so :func:`load_deck` cuts both alike.  Its joker cells stay
    empty (the decks draw none) and the back goes in the third."""
    folder = KDE_DECK_DIR / KDE_DECKS[deck]
    found = sorted(folder.glob("*.svgz")) if folder.is_dir() else []
    if not found:
        raise CardArtError(f"deck {deck!r} not found in {folder} (apt-get install kdegames-card-data-kf5)")
    exe = _rsvg_convert()

    def element(cid: str, zoom: float) -> np.ndarray:
        # the element is drawn where it lies on the page: cut it to its ink
        proc = subprocess.run([exe, "-i", cid, "-z", f"{zoom:.6f}", str(found[0])], capture_output=True)
        img = cv2.imdecode(np.frombuffer(proc.stdout, np.uint8), cv2.IMREAD_UNCHANGED) if proc.stdout else None
        if proc.returncode != 0 or img is None or img.ndim != 3 or img.shape[2] != 4:
            raise CardArtError(f"rsvg-convert failed on {found[0]} #{cid}: {proc.stderr.decode()[:300]}")
        ys, xs = np.nonzero(img[:, :, 3] > 8)
        if len(xs) == 0:
            raise CardArtError(f"{found[0]} #{cid} draws nothing")
        return img[ys.min():ys.max() + 1, xs.min():xs.max() + 1]

    zoom = CARD_WIDTH_PX / element("1_spade", 1.0).shape[1]   # every card of a deck is one size
    faces = {(r, c): element(_kde_id(suit + rank), zoom)
             for r, suit in enumerate(_SHEET_ROWS) for c, rank in enumerate(_SHEET_RANKS)}
    faces[(4, 2)] = element("back", zoom)
    _write_sheet(faces, out)


def _write_sheet(faces: dict[tuple[int, int], np.ndarray], out: Path) -> None:
    """Cards drawn one by one (BGRA, by their (row, column) on the sheet)
    laid on a 13 x 5 sheet as GNOME's are, each centred in its cell, written to ``out``."""
    ch = max(f.shape[0] for f in faces.values()) + 8
    cw = max(f.shape[1] for f in faces.values()) + 8
    sheet = np.zeros((5 * ch, 13 * cw, 4), np.uint8)
    for (r, c), face in faces.items():
        y, x = r * ch + (ch - face.shape[0]) // 2, c * cw + (cw - face.shape[1]) // 2
        sheet[y:y + face.shape[0], x:x + face.shape[1]] = face
    if not cv2.imwrite(str(out), sheet):
        raise CardArtError(f"cannot write {out}")


def _pysol_ext(folder: Path) -> str:
    """The file ending of a PySolFC set's bitmaps, as its ``config.txt`` names it (``.gif``, ``.png``)."""
    return (folder / "config.txt").read_text(encoding="latin-1").splitlines()[0].split(";")[2]


def _pysol_bitmap(path: Path) -> np.ndarray:
    """One of a PySolFC set's bitmaps (a card or a back), BGRA at :data:`CARD_WIDTH_PX` wide."""
    from PIL import Image          # (GIF and PNG with their transparency; the train extra has Pillow)

    try:
        rgba = np.asarray(Image.open(path).convert("RGBA"))
    except OSError as exc:
        raise CardArtError(f"cannot read {path}: {exc}") from exc
    bgra = np.ascontiguousarray(rgba[:, :, [2, 1, 0, 3]])
    h, w = bgra.shape[:2]
    return cv2.resize(bgra, (CARD_WIDTH_PX, round(h * CARD_WIDTH_PX / w)), interpolation=cv2.INTER_CUBIC)


def _render_pysol_sheet(deck: str, out: Path) -> None:
    """A PySolFC card set (:data:`PYSOL_DECKS`: one bitmap a card, ``01h.gif``
    the ace of hearts) scaled to :data:`CARD_WIDTH_PX` wide onto a sheet laid
    as GNOME's are; its joker cells stay empty (the sets draw none)."""
    root = os.environ.get(PYSOL_ENV)
    folder = Path(root) / PYSOL_DECKS[deck] if root else None
    if folder is None or not (folder / "config.txt").is_file():
        raise CardArtError(f"deck {deck!r} not found: set {PYSOL_ENV} to the folder of PySolFC's cardset-* "
                           f"folders (vision/training/card_art.py says which commit)")
    ext = _pysol_ext(folder)
    faces = {(r, c): _pysol_bitmap(folder / f"{_PYSOL_RANKS[rank]}{suit.lower()}{ext}")
             for r, suit in enumerate(_SHEET_ROWS) for c, rank in enumerate(_SHEET_RANKS)}
    backs = sorted(folder.glob(f"back*{ext}"))
    if backs:
        faces[(4, 2)] = _pysol_bitmap(backs[0])
    _write_sheet(faces, out)


def pysol_backs() -> list[np.ndarray]:
    """Every card back that the sets of :data:`PYSOL_DECKS` print (85 at
    6d382152: most sets offer several), BGRA at :data:`CARD_WIDTH_PX` wide;
    none where ``$GUANDAN_PYSOL_CARDSETS`` is not set or a set is missing.
    Scenes with a card laid face down draw them
    (:class:`vision.training.synth.SceneGenerator`'s ``face_down``), and
    the GNOME decks' own backs stay unseen: the tests lay those.
    """
    root = os.environ.get(PYSOL_ENV)
    folders = [Path(root) / f for f in PYSOL_DECKS.values()] if root else []
    return [_pysol_bitmap(path) for folder in folders if (folder / "config.txt").is_file()
            for path in sorted(folder.glob(f"back*{_pysol_ext(folder)}"))]


def _cut(sheet: np.ndarray, row: int, col: int) -> np.ndarray:
    h, w = sheet.shape[:2]
    ch, cw = h / 5.0, w / 13.0
    cell = sheet[int(round(row * ch)):int(round((row + 1) * ch)),
                 int(round(col * cw)):int(round((col + 1) * cw))]
    ys, xs = np.nonzero(cell[:, :, 3] > 8)
    if len(xs) == 0:
        raise CardArtError(f"empty cell ({row}, {col}) in deck sheet")
    return np.ascontiguousarray(cell[ys.min():ys.max() + 1, xs.min():xs.max() + 1])


def _ink_box(card: np.ndarray, region: tuple[float, float, float, float],
             max_left: float) -> tuple[int, int, int, int] | None:
    """Bounding box of the ink blobs in a region of the card that start near its left edge."""
    h, w = card.shape[:2]
    x0, y0, x1, y1 = int(region[0] * w), int(region[1] * h), int(region[2] * w), int(region[3] * h)
    patch = card[y0:y1, x0:x1]
    rgb = patch[:, :, :3].astype(np.int16)
    paper = np.median(rgb.reshape(-1, 3), axis=0)
    ink = (np.abs(rgb - paper).max(axis=2) > 60) & (patch[:, :, 3] > 200)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    boxes = []
    for i in range(1, n):
        bx, by, bw, bh, area = stats[i]
        if area < 4 or bx + x0 > max_left * w:
            continue
        # the card's outline stroke and long frame lines are not the index
        if bw > 0.5 * (x1 - x0) or bh > 0.8 * (y1 - y0):
            continue
        boxes.append((bx + x0, by + y0, bx + bw + x0, by + bh + y0))
    if not boxes:
        return None
    b = np.array(boxes)
    return int(b[:, 0].min()), int(b[:, 1].min()), int(b[:, 2].max()), int(b[:, 3].max())


def _index_box(cards: dict[str, np.ndarray]) -> tuple[float, float, float, float]:
    """The deck's top-left index box, measured on its 2s and 10s (no pips near the corner).

    Jokers use the same box: whatever their corner shows (a star, the start
    of a vertical JOKER) in its colour is what tells the big one from the little.
    """
    found = []
    for suit in "SHDC":
        for rank in "2T":
            card = cards[suit + rank]
            box = _ink_box(card, (0.035, 0.02, 0.3, 0.4), max_left=0.16)
            if box is not None:
                h, w = card.shape[:2]
                found.append((box[0] / w, box[1] / h, box[2] / w, box[3] / h))
    if not found:
        return (0.03, 0.02, 0.17, 0.28)
    f = np.array(found)
    x0, y0 = np.median(f[:, 0]), np.median(f[:, 1])
    x1, y1 = np.max(f[:, 2]), np.median(f[:, 3])
    pad = 0.012
    return (max(0.0, x0 - pad), max(0.0, y0 - pad), min(0.45, x1 + pad), min(0.5, y1 + pad))


def _render_once(name: str, out: Path) -> None:
    """The deck's sheet rendered to ``out``, complete or not at all: into a
    temp file of this writer's own, then moved there at once.  Processes
    rendering one deck into one cache at once (two table nodes or a demo and
    the tests on a fresh machine) each get a whole sheet; they once shared a
    temp name, and one that found it moved away by another failed."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with replaced_when_complete(out) as tmp:
        (_render_kde_sheet if name in KDE_DECKS else _render_pysol_sheet if name in PYSOL_DECKS
         else _render_sheet)(name, tmp)


def load_deck(name: str, cache_dir: Path | None = None) -> Deck:
    """Render (once, cached) and cut one deck into its 54 faces."""
    cache = Path(cache_dir) if cache_dir else default_cache_dir()
    sheet_path = cache / f"{name}-{CARD_WIDTH_PX}.png"
    if not sheet_path.exists():
        _render_once(name, sheet_path)
    sheet = cv2.imread(str(sheet_path), cv2.IMREAD_UNCHANGED)
    if sheet is None or sheet.ndim != 3 or sheet.shape[2] != 4:
        raise CardArtError(f"cached sheet {sheet_path} is unreadable; delete it to re-render")
    cards: dict[str, np.ndarray] = {}
    for r, suit in enumerate(_SHEET_ROWS):
        for c, rank in enumerate(_SHEET_RANKS):
            cards[suit + rank] = _cut(sheet, r, c)
    if name not in NO_JOKER_DECKS and name not in KDE_DECKS and name not in PYSOL_DECKS:
        cards["LJ"] = _cut(sheet, 4, 0)   # black joker: little
        cards["BJ"] = _cut(sheet, 4, 1)   # coloured joker: big
    box = INDEX_BOX_OVERRIDES.get(name) or _index_box(cards)
    return Deck(name=name, cards=cards, index_box=box, back=_cut(sheet, 4, 2))


def four_corner_deck(deck: Deck) -> Deck:
    """``deck`` printed with an index in all four corners, as many real decks
    are: the top-left index copied, upright, into the top-right corner and
    the turned bottom-right one into the bottom-left (what lay there is
    painted over).  The labels stay the two corners the generator knows;
    the reader must count such a card once.

    >>> card = np.zeros((20, 20, 4), np.uint8)
    >>> card[2:6, 2:6], card[14:18, 14:18] = 9, 7          # the two indices
    >>> four = four_corner_deck(Deck("t", {"S5": card}, (0.1, 0.1, 0.3, 0.3))).cards["S5"][..., 0]
    >>> int(four[2:6, 14:18].min()), int(four[14:18, 2:6].min()), int(four[7:13].max())
    (9, 7, 0)
    """
    x0f, y0f, x1f, y1f = deck.index_box
    out = {}
    for code, img in deck.cards.items():
        h, w = img.shape[:2]
        x0, y0, x1, y1 = round(x0f * w), round(y0f * h), round(x1f * w), round(y1f * h)
        card = img.copy()
        card[y0:y1, w - x1:w - x0] = img[y0:y1, x0:x1]                   # top-right: the top-left index
        card[h - y1:h - y0, x0:x1] = img[h - y1:h - y0, w - x1:w - x0]   # bottom-left: the bottom-right one
        out[code] = card
    return Deck(name=f"{deck.name}-four-corners", cards=out, index_box=deck.index_box, back=deck.back)


def outline_print(art: np.ndarray, width: float, black: bool) -> np.ndarray:
    """A card's artwork (RGBA) printed as a line drawing: pips and pictures
    as outlines on the card stock, thin strokes (letters) left whole.

    Many real decks are drawn this way (a plain card stock, every suit and
    court picture an outline, some with every line black); the training
    decks all fill their pips, and a classifier that never saw an outlined
    pip or court took them for a little joker.  Ink is whatever differs
    from the card stock; ink more than ``width`` px from the stock (the
    inside of a pip or a picture's fill) becomes card stock, and the
    borders between the picture's colours stay as lines.  ``black``: every
    line printed black, the red suits too.  The card's outline (alpha)
    stays as it was.

    >>> art = np.full((40, 40, 4), 255, np.uint8); art[10:30, 10:30, :3] = (40, 40, 200)
    >>> out = outline_print(art, 2, black=False)
    >>> int((out[:, :, :3].min(axis=2) < 128).sum()), out[20, 20, :3].tolist(), out[10, 20, :3].tolist()
    (144, [255, 255, 255], [40, 40, 200])
    >>> outline_print(art, 2, black=True)[10, 20, :3].tolist()
    [0, 0, 0]
    """
    if width <= 0:
        raise ValueError(f"width must be above 0 px, got {width}")
    rgb = art[:, :, :3].copy()
    inside = art[:, :, 3] >= 128
    light = inside & (rgb.astype(np.int16).sum(axis=2) >= 600)
    paper = np.median(rgb[light], axis=0) if light.any() else np.array([255, 255, 255])
    ink = (np.abs(rgb.astype(np.int16) - paper.astype(np.int16)).max(axis=2) > 60) & inside
    # distance to the nearest card stock: the inside of a fill lies far from it
    near = cv2.distanceTransform(ink.astype(np.uint8), cv2.DIST_L2, 3) <= width
    grey = cv2.cvtColor(rgb, cv2.COLOR_BGR2GRAY)
    # where one colour of a picture meets another: a drawing's inner lines
    seams = cv2.dilate(cv2.Canny(grey, 40, 120), np.ones((2, 2), np.uint8)) > 0
    line = ink & (near | seams)
    out = rgb.copy()
    out[inside & ~line] = paper.astype(np.uint8)
    if black:
        out[line] = 0
    return np.dstack([out, art[:, :, 3]])


def stock_tinted(art: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """A card's artwork (RGBA) printed on tinted card stock: cream, aged,
    grey or pastel paper, as art decks are (on the real card faces of a few
    hundred decks, half the cards on such stock read as nothing,
    models/MODEL_CARD.md, "Single cards of many real decks").  Ink on
    paper reflects the paper's colour times its own, so each colour
    channel is scaled by its gain (blue, green, red, each 0-1); the
    outline (alpha) stays.

    >>> art = np.full((4, 4, 4), 255, np.uint8); art[1, 1, :3] = (0, 0, 200)
    >>> out = stock_tinted(art, np.float32([0.8, 0.9, 1.0]))
    >>> out[0, 0].tolist(), out[1, 1].tolist()
    ([204, 230, 255, 255], [0, 0, 200, 255])
    >>> stock_tinted(art, np.float32([1.2, 1.0, 1.0]))
    Traceback (most recent call last):
    ...
    ValueError: stock gains must be 3 numbers from 0 to 1, got [1.2, 1.0, 1.0]
    """
    gains = np.asarray(gains, np.float32)
    if gains.shape != (3,) or not bool(np.all((gains >= 0) & (gains <= 1))):
        shown = [round(float(g), 3) for g in gains.ravel()]
        raise ValueError(f"stock gains must be 3 numbers from 0 to 1, got {shown}")
    rgb = np.clip(art[:, :, :3].astype(np.float32) * gains + 0.5, 0, 255).astype(np.uint8)
    return np.dstack([rgb, art[:, :, 3]])


def stock_gains(rng: np.random.Generator) -> np.ndarray:
    """Blue, green and red gains of a random tinted card stock
    (:func:`stock_tinted`): cream or aged paper (blue down most), grey, or
    a pastel of any hue, 5-35 % darker on the channel that drops most.

    >>> g = stock_gains(np.random.default_rng(3)); g.shape, bool(g.min() >= 0.6 and g.max() <= 1.0)
    ((3,), True)
    """
    k = float(rng.uniform(0.05, 0.35))
    kind = rng.random()
    if kind < 0.5:        # cream, ivory, aged: yellowish
        return np.float32([1 - k, 1 - k * rng.uniform(0.2, 0.5), 1 - k * rng.uniform(0.0, 0.15)])
    if kind < 0.7:        # grey
        return np.float32([1 - k] * 3)
    pastel = 1 - k * rng.random(3)     # any hue, the darkest channel 5-35 % down
    pastel[int(rng.integers(3))] = 1 - k
    return pastel.astype(np.float32)


def line_drawn_deck(deck: Deck, width: float = 2.0, black: bool = False) -> Deck:
    """``deck`` printed as a line drawing (:func:`outline_print`), its jokers
    as they were: a line-drawn deck's jokers are pictures of its own.

    >>> card = np.full((30, 20, 4), 255, np.uint8); card[5:25, 4:16, :3] = 0
    >>> drawn = line_drawn_deck(Deck("t", {"S5": card, "BJ": card}, (0.1, 0.1, 0.3, 0.3)))
    >>> drawn.name, int(drawn.cards["S5"][15, 10, 0]), int(drawn.cards["BJ"][15, 10, 0])
    ('t-line-drawn', 255, 0)
    """
    cards = {code: img if code in ("BJ", "LJ") else outline_print(img, width, black)
             for code, img in deck.cards.items()}
    return Deck(name=f"{deck.name}-line-drawn{'-black' if black else ''}", cards=cards,
                index_box=deck.index_box, back=deck.back)


def load_decks(names: tuple[str, ...] | list[str], cache_dir: Path | None = None) -> list[Deck]:
    """Several decks; names not installed raise :class:`CardArtError`."""
    return [load_deck(n, cache_dir) for n in names]


# every deck a name here can draw
KNOWN_DECKS = STANDARD_DECKS + tuple(KDE_DECKS) + tuple(PYSOL_DECKS)


def parse_deck_names(text: str, known: tuple[str, ...] = KNOWN_DECKS) -> tuple[str, ...]:
    """Comma-separated deck names, as a command line gives them, checked
    against ``known`` before any drawing starts; ``pysol`` stands for all of
    :data:`PYSOL_DECKS`, ``train`` for :data:`TRAIN_DECKS` (the default).

    >>> parse_deck_names("anglo, tango")
    ('anglo', 'tango')
    >>> len(parse_deck_names("pysol")) == len(PYSOL_DECKS)
    True
    >>> parse_deck_names("train,pysol") == TRAIN_DECKS + tuple(PYSOL_DECKS)
    True
    >>> parse_deck_names("anglo,nope", known=("anglo", "paris"))
    Traceback (most recent call last):
    ValueError: unknown deck 'nope' (known: anglo, paris)
    >>> parse_deck_names(" , ")
    Traceback (most recent call last):
    ValueError: no deck named (known: anglo, ...)
    """
    names: list[str] = []
    for n in (n.strip() for n in text.split(",")):
        if n == "pysol" and set(PYSOL_DECKS) <= set(known):
            names.extend(PYSOL_DECKS)
        elif n == "train" and set(TRAIN_DECKS) <= set(known):
            names.extend(TRAIN_DECKS)
        elif n and n not in known:
            raise ValueError(f"unknown deck {n!r} (known: {', '.join(known)})")
        elif n:
            names.append(n)
    if not names:
        raise ValueError(f"no deck named (known: {', '.join(known[:1])}, ...)")
    return tuple(names)


def deck_names_argument(known: tuple[str, ...] = KNOWN_DECKS) -> Callable[[str], tuple[str, ...]]:
    """:func:`parse_deck_names` against ``known`` as an argparse ``type``:
    its message shown as argparse shows its own (a plain ValueError would
    become "invalid value").

    >>> deck_names_argument(("anglo",))("anglo")
    ('anglo',)
    >>> deck_names_argument(("anglo",))("nope")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: unknown deck 'nope' (known: anglo)
    """
    def names(text: str) -> tuple[str, ...]:
        try:
            return parse_deck_names(text, known)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    return names
