import psycopg
import pytest

from tests.services import PostgresServer, RedisServer


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    base = tmp_path_factory.mktemp("venue")
    redis_srv = RedisServer(base / "redis").start()
    pg = PostgresServer(base / "pg").start()
    yield redis_srv, pg
    redis_srv.stop()
    pg.stop()


@pytest.fixture
def fresh(servers):
    """Empty Redis and PostgreSQL for each test."""
    import redis
    redis_srv, pg = servers
    if redis_srv.proc is None or redis_srv.proc.poll() is not None:
        redis_srv.start()
    redis.Redis.from_url(redis_srv.url).flushall()
    with psycopg.connect(pg.dsn, autocommit=True) as db:
        db.execute("DROP TABLE IF EXISTS decisions, events, dead_letters, schema_migrations CASCADE")
    return servers
