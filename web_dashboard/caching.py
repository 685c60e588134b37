"""Public pages are cacheable: an ETag from the versions of the tables they
show, a 304 without rendering when the browser (or a reverse proxy) already
has it, and ``Cache-Control: public`` for the data (JSON, CSV, PDF) so a
proxy can serve a crowd reloading the standings. Their requests run in a
pool of their own (:mod:`web_dashboard.serving`), apart from the referee's.

HTML pages carry a per-session form token, so they are only ever cached
privately (``private, no-cache``: the browser revalidates each time).
"""

from __future__ import annotations

import hashlib
import secrets

from flask import Flask, Response, request, session

from web_dashboard.views import live

# endpoint -> does it show one table (its ``table`` argument) or all of them
PUBLIC = {"views.overlay": "table", "overlay.state_json": "table", "sheets.sheet_page": "table", "sheets.sheet_json": "table",
          "sheets.sheet_csv": "table", "sheets.sheet_pdf": "table",
          "sheets.standings_page": "all", "sheets.standings_json": "all"}


def init_app(app: Flask) -> None:
    # a restarted process never answers 304 to a page made before it
    salt = secrets.token_hex(8)
    max_age = int(app.config.get("PUBLIC_MAX_AGE", 2))

    def etag() -> str | None:
        scope = PUBLIC.get(request.endpoint or "")
        if scope is None or request.method not in ("GET", "HEAD"):
            return None
        lv = live()
        if scope == "all":
            versions = [(t, lv.version(t)) for t in lv.tables]
        else:
            table = (request.view_args or {}).get("table")
            if table not in lv.tables:
                return None   # the view answers 404
            versions = [(table, lv.version(table))]
        key = repr((salt, request.full_path, request.cookies.get("lang"),
                    request.cookies.get(app.config["SESSION_COOKIE_NAME"]), versions))
        return hashlib.sha1(key.encode()).hexdigest()

    @app.before_request
    def not_modified() -> Response | None:
        tag = etag()
        if tag is not None and tag in request.if_none_match:
            resp = Response(status=304)
            resp.set_etag(tag)
            return resp
        return None

    @app.after_request
    def cacheable(resp: Response) -> Response:
        tag = etag()
        if tag is None or resp.status_code not in (200, 304):
            return resp
        resp.set_etag(tag)
        if session.modified or resp.headers.get("Set-Cookie") or resp.mimetype == "text/html":
            resp.headers["Cache-Control"] = "private, no-cache"
        else:
            resp.headers["Cache-Control"] = f"public, max-age={max_age}"
        return resp
