"""The table hub: events in, decisions out, for one table through one match.

A :class:`Table` folds its event log into the state of the match and the deal
in play and answers each event with :class:`~referee.decisions.Decision`s.
Time comes only from the events' ``t``: a limit that ran out is noticed when
the next event (a ``tick`` when nothing else happens) carries a later time.

>>> table = Table("T01")
>>> [d.type for d in table.feed_dict({"t": 0, "type": "deal_start", "deal": 1,
...                                    "level": "2", "leader": "S"})]
['deal_start', 'turn']
>>> d = table.feed_dict({"t": 3, "type": "play", "seat": "N", "cards": ["S3"]})[0]
>>> d.type, d.code, d.penalty
('violation', <Violation.OUT_OF_TURN_PLAY: 'out_of_turn_play'>, <Penalty.INFRACTION: 'infraction'>)
>>> d.to_json()[:70]
'{"t":3.0,"table":"T01","type":"violation","n":2,"seat":"N","code":"out'
>>> [d.type for d in table.feed_dict({"t": 4, "type": "play", "seat": "S", "cards": ["S3"]})]
['turn']

Corrections never edit the log: a ``referee`` event (``void``, ``correct``,
``confirm``) is appended, the state is recomputed from the whole log, and a
``correction`` decision says from which decision number (``n``) the record
is restated; the restated decisions follow it.

Rule references are to 《江苏省掼蛋竞赛规则（2023）》 (§ numbers of its
第三章): penalties 七, tribute 五(四), play 五(五), reports 五(六).
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache
from typing import Any, Callable, Iterable, Mapping, NamedTuple

from referee.cards import Card, CardError, is_wild, level_rank, parse_card, parse_cards
from referee.clock import Clocks, Purpose
from referee.codes import Confirm, Note, Violation
from referee.combos import Combination
from referee.corrections import META_ACTIONS, corrected_event, overrides, referee_count
from referee.deal import FINISHED, PLAY, REPORT_LIMIT, Deal, Phase, Proof, Report, complete_order, is_double_down
from referee.decisions import Decision
from referee.events import Event, EventError
from referee.judge import Judgement, judge
from referee.match import EndedBy, Match
from referee.penalties import PENALTIES, Ladder, Penalty
from referee.scoring import level_label
from referee.seating import (SIDES, Seat, Side, next_seat, opponents, partner, seat_named,
                             seats_of, side_named, side_of)
from referee.settings import Settings

LATE_WARNING_MIN, LATE_FOUL_MIN = 5.0, 10.0
PLACES = ("上游", "二游", "三游", "下游")
# Violation codes as a referee's event may name them (the terms and clauses: referee.codes)
_VIOLATION_BY_CODE: dict[Any, Violation] = {v.value: v for v in Violation}
# bound once: a turn starts on nearly every event (see referee.deal.PLAY on enum attribute cost)
_LEAD, _PLAY = Purpose.LEAD, Purpose.PLAY


class _Asked(NamedTuple):
    """Where a count of a seat's hand was asked: its deal, the seat's last
    play and count by the reads, and the reads that count rests on."""

    deal: Deal
    last: int | None
    cards: int
    reads: tuple[int, ...]


class _Counted(NamedTuple):
    """A referee's count that stands at an event of the log: the seat's
    ``cards`` before it (or right after it, ``after``: the seat's own play),
    and the count's own event (``entry``)."""

    cards: int
    entry: int
    after: bool = False


def _cn(code: object) -> str:
    """The Chinese term and clause of a violation code; a referee's own code cites 七."""
    violation = _VIOLATION_BY_CODE.get(code)
    return violation.cn() if violation is not None else f"{code}, §七"


def _held(seat: Seat, code: Violation | str, penalty: Penalty) -> dict[str, str]:
    """What a held request would give, were its doubt settled (its ``held`` field)."""
    return {"code": str(code), "penalty": str(penalty), "side": str(side_of(seat))}


def _listed(reads: Iterable[int]) -> str:
    """Event ids as the messages name them: ``#3, #7``."""
    return ", ".join(f"#{n}" for n in reads)


class _State:
    """Everything a fold over the log builds; replaced wholesale on a rebuild."""

    __slots__ = ("match", "ladder", "deal", "clocks", "prev_order", "no_tribute_side",
                 "offline", "t", "waived", "pending_reads", "cameras_off", "camera_back_t", "asked",
                 "at_play", "deal_starts", "deals")

    def __init__(self, settings: Settings) -> None:
        self.match = Match(settings)
        self.ladder = Ladder()
        self.deal: Deal | None = None
        self.clocks = Clocks(settings.countdown)
        self.prev_order: list[Seat] | None = None  # finishing order of the last deal
        self.no_tribute_side: Side | None = None   # after a foul: the non-offending side names the leader
        self.offline: set[str] = set()
        self.t = 0.0
        self.waived: set[Any] = set()              # events whose penalties the referee voided
        # low-confidence camera reads of the deal in play, neither confirmed nor corrected:
        # the state may be wrong (a play not counted), so violations are held, not penalised
        self.pending_reads: list[int] = []
        # the offline devices that are cameras, and when the last came back: a limit that ran
        # out while one was off may have been kept, the act unseen
        self.cameras_off: set[str] = set()
        self.camera_back_t = float("-inf")
        # (event, seat) -> the deal and that seat's hand where a count of it was asked (the deal
        # may have ended before the count: the count is of that hand)
        self.asked: dict[tuple[int, Seat], _Asked] = {}
        self.deal_starts: list[int] = []        # the deal start events' ids, in order
        self.deals: list[Deal] = []             # and their deals
        self.at_play: set[int] = set()  # referee counts that stood at a seat's play in this fold


class Table:
    """One table's referee. Feed it events in log order; it returns decisions."""

    def __init__(self, table_id: str = "T01", settings: Settings | None = None,
                 log_settings: bool = True) -> None:
        """``settings`` judge the log until a ``settings`` event in it says otherwise
        (the log carries its match's settings, so every reader judges it alike);
        ``log_settings=False`` ignores those events (a referee's explicit override)."""
        self.table_id = table_id
        self.initial_settings = self.settings = settings or Settings()
        self.log_settings = log_settings
        self.teams: dict[str, str] = {}
        self.players: dict[str, str] = {}       # seat -> name, from the settings (who may sign)
        self.captains: dict[str, str] = {}      # side -> name
        self.log: list[Event] = []
        self.decisions: list[Decision] = []        # the record for the log as corrected
        self._confirmed: set[Any] = set()          # camera events the referee confirmed
        self._corrected: set[Any] = set()          # events the referee corrected (certain since)
        self._voided: set[int] = set()             # and voided, and the corrected events by id
        self._restated: Mapping[int, Event] = {}
        # the referee's counts of hands (referee.corrections.Overrides.counted), what they settled:
        # camera reads whose count a count vouched, and counts that stand before a fault's event
        self._count_entries: dict[int, tuple[int, Seat, int]] = {}
        self._vouched: set[int] = set()
        self._used_counts: set[int] = set()     # counts that settled something before them
        self._at_fault: dict[int, dict[Seat, _Counted]] = {}    # event -> seat -> the count settled there
        self._found: tuple[set[int], dict[int, dict[Seat, _Counted]]] = (set(), {})
        self._s = _State(self.settings)
        self._out: list[Decision] = []             # decisions of the event being folded
        self._event = Event("tick", 0.0, table_id)  # the event being folded
        self._eid = 0                              # and its id (feed numbers every event)

    # ------------------------------------------------------------------ input
    def feed_dict(self, d: Mapping[str, Any]) -> list[Decision]:
        """Convenience: :meth:`feed` an event given as a dict (table defaults to this one)."""
        d = dict(d)
        d.setdefault("table", self.table_id)
        return self.feed(Event.from_dict(d))

    def feed(self, event: Event) -> list[Decision]:
        """Append ``event`` to the log and return what the referee says about it."""
        if event.id is None:
            event = event.with_id(len(self.log) + 1)
        self.log.append(event)
        if event.type == "referee" and event.get("action") in META_ACTIONS:
            return self._correct(event)
        out = self._fold(event)
        self._record(out)
        return out

    def replay(self, events: Iterable[Event]) -> list[Decision]:
        """Feed many events; all decisions in order."""
        out: list[Decision] = []
        for e in events:
            out.extend(self.feed(e))
        return out

    # ------------------------------------------------------------ state views
    @property
    def match(self) -> Match:
        return self._s.match

    @property
    def deal(self) -> Deal | None:
        return self._s.deal

    @property
    def t(self) -> float:
        """The table's time: the latest event time seen."""
        return self._s.t

    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain data (equal snapshots mean equal states)."""
        s = self._s
        return {"table": self.table_id, "events": len(self.log), "decisions": len(self.decisions),
                "t": s.t, "levels": {k: level_label(v) for k, v in s.match.levels.items()},
                "deal": s.deal.summary() if s.deal else None,
                "ladder": {side: s.ladder.counts(side) for side in SIDES},
                "score_sheet": s.match.score_sheet(),
                "clocks": sorted((tm.seat, tm.purpose, tm.started, tm.stage)
                                 for tm in s.clocks.running()),
                "offline": sorted(s.offline), "settings": self.settings.to_dict(),
                "teams": dict(self.teams), "players": dict(self.players),
                "captains": dict(self.captains)}

    # ------------------------------------------------------------ corrections
    def _correct(self, event: Event) -> list[Decision]:
        assert event.id is not None    # feed numbers every event
        action, ref = event.get("action"), event.get("ref")
        target = self._find(ref)
        problem = None
        if target is None:
            problem = (Confirm.BAD_REFERENCE, f"referee {action}: no event {ref!r} in this table's log")
        elif action == "correct":
            try:
                corrected_event(target, event.get("event"))
            except ValueError as exc:
                problem = (Confirm.BAD_CORRECTION, f"referee correct of event {ref}: {exc}")
        elif action == "count":
            try:
                referee_count(event)
            except ValueError as exc:
                problem = (Confirm.BAD_CORRECTION, f"{exc} (at event {ref})")
        if problem is not None:
            d = self._decision(event, "confirm_request", code=problem[0], message=problem[1])
            self._record([d])
            return [d]
        assert target is not None
        if action == "void" and event.get("what", "event") == "penalty":
            what = f"penalties from event {ref} voided"
        elif action == "count":
            what = f"{event.get('seat')}'s cards counted ({event.get('count')}), for event {ref}"
        else:
            what = f"event {ref} ({target.type}) {action}ed"
        old = self.decisions
        self._rebuild()
        k = 0
        while k < min(len(old), len(self.decisions)) and old[k] == self.decisions[k]:
            k += 1
        note = Decision(t=event.t, table=self.table_id, type="correction",
                        events=(event.id, ref),
                        message=f"{what}; state recomputed from the log",
                        extra={"action": action, "ref": ref, "restated_from": k})
        return [note, *self.decisions[k:]]

    def _find(self, ref: Any) -> Event | None:
        if isinstance(ref, int) and not isinstance(ref, bool) and 1 <= ref <= len(self.log):
            e = self.log[ref - 1]
            if e.id == ref:
                return e
        for e in self.log:
            if e.id == ref:
                return e
        return None

    def _rebuild(self) -> None:
        # (referee.corrections: a later void cancels an earlier void, correction or
        # confirmation; a correction naming nothing, or malformed, counts for nothing)
        voided, corrected, self._confirmed, waived, self._count_entries = overrides(self.log)
        self._corrected = set(corrected)
        self._voided, self._restated = voided, corrected
        # a count of a hand settles what came before it (the reads it vouches, a fault's count):
        # judged again with that until nothing new is settled (each pass only adds). Where a count
        # stands is found on the record as judged with the counts before it, so those found by
        # earlier corrections are kept (while their count stands), and only the reads are vouched anew
        self._at_fault = {r: kept for r, by in self._at_fault.items()
                          if (kept := {y: c for y, c in by.items() if c.entry in self._count_entries})}
        self._used_counts = {c.entry for by in self._at_fault.values() for c in by.values()}
        self._vouched = set()
        for _ in range(4):
            self._replay_log(voided, corrected, waived)
            vouched, at_fault = self._found
            new = {r: {s: v for s, v in by.items() if s not in self._at_fault.get(r, {})}
                   for r, by in at_fault.items()}
            if vouched <= self._vouched and not any(new.values()):
                break
            self._vouched |= vouched
            for r, by in new.items():
                self._at_fault.setdefault(r, {}).update(by)
                self._used_counts.update(c.entry for c in by.values())

    def _replay_log(self, voided: set[int], corrected: Mapping[int, Event], waived: set[Any]) -> None:
        """The record folded afresh from the log as the referee's word leaves it."""
        self.settings, self.teams = self.initial_settings, {}
        self.players, self.captains = {}, {}
        self._s = _State(self.settings)
        self._s.waived = waived
        self._found = (set(), {})
        self.decisions = []
        for e in self.log:
            if e.id in voided:
                continue
            if e.type == "referee" and e.get("action") in META_ACTIONS:
                if e.id in self._count_entries:     # a count of a hand stands where it was made
                    self._record(self._count_entry(e))
                continue
            self._record(self._fold(corrected.get(e.id, e) if e.id is not None else e))

    def _record(self, out: list[Decision]) -> None:
        base = len(self.decisions)
        for i, d in enumerate(out):
            if d.n is None:
                out[i] = d._replace(n=base + i)
        self.decisions.extend(out)

    # ------------------------------------------------------------ the fold
    def _fold(self, e: Event) -> list[Decision]:
        self._out = []
        self._event = e
        self._eid = e.id or 0
        s = self._s
        if self._eid in self._at_fault:       # (before the clock's steps: a limit may rest on a count)
            self._settle_counts(self._at_fault[self._eid])
        self._advance(e.t)
        s.t = max(s.t, e.t)
        if (e.source == "vision" and e.confidence is not None
                and e.confidence < self.settings.min_confidence and e.id not in self._confirmed):
            self._emit("confirm_request", seat=e.seat, code=Confirm.LOW_CONFIDENCE,
                       message=f"{e.type} by {e.seat or '?'} seen with confidence {e.confidence:.2f}: "
                               f"confirm or correct it (not counted until confirmed)",
                       observed=_observed(e))
            self._pending(self._eid)
            return self._out
        handler = _HANDLERS.get(e.type)
        if handler is not None:
            handler(self, e)
        return self._out

    def _advance(self, t: float) -> None:
        """Clock steps due before ``t``; a timed match that ran out between deals ends."""
        s = self._s
        for step in s.clocks.advance(t):
            if step.kind == "countdown":
                self._emit("countdown", seat=step.seat, t=step.t,
                           message=f"{step.seat}: {step.purpose} limit passed, counting down "
                                   f"{self.settings.countdown:g} s (读秒)",
                           seconds=self.settings.countdown, purpose=step.purpose)
            elif s.cameras_off or s.camera_back_t >= step.started:
                # a play laid while its camera saw nothing is reported when the picture is back:
                # late by the camera, not by the player (七(一)5 is the referee's to judge then)
                self._emit("confirm_request", seat=step.seat, code=Confirm.OVERTIME_UNSEEN, t=step.t,
                           message=f"{step.seat} was not seen to act within the {step.purpose} limit and the "
                                   f"countdown, but a camera was offline meanwhile: no warning given; give it "
                                   f"by hand if {step.seat} did run over",
                           purpose=step.purpose, cameras=sorted(s.cameras_off))
            else:
                text = f"{step.seat} still had not acted after the {step.purpose} limit and the countdown"
                # (nobody may have been to act: the seat, or one whose going out ends the deal, may be out)
                if s.deal is None or not self._turn_in_doubt(s.deal, step.seat, Violation.OVERTIME, Penalty.WARNING,
                                                             text=text, t=step.t, deal_end=True):
                    self._violation(step.seat, Violation.OVERTIME, Penalty.WARNING, t=step.t, text=text,
                                    purpose=step.purpose)
        m = s.match
        if (s.deal is None or s.deal.phase is FINISHED) and m.rows and m.result is None \
                and m.time_up(t):
            m.close_on_time(t)
            if m.result is not None:
                self._match_end(t)

    # ------------------------------------------------------------ output helpers
    def _decision(self, e: Event | None, type_: str, *, seat: str | None = None,
                  code: str | None = None, penalty: str | None = None, t: float | None = None,
                  events: tuple[int, ...] | None = None, message: str = "", n: int | None = None,
                  **extra: Any) -> Decision:
        if events is None:
            events = (e.id,) if e is not None and e.id is not None else ()
        return Decision(t=e.t if t is None and e is not None else (t or 0.0), table=self.table_id,
                        type=type_, seat=seat, code=code, penalty=penalty, events=events,
                        message=message, extra=extra, n=n)

    def _emit(self, type_: str, *, seat: str | None = None, code: str | None = None,
              penalty: str | None = None, t: float | None = None,
              events: tuple[int, ...] | None = None, message: str = "", **extra: Any) -> Decision:
        """A decision about the event being folded (its time and id unless given)."""
        # made here rather than through _decision: one per event, on the replay path
        e = self._event
        if events is None:
            events = (e.id,) if e.id is not None else ()
        d = Decision(e.t if t is None else (t or 0.0), self.table_id, type_, seat, code, penalty,
                     events, message, extra, len(self.decisions) + len(self._out))
        self._out.append(d)
        return d

    def _turn(self, seat: Seat, purpose: Purpose, limit: float) -> None:
        self._s.clocks.start(purpose, seat, self._event.t, limit)
        self._emit("turn", seat=seat, message=_turn_message(seat, purpose, limit),
                   purpose=purpose, limit=limit)

    # ------------------------------------------------------------ penalties
    def _read_violation(self, seat: Seat, code: Violation, penalty: Penalty, *, text: str,
                        events: tuple[int, ...] | None = None, moves_state: bool = True,
                        **extra: Any) -> bool:
        """A penalty found in the cards camera reads show: given
        (:meth:`_violation`, True), or, where a read among its evidence (the
        read being folded, and ``events``: a tribute or return a play
        proves wrong) is the camera's and the referee has neither confirmed
        nor corrected it (setting ``camera_penalties`` ``confirm``), held as
        a request to confirm those reads (False).  On real cards a camera
        misses a card and stays sure of the rest (a pair read as a single is
        still a combination, and illegal on a pair), so its confidence
        cannot say when to penalise; the referee's confirmation or
        correction of each read can.  The request names the violation's
        events with the unsure reads last, the last one the dashboard's
        confirm names (a tribute read wrong, not the play that seems to
        prove it, may be the camera's mistake). Where the penalty would
        change what follows (``moves_state``: the cards taken back, the
        deal ended), the state the next events are judged on rests on the
        answer, so until then the reads hold later violations as a
        low-confidence read does."""
        e = self._event
        ids = tuple(dict.fromkeys(i for i in (*(events or ()), e.id) if i is not None))
        unsure = [i for i in ids if self._unsure_read(e if i == e.id else self._find(i))]
        if not unsure:
            self._violation(seat, code, penalty, text=text, events=events, **extra)
            return True
        if moves_state:
            self._pending(*unsure)
        listed = _listed(unsure)
        self._emit("confirm_request", seat=seat, code=Confirm.CAMERA_PENALTY,
                   events=tuple(i for i in ids if i not in unsure) + tuple(unsure),
                   message=f"{text} ({_cn(code)}): no penalty yet, it rests on the camera's "
                           f"read{'s' if len(unsure) > 1 else ''} {listed}: confirm "
                           f"{'each' if len(unsure) > 1 else 'the read'} to give {penalty.cn} {penalty}, "
                           f"or correct it",
                   held=_held(seat, code, penalty),
                   reads=unsure, **extra)
        return False

    def _refused_read(self) -> None:
        """The play being folded was refused as impossible: where it is a camera's
        read not yet answered, the state that follows rests on the answer."""
        if self._unsure_read(self._event):
            self._pending(self._eid)

    def _pending(self, *reads: int) -> None:
        """Violations in this deal are held from now on until ``reads`` are answered."""
        s = self._s
        if s.deal is not None and s.deal.phase is not FINISHED:
            s.pending_reads.extend(r for r in reads if r not in s.pending_reads)

    def _unsure_read(self, e: Event | None) -> bool:
        """A camera's read that a penalty may not rest on (setting ``camera_penalties``
        ``confirm``): the referee has neither confirmed nor corrected it."""
        return (e is not None and self.settings.camera_penalties == "confirm" and e.source == "vision"
                and e.id is not None
                and e.id not in self._confirmed and e.id not in self._corrected)

    def _count_violation(self, deal: Deal, seat: Seat, code: Violation, penalty: Penalty, *,
                         text: str, **extra: Any) -> bool:
        """A count report fault of ``seat`` (missing, wrong, repeated, not put
        right): given (:meth:`_violation`, True), or, while the seat's count
        rests on camera reads neither confirmed nor corrected (setting
        ``camera_penalties`` ``confirm``), held as a request to count its
        cards (False). A card a camera missed leaves the count one too many,
        and a true report then looks wrong; the referee's ``count`` of the
        hand (or confirming those reads) settles it."""
        reads = deal.count_reads.get(seat)
        if not reads:
            self._violation(seat, code, penalty, text=text, **extra)
            return True
        # a seat going out on it is let out meanwhile: what follows rests on the count
        self._ask_count(deal, seat, f"{text} ({_cn(code)}): no penalty yet; ", why="",
                        then=f"to give {penalty.cn} {penalty} or clear it", hold=bool(extra.get("went_out")),
                        held=_held(seat, code, penalty), **extra)
        return False

    def _count_entry(self, e: Event) -> list[Decision]:
        """A referee's count of a seat's cards, where it was made: that seat's
        count from here on. Equal to what the plays read had left, it vouches
        for every read of the seat's plays not yet settled (their number of
        cards: a fault held on them stands); otherwise, where the seat has
        not played since the fault the count answers, it was the count then,
        and the fault is judged on it; else the fault stays held (the reads
        must be answered one by one). A count that says the reads are wrong
        about whether the seat is out stands at its last play
        (:meth:`_counted_at_play`); one asked in a deal that is over, in that
        deal (:meth:`_counted_after_deal`). Found in one pass, applied in the
        next (:meth:`_rebuild`)."""
        self._out, self._event = [], e
        self._eid = e.id or 0
        ref, seat, count = self._count_entries[self._eid]
        s = self._s
        deal, asked = s.deal, s.asked.get((ref, seat))
        if self._eid in s.at_play:
            return self._out         # (it stood at the seat's last play, and said so there)
        of = asked.deal if asked else self._deal_at(ref)
        # the seat's last play that counted and its count by the reads, in the deal of ``ref``: this
        # pass's, unless that deal is over (then as it was where the count was asked)
        last, held_then = (asked.last, asked.cards) if asked and asked.deal is not deal else (
            (deal.last_play.get(seat), deal.counts[seat]) if deal is not None and deal is of else (None, None))
        refused = deal.laid_refused.get(seat) if deal is not None and deal is of else None
        if count == 0 and refused is not None and (last is None or refused > last):
            last = refused      # (counted out: that play, refused as more than the reads left, emptied it)
        # a seat out by the reads that played on truly laid those cards: it held them after that play
        after = count + (self._laid_since(last, seat) if held_then == 0 and last is not None else 0)
        # (a seat asked about while it held cards that went out since: the count may be of then)
        went_out_since = held_then == 0 and asked is not None and asked.cards > 0
        if held_then is not None and (after == 0) != (held_then == 0) and not went_out_since:
            if asked or deal is not None and deal.count_reads.get(seat):
                return self._counted_at_play(seat, count, after, last, held_then)
            self._emit("confirm_request", seat=seat, code=Confirm.BAD_CORRECTION,
                       message=f"referee count of {seat}'s cards (event {self._eid}): {count} cards, but "
                               f"{seat} {'is out' if held_then == 0 else f'holds {held_then}'} by plays no camera "
                               f"read leaves in doubt: correct those plays")
            return self._out
        if asked and (deal is None or deal is not of or deal.phase is FINISHED):
            return self._counted_after_deal(ref, seat, count, asked)
        if deal is None or deal is not of or deal.phase is FINISHED or deal.counts[seat] == 0:
            if self._eid not in self._used_counts:     # (else what it settled ended the deal first)
                self._emit("confirm_request", seat=seat, code=Confirm.BAD_CORRECTION,
                           message=f"referee count of {seat}'s cards (event {self._eid}): "
                                   f"{seat} holds no cards in a deal in play")
            elif of is not None and deal is not of and (ref, seat) not in self._s.asked:
                # (it settled a deal that is over: said where it stands, and here as it was entered)
                self._emit("note", seat=seat, code=Note.COUNTED, count=count,
                           message=f"the referee counted {count} cards in {seat}'s hand of deal {of.number}, "
                                   f"for event {ref}")
            return self._out
        vouched, at_fault = self._found
        if self._stood():
            deal.settle_count(seat, count)      # (stood at the fault's event already, and said there)
            return self._out
        was, reads = deal.settle_count(seat, count)
        since = deal.last_play.get(seat, 0) > ref
        if count == was:
            vouched.update(reads)
            if reads:
                self._used_counts.add(self._eid)
        elif not since:
            # (the hand as counted; where ``ref`` is the seat's own play that counted, it held those too before)
            own = self._restated.get(ref) or self._find(ref) if deal.last_play.get(seat) == ref else None
            at_fault.setdefault(ref, {})[seat] = _Counted(count + len(own.cards or ()) if own else count, self._eid)
        self._emit("note", seat=seat, code=Note.COUNTED, count=count, was=was,
                   message=f"the referee counted {count} cards in {seat}'s hand"
                           + ("" if was == count else f"; the plays read had left {was}")
                           + (f", and {seat} has played since event {ref}: answer the reads of its plays "
                              f"to settle what was held there" if was != count and since else ""))
        return self._out

    def _stood(self) -> bool:
        """Whether the count being folded already stands at an event (found by an earlier pass)."""
        return any(c.entry == self._eid for by in self._at_fault.values() for c in by.values())

    def _counted_after_deal(self, ref: int, seat: Seat, count: int, asked: _Asked) -> list[Decision]:
        """A count asked in a deal that ended before it was made (a deal start
        came while the reads left it unfinished): the count of the hand where it
        was asked, which the deal in play now has nothing to do with. Equal to
        what the reads had left, it vouches for them; else it stood there."""
        vouched, at_fault = self._found
        if count == asked.cards:
            vouched.update(asked.reads)
            self._used_counts.add(self._eid)
        else:
            at_fault.setdefault(ref, {})[seat] = _Counted(count, self._eid)
        self._emit("note", seat=seat, code=Note.COUNTED, count=count, was=asked.cards,
                   message=f"the referee counted {count} cards in {seat}'s hand of deal {asked.deal.number}, "
                           f"for event {ref}" + ("" if count == asked.cards else f"; the plays read had left "
                                                                                 f"{asked.cards}"))
        return self._out

    def _laid_since(self, event_id: int, seat: Seat) -> int:
        """The cards of ``seat``'s plays after ``event_id`` up to the event being
        folded, as the referee's word leaves them (none voided, each as corrected)."""
        plays = (self._restated.get(e.id, e) for e in self.log if e.type == "play" and e.seat == seat
                 and e.id is not None and event_id < e.id < self._eid and e.id not in self._voided)
        return sum(len(e.cards or ()) for e in plays)

    def _deal_at(self, ref: int) -> Deal | None:
        """The deal an event of the log is about: the last started before it (a
        deal start's own requests are about the deal it ends)."""
        s = self._s
        i = bisect_left(s.deal_starts, ref) - 1
        return s.deals[i] if i >= 0 else None

    def _counted_at_play(self, seat: Seat, count: int, after: int, last: int | None,
                         was: int) -> list[Decision]:
        """A referee's ``count`` that says the reads were wrong about whether
        ``seat`` is out: 0 cards where the reads leave it some (it went out
        with its last play that counted, ``last``, whose read, or an earlier
        one, missed cards), or some where the reads had it out (a card read
        that was not laid; it held ``after``, its count and what it laid
        since, right after that play). Found here, it stands from that play on
        in the next pass (:meth:`_settle_counts`)."""
        if self._stood() or last is None:
            why = (f"{seat} laid no play that counted this deal" if last is None
                   else f"its last play (event {last}) no longer leaves it so")
            self._emit("confirm_request", seat=seat, code=Confirm.BAD_CORRECTION,
                       message=f"referee count of {seat}'s cards (event {self._eid}): {count} cards, "
                               f"but {why}: correct the reads of its plays")
            return self._out
        self._found[1].setdefault(last, {})[seat] = _Counted(after, self._eid, after=True)
        said = (f"no cards in {seat}'s hand: {seat} went out with its play of event {last}" if after == 0
                else f"{count} cards in {seat}'s hand: {seat} was not out after its play of event {last}")
        self._emit("note", seat=seat, code=Note.COUNTED, count=count, was=was, out_at=last,
                   message=f"the referee counted {said} (the plays read had left {was}); "
                           f"the record is judged again from there")
        return self._out

    def _settle_counts(self, counts: Mapping[Seat, _Counted]) -> None:
        """Referees' counts that stand before the event being folded (the seat
        had not played between it and the count); those that stand right
        after the seat's play being folded (``after``: whether it went out
        there) are settled before it, with its cards."""
        deal = self._s.deal
        if deal is None or deal.phase is FINISHED:
            return       # (the deal ended otherwise meanwhile: the count's own place says so)
        e = self._event
        for seat, (count, entry, after) in counts.items():
            if after:
                if e.type != "play" or e.seat != seat or not e.cards:
                    continue      # (no longer its play: the count entry asks again)
                held = count + len(e.cards)
                was, _ = deal.settle_count(seat, held)
                if deal.said.get(seat) == held:
                    # its report was true: a fault found on the reads' count was theirs, not the seat's
                    deal.report_faults.pop(seat, None)
                self._s.at_play.add(entry)
                self._emit("note", seat=seat, code=Note.COUNTED, count=count, was=was, counted_at=entry,
                           message=f"the referee counted {seat}'s hand (event {entry}): this play "
                                   + ("was its last cards" if count == 0 else f"left it {count}")
                                   + f" (it held {held} before it; the plays read had left {was})")
                continue
            was, _ = deal.settle_count(seat, count)
            self._emit("note", seat=seat, code=Note.COUNTED, count=count, was=was, counted_at=entry,
                       message=f"the referee counted {count} cards in {seat}'s hand (event {entry})"
                               + ("" if was == count else f"; the plays read had left {was}"))

    def _violation(self, seat: Seat, code: Violation | str, penalty: Penalty, *, text: str,
                   t: float | None = None, events: tuple[int, ...] | None = None,
                   ruled: bool = False, **extra: Any) -> None:
        """Emit a violation and climb the ladder for the seat's side. ``code`` is a
        :class:`Violation`, or the referee's own code for a penalty entered by hand.

        While a camera read of the deal awaits confirmation the state it left may
        be wrong (a play not counted puts the turn, the counts and the clock off),
        so a violation found then is held as a request to confirm: the penalty
        follows only when the read is confirmed or corrected and the log is
        judged again. A referee's own ruling (``ruled``) is never held."""
        e = self._event
        pending = self._s.pending_reads
        if pending and not ruled:
            self._emit("confirm_request", seat=seat, code=Confirm.HELD_VIOLATION, t=t, events=events,
                       message=f"{text} ({_cn(code)}): held, no penalty yet; it may rest on the camera "
                               f"read {_listed(pending)} awaiting confirmation: confirm or correct it",
                       held=_held(seat, code, penalty),
                       reads=list(pending), **extra)
            return
        waived = e.id in self._s.waived
        side = side_of(seat)
        message = f"{text} ({_cn(code)}): {penalty.cn} {penalty}"
        if waived:
            message += "; penalty voided by the referee"
        self._emit("violation", seat=seat, code=code, penalty=None if waived else penalty, t=t,
                   events=events, message=message, side=side, **extra)
        if not waived:
            self._penalize(seat, side, code, penalty, t)

    def _penalize(self, seat: Seat | None, side: Side, code: Violation | str, penalty: Penalty,
                  t: float | None = None) -> None:
        s = self._s
        entry = {"seat": seat, "side": side, "code": code, "penalty": penalty}
        if s.deal is not None and s.deal.phase is not FINISHED:
            s.deal.record_penalty(entry)
        else:
            s.match.record_penalty(entry)
        if penalty is Penalty.FORFEIT:
            self._forfeit(side, t, abandonment=(code == Violation.LATE))
            return
        steps = s.ladder.add(side, penalty)
        self._apply_penalty(seat, side, penalty, t)
        prev: Penalty = penalty
        for step in steps:
            counts = s.ladder.counts(side)
            self._emit("penalty", seat=seat, code=code, penalty=step, t=t,
                       side=side, ladder=counts,
                       message=f"{side}: two {prev.cn} ({prev}s) in this match make "
                               f"{step.cn} ({step}), §七")
            self._apply_penalty(seat, side, step, t)
            prev = step
            if s.match.result is not None:
                return

    def _apply_penalty(self, seat: Seat | None, side: Side, penalty: Penalty,
                       t: float | None) -> None:
        s = self._s
        if penalty is Penalty.INFRACTION and seat is not None and s.deal is not None \
                and s.deal.phase is PLAY:
            chooser = next_seat(seat)
            self._emit("confirm_request", seat=chooser, code=Confirm.STOP_CHOICE, t=t,
                       message=f"违例: {chooser} (下家 of {seat}) may stop {seat}'s next play; "
                               f"record the choice (referee action 'choice')",
                       offender=seat)
        elif penalty is Penalty.FOUL:
            self._foul(side, t)
        elif penalty is Penalty.FORFEIT:
            self._forfeit(side, t, abandonment=False)

    def _foul(self, side: Side, t: float | None) -> None:
        """犯规: the deal ends, the offending side 双下, no tribute next deal (七(三))."""
        s = self._s
        other = opponents(side)
        order = [*seats_of(other), *seats_of(side)]
        deal = s.deal
        when = t if t is not None else self._event.t
        if deal is not None and deal.phase is not FINISHED:
            self._end_deal(order, when, ended_by=EndedBy.FOUL)
        elif s.match.result is not None:
            return      # the match is over: a foul scores no further deal
        else:
            number = (deal.number + 1) if deal else len(s.match.rows) + 1
            s.match.start(when)
            row = s.match.record_deal(number, order, when, when, ended_by=EndedBy.FOUL)
            self._emit("deal_end", t=when, order=order, winner=row.winner, upgrade=row.upgrade,
                       levels=row.levels_after, deal=number, ended_by=EndedBy.FOUL,
                       message=f"deal {number} scored as 双下 for {side} (犯规)")
            s.prev_order = order
            if s.match.result is not None:
                self._match_end(when)
        s.no_tribute_side = other

    def _forfeit(self, side: Side, t: float | None, abandonment: bool) -> None:
        s = self._s
        when = t if t is not None else self._event.t
        if s.match.result is not None:
            return
        if s.deal is not None and s.deal.phase is not FINISHED:
            s.deal.finish()
            s.clocks.clear()
        s.match.forfeit(side, when, abandonment=abandonment)
        self._match_end(when)

    def _match_end(self, t: float) -> None:
        res = self._s.match.result
        assert res is not None
        self._s.clocks.clear()
        self._emit("match_end", t=t, winner=res.winner, reason=res.reason,
                   result=res.to_dict(),
                   message=(f"match over ({res.reason}): "
                            + (f"{res.winner} wins" if res.winner else "draw")
                            + f", points NS {res.points[Side.NS]} EW {res.points[Side.EW]}, "
                              f"级差分 NS {res.level_points[Side.NS]} EW {res.level_points[Side.EW]}"))

    # ------------------------------------------------------------ deal start
    def _on_deal_start(self, e: Event) -> None:
        s, m = self._s, self._s.match
        number = e.get("deal")
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            self._emit("confirm_request", code=Confirm.BAD_EVENT,
                       message=f"deal_start: 'deal' must be a deal number 1, 2, ..., got {number!r}")
            return
        if m.result is not None:
            self._emit("confirm_request", code=Confirm.MATCH_OVER,
                       message=f"deal {e.get('deal')} started but the match is over")
            return
        held: list[int] = []
        if s.deal is not None and s.deal.phase is not FINISHED:
            held = self._unfinished(s.deal)
        if not m.rows and s.prev_order is None:
            try:
                self._seed(e)
            except CardError as exc:
                self._emit("confirm_request", code=Confirm.BAD_EVENT,
                           message=f"deal_start: bad 'levels': {exc}")
        m.start(e.t)
        level = m.deal_level()
        given = str(e.get("level", level)).upper().replace("T", "10")
        if given != level:
            self._emit("confirm_request", code=Confirm.LEVEL_MISMATCH,
                       message=f"deal_start says level {given}, the match says {level}; "
                               f"judging at {level}")
        deal = Deal(number=number, level=level, t_start=e.t)
        s.deal = deal
        s.deal_starts.append(self._eid)
        s.deals.append(deal)
        s.pending_reads = held    # a read of the last deal bears on this one only where it may have ended
        s.clocks.clear()
        named = e.get("leader")
        leader = seat_named(named)
        if named is not None and leader is None:
            self._emit("confirm_request", code=Confirm.BAD_EVENT,
                       message=f"deal_start: bad leader {named!r} (expected one of E S W N); "
                               f"the first play will show who leads")
        if s.prev_order is not None and s.no_tribute_side is None and not m.extra_deal:
            self._start_tribute(deal, s.prev_order)
            return
        if s.no_tribute_side is not None and leader is not None \
                and side_of(leader) != s.no_tribute_side:
            self._emit("confirm_request", seat=leader, code=Confirm.LEADER_SIDE,
                       message=f"after a foul the first leader comes from {s.no_tribute_side} "
                               f"(七(三)); {leader} is not on that side")
        s.no_tribute_side = None
        self._emit("deal_start", deal=deal.number, level=level, phase=deal.phase, leader=leader,
                   message=f"deal {deal.number} at level {level}, "
                           + (f"{leader} leads" if leader else "first leader not given"))
        if leader is not None:
            deal.lead_by(leader)
            self._turn(leader, _LEAD, self.settings.first_lead_limit)

    def _unfinished(self, deal: Deal) -> list[int]:
        """A deal start while ``deal`` is unfinished: it is dropped unscored. Where
        a seat whose going out would have ended it may be out (its count rests on
        unanswered camera reads), the referee is asked for that seat's count (0:
        it went out, and the deal is scored) and the new deal's violations are
        held meanwhile: the reads to answer are returned."""
        doubt = self._may_be_out(deal, (), deal_end=True) if deal.phase is PLAY else None
        if doubt is None:
            self._emit("confirm_request", code=Confirm.DEAL_UNFINISHED,
                       message=f"deal {deal.number} had not finished; it is dropped unscored")
            return []
        self._ask_count(deal, doubt, f"deal {deal.number} had not finished by the camera's reads, and is dropped "
                                     f"unscored; ", why=f", and {doubt} may have gone out, ending it",
                        then="(0 if it went out: the deal is then scored)", hold=False, deal_unfinished=deal.number)
        return list(deal.count_reads[doubt])

    def _start_tribute(self, deal: Deal, prev_order: list[Seat]) -> None:
        deal.begin_tribute(prev_order)
        self._emit("deal_start", deal=deal.number, level=deal.level, phase=deal.phase,
                   tributers=list(deal.tributers), receivers=list(deal.receivers),
                   message=f"deal {deal.number} at level {deal.level}: "
                           f"{' and '.join(deal.tributers)} to give tribute (贡牌)")
        for seat in deal.tributers:
            self._turn(seat, Purpose.TRIBUTE, self.settings.tribute_limit)

    def _seed(self, e: Event) -> None:
        """A log that starts mid-match may carry the levels and the last deal's order."""
        m, s = self._s.match, self._s
        levels = e.get("levels")
        if isinstance(levels, Mapping):
            for side in SIDES:
                if side in levels:
                    v = str(levels[side])
                    m.levels[side] = 15 if v == "A+" else level_rank(v)
        prev = e.get("previous_order")
        order = [seat_named(p) for p in prev] if isinstance(prev, list) else []
        if order and all(order):
            s.prev_order = [p for p in order if p is not None]
            m.owner = side_of(s.prev_order[0])
        elif isinstance(levels, Mapping) and e.get("level") is not None:
            lv = level_rank(str(e.get("level")))
            owners = [side for side in SIDES if m.levels[side] == lv]
            if owners:
                m.owner = owners[0]

    # ------------------------------------------------------------ tribute
    def _on_tribute(self, e: Event) -> None:
        cur = self._s.deal
        if cur is not None and cur.phase is Phase.RETURN and e.seat in cur.receivers:
            # a camera sees one card laid in a reminder zone; which of tribute
            # or return it is follows from the phase and the seat
            return self._on_return(e)
        deal = self._need_phase(e, Phase.TRIBUTE)
        if deal is None:
            return
        seat = e.seat
        if seat is None or seat not in deal.tributers or seat in deal.tributes:
            self._emit("confirm_request", seat=seat, code=Confirm.UNEXPECTED_TRIBUTE,
                       message=f"tribute from {seat}, but "
                               + (f"{seat} has already given" if seat in deal.tributes
                                  else f"only {' and '.join(deal.tributers)} give tribute"))
            return
        card = self._card(e, e.card)
        if card is None:
            return
        if is_wild(card, deal.level):
            # 七(一)4: 贡错牌，尚未出牌，退回错张、重新给牌，给予警告
            self._read_violation(seat, Violation.WRONG_TRIBUTE, Penalty.WARNING,
                                 text=f"{seat} gave {card.code}, a heart level card (红心级牌), as tribute; "
                                      f"it is taken back and {seat} gives again", card=card.code)
            return
        self._s.clocks.stop(seat)
        done = deal.give_tribute(seat, card, self._eid)
        if done is None:
            return
        self._emit("tribute_assigned", gives_to=dict(done.gives_to),
                   cards={g: c.code for g, c in deal.tributes.items()},
                   leader=done.leader,
                   message="; ".join(f"{g} gives {deal.tributes[g].code} to {r}"
                                     for g, r in done.gives_to.items())
                           + f"; {done.leader} will lead")
        for receiver in done.gives_to.values():
            self._turn(receiver, Purpose.RETURN, self.settings.return_limit)

    def _on_anti_tribute(self, e: Event) -> None:
        deal = self._need_phase(e, Phase.TRIBUTE)
        if deal is None:
            return
        cards = self._cards(e)
        if cards is None:
            return
        if e.seat is None or e.seat not in deal.tributers or any(c.code != "BJ" for c in cards):
            self._emit("confirm_request", seat=e.seat, code=Confirm.BAD_ANTI_TRIBUTE,
                       message=f"抗贡 needs the tribute side ({' and '.join(deal.tributers)}) "
                               f"to show big jokers; got {e.seat} showing "
                               f"{' '.join(c.code for c in cards)}")
            return
        leader = deal.show_jokers(e.seat, len(cards))
        if leader is None:
            return
        self._s.clocks.clear()
        self._emit("anti_tribute", seat=e.seat, leader=leader,
                   message=f"抗贡: the tribute side holds both big jokers; no tribute, "
                           f"{leader} (上游) leads (五(四)3)")
        self._turn(leader, _LEAD, self.settings.first_lead_limit)

    def _on_return(self, e: Event) -> None:
        deal = self._need_phase(e, Phase.RETURN)
        if deal is None:
            return
        seat = e.seat
        giver = deal.giver_to(seat) if seat is not None else None
        if seat is None or giver is None or seat in deal.returns:
            self._emit("confirm_request", seat=seat, code=Confirm.UNEXPECTED_RETURN,
                       message=f"return from {seat}, but {seat} "
                               + ("has already returned" if seat in deal.returns
                                  else "received no tribute"))
            return
        card = self._card(e, e.card)
        if card is None:
            return
        self._s.clocks.stop(seat)
        leader = deal.give_return(seat, card, self._eid)
        if leader is not None:
            self._turn(leader, _LEAD, self.settings.first_lead_limit)

    def _need_phase(self, e: Event, phase: Phase) -> Deal | None:
        deal = self._s.deal
        if deal is None or deal.phase is not phase:
            now = deal.phase if deal else "no deal"
            self._emit("confirm_request", seat=e.seat, code=Confirm.WRONG_PHASE,
                       message=f"{e.type} from {e.seat} during {now}: not expected now")
            return None
        return deal

    # ------------------------------------------------------------ cards
    def _card(self, e: Event, code: Any) -> Card | None:
        try:
            return parse_card(code)
        except CardError as exc:
            self._emit("confirm_request", seat=e.seat, code=Confirm.BAD_CARDS,
                       message=f"{e.type} by {e.seat}: {exc}")
            return None

    def _cards(self, e: Event) -> tuple[Card, ...] | None:
        try:
            cards = parse_cards(e.cards or ())
            if not cards:
                raise CardError("no cards")
            return cards
        except CardError as exc:
            self._emit("confirm_request", seat=e.seat, code=Confirm.BAD_CARDS,
                       message=f"{e.type} by {e.seat}: {exc}")
            return None


    # ------------------------------------------------------------ play and pass
    def _playing(self, e: Event) -> tuple[Deal, Seat] | None:
        """The deal in play and the acting seat, or None (and why) if it cannot act."""
        deal = self._s.deal
        if deal is None or deal.phase is FINISHED:
            self._no_deal(deal, e)
            return None
        seat = e.seat
        if seat is None:
            raise _no_seat(e)
        if deal.counts[seat] == 0:
            if not self._out_in_doubt(deal, e, (seat,)):
                self._emit("confirm_request", seat=seat, code=Confirm.SEAT_OUT,
                           message=f"{e.type} by {seat}, who is already out")
            return None
        return deal, seat

    def _no_deal(self, deal: Deal | None, e: Event) -> None:
        """A play, pass or report with no deal in play: asked about, or, where the
        reads may have ended the deal early, asked as a count (:meth:`_out_in_doubt`)."""
        if deal is None or not self._out_in_doubt(deal, e, (e.seat, *deal.order[-1:])):
            self._emit("confirm_request", seat=e.seat, code=Confirm.NO_DEAL,
                       message=f"{e.type} by {e.seat} with no deal in play")

    def _out_in_doubt(self, deal: Deal, e: Event, seats: Iterable[Seat | None]) -> bool:
        """An act by a seat that is out, or after the deal ended: asked as a
        count of the first of ``seats`` that is out by camera reads neither
        confirmed nor corrected (True). A card read that was not laid puts a
        seat out early (and may end the deal): it then plays on, its plays
        refused. Asked once while those reads wait; what follows is held."""
        doubt = next((y for y in seats if y is not None and deal.counts[y] == 0 and deal.count_reads.get(y)), None)
        if doubt is None or self._s.pending_reads:
            return False
        # (a deal that is over holds nothing: asked once for the seat's going out)
        last = deal.last_play.get(doubt)
        if deal.phase is FINISHED and any(y == doubt and a.deal is deal and a.last == last
                                          for (_, y), a in self._s.asked.items()):
            return False
        self._ask_count(deal, doubt, f"{e.type} by {e.seat}, but {doubt} is out by the camera's reads"
                                     + ("" if deal.phase is not FINISHED else " and the deal over") + "; ",
                        why=f", and {doubt} may still hold cards", then="", seat_out=True, actor=e.seat)
        return True

    def _on_play(self, e: Event) -> None:
        acting = self._playing(e)
        if acting is None:
            return
        deal, seat = acting
        cards = self._cards(e)
        if cards is None or self._play_refused(deal, seat, cards):
            return
        if deal.turn is None:          # first deal, leader not named: the first play leads
            deal.lead_by(seat)
        j = _judge(cards, deal.level, deal.standing)
        if j.reading is None or not j.legal:
            # a combination that does not follow rests on the read of the play it fails to beat too
            beaten = (deal.last_play[deal.standing_seat],) if j.reading is not None and deal.standing_seat else ()
            self._read_violation(seat, Violation.ILLEGAL_PLAY, Penalty.INFRACTION, events=(*beaten, self._eid),
                                 text=f"{seat}: {j.reason}; the cards are taken back", judged=j.code)
            self._seen_taken_back(deal, seat, cards)
            return
        if self._out_with_report_fault(deal, seat, cards):
            return
        self._count_action(deal, seat)
        if j.arrangement:
            self._read_violation(seat, Violation.ARRANGEMENT, Penalty.WARNING, moves_state=False,
                                 text=f"{seat} laid {_codes(cards)}: {'; '.join(j.arrangement)}")
        if deal.phase is FINISHED or self._proof(deal, seat, cards):
            return     # a penalty (or a proven wrong tribute) ended the deal
        self._s.clocks.stop(seat)
        played = deal.play(seat, cards, j.reading, self._eid)
        counted = self._at_fault.get(self._eid, {}).get(seat)
        if self._unsure_read(e) and self._eid not in self._vouched and not (counted and counted.after):
            deal.read_counted(seat, self._eid)     # (a count right after it says what it left)
        if played.place:
            self._emit("note", seat=seat, code=Note.OUT,
                       message=f"{seat} is out: {PLACES[played.place - 1]}", place=played.place)
            if deal.over() or self._s.match.extra_deal:   # an extra deal ends at 上游
                self._end_deal(deal.order, e.t)
                return
        self._next_turn(deal, seat)

    def _play_refused(self, deal: Deal, seat: Seat, cards: tuple[Card, ...]) -> bool:
        """Cards that cannot be this play (a third copy, more than held: asked
        about), or a play out of turn (违例); True when the play does not count.
        A camera's read refused so is likelier misread than impossible (a ten
        read for an eight): what follows is held until it is answered. A
        read the referee confirmed or corrected is what was laid: a card it
        shows a third time was misread earlier, and the play counts."""
        looked = self._event.id in self._confirmed or self._event.id in self._corrected
        for c in cards:    # in laid order, so the same card is named on every run
            if deal.seen[c.code] + cards.count(c) > 2 and not looked:
                self._emit("confirm_request", seat=seat, code=Confirm.TOO_MANY_COPIES,
                           message=f"{seat} laid {_codes(cards)}: {c.code} would be seen "
                                   f"{deal.seen[c.code] + cards.count(c)} times this deal, but the two "
                                   f"decks hold 2 (recognition error or a foreign card?)")
                self._refused_read()
                return True
        if len(cards) > deal.counts[seat]:
            # (its count resting on the camera's reads, it may hold more than they leave: its plays
            # read short, and this play its last cards; the count of its hand says)
            if deal.count_reads.get(seat) and not self._s.pending_reads:
                deal.laid_refused[seat] = self._eid
                self._ask_count(deal, seat, f"{seat} laid {len(cards)} cards (not counted); ",
                                why=f", and {seat} may hold more", then="(or correct the play)", laid=len(cards))
                return True
            self._emit("confirm_request", seat=seat, code=Confirm.MORE_CARDS_THAN_HELD,
                       message=f"{seat} laid {len(cards)} cards but holds {deal.counts[seat]}")
            self._refused_read()
            return True
        if deal.phase is not PLAY or (deal.turn is not None and seat != deal.turn):
            expected = deal.turn if deal.phase is PLAY else f"the {deal.phase} to finish"
            self._out_of_turn(deal, seat, Violation.OUT_OF_TURN_PLAY, Penalty.INFRACTION,
                              text=f"{seat} played {_codes(cards)} before {expected}; "
                                   f"the cards are taken back", **_expected(deal))
            self._seen_taken_back(deal, seat, cards)
            return True
        return False

    def _seen_taken_back(self, deal: Deal, seat: Seat, cards: tuple[Card, ...]) -> None:
        """Cards taken back were still seen: they prove a wrong tribute or return as
        a play that counts would (unless the penalty just given ended the deal)."""
        if deal.phase is not FINISHED:
            self._proof(deal, seat, cards)

    def _out_with_report_fault(self, deal: Deal, seat: Seat, cards: tuple[Card, ...]) -> bool:
        """七(二)4 / 七(三)4: going out after a report fault not put right is penalised
        (a foul as 上游, else an infraction and the cards go back); True if so."""
        fault = deal.report_faults.get(seat)
        if fault is None or len(cards) != deal.counts[seat]:
            return False
        what = fault.code.replace('_', ' ')
        # held on the camera's count: the play goes out as if there were no fault
        if not deal.order:
            return self._count_violation(deal, seat, fault.code, Penalty.FOUL, went_out=True,
                                         text=f"{seat} went out as 上游 after a {what} that was never put right")
        return self._count_violation(deal, seat, fault.code, Penalty.INFRACTION, went_out=True,
                                     text=f"{seat} went out after a {what} that was never put right; "
                                          f"the cards are taken back")

    def _on_pass(self, e: Event) -> None:
        acting = self._playing(e)
        if acting is None:
            return
        deal, seat = acting
        if deal.phase is not PLAY or seat != deal.turn:
            self._pass_out_of_turn(deal, seat)
            return
        if deal.standing is None:
            self._emit("confirm_request", seat=seat, code=Confirm.LEADER_PASS,
                       message=f"{seat} passed while leading: the leader must play (领出牌); "
                               f"pass not counted")
            return
        self._count_action(deal, seat)
        if deal.phase is FINISHED:
            return     # a report penalty reached a foul: the deal is over
        self._s.clocks.stop(seat)
        deal.pass_turn(seat)
        self._next_turn(deal, seat)

    def _pass_out_of_turn(self, deal: Deal, seat: Seat) -> None:
        """越序表态: a warning (2023), or under the 2022 rule the seat sits out the trick."""
        expected = deal.turn if deal.phase is PLAY else f"the {deal.phase} to finish"
        if self._turn_in_doubt(deal, seat, Violation.OUT_OF_TURN_PASS, Penalty.WARNING,
                               text=f"{seat} passed before {expected}"):
            return
        if self.settings.out_of_turn_pass == "sit_out_trick" and deal.phase is PLAY:
            deal.bar(seat)
            self._emit("violation", seat=seat, code=Violation.OUT_OF_TURN_PASS, side=side_of(seat),
                       message=f"{seat} passed before {expected} (越序表态, 2022 第八条): "
                               f"{seat} may not follow for the rest of this trick (本圈不得跟牌)",
                       sit_out=True, **_expected(deal))
            return
        self._violation(seat, Violation.OUT_OF_TURN_PASS, Penalty.WARNING,
                        text=f"{seat} passed before {expected}", **_expected(deal))

    def _out_of_turn(self, deal: Deal, seat: Seat, code: Violation, penalty: Penalty, *, text: str,
                     **extra: Any) -> None:
        """An act before the seat whose turn it is: penalised, or held while that seat may be out."""
        if not self._turn_in_doubt(deal, seat, code, penalty, text=text):
            self._violation(seat, code, penalty, text=text, **extra)

    def _turn_in_doubt(self, deal: Deal, seat: Seat, code: Violation, penalty: Penalty, *,
                       text: str, t: float | None = None, deal_end: bool = False) -> bool:
        """Held (True) where the seat the turn waits for may be out: its count
        rests on camera reads neither confirmed nor corrected (setting
        ``camera_penalties`` ``confirm``). A pair read as a single leaves a
        seat that went out holding a card, and the turn then waits for it:
        the next seat acting in turn seems to act before it. ``deal_end``
        (an overtime): a seat whose going out would end the deal may be out
        too, and nobody was to act. The request asks the referee to count that
        seat's cards (0 if it is out); what follows is held until then. A
        violation already held for other reads is held with them
        (:meth:`_violation`)."""
        if deal.phase is not PLAY or deal.turn is None or self._s.pending_reads:
            return False
        doubt = self._may_be_out(deal, (deal.turn,), deal_end)
        if doubt is None:
            return False
        self._ask_count(deal, doubt, f"{text} ({_cn(code)}): no penalty yet; ", t=t,
                        why=f", and {doubt} may be out", then=f"to give {penalty.cn} {penalty} or clear it",
                        held=_held(seat, code, penalty), offender=seat)
        return True

    def _may_be_out(self, deal: Deal, seats: Iterable[Seat], deal_end: bool) -> Seat | None:
        """The seat to count, of ``seats`` and (``deal_end``) those whose going
        out would end the deal, whose count rests on unanswered camera reads
        and is ten or fewer: the one holding fewest by the reads (the
        likeliest out). More than ten, the reads would have missed more than
        ten of its cards (a real read the camera was sure of missed at most
        four, models/MODEL_CARD.md), and a seat holding ten or fewer reports
        its count (报牌), so counting it is quick."""
        order = deal.order
        enders = [y for y in deal.active() if len(order) >= 2 or is_double_down([*order, y])] if deal_end else []
        doubt = [y for y in dict.fromkeys((*seats, *enders))
                 if 0 < deal.counts[y] <= REPORT_LIMIT and deal.count_reads.get(y)]
        return min(doubt, key=lambda y: deal.counts[y]) if doubt else None

    def _ask_count(self, deal: Deal, seat: Seat, text: str, *, why: str, then: str, t: float | None = None,
                   hold: bool = True, **extra: Any) -> None:
        """A ``camera_count`` request: ``seat``'s count rests on the camera's
        reads; the referee counts its cards. What follows is held until then
        where ``hold``."""
        reads = deal.count_reads[seat]
        if hold:
            self._pending(*reads)
        self._s.asked[(self._eid, seat)] = _Asked(deal, deal.last_play.get(seat), deal.counts[seat], tuple(reads))
        self._emit("confirm_request", seat=seat, code=Confirm.CAMERA_COUNT, t=t,
                   message=f"{text}{seat}'s count of {deal.counts[seat]} rests on the camera's reads "
                           f"{_listed(reads)}{why}: count {seat}'s cards (referee count{', 0 if out' if why else ''})"
                           + (f" {then}" if then else ""),
                   reads=list(reads), counted=deal.counts[seat], **extra)

    def _next_turn(self, deal: Deal, seat: Seat) -> None:
        """After ``seat`` acted: say who was skipped, whether the trick ended, who acts."""
        turn = deal.next_turn(seat)
        for skip in turn.skipped:
            why = ("may not follow this trick after passing out of turn (本圈不得跟牌)" if skip.barred
                   else "play is stopped (违例 choice)")
            self._emit("note", seat=skip.seat, code=Note.STOPPED,
                       message=f"{skip.seat}'s {why}: counted as a pass")
        end = turn.trick_end
        if end is None:
            self._turn(turn.seat, _PLAY, self.settings.play_limit)
            return
        first = end.leader if end.stopped is None else end.stopped
        self._emit("trick_end", seat=first, leader=first, jiefeng=end.jiefeng,
                   message=f"trick won by {end.won_by}; {first} leads"
                           + (" (接风: partner of a seat that is out)" if end.jiefeng else ""))
        if end.stopped is not None:
            self._emit("note", seat=end.leader, code=Note.STOPPED,
                       message=f"{end.stopped}'s lead is stopped (违例 choice); {end.leader} leads")
        self._turn(end.leader, _LEAD, self.settings.play_limit)

    # ------------------------------------------------------------ reports
    def _count_action(self, deal: Deal, actor: Seat) -> None:
        """A play or pass by ``actor``: reports due from others are now missing, and
        faults left unput-right grow."""
        missing, escalated = deal.count_action(actor, self._eid)
        for seat, count in missing:
            self._count_violation(deal, seat, Violation.MISSING_REPORT, Penalty.WARNING,
                                  text=f"{seat} did not report {count} cards left before {actor} acted",
                                  count=count, actor=actor)
        for seat, code in escalated:
            self._count_violation(deal, seat, code, Penalty.INFRACTION,
                                  text=f"{seat}'s {code.replace('_', ' ')} still not put right "
                                       f"when {actor} acted a second time (一家出牌超过一手牌)",
                                  actor=actor, escalated=True)

    def _on_report(self, e: Event) -> None:
        deal = self._s.deal
        if deal is None or deal.phase is FINISHED:
            self._no_deal(deal, e)
            return
        seat = e.seat
        if seat is None:
            raise _no_seat(e)
        actual, count = deal.counts[seat], e.count
        outcome = deal.report(seat, count, self._eid)
        if outcome is Report.REPEATED:
            self._count_violation(deal, seat, Violation.REPEAT_REPORT, Penalty.WARNING,
                                  text=f"{seat} reported {count} again", count=count)
        elif outcome is Report.CORRECTED:
            self._emit("note", seat=seat, code=Note.REPORT_CORRECTED,
                       message=f"{seat} now reports {count} correctly")
        elif outcome is Report.WRONG:
            self._count_violation(deal, seat, Violation.WRONG_REPORT, Penalty.WARNING,
                                  text=f"{seat} reported {count} but holds {actual}", count=count,
                                  holds=actual)

    def _on_report_clear(self, e: Event) -> None:
        if self._s.deal is not None and e.seat is not None:
            self._s.deal.clear_report(e.seat)

    # ------------------------------------------------------------ tribute proofs
    def _proof(self, deal: Deal, seat: Seat, cards: tuple[Card, ...]) -> bool:
        """Cards that prove the seat's tribute or return was wrong, whether the play
        counts or is taken back (cards seen are proof): 七(三)3 犯规 once play has
        begun (the deal ends: True), else 七(一)4 警告 (尚未出牌)."""
        proof = deal.prove(seat, cards, self._eid)
        if proof is None:
            return False
        if deal.phase is not PLAY:
            self._read_violation(seat, proof.code, Penalty.WARNING, events=proof.events, moves_state=False,
                                 text=f"{seat} showed {proof.card.code}, {proof.why}: the {proof.what} was "
                                      f"wrong, before play began; the wrong card is exchanged",
                                 **_proof_values(proof))
            return False
        # held: the deal goes on until the read is confirmed (the log is then judged again)
        return self._read_violation(seat, proof.code, Penalty.FOUL, events=proof.events,
                                    text=f"{seat} played {proof.card.code}, {proof.why}: the {proof.what} was "
                                         f"wrong and play has followed", **_proof_values(proof))

    # ------------------------------------------------------------ end of deal
    def _end_deal(self, order: list[Seat], t: float, ended_by: EndedBy = EndedBy.PLAY) -> None:
        s = self._s
        deal = s.deal
        assert deal is not None
        full = complete_order(order) if ended_by is EndedBy.PLAY else list(order)
        deal.finish()
        s.clocks.clear()
        row = s.match.record_deal(deal.number, full, deal.t_start, t, ended_by=ended_by,
                                  penalties=deal.penalties)
        s.prev_order = full
        self._emit("deal_end", t=t, order=full, winner=row.winner, upgrade=row.upgrade,
                   levels=row.levels_after, deal=deal.number, ended_by=row.ended_by,
                   double_down=full[1] == partner(full[0]),
                   message=f"deal {deal.number} over: {' '.join(full)}; "
                           + (f"{row.winner} wins the extra deal" if row.ended_by is EndedBy.EXTRA
                              else f"{row.winner} up {row.upgrade}, levels NS "
                                   f"{row.levels_after[Side.NS]} EW {row.levels_after[Side.EW]}"))
        if s.match.result is not None:
            self._match_end(t)

    # ------------------------------------------------------------ other events
    def _on_settings(self, e: Event) -> None:
        """The match's settings from this event on (checked when the event was read)."""
        if not self.log_settings:
            self._emit("note", code=Note.SETTINGS, message="settings in the log ignored: the "
                       "referee's own settings judge this log", ignored=True)
            return
        new = Settings.from_dict(e.get("settings"))
        teams, players, captains = e.get("teams"), e.get("players"), e.get("captains")
        if isinstance(teams, Mapping):
            self.teams = {str(k): str(v) for k, v in teams.items()}
        if isinstance(players, Mapping):
            self.players = {str(k): str(v) for k, v in players.items()}
        if isinstance(captains, Mapping):
            self.captains = {str(k): str(v) for k, v in captains.items()}
        self.settings = new
        self._s.match.settings = new
        self._s.clocks.countdown = new.countdown
        names = " v ".join(f"{side} {self.teams[side]}" for side in SIDES if side in self.teams)
        self._emit("note", code=Note.SETTINGS, settings=new.to_dict(), teams=dict(self.teams),
                   players=dict(self.players), captains=dict(self.captains),
                   message=f"match settings: {new.describe_format()}, tie {new.tie}, limits "
                           f"{new.tribute_limit:g}/{new.return_limit:g}/{new.first_lead_limit:g}/"
                           f"{new.play_limit:g} s, countdown {new.countdown:g} s"
                           + (f"; {names}" if names else ""))

    def _on_tick(self, e: Event) -> None:
        pass

    def _on_zone_clear(self, e: Event) -> None:
        pass

    def _on_device_status(self, e: Event) -> None:
        device = str(e.get("device"))
        moved = e.get("moved_mm")
        if (e.get("online") and e.source == "vision" and isinstance(moved, (int, float))
                and not isinstance(moved, bool) and moved > 0):
            # (vision.reading.camera_shift: the zones follow the table; the technician should recalibrate)
            self._emit("note", code=Note.CAMERA_MOVED, device=device, moved_mm=moved,
                       message=f"camera {device} moved {moved:g} mm and found the table again from its "
                               f"markers: have it recalibrated")
        if e.get("online") and e.source == "vision" and e.get("soft") is True:
            # (vision.reading.focus: read as it is, its reads asked about more often)
            self._emit("note", code=Note.CAMERA_SOFT, device=device,
                       message=f"camera {device}'s picture has been soft for seconds: have it focused by hand")
        if e.get("online"):
            if device in self._s.offline:
                self._s.offline.discard(device)
                if device in self._s.cameras_off:
                    self._s.cameras_off.discard(device)
                    self._s.camera_back_t = e.t
                self._emit("device_online", seat=e.seat, device=device,
                           message=f"device {device} back online")
        elif device not in self._s.offline:
            self._s.offline.add(device)
            if e.source == "vision":      # a camera: what goes unseen is the cards laid, not the presses
                self._s.cameras_off.add(device)
                self._emit("device_offline", seat=e.seat, device=device, camera=True,
                           message=f"camera {device} offline: enter plays and tributes by hand")
            else:
                self._emit("device_offline", seat=e.seat, device=device,
                           message=f"device {device} offline: watch passes and reports by hand")

    def _on_referee(self, e: Event) -> None:
        action = e.get("action")
        handler = _REFEREE_ACTIONS.get(action) if isinstance(action, str) else None
        if handler is None:
            self._emit("confirm_request", code=Confirm.BAD_REFEREE_EVENT,
                       message=f"unknown referee action {action!r}")
            return
        handler(self, e)

    def _choice(self, e: Event) -> None:
        """违例 choice: the non-offending side stops the offender's next play."""
        offender = seat_named(e.get("seat") or e.get("offender"))
        deal = self._s.deal
        if offender is not None and e.get("stop", True) and deal is not None and deal.phase is PLAY:
            deal.stop(offender)
            self._emit("note", seat=offender, code=Note.STOP_RECORDED,
                       message=f"{next_seat(offender)} chose to stop {offender}'s next play")

    def _sign(self, e: Event) -> None:
        """A side confirms the score sheet."""
        side = side_named(e.get("side"))
        if side is None:
            self._emit("confirm_request", code=Confirm.BAD_REFEREE_EVENT,
                       message="referee sign needs side (NS/EW)")
            return
        self._emit("note", code=Note.SIGNED, side=side, name=e.get("name") or e.get("who"),
                   message=f"{side} confirmed the score sheet (双方签字确认)")

    def _late(self, e: Event) -> None:
        """Lateness: under 5 minutes a warning, under 10 a foul, else abandonment."""
        side = side_named(e.get("side") or (side_of(e.seat) if e.seat else None))
        minutes = e.get("minutes")
        if side is None or not isinstance(minutes, (int, float)):
            self._emit("confirm_request", code=Confirm.BAD_REFEREE_EVENT,
                       message="referee late needs side (NS/EW) and minutes")
            return
        penalty: Penalty = (Penalty.WARNING if minutes < LATE_WARNING_MIN else
                   Penalty.FOUL if minutes < LATE_FOUL_MIN else Penalty.FORFEIT)
        seat = e.seat or seats_of(side)[0]
        self._violation(seat, Violation.LATE, penalty, text=f"{side} {minutes:g} minutes late", ruled=True,
                        minutes=minutes)

    def _manual_penalty(self, e: Event) -> None:
        """A penalty the referee gives by hand (signalling, or any code of their own)."""
        side = side_named(e.get("side"))
        seat = e.seat or (seats_of(side)[0] if side is not None else None)
        penalty, code = e.get("penalty"), e.get("code", "manual")
        if seat is None or penalty not in PENALTIES:
            self._emit("confirm_request", code=Confirm.BAD_REFEREE_EVENT,
                       message="referee penalty needs seat or side and a penalty "
                               "(warning, infraction, foul, forfeit)")
            return
        # a changed penalty (``changes``: the event whose penalty it replaces) keeps
        # the original evidence: the decision names those events, this one last
        events: tuple[int, ...] | None = None
        extra: dict[str, Any] = {}
        evidence, changes = e.get("evidence"), e.get("changes")
        if isinstance(evidence, list) and e.id is not None:
            ids = tuple(i for i in evidence if type(i) is int and 1 <= i < e.id)
            events = (*ids, e.id)
        if type(changes) is int:
            extra["changes"] = changes
        self._violation(seat, _VIOLATION_BY_CODE.get(code, code), Penalty(penalty),
                        text=e.get("reason") or f"{seat}: referee's ruling", events=events,
                        ruled=True, **extra)


# event type -> handler, e.g. 'play' -> Table._on_play
_HANDLERS: dict[str, Callable[[Table, Event], None]] = {
    name[4:]: fn for name, fn in vars(Table).items() if name.startswith("_on_")}
# referee action -> handler (void, correct and confirm are corrections, handled apart)
_REFEREE_ACTIONS: dict[str, Callable[[Table, Event], None]] = {
    "choice": Table._choice, "sign": Table._sign, "late": Table._late, "penalty": Table._manual_penalty}


@lru_cache(maxsize=1 << 16)
def _judge(cards: tuple[Card, ...], level: str, previous: Combination | None) -> Judgement:
    """:func:`referee.judge` remembered: tables see the same plays over and over."""
    return judge(cards, level, previous)


@lru_cache(maxsize=256)
def _turn_message(seat: Seat, purpose: Purpose, limit: float) -> str:
    """The message of a ``turn`` decision, made once: nearly every event has one, and
    formatting an enum member costs several times a plain string's."""
    return f"{seat} to {purpose} within {limit:g} s"


def _no_seat(e: Event) -> EventError:
    # decoding lets '"seat": null' through (the field is there), but no seat acts
    return EventError(f"{e.type}: 'seat' must name a seat, got null")


def _expected(deal: Deal) -> dict[str, Any]:
    """Whom an out-of-turn action came before: the seat to act, or the phase
    (tribute, return) still to finish; typed values for the message templates."""
    if deal.phase is PLAY and deal.turn is not None:
        return {"expected": deal.turn}
    return {"before_phase": str(deal.phase)}


def _proof_values(proof: Proof) -> dict[str, Any]:
    """A proven wrong tribute or return as typed values: what was given, what proves it."""
    out: dict[str, Any] = {"card": proof.card.code, "what": proof.what}
    if proof.given is not None:
        out["given"] = proof.given.code
    return out


def _codes(cards: Iterable[Card]) -> str:
    return " ".join(c.code for c in cards)


def _observed(e: Event) -> dict[str, Any]:
    return {k: v for k, v in e.to_dict().items() if k in ("type", "seat", "cards", "card", "count")}
