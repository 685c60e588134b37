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
``OVERLAY_DELAY``   seconds the public overlay lags the table (default 0, at most 600)
``OVERLAY_THEMES``  the directory of the overlay's theme stylesheets (``?theme=NAME``
                    picks ``NAME.css``; default the shipped ``static/overlay-themes``)
``OVERLAY_RULING_SECONDS``  how long (table time) the overlay shows a confirmed ruling (20)
``STANDINGS_SYSTEM``  ``swiss`` (default) or ``round_robin``
``DEFAULT_LANG``    ``zh`` (default) or ``en``
``SECRET_KEY``      session signing key (a random one per process by default)
``PUBLIC_MAX_AGE``  seconds a proxy may keep public data (sheets, standings; default 2)
``PROXY_FIX``       how many reverse proxies stand in front (default 0): trust
                    that many X-Forwarded-For/-Proto/-Host/-Prefix values
                    (docs/dashboard-serving.md)

Security (docs/dashboard-security.md): ``MAX_CONTENT_LENGTH`` (64 KiB),
``LOGIN_MAX_FAILURES`` / ``LOGIN_WINDOW`` (5 per 900 s), ``TLS`` (Secure
cookies), ``OVERLAY_FRAME_ANCESTORS`` (``*``), ``DEV_MODE`` (the only way to
get ``DEBUG``; loopback only).
"""

from __future__ import annotations

import copy
import os
import secrets
import tomllib
from typing import TYPE_CHECKING, Any

from flask import Flask
from flask_wtf.csrf import CSRFProtect

from web_dashboard.security import DashboardFlask

if TYPE_CHECKING:
    from services.live import LiveVenue

csrf = CSRFProtect()

DEFAULTS: dict[str, Any] = dict(
    DATABASE=None,
    TABLES=[],
    SETTINGS={},
    MATCHES={},
    USERS=None,
    USERS_FILE=None,
    OVERLAY_DELAY=0.0,
    OVERLAY_THEMES=None,
    OVERLAY_RULING_SECONDS=20.0,
    EVIDENCE_DIR=None,
    STANDINGS_SYSTEM="swiss",
    DEFAULT_LANG="zh",
    SSE_KEEPALIVE=15.0,
    WTF_CSRF_TIME_LIMIT=None,
    # security (docs/dashboard-security.md)
    MAX_CONTENT_LENGTH=64 * 1024,
    LOGIN_MAX_FAILURES=5,
    LOGIN_WINDOW=900.0,
    TLS=False,
    PROXY_FIX=0,
    OVERLAY_FRAME_ANCESTORS="*",
    DEV_MODE=False,
    SESSION_COOKIE_SAMESITE="Lax",
    SESSION_COOKIE_HTTPONLY=True,
)


def create_app(config: dict[str, Any] | None = None, live: LiveVenue | None = None) -> Flask:
    """Make the app. ``live`` may pass an existing :class:`~services.live.LiveVenue`
    (the demo and ``guandan-ref table`` share theirs with the event sources)."""
    # imported here, not above: `guandan-ref users` imports web_dashboard.auth
    # and should not load the pages (and the PDF library)
    from web_dashboard import (auth, caching, camera_checks, deal_viewer, i18n, overlay, security, sheets, stream,
                               views)

    app = DashboardFlask(__name__, instance_relative_config=True)
    configure(app, config)
    if live is not None:
        app.extensions["guandan_venue"] = live
    security.init_app(app)
    csrf.init_app(app)
    for module in (auth, views, stream, sheets, overlay, deal_viewer, camera_checks, i18n, caching):
        module.init_app(app)
    return app


def configure(app: Flask, config: dict[str, Any] | None) -> None:
    """The settings: :data:`DEFAULTS`, then the ``GUANDAN_DASHBOARD_CONFIG`` file,
    then ``config``."""
    # a new key per app: sessions do not outlive the process unless SECRET_KEY is set
    app.config.update(SECRET_KEY=secrets.token_hex(32), **copy.deepcopy(DEFAULTS))
    path = os.environ.get("GUANDAN_DASHBOARD_CONFIG")
    if path:
        with open(path, "rb") as f:
            app.config.update({k.upper(): v for k, v in tomllib.load(f).items()})
    if config:
        app.config.update(config)
    # The debugger runs code for whoever reaches it: DEBUG from a config file or
    # dict counts only in an explicit DEV_MODE (and DashboardFlask.run then
    # serves it on loopback only)
    if not app.config["DEV_MODE"]:
        app.config["DEBUG"] = False
        app.debug = False
    if app.config["TLS"]:
        app.config["SESSION_COOKIE_SECURE"] = True
