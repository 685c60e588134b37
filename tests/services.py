"""Private Redis and PostgreSQL servers for the tests that need them.

Each test run starts its own servers from Debian's packages (redis-server,
postgresql) in a temporary directory on a free port, so tests can stop and
restart them (fault tests) without touching anything else. ``.ci/run``
installs the packages.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

PG_BIN = next((p for p in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)), None) \
    if Path("/usr/lib/postgresql").exists() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(cond, timeout: float = 30.0, what: str = "condition") -> None:
    """Poll ``cond`` until it holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def _wait_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


class RedisServer:
    """``tls``: (certificate, key, CA) files: the server then listens for TLS
    only (``--port 0 --tls-port``) and ``url`` is ``rediss://``."""

    def __init__(self, workdir: Path, tls: tuple[Path, Path, Path] | None = None):
        if not shutil.which("redis-server"):
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.tls = tls
        self.proc = None

    @property
    def url(self) -> str:
        return f"{'rediss' if self.tls else 'redis'}://127.0.0.1:{self.port}/0"

    def start(self, *extra: str) -> "RedisServer":
        # appendonly + fsync always: a restarted server still holds every stream entry
        # (the venue does not depend on it: tests/venue/test_faults.py loses the files)
        listen = ["--port", str(self.port)]
        if self.tls:
            cert, key, ca = self.tls
            listen = ["--port", "0", "--tls-port", str(self.port), "--tls-cert-file", str(cert),
                      "--tls-key-file", str(key), "--tls-ca-cert-file", str(ca), "--tls-auth-clients", "no"]
        self.proc = subprocess.Popen(
            ["redis-server", *listen, "--bind", "127.0.0.1", "--dir", str(self.dir),
             "--appendonly", "yes", "--appendfsync", "always", "--save", "", *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_port(self.port)
        return self

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)


class PostgresServer:
    def __init__(self, workdir: Path):
        if PG_BIN is None:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
        self.dir = workdir
        self.data = workdir / "data"
        self.port = free_port()
        self.tls_options = ""
        self.user = None
        if os.geteuid() == 0:     # initdb refuses root: run the server as 'postgres'
            self.user = "postgres"
            pw = pwd.getpwnam(self.user)
            self.dir.mkdir(parents=True, exist_ok=True)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            # let it traverse down to its folder: every folder between the temporary
            # folder and it (pytest-xdist adds a level per worker)
            tmp = Path(tempfile.gettempdir()).resolve()
            parents = list(self.dir.resolve().parents)
            parents = parents[:parents.index(tmp)] if tmp in parents else parents[:3]
            for parent in parents:
                os.chmod(parent, os.stat(parent).st_mode | 0o011)
        else:
            self.dir.mkdir(parents=True, exist_ok=True)
        self._run([str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "guandan",
                   "--no-sync"])

    def use_tls(self, cert: Path, key: Path) -> "PostgresServer":
        """Serve TLS only: ``ssl = on`` with this certificate and key, and
        pg_hba.conf accepting TCP connections over TLS only (``hostssl``)."""
        for src, name in ((cert, "server.crt"), (key, "server.key")):
            dst = self.dir / name
            shutil.copyfile(src, dst)
            dst.chmod(0o600)          # PostgreSQL refuses a key others may read
            if self.user:
                pw = pwd.getpwnam(self.user)
                os.chown(dst, pw.pw_uid, pw.pw_gid)
        (self.data / "pg_hba.conf").write_text(
            "local all all trust\nhostssl all all 127.0.0.1/32 trust\n", encoding="utf-8")
        self.tls_options = (f"-c ssl=on -c ssl_cert_file={self.dir / 'server.crt'} "
                            f"-c ssl_key_file={self.dir / 'server.key'}")
        return self

    def _run(self, cmd, **kw):
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **kw)
        if r.returncode:
            raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr.strip()}")
        return r

    @property
    def dsn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=guandan dbname=postgres connect_timeout=3"

    def start(self, options: str = "") -> "PostgresServer":
        """``options``: more server settings, e.g. ``-c track_commit_timestamp=on``."""
        # -W: pg_ctl's own wait misjudges a start after an immediate stop; wait for a query instead
        self._run([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-W", "-l", str(self.dir / "log"),
                   "-o", f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
                   f"{self.tls_options} {options}",
                   "start"])
        _wait_port(self.port)
        import psycopg
        deadline = time.monotonic() + 60
        while True:
            try:
                with psycopg.connect(self.dsn) as db:
                    db.execute("SELECT 1")
                return self
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def stop(self, mode: str = "fast") -> None:
        self._run([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-w", "-m", mode, "stop"])


def kill_and_lose_files(server: RedisServer) -> None:
    """kill -9 the Redis server and delete its files: it comes back empty."""
    if server.proc and server.proc.poll() is None:
        server.proc.kill()
        server.proc.wait(timeout=20)
    for f in server.dir.rglob("*"):
        if f.is_file():
            f.unlink()
