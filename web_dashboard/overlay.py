"""The broadcast overlay: a transparent 1920×1080 page for OBS browser sources.

What it shows is :func:`overlay_view`, a pure function of a table's snapshot,
decisions and events (team and player names, levels, deal, whose turn and
its clock, each seat's last play, the cards left as the seats reported them,
the latest confirmed ruling for a while, the result). The fan-out renders it
once per change of the table for every viewer of ``/overlay/<table>/stream``
(:mod:`web_dashboard.fanout`), so a crowd costs no extra work per change.

The page's options come from its query string, checked once by
:func:`parse_options` (a bad one is a 400 naming it): ``layout``, ``show``,
``scale``, ``theme``, ``lang`` and ``delay``. The broadcast delay
(``OVERLAY_DELAY``) is enforced by the server on the stream; ``delay`` can
only lengthen it. Guide: ``docs/overlay.md``.

>>> parse_options({"layout": "corners", "show": "teams,clock", "scale": "1.5"}, None).layout
'corners'
>>> parse_options({"layout": "left"}, None)
Traceback (most recent call last):
...
web_dashboard.overlay.OverlayParamError: 'layout' must be one of bottom, top, corners (got 'left')
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import (Blueprint, Flask, abort, current_app, g, jsonify, render_template, request,
                   send_from_directory, url_for)

from referee.codes import Violation
from web_dashboard.i18n import catalogue
from web_dashboard.view_model import clock, violation_status

bp = Blueprint("overlay", __name__)

LAYOUTS = ("bottom", "top", "corners")
# what ``show`` may pick (all by default)
ELEMENTS = ("teams", "players", "levels", "deal", "clock", "cards", "counts", "ruling", "result")
SEAT_ORDER = ("S", "E", "N", "W")        # the order of play, the seats' order in a row
MIN_SCALE, MAX_SCALE = 0.5, 2.0
MAX_DELAY = 600.0                        # seconds: more is a typing error
THEME_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}\Z")
PARAMS = ("layout", "show", "scale", "theme", "lang", "delay")
MAX_PLAYER_NAME = 40
BUILTIN_THEMES = Path(__file__).resolve().parent / "static" / "overlay-themes"


class OverlayParamError(ValueError):
    """A query parameter of the overlay that cannot be used: the message says which and why."""


class OverlayConfigError(ValueError):
    """An overlay setting of the dashboard that cannot be used (the app is not made)."""


@dataclass(frozen=True)
class OverlayOptions:
    """The overlay page's options, checked."""

    layout: str = "bottom"
    show: tuple[str, ...] = ELEMENTS
    scale: float = 1.0
    theme: str | None = None
    lang: str | None = None
    delay: float = 0.0                   # asked for; the stream never uses less than OVERLAY_DELAY


def _one(args: Any, name: str) -> str | None:
    values = args.getlist(name) if hasattr(args, "getlist") else (
        [args[name]] if name in args else [])
    if len(values) > 1:
        raise OverlayParamError(f"'{name}' is given {len(values)} times: give it once")
    return values[0] if values else None


def _number(raw: str, name: str, lo: float, hi: float, unit: str = "") -> float:
    try:
        value = float(raw) if len(raw) <= 20 else math.nan
    except ValueError:
        value = math.nan
    # NaN fails the comparison as well
    if not lo <= value <= hi:
        raise OverlayParamError(f"'{name}' must be a number from {lo:g} to {hi:g}{unit} (got {raw[:20]!r})")
    return value


