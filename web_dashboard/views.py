"""Pages: overview (head referee), table view (the table's referee), overlay
(public), and the referee's actions on a table."""

from __future__ import annotations

import os
from pathlib import Path

from flask import (Blueprint, Flask, current_app, jsonify, make_response, redirect,
                   render_template, request, send_from_directory, url_for)
from flask_login import current_user

from referee.cards import CardError, level_name, level_rank, parse_card, parse_cards
from referee.codes import Violation
from referee.deal import HAND_SIZE
from referee.events import MAX_CARDS, SEATS, Event, EventError
from referee.penalties import PENALTIES
from referee.settings import Settings
from services.appeal import AppealError, bundle, find_ruling
from services.evidence import clip_index, clip_stem
from services.live import LiveVenue
from services.venue import Venue
from web_dashboard.auth import login_required, table_access
from web_dashboard.i18n import LANGS, fail
from web_dashboard.messages import render
from web_dashboard.security import safe_next
from web_dashboard.venue_status import overview_data
from web_dashboard.view_model import overview_row, signers, table_view, violation_status

bp = Blueprint("views", __name__)

MANUAL_CODES = ("late", "signalling", "manual")
VIOLATION_CODES = tuple(v.value for v in Violation)


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


def teams(table: str, snapshot: dict | None = None) -> dict[str, str]:
    """The table's teams by side: the log's ``settings`` event names them (the
    table node and the demo write them there); the dashboard's ``MATCHES``
    fills in a side the log does not name."""
    snap = snapshot if snapshot is not None else live().snapshot(table)
    configured = live().matches.get(table, {})
    logged = snap.get("teams") or {}
    return {side: str(logged.get(side) or configured[side])[:MAX_NAME_SHOWN]
            for side in ("NS", "EW") if logged.get(side) or configured.get(side)}


MAX_NAME_SHOWN = 100      # a team name from a log or the settings, as pages show it


def table_state(table: str, public: bool = False) -> dict:
    lv = live()
    snapshot, decisions, events, version = lv.read(table)
    # the table's own settings (its log may carry other ones than the dashboard's)
    seconds = snapshot.get("settings", {}).get("countdown", countdown())
    view = table_view(table, snapshot, decisions, events, seconds, public=public)
    view["version"] = version
    view["now"] = lv.now(table)
    view["teams"] = teams(table, snapshot)
    for item in view.get("feed", []):
        for e in item["evidence"]:
            crop = e.get("crop")
            if isinstance(crop, str) and not crop.startswith("data:image/"):
                e["crop"] = url_for("views.evidence", table=table, name=crop)
    if not public:
        _clip_links(table, view.get("feed", []))
    return view


def _clip_links(table: str, feed: list[dict]) -> None:
    """Each ruling's video clips (once written) and its appeal bundle's address."""
    root = current_app.config.get("EVIDENCE_DIR")
    clips = clip_index(Path(root) / table) if root else {}
    for item in feed:
        stem = clip_stem(item)
        if stem is None:
            continue
        item["clips"] = [url_for("views.evidence", table=table, name=n) for n in clips.get(stem, [])]
        item["appeal"] = url_for("views.appeal", table=table, n=item["n"])


def overview_state() -> list[dict]:
    lv = live()
    rows = []
    for t in lv.tables:
        snapshot, decisions, events, version = lv.read(t)
        rows.append(dict(overview_row(t, snapshot, decisions, events), version=version,
                         teams=teams(t, snapshot)))
    return rows


def require_table(table: str) -> None:
    if table not in live().tables:
        fail(404, "err_no_table", table=str(table)[:60])


@bp.route("/")
@login_required
def overview():
    return render_template("overview.html", rows=overview_state(), venue=overview_data())


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
        fail(404, "err_no_evidence_dir")
    return send_from_directory(f"{root}/{table}", name)


@bp.route("/tables/<table>/appeal/<int:n>.zip")
@table_access
def appeal(table, n):
    """The appeal bundle of ruling ``n`` (as ``guandan-ref appeal``)."""
    snapshot, decisions, events, _ = live().read(table)
    root = current_app.config.get("EVIDENCE_DIR")
    folder = Path(root) / table if root and (Path(root) / table).is_dir() else None
    try:
        ruling = find_ruling(decisions, n, table)
        data = bundle(table, ruling, events, violation_status(decisions, events).get(n, "open"), folder)
    except AppealError as exc:
        fail(404, "err_appeal", detail=str(exc))
    resp = make_response(data)
    resp.headers["Content-Type"] = "application/zip"
    resp.headers["Content-Disposition"] = f'attachment; filename="appeal-{table}-{n}.zip"'
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.route("/overlay/<table>")
def overlay(table):
    """The broadcast overlay (options and view: :mod:`web_dashboard.overlay`)."""
    from web_dashboard.overlay import page

    require_table(table)
    return page(table)


@bp.route("/lang/<code>")
def set_lang(code):
    if code not in LANGS:
        fail(404, "err_no_lang", code=str(code)[:20])
    resp = make_response(redirect(safe_next(request.args.get("next"))))
    resp.set_cookie("lang", code, max_age=365 * 86400, samesite="Lax",
                    secure=request.is_secure or bool(current_app.config["SESSION_COOKIE_SECURE"]))
    return resp


