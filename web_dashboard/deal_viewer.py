"""The deal viewer: a page per deal, stepped through trick by trick.

``/tables/<table>/deals/<n>`` shows deal ``n`` of a table as
:func:`referee.deal_record.deals_of` makes it: the tribute and return,
each trick's plays, passes and count reports with the time each seat took,
every ruling where it was made, the result and the four hands as far as the
play shows them. Each stage has its own anchor (``#tribute``, ``#trick-3``,
``#hands``), so a link names a trick; the page's script (static, the CSP
allows no inline script) shows one stage at a time with previous/next
buttons and the arrow keys, and the print stylesheet prints them all.

Who may see it: the table's referees (and the head referee) at any time;
the public once the deal has ended and the broadcast delay
(``OVERLAY_DELAY``, the overlay's) has passed since: in the table's time
(a table node's clock), or, where the table's time stands still (a log
served after the match), since this server first saw the deal ended. Before
that the page answers 403 and says when it will be shown, so a spectator
never learns a hand before the broadcast shows it.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import json

from flask import Blueprint, Flask, Response, abort, current_app, g, render_template
from flask_login import current_user

from referee.codes import Violation
from referee.deal_record import deals_of, record_of
from web_dashboard.i18n import CATALOGUE, translate
from web_dashboard.views import live, require_table

bp = Blueprint("deals", __name__)

_VIOLATIONS = {v.value: v for v in Violation}


def init_app(app: Flask) -> None:
    """Add the deal pages."""
    app.extensions["guandan_deal_ends"] = ({}, threading.Lock())
    app.register_blueprint(bp)


def table_deals(table: str) -> dict[str, Any]:
    """The table's deals (a fresh view of its log and record)."""
    lv = live()
    with lv._cond:      # the log and record of one moment (LiveVenue.read's lock), copied
        tb = lv.venue.table(table)
        log, decisions = list(tb.log), list(tb.decisions)
    return deals_of(log, decisions)     # outside the lock: the table's sources go on


def _first_seen_ended(table: str, number: int) -> float:
    """When this server first saw the deal ended (monotonic seconds)."""
    seen, lock = current_app.extensions["guandan_deal_ends"]
    with lock:
        return seen.setdefault((table, number), time.monotonic())


def public_wait(table: str, deal: dict[str, Any]) -> float | None:
    """Seconds until the public may see ``deal`` (0: now); None while it is in play."""
    if deal["result"] is None or deal["end"] is None:
        return None
    delay = float(current_app.config["OVERLAY_DELAY"])
    first = _first_seen_ended(table, deal["deal"])
    if delay <= 0:
        return 0.0
    by_table = delay - (live().now(table) - deal["end"])
    by_wall = delay - (time.monotonic() - first)
    return max(0.0, min(by_table, by_wall))


def _may_see_all(table: str) -> bool:
    return bool(current_user.is_authenticated and current_user.may_act_on(table))


def ruling_label(step: dict[str, Any], lang: str) -> str:
    """A ruling in the page's language: a violation by its rule's own name and
    clause (《江苏省掼蛋竞赛规则（2023）》), the English message only in English."""
    code = step.get("code") or ""
    violation = _VIOLATIONS.get(code)
    if violation is not None:
        return violation.cn()
    key = f"dv_code_{code}"
    return translate(key, lang) if key in CATALOGUE else ""


@bp.route("/tables/<table>/deals/<int:number>")
def deal_page(table: str, number: int):
    require_table(table)
    view = table_deals(table)
    found = [d for d in view["deals"] if d["deal"] == number]
    if not found:
        abort(404, description=f"no deal {number} at table {table}")
    deal = found[-1]
    referee = _may_see_all(table)
    if not referee:
        wait = public_wait(table, deal)
        if wait is None or wait > 0:
            return render_template("deal_hidden.html", table=table, number=number,
                                   wait=None if wait is None else int(wait + 0.999)), 403
    numbers = [d["deal"] for d in view["deals"]]
    stages = ([{"id": "tribute", "kind": "tribute", "stage": deal["tribute"]}]
              if deal["tribute"] is not None else [])
    stages += [{"id": f"trick-{t['number']}", "kind": "trick", "stage": t} for t in deal["tricks"]]
    stages.append({"id": "hands", "kind": "hands", "stage": None})
    lang = g.get("lang", "zh")
    return render_template("deal.html", table=table, deal=deal, stages=stages, referee=referee,
                           prev_deal=max((n for n in numbers if n < number), default=None),
                           next_deal=min((n for n in numbers if n > number), default=None),
                           teams=live().matches.get(table, {}) or live().snapshot(table).get("teams", {}),
                           rule=lambda s: ruling_label(s, lang))


@bp.route("/tables/<table>/record.json")
def record_json(table: str):
    """The table's deal record (docs/deal-record.md) as a file: for the public
    once the match is over and its last deal's broadcast delay has passed (the
    record holds every card of every deal)."""
    require_table(table)
    lv = live()
    if not _may_see_all(table):
        view = table_deals(table)
        over = lv.snapshot(table)["score_sheet"].get("result") is not None
        if not over or any(public_wait(table, d) != 0 for d in view["deals"]):
            return render_template("deal_hidden.html", table=table, number=None, wait=None), 403
    with lv._cond:      # one moment of the table (LiveVenue.read's lock)
        record = record_of(lv.venue.table(table))
    body = json.dumps(record, ensure_ascii=False, indent=1) + "\n"
    return Response(body, mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="deal-record-{table}.json"'})
