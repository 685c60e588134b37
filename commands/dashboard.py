"""``guandan-ref dashboard`` and ``guandan-ref users``: serve the dashboard, manage referees."""

from __future__ import annotations

import faulthandler
import getpass
import signal
import sys
import tomllib
from pathlib import Path

from commands import UsageError
from commands.args import existing_file, port, port_taken
from storage.files import write_whole


def register(sub) -> None:
    p = sub.add_parser("dashboard", help="serve the referee dashboard for a venue's event log",
                       description="Serve the referee dashboard, overlay, score sheets and standings "
                                   "for the tables of one event log (SQLite).")
    # an existing log only: a typo would otherwise serve a new, empty one
    p.add_argument("--db", required=True, type=existing_file, metavar="LOG.sqlite",
                   help="the venue's event log (SQLite file written by record, table or import)")
    p.add_argument("--users", type=existing_file, metavar="USERS.toml",
                   help="referees (TOML, see `guandan-ref users add`)")
    p.add_argument("--config", type=existing_file, metavar="DASHBOARD.toml",
                   help="dashboard settings (TOML: tables, matches, settings, ...)")
    add_host_port(p)
    p.add_argument("--dev", action="store_true",
                   help="Werkzeug's development server (a thread per connection) instead of uvicorn")
    p.set_defaults(func=run_dashboard)

    u = sub.add_parser("users", help="manage the referees who may log in (add, list, remove, passwd)",
                       description="The users file (TOML) the dashboard reads with --users.")
    usub = u.add_subparsers(dest="users_command", metavar="ACTION", required=True)
    add = usub.add_parser("add", help="add or replace a referee in a users file")
    add.add_argument("name")
    _users_file_arg(add)
    add.add_argument("--role", choices=("referee", "head"), default="referee",
                     help="referee (acts on --tables) or head (all tables; default referee)")
    add.add_argument("--tables", default="", help="comma-separated table ids (referees)")
    add.add_argument("--password", help="default: asked on the terminal")
    add.set_defaults(func=run_users_add)

    ls = usub.add_parser("list", help="print the users: name, role, tables (no passwords)")
    _users_file_arg(ls)
    ls.set_defaults(func=run_users_list)

    rm = usub.add_parser("remove", help="remove a user")
    rm.add_argument("name")
    _users_file_arg(rm)
    rm.set_defaults(func=run_users_remove)

    pw = usub.add_parser("passwd", help="set a user's password (role and tables kept)")
    pw.add_argument("name")
    _users_file_arg(pw)
    pw.add_argument("--password", help="default: asked on the terminal")
    pw.set_defaults(func=run_users_passwd)


def add_host_port(p, default_port: int = 8000, port_help: str = "dashboard port (0: any free port)") -> None:
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1, this machine only; 0.0.0.0: "
                        "every interface, better behind a proxy, see docs/technician.md)")
    p.add_argument("--port", type=port, default=default_port,
                   help=f"{port_help} (default {default_port})")


def check_port(host: str, number: int) -> None:
    """Say at once that the dashboard cannot listen there (Werkzeug would exit
    the process with its own message)."""
    why = port_taken(host, number)
    if why:
        raise UsageError(f"cannot serve on {host}:{number}: {why}; give another --port "
                         f"(0: any free port) or stop what uses it")


def _users_file_arg(p) -> None:
    p.add_argument("--file", default="users.toml", metavar="USERS.toml",
                   help="the users file (default users.toml)")


def run_dashboard(args) -> int:
    from web_dashboard import create_app
    from web_dashboard.auth import UsersError
    from web_dashboard.overlay import OverlayConfigError

    check_port(args.host, args.port)
    config = {"DATABASE": args.db}
    if args.config:
        try:
            with open(args.config, "rb") as f:
                config.update({k.upper(): v for k, v in tomllib.load(f).items()})
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise UsageError(f"cannot read config {args.config!r}: {exc}") from None
    if args.users:
        config["USERS_FILE"] = args.users
    from storage.sqlite_log import StoreError
    try:
        app = create_app(config)
    except (UsersError, StoreError, OverlayConfigError) as exc:
        raise UsageError(str(exc)) from None
    from web_dashboard.serving import make_server
    try:
        server = make_server(app, args.host, args.port, dev=args.dev)
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from None
    kind = "Werkzeug development server" if args.dev else "uvicorn"
    if hasattr(signal, "SIGUSR1"):
        # `kill -USR1 PID` writes every thread's stack to stderr: what a
        # dashboard that will not stop (or answer) is waiting on
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    print(f"dashboard on http://{args.host}:{server.server_port}/ ({kind}; Ctrl-C stops)", flush=True)
    if args.dev:
        # Ctrl-C and SIGTERM stop it even when started as a background job of a
        # script: such a job inherits SIGINT ignored, and Python then never
        # raises KeyboardInterrupt (uvicorn sets its own handlers): both raise it here
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        server.serve_forever()
    except KeyboardInterrupt:   # the development server's way of stopping
        pass
    return 0


