"""``guandan-ref demo`` and ``guandan-ref table``: run a table node."""

from __future__ import annotations

import signal
import threading

from commands import UsageError
from commands.args import existing_file, integer, number, port, port_taken, writable_dir


def register(sub) -> None:
    d = sub.add_parser("demo", help="a whole scripted match at a demo table, no camera or device needed",
                       description="Render a table video from a scripted match (with an overtime, an "
                                   "illegal play, a missing count report and a wrong tribute), simulate "
                                   "the serial devices, and referee it all live on the dashboard.")
    d.add_argument("--speed", type=number(0, 1000, "a speed"), default=8.0,
                   help="play the match this many times faster than real time (0: flat out; "
                        "default 8)")
    d.add_argument("--seed", type=integer(-10**9, 10**9, "a seed"), default=3,
                   help="which scripted match (default 3; a negative seed plays its absolute value's "
                        "match, as Python's random takes it)")
    d.add_argument("--dir", type=writable_dir,
                   help="where to keep the video, script and log (default: a temp dir)")
    d.add_argument("--no-cache", action="store_true",
                   help="render the video again instead of taking it from the cache "
                        "($XDG_CACHE_HOME/guandan-referee)")
    from commands.dashboard import add_host_port
    add_host_port(d, port_help="dashboard port (0: any free port; a busy one: a free one)")
    d.add_argument("--headless", action="store_true",
                   help="no dashboard; exit when the match is over (for tests and CI)")
    d.add_argument("--exit", action="store_true", help="exit when the match is over")
    d.set_defaults(func=run_demo)

    t = sub.add_parser("table", help="run a real table from a config file",
                       description="Cameras, serial devices, the referee, the event log and the "
                                   "dashboard of one table (see examples/table.toml).")
    t.add_argument("--config", required=True, type=existing_file, metavar="TABLE.toml",
                   help="the table's configuration (see examples/table.toml)")
    t.set_defaults(func=run_table)


def run_demo(args) -> int:
    import sys

    from table_node.demo import DemoError, run_demo as demo

    port = args.port
    if not args.headless:
        why = port_taken(args.host, port)
        if why and why.startswith("unknown host"):
            raise UsageError(f"--host {args.host}: {why}")
        if why:   # said now, not after the video is rendered
            print(f"guandan-ref demo: port {port} cannot be used ({why}); the dashboard takes "
                  f"a free port", file=sys.stderr, flush=True)
            port = 0
    try:
        result = demo(args.dir, seed=args.seed, speed=args.speed, host=args.host, port=port,
                      dashboard=not args.headless, keep_serving=not (args.headless or args.exit),
                      cache=not args.no_cache)
    except DemoError as exc:
        raise UsageError(str(exc)) from None
    print(f"demo: event log {result.log_path} ({result.events} events)")
    return 0


def run_table(args) -> int:
    from storage.sqlite_log import StoreError
    from table_node.config import ConfigError, load_config
    from table_node.node import TableNode

    try:
        cfg = load_config(args.config)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    _check_before_start(cfg, args.config)
    try:
        node = TableNode(cfg.table, str(cfg.database), cfg.settings, names=cfg.names,
                         evidence_dir=str(cfg.evidence_dir) if cfg.evidence_dir else None,
                         clips=cfg.clips)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    # Ctrl-C too, also when started as a script's background job (which
    # inherits SIGINT ignored, so no KeyboardInterrupt would ever come)
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        node.start()
        _start_sources(node, cfg)
        if cfg.audio:
            node.add_audio(cfg.voice)
        if cfg.redis:
            from table_node.config import read_secret
            key = read_secret(cfg.key_file)
            node.add_publisher(cfg.redis, cfg.node, key=key.encode() if key else None,
                               password=read_secret(cfg.redis_password_file),
                               ca_file=str(cfg.redis_ca_file) if cfg.redis_ca_file else None)
            from venue.secrets import redact
            print(f"{cfg.table}: publishing to the venue at {redact(cfg.redis)}", flush=True)
        config = {**({"USERS_FILE": str(cfg.users)} if cfg.users else {}), **cfg.overlay}
        try:
            url = node.serve_dashboard(cfg.host, cfg.port, config)
        except OSError as exc:
            raise UsageError(f"cannot serve the dashboard on {cfg.host}:{cfg.port}: {exc}") from None
        print(f"{cfg.table}: refereeing; log {cfg.database}; dashboard {url}tables/{cfg.table}", flush=True)
        # the node logs each problem once (a warning on stderr); nothing to print here
        while not stop.wait(0.5):   # a bounded wait: Ctrl-C gets through
            pass
    except KeyboardInterrupt:
        pass
    finally:
        node.stop()
        print(f"{cfg.table}: stopped", flush=True)
    return 0


def _check_before_start(cfg, config_path: str) -> None:
    """What would stop the table later, said before anything starts."""
    if cfg.users is not None:
        from web_dashboard.auth import UsersError, load_users_file
        if not cfg.users.exists():
            raise UsageError(f"users file {cfg.users} (from [dashboard] users in {config_path}) does "
                             f"not exist; make it with: guandan-ref users add NAME --role referee "
                             f"--tables {cfg.table} --file {cfg.users}")
        try:
            load_users_file(cfg.users)
        except UsersError as exc:
            raise UsageError(str(exc)) from None
    why = port_taken(cfg.host, cfg.port)
    if why:
        raise UsageError(f"the dashboard cannot listen on {cfg.host}:{cfg.port} ({why}); set "
                         f"[dashboard] port in {config_path} to a free one, or 0 for any")


def _start_sources(node, cfg) -> None:
    """Cameras and devices; each one missing is reported and the table goes on."""
    for cam in cfg.cameras:
        try:
            from vision.reading.table import TableGeometry
            geometry = TableGeometry.load(cam.geometry)
        except Exception as exc:   # a geometry file that cannot be used: say so, go on
            node.problem(f"camera {cam.source}: table geometry {cam.geometry}: {exc}; "
                         f"run guandan-ref calibrate")
            continue
        try:
            node.add_camera(cam.source, geometry, margin_mm=cam.margin_mm, zones=cam.zones, deck=cam.deck,
                            hands=cam.hands, unread=cam.unread, white_balance=cam.white_balance,
                            frozen_s=cam.frozen_s, confidence_curve=cam.confidence_curve, threads=cam.threads)
        except Exception as exc:
            node.problem(f"camera {cam.source}: {exc}")
    if cfg.binding is not None:
        from hardware.binding import BindingError, load_binding
        try:
            binding = load_binding(cfg.binding)
        except (BindingError, OSError) as exc:
            node.problem(f"devices: {exc}")
            return
        node.add_devices(binding, cfg.ports)
        for port in (cfg.ports if cfg.ports is not None else binding.ports):
            from pathlib import Path
            if not port.startswith(("rfc2217:", "socket:")) and not Path(port).exists():
                node.problem(f"serial port {port} is not there; waiting for it (passes and reports "
                             f"can be entered by hand)")
