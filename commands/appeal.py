"""``guandan-ref appeal``: one ruling with its rule, events, pictures and clip, as
one ZIP archive for the appeals committee (:mod:`services.appeal`).

    guandan-ref appeal --db T01.sqlite --violation 18 [--table T01]
                       [--evidence-dir DIR] [--out appeal-T01-18.zip]

``--violation`` is the ruling's number (``n`` in the record and the
dashboard); the evidence folder defaults to ``evidence/`` beside the log (as
the demo keeps it), holding one folder per table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from commands import EXIT_OK, UsageError
from commands.args import existing_file, integer, new_file_in_existing_dir
from storage.files import write_whole


def cmd_appeal(args: argparse.Namespace) -> int:
    from services.appeal import AppealError, bundle, find_ruling
    from services.venue import Venue
    from storage.sqlite_log import StoreError
    from web_dashboard.view_model import violation_status

    if args.evidence_dir is not None and not Path(args.evidence_dir).is_dir():
        raise UsageError(f"--evidence-dir {args.evidence_dir} is not a folder")
    try:
        venue = Venue(args.db)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    with venue:
        tables = sorted(venue.tables)
        if args.table is None and len(tables) != 1:
            raise UsageError(f"{args.db} holds " + (f"tables {', '.join(tables)}: name one with --table"
                                                    if tables else "no events"))
        table = args.table or tables[0]
        if table not in tables:
            raise UsageError(f"no table {table!r} in {args.db} (it holds: {', '.join(tables)})")
        referee = venue.table(table)
        decisions = [d.to_dict() for d in referee.decisions]
        events = [e.to_dict() for e in referee.log]
    root = Path(args.evidence_dir) if args.evidence_dir else Path(args.db).resolve().parent / "evidence"
    folder = root / table if (root / table).is_dir() else None
    try:
        ruling = find_ruling(decisions, args.violation, table)
        data = bundle(table, ruling, events, violation_status(decisions, events).get(ruling["n"], "open"),
                      folder)
    except AppealError as exc:
        raise UsageError(str(exc)) from None
    out = Path(args.out or f"appeal-{table}-{args.violation}.zip")
    write_whole(out, data)
    print(f"appeal bundle of {table} #{args.violation} ({ruling.get('code')}): {out} "
          f"({len(data) // 1024} KB)", file=sys.stderr)
    return EXIT_OK


def register(sub) -> None:
    p = sub.add_parser("appeal", help="export one ruling with its rule, events, pictures and clip (ZIP)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", required=True, type=existing_file, metavar="LOG.sqlite",
                   help="the table's event log")
    p.add_argument("--violation", required=True, type=integer(0, 2 ** 31 - 1, "a ruling's number"),
                   metavar="N", help="the ruling's number (n in the record, shown on the dashboard)")
    p.add_argument("--table", metavar="T", help="the table (needed when the log holds several)")
    p.add_argument("--evidence-dir", metavar="DIR",
                   help="the evidence folder, one sub-folder a table (default: evidence/ beside the log)")
    p.add_argument("--out", type=new_file_in_existing_dir, metavar="FILE.zip",
                   help="the archive to write (default: appeal-TABLE-N.zip here)")
    p.set_defaults(func=cmd_appeal)
