"""Pages: overview (head referee), table view (the table's referee), overlay
(public), and the referee's actions on a table."""

from __future__ import annotations

import os
from pathlib import Path

from flask import (Blueprint, Flask, abort, current_app, jsonify, make_response, redirect,
                   render_template, request, send_from_directory, url_for)
from flask_login import current_user

from referee.cards import CardError, level_name, level_rank, parse_card, parse_cards
from referee.events import SEATS, EventError
from referee.penalties import PENALTIES
from referee.settings import Settings
from services.live import LiveVenue
from services.venue import Venue
from web_dashboard.auth import login_required, table_access
from web_dashboard.i18n import LANGS
from web_dashboard.view_model import overview_row, table_view

bp = Blueprint("views", __name__)

MANUAL_CODES = ("late", "signalling", "manual")


def init_app(app: Flask) -> None:
    """Open the venue (unless the app was given one) and add the pages."""
    if "guandan_venue" not in app.extensions:
        app.extensions["guandan_venue"] = open_venue(app)
    app.register_blueprint(bp)


def open_venue(app: Flask) -> LiveVenue:
    """The venue of the ``DATABASE`` log (default ``instance/venue.sqlite``)."""
    db = app.config["DATABASE"]
    if db is None:
        Path(app.instance_path).mkdir(parents=True, exist_ok=True)
        db = os.path.join(app.instance_path, "venue.sqlite")
    settings = Settings.from_dict(app.config["SETTINGS"])
    return LiveVenue(Venue(db, settings), app.config["TABLES"], app.config["MATCHES"])


def live() -> LiveVenue:
    return current_app.extensions["guandan_venue"]


def countdown() -> float:
    return live().venue.settings.countdown


def table_state(table: str, public: bool = False) -> dict:
    lv = live()
    snapshot, decisions, events, version = lv.read(table)
    view = table_view(table, snapshot, decisions, events, countdown(), public=public)
    view["version"] = version
    view["now"] = lv.now(table)
    for item in view.get("feed", []):
        for e in item["evidence"]:
            crop = e.get("crop")
            if isinstance(crop, str) and not crop.startswith("data:image/"):
                e["crop"] = url_for("views.evidence", table=table, name=crop)
    return view


def overview_state() -> list[dict]:
    lv = live()
    rows = []
    for t in lv.tables:
        snapshot, decisions, events, version = lv.read(t)
        rows.append(dict(overview_row(t, snapshot, decisions, events), version=version))
    return rows


def require_table(table: str) -> None:
    if table not in live().tables:
        abort(404, description=f"no table {table!r} at this venue")


@bp.route("/")
@login_required
def overview():
    return render_template("overview.html", rows=overview_state())


@bp.route("/overview.json")
@login_required
def overview_json():
    return jsonify(overview_state())


@bp.route("/tables/<table>")
@table_access
def table_page(table):
    return render_template("table.html", table=table, state=table_state(table),
                           seats=SEATS, penalties=PENALTIES, manual_codes=MANUAL_CODES,
                           manual_events=MANUAL_EVENTS)


@bp.route("/tables/<table>/state.json")
@table_access
def table_json(table):
    return jsonify(table_state(table))


@bp.route("/tables/<table>/evidence/<path:name>")
@table_access
def evidence(table, name):
    """A frame crop a vision event points at (``crop``: a file in EVIDENCE_DIR/<table>/)."""
    root = current_app.config.get("EVIDENCE_DIR")
    if not root:
        abort(404, description="no evidence directory is configured (EVIDENCE_DIR)")
    return send_from_directory(f"{root}/{table}", name)


@bp.route("/overlay/<table>")
def overlay(table):
    require_table(table)
    return render_template("overlay.html", table=table,
                           delay=float(current_app.config["OVERLAY_DELAY"]))


@bp.route("/lang/<code>")
def set_lang(code):
    if code not in LANGS:
        abort(404, description=f"no language {code!r} (zh, en)")
    nxt = request.args.get("next", "/")
    if not nxt.startswith("/") or nxt.startswith("//"):
        nxt = "/"
    resp = make_response(redirect(nxt))
    resp.set_cookie("lang", code, max_age=365 * 86400, samesite="Lax")
    return resp


class ActionError(ValueError):
    """A referee's form that cannot become an event: the message says why."""


def _int(form, name: str) -> int:
    try:
        return int(form.get(name, ""))
    except ValueError:
        raise ActionError(f"'{name}' must be an event number") from None


def _seat(form, name: str = "seat") -> str:
    seat = form.get(name, "")
    if seat not in SEATS:
        raise ActionError(f"'{name}' must be one of E S W N")
    return seat