def parse_options(args: Mapping[str, str] | Any, themes: Path | None) -> OverlayOptions:
    """The options of a query string (a Flask ``request.args`` or a plain dict).

    ``themes``: the directory of theme stylesheets (``NAME.css``); ``None``
    refuses every ``theme``. Raises :class:`OverlayParamError`.
    """
    unknown = sorted(set(args) - set(PARAMS))
    if unknown:
        raise OverlayParamError(f"unknown parameter {unknown[0][:40]!r} (the overlay takes "
                                f"{', '.join(PARAMS)})")
    opts: dict[str, Any] = {}
    layout = _one(args, "layout")
    if layout is not None:
        if layout not in LAYOUTS:
            raise OverlayParamError(f"'layout' must be one of {', '.join(LAYOUTS)} (got {layout[:40]!r})")
        opts["layout"] = layout
    show = _one(args, "show")
    if show is not None:
        picked = [s.strip() for s in show.split(",") if s.strip()]
        bad = [s for s in picked if s not in ELEMENTS]
        if bad or not picked:
            raise OverlayParamError(f"'show' must be a comma-separated list of {', '.join(ELEMENTS)}"
                                    + (f" (unknown {bad[0][:40]!r})" if bad else " (got none)"))
        opts["show"] = tuple(e for e in ELEMENTS if e in picked)
    scale = _one(args, "scale")
    if scale is not None:
        opts["scale"] = _number(scale, "scale", MIN_SCALE, MAX_SCALE)
    theme = _one(args, "theme")
    if theme is not None:
        if not THEME_NAME.match(theme):
            raise OverlayParamError("'theme' must be a theme's name: 1-40 lower-case letters, digits, "
                                    f"'-' or '_' (got {theme[:40]!r})")
        if themes is None or not (themes / f"{theme}.css").is_file():
            raise OverlayParamError(f"no theme {theme!r} (themes are the NAME.css files of "
                                    "OVERLAY_THEMES)")
        opts["theme"] = theme
    lang = _one(args, "lang")
    if lang is not None:
        if lang not in ("zh", "en"):
            raise OverlayParamError(f"'lang' must be zh or en (got {lang[:40]!r})")
        opts["lang"] = lang
    delay = _one(args, "delay")
    if delay is not None:
        opts["delay"] = _number(delay, "delay", 0.0, MAX_DELAY, " seconds")
    return OverlayOptions(**opts)


# ------------------------------------------------------------------ the view
def _reports(events: list[dict]) -> dict[str, int]:
    """Each seat's last count report in the current deal, as voids and
    corrections of the referee leave it."""
    voided: set[Any] = set()
    corrected: dict[Any, dict] = {}
    out: dict[str, int] = {}
    # a deal's corrections come after what they correct: one pass backwards
    for e in reversed(events):
        kind = e.get("type")
        if kind == "deal_start":
            break
        if kind == "referee":
            if e.get("action") == "void" and e.get("what", "event") == "event":
                voided.add(e.get("ref"))
            elif e.get("action") == "correct" and isinstance(e.get("event"), dict):
                corrected.setdefault(e.get("ref"), e["event"])
        elif kind == "report" and e.get("id") not in voided:
            fixed = {**e, **corrected.get(e.get("id"), {})}
            seat, count = fixed.get("seat"), fixed.get("count")
            if (fixed.get("type") == "report" and seat in SEAT_ORDER and seat not in out
                    and isinstance(count, int) and not isinstance(count, bool)):
                out[seat] = count
    return out


def _names(raw: Any, keys: tuple[str, ...]) -> dict[str, str]:
    """Names by seat or side from the log (or config), as far as they are names."""
    if not isinstance(raw, Mapping):
        return {}
    return {k: v.strip()[:MAX_PLAYER_NAME] for k, v in raw.items()
            if k in keys and isinstance(v, str) and v.strip()}


def _players(snapshot: dict, events: list[dict]) -> dict[str, str]:
    """Player names per seat: the table state's ``players``, else the last
    ``settings`` event's (optional: a log without them shows none)."""
    if snapshot.get("players"):
        return _names(snapshot["players"], SEAT_ORDER)
    for e in reversed(events):
        if e.get("type") == "settings":
            return _names(e.get("players"), SEAT_ORDER)
    return {}


