"""Referees log in; a referee acts only on the tables assigned, the head
referee on all. Overlay, score sheets and standings are public.

Users live in a TOML file (``USERS_FILE``) or the ``USERS`` setting::

    [[user]]
    name = "li"
    password_hash = "scrypt:..."     # guandan-ref users add li --role referee --tables T01,T02
    role = "referee"                 # or "head"
    tables = ["T01", "T02"]

Logins are throttled per account and per address (``LOGIN_MAX_FAILURES`` in
``LOGIN_WINDOW`` seconds, then 429 with Retry-After), and an unknown name
costs the same hash check as a known one. A session holds a token derived
from the user's password hash, a per-process key and the user's logout
count: logging out (or a changed password) ends every saved session of the user.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import tomllib
from dataclasses import dataclass, field
from functools import wraps
from pathlib import Path
from typing import Any, Iterable

from flask import (Blueprint, Flask, current_app, make_response, redirect, render_template,
                   request, url_for)
from flask_login import LoginManager, current_user, login_user, logout_user
from werkzeug.security import check_password_hash, generate_password_hash

from web_dashboard.i18n import fail
from web_dashboard.security import LoginThrottle, safe_next

ROLES = ("referee", "head")

bp = Blueprint("auth", __name__)
login_manager = LoginManager()
login_manager.login_view = "auth.login"


class UsersError(ValueError):
    """A users file that cannot be used: the message names the entry."""


@dataclass(frozen=True)
class User:
    name: str
    password_hash: str = field(repr=False)
    role: str = "referee"
    tables: tuple[str, ...] = field(default=())

    # Flask-Login protocol
    is_authenticated = True
    is_active = True
    is_anonymous = False

    def get_id(self) -> str:
        # what Flask-Login keeps in the session: the name and the current token
        return f"{session_token(self)}:{self.name}"

    def may_act_on(self, table: str) -> bool:
        return self.role == "head" or table in self.tables


def parse_users(entries: Iterable[dict[str, Any]]) -> dict[str, User]:
    users: dict[str, User] = {}
    for i, e in enumerate(entries, 1):
        name = e.get("name")
        if not isinstance(name, str) or not name:
            raise UsersError(f"user entry {i}: missing 'name'")
        if name in users:
            raise UsersError(f"user {name!r} is listed twice")
        role = e.get("role", "referee")
        if role not in ROLES:
            raise UsersError(f"user {name!r}: role must be one of {', '.join(ROLES)}, not {role!r}")
        pw = e.get("password_hash")
        if not isinstance(pw, str) or ":" not in pw:
            raise UsersError(f"user {name!r}: missing 'password_hash' "
                             "(make one with: guandan-ref users add)")
        tables = e.get("tables", [])
        if not isinstance(tables, list) or not all(isinstance(t, str) for t in tables):
            raise UsersError(f"user {name!r}: 'tables' must be a list of table ids")
        users[name] = User(name, pw, role, tuple(tables))
    return users


def load_users_file(path: str | Path) -> dict[str, User]:
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise UsersError(f"users file {str(path)!r} does not exist") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsersError(f"users file {str(path)!r}: {exc}") from None
    return parse_users(data.get("user", []))


def user_entry(name: str, password: str, role: str, tables: Iterable[str]) -> dict[str, Any]:
    """A users-file entry with a hashed password."""
    if role not in ROLES:
        raise UsersError(f"role must be one of {', '.join(ROLES)}")
    return {"name": name, "password_hash": generate_password_hash(password),
            "role": role, "tables": list(tables)}


def init_app(app: Flask) -> None:
    """Load the referees (``USERS`` or ``USERS_FILE``); add login and logout."""
    users = app.config["USERS"]
    if users is None and app.config["USERS_FILE"]:
        users = load_users_file(app.config["USERS_FILE"])
    elif isinstance(users, list):
        users = parse_users(users)
    app.extensions["guandan_users"] = users or {}
    # Sessions: a per-process key (a restart ends them) and per-user logout counts
    app.extensions["guandan_sessions"] = _Sessions()
    # An unknown name is checked against this, so it costs what a known one does
    app.extensions["guandan_dummy_hash"] = generate_password_hash(secrets.token_hex(16))
    login_manager.init_app(app)
    app.register_blueprint(bp)


def users() -> dict[str, User]:
    return current_app.extensions["guandan_users"]


class _Sessions:
    """The session token of each user: HMAC of the name, the password hash and
    how many times the user logged out, under a key made at start."""

    def __init__(self) -> None:
        self.key = secrets.token_bytes(32)
        self.epochs: dict[str, int] = {}
        self.lock = threading.Lock()

    def token(self, user: User) -> str:
        with self.lock:
            epoch = self.epochs.get(user.name, 0)
        msg = f"{user.name}\0{user.password_hash}\0{epoch}".encode()
        return hmac.new(self.key, msg, hashlib.sha256).hexdigest()[:32]

    def end(self, user: User) -> None:
        with self.lock:
            self.epochs[user.name] = self.epochs.get(user.name, 0) + 1


def session_token(user: User) -> str:
    return current_app.extensions["guandan_sessions"].token(user)


@login_manager.user_loader
def _load(ident: str) -> User | None:
    token, _, name = ident.partition(":")
    user = users().get(name)
    if user is None or not secrets.compare_digest(token, session_token(user)):
        return None      # logged out since, password changed, or another process's session
    return user


def _throttle() -> LoginThrottle:
    return current_app.extensions["guandan_login_throttle"]


def table_access(view):
    """Require a logged-in referee assigned to the ``table`` in the URL (head: any)."""
    @wraps(view)
    def wrapped(*args, **kwargs):
        if not current_user.is_authenticated:
            return current_app.login_manager.unauthorized()
        venue = current_app.extensions["guandan_venue"]
        table = kwargs.get("table")
        if table not in venue.tables:
            fail(404, "err_no_table", table=str(table)[:60])
        if not current_user.may_act_on(table):
            fail(403, "err_not_assigned", user=current_user.name, table=table)
        return view(*args, **kwargs)
    return wrapped


def login_required(view):
    @wraps(view)
    def wrapped(*args, **kwargs):
        if not current_user.is_authenticated:
            return current_app.login_manager.unauthorized()
        return view(*args, **kwargs)
    return wrapped


@bp.route("/login", methods=["GET", "POST"])
def login():
    error = None
    if request.method == "POST":
        name = request.form.get("username", "")
        keys = [f"user:{name[:100]}", f"addr:{request.remote_addr}"]
        wait = _throttle().retry_after(keys)
        if wait:
            resp = make_response(render_template("login.html", error="too_many_logins"), 429)
            resp.headers["Retry-After"] = str(wait)
            return resp
        user = users().get(name)
        password = request.form.get("password", "")
        # the same work for an unknown name as for a known one: no timing tells them apart
        ok = check_password_hash(user.password_hash if user else
                                 current_app.extensions["guandan_dummy_hash"], password)
        if user and ok:
            _throttle().clear(keys[0])
            login_user(user)
            return redirect(safe_next(request.args.get("next"), url_for("views.overview")))
        _throttle().fail(keys)
        error = "bad_login"
    return render_template("login.html", error=error), (401 if error else 200)


@bp.route("/logout", methods=["POST"])
def logout():
    if current_user.is_authenticated:
        # every saved cookie of this user stops working, not just this one
        current_app.extensions["guandan_sessions"].end(current_user._get_current_object())
    logout_user()
    return redirect(url_for("auth.login"))
