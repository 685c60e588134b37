"""``guandan-ref camera-check``: how a venue's cameras read, by its referees'
own checks, and a confidence curve of the venue's own.

    guandan-ref camera-check --db venue.sqlite [--table T01 ...] [--json]
    guandan-ref camera-check --db venue.sqlite --fit venue-curve.json [--deck PROFILE]
    guandan-ref camera-check --pg "host=... dbname=guandan" [--fit ...]   # the venue's central record

Every camera read of cards (a play or tribute from ``vision``) is counted
with what became of it: confirmed or corrected to the same cards (right),
corrected to other cards or voided (wrong), asked about and never answered,
or not asked and never corrected (presumed right, not known). By confidence
band, the share the referees found wrong stands beside the share the
confidence promised (services/camera_checks.py).

``--fit`` fits the confidence curve of the venue's own on the reads that
were asked about for their score alone and answered, and writes it as a
calibration file that a camera's ``confidence_curve`` in the table config
names (docs/technician.md, "A confidence curve of the venue's own"). It
records the card models of this install (and ``--deck``'s profile) as the
ones the reads were made with; a table reading with others says so in its
log.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from commands import EXIT_OK, UsageError
from commands.args import deck_profile, existing_file, integer, new_file_in_existing_dir, probability
from storage.files import write_whole


def _store(args: argparse.Namespace):
    """The log to read: a SQLite file, or the venue's PostgreSQL record."""
    if args.pg is None:
        from commands.export import sqlite_store
        return sqlite_store(args.db)
    import psycopg

    from commands.venue import check_pg_dsn
    from storage.postgres_log import PostgresEventStore
    from venue.secrets import redact
    try:
        return PostgresEventStore(check_pg_dsn(args.pg))
    except psycopg.Error as exc:
        raise UsageError(redact(f"--pg: cannot read the venue's record: {' '.join(str(exc).split())}")) from None


def _reads(args: argparse.Namespace) -> tuple[list[Any], list[Any]]:
    """The camera reads of the tables asked for, and the hands their referees counted."""
    from services.camera_checks import camera_reads, hand_counts
    with _store(args) as store:
        tables = store.tables()
        wanted = args.table or tables
        unknown = [t for t in wanted if t not in tables]
        if unknown:
            raise UsageError(f"no table {unknown[0]!r} in {args.log_name} (it holds: "
                             f"{', '.join(tables) or 'no events'})")
        reads, counts = [], []
        for t in wanted:
            log = list(store.stream(t))
            reads += camera_reads(log, args.min_confidence)
            counts += hand_counts(log)
    return reads, counts


def _line(name: str, tally: dict[str, Any]) -> str:
    text = f"{name}{tally['reads']:6d} {tally['judged']:6d} {tally['right']:6d} {tally['wrong']:6d} " \
           f"({tally['corrected']}/{tally['voided']})"
    if tally["judged"]:
        lo, hi = tally["wrong_share_95"]
        text = f"{text:<58}{tally['wrong_share']:6.3f} [{lo:.3f}-{hi:.3f}]  {tally['promised_wrong_share']:.3f}"
    return text


def print_report(rep: dict[str, Any], db: str, out=sys.stdout) -> None:
    """The report as a referee or technician reads it."""
    asked, unasked = rep["asked"], rep["unasked"]
    print(f"camera reads of cards in {db}: {rep['reads']} (tables {', '.join(rep['tables']) or 'none'}); "
          f"asked about {asked['reads']}, not asked {unasked['reads']}", file=out)
    if not rep["reads"]:
        return
    print(f"{'confidence':<12}{'reads':>6} {'judged':>6} {'right':>6} {'wrong':>6} (corrected/voided)  "
          f"wrong share [95 %]    promised", file=out)
    for b in rep["bands"]:
        print(_line(f"{b['band']:<12}", b), file=out)
    share = (f" ({asked['wrong_share']:.1%} wrong, 95 % {asked['wrong_share_95'][0]:.1%}-"
             f"{asked['wrong_share_95'][1]:.1%}; the confidence promised {asked['promised_wrong_share']:.1%})"
             if asked["judged"] else "")
    print(f"asked about: {asked['reads']}, answered {asked['judged']}: {asked['right']} right, "
          f"{asked['wrong']} wrong{share}; never answered {asked['unanswered']}", file=out)
    print(f"not asked: {unasked['reads']}, later corrected or voided {unasked['wrong']} (a floor: a read not "
          f"asked about is checked only where someone noticed it)", file=out)
    if rep["zones"]:
        print("by zone (reads, asked, answered wrong):", file=out)
        for zone, z in rep["zones"].items():
            a = z["asked"]
            wrong = f"{a['wrong']}/{a['judged']} ({a['wrong_share']:.0%})" if a["judged"] else "-"
            print(f"  {zone:<16}{z['reads']:6d} {a['reads']:6d}  {wrong}", file=out)
    for key, words in (("missed_cards", "cards most often missed"), ("extra_cards", "read where none lay")):
        if rep[key]:
            print(f"{words}: " + ", ".join(f"{c} x{n}" for c, n in rep[key]), file=out)
    hands = rep["hands_counted"]
    if hands["counts"]:
        by = ", ".join(f"{k} x{n}" for k, n in hands["off_by"].items())
        print(f"hands the referees counted: {hands['counts']}; the plays read had left another count in "
              f"{hands['off']}" + (f" (read minus counted: {by})" if by else ""), file=out)
    print(f"reads a curve of the venue's own can be fitted on (asked for their score alone, answered): "
          f"{rep['fit_reads']}", file=out)


