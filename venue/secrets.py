"""Secrets for the venue: passwords come from the environment or a file, never
from the command line (where ``ps`` shows them), and never reach a log line.

>>> redact("redis://central:s3cret@10.0.0.2:6379/0 failed")
'redis://central:***@10.0.0.2:6379/0 failed'
>>> redact("host=db user=guandan password=s3cret dbname=venue")
'host=db user=guandan password=*** dbname=venue'
"""

from __future__ import annotations

import os
import re

_URL_PASSWORD = re.compile(r"(\w+://[^:/@\s]*:)[^@\s]+@")
_DSN_PASSWORD = re.compile(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)


def redact(text: str) -> str:
    """``text`` with the passwords of URLs and libpq DSNs replaced by ``***``."""
    return _DSN_PASSWORD.sub(r"\1***", _URL_PASSWORD.sub(r"\1***@", text))


def secret(value: str | None) -> str | None:
    """A secret given as ``env:NAME`` (an environment variable) or ``file:PATH``
    (a file's first line, e.g. a systemd credential or a Docker secret);
    anything else is returned as it is."""
    if value is None:
        return None
    if value.startswith("env:"):
        name = value[4:]
        if name not in os.environ:
            raise ValueError(f"environment variable {name} is not set")
        return os.environ[name]
    if value.startswith("file:"):
        with open(value[5:], encoding="utf-8") as f:
            return f.readline().rstrip("\r\n")
    return value


def from_env(value: str, env: str) -> str:
    """``value`` (a URL or DSN without password), or the whole of it from the
    environment variable ``env`` when that is set."""
    return os.environ.get(env) or value
