"""``guandan-ref central``: the venue's central service (Redis Streams -> PostgreSQL + dashboard)."""

from __future__ import annotations

import json
import logging
import os
import signal
import threading
import tomllib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from commands import UsageError
from commands.args import existing_file, integer, port


def register(sub) -> None:
    p = sub.add_parser("central", help="record every table's events in PostgreSQL and serve the venue dashboard",
                       description="Read the configured tables' streams from Redis (consumer group 'central'), "
                                   "record each event and its decisions once in PostgreSQL, and serve the "
                                   "dashboard for all tables. Exits non-zero when its worker fails (let "
                                   "systemd or the container restart it: examples/venue/).")
    p.add_argument("--redis", default=os.environ.get("GUANDAN_REDIS_URL"),
                   help="Redis URL without password, e.g. redis://central@HOST:6379/0 "
                        "(default $GUANDAN_REDIS_URL); password from $GUANDAN_REDIS_PASSWORD "
                        "or --redis-password-file; rediss:// for TLS")
    p.add_argument("--redis-password-file", type=existing_file, help="file holding the Redis password")
    p.add_argument("--redis-ca-file", type=existing_file, default=os.environ.get("GUANDAN_REDIS_CA_FILE"),
                   help="TLS to Redis (with a rediss:// URL): the CA certificate (PEM) that signed the "
                        "server's certificate (default $GUANDAN_REDIS_CA_FILE; without: the system's CAs)")
    p.add_argument("--pg", default=os.environ.get("GUANDAN_PG_DSN"),
                   help="PostgreSQL connection string without password (default $GUANDAN_PG_DSN); "
                        "password from $PGPASSWORD or a passfile ($PGPASSFILE); TLS: "
                        "sslmode=verify-full sslrootcert=CA.pem")
    p.add_argument("--tables", help="the tables to record, comma-separated (or TABLES in --config); "
                                    "other streams are never read")
    p.add_argument("--consumer", default="central-1",
                   help="consumer name in the group (keep it across restarts; unique per central)")
    p.add_argument("--lease-ms", type=integer(100, 600_000, "a lease in milliseconds"), default=3000,
                   help="each table is held by one central at a time (several centrals share the tables); "
                        "a dead central's tables move to the others after this many ms")
    p.add_argument("--node-keys", type=existing_file,
                   help="TOML file: table = \"key\" (the HMAC key its node signs with)")
    p.add_argument("--users", type=existing_file, help="referees (TOML, see `guandan-ref users add`)")
    p.add_argument("--config", type=existing_file, help="dashboard settings (TOML)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address the dashboard and health port listen on (default 127.0.0.1)")
    p.add_argument("--port", type=port, default=8000, help="dashboard port (0: no dashboard)")
    p.add_argument("--health-port", type=port, default=0,
                   help="serve GET /health (JSON: lag per table, dead letters, last error) on this port")
    p.set_defaults(func=run)