def _toml_entry(e: dict) -> str:
    tables = ", ".join(f'"{t}"' for t in e["tables"])
    return (f'[[user]]\nname = "{e["name"]}"\npassword_hash = "{e["password_hash"]}"\n'
            f'role = "{e["role"]}"\ntables = [{tables}]\n')


def _read_password(args) -> str:
    if args.password:
        password = args.password
    elif sys.stdin.isatty():
        try:
            password = getpass.getpass(f"password for {args.name}: ")
        except EOFError:
            raise UsageError("no password given: type it, or give --password") from None
    else:   # piped in (`echo ... | guandan-ref users add NAME`): the first line
        password = sys.stdin.readline().rstrip("\r\n")
        if not password:
            raise UsageError("no password given: pipe it in on one line, run on a terminal, "
                             "or give --password")
    if len(password) < 4:
        raise UsageError("the password must have at least 4 characters")
    return password


def _read_entries(path: Path, must_exist: bool = False) -> list[dict]:
    if not path.exists():
        if must_exist:
            raise UsageError(f"users file {path} does not exist "
                             f"(make it with: guandan-ref users add NAME --file {path})")
        return []
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")).get("user", [])
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: {exc}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None


def _write_entries(path: Path, entries: list[dict]) -> None:
    from web_dashboard.auth import UsersError, parse_users
    try:
        parse_users(entries)
    except UsersError as exc:
        raise UsageError(str(exc)) from None
    try:
        # whole or not at all: a users file cut short locks every referee out
        write_whole(path, "".join(_toml_entry(e) + "\n" for e in entries))
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None


def _find(entries: list[dict], name: str, path: Path) -> dict:
    for e in entries:
        if e.get("name") == name:
            return e
    known = ", ".join(str(e.get("name")) for e in entries) or "none"
    raise UsageError(f"no user {name!r} in {path} (users: {known})")


def run_users_list(args) -> int:
    path = Path(args.file)
    for e in _read_entries(path, must_exist=True):
        tables = ",".join(e.get("tables", [])) or ("all" if e.get("role") == "head" else "-")
        print(f"{e.get('name')}\t{e.get('role', 'referee')}\t{tables}")
    return 0


def run_users_remove(args) -> int:
    path = Path(args.file)
    entries = _read_entries(path, must_exist=True)
    _find(entries, args.name, path)
    _write_entries(path, [e for e in entries if e.get("name") != args.name])
    print(f"{args.name} removed from {path}", file=sys.stderr)
    return 0


def run_users_passwd(args) -> int:
    from web_dashboard.auth import user_entry
    path = Path(args.file)
    entries = _read_entries(path, must_exist=True)
    old = _find(entries, args.name, path)
    new = user_entry(args.name, _read_password(args), old.get("role", "referee"), old.get("tables", []))
    _write_entries(path, [new if e is old else e for e in entries])
    print(f"password of {args.name} changed in {path}", file=sys.stderr)
    return 0


def run_users_add(args) -> int:
    from web_dashboard.auth import user_entry

    if not args.name.replace("_", "").replace("-", "").isalnum():
        raise UsageError("a user name may hold letters, digits, '-' and '_' only")
    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    path = Path(args.file)
    entries = _read_entries(path)
    password = _read_password(args)
    entries = [e for e in entries if e.get("name") != args.name]
    entries.append(user_entry(args.name, password, args.role, tables))
    _write_entries(path, entries)
    print(f"{args.name} ({args.role}) saved in {path}", file=sys.stderr)
    return 0
