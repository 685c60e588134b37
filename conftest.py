"""Collection rules for the doctests (``--doctest-modules`` in pyproject.toml).

Every module of the packages is imported to collect its examples, so what must
not be imported in a test run is left out here by rule, not by file name:
``__main__`` modules run the program when imported, the benchmarks are run by
hand, and a module that imports a package of the optional ``train`` extra at
its top cannot be imported where that extra is not installed.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

# The ``train`` extra's packages, by import name (pyproject.toml).
TRAIN_ONLY = {"torch", "torchvision", "ultralytics", "onnx", "onnxslim"}

collect_ignore_glob = ["*/__main__.py", "benchmarks/*"]


def _top_level_imports(path: Path) -> set[str]:
    """The first names of the packages ``path`` imports when it is imported."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names: set[str] = set()
    for node in tree.body:    # imports inside functions run only when called
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def pytest_ignore_collect(collection_path: Path, config):
    """Leave out a module that needs a ``train`` package this environment lacks."""
    if collection_path.suffix != ".py" or not config.getoption("doctestmodules"):
        return None
    if config.rootpath / "tests" in collection_path.parents:
        return None    # a test file skips itself (pytest.importorskip) or fails to be collected
    missing = {name for name in _top_level_imports(collection_path) & TRAIN_ONLY
               if importlib.util.find_spec(name) is None}
    return True if missing else None


# The longest test files (``--durations``), started first: pytest-xdist
# (``--dist loadfile``, pyproject.toml) gives each file to one worker, and a
# long file started last would run alone at the end while the others idle.
LONGEST_FIRST = ("tests/node/test_demo.py", "tests/node/test_demo_seed5.py")


def pytest_collection_modifyitems(session, config, items):
    """Move the files of :data:`LONGEST_FIRST` to the front, the rest in their order."""
    rank = {name: k for k, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))
