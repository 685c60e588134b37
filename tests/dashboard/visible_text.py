"""What counts as an English word in the Chinese referee view, and what is
allowed there anyway (one list, used by the browser walk and the unit tests).

Allowed in the Chinese view (they are not English words but notation):

- seat letters ``N E S W`` and sides ``NS EW``;
- card codes (``S3``, ``HT``, ``H10``, ``BJ``, ``LJ``) and level ranks (``2``-``A``, ``J Q K``);
- numbers with or without units (``20``, ``0.97``, ``12s``, ``60px``);
- ``PDF``, ``CSV`` and ``JSON`` (the file formats' names);
- ``English``: the language switch names the other language in its own words;
- names the test itself chose (its tables, teams, users, players): passed as ``names``.
"""

from __future__ import annotations

import re

WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
CARD = re.compile(r"^(?:[SHDC](?:[2-9TJQKA]|10)|BJ|LJ)$")
UNIT = re.compile(r"^(?:s|ms|px|mm|min)$")
ALLOWED = {"N", "E", "S", "W", "NS", "EW", "J", "Q", "K", "A", "T", "PDF", "CSV", "JSON", "English"}


def english_words(text: str, names: tuple[str, ...] = ()) -> list[str]:
    """The English words in ``text`` that the allow-list does not excuse."""
    for name in sorted(names, key=len, reverse=True):
        # whole words only: the user "li" does not excuse "English"
        text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", " ", text)
    return [w for w in WORD.findall(text)
            if w not in ALLOWED and not CARD.match(w) and not UNIT.match(w)]
