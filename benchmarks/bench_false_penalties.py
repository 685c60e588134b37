"""Penalties a match without faults gets from the camera's real mistakes, given at once or waiting for the referee.

Nobody breaks a rule in these matches (:func:`referee.simulation.simulate_match`
without faults), so every penalty the referee's engine gives is false. The
camera is the only source of error: each play the simulator lays is read as
a real play of the same combination was read by the shipped reader, drawn
at random from the rows ``benchmarks/bench_real_fans.py --per-play`` writes
(**real** card faces laid as legal combinations; the laying, surfaces and
light are ours): right, or with that read's mistake carried over (a card
missed, a card misnamed, a card added; where the real play had one of
another rank or suit, the same position of this play), at that read's
confidence. The players play on as their real cards let them, whatever the
camera read, as at a real table.

The log is then judged twice, with the table's setting ``camera_penalties``
``direct`` (a penalty found in a read given at once, as before 2026-12-06)
and ``confirm`` (the default: such a penalty, and a count report fault
resting on the camera's count, held for the referee), by a table whose
referee answers every request as it comes, rightly: a read asked about
is confirmed where it is what was laid and corrected to what was laid
where not, a hand asked to be counted is counted. Printed for each: per
match, the penalties given (all false) by code, what the referee did
(reads confirmed, reads corrected, hands counted), and the deals the
record scores as they were played (level, 上游 and 二游, upgrade: a false
foul, or a deal the reads leave unfinished, scores it otherwise); and the
plays read wrong and not asked. The table's clock goes on a minute after
each match's last play, as a venue's node ticks.

    python benchmarks/bench_real_fans.py --root ROOT --plays 40 --seed 777 --per-play rows.jsonl
    python benchmarks/bench_false_penalties.py --rows rows.jsonl [--matches 20] [--stock white|art|all]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.events import Event  # noqa: E402
from referee.settings import Settings  # noqa: E402
from referee.simulation import simulate_match  # noqa: E402
from referee.table import Table  # noqa: E402
from referee.judge import judge  # noqa: E402
from referee.cards import parse_cards, level_rank  # noqa: E402

STOCKS = {"white": "white", "art": "coloured"}    # how bench_real_fans names each stock's rows


def load_rows(path: Path, stock: str = "white") -> dict[str, list[dict]]:
    """bench_real_fans.py's per-play rows of ``stock`` (``all``: both), by combination."""
    by: dict[str, list[dict]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if "truth" not in row or "combination" not in row:
                continue
            if stock != "all" and not str(row.get("stock", "")).startswith(STOCKS[stock]):
                continue
            by.setdefault(row["combination"], []).append(row)
    if not by:
        raise SystemExit(f"bench_false_penalties: no per-play rows of {stock} stock in {path} "
                         f"(write them with bench_real_fans.py --per-play)")
    return by


def carried(cards: list[str], row: dict) -> list[str]:
    """``cards`` (a play as laid) read with ``row``'s mistake: each card the
    real read missed is dropped at its place, each misnamed one (a missing
    card paired with an added one) is read as the added card, and the rest
    added are read in too.

    >>> carried(["S5", "H5"], {"truth": ["SQ", "DQ"], "read": ["SQ"]})
    ['S5']
    >>> carried(["S5", "H5"], {"truth": ["SQ", "DQ"], "read": ["SQ", "D9"]})
    ['S5', 'D9']
    >>> carried(["S5"], {"truth": ["S8"], "read": ["S8", "LJ"]})
    ['S5', 'LJ']
    """
    truth, read = list(row["truth"]), list(row["read"])
    missing = list((Counter(truth) - Counter(read)).elements())
    extra = list((Counter(read) - Counter(truth)).elements())
    if not missing and not extra:
        return list(cards)
    out: list[str | None] = list(cards)
    used: set[int] = set()
    for m in missing:
        k = next(i for i, c in enumerate(truth) if c == m and i not in used)
        used.add(k)
        at = k % len(out)
        out[at] = extra.pop(0) if extra else None
    return [c for c in out if c is not None] + extra


def combination_of(cards: list[str], level: str) -> str | None:
    """The combination these cards make, as bench_real_fans names it (its kind)."""
    j = judge(parse_cards(" ".join(cards)), level_rank(level), None)
    return str(j.reading.kind) if j.reading is not None else None


def read_match(events: list[dict], rows: dict[str, list[dict]], rng: np.random.Generator) -> tuple[list[dict], int]:
    """The match's plays as the camera reads them (in the same order as ``events``);
    and how many it read wrong and sure."""
    out, level, wrong_sure = [], "2", 0
    for e in events:
        if e["type"] == "deal_start":
            level = str(e.get("level", level))
        if e["type"] != "play" or e.get("source") != "vision":
            out.append(e)
            continue
        pool = rows.get(combination_of(e["cards"], level) or "", [])
        if not pool:
            out.append(e)            # a combination the real rows do not hold: read right
            continue
        row = pool[int(rng.integers(len(pool)))]
        read = carried(list(e["cards"]), row)
        if not read:                 # all missed: the camera saw nothing laid
            out.append(dict(e, cards=[], confidence=0.0, doubt="unread"))
            continue
        if sorted(read) != sorted(e["cards"]) and not row["asked"]:
            wrong_sure += 1
        out.append(dict(e, cards=read, confidence=float(row["confidence"])))
    return out, wrong_sure


# (a read refused as impossible: a third copy, more cards than the seat holds; the referee looks at it too)
ANSWERED = ("low_confidence", "camera_penalty", "held_violation", "camera_count", "too_many_copies",
            "more_cards_than_held")


def refereed(truth: list[dict], seen: list[dict], settings: Settings,
             scored: Counter | None = None) -> tuple[Counter, Counter]:
    """``seen`` (the match as read, one event for each of ``truth``'s) judged
    with a referee who answers each request as it comes, rightly; the
    penalties given in the end, and what the referee did. The table's clock
    goes on a minute after the last event (a venue's node ticks), as it
    would at a real table after the last play. ``scored``: counts the deals
    (``deals``) and those the record scores as they were played (``as_played``:
    the same level, 上游 and 二游, and upgrade as the true record's)."""
    last = float(truth[-1]["t"]) + 60.0 if truth else 0.0
    truth, seen = [*truth, {"t": last, "type": "tick"}], [*seen, {"t": last, "type": "tick"}]
    table, true = Table("T01", settings), Table("T01", settings)
    did: Counter = Counter()
    answered: set = set()
    ids: dict[int, int] = {}                     # the read's id in the log -> its place in truth
    ended: dict[int, dict] = {}                  # a deal start's id -> the true hands of the deal it ended
    t = 0.0

    def answer(action: str, **fields) -> list:
        did[action] += 1
        return table.feed(Event.from_dict({"t": t, "table": "T01", "type": "referee", "action": action,
                                           "source": "manual", **fields}))

    for k, (real, read) in enumerate(zip(truth, seen)):
        t = float(read["t"])
        # a hand is counted as it is when the count is asked, but one asked at a deal start is of
        # the deal that ended
        held = dict(true.deal.counts) if true.deal is not None else {}
        # (as laid, and certain: the true table counts every play, whatever the camera was sure of)
        true.feed(Event.from_dict({**{k: v for k, v in real.items() if k != "confidence"}, "table": "T01",
                                   **({"source": "manual"} if real.get("source") == "vision" else {})}))
        out = table.feed(Event.from_dict(dict(read, table="T01")))
        here = len(table.log)
        ids[here] = k
        if read["type"] == "deal_start":
            ended[here] = held
        todo = [d for d in out if d.type == "confirm_request" and d.code in ANSWERED]
        while todo:
            d = todo.pop(0)
            if d.code == "camera_count":
                key = ("count", d.events[-1], str(d.seat))
                if key in answered or true.deal is None:
                    continue
                answered.add(key)
                counts = ended.get(d.events[-1], true.deal.counts)
                more = answer("count", ref=d.events[-1], seat=str(d.seat), count=counts[d.seat])
            else:
                reads = d.extra.get("reads") or list(d.events[-1:])
                more = []
                for r in reads:
                    if ("read", r) in answered or r not in ids:
                        continue
                    answered.add(("read", r))
                    was, said = truth[ids[r]], seen[ids[r]]
                    if sorted(said.get("cards") or []) == sorted(was.get("cards") or []) and not said.get("doubt"):
                        more += answer("confirm", ref=r)
                    else:
                        more += answer("correct", ref=r, event={"cards": list(was["cards"])})
            todo += [x for x in more if x.type == "confirm_request" and x.code in ANSWERED]
    given = Counter(str(d.code) for d in table.decisions if d.type == "violation")
    if scored is not None:
        rows = {(r.deal, r.level, tuple(r.order[:2]), r.upgrade) for r in table.match.rows}
        scored["deals"] += len(true.match.rows)
        scored["as_played"] += sum((r.deal, r.level, tuple(r.order[:2]), r.upgrade) in rows for r in true.match.rows)
    return given, did


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=Path, required=True, help="bench_real_fans.py --per-play's rows (JSON lines)")
    ap.add_argument("--matches", type=int, default=20)
    ap.add_argument("--deals", type=int, default=4, help="deals a match")
    ap.add_argument("--stock", choices=("white", "art", "all"), default="white")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if not 1 <= args.matches <= 10_000 or not 1 <= args.deals <= 60:
        ap.error("--matches 1-10000, --deals 1-60")
    rows = load_rows(args.rows, args.stock)
    rng = np.random.default_rng(args.seed)
    base = Settings.parse_format(f"deals:{args.deals}")
    totals = {m: [Counter(), Counter()] for m in ("ideal", "direct", "confirm")}
    scored = {m: Counter() for m in totals}
    plays = wrong_sure = 0
    for k in range(args.matches):
        events = simulate_match(seed=args.seed * 100_000 + k, settings=base)
        plays += sum(1 for e in events if e["type"] == "play")
        seen, ws = read_match(events, rows, rng)
        wrong_sure += ws
        for mode, log in (("ideal", events), ("direct", seen), ("confirm", seen)):
            camera = "direct" if mode == "ideal" else mode
            given, did = refereed(events, log, replace(base, camera_penalties=camera), scored[mode])
            totals[mode][0] += given
            totals[mode][1] += did
        print(f"match {k + 1}/{args.matches}", file=sys.stderr, flush=True)
    n = args.matches
    out = {"source": f"real card faces laid as legal combinations ({args.rows.name}, {args.stock} stock; the laying "
                     f"ours), read errors carried onto simulated matches without faults",
           "matches": n, "deals_a_match": args.deals, "plays_a_match": round(plays / n, 1),
           "plays_read_wrong_and_not_asked_a_match": round(wrong_sure / n, 2)}
    for mode, (given, did) in totals.items():
        out[mode] = {"false_penalties_a_match": round(sum(given.values()) / n, 2),
                     "by_code": {c: round(v / n, 2) for c, v in sorted(given.items())},
                     "referee_a_match": {a: round(did[a] / n, 2) for a in ("confirm", "correct", "count")},
                     "deals_scored_as_played": f"{scored[mode]['as_played']} of {scored[mode]['deals']}"}
    print(json.dumps(out, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
