"""The state of one deal (一副牌) and the tribute procedure.

The referee cannot see hands, so a deal holds what the table shows: how many
cards each seat holds (27 after the draw; tribute and return swap one card
each way), the trick (the play standing, who passed), the finishing order,
count reports due, and the tribute facts that a later play can prove wrong.

A :class:`Deal` changes only through its own methods (:meth:`Deal.play`,
:meth:`Deal.pass_turn`, :meth:`Deal.next_turn`, :meth:`Deal.give_tribute`,
:meth:`Deal.give_return`, :meth:`Deal.report`, ...), each of which makes every
change the transition implies and returns a small value saying what happened;
the table turns those values into decisions.

Tribute (《江苏省掼蛋竞赛规则（2023）》 五(四)): after a deal, its 下游 gives
上游 the highest card (heart level cards excepted); after 双下 both losers
give, 上游 takes the higher card and the partner the lower; equal ranks go
clockwise (each tributer to the opponent on its clockwise side, its 上家) and
whoever gave to 上游 leads; if the tribute side holds both big jokers there is
no tribute (抗贡) and 上游 leads.

>>> tribute_plan(["S", "E", "N", "W"])      # single: 下游 W gives to 上游 S
(('W',), ('S',))
>>> tribute_plan(["S", "N", "E", "W"])      # 双下: E and W give
((<Seat.E: 'E'>, <Seat.W: 'W'>), ('S', 'N'))
>>> from referee.cards import parse_card
>>> assign_tributes({"E": parse_card("SA"), "W": parse_card("BJ")}, ["S", "N", "E", "W"], "5")
{'W': 'S', 'E': 'N'}
>>> assign_tributes({"E": parse_card("SA"), "W": parse_card("HA")}, ["S", "N", "E", "W"], "5")
{'E': <Seat.S: 'S'>, 'W': <Seat.N: 'N'>}

A deal's life, in brief:

>>> from referee.cards import parse_cards
>>> from referee.judge import judge
>>> deal = Deal(number=1, level="2", t_start=0.0)
>>> deal.lead_by(Seat.S)
>>> cards = parse_cards("S3 D3")
>>> deal.play(Seat.S, cards, judge(cards, "2").reading, event_id=1)
Played(place=0, report_due=False)
>>> deal.pass_turn(Seat.E)
>>> deal.next_turn(Seat.E).seat
<Seat.N: 'N'>
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Sequence

from referee.cards import Card, is_wild, single_value
from referee.codes import DocumentedEnum, Violation
from referee.combos import Combination
from referee.seating import PLAY_ORDER, Seat, next_seat, partner, prev_seat, side_of

HAND_SIZE = 27
REPORT_LIMIT = 10     # a play leaving this many cards or fewer must be reported


class Phase(DocumentedEnum):
    """Where a deal stands (``phase`` in its summary)."""

    TRIBUTE = "tribute", "贡牌: the tributers give (or show both big jokers, 抗贡)."
    RETURN = "return", "还牌: each receiver returns a card to its tributer."
    PLAY = "play", "出牌: tricks are played."
    FINISHED = "finished", "The deal is over (played out, ended by a foul or by a forfeit)."


# Members bound once for the per-event paths: attribute access on an Enum class
# goes through EnumType.__getattr__ in Python 3.11, several times slower.
TRIBUTE, RETURN, PLAY, FINISHED = Phase.TRIBUTE, Phase.RETURN, Phase.PLAY, Phase.FINISHED


def is_double_down(order: Sequence[Seat]) -> bool:
    """True when 上游 and 二游 are partners (the other side is 双下)."""
    return len(order) >= 2 and partner(order[0]) == order[1]


def complete_order(order: Sequence[Seat]) -> list[Seat]:
    """A full finishing order: seats not yet out follow in play order from the last one out."""
    out = list(order)
    seat = out[-1] if out else PLAY_ORDER[0]
    for _ in range(4):
        seat = next_seat(seat)
        if seat not in out:
            out.append(seat)
    return out


def tribute_plan(prev_order: Sequence[Seat]) -> tuple[tuple[Seat, ...], tuple[Seat, ...]]:
    """(tributers, receivers) for a deal after one that finished in ``prev_order``."""
    order = complete_order(prev_order)
    if is_double_down(order):
        return tuple(s for s in PLAY_ORDER if s in order[2:]), (order[0], order[1])
    return (order[3],), (order[0],)


def assign_tributes(tributes: dict[Seat, Card], prev_order: Sequence[Seat],
                    level: str) -> dict[Seat, Seat]:
    """Who receives each tribute card: {tributer: receiver}."""
    order = complete_order(prev_order)
    if len(tributes) == 1:
        (giver,) = tributes
        return {giver: order[0]}
    (a, ca), (b, cb) = sorted(tributes.items(), key=lambda kv: PLAY_ORDER.index(kv[0]))
    va, vb = single_value(ca, level), single_value(cb, level)
    if va == vb:
        # 贡牌牌点相同，则按顺时针方向进贡: each gives to the seat clockwise of it (its 上家).
        return {a: prev_seat(a), b: prev_seat(b)}
    high, low = (a, b) if va > vb else (b, a)
    return {high: order[0], low: order[1]}


@dataclass
class ReportFault:
    """A missing or wrong count report not yet put right (七(一)9, 七(二)4, 七(三)4)."""
    code: Violation           # MISSING_REPORT or WRONG_REPORT
    events: list[int]
    # plays and passes by each seat since the fault: 七(一)9 "各家出牌（或放弃出牌）不超过一手牌"
    # is a warning, 七(二)4 "一家出牌（或放弃出牌）超过一手牌" 违例: it escalates when
    # some seat acts a second time, not at the second action at the table
    actions: dict[Seat, int] = field(default_factory=dict)
    escalated: bool = False


class Report(enum.Enum):
    """What a count report turned out to be (:meth:`Deal.report`)."""

    UNNEEDED = enum.auto()
    """A true count of more than ten cards: nobody is misled, nothing to say."""
    TRUE = enum.auto()
    """A true count."""
    CORRECTED = enum.auto()
    """A true count that puts right a missing or wrong report."""
    REPEATED = enum.auto()
    """The same true count again, with nothing due or wrong (反复报牌)."""
    WRONG = enum.auto()
    """Not the number of cards held (报错牌)."""


class Played(NamedTuple):
    """What :meth:`Deal.play` did: the seat's finishing ``place`` (1-4; 0 while it
    still holds cards) and whether a count report is now due from it."""
    place: int
    report_due: bool


# the two common results, made once (a play is the most frequent event)
_HOLDING, _REPORT_DUE = Played(0, False), Played(0, True)


class Skip(NamedTuple):
    """A seat whose turn counted as a pass: ``barred`` for the rest of the trick
    (2022 越序表态), else its play was stopped (违例 choice)."""
    seat: Seat
    barred: bool


class TrickEnd(NamedTuple):
    """The trick is over: won by ``won_by``; ``leader`` leads the next one (its
    partner when the winner is out: 接风). ``stopped``: a leader whose lead was
    stopped (违例 choice) and handed to ``leader`` on the other side."""
    won_by: Seat
    leader: Seat
    jiefeng: bool
    stopped: Seat | None


class NextTurn(NamedTuple):
    """What :meth:`Deal.next_turn` did: seats skipped, the trick's end if it ended,
    and the seat to act now (to lead after a trick end, else to play)."""
    skipped: tuple[Skip, ...]
    trick_end: TrickEnd | None
    seat: Seat


# the common result: the turn passes on, nobody skipped, the trick goes on
_PLAIN_TURN = {seat: NextTurn((), None, seat) for seat in PLAY_ORDER}


class Actions(NamedTuple):
    """What a play or pass meant for count reports (:meth:`Deal.count_action`):
    reports now missing (seat, count) and faults left unput-right that now
    escalate (seat, code)."""
    missing: tuple[tuple[Seat, int], ...]
    escalated: tuple[tuple[Seat, Violation], ...]


_NO_ACTIONS = Actions((), ())


class TributeDone(NamedTuple):
    """Every tribute is in: who gives to whom, and who will lead."""
    gives_to: dict[Seat, Seat]
    leader: Seat


class Proof(NamedTuple):
    """A play that proves a tribute or return was wrong: ``card`` is the proof,
    ``events`` the tribute or return and the play."""
    code: Violation
    card: Card
    why: str
    what: str
    events: tuple[int, int]
    given: Card | None = None      # the tribute or return card it proves wrong


@dataclass
class Deal:
    """One deal as the table shows it. Read its fields freely; change it only by its methods."""

    number: int
    level: str
    t_start: float
    phase: Phase = PLAY
    counts: dict[Seat, int] = field(default_factory=lambda: {s: HAND_SIZE for s in PLAY_ORDER})
    order: list[Seat] = field(default_factory=list)
    turn: Seat | None = None                 # seat to act; None while the first leader is unknown
    standing: Combination | None = None      # the play to beat; None when the trick is empty
    standing_seat: Seat | None = None
    passed: set[Seat] = field(default_factory=set)
    trick: list[dict[str, Any]] = field(default_factory=list)  # this trick's plays and passes
    seen: Counter[str] = field(default_factory=Counter)       # card codes played this deal
    # tribute
    prev_order: list[Seat] = field(default_factory=list)
    tributers: tuple[Seat, ...] = ()
    receivers: tuple[Seat, ...] = ()
    tributes: dict[Seat, Card] = field(default_factory=dict)
    tribute_events: dict[Seat, int] = field(default_factory=dict)
    gives_to: dict[Seat, Seat] = field(default_factory=dict)    # tributer -> receiver
    returns: dict[Seat, Card] = field(default_factory=dict)     # receiver -> card returned
    jokers_shown: dict[Seat, int] = field(default_factory=dict) # big jokers shown for 抗贡
    leader_after_tribute: Seat | None = None
    # facts a later play can prove wrong: seat -> (card given, card received, event id)
    # seat -> (card given, card received back or None before the return, event id)
    tribute_checks: dict[Seat, tuple[Card, Card | None, int]] = field(default_factory=dict)
    return_checks: dict[Seat, tuple[Card, Card, int]] = field(default_factory=dict)
    # count reports
    reports_due: dict[Seat, tuple[int, int]] = field(default_factory=dict)  # seat -> (count, event id)
    reported: dict[Seat, int | None] = field(default_factory=dict)
    said: dict[Seat, int | None] = field(default_factory=dict)     # each seat's last report, right or wrong
    report_faults: dict[Seat, ReportFault] = field(default_factory=dict)
    # seat -> the camera reads of its plays, neither confirmed nor corrected since the
    # referee last counted its cards: what its count (and so a report fault) rests on
    count_reads: dict[Seat, list[int]] = field(default_factory=dict)
    # seat -> its last play's event id (the standing seat's: the play to beat)
    last_play: dict[Seat, int] = field(default_factory=dict)
    # seat -> its last play refused as more cards than the camera's reads leave it (laid all the same)
    laid_refused: dict[Seat, int] = field(default_factory=dict)
    stopped: set[Seat] = field(default_factory=set)  # seats whose next play is stopped (违例 choice)
    barred: set[Seat] = field(default_factory=set)   # seats that may not follow this trick (2022 越序表态)
    penalties: list[dict[str, Any]] = field(default_factory=list)

    # ------------------------------------------------------------ reading
    def active(self) -> list[Seat]:
        """Seats still holding cards, in play order from S."""
        return [s for s in PLAY_ORDER if self.counts[s] > 0]

    def next_active(self, seat: Seat) -> Seat:
        """The next seat in play order that still holds cards."""
        s = next_seat(seat)
        while self.counts[s] == 0:
            s = next_seat(s)
        return s

    def over(self) -> bool:
        """Three out, or 上游 and 二游 partners (双上)."""
        return len(self.order) >= 3 or is_double_down(self.order)

    def giver_to(self, receiver: Seat) -> Seat | None:
        """The tributer whose card ``receiver`` received, if any."""
        return next((g for g, r in self.gives_to.items() if r == receiver), None)

    def summary(self) -> dict[str, Any]:
        """The deal as plain data (part of the table's snapshot)."""
        return {"deal": self.number, "level": self.level, "phase": self.phase,
                "counts": dict(self.counts), "order": list(self.order), "turn": self.turn,
                "standing": [c.code for c in self.standing.cards] if self.standing else None,
                "standing_seat": self.standing_seat, "passed": sorted(self.passed),
                "trick": [dict(p) for p in self.trick],
                "reports_due": {s: c for s, (c, _) in self.reports_due.items()},
                "report_faults": sorted(self.report_faults), "stopped": sorted(self.stopped)}

    # ------------------------------------------------------------ starting
    def begin_tribute(self, prev_order: Sequence[Seat]) -> None:
        """Open with tribute after a deal that finished in ``prev_order``."""
        self.prev_order = complete_order(prev_order)
        self.tributers, self.receivers = tribute_plan(self.prev_order)
        self.phase = TRIBUTE

    def lead_by(self, seat: Seat) -> None:
        """``seat`` leads the first trick (named at the start, or the first to play)."""
        self.turn = seat

    # ------------------------------------------------------------ tribute and return
    def give_tribute(self, seat: Seat, card: Card, event_id: int) -> TributeDone | None:
        """``seat`` gives ``card``; once every tributer has given, the cards are
        assigned, move hands, and the return phase opens."""
        self.tributes[seat] = card
        self.tribute_events[seat] = event_id
        # provable from now on: cards the tributer shows before the return count too
        self.tribute_checks[seat] = (card, None, event_id)
        if len(self.tributes) < len(self.tributers):
            return None
        self.gives_to = assign_tributes(self.tributes, self.prev_order, self.level)
        for giver, receiver in self.gives_to.items():
            self.counts[giver] -= 1
            self.counts[receiver] += 1
            if receiver == self.prev_order[0]:
                self.leader_after_tribute = giver
        self.phase = RETURN
        assert self.leader_after_tribute is not None   # someone always gives to 上游
        return TributeDone(self.gives_to, self.leader_after_tribute)

    def show_jokers(self, seat: Seat, jokers: int) -> Seat | None:
        """``seat`` of the tribute side shows big jokers; once both are shown there is
        no tribute (抗贡) and play opens: returns 上游, who leads."""
        self.jokers_shown[seat] = min(2, jokers)
        if sum(self.jokers_shown.values()) < 2:
            return None
        leader = self.prev_order[0]
        self.tributes.clear()
        self.phase = PLAY
        self.turn = leader
        return leader

    def give_return(self, seat: Seat, card: Card, event_id: int) -> Seat | None:
        """``seat`` returns ``card`` to its tributer; the exchange is kept for a later
        play to prove either card wrong. Once every return is in, play opens:
        returns the seat to lead."""
        giver = self.giver_to(seat)
        assert giver is not None
        self.returns[seat] = card
        self.counts[seat] -= 1
        self.counts[giver] += 1
        if giver in self.tribute_checks:     # not yet proven wrong: the returned card may be shown freely
            self.tribute_checks[giver] = (self.tributes[giver], card, self.tribute_events[giver])
        self.return_checks[seat] = (card, self.tributes[giver], event_id)
        if len(self.returns) < len(self.gives_to):
            return None
        assert self.leader_after_tribute is not None
        self.phase = PLAY
        self.turn = self.leader_after_tribute
        return self.turn

    def prove(self, seat: Seat, cards: Sequence[Card], event_id: int) -> Proof | None:
        """Does ``seat`` playing ``cards`` prove its tribute or return wrong (七(三)3)?
        A proven fact is settled: it is not checked again."""
        if seat not in self.tribute_checks and seat not in self.return_checks:
            return None      # most plays: nothing to prove
        for checks, code, what in ((self.tribute_checks, Violation.WRONG_TRIBUTE, "tribute"),
                                   (self.return_checks, Violation.WRONG_RETURN, "return")):
            fact = checks.get(seat)
            if fact is None:
                continue
            given, received, ev = fact
            v = single_value(given, self.level)
            pool = list(cards)
            if received in pool:
                pool.remove(received)          # the card it was handed may be played freely
            if code is Violation.WRONG_TRIBUTE:
                bad = [c for c in pool if not is_wild(c, self.level) and single_value(c, self.level) > v]
                why = f"higher than the tribute {given.code}"
            else:
                bad = [c for c in pool if v > 10 and single_value(c, self.level) < v]
                why = f"lower than the return {given.code}, which was above 10"
            if bad:
                del checks[seat]
                return Proof(code, bad[0], why, what, (ev, event_id), given)
        return None

    # ------------------------------------------------------------ play
    def play(self, seat: Seat, cards: Sequence[Card], reading: Combination,
             event_id: int) -> Played:
        """``seat`` lays ``cards``, read as ``reading``: it now stands. A seat that
        went out takes its place; one left with ten or fewer owes a report."""
        left = self.counts[seat] - len(cards)
        self.counts[seat] = left
        self.last_play[seat] = event_id
        self.seen.update(c.code for c in cards)
        self.standing, self.standing_seat = reading, seat
        self.passed.clear()
        self.trick.append({"seat": seat, "cards": [c.code for c in cards], "kind": reading.kind})
        if left == 0:
            self.order.append(seat)
            self.reports_due.pop(seat, None)
            self.report_faults.pop(seat, None)
            return Played(len(self.order), False)
        if left <= REPORT_LIMIT:
            self.reports_due[seat] = (left, event_id)
            return _REPORT_DUE
        return _HOLDING

    def pass_turn(self, seat: Seat) -> None:
        """``seat`` passes in turn."""
        self.passed.add(seat)
        self.trick.append({"seat": seat, "pass": True})

    def bar(self, seat: Seat) -> None:
        """``seat`` passed out of turn under the 2022 rule: it may not follow this trick."""
        self.barred.add(seat)

    def stop(self, seat: Seat) -> None:
        """The non-offending side chose to stop ``seat``'s next play (违例 choice)."""
        self.stopped.add(seat)

    def next_turn(self, seat: Seat) -> NextTurn:
        """After ``seat`` acted: end the trick or hand the turn on, skipping (as
        passes) seats that are stopped or barred."""
        skipped: list[Skip] = []
        while True:
            last = self.standing_seat
            assert last is not None    # a seat acted on a play standing
            if set(self.active()) - {last} <= self.passed:
                end = self._end_trick(last)
                return NextTurn(tuple(skipped), end, end.leader)
            nxt = self.next_active(seat)
            if (nxt in self.stopped or nxt in self.barred) and nxt != last:
                barred = nxt in self.barred
                if not barred:
                    self.stopped.discard(nxt)
                self.passed.add(nxt)
                self.trick.append({"seat": nxt, "pass": True, "stopped": True})
                skipped.append(Skip(nxt, barred))
                seat = nxt
                continue
            self.turn = nxt
            return NextTurn(tuple(skipped), None, nxt) if skipped else _PLAIN_TURN[nxt]

    def _end_trick(self, last: Seat) -> TrickEnd:
        leader = last if self.counts[last] > 0 else partner(last)
        jiefeng = leader != last
        self.standing, self.standing_seat = None, None
        self.passed.clear()
        self.barred.clear()
        self.trick.clear()
        offender = None
        if leader in self.stopped:
            # 七(二): a stopped leader's lead goes, in play order, to the non-offending side
            offender = leader
            self.stopped.discard(offender)
            leader = self.next_active(offender)
            while side_of(leader) == side_of(offender):
                leader = self.next_active(leader)
        self.turn = leader
        return TrickEnd(last, leader, jiefeng, offender)

    # ------------------------------------------------------------ count reports
    def count_action(self, actor: Seat, event_id: int) -> Actions:
        """A play or pass by ``actor``: reports due from others are now missing
        (faults from now), and faults left unput-right grow; a fault escalates
        once some seat has acted twice since it (七(二)4: 一家…超过一手牌)."""
        if not self.reports_due and not self.report_faults:
            return _NO_ACTIONS     # the common case, on every play and pass
        missing: list[tuple[Seat, int]] = []
        for seat in list(self.reports_due):
            if seat != actor:
                count, ev = self.reports_due.pop(seat)
                self.report_faults[seat] = ReportFault(Violation.MISSING_REPORT, [ev, event_id])
                missing.append((seat, count))
        escalated: list[tuple[Seat, Violation]] = []
        for seat, fault in self.report_faults.items():
            acted = fault.actions[actor] = fault.actions.get(actor, 0) + 1
            if acted >= 2 and not fault.escalated:
                fault.escalated = True
                escalated.append((seat, fault.code))
        return Actions(tuple(missing), tuple(escalated))

    def report(self, seat: Seat, count: int | None, event_id: int) -> Report:
        """``seat`` reports ``count`` cards left; a wrong count is a fault until put right."""
        actual = self.counts[seat]
        self.said[seat] = count
        due = self.reports_due.pop(seat, None)
        fault = self.report_faults.get(seat)
        if count == actual and actual > REPORT_LIMIT:
            return Report.UNNEEDED
        if count == actual:
            if due is None and fault is None and self.reported.get(seat) == actual:
                return Report.REPEATED
            self.reported[seat] = count
            if fault is not None:
                del self.report_faults[seat]
                return Report.CORRECTED
            return Report.TRUE
        if due is not None or fault is None:
            self.report_faults[seat] = ReportFault(Violation.WRONG_REPORT, [event_id])
        return Report.WRONG

    def clear_report(self, seat: Seat) -> None:
        """``seat``'s report card was taken back."""
        self.reported[seat] = self.said[seat] = None

    def read_counted(self, seat: Seat, event_id: int) -> None:
        """``seat``'s play just counted was a camera's read, not yet confirmed:
        its count now rests on that read too."""
        self.count_reads.setdefault(seat, []).append(event_id)

    def settle_count(self, seat: Seat, count: int) -> tuple[int, list[int]]:
        """The referee counted ``count`` cards in ``seat``'s hand: that is its
        count from now on, resting on no read. A report due is due for the
        true count (none above ten). Returns the count the plays had left and
        the reads it rested on.

        >>> from referee.seating import Seat
        >>> d = Deal(1, "2", 0.0)
        >>> d.counts[Seat.E] = 9; d.reports_due[Seat.E] = (9, 3); d.read_counted(Seat.E, 3)
        >>> d.settle_count(Seat.E, 11), d.counts[Seat.E], d.reports_due, d.count_reads
        ((9, [3]), 11, {}, {})
        """
        was = self.counts[seat]
        self.counts[seat] = count
        reads = self.count_reads.pop(seat, [])
        if seat in self.reports_due:
            if count > REPORT_LIMIT:
                del self.reports_due[seat]
            else:
                self.reports_due[seat] = (count, self.reports_due[seat][1])
        return was, reads

    # ------------------------------------------------------------ the end
    def record_penalty(self, entry: dict[str, Any]) -> None:
        """A penalty given during this deal, for its score sheet row."""
        self.penalties.append(entry)

    def finish(self) -> None:
        """The deal is over (played out, a foul or a forfeit)."""
        self.phase = FINISHED
