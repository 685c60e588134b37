"""Simulated tables: whole matches of plausible play as event logs.

Four simple players deal two shuffled decks, give tribute and return it by
the rules, lead their lowest group, follow with the lowest group that beats
the play standing (or a bomb now and then), report their count when ten or
fewer cards remain, and act within the time limits. Every play is checked
with :func:`referee.judge` before it is laid, so a log from here holds no
violation. Tests and benchmarks use these logs; a seed makes them repeatable.

>>> events = simulate_match(seed=1, settings=Settings.parse_format("deals:1"))
>>> events[0]["type"], events[-1]["type"] in ("play", "report")
('deal_start', True)
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

from referee.cards import Card, full_deck, is_wild, single_value
from referee.combos import Combination
from referee.deal import assign_tributes, complete_order, is_double_down, tribute_plan
from referee.judge import judge
from referee.match import Match
from referee.seating import PLAY_ORDER, Seat, Side, next_seat, partner, side_of
from referee.settings import Settings


def _groups(hand: list[Card], level: str) -> list[list[Card]]:
    """Cards grouped by face value (heart level cards with the level rank), lowest first."""
    by: dict[int, list[Card]] = defaultdict(list)
    for c in hand:
        by[single_value(c, level)].append(c)
    # a heart level card goes last in its group: a wildcard stands at the right (出牌方式)
    return [sorted(by[v], key=lambda c: is_wild(c, level)) for v in sorted(by)]


class _Player:
    """One simple player: its hand and how it leads and follows."""

    def __init__(self, seat: Seat, rng: random.Random) -> None:
        self.seat, self.rng = seat, rng
        self.hand: list[Card] = []

    def take(self, cards: list[Card]) -> None:
        for c in cards:
            self.hand.remove(c)

    def lead(self, level: str) -> list[Card]:
        groups = _groups(self.hand, level)
        low = groups[0]
        if len(low) >= 4:
            return low if len(groups) == 1 else low[:1]
        if len(low) == 3:
            pairs = [g for g in groups[1:] if len(g) == 2 and not g[0].is_joker]
            if pairs and not low[0].is_joker and self.rng.random() < 0.5:
                return low + pairs[0]
        return low

    def follow(self, level: str, standing: Combination, partner_standing: bool) -> list[Card] | None:
        if partner_standing and self.rng.random() < 0.7:
            return None
        groups = _groups(self.hand, level)
        if standing.kind in ("single", "pair", "triple"):
            size = standing.size
            for g in groups:
                if len(g) >= size and single_value(g[0], level) > standing.value and len(g) < 4:
                    cand = g[:size]
                    if judge(cand, level, standing).legal:
                        return cand
        if self.rng.random() < 0.25:
            for g in groups:
                if len(g) >= 4 and judge(g, level, standing).legal:
                    return g
        return None


FAULTS = ("overtime", "illegal_play", "missing_report", "wrong_tribute")


def simulate_match(seed: int = 0, settings: Settings | None = None, table: str = "T01",
                   t0: float = 0.0, max_deals: int = 60, faults: tuple[str, ...] = (),
                   injected: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """Events (dicts, the shapes of docs/events.md) of one whole match under ``settings``.

    ``faults`` (from :data:`FAULTS`) are each committed once, at the first
    chance: an N-S player runs past the limit and the countdown
    (``overtime``), an E-W player lays a single that does not beat the one
    standing and takes it back (``illegal_play``), an N-S player reports
    their count only after the next seat acted (``missing_report``), or a
    tributer offers a heart level card and then gives the right card
    (``wrong_tribute``: needs a tributer holding one). The offenders are
    spread so that no side reaches a foul. ``injected`` receives each fault
    committed, with the index of its event.
    """
    settings = settings or Settings()
    unknown = set(faults) - set(FAULTS)
    if unknown:
        raise ValueError(f"unknown faults {sorted(unknown)} (known: {', '.join(FAULTS)})")
    script = _Script(random.Random(seed), settings, table, t0, set(faults),
                     injected if injected is not None else {})
    script.run(max_deals)
    return script.events


class _Script:
    """A match being written: the time, the events so far and the faults still to commit.

    Every random draw is made in one fixed order, so a seed gives one log."""

    def __init__(self, rng: random.Random, settings: Settings, table: str, t0: float,
                 pending: set[str], done: dict[str, int]) -> None:
        self.rng, self.settings, self.table, self.t = rng, settings, table, t0
        self.pending, self.done = pending, done
        self.match = Match(settings)
        self.events: list[dict[str, Any]] = []
        self.actions = 0                          # plays and passes so far
        self.late: tuple[Seat, int] | None = None   # a report held back (missing_report)

    def emit(self, **kw: Any) -> None:
        kw.setdefault("table", self.table)
        self.events.append(kw)

    def wait(self, low: float, high: float) -> None:
        self.t += self.rng.uniform(low, high)

    def now(self) -> float:
        return round(self.t, 2)

    def commit(self, fault: str) -> None:
        """``fault`` is committed by the next event."""
        self.pending.discard(fault)
        self.done[fault] = len(self.events)

    # ------------------------------------------------------------ deals
    def run(self, max_deals: int) -> None:
        """Deals until the match ends (or ``max_deals``)."""
        match, prev_order = self.match, None
        number = 0
        while match.result is None and number < max_deals:
            number += 1
            level = match.deal_level()
            deck = full_deck()
            self.rng.shuffle(deck)
            players = {s: _Player(s, self.rng) for s in PLAY_ORDER}
            for i, s in enumerate(PLAY_ORDER):
                players[s].hand = deck[i * 27:(i + 1) * 27]
            self.wait(20, 60)
            match.close_on_time(self.t)          # a timed match that ran out starts no new deal
            if match.result is not None:
                self.emit(t=self.now(), type="tick")
                break
            t_start = self.t
            match.start(self.t)
            if prev_order is None or match.extra_deal:
                leader = self.rng.choice(PLAY_ORDER)
                self.emit(t=self.now(), type="deal_start", deal=number, level=level, leader=leader)
            else:
                self.emit(t=self.now(), type="deal_start", deal=number, level=level)
                leader = self.tribute(players, level, complete_order(prev_order))
            order = complete_order(self.play_deal(players, level, leader))
            match.record_deal(number, order, t_start, self.t)
            prev_order = order

    def tribute(self, players: dict[Seat, _Player], level: str, order: list[Seat]) -> Seat:
        """Tribute and return (or 抗贡) after a deal that finished in ``order``; the leader."""
        givers, _ = tribute_plan(order)
        jokers = {g: sum(c.code == "BJ" for c in players[g].hand) for g in givers}
        if sum(jokers.values()) >= 2:
            for g in givers:
                if jokers[g]:
                    self.wait(1, 5)
                    self.emit(t=self.now(), type="anti_tribute", seat=g, cards=["BJ"] * jokers[g])
            return order[0]
        given: dict[Seat, Card] = {}
        for g in givers:
            hand = [c for c in players[g].hand if not is_wild(c, level)]
            card = max(hand, key=lambda c: single_value(c, level))
            given[g] = card
            self.wait(1, 6)
            wild = [c for c in players[g].hand if is_wild(c, level)]
            if "wrong_tribute" in self.pending and wild:
                self.commit("wrong_tribute")
                self.emit(t=self.now(), type="tribute", seat=g, card=wild[0].code)
                self.wait(2, 5)
            self.emit(t=self.now(), type="tribute", seat=g, card=card.code)
        gives_to = assign_tributes(given, order, level)
        for g, r in gives_to.items():
            players[g].take([given[g]])
            players[r].hand.append(given[g])
        leader = next(g for g, r in gives_to.items() if r == order[0])
        for g, r in gives_to.items():
            card = min(players[r].hand, key=lambda c: single_value(c, level))
            self.wait(1, 10)
            self.emit(t=self.now(), type="return", seat=r, card=card.code)
            players[r].take([card])
            players[g].hand.append(card)
        return leader

    # ------------------------------------------------------------ play
    def play_deal(self, players: dict[Seat, _Player], level: str, leader: Seat) -> list[Seat]:
        """Tricks until the deal is over; the seats that went out, in order."""
        out: list[Seat] = []
        turn = leader
        standing: Combination | None = None
        standing_seat: Seat | None = None
        passed: set[Seat] = set()
        extra = self.match.extra_deal       # an extra deal ends at 上游
        while not (len(out) >= 3 or is_double_down(out) or (extra and out)):
            p = players[turn]
            cards = self.choose(p, level, standing, standing_seat)
            if cards is None:
                self.emit(t=self.now(), type="pass", seat=turn, source="device")
                passed.add(turn)
            else:
                standing, standing_seat, passed = self.lay(p, level, cards, standing), turn, set()
                if not p.hand:
                    out.append(turn)
                    if len(out) >= 3 or is_double_down(out) or extra:
                        break
            if self.late is not None and turn != self.late[0]:
                self.wait(0.5, 1.5)
                self.emit(t=self.now(), type="report", seat=self.late[0], count=self.late[1],
                          source="device")
                self.late = None
            active = [s for s in PLAY_ORDER if players[s].hand]
            assert standing_seat is not None    # the trick's first action is a play
            if set(active) - {standing_seat} <= passed:
                turn = standing_seat if players[standing_seat].hand else partner(standing_seat)
                standing, standing_seat, passed = None, None, set()
            else:
                turn = next_seat(turn)
                while not players[turn].hand:
                    turn = next_seat(turn)
        return out

    def choose(self, p: _Player, level: str, standing: Combination | None,
               standing_seat: Seat | None) -> list[Card] | None:
        """What ``p`` lays (None: a pass), after thinking (and the overtime or
        illegal play the faults call for)."""
        self.wait(1, 12)
        self.actions += 1
        if "overtime" in self.pending and self.actions >= 8 and side_of(p.seat) is Side.NS:
            self.pending.discard("overtime")
            self.t += self.settings.play_limit + self.settings.countdown + self.rng.uniform(1, 3)
            self.done["overtime"] = len(self.events)
        if standing is None:
            return p.lead(level)
        cards = p.follow(level, standing, standing_seat == partner(p.seat))
        if cards is None and "illegal_play" in self.pending and standing.kind == "single" \
                and side_of(p.seat) is Side.EW:
            low = [c for c in p.hand if single_value(c, level) <= standing.value]
            if low:
                self.commit("illegal_play")
                self.emit(t=self.now(), type="play", seat=p.seat, cards=[low[0].code],
                          source="vision", confidence=round(self.rng.uniform(0.9, 1.0), 3))
                self.wait(2, 4)     # taken back; then the pass
        return cards

    def lay(self, p: _Player, level: str, cards: list[Card],
            standing: Combination | None) -> Combination:
        """``p`` plays ``cards`` (checked legal) and reports a count of ten or fewer;
        returns the reading that now stands."""
        j = judge(cards, level, standing)
        assert j.legal and j.reading is not None, (cards, standing, j.reason)
        self.emit(t=self.now(), type="play", seat=p.seat, cards=[c.code for c in cards],
                  source="vision", confidence=round(self.rng.uniform(0.9, 1.0), 3))
        p.take(cards)
        left = len(p.hand)
        if 0 < left <= 10:
            self.wait(0.2, 1.0)
            if "missing_report" in self.pending and side_of(p.seat) is Side.NS:
                self.commit("missing_report")
                self.late = (p.seat, left)   # reported only after the next seat acts
            else:
                self.emit(t=self.now(), type="report", seat=p.seat, count=left, source="device")
        return j.reading


__all__ = ["simulate_match"]