def _made_by(args: argparse.Namespace) -> str:
    """The command that made a curve, as its file records it (never a DSN: it may hold a password)."""
    words = ["guandan-ref camera-check", f"--db {Path(args.db).name}" if args.pg is None else "--pg DSN"]
    words += [f"--table {t}" for t in args.table or ()]
    if args.min_confidence is not None:
        words.append(f"--min-confidence {args.min_confidence:g}")
    if args.deck:
        words.append(f"--deck {Path(args.deck).name}")
    return " ".join(words + [f"--fit {Path(args.fit).name}"])


def fit_curve(reads: list[Any], args: argparse.Namespace) -> dict[str, Any]:
    """The venue's curve as a calibration file holds it (vision.reading.confidence)."""
    from services.camera_checks import fit_records
    from vision.reading.deck_profile import DeckProfile, DeckProfileError
    from vision.reading.confidence import SIZE_GROUPS, Calibration, fit_curves, model_id
    from vision.reading.detector import EIGHT_BIT_MODEL, FLOAT_MODEL
    from vision.reading.index_classifier import shipped_classifier
    from vision.reading.runtime import model_path, shipped_model

    try:
        deck = DeckProfile.load(args.deck) if args.deck else None
    except DeckProfileError as exc:
        raise UsageError(f"--deck: {exc}") from None
    recs = fit_records(reads)
    if len(recs) < args.min_reads:
        raise UsageError(f"{len(recs)} reads were asked about for their score alone and answered by a referee; "
                         f"a curve needs {args.min_reads} or more (--min-reads): play a checking round with the "
                         f"table's min_confidence at 1, so that every read is asked (docs/technician.md)")
    detector = model_path(None, "GUANDAN_CARD_MODEL", shipped_model(EIGHT_BIT_MODEL, FLOAT_MODEL))
    classifier = model_path(None, "GUANDAN_INDEX_MODEL", shipped_classifier(args.deck))
    wrong = sum(not r["exact"] for r in recs)
    raws = [r["raw"] for r in recs]
    tables = sorted({r.table for r in reads})
    doc: dict[str, Any] = {
        "what": "P(a play's cards are read right, order aside) from its raw score, fitted on this venue's "
                "camera reads as its referees judged them; numpy.interp over the knots, flat beyond the ends",
        "method": "isotonic regression (scipy.optimize.isotonic_regression), one knot per block",
        "data": f"{len(recs)} camera reads of tables {', '.join(tables)} in "
                f"{Path(args.db).name if args.pg is None else 'the venue record'} asked about "
                f"for their score alone and confirmed, corrected or voided by a referee ({wrong} wrong); "
                f"reads not asked count for nothing",
        "made_by": _made_by(args),
        "detector": model_id(detector), "classifier": model_id(classifier),
        "deck": deck.name if deck is not None else None,
        "synthetic_only": False, "venue": True,
        "size_groups": [{"name": n, "min_cards": lo, "max_cards": hi} for n, lo, hi in SIZE_GROUPS],
        "curves": fit_curves(recs),
        "check": {"reads": len(recs), "wrong": wrong, "raw_range": [min(raws), max(raws)]},
    }
    Calibration(doc)        # the file a table will load: checked as it will be
    return doc


def cmd_camera_check(args: argparse.Namespace) -> int:
    from services.camera_checks import check_report
    args.log_name = args.db if args.pg is None else "the venue's record"
    reads, counts = _reads(args)
    doc = fit_curve(reads, args) if args.fit else None     # refused before anything is printed
    rep = check_report(reads, args.min_confidence, counts)
    if args.json:
        print(json.dumps(rep, ensure_ascii=False, indent=1))
    else:
        print_report(rep, args.log_name)
    if doc is not None:
        write_whole(args.fit, json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
        lo, hi = doc["check"]["raw_range"]
        curve = doc["curves"]["all"]
        print(f"wrote {args.fit}: the venue's curve from {doc['check']['reads']} judged reads "
              f"({doc['check']['wrong']} wrong), raw scores {lo:.2f}-{hi:.2f}, P(right) "
              f"{curve['p'][0]:.2f}-{curve['p'][-1]:.2f}", file=sys.stderr)
        if hi < 0.95:
            print(f"note: the judged reads reach a raw score of {hi:.2f} only; above it the curve holds at "
                  f"{curve['p'][-1]:.2f}. A checking round (min_confidence 1: every read asked) covers the "
                  f"surest reads too", file=sys.stderr)
    return EXIT_OK


def register(sub) -> None:
    from services.camera_checks import MIN_FIT_READS

    p = sub.add_parser("camera-check", help="how the cameras read, by the referees' checks; --fit a venue's own "
                                            "confidence curve",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--db", type=existing_file, metavar="LOG.sqlite", help="the event log to read")
    src.add_argument("--pg", metavar="DSN", help="or the venue's record in PostgreSQL (guandan-ref central's --pg)")
    p.add_argument("--table", action="append", metavar="T",
                   help="a table to read (again for more; default every table in the log)")
    p.add_argument("--min-confidence", type=probability, default=None, metavar="P",
                   help="count reads below P as asked (default: each table's settings at the time)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--fit", type=new_file_in_existing_dir, metavar="CURVE.json",
                   help="fit the venue's own confidence curve and write it here")
    p.add_argument("--deck", type=deck_profile, metavar="PROFILE",
                   help="with --fit: the deck profile the tables read with (a file, or a shipped one's name)")
    p.add_argument("--min-reads", type=integer(20, 1_000_000, "a number of reads"), default=MIN_FIT_READS,
                   metavar="N", help=f"with --fit: judged reads needed (default {MIN_FIT_READS})")
    p.set_defaults(func=cmd_camera_check)