def latest_ruling(decisions: list[dict], events: list[dict], now: float, seconds: float,
                  teams: Mapping[str, str]) -> dict[str, Any] | None:
    """The latest violation the referee confirmed, while ``now`` (table time) is
    within ``seconds`` of its confirmation; ``None`` otherwise.

    A violation counts from the referee's ``confirm`` of its evidence; a
    changed penalty (the referee's own ruling) from its own time.
    """
    status = violation_status(decisions, events)
    confirmed_at: dict[Any, float] = {}
    for e in events:
        if e.get("type") == "referee" and e.get("action") == "confirm":
            confirmed_at[e.get("ref")] = float(e.get("t", 0.0))
    best: tuple[float, dict] | None = None
    for d in decisions:
        if d["type"] != "violation" or not d.get("penalty") or status.get(d["n"]) != "confirmed":
            continue
        refs = d.get("events") or []
        if d.get("changes") is not None:
            at: float | None = float(d["t"])
        else:
            at = max((confirmed_at[r] for r in refs if r in confirmed_at), default=None)
        if at is not None and (best is None or at >= best[0]):
            best = (at, d)
    if best is None or now >= best[0] + seconds:
        return None
    at, d = best
    try:
        code = Violation(d.get("code"))
        term, clause = code.term, code.clause
    except ValueError:
        term, clause = "", ""
    side = d.get("side")
    return {"n": d["n"], "seat": d.get("seat"), "side": side, "team": teams.get(side or ""),
            "code": d.get("code"), "term": term, "clause": clause, "penalty": d.get("penalty"),
            "t": at, "until": at + seconds}


