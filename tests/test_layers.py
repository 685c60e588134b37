"""The packages depend on each other one way only:

    referee (pure rules) <- storage (event logs) <- services (the referee service)
        <- table_node, venue, web_dashboard, commands

Checked by reading each module's source with ``ast`` (nothing is imported,
so an import inside a function, or one only made under a condition, is seen too).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# the project's own top-level packages
OWN = {"referee", "storage", "services", "vision", "hardware", "web_dashboard", "table_node",
       "venue", "commands", "tests", "benchmarks"}

# The rules core does no I/O, runs no threads and reads no clock: whatever it
# decides follows from the events alone, so a replay gives the same decisions.
# (csv and io stay allowed: referee/match.py writes the CSV score sheet into an
# io.StringIO, a string.)
IMPURE = {"sqlite3", "psycopg", "psycopg2", "redis", "threading", "socket", "subprocess", "os",
          "pathlib", "time", "flask", "werkzeug", "serial", "cv2", "shutil", "tempfile",
          "multiprocessing", "asyncio", "concurrent", "importlib"}

FORBIDDEN = {
    "referee": IMPURE | (OWN - {"referee"}),
    # the logs sit under the service layer
    "storage": {"services", "web_dashboard", "table_node", "commands", "venue", "flask"},
    # the table node, the venue's central service and the dashboard use the
    # service layer, never the other way round
    "services": {"web_dashboard", "table_node", "commands", "venue", "flask"},
}


def imported_modules(source: str, module: str) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``source``, the source
    of ``module`` (dotted name; relative imports are resolved against it);
    a call of ``__import__`` counts as an import of ``"__import__"``.

    >>> imported_modules("import os.path\\nfrom . import cards\\nfrom .x import y", "referee.table")
    [(1, 'os.path'), (2, 'referee'), (3, 'referee.x')]
    """
    package = module.split(".")[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.append((node.lineno, name))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "__import__"):
            found.append((node.lineno, "__import__"))
    return sorted(found)


def violations(source: str, module: str, forbidden: set[str]) -> list[str]:
    """The imports of ``module`` whose top-level package is in ``forbidden``
    (and every ``__import__``: it would hide what is imported)."""
    out = []
    for line, name in imported_modules(source, module):
        top = name.split(".")[0]
        if top in forbidden or top in ("", "__import__"):
            out.append(f"{module.replace('.', '/')}.py:{line}: imports {name or '(the root)'}")
    return out


def modules(package: str) -> list[tuple[str, Path]]:
    """(dotted name, path) of every module in ``package``; a package's own
    module keeps its ``.__init__``, so relative imports in it resolve from it."""
    return [(".".join(path.relative_to(ROOT).with_suffix("").parts), path)
            for path in sorted((ROOT / package).rglob("*.py"))]


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_only_what_its_layer_may(package):
    found = []
    for module, path in modules(package):
        found += violations(path.read_text(encoding="utf-8"), module, FORBIDDEN[package])
    assert not found, f"{package}/ must not import these:\n" + "\n".join(found)


def test_every_layer_has_modules():
    # a package renamed or moved would otherwise pass with nothing checked
    for package in FORBIDDEN:
        assert len(modules(package)) >= 2, package


@pytest.mark.parametrize("source", [
    "import sqlite3",
    "import os.path",
    "from time import monotonic",
    "def f():\n    import threading",
    "try:\n    import redis\nexcept ImportError:\n    redis = None",
    "from storage.sqlite_log import EventStore",
    "from services import Venue",
    "from .. import storage",
    "__import__('socket')",
])
def test_the_check_catches_an_impure_import(source):
    assert violations(source, "referee.cards", FORBIDDEN["referee"])


@pytest.mark.parametrize("source", [
    "import csv\nimport io\nfrom collections import Counter",
    "from referee.events import Event",
    "from . import cards",
    "from .cards import Card",
])
def test_the_check_allows_the_rules_own_imports(source):
    assert violations(source, "referee.table", FORBIDDEN["referee"]) == []
