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
('violation', 'out_of_turn_play', 'infraction')
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

from functools import lru_cache
from typing import Any, Iterable, Mapping

from referee.cards import Card, CardError, is_wild, parse_card, parse_cards, single_value
from referee.clock import Clocks
from referee.deal import Deal, ReportFault, assign_tributes, complete_order, tribute_plan
from referee.decisions import Decision
from referee.events import Event
from referee.judge import judge
from referee.match import Match
from referee.penalties import PENALTIES, PENALTY_CN, Ladder
from referee.scoring import level_label
from referee.seating import PLAY_ORDER, next_seat, opponents, partner, seats_of, side_of
from referee.settings import Settings

# Violation code -> (Chinese term, rule clause) for messages.
VIOLATIONS = {
    "out_of_turn_play": ("越序出牌", "七(二)2"),
    "out_of_turn_pass": ("越序表态", "七(一)6"),
    "illegal_play": ("出错牌", "七(二)3"),
    "overtime": ("出牌/贡还牌超时", "七(一)5"),
    "missing_report": ("未报牌", "七(一)9"),
    "wrong_report": ("报错牌", "七(一)9"),
    "repeat_report": ("反复报牌", "七(一)8"),
    "wrong_tribute": ("贡错牌", "七(一)4"),
    "wrong_return": ("还错牌", "七(一)4"),
    "arrangement": ("出牌方式违规", "七(一)7"),
    "late": ("迟到", "七(一)1/七(三)1/七(四)"),
    "signalling": ("传递非法信息", "七(三)"),
    "manual": ("裁判判罚", "七"),
}
META_ACTIONS = ("void", "correct", "confirm")
LATE_WARNING_MIN, LATE_FOUL_MIN = 5.0, 10.0
REPORT_LIMIT = 10     # a play leaving this many cards or fewer must be reported


def _cn(code: str) -> str:
    term, clause = VIOLATIONS.get(code, (code, "七"))
    return f"{term}, §{clause}"


class _State:
    """Everything a fold over the log builds; replaced wholesale on a rebuild."""

    __slots__ = ("match", "ladder", "deal", "clocks", "prev_order", "no_tribute_side",
                 "offline", "t", "waived")

    def __init__(self, settings: Settings) -> None:
        self.match = Match(settings)
        self.ladder = Ladder()
        self.deal: Deal | None = None
        self.clocks = Clocks(settings.countdown)
        self.prev_order: list[str] | None = None   # finishing order of the last deal
        self.no_tribute_side: str | None = None    # after a foul: the non-offending side names the leader
        self.offline: set[str] = set()
        self.t = 0.0
        self.waived: set[int] = set()              # events whose penalties the referee voided