def _health_server(service, host: str, port: int) -> ThreadingHTTPServer:
    class Health(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.split("?")[0] == "/health":
                body = service.health()
                code = 200 if body["healthy"] else 503
            elif self.path.split("?")[0] == "/dead-letters":
                body, code = {"dead_letters": service.recent_dead_letters()}, 200
            else:
                body, code = {"error": "not found"}, 404
            data = json.dumps(body, default=str).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:     # probes every few seconds: not worth a line each
            pass

    server = ThreadingHTTPServer((host, port), Health)
    threading.Thread(target=server.serve_forever, name="health", daemon=True).start()
    return server


def check_pg_dsn(dsn: str) -> str:
    """``dsn`` if libpq can read it and the CA file it names exists; else
    UsageError (with no password in it)."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    from venue.secrets import redact
    try:
        params = conninfo_to_dict(dsn)
    except psycopg.Error as exc:
        raise UsageError(redact(f"--pg: not a PostgreSQL connection string: {' '.join(str(exc).split())}")) \
            from None
    mode = params.get("sslmode")
    if mode is not None and mode not in ("disable", "allow", "prefer", "require", "verify-ca", "verify-full"):
        raise UsageError(f"--pg: sslmode={mode} is not one of disable, allow, prefer, require, verify-ca, "
                         f"verify-full (verify-full for TLS)")
    root = params.get("sslrootcert")
    if root is not None and root != "system" and not os.path.isfile(str(root)):
        raise UsageError(f"--pg: sslrootcert {root} is not a file (give the CA certificate, PEM)")
    return dsn


def run(args) -> int:
    import psycopg
    import redis

    from referee.settings import Settings
    from venue.central import CentralService
    from venue.publisher import check_redis_url, tls_trust_error
    from venue.secrets import redact

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    if not args.redis or not args.pg:
        raise UsageError("give --redis and --pg (or $GUANDAN_REDIS_URL and $GUANDAN_PG_DSN)")
    try:
        check_redis_url(args.redis, args.redis_ca_file)
    except ValueError as exc:
        raise UsageError(f"--redis: {exc}") from None
    check_pg_dsn(args.pg)
    config = {}
    if args.config:
        try:
            with open(args.config, "rb") as f:
                config = {k.upper(): v for k, v in tomllib.load(f).items()}
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise UsageError(f"cannot read config {args.config!r}: {exc}") from None
    tables = [t.strip() for t in args.tables.split(",") if t.strip()] if args.tables else config.get("TABLES", [])
    if not tables:
        raise UsageError("no tables: give --tables T01,T02,... (or TABLES in --config)")
    password = os.environ.get("GUANDAN_REDIS_PASSWORD")
    node_keys = {}
    try:
        if args.redis_password_file:
            with open(args.redis_password_file, encoding="utf-8") as f:
                password = f.readline().rstrip("\r\n")
        if args.node_keys:
            with open(args.node_keys, "rb") as f:
                node_keys = {t: str(k).encode() for t, k in tomllib.load(f).items()}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read a secrets file: {exc}") from None
    try:
        service = CentralService(args.redis, args.pg, Settings.from_dict(config.get("SETTINGS", {})),
                                 consumer=args.consumer, tables=tables, matches=config.get("MATCHES", {}),
                                 lease_ms=args.lease_ms, node_keys=node_keys, redis_password=password,
                                 redis_ca_file=args.redis_ca_file)
    except psycopg.Error as exc:
        # one line: the driver's messages run over several
        raise UsageError(redact(f"cannot use PostgreSQL: {' '.join(str(exc).split())}")) from None
    except (redis.RedisError, ValueError) as exc:
        raise UsageError(redact(f"cannot use Redis: {' '.join(str(exc).split())}")) from None
    try:
        service.redis.ping()
    except redis.ConnectionError as exc:
        trust = tls_trust_error(exc)
        if trust:      # a wrong CA file is a setting to fix; Redis merely down is waited for
            service.close()
            raise UsageError(f"cannot use Redis: {trust}") from None
    except redis.RedisError:
        pass           # the worker says what it is (and exits non-zero on a fault)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())

    def work() -> None:
        try:
            service.run(stop)
        except BaseException:   # noqa: BLE001 - kept in service.error; the main thread exits non-zero
            pass
        finally:
            stop.set()

    worker = threading.Thread(target=work, name="central", daemon=True)
    worker.start()
    print(f"central service {args.consumer}: {len(tables)} tables -> PostgreSQL", flush=True)
    servers = []
    if args.health_port:
        servers.append(_health_server(service, args.host, args.health_port))
    if args.port:
        from web_dashboard import create_app
        from web_dashboard.serving import make_server
        if args.users:
            config["USERS_FILE"] = args.users
        from web_dashboard import venue_status
        app = create_app(config, live=service.live)
        venue_status.init_app(app, service)    # dead letters and lag on the overview
        web = make_server(app, args.host, args.port)
        threading.Thread(target=web.serve_forever, name="dashboard", daemon=True).start()
        servers.append(web)
        print(f"dashboard on http://{args.host}:{web.server_port}/ (uvicorn)", flush=True)
    while not stop.wait(0.5):
        pass
    worker.join(timeout=10)
    for s in servers:
        s.shutdown()
    service.close()
    print(f"central service stopped: {service.recorded} recorded, {service.duplicates} duplicates skipped, "
          f"{service.dead} dead letters", flush=True)
    if service.error is not None:
        print(f"central service failed: {service.last_error}", flush=True)
        return 1
    return 0
