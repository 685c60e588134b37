"""``guandan-ref dashboard`` and ``guandan-ref users``: serve the dashboard, manage referees."""

from __future__ import annotations

import getpass
import tomllib
from pathlib import Path

from commands import UsageError


def register(sub) -> None:
    p = sub.add_parser("dashboard", help="serve the referee dashboard for a venue's event log",
                       description="Serve the referee dashboard, overlay, score sheets and standings "
                                   "for the tables of one event log (SQLite).")
    p.add_argument("--db", required=True, help="the venue's event log (SQLite file)")
    p.add_argument("--users", help="referees (TOML, see `guandan-ref users add`)")
    p.add_argument("--config", help="dashboard settings (TOML: tables, matches, settings, ...)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--dev", action="store_true",
                   help="Werkzeug's development server (a thread per connection) instead of uvicorn")
    p.set_defaults(func=run_dashboard)

    u = sub.add_parser("users", help="manage the referees who may log in")
    usub = u.add_subparsers(dest="users_command", required=True)
    add = usub.add_parser("add", help="add or replace a referee in a users file")
    add.add_argument("name")
    add.add_argument("--file", default="users.toml")
    add.add_argument("--role", choices=("referee", "head"), default="referee")
    add.add_argument("--tables", default="", help="comma-separated table ids (referees)")
    add.add_argument("--password", help="default: asked on the terminal")
    add.set_defaults(func=run_users_add)


def run_dashboard(args) -> int:
    from web_dashboard import create_app
    from web_dashboard.auth import UsersError

    config = {"DATABASE": args.db}
    if args.config:
        try:
            with open(args.config, "rb") as f:
                config.update({k.upper(): v for k, v in tomllib.load(f).items()})
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise UsageError(f"cannot read config {args.config!r}: {exc}") from None
    if args.users:
        config["USERS_FILE"] = args.users
    try:
        app = create_app(config)
    except UsersError as exc:
        raise UsageError(str(exc)) from None
    from web_dashboard.serving import make_server
    try:
        server = make_server(app, args.host, args.port, dev=args.dev)
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from None
    kind = "Werkzeug development server" if args.dev else "uvicorn"
    print(f"dashboard on http://{args.host}:{server.server_port}/ ({kind}; Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:   # the development server's way of stopping
        pass
    return 0


def _toml_entry(e: dict) -> str:
    tables = ", ".join(f'"{t}"' for t in e["tables"])
    return (f'[[user]]\nname = "{e["name"]}"\npassword_hash = "{e["password_hash"]}"\n'
            f'role = "{e["role"]}"\ntables = [{tables}]\n')


def run_users_add(args) -> int:
    from web_dashboard.auth import UsersError, parse_users, user_entry

    if not args.name.replace("_", "").replace("-", "").isalnum():
        raise UsageError("a user name may hold letters, digits, '-' and '_' only")
    password = args.password or getpass.getpass(f"password for {args.name}: ")
    if len(password) < 4:
        raise UsageError("the password must have at least 4 characters")
    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    path = Path(args.file)
    entries = []
    if path.exists():
        try:
            entries = tomllib.loads(path.read_text(encoding="utf-8")).get("user", [])
        except tomllib.TOMLDecodeError as exc:
            raise UsageError(f"{path}: {exc}") from None
    entries = [e for e in entries if e.get("name") != args.name]
    entries.append(user_entry(args.name, password, args.role, tables))
    try:
        parse_users(entries)
    except UsersError as exc:
        raise UsageError(str(exc)) from None
    path.write_text("".join(_toml_entry(e) + "\n" for e in entries), encoding="utf-8")
    print(f"{args.name} ({args.role}) saved in {path}")
    return 0
