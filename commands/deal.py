"""``guandan-ref deal``: one deal trick by trick in the terminal; ``guandan-ref
deal-record``: a match's open deal record (docs/deal-record.md) out of an
event log and back in.

    guandan-ref deal --db venue.sqlite --deal 2 [--table T01]
    guandan-ref deal --record match.json --deal 2
    guandan-ref deal-record export --db venue.sqlite [--table T01] --out match.json
    guandan-ref deal-record import --db archive.sqlite match.json

``deal`` prints the deal's levels, the tribute and return, each trick's
plays, passes and count reports with their table time and the time each
seat took of its limit, every ruling where it was made, the result, and
the four hands as far as the cards laid show them. ``export`` writes one
JSON file for the table's match (its settings, teams, deals and whole log);
``import`` checks such a file (schema, every event, and that its deals are
what its events give) and stores its log in a log that does not yet hold
its table, so a replay gives the decisions the original gave.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from commands import EXIT_OK, UsageError
from commands.args import existing_file, integer, new_file_in_existing_dir
from commands.export import sqlite_store

MAX_DEAL = 1000


def _one_table(store, path: str, table: str | None) -> str:
    tables = store.tables()
    if table is not None:
        if table not in tables:
            raise UsageError(f"no table {table!r} in {path} (it holds: {', '.join(tables) or 'no events'})")
        return table
    if len(tables) != 1:
        raise UsageError(f"{path} holds " + (f"tables {', '.join(tables)}: name one with --table"
                                             if tables else "no events"))
    return tables[0]


def _record_from_db(path: str, table: str | None) -> dict[str, Any]:
    from services.deal_files import export_record
    with sqlite_store(path) as store:
        return export_record(store, _one_table(store, path, table))


def _read(path: str):
    from services.deal_files import RecordError, read_record
    try:
        return read_record(path)
    except RecordError as exc:
        raise UsageError(str(exc)) from None


# ---------------------------------------------------------------- printing
def _clock(t: float) -> str:
    """Table time as m:ss.s."""
    m, s = divmod(max(0.0, t), 60)
    return f"{int(m)}:{s:04.1f}"


def _used(step: dict) -> str:
    if step.get("used") is None:
        return ""
    return f"{step['used']:.1f}/{step['limit']:g} s"


def _step_line(step: dict) -> str:
    kind = step["kind"]
    if kind == "ruling":
        mark = {"violation": "!!", "penalty": "!!", "confirm_request": "??",
                "countdown": "..", "note": " ·", "anti_tribute": " ·"}.get(step["type"], " ·")
        head = " ".join(str(x) for x in (step["type"], step.get("seat"), step.get("code"),
                                         step.get("penalty")) if x)
        return f"  {mark} {_clock(step['t']):>8}  {head}: {step['message']}"
    if kind == "correction":
        who = f" by {step['who']}" if step.get("who") else ""
        what = f" ({step['what']})" if step.get("what") else ""
        return f"  ** {_clock(step['t']):>8}  referee {step['action']}{what} of event {step['ref']}{who}"
    what = {"play": lambda s: " ".join(s["cards"]), "pass": lambda s: "pass",
            "report": lambda s: f"reports {s['count']} left", "report_clear": lambda s: "report card taken back",
            "tribute": lambda s: f"tribute {s['card']}" + (f" -> {s['to']}" if s.get("to") else ""),
            "return": lambda s: f"return {s['card']}" + (f" -> {s['to']}" if s.get("to") else ""),
            "anti_tribute": lambda s: "抗贡 " + " ".join(s["cards"])}[kind](step)
    notes = []
    if not step["counted"]:
        notes.append("voided" if step.get("voided") else "not counted")
    if step.get("corrected"):
        notes.append("corrected")
    if step.get("confidence") is not None:
        notes.append(f"{step.get('source', '')} {step['confidence']:.2f}".strip())
    tail = f"  [{', '.join(notes)}]" if notes else ""
    return f"     {_clock(step['t']):>8}  {step['seat'] or '?'}  {what:<24} {_used(step):>12}{tail}"


def format_deal(deal: dict, table: str, teams: dict | None = None) -> str:
    """A deal of :func:`referee.deal_record.deals_of` as text, trick by trick."""
    teams = teams or {}
    lv = deal["levels"]
    names = {side: f" ({teams[side]})" if teams.get(side) else "" for side in ("NS", "EW")}
    lines = [f"{table} deal {deal['deal']} · level {deal['level'] or '?'} · "
             f"NS{names['NS']} {lv['NS']}, EW{names['EW']} {lv['EW']} · "
             f"first lead {deal['leader'] or '?'} · {_clock(deal['start'])}"
             + (f" to {_clock(deal['end'])}" if deal["end"] is not None else "")]
    tribute = deal["tribute"]
    if tribute is not None:
        gives = ", ".join(f"{g} -> {r}" for g, r in tribute["gives_to"].items())
        lines.append("Tribute (贡牌/还牌)" + (": 抗贡, no tribute" if tribute["anti_tribute"]
                                              else f": {gives}" if gives else ""))
        lines += [_step_line(s) for s in tribute["steps"]]
    for trick in deal["tricks"]:
        lines.append(f"Trick {trick['number']}" + (f", {trick['leader']} leads" if trick["leader"] else ""))
        lines += [_step_line(s) for s in trick["steps"]]
        if trick["won_by"]:
            lines.append(f"     won by {trick['won_by']}"
                         + (f"; {trick['next_leader']} leads next" if trick["next_leader"] else "")
                         + (" (接风)" if trick["jiefeng"] else ""))
    r = deal["result"]
    if r is None:
        lines.append("Result: not finished")
    else:
        lines.append(f"Result: {' '.join(r['order'])} · {r['winner']} up {r['upgrade']}"
                     + (" (双下)" if r.get("double_down") else "")
                     + (f" · ended by {r['ended_by']}" if r.get("ended_by") != "play" else "")
                     + f" · levels NS {r['levels']['NS']} EW {r['levels']['EW']}")
    lines.append("Hands (the dealt cards the play shows):")
    for seat in ("S", "E", "N", "W"):
        h = deal["hands"].get(seat)
        if not h:
            continue
        unknown = f" + {h['unknown']} unseen" if h["unknown"] else ""
        left = f"; still held: {' '.join(h['left'])}" if h["left"] else ""
        lines.append(f"  {seat}  {' '.join(h['dealt'])}{unknown}{left}")
    return "".join(line.rstrip() + "\n" for line in lines)


# ---------------------------------------------------------------- commands
def cmd_deal(args: argparse.Namespace) -> int:
    if args.record:
        data = _read(args.record).data
        if args.table and args.table != data["table"]:
            raise UsageError(f"{args.record} is the record of table {data['table']}, not {args.table}")
        where = args.record
    else:
        data = _record_from_db(args.db, args.table)
        where = f"{args.db} table {data['table']}"
    found = [d for d in data["deals"] if d["deal"] == args.deal]
    if not found:
        numbers = [d["deal"] for d in data["deals"]]
        raise UsageError(f"no deal {args.deal} in {where} "
                         f"({'deals: ' + ', '.join(map(str, numbers)) if numbers else 'no deal has started'})")
    sys.stdout.write(format_deal(found[-1], data["table"], data["match"].get("teams")))
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from services.deal_files import write_record
    record = _record_from_db(args.db, args.table)
    write_record(record, args.out)
    print(f"wrote the deal record of table {record['table']} ({len(record['deals'])} deals, "
          f"{len(record['events'])} events) to {args.out}", file=sys.stderr)
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    from services.deal_files import RecordError, import_record
    record = _read(args.file)
    with sqlite_store(args.db) as store:
        try:
            stored = import_record(store, record)
        except RecordError as exc:
            raise UsageError(f"{args.db}: {exc}") from None
    print(f"imported {stored} events of table {record.table} ({len(record.data['deals'])} deals) "
          f"into {args.db}", file=sys.stderr)
    return EXIT_OK


def register(sub) -> None:
    p = sub.add_parser("deal", help="print one deal trick by trick, rulings in place",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--db", type=existing_file, metavar="LOG.sqlite", help="the event log to read")
    src.add_argument("--record", type=existing_file, metavar="MATCH.json",
                     help="or a deal record file (deal-record export)")
    p.add_argument("--deal", required=True, type=integer(1, MAX_DEAL, "a deal number"), metavar="N")
    p.add_argument("--table", metavar="T", help="the table (needed when the log holds several)")
    p.set_defaults(func=cmd_deal)

    p = sub.add_parser("deal-record", help="a match's open deal record (JSON): export, import",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    rsub = p.add_subparsers(dest="record_command", metavar="ACTION")
    rsub.required = True
    e = rsub.add_parser("export", help="write one table's match as a deal record file")
    e.add_argument("--db", required=True, type=existing_file, metavar="LOG.sqlite")
    e.add_argument("--table", metavar="T", help="the table (needed when the log holds several)")
    e.add_argument("--out", required=True, type=new_file_in_existing_dir, metavar="MATCH.json")
    e.set_defaults(func=cmd_export)
    i = rsub.add_parser("import", help="check a deal record file and store its log")
    i.add_argument("file", type=existing_file, metavar="MATCH.json")
    i.add_argument("--db", required=True, type=new_file_in_existing_dir, metavar="LOG.sqlite",
                   help="the event log to write (made if missing; must not hold the table)")
    i.set_defaults(func=cmd_import)