class ActionError(ValueError):
    """A referee's form that cannot become an event: the message says why.

    ``key`` names the message's template in the catalogue (``err_...``,
    web_dashboard/messages.py), ``values`` fill it: the referee reads it in
    the page's language; ``str()`` is the English text (logs, tests)."""

    def __init__(self, key: str, **values: object) -> None:
        self.key, self.values = key, values
        super().__init__(render({"key": key, "values": values}, "en"))


# What the form knows and Event.from_dict does not (it checks that numbers are
# finite, texts short, cards well formed): the ranges that make sense here.
MAX_MINUTES = 600         # lateness beyond ten hours is a typing error
MAX_NAME = 100            # a signature on the score sheet
MAX_NOTE = 200            # a penalty's reason
MAX_REF = 2 ** 31 - 1     # an event number (the log's positions)
MAX_DEAL = 1000


def _int(form, name: str, what: str = "ref", lo: int = 1, hi: int = MAX_REF) -> int:
    raw = form.get(name, "")
    try:
        value = int(raw) if len(raw) <= 20 else None
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        raise ActionError("err_int", name=name, what=what, lo=lo, hi=hi)
    return value


def _seat(form, name: str = "seat") -> str:
    seat = form.get(name, "")
    if seat not in SEATS:
        raise ActionError("err_seat", name=name)
    return seat


def _text(form, name: str, default: str, limit: int) -> str:
    value = form.get(name, "").strip() or default
    if len(value) > limit or any(ord(c) < 0x20 or c == "\x7f" for c in value):
        raise ActionError("err_text", name=name, limit=limit)
    return value


def _penalty(form) -> str:
    penalty = form.get("penalty", "")
    if penalty not in PENALTIES:
        raise ActionError("err_penalty", choices=", ".join(PENALTIES))
    return penalty


def _open_violation(ref: int, decisions: list[dict], events: list[dict]) -> dict:
    """The violation whose last piece of evidence is event ``ref``, if its
    penalty still stands (open or confirmed, not voided)."""
    found = [d for d in decisions if d["type"] == "violation" and d.get("seat")
             and (d.get("events") or [None])[-1] == ref]
    if not found:
        raise ActionError("err_not_violation", ref=ref)
    target = found[-1]
    if violation_status(decisions, events).get(target["n"]) == "voided" or not target.get("penalty"):
        raise ActionError("err_voided", ref=ref)
    return target


# actions that give penalties or make play: none once the match has a result
# (a foul then would score a deal that was never played)
CLOSED_AFTER_MATCH = ("penalty", "change_penalty", "event", "choice")


def action_events(form, table: str, t: float, who: str,
                  record: tuple[dict, list[dict], list[dict]] | None = None) -> list[dict]:
    """The referee events a dashboard form stands for (all carry ``who``).
    ``record``: the table's (snapshot, decisions, events), which some actions check;
    with it, a correction must name an event of the table's log."""
    out = _action_events(form, table, t, who, record)
    if record is not None:
        known = {e.get("id") for e in record[2]}
        for d in out:
            if d.get("action") in ("confirm", "void", "correct", "count") and d["ref"] not in known:
                raise ActionError("err_no_event", ref=d["ref"], table=table)
    return out


