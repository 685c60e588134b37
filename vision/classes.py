"""The detector's classes: the 54 card faces in project notation, then a hand.

The model labels the *corner index* of a card (rank and suit printed in the
corner), one class per card face.  Class 54 marks a hand or fingers over the
zone, so the tracker can hold back while a player is still laying cards.

>>> CLASS_NAMES[0], CLASS_NAMES[12], CLASS_NAMES[52], CLASS_NAMES[53]
('S2', 'SA', 'BJ', 'LJ')
>>> class_id('HT'), CLASS_NAMES[HAND_CLASS]
(21, 'HAND')
>>> len(CARD_NAMES)
54
"""

from __future__ import annotations

SUITS = "SHDC"
RANKS = "23456789TJQKA"

CARD_NAMES: tuple[str, ...] = tuple(s + r for s in SUITS for r in RANKS) + ("BJ", "LJ")
HAND_CLASS = len(CARD_NAMES)
CLASS_NAMES: tuple[str, ...] = CARD_NAMES + ("HAND",)

# The detector's own classes: it only finds corner indices and hands; the
# index classifier (vision.index_classifier) names each index.
DETECTOR_NAMES: tuple[str, ...] = ("INDEX", "HAND")

_INDEX = {name: i for i, name in enumerate(CLASS_NAMES)}


def class_id(name: str) -> int:
    """The class number of a card code such as ``'S5'`` (``KeyError`` if unknown)."""
    return _INDEX[name]
