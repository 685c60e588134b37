"""A table node's venue credentials come from files named in its config,
never from the config itself (issue: venue, sources are who they say)."""

import pytest

from table_node.config import ConfigError, parse_config, read_secret


def test_the_nodes_key_and_password_are_read_from_their_files(tmp_path):
    (tmp_path / "hmac").write_text("k3y-T01\nignored\n", encoding="utf-8")
    (tmp_path / "pw").write_text("s3cret\n", encoding="utf-8")
    cfg = parse_config({"table": {"id": "T01"},
                        "venue": {"redis": "redis://T01-node@127.0.0.1:6379/0",
                                  "key_file": "hmac", "redis_password_file": "pw"}}, base=tmp_path)
    assert read_secret(cfg.key_file) == "k3y-T01"
    assert read_secret(cfg.redis_password_file) == "s3cret"
    assert read_secret(None) is None


def test_a_missing_secret_file_is_refused_by_name(tmp_path):
    with pytest.raises(ConfigError, match="key_file"):
        parse_config({"table": {"id": "T01"}, "venue": {"redis": "redis://h/0", "key_file": "nope"}},
                     base=tmp_path)


def test_the_redis_ca_file_is_checked_in_the_config(tmp_path):
    (tmp_path / "ca.pem").write_text("-----BEGIN CERTIFICATE-----\n", encoding="utf-8")
    cfg = parse_config({"table": {"id": "T01"},
                        "venue": {"redis": "rediss://T01-node@venue:6380/0", "redis_ca_file": "ca.pem"}},
                       base=tmp_path)
    assert cfg.redis_ca_file == tmp_path / "ca.pem"
    for venue, said in (({"redis": "rediss://h/0", "redis_ca_file": "none.pem"}, "redis_ca_file"),
                        ({"redis": "redis://h/0", "redis_ca_file": "ca.pem"}, "rediss://"),
                        ({"redis_ca_file": "ca.pem"}, "without redis"),
                        ({"redis": "h:6379"}, "not a Redis URL")):
        with pytest.raises(ConfigError, match=said):
            parse_config({"table": {"id": "T01"}, "venue": venue}, base=tmp_path)
