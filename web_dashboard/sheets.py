"""Score sheets (HTML, CSV, JSON, A4 PDF) and standings: public, read-only."""

from __future__ import annotations

import csv
import io

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template

from referee.standings import MatchResult, standings
from web_dashboard.messages import format_message, render
from web_dashboard.pdf import score_sheet_pdf
from web_dashboard.views import MAX_NAME, live, require_table, teams

bp = Blueprint("sheets", __name__)


def init_app(app: Flask) -> None:
    """Add the score sheets and standings."""
    app.register_blueprint(bp)


def signatures(table: str) -> dict[str, str]:
    """Each side's confirmation of the sheet, from the referee's ``sign`` events."""
    out = {}
    for e in live().events(table):
        if e.get("type") == "referee" and e.get("action") == "sign" and e.get("side") in ("NS", "EW"):
            # shortened: a log written before names were limited may hold a huge one
            out[e["side"]] = str(e.get("name") or e.get("who") or e["side"])[:MAX_NAME]
    return out


def sheet(table: str) -> dict:
    snap = live().snapshot(table)
    return dict(snap["score_sheet"], table=table, signatures=signatures(table),
                teams=teams(table, snap), settings=snap.get("settings", {}))


@bp.route("/sheets/<table>")
def sheet_page(table):
    require_table(table)
    s = sheet(table)
    return render_template("sheet.html", table=table, sheet=s, format=format_message(s["settings"]))


@bp.route("/sheets/<table>.json")
def sheet_json(table):
    require_table(table)
    return jsonify(sheet(table))


@bp.route("/sheets/<table>.csv")
def sheet_csv(table):
    require_table(table)
    # the teams under the rows, in the NS_after / EW_after columns (named as the log's settings name them)
    names = teams(table)
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(
        ["teams", "", "", "", "", names.get("NS", ""), names.get("EW", ""), "", ""])
    return Response(live().score_sheet_csv(table) + out.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="score-sheet-{table}.csv"'})


@bp.route("/sheets/<table>.pdf")
def sheet_pdf(table):
    require_table(table)
    s = sheet(table)
    # the PDF is in Chinese: the format in the catalogue's Chinese words
    pdf = score_sheet_pdf(table, dict(s, format=render(format_message(s["settings"]), "zh")),
                          s["signatures"], s["teams"])
    return Response(pdf, mimetype="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="score-sheet-{table}.pdf"'})


def match_results() -> list[MatchResult]:
    """Finished matches of the tables whose teams are named (by the log's
    settings, or ``MATCHES``); the round from ``MATCHES`` (default 1)."""
    out = []
    lv = live()
    for table in sorted(lv.tables):
        snap = lv.snapshot(table)
        names = teams(table, snap)
        result = snap["score_sheet"].get("result")
        if not result or len(names) < 2:
            continue
        out.append(MatchResult(int(lv.matches.get(table, {}).get("round", 1)), names["NS"], names["EW"],
                               result["points"]["NS"], result["points"]["EW"],
                               result["level_points"]["NS"], result["level_points"]["EW"],
                               result["levels_gained"]["NS"], result["levels_gained"]["EW"]))
    return out


def standings_rows() -> list[dict]:
    system = current_app.config["STANDINGS_SYSTEM"]
    return [s.to_dict() for s in standings(match_results(), system=system,
                                           lots_seed=current_app.config.get("EVENT_NAME", ""))]


@bp.route("/standings")
def standings_page():
    return render_template("standings.html", rows=standings_rows(),
                           system=current_app.config["STANDINGS_SYSTEM"])


@bp.route("/standings.json")
def standings_json():
    return jsonify(standings_rows())
