"""Deals as a reader follows them: a table's events and decisions, deal by deal,
trick by trick (the deal viewer's and the deal record's content).

:func:`deals_of` is a pure function of a table's log (its events, referee
corrections included) and its record (the decisions the referee gave for that
log as corrected, :attr:`referee.table.Table.decisions`). It decides nothing
itself: what counted, who led, who won a trick and every ruling come from the
decisions; the events give the cards, the counts and the times.

Each deal holds the levels it was played at, the tribute stage (tribute,
return or 抗贡, and the rulings made then), the tricks, the result, and the
four hands as far as the cards laid show them. A stage is a list of steps in
the order they happened:

- an action (``play``, ``pass``, ``report``, ``report_clear``, ``tribute``,
  ``return``, ``anti_tribute``): ``event`` (its log number), ``t``, ``seat``,
  its cards or count, whether it ``counted`` (an illegal play taken back, a
  low-confidence read not yet confirmed, a voided event did not), and for a
  play, pass, tribute or return the clock: ``used`` (seconds since the seat's
  turn began) and ``limit``;
- a ``ruling``: a decision that is not bookkeeping (violation, penalty,
  request to confirm, note, countdown), where it happened: a countdown or an
  overtime noticed when the next event came stands before that event;
- a ``correction``: a referee's void, correct or confirm, at the place of the
  event it names.

>>> from referee.table import Table
>>> from referee.events import Event
>>> table = Table("T01")
>>> log = [{"t": 0, "type": "deal_start", "deal": 1, "level": "2", "leader": "S"},
...        {"t": 5, "type": "play", "seat": "S", "cards": ["S3"]},
...        {"t": 7, "type": "play", "seat": "N", "cards": ["S4"]},
...        {"t": 9, "type": "play", "seat": "E", "cards": ["S5"]}]
>>> for d in log:
...     _ = table.feed_dict(d)
>>> deal = deals_of(table.log, table.decisions)["deals"][0]
>>> for s in deal["tricks"][0]["steps"]:
...     print(s["kind"], s["seat"], s.get("cards") or s.get("code"), s.get("counted"), s.get("used"))
play S ['S3'] True 5.0
play N ['S4'] False None
ruling N out_of_turn_play None None
ruling W stop_choice None None
play E ['S5'] True 4.0
>>> deal["hands"]["S"]["laid"], deal["hands"]["N"]["left"]
(['S3'], ['S4'])
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from referee.cards import CardError, parse_card
from referee.decisions import Decision
from referee.corrections import META_ACTIONS as _META, overrides, referee_count
from referee.deal import HAND_SIZE
from referee.events import Event

if TYPE_CHECKING:
    from referee.table import Table

__all__ = ["HAND_SIZE", "ACTIONS", "RULING_TYPES", "FORMAT", "VERSION", "deals_of", "record_of", "sort_cards"]

# events a deal's steps show (ticks, zone clears and device states are not steps)
ACTIONS = ("play", "pass", "report", "report_clear", "tribute", "return", "anti_tribute")
# decisions shown as rulings; the others (turn, trick_end, deal_start, ...) shape the deal
RULING_TYPES = ("violation", "penalty", "confirm_request", "note", "countdown")
# a violation of the acting seat with one of these codes means its action did not count
_REFUSING = frozenset(("illegal_play", "out_of_turn_play", "out_of_turn_pass", "wrong_tribute",
                       "wrong_return"))
# decisions that show a play or pass moved the game on
_MOVED = frozenset(("turn", "trick_end", "deal_end"))
_TIMED = ("play", "pass", "tribute", "return")
_SUIT_ORDER = {"S": 0, "H": 1, "C": 2, "D": 3, None: 4}


def sort_cards(codes: Iterable[str]) -> list[str]:
    """Card codes low to high (2..A, then the jokers), suits S H C D within a rank.

    >>> sort_cards(["BJ", "HA", "S3", "D3", "LJ"])
    ['S3', 'D3', 'HA', 'LJ', 'BJ']
    """
    def key(code: str) -> tuple[int, int, str]:
        try:
            card = parse_card(code)
        except CardError:
            return (99, 9, code)       # not a card: last, as it was written
        return (card.rank, _SUIT_ORDER[card.suit], code)
    return sorted(codes, key=key)


def _ruling(d: Decision) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "ruling", "n": d.n, "t": d.t, "type": d.type}
    for name in ("seat", "code", "penalty"):
        value = getattr(d, name)
        if value is not None:
            out[name] = str(value)
    out["events"] = list(d.events)
    out["message"] = d.message
    return out


def _stage(number: int | None = None, leader: str | None = None) -> dict[str, Any]:
    if number is None:
        return {"steps": []}
    return {"number": number, "leader": leader, "won_by": None, "next_leader": None,
            "jiefeng": False, "steps": []}


class _Walk:
    """The state of one pass over a log: the deal and stage being filled."""

    def __init__(self, levels: dict[str, str]) -> None:
        self.deals: list[dict[str, Any]] = []
        self.loose: list[dict[str, Any]] = []        # rulings outside any deal
        self.deal: dict[str, Any] | None = None
        self.stage: dict[str, Any] | None = None
        self.playing = False                         # the deal is past its tribute stage
        self.turns: dict[str, tuple[float, float]] = {}   # seat -> (turn began, limit)
        self.next_leader: str | None = None
        self.levels = levels
        self.where: dict[int, dict[str, Any]] = {}   # event id -> the stage its step is in
        self.laid: dict[str, list[str]] = {}
        self.shown: dict[str, Counter[str]] = {}
        self.given: dict[str, Counter[str]] = {}
        self.received: dict[str, Counter[str]] = {}

    # ------------------------------------------------------------ stages
    def open_deal(self, d: Decision) -> None:
        if self.deal is not None:
            self.close_deal(None)
        x = d.extra
        tribute = x.get("phase") in ("tribute", "return")
        self.deal = {"deal": x.get("deal"), "level": x.get("level"), "levels": dict(self.levels),
                     "start": d.t, "end": None, "leader": _str(x.get("leader")),
                     "tribute": ({"tributers": [str(s) for s in x.get("tributers", ())],
                                  "receivers": [str(s) for s in x.get("receivers", ())],
                                  "gives_to": {}, "anti_tribute": False, "steps": []}
                                 if tribute else None),
                     "tricks": [], "result": None, "hands": {}}
        self.deals.append(self.deal)
        self.stage = self.deal["tribute"]
        self.playing = not tribute
        self.turns = {}
        self.next_leader = _str(x.get("leader"))
        self.laid = {s: [] for s in "ESWN"}
        self.shown = {s: Counter() for s in "ESWN"}
        self.given = {s: Counter() for s in "ESWN"}
        self.received = {s: Counter() for s in "ESWN"}

    def close_deal(self, d: Decision | None) -> None:
        deal = self.deal
        if deal is None:
            return
        if d is not None:
            x = d.extra
            deal["end"] = d.t
            deal["result"] = {"order": [str(s) for s in x.get("order", ())],
                              "winner": _str(x.get("winner")), "upgrade": x.get("upgrade"),
                              "levels": {str(k): str(v) for k, v in x.get("levels", {}).items()},
                              "ended_by": _str(x.get("ended_by")),
                              "double_down": x.get("double_down")}
            self.levels = dict(deal["result"]["levels"])
        if deal["tribute"] is not None:
            # who received each tribute and return: known from the assignment
            for step in deal["tribute"]["steps"]:
                if step["kind"] in ("tribute", "return") and step["counted"]:
                    step["to"] = self.receiver_of(step["kind"], step["seat"])
                    if step["to"] in self.received and step["card"] is not None:
                        self.received[step["to"]][step["card"]] += 1
        deal["hands"] = self.hands()
        self.deal, self.stage = None, None

    def trick(self) -> dict[str, Any] | None:
        """The stage a step of the deal goes to now (a trick opens at its first step)."""
        if self.deal is None:
            return None
        if not self.playing:
            if self.stage is None:      # no tribute was due, yet a tribute event came
                self.stage = self.deal["tribute"] = {"tributers": [], "receivers": [],
                                                     "gives_to": {}, "anti_tribute": False,
                                                     "steps": []}
            return self.stage
        if self.stage is None or "number" not in self.stage:
            tricks = self.deal["tricks"]
            self.stage = _stage(len(tricks) + 1, self.next_leader)
            tricks.append(self.stage)
        return self.stage

    def place(self, step: dict[str, Any]) -> None:
        stage = self.trick()
        if stage is None:
            self.loose.append(step)
            return
        stage["steps"].append(step)
        if "event" in step:
            self.where[step["event"]] = stage
        if stage.get("leader", "") is None and step["kind"] == "play" and step["counted"]:
            stage["leader"] = step["seat"]      # no leader was named: the first play leads
            if self.deal is not None and self.deal["leader"] is None:
                self.deal["leader"] = step["seat"]

    # ------------------------------------------------------------ hands
    def hands(self) -> dict[str, dict[str, Any]]:
        """Each seat's hand as far as the cards show it: ``laid`` (the plays that
        counted, in order), ``dealt`` (the 27 dealt cards known: laid or shown,
        plus what it gave in tribute or return, less what it received),
        ``unknown`` (how many of the 27 no card shows) and ``left`` (cards known
        to be still in the hand at the end: shown in a play taken back, never
        laid again)."""
        out = {}
        for s in "ESWN":
            laid = Counter(self.laid[s])
            held = laid | self.shown[s]          # a card shown and laid later counts once
            dealt = held + self.given[s] - self.received[s]
            left = held - laid
            out[s] = {"laid": list(self.laid[s]), "dealt": sort_cards(dealt.elements()),
                      "unknown": max(0, HAND_SIZE - sum(dealt.values())),
                      "left": sort_cards(left.elements())}
        return out

    def count_cards(self, e: Event, counted: bool) -> None:
        seat = str(e.seat)
        if seat not in self.laid:
            return
        if e.type == "play":
            if counted:
                self.laid[seat].extend(e.cards or ())
            else:
                self.shown[seat] |= Counter(e.cards or ())
        elif e.type in ("tribute", "return") and e.card is not None:
            if counted:
                self.given[seat][e.card] += 1
            else:
                self.shown[seat] |= Counter([e.card])

    def receiver_of(self, kind: str, seat: str) -> str | None:
        """Who a tribute or return by ``seat`` went to (the deal's tribute assignment)."""
        if self.deal is None or self.deal["tribute"] is None:
            return None
        gives_to: dict[str, str] = self.deal["tribute"]["gives_to"]
        if kind == "tribute":
            return gives_to.get(seat)
        back = [g for g, r in gives_to.items() if r == seat]
        return back[0] if back else None


def _str(value: Any) -> str | None:
    return None if value is None else str(value)


def _counted(e: Event, mine: Sequence[Decision], voided: bool) -> bool:
    """Whether the action ``e`` counted, from the decisions its fold gave (``mine``)."""
    if voided:
        return False
    seat = e.seat
    for d in mine:
        if d.seat == seat and (d.type == "confirm_request" and d.code != "stop_choice"
                               or d.type == "violation" and d.code in _REFUSING):
            return False
    if e.type in ("play", "pass"):
        # a play or pass that counted moved the game on: a turn, a trick's end, the
        # deal's end (a play going out as the last but one); anything else (going
        # out after a report fault, cards taken back) did not
        return any(d.type in _MOVED or d.type == "note" and d.code == "out" and d.seat == seat
                   for d in mine)
    return True


def _step(e: Event, counted: bool, walk: _Walk, voided: bool, corrected: bool) -> dict[str, Any]:
    step: dict[str, Any] = {"kind": e.type, "event": e.id, "t": e.t, "seat": _str(e.seat)}
    if e.type in ("play", "anti_tribute"):
        step["cards"] = list(e.cards or ())
    elif e.type in ("tribute", "return"):
        step["card"] = e.card
        step["to"] = None          # known once the tributes are assigned (close_deal)
    elif e.type == "report":
        step["count"] = e.count
    if e.type in _TIMED:
        began = walk.turns.get(str(e.seat))
        step["used"] = None if began is None else round(e.t - began[0], 3)
        step["limit"] = None if began is None else began[1]
    step["counted"] = counted
    if e.source != "manual":
        step["source"] = e.source
    if e.confidence is not None:
        step["confidence"] = e.confidence
    if voided:
        step["voided"] = True
    if corrected:
        step["corrected"] = True
    return step


def _anchors(decisions: Sequence[Decision]) -> dict[int, list[Decision]]:
    """Decisions by the event whose fold gave them: the newest event a decision
    names (a decision that names only older ones, as a changed penalty's
    evidence, stays with the one before it)."""
    out: dict[int, list[Decision]] = {}
    anchor = 0
    for d in decisions:
        anchor = max(anchor, max(d.events, default=anchor))
        out.setdefault(anchor, []).append(d)
    return out


def deals_of(events: Sequence[Event], decisions: Sequence[Decision]) -> dict[str, Any]:
    """The deals of one table: ``{"deals": [...], "rulings": [...]}`` (rulings made
    outside any deal, e.g. a late arrival before the first); see the module's
    doc for each deal's shape. ``events``: the table's log in order, with their
    ids; ``decisions``: the record the referee gave for it."""
    voided, corrected = overrides(events)[:2]
    anchored = _anchors(decisions)
    levels = {"NS": "2", "EW": "2"}
    walk = _Walk(levels)
    for raw in events:
        e = corrected.get(raw.id, raw) if raw.id is not None else raw
        mine = anchored.get(e.id or 0, [])
        is_meta = e.type == "referee" and e.get("action") in _META
        if is_meta:
            walk_correction(walk, e)
            for d in mine:      # a correction that named nothing usable is asked about
                _decision(walk, d)
            continue
        if e.type == "deal_start" and not walk.deals and isinstance(e.get("levels"), Mapping):
            walk.levels = {str(k): str(v) for k, v in e.get("levels").items()}
        # a countdown or an overtime noticed when this event came happened before it
        before = [d for d in mine if d.type in RULING_TYPES and d.t < e.t]
        for d in before:
            walk.place(_ruling(d))
        if e.type in ACTIONS:
            is_void = e.id in voided
            counted = _counted(e, mine, is_void)
            walk.place(_step(e, counted, walk, is_void, e.id in corrected))
            walk.count_cards(e, counted)
            if counted and e.type in _TIMED:
                walk.turns.pop(str(e.seat), None)
        for d in mine:
            if not any(d is b for b in before):
                _decision(walk, d)
    if walk.deal is not None:
        walk.close_deal(None)
    # decisions that name no event at all (none today) are kept, outside the deals
    walk.loose.extend(_ruling(d) for d in anchored.get(0, []) if d.type in RULING_TYPES)
    return {"deals": walk.deals, "rulings": walk.loose}


def _assign(walk: _Walk, d: Decision) -> None:
    if walk.deal is not None and walk.deal["tribute"] is not None:
        walk.deal["tribute"]["gives_to"] = {str(g): str(r) for g, r in
                                            d.extra.get("gives_to", {}).items()}


def _decision(walk: _Walk, d: Decision) -> None:
    """One decision of the record: it shapes the deal or is shown as a ruling."""
    x = d.extra
    if d.type == "deal_start":
        walk.open_deal(d)
    elif d.type == "deal_end":
        if walk.deal is None or walk.deal["deal"] != x.get("deal"):
            # a deal scored with no play (a foul between deals): a deal of its own
            walk.open_deal(Decision(d.t, d.table, "deal_start",
                                    extra={"deal": x.get("deal"), "level": None}))
        _won(walk)
        walk.close_deal(d)
    elif d.type == "tribute_assigned":
        _assign(walk, d)
    elif d.type == "anti_tribute":
        if walk.deal is not None and walk.deal["tribute"] is not None:
            walk.deal["tribute"]["anti_tribute"] = True
            walk.place(_ruling(d))
    elif d.type == "turn":
        walk.turns[str(d.seat)] = (d.t, float(x.get("limit", 0.0)))
        if x.get("purpose") in ("lead", "play") and walk.deal is not None and not walk.playing:
            walk.playing, walk.stage = True, None
            if walk.deal["leader"] is None:
                walk.deal["leader"] = _str(d.seat)
            walk.next_leader = _str(d.seat)
        elif x.get("purpose") == "lead" and walk.next_leader is None:
            walk.next_leader = _str(d.seat)
    elif d.type == "trick_end":
        _won(walk)
        if walk.stage is not None and "number" in walk.stage:
            walk.stage["next_leader"] = _str(x.get("leader"))
            walk.stage["jiefeng"] = bool(x.get("jiefeng"))
        walk.next_leader = _str(x.get("leader"))
        walk.stage = None
    elif d.type in RULING_TYPES:
        walk.place(_ruling(d))


def _won(walk: _Walk) -> None:
    """The trick in progress was won by its last play that counted."""
    stage = walk.stage
    if stage is None or "number" not in stage:
        return
    plays = [s for s in stage["steps"] if s["kind"] == "play" and s["counted"]]
    stage["won_by"] = plays[-1]["seat"] if plays else None


def walk_correction(walk: _Walk, e: Event) -> None:
    """A referee's void, correct, confirm or count, placed where the event it names is."""
    ref = e.get("ref")
    step: dict[str, Any] = {"kind": "correction", "event": e.id, "t": e.t,
                            "action": str(e.get("action")), "ref": ref}
    if e.get("what") is not None:
        step["what"] = str(e.get("what"))
    if e.get("who") is not None:
        step["who"] = str(e.get("who"))
    if e.get("action") == "count":      # the cards the referee counted in a seat's hand
        try:
            step.update(zip(("seat", "count"), referee_count(e)))
        except ValueError:
            pass                        # malformed: asked about where it was entered
    stage = walk.where.get(ref) if isinstance(ref, int) else None
    if stage is None:
        walk.loose.append(step)
    else:
        stage["steps"].append(step)


# ---------------------------------------------------------------- the record
FORMAT = "guandan-deal-record"
VERSION = 1


def record_of(table: "Table") -> dict[str, Any]:
    """The open deal record of a table's match (docs/deal-record.md): the match's
    settings, teams and players as its log gives them, its result, each deal
    as :func:`deals_of` makes it, and the whole log, from which a reader
    replays every decision.

    >>> from referee.table import Table
    >>> t = Table("T01")
    >>> _ = t.feed_dict({"t": 0, "type": "settings", "settings": {"match_format": "deals", "deals": 1},
    ...                  "teams": {"NS": "Nanjing", "EW": "Suzhou"}})
    >>> r = record_of(t)
    >>> r["format"], r["version"], r["table"], r["match"]["teams"], len(r["events"])
    ('guandan-deal-record', 1, 'T01', {'NS': 'Nanjing', 'EW': 'Suzhou'}, 1)
    """
    snapshot = table.snapshot()
    players: dict[str, str] = {}
    for e in table.log:       # the latest settings event that names the players
        named = e.get("players") if e.type == "settings" else None
        if isinstance(named, Mapping):
            players = {str(k): str(v) for k, v in named.items()}
    match: dict[str, Any] = {"settings": table.settings.to_dict(), "teams": dict(table.teams),
                             "levels": dict(snapshot["levels"]),
                             "result": snapshot["score_sheet"].get("result")}
    if players:
        match["players"] = players
    view = deals_of(table.log, table.decisions)
    return {"format": FORMAT, "version": VERSION, "table": table.table_id, "match": match,
            "deals": view["deals"], "rulings": view["rulings"],
            "events": [e.to_dict() for e in table.log]}
