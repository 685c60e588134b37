"""The referee dashboard, stream overlay, score sheets and standings (Flask).

Build it with the application factory::

    from web_dashboard import create_app
    app = create_app({"DATABASE": "venue.sqlite", "USERS_FILE": "users.toml"})

Settings (``config`` keys, or a TOML file named by ``GUANDAN_DASHBOARD_CONFIG``):

``DATABASE``        the SQLite event log (default ``instance/venue.sqlite``)
``TABLES``          table ids to show even before their first event
``MATCHES``         ``{table: {"round": 1, "NS": team, "EW": team}}`` for standings
``USERS`` / ``USERS_FILE``  referees (see :mod:`web_dashboard.auth`)
``SETTINGS``        referee settings (:class:`referee.settings.Settings` fields:
                    limits, countdown, match_format, deals, minutes, tie, ...)
``EVIDENCE_DIR``    where vision saves frame crops (``<dir>/<table>/<file>``, named by
                    an event's ``crop`` field)
``OVERLAY_DELAY``   seconds the public overlay lags the table (default 0)
``STANDINGS_SYSTEM``  ``swiss`` (default) or ``round_robin``
``DEFAULT_LANG``    ``zh`` (default) or ``en``
``SECRET_KEY``      session signing key (a random one per process by default)
"""

from __future__ import annotations

import json
import os
import secrets
import tomllib
from pathlib import Path
from typing import Any

from flask import Flask, g, request
from flask_wtf.csrf import CSRFProtect

from web_dashboard.i18n import LANGS, catalogue, translate

csrf = CSRFProtect()


def create_app(config: dict[str, Any] | None = None, live=None) -> Flask:
    """Make the app. ``live`` may pass an existing :class:`~services.live.LiveVenue`
    (the demo and ``guandan-ref table`` share theirs with the event sources)."""
    app = Flask(__name__, instance_relative_config=True)
    app.config.update(
        SECRET_KEY=secrets.token_hex(32),
        DATABASE=None,
        TABLES=[],
        SETTINGS={},
        MATCHES={},
        USERS=None,
        USERS_FILE=None,
        OVERLAY_DELAY=0.0,
        EVIDENCE_DIR=None,
        STANDINGS_SYSTEM="swiss",
        DEFAULT_LANG="zh",
        SSE_KEEPALIVE=15.0,
        WTF_CSRF_TIME_LIMIT=None,
    )
    path = os.environ.get("GUANDAN_DASHBOARD_CONFIG")
    if path:
        with open(path, "rb") as f:
            app.config.update({k.upper(): v for k, v in tomllib.load(f).items()})
    if config:
        app.config.update(config)

    from web_dashboard import auth
    users = app.config["USERS"]
    if users is None and app.config["USERS_FILE"]:
        users = auth.load_users_file(app.config["USERS_FILE"])
    elif isinstance(users, list):
        users = auth.parse_users(users)
    app.extensions["guandan_users"] = users or {}

    if live is None:
        from referee.settings import Settings
        from services.live import LiveVenue
        from services.venue import Venue
        db = app.config["DATABASE"]
        if db is None:
            Path(app.instance_path).mkdir(parents=True, exist_ok=True)
            db = os.path.join(app.instance_path, "venue.sqlite")
        settings = Settings.from_dict(app.config["SETTINGS"])
        live = LiveVenue(Venue(db, settings), app.config["TABLES"], app.config["MATCHES"])
    app.extensions["guandan_venue"] = live

    csrf.init_app(app)
    auth.login_manager.init_app(app)
    app.register_blueprint(auth.bp)
    from web_dashboard import sheets, stream, views
    app.register_blueprint(views.bp)
    app.register_blueprint(stream.bp)
    app.register_blueprint(sheets.bp)

    @app.before_request
    def _lang():
        lang = request.cookies.get("lang", app.config["DEFAULT_LANG"])
        g.lang = lang if lang in LANGS else "zh"

    @app.context_processor
    def _helpers():
        lang = g.get("lang", "zh")
        return {"_": lambda key: translate(key, lang), "lang": lang,
                "i18n_json": json.dumps(catalogue(lang), ensure_ascii=False)}

    return app
