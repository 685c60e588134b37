"""The models' classes: the 54 card faces in the referee's notation, then a hand.

The model labels the *corner index* of a card (rank and suit printed in the
corner), one class per card face.  Class 54 marks a hand or fingers over the
zone, so the tracker can hold back while a player is still laying cards.

The faces are the referee's (:mod:`referee.cards`: its suits, rank letters
and jokers), in the order the shipped models were trained with, which is
baked into them and must never change:

- 0-51: suits ``S H D C``, each with ranks ``2 3 4 5 6 7 8 9 T J Q K A``
  (``S2`` = 0, ``SA`` = 12, ``H2`` = 13, ..., ``CA`` = 51);
- 52 ``BJ`` (the big joker), 53 ``LJ`` (the little one): big first, where
  :data:`referee.cards.ALL_CARDS` lists the little one first;
- 54 ``HAND``.

>>> CLASS_NAMES[0], CLASS_NAMES[12], CLASS_NAMES[52], CLASS_NAMES[53]
('S2', 'SA', 'BJ', 'LJ')
>>> class_id('HT'), CLASS_NAMES[HAND_CLASS]
(21, 'HAND')
>>> len(CARD_NAMES)
54
"""

from __future__ import annotations

from referee.cards import BIG_JOKER, LITTLE_JOKER, RANK_CHARS, SUITS

CARD_NAMES: tuple[str, ...] = (tuple(s + r for s in SUITS for r in RANK_CHARS)
                               + (BIG_JOKER.code, LITTLE_JOKER.code))
# The two jokers' codes: a name in these is a joker (pairing, reading and asking treat them apart).
JOKERS: tuple[str, ...] = (BIG_JOKER.code, LITTLE_JOKER.code)
HAND_CLASS = len(CARD_NAMES)
CLASS_NAMES: tuple[str, ...] = CARD_NAMES + ("HAND",)

# The detector's own classes: it only finds corner indices and hands; the
# index classifier (vision.reading.index_classifier) names each index.
DETECTOR_NAMES: tuple[str, ...] = ("INDEX", "HAND")

_INDEX = {name: i for i, name in enumerate(CLASS_NAMES)}


def class_id(name: str) -> int:
    """The class number of a card code such as ``'S5'`` (``KeyError`` if unknown)."""
    return _INDEX[name]
