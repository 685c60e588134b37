"""How a venue's cameras read, by its referees' own checks.

The confidence a camera read carries is a probability fitted on pictures
the project generated (models/MODEL_CARD.md, "Confidence"). A venue's cards,
cloth and light are its own, so the only real measure of it is what the
table referees said about the reads: a read below the table's
``min_confidence`` is asked about, and the referee confirms it (the camera
was right), corrects it (wrong cards) or voids it (nothing was laid, or a
play read twice). This module reads that out of an event log:
:func:`camera_reads` gives each camera read with its :class:`Verdict`, and
:func:`check_report` sums them by confidence, with what the confidence
promised beside what the referees found.

A read whose being asked depended on its score alone (below the threshold
even without the halving a doubt about its cards gives) is a fair
sample of the camera at that score, since nothing about whether it was
right chose it: :func:`fit_records` gives those, answered, for a curve of
the venue's own (``guandan-ref camera-check --fit``). A read not asked
and never corrected is only presumed right: a wrong one may simply have
gone unnoticed, so it counts for nothing in a fit, and a checking round
(the table's ``min_confidence`` set to 1, so that every read is asked)
is how a venue covers its surest reads too (docs/technician.md).

A referee who counts a seat's cards (referee action ``count``, asked for
where a count report fault rests on the camera's reads) checks every read
of that seat's plays at once: :func:`hand_counts` gives each count beside
the count the plays read had left, which :func:`check_report` sums.

>>> from referee.events import Event
>>> def ev(i, **d):
...     return Event.from_dict({"id": i, "t": float(i), "table": "T01", **d})
>>> log = [ev(1, type="play", seat="S", cards=["S3", "H3"], source="vision", confidence=0.55,
...           raw_confidence=0.71, zone="S-play"),
...        ev(2, type="play", seat="W", cards=["S4"], source="vision", confidence=0.62, raw_confidence=0.74),
...        ev(3, type="play", seat="N", cards=["S5"], source="vision", confidence=0.97, raw_confidence=0.99),
...        ev(4, type="referee", action="confirm", ref=1),
...        ev(5, type="referee", action="correct", ref=2, event={"cards": ["S4", "S4"]})]
>>> reads = camera_reads(log)
>>> [(r.id, r.verdict.value, r.asked) for r in reads]
[(1, 'right', True), (2, 'wrong', True), (3, 'unchecked', False)]
>>> reads[1].missing, reads[1].extra
(('S4',), ())
>>> [r["raw"] for r in fit_records(reads)]
[0.71, 0.74]
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from enum import Enum
from typing import Any, Iterable, Sequence

from referee.codes import Note
from referee.corrections import overrides
from referee.events import Event
from referee.settings import Settings, SettingsError

# doubts that halve a read's confidence (vision.reading.tracker.doubt): such a
# read is asked because of its cards, not its score, so it is left out of a fit
HALVING_DOUBTS = frozenset(("third_copy", "joker_no_combination", "no_combination"))
# the confidence bands a report sums (the threshold adds its own edge)
BANDS = (0.0, 0.5, 0.8, 0.9, 0.95, 0.99, 1.0)
MIN_FIT_READS = 100       # answered reads a fit needs, fewer say too little
Z95 = 1.959964            # the normal quantile of a 95 % interval


class Verdict(Enum):
    """What became of one camera read."""

    RIGHT = "right"
    """Confirmed by a referee, or corrected to the same cards (its seat, say)."""
    WRONG = "wrong"
    """Corrected to other cards."""
    VOIDED = "voided"
    """Voided: nothing was laid, or one play was read twice."""
    UNANSWERED = "unanswered"
    """Asked about, and never confirmed, corrected or voided."""
    UNCHECKED = "unchecked"
    """Not asked about and never corrected: presumed right, not known."""

    @property
    def judged(self) -> bool:
        """Whether a referee said what the read was worth."""
        return self in (Verdict.RIGHT, Verdict.WRONG, Verdict.VOIDED)


@dataclass(frozen=True)
class CameraRead:
    """One camera read of cards (a ``play`` or a ``tribute`` from ``vision``)."""

    table: str
    id: int
    t: float
    type: str
    seat: str | None
    cards: tuple[str, ...]          # as the camera read them
    confidence: float               # as the event carried it (calibrated, a doubt halved)
    raw: float | None               # the reader's raw score (``raw_confidence``), if it said
    doubt: str | None
    zone: str | None                # the zone it was read in (e.g. ``N-play``), if the event said
    threshold: float                # the table's min_confidence then
    asked: bool                     # below it
    verdict: Verdict
    truth: tuple[str, ...] | None   # the cards as a referee corrected them (None: not corrected)

    @property
    def calibrated(self) -> float:
        """The calibrated probability the read is right: its confidence, a
        halving doubt undone."""
        return min(1.0, 2 * self.confidence) if self.doubt in HALVING_DOUBTS else self.confidence

    @property
    def missing(self) -> tuple[str, ...]:
        """Cards the correction holds and the read lacked (each copy once)."""
        return _minus(self.truth or (), self.cards) if self.verdict is Verdict.WRONG else ()

    @property
    def extra(self) -> tuple[str, ...]:
        """Cards the read held that the correction (or the void) does not."""
        if self.verdict is Verdict.VOIDED:
            return self.cards
        return _minus(self.cards, self.truth or ()) if self.verdict is Verdict.WRONG else ()


def _minus(a: Iterable[str], b: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted((Counter(a) - Counter(b)).elements()))


def _cards_of(e: Event) -> tuple[str, ...]:
    if e.type == "tribute":
        return (e.card,) if e.card else ()
    return tuple(e.cards or ())


def camera_reads(log: Sequence[Event], min_confidence: float | None = None) -> list[CameraRead]:
    """Every camera read of cards in one table's ``log`` (its events in order,
    with ids), with its verdict. A read counts as asked where its confidence
    lay below the ``min_confidence`` of the table's settings at its time
    (``settings`` events in the log; before any, the default), or below
    ``min_confidence`` where given (a referee's own override). Reads of no
    cards (``unread``: something laid the camera could not name) are left
    out: they carry no score."""
    o = overrides(log)
    threshold = Settings().min_confidence if min_confidence is None else min_confidence
    out: list[CameraRead] = []
    for e in log:
        if e.type == "settings" and min_confidence is None and e.id not in o.voided:
            try:
                threshold = Settings.from_dict(e.get("settings")).min_confidence
            except (SettingsError, TypeError):
                pass                        # refused at the edge; the referee ignores it too
            continue
        if (e.source != "vision" or e.type not in ("play", "tribute") or e.confidence is None
                or e.id is None):
            continue
        cards = _cards_of(e)
        if not cards:
            continue
        asked = e.confidence < threshold
        truth: tuple[str, ...] | None = None
        if e.id in o.voided:
            verdict = Verdict.VOIDED
        elif e.id in o.corrected:
            truth = _cards_of(o.corrected[e.id])
            verdict = Verdict.RIGHT if sorted(truth) == sorted(cards) else Verdict.WRONG
        elif e.id in o.confirmed:
            verdict = Verdict.RIGHT
        else:
            verdict = Verdict.UNANSWERED if asked else Verdict.UNCHECKED
        raw = e.get("raw_confidence")
        doubt, zone = e.get("doubt"), e.get("zone")
        out.append(CameraRead(
            table=e.table, id=e.id, t=e.t, type=e.type, seat=None if e.seat is None else str(e.seat),
            cards=cards, confidence=float(e.confidence),
            raw=float(raw) if isinstance(raw, (int, float)) and not isinstance(raw, bool) else None,
            doubt=doubt if isinstance(doubt, str) else None, zone=zone if isinstance(zone, str) else None,
            threshold=threshold, asked=asked, verdict=verdict,
            truth=truth))
    return out


@dataclass(frozen=True)
class HandCount:
    """A referee's count of a seat's cards (``counted``) beside what the plays
    read that deal had left it (``read``), at event ``event`` of ``table``."""

    table: str
    seat: str
    event: int
    counted: int
    read: int

    @property
    def off(self) -> int:
        """Cards the plays read had left over the referee's count (1: a card missed)."""
        return self.read - self.counted


def hand_counts(log: Sequence[Event]) -> list[HandCount]:
    """Each referee ``count`` of one table's ``log`` (its events in order, with
    ids) that stands, as the table judges the log as corrected.

    >>> from referee.events import Event
    >>> log = [Event.from_dict(dict(d, table="T01", id=i + 1)) for i, d in enumerate((
    ...     {"t": 1, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"},
    ...     {"t": 2, "type": "play", "seat": "S", "cards": ["S3", "H3"], "source": "vision", "confidence": 0.99},
    ...     {"t": 3, "type": "pass", "seat": "E"},
    ...     {"t": 4, "type": "referee", "action": "count", "ref": 3, "seat": "S", "count": 24}))]
    >>> [(c.seat, c.counted, c.read, c.off) for c in hand_counts(log)]
    [('S', 24, 25, 1)]
    """
    if not any(e.type == "referee" and e.get("action") == "count" for e in log):
        return []        # (most logs: not judged again for nothing)
    from referee.table import Table
    table = Table(log[0].table)
    table.replay(log)
    return counts_in(d.to_dict() for d in table.decisions)


def counts_in(decisions: Iterable[dict[str, Any]]) -> list[HandCount]:
    """The :class:`HandCount` of a table's record (its decisions as dicts, as
    a live venue holds them), from its ``counted`` notes."""
    return [HandCount(d["table"], str(d["seat"]), (d.get("events") or [0])[0], int(d["count"]), int(d["was"]))
            for d in decisions if d.get("type") == "note" and d.get("code") == Note.COUNTED]


def fit_records(reads: Iterable[CameraRead]) -> list[dict[str, Any]]:
    """The reads a venue's own curve may be fitted on, as
    :func:`vision.reading.confidence.fit_curves` takes them: asked for their
    score alone (below the threshold even without a halving doubt: in a
    checking round every read), answered by a referee, with a raw score.
    ``{"raw", "read", "exact"}`` each."""
    return [{"raw": r.raw, "read": list(r.cards), "exact": r.verdict is Verdict.RIGHT}
            for r in reads if r.calibrated < r.threshold and r.verdict.judged and r.raw is not None]


def wilson(k: int, n: int) -> tuple[float, float]:
    """The 95 % Wilson interval of a share ``k`` of ``n`` (0..1 each end).

    >>> wilson(0, 0)
    (0.0, 1.0)
    >>> [round(v, 3) for v in wilson(2, 100)]
    [0.006, 0.07]
    """
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + Z95 ** 2 / n
    mid = (p + Z95 ** 2 / (2 * n)) / d
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / d
    return max(0.0, mid - half), min(1.0, mid + half)


def _band_edges(threshold: float) -> list[float]:
    return sorted(set(BANDS) | ({threshold} if 0 < threshold < 1 else set()))


def check_report(reads: Sequence[CameraRead], threshold: float | None = None,
                 counts: Sequence[HandCount] = ()) -> dict[str, Any]:
    """The reads summed: by confidence band, the reads and their verdicts,
    and over the judged ones the share wrong against what the confidence
    promised (the mean of one less each read's calibrated probability); the asked and
    the unasked reads; the cards most often missed or added; the hands the
    referees counted (``counts``), and by how much the plays read were off.

    ``threshold`` only adds a band edge (default: the settings' default); a
    read's being asked was decided by its table's settings at the time.

    >>> from referee.events import Event
    >>> log = [Event.from_dict({"id": i + 1, "t": float(i), "table": "T01", "type": "play", "seat": "S",
    ...                         "cards": ["S3"], "source": "vision", "confidence": c})
    ...        for i, c in enumerate((0.3, 0.6, 0.9))]
    >>> log.append(Event.from_dict({"id": 4, "t": 9.0, "table": "T01", "type": "referee",
    ...                             "action": "void", "ref": 1}))
    >>> rep = check_report(camera_reads(log))
    >>> rep["asked"]["reads"], rep["asked"]["wrong"], rep["asked"]["unanswered"], rep["unasked"]["reads"]
    (2, 1, 1, 1)
    >>> [(b["band"], b["reads"], b["judged"]) for b in rep["bands"]]
    [('0-0.5', 1, 1), ('0.5-0.8', 1, 0), ('0.9-0.95', 1, 0)]
    """
    edges = _band_edges(Settings().min_confidence if threshold is None else threshold)
    bands = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        last = hi >= 1.0
        rs = [r for r in reads if lo <= r.confidence < hi or (last and r.confidence == 1.0)]
        if rs:
            bands.append({"band": f"{lo:g}-{hi:g}", **_tally(rs)})
    asked = [r for r in reads if r.asked]
    unasked = [r for r in reads if not r.asked]
    missing = Counter(c for r in reads for c in r.missing)
    extra = Counter(c for r in reads for c in r.extra)
    # by table and zone: one zone under glare, or a corner of a camera's view, shows apart
    # (grouped in one pass: a venue's record holds hundreds of tables' zones)
    grouped: dict[tuple[str, str], list[CameraRead]] = {}
    for r in reads:
        if r.zone:
            grouped.setdefault((r.table, r.zone), []).append(r)
    by_zone = {f"{t} {z}": {"reads": len(rs), "asked": _tally([r for r in rs if r.asked]),
                            "unasked": _tally([r for r in rs if not r.asked])}
               for (t, z), rs in sorted(grouped.items())}
    return {"reads": len(reads), "tables": sorted({r.table for r in reads}),
            "bands": bands, "asked": _tally(asked), "unasked": _tally(unasked), "zones": by_zone,
            "fit_reads": len(fit_records(reads)),
            "missed_cards": missing.most_common(10), "extra_cards": extra.most_common(10),
            "hands_counted": {"counts": len(counts), "off": sum(1 for c in counts if c.off),
                              "off_by": {f"{k:+d}": n for k, n in sorted(Counter(c.off for c in counts
                                                                                 if c.off).items())}}}


def _tally(rs: Sequence[CameraRead]) -> dict[str, Any]:
    """Reads, their verdicts, and over the judged: wrong (corrected or voided)
    with its 95 % interval, against the confidence's promise."""
    v = Counter(r.verdict for r in rs)
    judged = [r for r in rs if r.verdict.judged]
    wrong = v[Verdict.WRONG] + v[Verdict.VOIDED]
    lo, hi = wilson(wrong, len(judged))
    out: dict[str, Any] = {
        "reads": len(rs), "judged": len(judged), "right": v[Verdict.RIGHT], "wrong": wrong,
        "corrected": v[Verdict.WRONG], "voided": v[Verdict.VOIDED],
        "unanswered": v[Verdict.UNANSWERED], "unchecked": v[Verdict.UNCHECKED]}
    if judged:
        out["wrong_share"] = round(wrong / len(judged), 4)
        out["wrong_share_95"] = [round(lo, 4), round(hi, 4)]
        out["promised_wrong_share"] = round(sum(1 - r.calibrated for r in judged) / len(judged), 4)
    return out