def overlay_view(table: str, snapshot: dict, decisions: list[dict], events: list[dict],
                 countdown: float, now: float, ruling_seconds: float = 20.0,
                 teams: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What the overlay shows (public: nothing a spectator could not see at the table).

    ``countdown``: the table's own 读秒 seconds; ``now``: table time, which
    decides whether the last ruling is still shown; ``teams``: names to use
    when the log names none (the dashboard's ``MATCHES``).
    """
    deal = snapshot.get("deal") or {}
    result = (snapshot.get("score_sheet") or {}).get("result")
    phase = "match_over" if result else (deal.get("phase") or "idle") if deal else "idle"
    # after the match (or between deals) nobody is to act: no turn, no clock
    acting = phase in ("tribute", "return", "play")
    named = _names(snapshot.get("teams"), ("NS", "EW")) or _names(teams, ("NS", "EW"))
    reported = _reports(events)
    order = list(deal.get("order", []))
    seats = {}
    for seat in SEAT_ORDER:
        plays = [p for p in deal.get("trick", []) if p.get("seat") == seat]
        last = plays[-1] if plays else None
        seats[seat] = {
            "last": None if last is None else {"pass": True} if last.get("pass")
            else {"cards": list(last.get("cards", []))},
            "reported": reported.get(seat),
            "place": order.index(seat) + 1 if seat in order else None,
        }
    return {
        "table": table,
        "t": snapshot.get("t", 0.0),
        "now": now,
        "phase": phase,
        "deal": deal.get("deal"),
        "level": deal.get("level"),
        "levels": snapshot.get("levels", {}),
        "teams": named,
        "players": _players(snapshot, events),
        "turn": deal.get("turn") if acting else None,
        "clock": clock(decisions, snapshot, countdown) if acting else None,
        "seats": seats,
        "order": order,
        "ruling": latest_ruling(decisions, events, now, ruling_seconds, named),
        "result": None if not result else {
            "winner": result.get("winner"), "team": named.get(result.get("winner") or ""),
            "levels": result.get("levels", {}), "reason": result.get("reason")},
        "version": None,
    }


def overlay_state(table: str) -> dict[str, Any]:
    """:func:`overlay_view` of a table of the app's venue (what the stream sends)."""
    from web_dashboard.views import countdown, live

    lv = live()
    snapshot, decisions, events, version = lv.read(table)
    # the table's own settings (its log may carry other ones than the dashboard's)
    seconds = snapshot.get("settings", {}).get("countdown", countdown())
    view = overlay_view(table, snapshot, decisions, events, seconds, lv.now(table),
                        float(current_app.config["OVERLAY_RULING_SECONDS"]),
                        lv.matches.get(table) or {})
    view["version"] = version
    return view


# ------------------------------------------------------------------ the routes
def check_seconds(value: Any, key: str, hi: float = MAX_DELAY) -> float:
    """A setting in seconds, 0 to ``hi``; :class:`OverlayConfigError` naming ``key`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= hi:
        raise OverlayConfigError(f"{key} must be a number of seconds from 0 to {hi:g} (got {value!r})")
    return float(value)


def check_themes(themes: Any, key: str = "OVERLAY_THEMES") -> Any:
    """The theme directory setting (None: the shipped one); :class:`OverlayConfigError` naming ``key``."""
    if themes is not None and (not isinstance(themes, str) or not themes or not Path(themes).is_dir()):
        raise OverlayConfigError(f"{key} must be a directory of theme stylesheets (no directory {themes!r})")
    return themes


def init_app(app: Flask) -> None:
    """Check the overlay's settings (a bad one stops the app with its name) and add its routes."""
    for key, hi in (("OVERLAY_DELAY", MAX_DELAY), ("OVERLAY_RULING_SECONDS", 3600.0)):
        app.config[key] = check_seconds(app.config[key], key, hi)
    check_themes(app.config["OVERLAY_THEMES"])
    app.register_blueprint(bp)


def themes_dir() -> Path | None:
    configured = current_app.config["OVERLAY_THEMES"]
    return Path(configured) if configured is not None else BUILTIN_THEMES


def options() -> OverlayOptions:
    """The request's options, or a 400 that says what is wrong."""
    try:
        return parse_options(request.args, themes_dir())
    except OverlayParamError as exc:
        abort(400, description=str(exc))


def stream_delay() -> float:
    """Seconds the overlay stream holds each message back: ``OVERLAY_DELAY``,
    or the longer ``delay`` the page asked for (never less)."""
    try:
        unknown = sorted(set(request.args) - {"delay"})
        if unknown:
            raise OverlayParamError(f"unknown parameter {unknown[0][:40]!r} (the stream takes delay)")
        asked = parse_options(request.args, None).delay
    except OverlayParamError as exc:
        abort(400, description=str(exc))
    return max(float(current_app.config["OVERLAY_DELAY"]), asked)


def page(table: str):
    """The overlay page of ``table`` (the route is ``views.overlay``)."""
    opts = options()
    lang = opts.lang or g.get("lang", "zh")
    delay = max(float(current_app.config["OVERLAY_DELAY"]), opts.delay)
    stream = url_for("stream.overlay_stream", table=table,
                     **({"delay": f"{delay:g}"} if delay > current_app.config["OVERLAY_DELAY"] else {}))
    # ``lang`` may be the address's, not the cookie's: the page's own texts
    texts = catalogue(lang)
    return render_template("overlay.html", table=table, opts=opts, lang=lang, seats=SEAT_ORDER,
                           i18n_catalogue=texts, delay=delay, _=lambda key: texts.get(key, key),
                           data={"stream": stream, "show": list(opts.show), "scale": opts.scale,
                                 "table": table})


@bp.route("/overlay/<table>/state.json")
def state_json(table):
    """The overlay's state now; refused while a broadcast delay is set (the
    stream alone can hold the state back)."""
    from web_dashboard.views import require_table

    require_table(table)
    if current_app.config["OVERLAY_DELAY"] > 0:
        abort(403, description=f"the overlay is delayed {current_app.config['OVERLAY_DELAY']:g} s "
                               "for broadcast: its state is sent only on the stream")
    return jsonify(overlay_state(table))


@bp.route("/overlay/theme/<name>.css")
def theme(name):
    """A theme stylesheet of ``OVERLAY_THEMES`` (the overlay's ``?theme=NAME``)."""
    folder = themes_dir()
    if not THEME_NAME.match(name) or folder is None or not (folder / f"{name}.css").is_file():
        abort(404, description=f"no overlay theme {name[:40]!r}")
    return send_from_directory(folder, f"{name}.css", mimetype="text/css")
