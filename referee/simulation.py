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
from referee.seating import PLAY_ORDER, next_seat, partner
from referee.settings import Settings


def _groups(hand: list[Card], level: str) -> list[list[Card]]:
    """Cards grouped by face value (heart level cards with the level rank), lowest first."""
    by: dict[int, list[Card]] = defaultdict(list)
    for c in hand:
        by[single_value(c, level)].append(c)
    # a heart level card goes last in its group: a wildcard stands at the right (出牌方式)
    return [sorted(by[v], key=lambda c: is_wild(c, level)) for v in sorted(by)]


class _Player:
    def __init__(self, seat: str, rng: random.Random) -> None:
        self.seat, self.rng, self.hand = seat, rng, []  # type: ignore[var-annotated]

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
    """Events (dicts, DESIGN.md shapes) of one whole match under ``settings``.

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
    pending = set(faults)
    done = injected if injected is not None else {}
    actions = 0
    late: tuple[str, int] | None = None   # a report held back (missing_report)
    rng = random.Random(seed)
    match = Match(settings)
    events: list[dict[str, Any]] = []
    t = t0
    prev_order: list[str] | None = None

    def emit(**kw: Any) -> None:
        kw.setdefault("table", table)
        events.append(kw)

    number = 0
    while match.result is None and number < max_deals:
        number += 1
        level = match.deal_level()
        deck = full_deck()
        rng.shuffle(deck)
        players = {s: _Player(s, rng) for s in PLAY_ORDER}
        for i, s in enumerate(PLAY_ORDER):
            players[s].hand = deck[i * 27:(i + 1) * 27]
        t += rng.uniform(20, 60)
        match.close_on_time(t)          # a timed match that ran out starts no new deal
        if match.result is not None:
            emit(t=round(t, 2), type="tick")
            break
        t_start = t
        match.start(t)
        tribute = prev_order is not None and not match.extra_deal
        leader: str
        if not tribute:
            leader = rng.choice(PLAY_ORDER)
            emit(t=round(t, 2), type="deal_start", deal=number, level=level, leader=leader)
        else:
            emit(t=round(t, 2), type="deal_start", deal=number, level=level)
            order = complete_order(prev_order)  # type: ignore[arg-type]
            givers, _ = tribute_plan(order)
            jokers = {g: sum(c.code == "BJ" for c in players[g].hand) for g in givers}
            if sum(jokers.values()) >= 2:
                for g in givers:
                    if jokers[g]:
                        t += rng.uniform(1, 5)
                        emit(t=round(t, 2), type="anti_tribute", seat=g, cards=["BJ"] * jokers[g])
                leader = order[0]
            else:
                given: dict[str, Card] = {}
                for g in givers:
                    hand = [c for c in players[g].hand if not is_wild(c, level)]
                    card = max(hand, key=lambda c: single_value(c, level))
                    given[g] = card
                    t += rng.uniform(1, 6)
                    wild = [c for c in players[g].hand if is_wild(c, level)]
                    if "wrong_tribute" in pending and wild:
                        pending.discard("wrong_tribute")
                        done["wrong_tribute"] = len(events)
                        emit(t=round(t, 2), type="tribute", seat=g, card=wild[0].code)
                        t += rng.uniform(2, 5)
                    emit(t=round(t, 2), type="tribute", seat=g, card=card.code)
                gives_to = assign_tributes(given, order, level)
                for g, r in gives_to.items():
                    players[g].take([given[g]])
                    players[r].hand.append(given[g])
                leader = next(g for g, r in gives_to.items() if r == order[0])
                for g, r in gives_to.items():
                    card = min(players[r].hand, key=lambda c: single_value(c, level))
                    t += rng.uniform(1, 10)
                    emit(t=round(t, 2), type="return", seat=r, card=card.code)
                    players[r].take([card])
                    players[g].hand.append(card)
        # play
        out: list[str] = []
        turn = leader
        standing: Combination | None = None
        standing_seat: str | None = None
        passed: set[str] = set()
        while not (len(out) >= 3 or is_double_down(out) or (match.extra_deal and out)):
            p = players[turn]
            t += rng.uniform(1, 12)
            actions += 1
            if "overtime" in pending and actions >= 8 and turn in "NS":
                pending.discard("overtime")
                t += settings.play_limit + settings.countdown + rng.uniform(1, 3)
                done["overtime"] = len(events)
            if standing is None:
                cards = p.lead(level)
            else:
                cards = p.follow(level, standing, standing_seat == partner(turn))
            if cards is None and "illegal_play" in pending and standing is not None \
                    and standing.kind == "single" and turn in "EW":
                low = [c for c in p.hand if single_value(c, level) <= standing.value]
                if low:
                    pending.discard("illegal_play")
                    done["illegal_play"] = len(events)
                    emit(t=round(t, 2), type="play", seat=turn, cards=[low[0].code],
                         source="vision", confidence=round(rng.uniform(0.9, 1.0), 3))
                    t += rng.uniform(2, 4)     # taken back; then the pass
            if cards is None:
                emit(t=round(t, 2), type="pass", seat=turn, source="device")
                passed.add(turn)
            else:
                j = judge(cards, level, standing)
                assert j.legal, (cards, standing, j.reason)
                emit(t=round(t, 2), type="play", seat=turn, cards=[c.code for c in cards],
                     source="vision", confidence=round(rng.uniform(0.9, 1.0), 3))
                p.take(cards)
                standing, standing_seat = j.reading, turn
                passed = set()
                left = len(p.hand)
                if left == 0:
                    out.append(turn)
                    if len(out) >= 3 or is_double_down(out) or match.extra_deal:
                        break
                elif left <= 10:
                    t += rng.uniform(0.2, 1.0)
                    if "missing_report" in pending and turn in "NS":
                        pending.discard("missing_report")
                        done["missing_report"] = len(events)
                        late = (turn, left)   # reported only after the next seat acts
                    else:
                        emit(t=round(t, 2), type="report", seat=turn, count=left, source="device")
            if late is not None and turn != late[0]:
                t += rng.uniform(0.5, 1.5)
                emit(t=round(t, 2), type="report", seat=late[0], count=late[1], source="device")
                late = None
            active = [s for s in PLAY_ORDER if players[s].hand]
            if set(active) - {standing_seat} <= passed:
                nxt = standing_seat if players[standing_seat].hand else partner(standing_seat)  # type: ignore[index]
                standing, standing_seat, passed = None, None, set()
                turn = nxt  # type: ignore[assignment]
            else:
                turn = next_seat(turn)
                while not players[turn].hand:
                    turn = next_seat(turn)
        order = complete_order(out)
        match.record_deal(number, order, t_start, t)
        prev_order = order
    return events


__all__ = ["simulate_match"]