def _action_events(form, table: str, t: float, who: str,
                   record: tuple[dict, list[dict], list[dict]] | None) -> list[dict]:
    action = form.get("action", "")
    snapshot, decisions, events = record or ({}, [], [])
    if action in CLOSED_AFTER_MATCH and (snapshot.get("score_sheet") or {}).get("result"):
        raise ActionError("err_match_over")
    base = {"type": "referee", "table": table, "t": t, "source": "manual", "who": who}
    if action == "confirm":
        return [dict(base, action="confirm", ref=_int(form, "ref"))]
    if action == "count":
        return [dict(base, action="count", ref=_int(form, "ref"), seat=_seat(form),
                     count=_int(form, "count", "count", 0, HAND_SIZE))]
    if action == "void":
        what = form.get("what", "penalty")
        if what not in ("penalty", "event"):
            raise ActionError("err_what")
        return [dict(base, action="void", ref=_int(form, "ref"), what=what)]
    if action == "change_penalty":
        ref = _int(form, "ref")
        penalty = _penalty(form)
        target = _open_violation(ref, decisions, events)
        code = form.get("code") or target["code"]
        if code not in VIOLATION_CODES:
            raise ActionError("err_change_code", choices=", ".join(VIOLATION_CODES))
        if form.get("seat") and form["seat"] != target["seat"]:
            raise ActionError("err_offender", seat=target["seat"])
        # the new penalty keeps the original evidence and names what it replaces
        return [dict(base, action="void", ref=ref, what="penalty"),
                dict(base, action="penalty", seat=target["seat"], penalty=penalty, code=code,
                     changes=ref, evidence=list(target["events"]),
                     reason=f"penalty for event {ref} changed to {penalty} by {who}")]
    if action == "penalty":
        code = form.get("code", "manual")
        if code not in MANUAL_CODES:
            raise ActionError("err_manual_code", choices=", ".join(MANUAL_CODES))
        if code == "late":
            minutes = form.get("minutes", "")
            try:
                value = float(minutes) if len(minutes) <= 20 else None
            except ValueError:
                value = None
            # NaN fails the comparison too; Event.from_dict refuses non-finite values as well
            if value is None or not 0 <= value <= MAX_MINUTES:
                raise ActionError("err_minutes", max=MAX_MINUTES)
            return [dict(base, action="late", seat=_seat(form), minutes=value)]
        # no reason typed: none recorded (the page names the rule; the event has ``who``)
        note = _text(form, "note", "-", MAX_NOTE)
        return [dict(base, action="penalty", seat=_seat(form), penalty=_penalty(form), code=code,
                     **({"reason": note} if form.get("note", "").strip() else {}))]
    if action == "correct":
        ref = _int(form, "ref")
        kind = form.get("kind", "play")
        if kind == "pass":
            return [dict(base, action="correct", ref=ref, event={"type": "pass"})]
        if kind != "play":
            raise ActionError("err_kind")
        try:
            cards = [c.code for c in parse_cards(form.get("cards", "")[:200])]
        except CardError as exc:
            raise ActionError("err_cards", cards=form.get("cards", "")[:60], detail=str(exc)) from None
        if not cards:
            raise ActionError("err_correct_cards")
        return [dict(base, action="correct", ref=ref, event={"type": "play", "cards": cards})]
    if action == "choice":
        stop = form.get("choice", "stop_next_play") == "stop_next_play"
        return [dict(base, action="choice", seat=_seat(form), stop=stop)]
    if action == "event":
        return [_manual_event(form, base)]
    if action == "sign":
        side = form.get("side", "")
        if side not in ("NS", "EW"):
            raise ActionError("err_side")
        allowed = signers(snapshot).get(side, [])
        if not allowed:
            # no players or captains registered for the side: any name (documented)
            return [dict(base, action="sign", side=side, name=_text(form, "name", who, MAX_NAME))]
        name = form.get("name", "").strip()
        if name not in allowed:
            raise ActionError("err_signer", side=side, allowed=", ".join(allowed), name=name[:40])
        return [dict(base, action="sign", side=side, name=name)]
    raise ActionError("err_action", action=action[:40])


MANUAL_EVENTS = ("deal_start", "play", "pass", "report", "tribute", "return", "anti_tribute")


def _manual_event(form, base: dict) -> dict:
    """A play, pass, report, tribute, return or deal start entered by hand
    (no camera or device saw it): an ordinary event with source ``manual``."""
    etype = form.get("type", "")
    if etype not in MANUAL_EVENTS:
        raise ActionError("err_type", choices=", ".join(MANUAL_EVENTS))
    if len(form.get("cards", "")) > 200:
        raise ActionError("err_long_cards")
    event = {k: v for k, v in base.items() if k != "who"}
    event.update(type=etype, who=base["who"])
    if etype == "deal_start":
        deal = _int(form, "deal", "deal", 1, MAX_DEAL)
        try:
            level = level_name(level_rank(form.get("level", "")))
        except CardError as exc:
            raise ActionError("err_level", level=form.get("level", "")[:20], detail=str(exc)) from None
        event.update(deal=deal, level=level)
        if form.get("leader"):
            event["leader"] = _seat(form, "leader")
        return event
    event["seat"] = _seat(form)
    try:
        if etype in ("play", "anti_tribute"):
            cards = [c.code for c in parse_cards(form.get("cards", ""))]
            if not cards:
                raise ActionError("err_event_cards", type=etype, what=etype.replace("_", " "))
            event["cards"] = cards
        elif etype in ("tribute", "return"):
            event["card"] = parse_card(form.get("card", "")).code
    except CardError as exc:
        given = form.get("card" if etype in ("tribute", "return") else "cards", "")[:60]
        raise ActionError("err_cards", cards=given, detail=str(exc)) from None
    if etype == "report":
        event["count"] = _int(form, "count", "count", 0, MAX_CARDS)
    return event


@bp.route("/tables/<table>/action", methods=["POST"])
@table_access
def act(table):
    lv = live()
    t = lv.now(table)
    snapshot, decisions, events, _ = lv.read(table)
    try:
        dicts = action_events(request.form, table, t, current_user.name,
                              (snapshot, decisions, events))
        # every event of the action is checked before any is stored: a refused
        # request changes nothing
        checked = [Event.from_dict(d) for d in dicts]
    except (ActionError, EventError) as exc:
        # the referee reads why in the page's language (JSON ``detail``: the English
        # text), from the error handler of web_dashboard.i18n
        if isinstance(exc, ActionError):
            fail(400, exc.key, **exc.values)
        fail(400, "err_event", detail=str(exc))
    decisions = []
    for e in checked:
        decisions.extend(lv.submit(e))
    if request.accept_mimetypes.best == "application/json":
        return jsonify(decisions=decisions)
    return redirect(url_for("views.table_page", table=table))
