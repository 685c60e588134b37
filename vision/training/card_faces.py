"""Single card faces of many real decks, for measuring the reader only.

The set: the "Cards Image Dataset-Classification" (Kaggle,
``gpiosenka/cards-image-datasetclassification``; its page states CC0 1.0),
as copied with its ``cards.csv`` into
``hiroonwijekoon/pytorch-cnn-playing-cards-classifier`` (commit fd36c16,
folder ``dataset``; that repository carries no licence of its own).  8,154
pictures of one card face each, cut to the card and squeezed to 224x224,
in folders by face (``ace of clubs`` ... ``two of spades``, ``joker``): a
few hundred decks, from plain casino faces to art decks, with pictures of
cards on tables, in hands and on paper.  The jokers are one folder (the
set does not tell the big one from the little one).

The pictures were gathered from the web by the set's author (some carry a
stock-photo mark), so the set is used for measuring only: never trained or
tuned on, and none of it is copied into this repository.  Build the folder
once (``ROOT``)::

    git -C faces-repo archive fd36c16 dataset | tar x -C ROOT/faces

:func:`face_pictures` lists a split's pictures with their faces;
:func:`zone_picture` lays one as the camera would see it: the card back to
its own shape (63 x 88 mm), at the zone pictures' scale, turned by a given
angle, on a real table surface.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.training.real_crops import CARD_PX      # a card's width in a zone picture

SOURCE = ("hiroonwijekoon/pytorch-cnn-playing-cards-classifier", "fd36c16",
          "CC0 1.0 as stated on Kaggle (gpiosenka/cards-image-datasetclassification); measured only")
SPLITS = ("train", "valid", "test")
JOKER = "JOKER"                    # the set's joker folder: a big or a little joker
CARD_MM = (63.0, 88.0)
_RANKS = {"ace": "A", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
          "eight": "8", "nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K"}
_SUITS = {"spades": "S", "hearts": "H", "diamonds": "D", "clubs": "C"}


class CardFacesError(Exception):
    """The folder is missing or not as the module's recipe builds it."""


@dataclass(frozen=True)
class FacePicture:
    """One picture of one card face: where it is, and the face (a card code, or :data:`JOKER`)."""

    path: Path
    face: str


def face_code(folder: str) -> str:
    """The card code of one of the set's folder names.

    >>> face_code("ten of hearts"), face_code("ace of spades"), face_code("joker")
    ('HT', 'SA', 'JOKER')
    >>> face_code("knight of cups")
    Traceback (most recent call last):
    ...
    vision.training.card_faces.CardFacesError: not a card face folder: 'knight of cups'
    """
    if folder == "joker":
        return JOKER
    rank, of, suit = (folder.split(" ") + ["", "", ""])[:3]
    if of != "of" or rank not in _RANKS or suit not in _SUITS:
        raise CardFacesError(f"not a card face folder: {folder!r}")
    return _SUITS[suit] + _RANKS[rank]


def face_pictures(root: Path, split: str) -> list[FacePicture]:
    """The pictures of one split (``train``, ``valid`` or ``test``), by folder and name."""
    if split not in SPLITS:
        raise CardFacesError(f"unknown split {split!r} (one of {', '.join(SPLITS)})")
    folder = Path(root) / "faces" / "dataset" / split
    if not folder.is_dir():
        raise CardFacesError(f"{folder} not found (vision/training/card_faces.py says how to build it)")
    out = [FacePicture(p, face_code(d.name)) for d in sorted(folder.iterdir()) if d.is_dir()
           for p in sorted(d.iterdir()) if p.suffix.lower() in (".jpg", ".jpeg", ".png")]
    if not out:
        raise CardFacesError(f"no pictures in {folder}")
    return out


WHITE_STOCK = (170, 40)    # a white card: its edge's median brightness at least, saturation at most (0-255)


def white_stock(face: np.ndarray) -> bool:
    """Whether ``face`` (a picture cut to the card, BGR) is printed on white
    card stock, as tournament decks are, told by the ring along its edge (6 %
    of its height wide): bright and grey.  The set's art decks (aged paper,
    black, purple or gold stock) are not.  A rule of thumb for splitting the
    figures, checked by eye on 64 pictures, not a label.

    >>> white_stock(np.full((224, 224, 3), 235, np.uint8)), white_stock(np.full((224, 224, 3), 30, np.uint8))
    (True, False)
    >>> aged = np.zeros((224, 224, 3), np.uint8); aged[:] = (120, 190, 220)     # yellowed paper
    >>> white_stock(aged)
    False
    """
    h = face.shape[0]
    r = max(1, int(0.06 * h))
    ring = np.concatenate([face[:r].reshape(-1, 3), face[-r:].reshape(-1, 3),
                           face[:, :r].reshape(-1, 3), face[:, -r:].reshape(-1, 3)])
    hsv = cv2.cvtColor(ring[None], cv2.COLOR_BGR2HSV)[0]
    return bool(np.median(hsv[:, 2]) >= WHITE_STOCK[0] and np.median(hsv[:, 1]) <= WHITE_STOCK[1])


