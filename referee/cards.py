"""Cards, the notation, and the two-deck limits.

A :class:`Card` is one of the 54 faces of a Guandan deck. Two decks are in
play, so every face exists twice; a collection with a third copy is an error.

Notation (docs/events.md): suit ``S H D C`` (or ``♠ ♥ ♦ ♣``) then rank
``2-9 T J Q K A`` (``10`` also accepted); ``BJ`` is the big joker (大王),
``LJ`` the little joker (小王).

>>> parse_card("♠3")
Card('S3')
>>> parse_card("h10").code
'HT'
>>> [c.code for c in parse_cards("S3 D3 BJ")]
['S3', 'D3', 'BJ']
>>> parse_card("X9")
Traceback (most recent call last):
...
referee.cards.CardError: unknown card 'X9' (expected e.g. S3, HT, H10, ♠3, BJ, LJ)
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable, Union

SUITS = "SHDC"
RANK_CHARS = "23456789TJQKA"
LEVELS = tuple(RANK_CHARS)          # a level is a rank '2'..'A'
LJ_RANK, BJ_RANK = 16, 17
LEVEL_VALUE = 15                    # the level rank's place in the single order: above A
COPIES = 2                          # two decks

RANK_NAMES = {r: ch for r, ch in zip(range(2, 15), RANK_CHARS)}
RANK_NAMES.update({1: "A", LJ_RANK: "LJ", BJ_RANK: "BJ"})
SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


class CardError(ValueError):
    """A card code that cannot be read, or more copies than two decks hold."""


class Card:
    """One card face. Instances are interned: ``parse_card('S3') is parse_card('S3')``.

    ``rank`` is 2..14 for 2..A, 16 for the little joker and 17 for the big one;
    ``suit`` is one of ``S H D C``, or ``None`` for a joker; ``index`` is a
    dense number 0..53 (handy for arrays).
    """

    __slots__ = ("code", "suit", "rank", "index")

    def __init__(self, code: str, suit: str | None, rank: int, index: int):
        self.code, self.suit, self.rank, self.index = code, suit, rank, index

    @property
    def is_joker(self) -> bool:
        return self.suit is None

    def __repr__(self) -> str:
        return f"Card({self.code!r})"

    def __str__(self) -> str:
        return self.code

    def __reduce__(self) -> tuple[Callable[[CardLike], Card], tuple[str]]:
        return (parse_card, (self.code,))   # pickle by code so interned identity survives


ALL_CARDS: tuple[Card, ...] = tuple(
    [Card(s + RANK_CHARS[r - 2], s, r, i * 13 + r - 2) for i, s in enumerate(SUITS) for r in range(2, 15)]
    + [Card("LJ", None, LJ_RANK, 52), Card("BJ", None, BJ_RANK, 53)]
)
LITTLE_JOKER, BIG_JOKER = ALL_CARDS[52], ALL_CARDS[53]

CardLike = Union[str, Card]
CardsLike = Union[str, Iterable[CardLike]]

# Every accepted spelling, upper-cased, to its card. Looked up with whatever a
# play holds (a Card is no key: it misses, and parse_card returns it as it is).
_LOOKUP: dict[CardLike, Card] = {}
for _c in ALL_CARDS:
    _LOOKUP[_c.code] = _c
    if _c.suit is not None:
        for _sym, _s in SUIT_SYMBOLS.items():
            if _s == _c.suit:
                _LOOKUP[_sym + _c.code[1]] = _c
        if _c.rank == 10:
            _LOOKUP[_c.suit + "10"] = _c
            for _sym, _s in SUIT_SYMBOLS.items():
                if _s == _c.suit:
                    _LOOKUP[_sym + "10"] = _c
_LOOKUP.update({"大王": BIG_JOKER, "小王": LITTLE_JOKER})



def parse_card(token: CardLike) -> Card:
    """Read one card code; raise :class:`CardError` naming the bad token."""
    if isinstance(token, Card):
        return token
    if not isinstance(token, str):
        raise CardError(f"a card must be a code such as S3, got {token!r}")
    card = _LOOKUP.get(token.strip().upper())
    if card is None:
        raise CardError(f"unknown card {token!r} (expected e.g. S3, HT, H10, ♠3, BJ, LJ)")
    return card


def parse_cards(cards: CardsLike) -> tuple[Card, ...]:
    """Read a play: a string of codes separated by spaces or commas, or an iterable.

    >>> parse_cards("S3,D3  HT")
    (Card('S3'), Card('D3'), Card('HT'))
    """
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    get = _LOOKUP.get   # fast path for exact codes; parse_card handles the rest
    return tuple([get(c) or parse_card(c) for c in cards])


def check_copies(cards: Iterable[Card]) -> None:
    """Raise :class:`CardError` if any face appears more often than two decks hold.

    >>> check_copies(parse_cards("SA SA SA"))
    Traceback (most recent call last):
    ...
    referee.cards.CardError: 3 copies of SA, but the two decks hold only 2
    """
    cards = tuple(cards)
    if len(set(cards)) == len(cards):   # interned cards: no repeats at all
        return
    counts = Counter(c.code for c in cards)
    for code, n in counts.items():
        if n > COPIES:
            raise CardError(f"{n} copies of {code}, but the two decks hold only {COPIES}")


_LEVEL_LOOKUP = {ch: i + 2 for i, ch in enumerate(RANK_CHARS)}
_LEVEL_LOOKUP["10"] = 10


def level_rank(level: str | int) -> int:
    """The rank number (2..14) of a level given as '2'..'A' (or '10', or a number).

    >>> level_rank("A"), level_rank("10"), level_rank(7)
    (14, 10, 7)
    """
    rank = _LEVEL_LOOKUP.get(level) if isinstance(level, str) else None
    if rank is not None:
        return rank
    if isinstance(level, int) and not isinstance(level, bool):
        if 2 <= level <= 14:
            return level
    elif isinstance(level, str):
        s = level.strip().upper()
        if s == "10":
            return 10
        if len(s) == 1 and s in RANK_CHARS:
            return RANK_CHARS.index(s) + 2
    raise CardError(f"unknown level {level!r} (expected one of 2 3 4 5 6 7 8 9 10 J Q K A)")


def level_name(rank: int) -> str:
    """'2'..'A' for a level rank (``T`` written as ``10``)."""
    return "10" if rank == 10 else RANK_NAMES[rank]


def is_wild(card: Card, level: str | int) -> bool:
    """True for the two heart level cards (红心级牌, 逢人配)."""
    return card.suit == "H" and card.rank == level_rank(level)


def single_value(card: Card, level: str | int) -> int:
    """The card's place in the single-card order: 2..14 naturally, the level
    rank 15 (above A), little joker 16, big joker 17.

    >>> single_value(parse_card("S7"), "7"), single_value(parse_card("SA"), "7")
    (15, 14)
    """
    return LEVEL_VALUE if card.rank == level_rank(level) else card.rank


def full_deck() -> list[Card]:
    """The 108 cards of two decks."""
    return [c for c in ALL_CARDS for _ in range(COPIES)]
