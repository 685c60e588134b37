"""TLS to Redis and PostgreSQL (issue: venue, secured links), with Debian's
redis-server (``--tls-port``) and PostgreSQL (``ssl = on``) serving TLS only,
and a certificate authority made by the test: events flow end to end over
TLS with none lost; a server whose certificate the given CA did not sign is
refused with a clear error that holds no secret; the TLS settings are
checked where they come in."""

import subprocess
import sys
import threading
import types

import psycopg
import pytest
import redis

from tests.services import PostgresServer, RedisServer, wait_until
from tests.venue.certs import make_ca, make_server_cert
from tests.venue.test_faults import Central, Node, assert_same_as, count, feeds, interleaved
from venue.central import CentralService
from venue.publisher import tls_trust_error

REDIS_PASSWORD = "tls-s3cret-pw"
TABLES = ("T01", "T02", "T03")


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    """TLS-only Redis (with a password) and PostgreSQL, their CA, and another CA."""
    base = tmp_path_factory.mktemp("tls")
    ca = make_ca(base / "ca", "venue-ca")
    wrong = make_ca(base / "wrong", "other-ca")
    cert, key = make_server_cert(base / "ca", ca)
    redis_srv = RedisServer(base / "redis", tls=(cert, key, ca[0])).start("--requirepass", REDIS_PASSWORD)
    pg = PostgresServer(base / "pg").use_tls(cert, key).start()
    yield types.SimpleNamespace(redis=redis_srv, pg=pg, ca=str(ca[0]), wrong_ca=str(wrong[0]))
    redis_srv.stop()
    pg.stop()


def verified(pg, ca):
    """The DSN that verifies the server's certificate and name against ``ca``."""
    return f"{pg.dsn} sslmode=verify-full sslrootcert={ca}"


@pytest.fixture
def fresh_tls(tls):
    r = redis.Redis.from_url(tls.redis.url, password=REDIS_PASSWORD, ssl_ca_certs=tls.ca)
    r.flushall()
    r.close()
    with psycopg.connect(verified(tls.pg, tls.ca), autocommit=True) as db:
        db.execute("DROP TABLE IF EXISTS decisions, events, dead_letters, schema_migrations CASCADE")
    return tls


def test_the_servers_serve_tls_only(tls):
    with pytest.raises(redis.ConnectionError):
        redis.Redis.from_url(tls.redis.url.replace("rediss://", "redis://"), password=REDIS_PASSWORD,
                             socket_timeout=2).ping()
    with pytest.raises(psycopg.OperationalError, match="no encryption"):
        psycopg.connect(tls.pg.dsn + " sslmode=disable")


def test_events_flow_end_to_end_over_tls_with_none_lost(fresh_tls, tmp_path):
    t = fresh_tls
    node = Node(tmp_path / "node.sqlite", t.redis.url, password=REDIS_PASSWORD, ca_file=t.ca)
    central = Central(t.redis, types.SimpleNamespace(dsn=verified(t.pg, t.ca)), tables=TABLES,
                      redis_password=REDIS_PASSWORD, redis_ca_file=t.ca)
    try:
        events = interleaved(feeds())
        node.feed(events)
        wait_until(lambda: count(t.pg) == len(events), what="every event recorded over TLS")
        assert_same_as(t.pg, node.live)
        service = central.service
        assert service.error is None and service.dead == 0
        assert service.store.connection.pgconn.ssl_in_use
        assert service.redis.connection_pool.connection_class is redis.SSLConnection
        assert node.publisher.redis.connection_pool.connection_class is redis.SSLConnection
        assert node.publisher.backfills == 0
    finally:
        central.close()
        node.close()


def _central(args, env_extra=None):
    import os
    env = dict(os.environ, GUANDAN_REDIS_PASSWORD=REDIS_PASSWORD, **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "commands", "central", "--port", "0", "--tables", "T01", *args],
                          capture_output=True, text=True, timeout=60, env=env)


def test_a_wrong_ca_is_refused_with_a_clear_error_and_no_secret(fresh_tls, tmp_path):
    t = fresh_tls
    pg_ok = verified(t.pg, t.ca) + " password=pg-s3cret-pw"
    # Redis's certificate is not signed by the CA given: one line, exit 2
    proc = _central(["--redis", t.redis.url, "--redis-ca-file", t.wrong_ca, "--pg", pg_ok])
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot use Redis" in lines[0] and "certificate is not trusted" in lines[0]
    # nor PostgreSQL's
    proc = _central(["--redis", t.redis.url, "--redis-ca-file", t.ca,
                     "--pg", verified(t.pg, t.wrong_ca) + " password=pg-s3cret-pw"])
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot use PostgreSQL" in lines[0] and "certificate verify failed" in lines[0]
    for out in (proc.stdout + proc.stderr,):
        assert "s3cret" not in out
    # a central already running: the worker stops (exit non-zero under systemd), it does not retry forever
    service = CentralService(t.redis.url, verified(t.pg, t.ca), tables=TABLES,
                             redis_password=REDIS_PASSWORD, redis_ca_file=t.wrong_ca)
    try:
        stop = threading.Event()
        with pytest.raises(redis.ConnectionError, match="certificate is not trusted"):
            service.run(stop)
        assert "s3cret" not in (service.last_error or "")
    finally:
        service.close()
    # the node keeps refereeing locally and says why it cannot publish
    node = Node(tmp_path / "node.sqlite", t.redis.url, password=REDIS_PASSWORD, ca_file=t.wrong_ca)
    try:
        node.feed(interleaved(feeds())[:5])
        with pytest.raises(redis.ConnectionError) as exc:
            node.publisher.publish_pending()
        assert tls_trust_error(exc.value) is not None
        assert sum(len(node.live.events(tb)) for tb in node.live.tables) == 5
        assert node.publisher.cursor("T01") == 0
    finally:
        node.close()


def test_tls_settings_are_checked_at_the_edge(tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_text("not used\n")
    for args, said in (
            (["--redis", "redis://127.0.0.1:1/0", "--redis-ca-file", str(ca), "--pg", "host=127.0.0.1"],
             "give a rediss:// URL"),
            (["--redis", "rediss://127.0.0.1:1/0", "--redis-ca-file", str(tmp_path / "none.pem"),
              "--pg", "host=127.0.0.1"], "does not exist"),
            (["--redis", "rediss://127.0.0.1:1/0", "--pg", f"host=127.0.0.1 sslrootcert={tmp_path}/none.pem"],
             "sslrootcert"),
            (["--redis", "rediss://127.0.0.1:1/0", "--pg", "host=127.0.0.1 sslmode=verify-fully"], "sslmode"),
            (["--redis", "http://127.0.0.1:1/0", "--pg", "host=127.0.0.1"], "not a Redis URL")):
        proc = _central(args)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and said in lines[0] and "Traceback" not in proc.stderr, (args, proc.stderr)