def zone_picture(face: np.ndarray, surface: np.ndarray, angle: float = 0.0) -> np.ndarray:
    """``face`` (a picture cut to the card, any shape) laid in the middle of
    ``surface`` (a zone picture, BGR), as wide as a card in a zone picture
    and as tall as the card's shape makes it, turned ``angle`` degrees
    (anticlockwise as the picture is drawn): :func:`play_picture` of one card.

    >>> face = np.full((224, 224, 3), 255, np.uint8)
    >>> pic = zone_picture(face, np.zeros((448, 640, 3), np.uint8))
    >>> ys, xs = np.nonzero(pic[..., 0])
    >>> int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)
    (134, 188)
    """
    return play_picture([face], surface, angle)


class PlayDoesNotFit(CardFacesError):
    """The cards laid so reach past the picture's edge."""


def play_picture(faces: list[np.ndarray], surface: np.ndarray, angle: float = 0.0, step: float = 1.1,
                 own: list[float] | None = None, steps: list[float] | None = None) -> np.ndarray:
    """``faces`` (pictures cut to the card, left to right) laid as one play
    in the middle of ``surface``, each card ``step`` card widths right of
    the last and laid over it (under 1: a fan, each card showing the strip
    of the last that its index is printed in; over 1: a row with gaps), each
    turned ``own[i]`` degrees about its middle (a card pushed in a little
    crooked), the whole play turned ``angle`` degrees (anticlockwise as the
    picture is drawn).  ``steps``: each card's own distance from the last
    (card widths, one fewer than ``faces``), instead of ``step`` for all (a
    fan spread unevenly by hand).  Raises :class:`PlayDoesNotFit` where a
    card would reach past the picture's edge.

    >>> white = np.full((224, 224, 3), 255, np.uint8)
    >>> pic = play_picture([white, white], np.zeros((448, 640, 3), np.uint8), step=0.5)
    >>> ys, xs = np.nonzero(pic[..., 0])
    >>> int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)      # one and a half cards wide
    (202, 188)
    >>> pic = play_picture([white] * 3, np.zeros((448, 640, 3), np.uint8), steps=[0.3, 0.6])
    >>> ys, xs = np.nonzero(pic[..., 0])
    >>> int(xs.max() - xs.min() + 1)                                     # 1.9 cards wide
    254
    >>> play_picture([white] * 6, np.zeros((448, 640, 3), np.uint8), angle=40.0)
    Traceback (most recent call last):
    ...
    vision.training.card_faces.PlayDoesNotFit: 6 cards 1.1 card widths apart, turned 40 degrees, reach past the picture
    """
    if not faces or any(f.ndim != 3 or f.shape[2] != 3 for f in faces) or surface.ndim != 3 or surface.shape[2] != 3:
        raise CardFacesError("faces and surface must be BGR pictures, at least one face")
    own = list(own) if own is not None else [0.0] * len(faces)
    steps = list(steps) if steps is not None else [step] * (len(faces) - 1)
    if len(own) != len(faces) or len(steps) != len(faces) - 1 \
            or not all(np.isfinite(v) for v in (angle, step, *own, *steps)) or min([step, *steps]) <= 0:
        raise CardFacesError("one finite own turn a face, a finite angle and steps over 0, one fewer than the faces")
    offsets = np.concatenate([[0.0], np.cumsum(steps)])
    w, h = round(CARD_PX), round(CARD_PX * CARD_MM[1] / CARD_MM[0])
    sh, sw = surface.shape[:2]
    span = w * (1 + float(offsets[-1]))
    whole = cv2.getRotationMatrix2D((span / 2, h / 2), angle, 1.0)
    whole[:, 2] += (sw / 2 - span / 2, sh / 2 - h / 2)
    whole3 = np.vstack([whole, [0.0, 0.0, 1.0]])
    out = surface.copy()
    corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], float).T
    for i, (face, turn) in enumerate(zip(faces, own)):
        card = cv2.resize(face, (w, h), interpolation=cv2.INTER_AREA)
        mine = cv2.getRotationMatrix2D((w / 2, h / 2), turn, 1.0)
        mine[:, 2] += (float(offsets[i]) * w, 0.0)
        m = (whole3 @ np.vstack([mine, [0.0, 0.0, 1.0]]))[:2]
        at = m @ corners
        if at.min() < 0 or at[0].max() > sw or at[1].max() > sh:
            raise PlayDoesNotFit(f"{len(faces)} cards {step:g} card widths apart, turned {angle:g} degrees, "
                                 "reach past the picture")
        laid = cv2.warpAffine(card, m, (sw, sh), flags=cv2.INTER_LINEAR)
        mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, (sw, sh))
        out = np.where(mask[..., None] > 127, laid, out)
    return out

