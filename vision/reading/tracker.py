"""Turn per-frame zone reads into observed events: a play once it is stable.

A :class:`ZoneTracker` watches one zone.  Each frame's :class:`ZoneRead`
goes in with its time; out come :class:`~referee.events.Event` objects once
what the zone shows has held for :attr:`stable_s` seconds *and* at least
:attr:`stable_frames` frames in a row, with no hand over the zone:

- ``play`` (play zone) or ``tribute`` (reminder zone, one card: whether it
  is a tribute or a return is the referee's call, from the deal's phase);
- ``zone_clear`` when the zone has become empty after cards were reported;
- from printed cards (:mod:`vision.reading.printed_cards`): ``pass`` when a PASS
  card is laid, ``report`` with its count when a count card is laid, and
  ``report_clear`` when a count card is taken back.

A frame with a hand in the zone breaks the run: nothing is reported while a
player is still laying cards.  The event's confidence is the probability
that the whole play is read right: the raw score (the lowest
:attr:`ZoneRead.confidence <vision.reading.detector.ZoneRead.confidence>`
seen over the stable run: its weakest card, or one less the surest card
another turn of the zone found and the read leaves out; kept in
``extra["raw_confidence"]``)
mapped through the shipped calibration (:mod:`vision.reading.confidence`,
measured on held-out synthetic plays), or, when the classifier reads with a
deck profile that has its own, through the profile's
(:func:`calibration_for`), so the referee's threshold
(``min_confidence``) is an error rate; below it the referee asks for
confirmation.  A play with a third copy of a card (there are two decks), or
whose cards are no combination at any level (:func:`no_combination`; with
a joker, :func:`joker_without_combination`), has its confidence halved and
says so in ``extra["warning"]``, with its code in ``extra["doubt"]``; a
play whose score a card left out set says which (:func:`left_out`).  Every event
names its zone (``extra["zone"]``).

>>> from vision.reading.detector import CardRead, ZoneRead
>>> def read(*names): return ZoneRead([CardRead(n, 0.9, (0, 0, 1, 1), ()) for n in names])
>>> tr = ZoneTracker("S", stable_s=0.2, stable_frames=3, calibration=None)
>>> [e.type for t in (0.0, 0.1, 0.2) for e in tr.update(t, read("S5", "S5"))]
['play']
>>> [e.type for t in (0.3, 0.4, 0.5, 0.6) for e in tr.update(t, read())]
['zone_clear']
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from referee.cards import LEVELS, CardError
from referee.combos import readings
from referee.events import Event
from vision.reading.classes import JOKERS
from vision.reading.confidence import Calibration, calibration_for_model, default_calibration, model_id
from vision.reading.detector import ZoneRead
from vision.reading.printed_cards import count_of

log = logging.getLogger(__name__)


def calibration_for(detector, venue: Calibration | None = None) -> Calibration:
    """The calibration a table applies to what ``detector`` reads: ``venue``,
    a curve of the venue's own where the table config names one
    (``guandan-ref camera-check --fit``: fitted on the venue's reads as its
    referees judged them; :func:`check_venue_curve` says in the log where
    it was fitted for other models), else its deck
    profile's own curve (the profile's head scores crops its own way), else
    the shipped one fitted for its model file
    (:func:`vision.reading.confidence.calibration_for_model`: the 8-bit and
    the float detector each have theirs).  A profile made without a curve
    (before enrollment fitted one) still reads, with the shipped curve,
    unmeasured for its scores: a log line says so and how to mend it."""
    clf = getattr(detector, "classifier", None)
    if venue is not None:
        check_venue_curve(venue, detector)
        return venue

    def shipped() -> Calibration:
        model = getattr(detector, "model_path", None)
        return (calibration_for_model(model, getattr(clf, "model_path", None)) if model is not None
                else default_calibration())

    deck = getattr(clf, "deck", None)
    if deck is None:
        return shipped()
    own = deck.confidence_calibration()
    if own is None:
        log.warning("deck profile %s has no confidence calibration of its own (made by an older "
                    "guandan-ref enroll-deck): its plays' confidence uses the shipped curve, not measured "
                    "for this deck; enroll the deck again to fit one", deck.name)
        return shipped()
    plays = own.doc.get("plays")
    log.info("deck profile %s: plays' confidence from its own calibration%s", deck.name,
             f" (fitted on {plays} held-back rows)" if plays else "")
    return own


def check_venue_curve(curve: Calibration, detector) -> list[str]:
    """What differs between the models a venue's curve was fitted for (its
    ``detector``, ``classifier`` and ``deck`` fields) and those ``detector``
    reads with, each said once in the log as a warning: the curve's
    probabilities are then not measured for these reads.

    >>> from types import SimpleNamespace
    >>> curve = Calibration({"size_groups": [{"name": "all", "min_cards": 1, "max_cards": 99}],
    ...                      "curves": {"all": {"x": [0.5], "p": [0.9]}}, "deck": "Kem"})
    >>> check_venue_curve(curve, SimpleNamespace(classifier=SimpleNamespace(deck=None)))
    ['deck: fitted for Kem, read with none']
    """
    clf = getattr(detector, "classifier", None)
    deck = getattr(clf, "deck", None)
    in_use = {"detector": getattr(detector, "model_path", None), "classifier": getattr(clf, "model_path", None)}
    differ = []
    for key, path in in_use.items():
        fitted = curve.doc.get(key)
        if fitted and path is not None and fitted != model_id(path):
            differ.append(f"{key}: fitted for {fitted}, read with {Path(path).name}")
    if "deck" in curve.doc and curve.doc.get("deck") != (deck.name if deck is not None else None):
        differ.append(f"deck: fitted for {curve.doc.get('deck') or 'none'}, read with "
                      f"{deck.name if deck is not None else 'none'}")
    for what in differ:
        log.warning("the venue's confidence curve was made with other card models (%s): its plays' confidence "
                    "is not measured for these reads; fit it again (guandan-ref camera-check --fit)", what)
    return differ


def joker_without_combination(names: tuple[str, ...] | list[str]) -> bool:
    """Whether ``names`` hold a joker and are no legal combination at any
    level (:func:`referee.combos.readings`; the tracker does not know the
    deal's level, so a play legal at some level is given the benefit).  The
    camera's commonest misread is a joker that is not there: a lone corner
    pip, a court picture or an index seen turned read as one (models/MODEL_CARD.md,
    "Phantom jokers asked about").  Such a joker mostly turns a legal play into no
    combination; a player's real joker seldom does.

    >>> joker_without_combination(["H7", "LJ", "C7", "S7", "HK", "CK"])   # a full house and a joker
    True
    >>> joker_without_combination(["LJ", "LJ", "BJ", "BJ"]), joker_without_combination(["H7", "C7", "S7"])
    (False, False)
    """
    return any(n in JOKERS for n in names) and no_combination(names)


def no_combination(names: tuple[str, ...] | list[str]) -> bool:
    """Whether ``names`` (two cards or more) are no legal combination at any
    level (:func:`referee.combos.readings`; the level is the deal's, which
    the tracker does not know).  On generated fans and crooked cards the
    camera's commonest sure misread is a play with a card missing, and most
    such reads are no combination (models/MODEL_CARD.md, "Plays that are no
    combination asked about"); a player in a sanctioned match seldom lays one.

    >>> no_combination(["S3", "H4", "D5", "C6"]), no_combination(["S3", "H4", "D5", "C6", "S7"])
    (True, False)
    >>> no_combination(["S9"]), no_combination(["S9", "H9"]), no_combination([])
    (False, False, False)
    """
    if len(names) < 2:
        return False
    try:
        return not any(readings(" ".join(names), level) for level in LEVELS)
    except CardError:        # a third copy: doubt's other rule
        return False


# Why a read is doubted, as a play event's ``doubt`` names it (the dashboard
# words each one: web_dashboard/messages.py DOUBTS)
THIRD_COPY = "third_copy"
JOKER_NO_COMBINATION = "joker_no_combination"
NO_COMBINATION = "no_combination"
LEFT_OUT = "left_out"
UNREAD = "unread"
UNEXPLAINED = "unexplained"

# the value a play zone holds while something lies there that no card read
# explains (ZoneRead.unread, vision.reading.laid): reported as a play of no
# cards, at confidence 0, so the referee is asked and nothing rests on it
_UNREAD = ("?",)
UNREAD_S = 1.0     # seconds an unread look must hold (a shadow passes; a card laid stays)
UNREAD_WORDS = "something new lies in the zone that the camera cannot read (a card face down, or a deck it does not know?)"
UNEXPLAINED_WORDS = "more lies in the zone than the cards read (a card the camera cannot read?)"


def score_lowered(read: ZoneRead) -> tuple[str, str] | None:
    """Why a read's score is low where no card read unsure set it: (code,
    words), or None.  More lies in the zone than the cards read cover
    (:attr:`vision.reading.detector.ZoneRead.unexplained`: a card read from
    no index), or another read of the zone (another turn) found a card this
    one leaves out (:attr:`vision.reading.detector.ZoneRead.left_out`).
    Not halved: the calibration is fitted on such scores already; the words
    tell the referee what to look for.

    >>> from vision.reading.detector import CardRead
    >>> card = CardRead("S5", 0.97, (0, 0, 9, 9), ())
    >>> score_lowered(ZoneRead([card], left_out=("H5", 0.7)))
    ('left_out', 'another view of the zone saw H5 (0.70), which the read leaves out')
    >>> score_lowered(ZoneRead([card], left_out=("H5", 0.01))), score_lowered(ZoneRead([card]))
    (None, None)
    >>> score_lowered(ZoneRead([card], unexplained=0.5))[0]
    'unexplained'
    """
    if read.unexplained:
        return UNEXPLAINED, UNEXPLAINED_WORDS
    if read.left_out is None or 1.0 - read.left_out[1] > read.weakest:
        return None
    name, p = read.left_out
    return LEFT_OUT, f"another view of the zone saw {name} ({p:.2f}), which the read leaves out"


def doubt(names: tuple[str, ...] | list[str]) -> tuple[str, str] | None:
    """Why cards read are doubted however sure the read: (code, words), or None.

    >>> doubt(["S5", "S5", "S5"])
    ('third_copy', 'more than two of S5 (two decks)')
    >>> doubt(["S5", "LJ"])[0], doubt(["S5", "H5"]), doubt(["S5", "D7"])[0]
    ('joker_no_combination', None, 'no_combination')
    """
    over = sorted({n for n in names if list(names).count(n) > 2})
    if over:
        return THIRD_COPY, f"more than two of {', '.join(over)} (two decks)"
    if not no_combination(names):        # (the readings, once: the joker rule is this one with a joker)
        return None
    if any(n in JOKERS for n in names):
        return JOKER_NO_COMBINATION, "a joker in cards that are no combination at any level (a joker misread?)"
    return NO_COMBINATION, "cards that are no combination at any level (a card missed or misread?)"


def play_confidence(raw: float, names: tuple[str, ...] | list[str],
                    calibration: Calibration | None) -> tuple[float, tuple[str, str] | None]:
    """A play event's confidence from its raw score (calibrated), and why it
    is doubted (:func:`doubt`'s code and words, or None): halved if
    :func:`doubt` doubts the cards: a third copy of a card (there
    are two decks: a misread, or a foul for the referee to check), or
    cards that are no combination at any level (:func:`no_combination`,
    :func:`joker_without_combination`: a card missed or misread, or a foul
    for the referee to check).  Halved, a read the calibration trusts falls below
    any table's threshold, so the referee is asked to confirm and no
    penalty follows unless the read is confirmed."""
    conf = calibration(raw, len(names)) if calibration else raw
    why = doubt(names)
    return round(conf * 0.5 if why else conf, 4), why


@dataclass
class _Run:
    value: tuple[str, ...]
    since: float
    frames: int
    confidence: float
    why: tuple[str, str] | None = None     # what set the lowest confidence, if not a card (left_out)


class _Stable:
    """One value watched until it holds still; says when a new value has settled."""

    def __init__(self, stable_s: float, stable_frames: int):
        self.stable_s, self.stable_frames = stable_s, stable_frames
        self.reported: tuple[str, ...] = ()
        self.run: _Run | None = None

    def reset(self) -> None:
        self.run = None

    def update(self, t: float, value: tuple[str, ...], confidence: float,
               why: tuple[str, str] | None = None, hold_s: float | None = None) -> tuple[str, ...] | None:
        """The value reported before, the first time ``value`` has held long
        enough (``hold_s`` seconds where given, else :attr:`stable_s`) and
        differs from it; else None.  The run's lowest ``confidence``, and
        the ``why`` that came with it, stay in :attr:`run`."""
        run = self.run
        if run is None or run.value != value:
            self.run = _Run(value, t, 1, confidence, why)
            return None
        run.frames += 1
        if confidence < run.confidence:
            run.confidence, run.why = confidence, why
        if run.frames < self.stable_frames or t - run.since < (self.stable_s if hold_s is None else hold_s) - 1e-9:
            return None
        if value == self.reported:
            return None
        previous, self.reported = self.reported, value
        return previous


class ZoneTracker:
    """Reports what a zone shows once it stops changing."""

    def __init__(self, seat: str, kind: str = "play", table: str = "T01",
                 stable_s: float = 0.4, stable_frames: int = 3,
                 calibration: Calibration | bool | None = True, unread_s: float | None = None):
        """``calibration``: the raw score -> P(cards read right) mapping; ``True``
        the shipped one, ``None`` or ``False`` reports the raw score.
        ``unread_s``: how long an empty play zone must show something it
        cannot read (:attr:`ZoneRead.unread <vision.reading.detector.ZoneRead.unread>`)
        before an unread play is reported (default :data:`UNREAD_S`, or
        ``stable_s`` where that is longer)."""
        unread_s = max(stable_s, UNREAD_S) if unread_s is None else unread_s
        if not stable_s <= unread_s <= 600.0:      # (False for NaN too)
            raise ValueError(f"unread_s must be seconds from stable_s ({stable_s!r}) to 600, got {unread_s!r}")
        self.seat, self.kind, self.table = seat, kind, table
        self.unread_s = unread_s
        self.calibration = default_calibration() if calibration is True else (calibration or None)
        self._cards = _Stable(stable_s, stable_frames)
        self._printed = _Stable(stable_s, stable_frames)

    @property
    def zone(self) -> str:
        return f"{self.seat}-{self.kind}"

    @property
    def reported(self) -> tuple[str, ...]:
        """The cards the zone was last reported to hold."""
        return self._cards.reported

    def update(self, t: float, read: ZoneRead) -> list[Event]:
        """Feed one frame's read of this zone; returns the events it completes."""
        if read.hand:
            self._cards.reset()                 # a hand over the cards: wait
            self._printed.reset()
            return []
        base = dict(t=round(t, 3), table=self.table, seat=self.seat, source="vision",
                    extra={"zone": self.zone})
        events = []
        names = tuple(read.names)
        # something laid that no card read explains, where the zone held no
        # cards (cards read and then lost to glare are no new play)
        unread = (not names and read.unread and self.kind == "play"
                  and self._cards.reported in ((), _UNREAD))
        value = _UNREAD if unread else names
        settled = self._cards.update(t, value, read.confidence, score_lowered(read), self.unread_s if unread else None)
        if settled is not None and unread:
            said = {"zone": self.zone, "doubt": UNREAD, "warning": UNREAD_WORDS}
            events.append(Event(type="play", cards=(), confidence=0.0, **{**base, "extra": said}))
        elif settled is not None:
            raw = self._cards.run.confidence
            # the run's value is one tuple, so its size is fixed and the monotone
            # mapping of the run's lowest score is the run's lowest probability
            conf, why = play_confidence(raw, names, self.calibration)
            why = why or self._cards.run.why
            extra = dict(base["extra"])
            if self.calibration and names:
                extra["raw_confidence"] = round(raw, 4)
            if not names:
                events.append(Event(type="zone_clear", confidence=1.0, **base))
            elif self.kind == "reminder" and len(names) == 1:
                events.append(Event(type="tribute", card=names[0], confidence=conf, **{**base, "extra": extra}))
            else:
                if why:
                    extra["doubt"], extra["warning"] = why
                events.append(Event(type="play", cards=names, confidence=conf,
                                    **{**base, "extra": extra}))
        printed = tuple(read.printed)
        before = self._printed.update(t, printed, 1.0)
        if before is not None:
            if "PASS" in printed and "PASS" not in before:
                events.append(Event(type="pass", confidence=1.0, **base))
            counts = [count_of(p) for p in printed if count_of(p) is not None]
            had = [count_of(p) for p in before if count_of(p) is not None]
            if counts and counts != had:
                events.append(Event(type="report", count=counts[0], confidence=1.0, **base))
            elif had and not counts:
                events.append(Event(type="report_clear", confidence=1.0, **base))
        return events
