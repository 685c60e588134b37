"""``guandan-ref central``: the venue's central service (Redis Streams -> PostgreSQL + dashboard)."""

from __future__ import annotations

import logging
import signal
import threading
import tomllib

from commands import UsageError


def register(sub) -> None:
    p = sub.add_parser("central", help="record every table's events in PostgreSQL and serve the venue dashboard",
                       description="Read every table node's stream from Redis (consumer group 'central'), "
                                   "record each event and its decisions once in PostgreSQL, and serve the "
                                   "dashboard for all tables.")
    p.add_argument("--redis", required=True, help="Redis URL, e.g. redis://127.0.0.1:6379/0")
    p.add_argument("--pg", required=True, help="PostgreSQL connection string (libpq DSN or URL)")
    p.add_argument("--consumer", default="central-1",
                   help="consumer name in the group (keep it across restarts)")
    p.add_argument("--users", help="referees (TOML, see `guandan-ref users add`)")
    p.add_argument("--config", help="dashboard settings (TOML)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000, help="dashboard port (0: no dashboard)")
    p.set_defaults(func=run)


def run(args) -> int:
    import psycopg
    import redis

    from referee.settings import Settings
    from venue.central import CentralService

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    config = {}
    if args.config:
        try:
            with open(args.config, "rb") as f:
                config = {k.upper(): v for k, v in tomllib.load(f).items()}
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise UsageError(f"cannot read config {args.config!r}: {exc}") from None
    try:
        service = CentralService(args.redis, args.pg, Settings.from_dict(config.get("SETTINGS", {})),
                                 consumer=args.consumer, tables=config.get("TABLES", []),
                                 matches=config.get("MATCHES", {}))
    except psycopg.Error as exc:
        raise UsageError(f"cannot use PostgreSQL at {args.pg!r}: {exc}") from None
    except (redis.RedisError, ValueError) as exc:
        raise UsageError(f"cannot use Redis at {args.redis!r}: {exc}") from None
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    worker = threading.Thread(target=service.run, args=(stop,), name="central", daemon=True)
    worker.start()
    print(f"central service: {args.redis} -> PostgreSQL", flush=True)
    try:
        if args.port:
            from web_dashboard import create_app
            if args.users:
                config["USERS_FILE"] = args.users
            app = create_app(config, live=service.live)
            from web_dashboard.serving import make_server
            server = make_server(app, args.host, args.port)
            print(f"dashboard on http://{args.host}:{server.server_port}/", flush=True)
            server.serve_forever()
        else:
            while not stop.wait(1.0):
                pass
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        worker.join(timeout=10)
        print(f"central service stopped: {service.recorded} recorded, {service.duplicates} duplicates skipped",
              flush=True)
    return 0
