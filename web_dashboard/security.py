"""The dashboard's protections in one place: safe redirects, security headers,
request size, cookie settings, login throttling and the debugger lock.

Each is described with its setting in docs/dashboard-security.md.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections import OrderedDict, deque
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, jsonify, request
from flask.sessions import SecureCookieSessionInterface
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.middleware.proxy_fix import ProxyFix

# Characters browsers and Werkzeug drop from a URL before resolving it (WHATWG
# URL parsing strips ASCII tab and newline anywhere, and leading/trailing C0
# controls and spaces): `/\t/host` becomes `//host`, another origin.
_STRIPPED = str.maketrans("", "", "\t\n\r")


def safe_next(target: str | None, default: str = "/") -> str:
    r"""``target`` if it is a path on this site, else ``default``.

    Judged after the normalisation a browser applies: tabs and newlines
    removed, leading/trailing control characters and spaces trimmed; and any
    backslash refused (browsers read it as a slash: ``/\host`` is ``//host``).
    Only a path that starts with exactly one ``/`` and has no scheme or host
    passes; the normalised form is what is returned.

    >>> safe_next("/tables/T01"), safe_next("/\t/evil.example"), safe_next("/\\evil.example")
    ('/tables/T01', '/', '/')
    """
    if not target:
        return default
    cleaned = target.translate(_STRIPPED).strip("".join(map(chr, range(0x21))))
    if "\\" in cleaned or not cleaned.startswith("/") or cleaned.startswith("//"):
        return default
    parts = urlsplit(cleaned)
    if parts.scheme or parts.netloc or any(ord(c) < 0x20 or c == "\x7f" for c in cleaned):
        return default
    return cleaned


# ----------------------------------------------------------------- headers
def _csp(frame_ancestors: str) -> str:
    # no inline script anywhere: page data travels in <script type="application/json">
    # blocks (not executed) and the code in static files
    return ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
            f"frame-ancestors {frame_ancestors}")


def _frameable() -> bool:
    """The overlay is embedded by OBS browser sources and web players."""
    return request.endpoint == "views.overlay"


def add_headers(app: Flask, response: Response) -> Response:
    if _frameable():
        ancestors = app.config["OVERLAY_FRAME_ANCESTORS"]
    else:
        ancestors = "'none'"
        response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Content-Security-Policy", _csp(ancestors))
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


# ------------------------------------------------------------------ cookies
class SessionInterface(SecureCookieSessionInterface):
    """The session cookie is Secure when the app is served over TLS (``TLS``)
    or when this request came over https (directly, or per a trusted proxy's
    X-Forwarded-Proto with ``PROXY_FIX``)."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure


# ------------------------------------------------------------- throttling
class LoginThrottle:
    """Failed logins per key (an account, an address) in a sliding window.

    In memory, for one process: with several worker processes each keeps its
    own count (documented; the limit is then per worker). The table of keys is
    bounded so a flood of names cannot grow it without end."""

    def __init__(self, limit: int, window: float, max_keys: int = 10000) -> None:
        self.limit, self.window, self.max_keys = limit, window, max_keys
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, key: str, now: float) -> deque[float] | None:
        q = self._failures.get(key)
        if q is None:
            return None
        while q and q[0] <= now - self.window:
            q.popleft()
        if not q:
            del self._failures[key]
            return None
        return q

    def retry_after(self, keys: list[str], now: float | None = None) -> int:
        """Seconds until every key may try again (0: now)."""
        now = time.monotonic() if now is None else now
        wait = 0.0
        with self._lock:
            for key in keys:
                q = self._recent(key, now)
                if q is not None and len(q) >= self.limit:
                    wait = max(wait, q[0] + self.window - now)
        return int(wait) + 1 if wait > 0 else 0

    def fail(self, keys: list[str], now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            for key in keys:
                q = self._recent(key, now) or deque(maxlen=self.limit)
                q.append(now)
                self._failures[key] = q
                self._failures.move_to_end(key)
            while len(self._failures) > self.max_keys:
                self._failures.popitem(last=False)

    def clear(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key, None)


# ----------------------------------------------------------------- debugger
def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class DashboardFlask(Flask):
    """Flask whose ``run`` never serves the Werkzeug debugger (which runs code
    for whoever reaches it) to the network: only with ``DEV_MODE`` and only
    on a loopback address. ``FLASK_DEBUG`` and ``.env`` files are not read."""

    def run(self, host: str | None = None, port: int | None = None, debug: bool | None = None,
            load_dotenv: bool = False, **options: Any) -> None:
        wanted = bool(debug) or self.debug
        dev = bool(self.config.get("DEV_MODE"))
        if wanted and not dev:
            raise RuntimeError("the debugger needs DEV_MODE = true (and host 127.0.0.1)")
        if wanted and not _loopback(host or "127.0.0.1"):
            raise RuntimeError(f"the debugger is only served on 127.0.0.1, not on {host!r}")
        options["use_debugger"] = options["use_evalex"] = wanted
        options.setdefault("use_reloader", False)
        super().run(host, port, debug=wanted, load_dotenv=False, **options)


# ------------------------------------------------------------------- set up
def _too_large(exc: RequestEntityTooLarge) -> Any:
    limit = request.max_content_length
    message = f"request too large (limit {limit} bytes)" if limit else "request too large"
    if request.accept_mimetypes.best == "application/json":
        return jsonify(error=message), 413
    return Response(message, 413, mimetype="text/plain")


def init_app(app: Flask) -> None:
    """Headers on every response, the clean 413, the cookie policy."""
    if app.config["PROXY_FIX"]:
        # trust this many proxies' X-Forwarded-For/-Proto/-Host/-Prefix (only behind
        # a proxy: a client reaching the app directly could forge them)
        n = int(app.config["PROXY_FIX"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n, x_prefix=n)  # type: ignore[method-assign]
    app.session_interface = SessionInterface()
    app.after_request(lambda response: add_headers(app, response))
    app.register_error_handler(RequestEntityTooLarge, _too_large)
    app.extensions["guandan_login_throttle"] = LoginThrottle(
        int(app.config["LOGIN_MAX_FAILURES"]), float(app.config["LOGIN_WINDOW"]))
