"""The rules engine: pure, deterministic, no I/O.

>>> import referee
>>> referee.judge("S5 D5", "2", previous="S4 D4").legal
True
"""

from referee.cards import (ALL_CARDS, LEVELS, Card, CardError, check_copies, full_deck,
                           is_wild, level_rank, parse_card, parse_cards, single_value)
from referee.combos import BOMB_KINDS, KINDS, Combination, beats, readings
from referee.judge import Judgement, counted_reading, judge

__all__ = [
    "ALL_CARDS", "LEVELS", "Card", "CardError", "check_copies", "full_deck", "is_wild",
    "level_rank", "parse_card", "parse_cards", "single_value",
    "BOMB_KINDS", "KINDS", "Combination", "beats", "readings",
    "Judgement", "counted_reading", "judge",
]