def action_events(form, table: str, t: float, who: str) -> list[dict]:
    """The referee events a dashboard form stands for (all carry ``who``)."""
    action = form.get("action", "")
    base = {"type": "referee", "table": table, "t": t, "source": "manual", "who": who}
    if action == "confirm":
        return [dict(base, action="confirm", ref=_int(form, "ref"))]
    if action == "void":
        what = form.get("what", "penalty")
        if what not in ("penalty", "event"):
            raise ActionError("'what' must be penalty or event")
        return [dict(base, action="void", ref=_int(form, "ref"), what=what)]
    if action == "change_penalty":
        penalty = form.get("penalty", "")
        if penalty not in PENALTIES:
            raise ActionError(f"'penalty' must be one of {', '.join(PENALTIES)}")
        ref = _int(form, "ref")
        return [dict(base, action="void", ref=ref, what="penalty"),
                dict(base, action="penalty", seat=_seat(form), penalty=penalty,
                     code=form.get("code") or "manual",
                     reason=f"penalty for event {ref} changed to {penalty} by {who}")]
    if action == "penalty":
        code = form.get("code", "manual")
        if code not in MANUAL_CODES:
            raise ActionError(f"'code' must be one of {', '.join(MANUAL_CODES)}")
        if code == "late":
            try:
                minutes = float(form.get("minutes", ""))
            except ValueError:
                raise ActionError("'minutes' must be a number") from None
            return [dict(base, action="late", seat=_seat(form), minutes=minutes)]
        penalty = form.get("penalty", "")
        if penalty not in PENALTIES:
            raise ActionError(f"'penalty' must be one of {', '.join(PENALTIES)}")
        return [dict(base, action="penalty", seat=_seat(form), penalty=penalty, code=code,
                     reason=form.get("note") or f"{code} ({who})")]
    if action == "correct":
        ref = _int(form, "ref")
        kind = form.get("kind", "play")
        if kind == "pass":
            return [dict(base, action="correct", ref=ref, event={"type": "pass"})]
        if kind != "play":
            raise ActionError("'kind' must be play or pass")
        try:
            cards = [c.code for c in parse_cards(form.get("cards", ""))]
        except CardError as exc:
            raise ActionError(str(exc)) from None
        if not cards:
            raise ActionError("a corrected play needs its cards")
        return [dict(base, action="correct", ref=ref, event={"type": "play", "cards": cards})]
    if action == "choice":
        stop = form.get("choice", "stop_next_play") == "stop_next_play"
        return [dict(base, action="choice", seat=_seat(form), stop=stop)]
    if action == "event":
        return [_manual_event(form, base)]
    if action == "sign":
        side = form.get("side", "")
        if side not in ("NS", "EW"):
            raise ActionError("'side' must be NS or EW")
        return [dict(base, action="sign", side=side, name=form.get("name") or who)]
    raise ActionError(f"unknown action {action!r}")


MANUAL_EVENTS = ("deal_start", "play", "pass", "report", "tribute", "return", "anti_tribute")


def _manual_event(form, base: dict) -> dict:
    """A play, pass, report, tribute, return or deal start entered by hand
    (no camera or device saw it): an ordinary event with source ``manual``."""
    etype = form.get("type", "")
    if etype not in MANUAL_EVENTS:
        raise ActionError(f"'type' must be one of {', '.join(MANUAL_EVENTS)}")
    event = {k: v for k, v in base.items() if k != "who"}
    event.update(type=etype, who=base["who"])
    if etype == "deal_start":
        try:
            deal = int(form.get("deal", ""))
        except ValueError:
            raise ActionError("'deal' must be the deal's number") from None
        try:
            level = level_name(level_rank(form.get("level", "")))
        except CardError as exc:
            raise ActionError(str(exc)) from None
        event.update(deal=deal, level=level)
        if form.get("leader"):
            event["leader"] = _seat(form, "leader")
        return event
    event["seat"] = _seat(form)
    try:
        if etype in ("play", "anti_tribute"):
            cards = [c.code for c in parse_cards(form.get("cards", ""))]
            if not cards:
                raise ActionError(f"a {etype.replace('_', ' ')} needs its cards")
            event["cards"] = cards
        elif etype in ("tribute", "return"):
            event["card"] = parse_card(form.get("card", "")).code
    except CardError as exc:
        raise ActionError(str(exc)) from None
    if etype == "report":
        try:
            event["count"] = int(form.get("count", ""))
        except ValueError:
            raise ActionError("'count' must be the number of cards left") from None
    return event


@bp.route("/tables/<table>/action", methods=["POST"])
@table_access
def act(table):
    lv = live()
    t = lv.now(table)
    try:
        events = action_events(request.form, table, t, current_user.name)
        decisions = []
        for e in events:
            decisions.extend(lv.submit(e))
    except (ActionError, EventError) as exc:
        if request.accept_mimetypes.best == "application/json":
            return jsonify(error=str(exc)), 400
        abort(400, description=str(exc))
    if request.accept_mimetypes.best == "application/json":
        return jsonify(decisions=decisions)
    return redirect(url_for("views.table_page", table=table))