class Table:
    """One table's referee. Feed it events in log order; it returns decisions."""

    def __init__(self, table_id: str = "T01", settings: Settings | None = None) -> None:
        self.table_id = table_id
        self.settings = settings or Settings()
        self.log: list[Event] = []
        self.decisions: list[Decision] = []        # the record for the log as corrected
        self._confirmed: set[int] = set()          # low-confidence events the referee confirmed
        self._bad_meta: set[int] = set()           # referee events that named nothing usable
        self._s = _State(self.settings)
        self._out: list[Decision] = []             # decisions of the event being folded
        self._event: Event | None = None

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
                "ladder": {side: s.ladder.counts(side) for side in ("NS", "EW")},
                "score_sheet": s.match.score_sheet(),
                "clocks": sorted((tm.seat, tm.purpose, tm.started, tm.stage)
                                 for tm in s.clocks.running()),
                "offline": sorted(s.offline)}

    # ------------------------------------------------------------ corrections
    def _correct(self, event: Event) -> list[Decision]:
        action, ref = event.get("action"), event.get("ref")
        target = self._find(ref)
        problem = None
        if target is None:
            problem = ("bad_reference", f"referee {action}: no event {ref!r} in this table's log")
        elif action == "correct":
            try:
                self._corrected_event(target, event)
            except ValueError as exc:
                problem = ("bad_correction", f"referee correct of event {ref}: {exc}")
        if problem is not None:
            self._bad_meta.add(event.id)  # type: ignore[arg-type]
            d = self._decision(event, "confirm_request", code=problem[0], message=problem[1])
            self._record([d])
            return [d]
        if action == "void" and event.get("what", "event") == "penalty":
            what = f"penalties from event {ref} voided"
        else:
            what = f"event {ref} ({target.type}) {action}ed"  # type: ignore[union-attr]
        old = self.decisions
        self._rebuild()
        k = 0
        while k < min(len(old), len(self.decisions)) and old[k] == self.decisions[k]:
            k += 1
        note = Decision(t=event.t, table=self.table_id, type="correction", events=(event.id, ref),
                        message=f"{what}; state recomputed from the log",
                        extra={"action": action, "ref": ref, "restated_from": k})
        return [note, *self.decisions[k:]]

    @staticmethod
    def _corrected_event(target: Event, meta: Event) -> Event:
        """The event ``target`` as the referee's ``correct`` event ``meta`` restates it."""
        fields = meta.get("event")
        if not isinstance(fields, Mapping):
            raise ValueError("referee correct needs an 'event' object with the corrected fields")
        merged = {**target.to_dict(), **fields, "id": target.id, "t": target.t, "table": target.table}
        if "confidence" not in fields:
            merged.pop("confidence", None)   # a referee's correction is certain
        return Event.from_dict(merged)

    def _find(self, ref: Any) -> Event | None:
        if isinstance(ref, int) and not isinstance(ref, bool) and 1 <= ref <= len(self.log):
            e = self.log[ref - 1]
            if e.id == ref:
                return e
        for e in self.log:
            if e.id == ref:
                return e
        return None

    def _overrides(self) -> tuple[set[int], dict[int, Event], set[int], set[int]]:
        """(voided, corrected, confirmed, waived) from the referee events in the log.

        Read from the newest back, so a later void can cancel an earlier void,
        correction or confirmation, and the latest correction of an event wins."""
        voided: set[int] = set()
        corrected: dict[int, Event] = {}
        confirmed: set[int] = set()
        waived: set[int] = set()
        for m in reversed(self.log):
            if m.type != "referee" or m.get("action") not in META_ACTIONS \
                    or m.id in voided or m.id in self._bad_meta:
                continue
            action, ref = m.get("action"), m.get("ref")
            if action == "void" and m.get("what", "event") == "penalty":
                waived.add(ref)
            elif action == "void":
                voided.add(ref)
            elif action == "confirm":
                confirmed.add(ref)
            elif ref not in corrected:
                corrected[ref] = self._corrected_event(self._find(ref), m)  # type: ignore[arg-type]
        return voided, corrected, confirmed, waived

    def _rebuild(self) -> None:
        voided, corrected, self._confirmed, waived = self._overrides()
        self._s = _State(self.settings)
        self._s.waived = waived
        self.decisions = []
        for e in self.log:
            if e.type == "referee" and e.get("action") in META_ACTIONS:
                continue
            if e.id in voided:
                continue
            self._record(self._fold(corrected.get(e.id, e)))  # type: ignore[arg-type]

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
        s = self._s
        self._advance(e.t)
        s.t = max(s.t, e.t)
        if (e.source == "vision" and e.confidence is not None
                and e.confidence < self.settings.min_confidence and e.id not in self._confirmed):
            self._emit("confirm_request", seat=e.seat, code="low_confidence",
                       message=f"{e.type} by {e.seat or '?'} seen with confidence {e.confidence:.2f}: "
                               f"confirm or correct it (not counted until confirmed)",
                       observed=_observed(e))
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
            else:
                self._violation(step.seat, "overtime", "warning", t=step.t,
                                text=f"{step.seat} still had not acted after the {step.purpose} limit "
                                     f"and the countdown")
        m = s.match
        if (s.deal is None or s.deal.phase == "finished") and m.rows and m.result is None \
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

    def _emit(self, type_: str, **kw: Any) -> Decision:
        d = self._decision(self._event, type_, n=len(self.decisions) + len(self._out), **kw)
        self._out.append(d)
        return d

    def _turn(self, seat: str, purpose: str, limit: float) -> None:
        self._s.clocks.start(purpose, seat, self._event.t, limit)  # type: ignore[union-attr]
        self._emit("turn", seat=seat, message=f"{seat} to {purpose} within {limit:g} s",
                   purpose=purpose, limit=limit)

    # ------------------------------------------------------------ penalties
    def _violation(self, seat: str, code: str, penalty: str, *, text: str,
                   t: float | None = None, events: tuple[int, ...] | None = None,
                   **extra: Any) -> None:
        """Emit a violation and climb the ladder for the seat's side."""
        e = self._event
        waived = e is not None and e.id in self._s.waived
        side = side_of(seat)
        message = f"{text} ({_cn(code)}): {PENALTY_CN[penalty]} {penalty}"
        if waived:
            message += "; penalty voided by the referee"
        self._emit("violation", seat=seat, code=code, penalty=None if waived else penalty, t=t,
                   events=events, message=message, side=side, **extra)
        if not waived:
            self._penalize(seat, side, code, penalty, t)

    def _penalize(self, seat: str | None, side: str, code: str, penalty: str,
                  t: float | None = None) -> None:
        s = self._s
        if s.deal is not None and s.deal.phase != "finished":
            s.deal.penalties.append({"seat": seat, "side": side, "code": code, "penalty": penalty})
        elif s.match.rows:
            s.match.rows[-1].penalties.append({"seat": seat, "side": side, "code": code,
                                               "penalty": penalty})
        if penalty == "forfeit":
            self._forfeit(side, t, abandonment=(code == "late"))
            return
        steps = s.ladder.add(side, penalty)
        self._apply_penalty(seat, side, penalty, t, derived=False)
        prev = penalty
        for step in steps:
            counts = s.ladder.counts(side)
            self._emit("penalty", seat=seat, code=code, penalty=step, t=t,
                       side=side, ladder=counts,
                       message=f"{side}: two {PENALTY_CN[prev]} ({prev}s) in this match make "
                               f"{PENALTY_CN[step]} ({step}), §七")
            self._apply_penalty(seat, side, step, t, derived=True)
            prev = step
            if s.match.result is not None:
                return

    def _apply_penalty(self, seat: str | None, side: str, penalty: str, t: float | None,
                       derived: bool) -> None:
        s = self._s
        if penalty == "infraction" and seat is not None and s.deal is not None \
                and s.deal.phase == "play":
            chooser = next_seat(seat)
            self._emit("confirm_request", seat=chooser, code="stop_choice", t=t,
                       message=f"违例: {chooser} (下家 of {seat}) may stop {seat}'s next play; "
                               f"record the choice (referee action 'choice')",
                       offender=seat)
        elif penalty == "foul":
            self._foul(side, t)
        elif penalty == "forfeit":
            self._forfeit(side, t, abandonment=False)

    def _foul(self, side: str, t: float | None) -> None:
        """犯规: the deal ends, the offending side 双下, no tribute next deal (七(三))."""
        s = self._s
        other = opponents(side)
        order = [*seats_of(other), *seats_of(side)]
        deal = s.deal
        when = t if t is not None else self._event.t  # type: ignore[union-attr]
        if deal is not None and deal.phase != "finished":
            self._end_deal(order, when, ended_by="foul")
        else:
            number = (deal.number + 1) if deal else len(s.match.rows) + 1
            s.match.start(when)
            row = s.match.record_deal(number, order, when, when, ended_by="foul")
            self._emit("deal_end", t=when, order=order, winner=row.winner, upgrade=row.upgrade,
                       levels=row.levels_after, deal=number, ended_by="foul",
                       message=f"deal {number} scored as 双下 for {side} (犯规)")
            s.prev_order = order
            if s.match.result is not None:
                self._match_end(when)
        s.no_tribute_side = other

    def _forfeit(self, side: str, t: float | None, abandonment: bool) -> None:
        s = self._s
        when = t if t is not None else self._event.t  # type: ignore[union-attr]
        if s.match.result is not None:
            return
        if s.deal is not None and s.deal.phase != "finished":
            s.deal.phase = "finished"
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
                            + f", points NS {res.points['NS']} EW {res.points['EW']}, "
                              f"级差分 NS {res.level_points['NS']} EW {res.level_points['EW']}"))

    # ------------------------------------------------------------ deal start
    def _on_deal_start(self, e: Event) -> None:
        s, m = self._s, self._s.match
        number = e.get("deal")
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            self._emit("confirm_request", code="bad_event",
                       message=f"deal_start: 'deal' must be a deal number 1, 2, ..., got {number!r}")
            return
        if m.result is not None:
            self._emit("confirm_request", code="match_over",
                       message=f"deal {e.get('deal')} started but the match is over")
            return
        if s.deal is not None and s.deal.phase != "finished":
            self._emit("confirm_request", code="deal_unfinished",
                       message=f"deal {s.deal.number} had not finished; it is dropped unscored")
        if not m.rows and s.prev_order is None:
            try:
                self._seed(e)
            except CardError as exc:
                self._emit("confirm_request", code="bad_event",
                           message=f"deal_start: bad 'levels': {exc}")
        m.start(e.t)
        level = m.deal_level()
        given = str(e.get("level", level)).upper().replace("T", "10")
        if given != level:
            self._emit("confirm_request", code="level_mismatch",
                       message=f"deal_start says level {given}, the match says {level}; "
                               f"judging at {level}")
        deal = Deal(number=number, level=level, t_start=e.t)
        s.deal = deal
        s.clocks.clear()
        leader = e.get("leader")
        if leader is not None and leader not in PLAY_ORDER:
            self._emit("confirm_request", code="bad_event",
                       message=f"deal_start: bad leader {leader!r} (expected one of E S W N); "
                               f"the first play will show who leads")
            leader = None
        tribute = s.prev_order is not None and s.no_tribute_side is None and not m.extra_deal
        if tribute:
            deal.prev_order = complete_order(s.prev_order)  # type: ignore[arg-type]
            deal.tributers, deal.receivers = tribute_plan(deal.prev_order)
            deal.phase = "tribute"
            self._emit("deal_start", deal=deal.number, level=level, phase="tribute",
                       tributers=list(deal.tributers), receivers=list(deal.receivers),
                       message=f"deal {deal.number} at level {level}: "
                               f"{' and '.join(deal.tributers)} to give tribute (贡牌)")
            for seat in deal.tributers:
                self._turn(seat, "tribute", self.settings.tribute_limit)
            return
        if s.no_tribute_side is not None and leader is not None \
                and side_of(leader) != s.no_tribute_side:
            self._emit("confirm_request", seat=leader, code="leader_side",
                       message=f"after a foul the first leader comes from {s.no_tribute_side} "
                               f"(七(三)); {leader} is not on that side")
        s.no_tribute_side = None
        self._emit("deal_start", deal=deal.number, level=level, phase="play", leader=leader,
                   message=f"deal {deal.number} at level {level}, "
                           + (f"{leader} leads" if leader else "first leader not given"))
        if leader is not None:
            deal.turn = leader
            self._turn(leader, "lead", self.settings.first_lead_limit)

    def _seed(self, e: Event) -> None:
        """A log that starts mid-match may carry the levels and the last deal's order."""
        m, s = self._s.match, self._s
        levels = e.get("levels")
        if isinstance(levels, Mapping):
            from referee.cards import level_rank
            for side in ("NS", "EW"):
                if side in levels:
                    v = str(levels[side])
                    m.levels[side] = 15 if v == "A+" else level_rank(v)
        prev = e.get("previous_order")
        if isinstance(prev, list) and prev and all(p in PLAY_ORDER for p in prev):
            s.prev_order = list(prev)
            m.owner = side_of(prev[0])
        elif isinstance(levels, Mapping) and e.get("level") is not None:
            from referee.cards import level_rank
            lv = level_rank(str(e.get("level")))
            owners = [side for side in ("NS", "EW") if m.levels[side] == lv]
            if owners:
                m.owner = owners[0]

    # ------------------------------------------------------------ tribute
    def _on_tribute(self, e: Event) -> None:
        cur = self._s.deal
        if cur is not None and cur.phase == "return" and e.seat in cur.receivers:
            # a camera sees one card laid in a reminder zone; which of tribute
            # or return it is follows from the phase and the seat
            return self._on_return(e)
        deal = self._need_phase(e, "tribute")
        if deal is None:
            return
        seat = e.seat
        if seat not in deal.tributers or seat in deal.tributes:
            self._emit("confirm_request", seat=seat, code="unexpected_tribute",
                       message=f"tribute from {seat}, but "
                               + (f"{seat} has already given" if seat in deal.tributes
                                  else f"only {' and '.join(deal.tributers)} give tribute"))
            return
        card = self._card(e, e.card)
        if card is None:
            return
        if is_wild(card, deal.level):
            # 七(一)4: 贡错牌，尚未出牌，退回错张、重新给牌，给予警告
            self._violation(seat, "wrong_tribute", "warning",
                            text=f"{seat} gave {card.code}, a heart level card (红心级牌), as tribute; "
                                 f"it is taken back and {seat} gives again")
            return
        deal.tributes[seat] = card
        deal.tribute_events[seat] = e.id  # type: ignore[assignment]
        self._s.clocks.stop(seat)
        if len(deal.tributes) < len(deal.tributers):
            return
        deal.gives_to = assign_tributes(deal.tributes, deal.prev_order, deal.level)
        for giver, receiver in deal.gives_to.items():
            deal.counts[giver] -= 1
            deal.counts[receiver] += 1
            if receiver == deal.prev_order[0]:
                deal.leader_after_tribute = giver
        deal.phase = "return"
        self._emit("tribute_assigned", gives_to=dict(deal.gives_to),
                   cards={g: c.code for g, c in deal.tributes.items()},
                   leader=deal.leader_after_tribute,
                   message="; ".join(f"{g} gives {deal.tributes[g].code} to {r}"
                                     for g, r in deal.gives_to.items())
                           + f"; {deal.leader_after_tribute} will lead")
        for receiver in deal.gives_to.values():
            self._turn(receiver, "return", self.settings.return_limit)

    def _on_anti_tribute(self, e: Event) -> None:
        deal = self._need_phase(e, "tribute")
        if deal is None:
            return
        cards = self._cards(e)
        if cards is None:
            return
        if e.seat not in deal.tributers or any(c.code != "BJ" for c in cards):
            self._emit("confirm_request", seat=e.seat, code="bad_anti_tribute",
                       message=f"抗贡 needs the tribute side ({' and '.join(deal.tributers)}) "
                               f"to show big jokers; got {e.seat} showing "
                               f"{' '.join(c.code for c in cards)}")
            return
        deal.jokers_shown[e.seat] = min(2, len(cards))  # type: ignore[index]
        if sum(deal.jokers_shown.values()) < 2:
            return
        leader = deal.prev_order[0]
        deal.tributes.clear()
        deal.phase = "play"
        deal.turn = leader
        self._s.clocks.clear()
        self._emit("anti_tribute", seat=e.seat, leader=leader,
                   message=f"抗贡: the tribute side holds both big jokers; no tribute, "
                           f"{leader} (上游) leads (五(四)3)")
        self._turn(leader, "lead", self.settings.first_lead_limit)

    def _on_return(self, e: Event) -> None:
        deal = self._need_phase(e, "return")
        if deal is None:
            return
        seat = e.seat
        givers = [g for g, r in deal.gives_to.items() if r == seat]
        if not givers or seat in deal.returns:
            self._emit("confirm_request", seat=seat, code="unexpected_return",
                       message=f"return from {seat}, but {seat} "
                               + ("has already returned" if seat in deal.returns
                                  else "received no tribute"))
            return
        card = self._card(e, e.card)
        if card is None:
            return
        giver = givers[0]
        deal.returns[seat] = card
        deal.counts[seat] -= 1
        deal.counts[giver] += 1
        self._s.clocks.stop(seat)
        deal.tribute_checks[giver] = (deal.tributes[giver], card, deal.tribute_events[giver])
        deal.return_checks[seat] = (card, deal.tributes[giver], e.id)  # type: ignore[assignment]
        if len(deal.returns) < len(deal.gives_to):
            return
        deal.phase = "play"
        deal.turn = deal.leader_after_tribute
        self._turn(deal.turn, "lead", self.settings.first_lead_limit)  # type: ignore[arg-type]

    def _need_phase(self, e: Event, phase: str) -> Deal | None:
        deal = self._s.deal
        if deal is None or deal.phase != phase:
            now = deal.phase if deal else "no deal"
            self._emit("confirm_request", seat=e.seat, code="wrong_phase",
                       message=f"{e.type} from {e.seat} during {now}: not expected now")
            return None
        return deal

    # ------------------------------------------------------------ cards
    def _card(self, e: Event, code: Any) -> Card | None:
        try:
            return parse_card(code)
        except CardError as exc:
            self._emit("confirm_request", seat=e.seat, code="bad_cards",
                       message=f"{e.type} by {e.seat}: {exc}")
            return None

    def _cards(self, e: Event) -> tuple[Card, ...] | None:
        try:
            cards = parse_cards(e.cards or ())
            if not cards:
                raise CardError("no cards")
            return cards
        except CardError as exc:
            self._emit("confirm_request", seat=e.seat, code="bad_cards",
                       message=f"{e.type} by {e.seat}: {exc}")
            return None

    # ------------------------------------------------------------ play and pass
    def _playing(self, e: Event) -> Deal | None:
        deal = self._s.deal
        if deal is None or deal.phase == "finished":
            self._emit("confirm_request", seat=e.seat, code="no_deal",
                       message=f"{e.type} by {e.seat} with no deal in play")
            return None
        if deal.counts[e.seat] == 0:  # type: ignore[index]
            self._emit("confirm_request", seat=e.seat, code="seat_out",
                       message=f"{e.type} by {e.seat}, who is already out")
            return None
        return deal

    def _on_play(self, e: Event) -> None:
        deal = self._playing(e)
        if deal is None:
            return
        cards = self._cards(e)
        if cards is None:
            return
        seat: str = e.seat  # type: ignore[assignment]
        codes = " ".join(c.code for c in cards)
        for c in set(cards):
            if deal.seen[c.code] + cards.count(c) > 2:
                self._emit("confirm_request", seat=seat, code="too_many_copies",
                           message=f"{seat} laid {codes}: {c.code} would be seen "
                                   f"{deal.seen[c.code] + cards.count(c)} times this deal, but the two "
                                   f"decks hold 2 (recognition error or a foreign card?)")
                return
        if len(cards) > deal.counts[seat]:
            self._emit("confirm_request", seat=seat, code="more_cards_than_held",
                       message=f"{seat} laid {len(cards)} cards but holds {deal.counts[seat]}")
            return
        if deal.phase != "play" or (deal.turn is not None and seat != deal.turn):
            expected = deal.turn if deal.phase == "play" else f"the {deal.phase} to finish"
            self._violation(seat, "out_of_turn_play", "infraction",
                            text=f"{seat} played {codes} before {expected}; the cards are taken back")
            return
        if deal.turn is None:          # first deal, leader not named: the first play leads
            deal.turn = seat
        leading = deal.standing is None
        j = _judge(cards, deal.level, None if leading else deal.standing)
        if not j.legal:
            self._violation(seat, "illegal_play", "infraction",
                            text=f"{seat}: {j.reason}; the cards are taken back", judged=j.code)
            return
        fault = deal.report_faults.get(seat)
        if fault is not None and len(cards) == deal.counts[seat]:
            # 七(二)4 / 七(三)4: out after a report fault not put right
            if not deal.order:
                self._violation(seat, fault.code, "foul",
                                text=f"{seat} went out as 上游 after a {fault.code.replace('_', ' ')} "
                                     f"that was never put right")
                return
            self._violation(seat, fault.code, "infraction",
                            text=f"{seat} went out after a {fault.code.replace('_', ' ')} that was "
                                 f"never put right; the cards are taken back")
            return
        self._count_action(deal, seat)
        if j.arrangement:
            self._violation(seat, "arrangement", "warning",
                            text=f"{seat} laid {codes}: {'; '.join(j.arrangement)}")
        if deal.phase == "finished" or self._proof(deal, seat, cards):
            return     # a penalty (or a proven wrong tribute) ended the deal
        self._s.clocks.stop(seat)
        deal.counts[seat] -= len(cards)
        deal.seen.update(c.code for c in cards)
        deal.standing, deal.standing_seat = j.reading, seat
        deal.passed.clear()
        deal.trick.append({"seat": seat, "cards": [c.code for c in cards], "kind": j.kind})
        left = deal.counts[seat]
        if left == 0:
            deal.order.append(seat)
            deal.reports_due.pop(seat, None)
            deal.report_faults.pop(seat, None)
            place = ("上游", "二游", "三游", "下游")[len(deal.order) - 1]
            self._emit("note", seat=seat, code="out",
                       message=f"{seat} is out: {place}", place=len(deal.order))
            if deal.over() or self._s.match.extra_deal:   # an extra deal ends at 上游
                self._end_deal(deal.order, e.t)
                return
        elif left <= REPORT_LIMIT:
            deal.reports_due[seat] = (left, e.id)  # type: ignore[assignment]
        self._next_turn(deal, seat)

    def _on_pass(self, e: Event) -> None:
        deal = self._playing(e)
        if deal is None:
            return
        seat: str = e.seat  # type: ignore[assignment]
        if deal.phase != "play" or seat != deal.turn:
            expected = deal.turn if deal.phase == "play" else f"the {deal.phase} to finish"
            if self.settings.out_of_turn_pass == "sit_out_trick" and deal.phase == "play":
                deal.barred.add(seat)
                self._emit("violation", seat=seat, code="out_of_turn_pass", side=side_of(seat),
                           message=f"{seat} passed before {expected} (越序表态, 2022 第八条): "
                                   f"{seat} may not follow for the rest of this trick (本圈不得跟牌)")
                return
            self._violation(seat, "out_of_turn_pass", "warning",
                            text=f"{seat} passed before {expected}")
            return
        if deal.standing is None:
            self._emit("confirm_request", seat=seat, code="leader_pass",
                       message=f"{seat} passed while leading: the leader must play (领出牌); "
                               f"pass not counted")
            return
        self._count_action(deal, seat)
        if deal.phase == "finished":
            return     # a report penalty reached a foul: the deal is over
        self._s.clocks.stop(seat)
        deal.passed.add(seat)
        deal.trick.append({"seat": seat, "pass": True})
        self._next_turn(deal, seat)

    def _next_turn(self, deal: Deal, seat: str) -> None:
        """After ``seat`` acted: end the trick or hand the turn on (skipping stopped seats)."""
        while True:
            last = deal.standing_seat
            if set(deal.active()) - {last} <= deal.passed:
                leader = last if deal.counts[last] > 0 else partner(last)  # type: ignore[index,arg-type]
                jiefeng = leader != last
                deal.standing, deal.standing_seat = None, None
                deal.passed.clear()
                deal.barred.clear()
                deal.trick.clear()
                self._emit("trick_end", seat=leader, leader=leader, jiefeng=jiefeng,
                           message=f"trick won by {last}; {leader} leads"
                                   + (" (接风: partner of a seat that is out)" if jiefeng else ""))
                if leader in deal.stopped:
                    # 七(二): a stopped leader's lead goes, in play order, to the non-offending side
                    offender = leader
                    deal.stopped.discard(offender)
                    leader = deal.next_active(offender)
                    while side_of(leader) == side_of(offender):
                        leader = deal.next_active(leader)
                    self._emit("note", seat=leader, code="stopped",
                               message=f"{offender}'s lead is stopped (违例 choice); {leader} leads")
                deal.turn = leader
                self._turn(leader, "lead", self.settings.play_limit)
                return
            nxt = deal.next_active(seat)
            if (nxt in deal.stopped or nxt in deal.barred) and nxt != last:
                if nxt in deal.barred:
                    why = "may not follow this trick after passing out of turn (本圈不得跟牌)"
                else:
                    deal.stopped.discard(nxt)
                    why = "play is stopped (违例 choice)"
                deal.passed.add(nxt)
                deal.trick.append({"seat": nxt, "pass": True, "stopped": True})
                self._emit("note", seat=nxt, code="stopped",
                           message=f"{nxt}'s {why}: counted as a pass")
                seat = nxt
                continue
            deal.turn = nxt
            self._turn(nxt, "play", self.settings.play_limit)
            return

    # ------------------------------------------------------------ reports
    def _count_action(self, deal: Deal, actor: str) -> None:
        """A play or pass by ``actor``: reports due from others are now missing, and
        faults left unput-right grow."""
        for seat in list(deal.reports_due):
            if seat != actor:
                count, ev = deal.reports_due.pop(seat)
                deal.report_faults[seat] = ReportFault("missing_report", [ev, self._event.id])
                self._violation(seat, "missing_report", "warning",
                                text=f"{seat} did not report {count} cards left before {actor} acted")
        for seat, fault in deal.report_faults.items():
            fault.actions += 1
            if fault.actions >= 2 and not fault.escalated:
                fault.escalated = True
                self._violation(seat, fault.code, "infraction",
                                text=f"{seat}'s {fault.code.replace('_', ' ')} still not put right "
                                     f"after more than one play")

    def _on_report(self, e: Event) -> None:
        deal = self._s.deal
        seat: str = e.seat  # type: ignore[assignment]
        if deal is None or deal.phase == "finished":
            self._emit("confirm_request", seat=seat, code="no_deal",
                       message=f"report by {seat} with no deal in play")
            return
        actual, count = deal.counts[seat], e.count
        due = deal.reports_due.pop(seat, None)
        fault = deal.report_faults.get(seat)
        if count == actual and actual > REPORT_LIMIT:
            return      # a true count that was not due misleads nobody
        if count == actual:
            if due is None and fault is None and deal.reported.get(seat) == actual:
                self._violation(seat, "repeat_report", "warning",
                                text=f"{seat} reported {count} again")
                return
            deal.reported[seat] = count
            if fault is not None:
                del deal.report_faults[seat]
                self._emit("note", seat=seat, code="report_corrected",
                           message=f"{seat} now reports {count} correctly")
            return
        if due is not None or fault is None:
            deal.report_faults[seat] = ReportFault("wrong_report", [e.id])  # type: ignore[list-item]
        self._violation(seat, "wrong_report", "warning",
                        text=f"{seat} reported {count} but holds {actual}")

    def _on_report_clear(self, e: Event) -> None:
        if self._s.deal is not None:
            self._s.deal.reported[e.seat] = None  # type: ignore[index]

    # ------------------------------------------------------------ tribute proofs
    def _proof(self, deal: Deal, seat: str, cards: tuple[Card, ...]) -> bool:
        """A play that proves the seat's tribute or return was wrong: 犯规 (七(三)3)."""
        for checks, code, what in ((deal.tribute_checks, "wrong_tribute", "tribute"),
                                   (deal.return_checks, "wrong_return", "return")):
            fact = checks.get(seat)
            if fact is None:
                continue
            given, received, ev = fact
            v = single_value(given, deal.level)
            pool = list(cards)
            if received in pool:
                pool.remove(received)          # the card it was handed may be played freely
            if code == "wrong_tribute":
                bad = [c for c in pool if not is_wild(c, deal.level) and single_value(c, deal.level) > v]
                why = f"higher than the tribute {given.code}"
            else:
                bad = [c for c in pool if v > 10 and single_value(c, deal.level) < v]
                why = f"lower than the return {given.code}, which was above 10"
            if bad:
                del checks[seat]
                self._violation(seat, code, "foul", events=(ev, self._event.id),
                                text=f"{seat} played {bad[0].code}, {why}: the {what} was wrong "
                                     f"and play has followed")
                return True
        return False

    # ------------------------------------------------------------ end of deal
    def _end_deal(self, order: list[str], t: float, ended_by: str = "play") -> None:
        s = self._s
        deal = s.deal
        assert deal is not None
        full = complete_order(order) if ended_by == "play" else list(order)
        deal.phase = "finished"
        s.clocks.clear()
        row = s.match.record_deal(deal.number, full, deal.t_start, t, ended_by=ended_by,
                                  penalties=deal.penalties)
        s.prev_order = full
        self._emit("deal_end", t=t, order=full, winner=row.winner, upgrade=row.upgrade,
                   levels=row.levels_after, deal=deal.number, ended_by=row.ended_by,
                   double_down=full[1] == partner(full[0]),
                   message=f"deal {deal.number} over: {' '.join(full)}; "
                           + (f"{row.winner} wins the extra deal" if row.ended_by == "extra"
                              else f"{row.winner} up {row.upgrade}, levels NS "
                                   f"{row.levels_after['NS']} EW {row.levels_after['EW']}"))
        if s.match.result is not None:
            self._match_end(t)

    # ------------------------------------------------------------ other events
    def _on_tick(self, e: Event) -> None:
        pass

    def _on_zone_clear(self, e: Event) -> None:
        pass

    def _on_device_status(self, e: Event) -> None:
        device = str(e.get("device"))
        if e.get("online"):
            if device in self._s.offline:
                self._s.offline.discard(device)
                self._emit("device_online", seat=e.seat, device=device,
                           message=f"device {device} back online")
        elif device not in self._s.offline:
            self._s.offline.add(device)
            self._emit("device_offline", seat=e.seat, device=device,
                       message=f"device {device} offline: watch passes and reports by hand")

    def _on_referee(self, e: Event) -> None:
        action = e.get("action")
        if action == "choice":
            offender = e.get("seat") or e.get("offender")
            deal = self._s.deal
            if offender in PLAY_ORDER and e.get("stop", True) and deal is not None \
                    and deal.phase == "play":
                deal.stopped.add(offender)
                self._emit("note", seat=offender, code="stop_recorded",
                           message=f"{next_seat(offender)} chose to stop {offender}'s next play")
            return
        if action == "sign":
            side = e.get("side")
            if side not in ("NS", "EW"):
                self._emit("confirm_request", code="bad_referee_event",
                           message="referee sign needs side (NS/EW)")
                return
            self._emit("note", code="signed", side=side, name=e.get("name") or e.get("who"),
                       message=f"{side} confirmed the score sheet (双方签字确认)")
            return
        if action == "late":
            side = e.get("side") or (side_of(e.seat) if e.seat else None)
            minutes = e.get("minutes")
            if side not in ("NS", "EW") or not isinstance(minutes, (int, float)):
                self._emit("confirm_request", code="bad_referee_event",
                           message="referee late needs side (NS/EW) and minutes")
                return
            penalty = ("warning" if minutes < LATE_WARNING_MIN else
                       "foul" if minutes < LATE_FOUL_MIN else "forfeit")
            seat = e.seat or seats_of(side)[0]
            self._violation(seat, "late", penalty,
                            text=f"{side} {minutes:g} minutes late")
            return
        if action == "penalty":
            seat = e.seat or (seats_of(e.get("side"))[0] if e.get("side") in ("NS", "EW") else None)
            penalty, code = e.get("penalty"), e.get("code", "manual")
            if seat is None or penalty not in PENALTIES:
                self._emit("confirm_request", code="bad_referee_event",
                           message="referee penalty needs seat or side and a penalty "
                                   "(warning, infraction, foul, forfeit)")
                return
            self._violation(seat, code, penalty, text=e.get("reason") or f"{seat}: referee's ruling")
            return
        self._emit("confirm_request", code="bad_referee_event",
                   message=f"unknown referee action {action!r}")


# event type -> handler, e.g. 'play' -> Table._on_play
_HANDLERS = {name[4:]: fn for name, fn in vars(Table).items() if name.startswith("_on_")}


@lru_cache(maxsize=1 << 16)
def _judge(cards: tuple[Card, ...], level: str, previous: Any) -> Any:
    """:func:`referee.judge` remembered: tables see the same plays over and over."""
    return judge(cards, level, previous)


def _observed(e: Event) -> dict[str, Any]:
    return {k: v for k, v in e.to_dict().items() if k in ("type", "seat", "cards", "card", "count")}
