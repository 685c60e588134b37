"""vision's layers: the run time (vision.reading) never reaches into training.

A table node runs the models on ONNX Runtime; PyTorch, ultralytics and the
card art are only for making them (vision.training).
"""

import ast
import doctest
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cards import parse_card

ROOT = Path(__file__).resolve().parents[2]
READING = sorted((ROOT / "vision" / "reading").glob("*.py"))
TRAINING_IMPORTED = ("vision.training", "torch", "ultralytics")


def imported_modules(source: str, package: str) -> list[tuple[int, str]]:
    """Every module a module of ``package`` with this source imports,
    anywhere in it (inside functions too), relative imports resolved:
    (line, dotted name), ``from a import b`` as both ``a`` and ``a.b`` (b
    may be a module)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([base] if base else []))
            found.append((node.lineno, base))
            found += [(node.lineno, f"{base}.{a.name}") for a in node.names]
    return found


def training_imports(source: str, package: str = "vision.reading") -> list[str]:
    return [f"line {line} imports {name}" for line, name in imported_modules(source, package)
            if name == "vision.training" or name.startswith("vision.training.")]


def test_the_reading_modules_are_found():
    names = {p.stem for p in READING}
    assert {"detector", "index_classifier", "pairing", "table", "tracker", "watch", "classes"} <= names


@pytest.mark.parametrize("path", READING, ids=lambda p: p.name)
def test_no_reading_module_imports_training(path):
    assert training_imports(path.read_text()) == []


@pytest.mark.parametrize("source", [
    "import vision.training.synth\n",
    "def f():\n    from vision.training import card_art\n",
    "def f():\n    from vision.training.card_art import load_decks\n",
    "from ..training import synth\n",
    "from .. import training\n",
])
def test_the_check_sees_every_form_of_import(source):
    assert training_imports(source)
    assert not training_imports(source.replace("training", "reading"))


def test_no_import_circle_in_vision():
    # imports inside functions count: they were how the old circle hid
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts): p for p in (ROOT / "vision").rglob("*.py")}
    modules = {name.removesuffix(".__init__"): p for name, p in modules.items()}
    edges = {name: {n for _, n in imported_modules(p.read_text(), name if p.name == "__init__.py"
                                                   else name.rpartition(".")[0]) if n in modules and n != name}
             for name, p in modules.items()}
    done, path = set(), []

    def visit(name):
        if name in path:
            raise AssertionError("import circle: " + " -> ".join(path[path.index(name):] + [name]))
        if name in done:
            return
        path.append(name)
        for n in sorted(edges[name]):
            visit(n)
        path.pop()
        done.add(name)

    for name in sorted(modules):
        visit(name)


def test_reading_a_zone_loads_neither_torch_nor_ultralytics():
    code = ("import sys, vision, vision.reading.detector, vision.reading.watch, vision.reading.tracker\n"
            "vision.CardDetector, vision.TableWatcher\n"
            f"print([m for m in sys.modules if m.startswith({TRAINING_IMPORTED!r})])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


def test_the_class_order_the_models_were_trained_with():
    from vision.reading.classes import CARD_NAMES, CLASS_NAMES, DETECTOR_NAMES
    from vision.reading.index_classifier import LABELS

    # baked into models/*.onnx: changing it silently renames every card
    assert CLASS_NAMES == (
        "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9", "ST", "SJ", "SQ", "SK", "SA",
        "H2", "H3", "H4", "H5", "H6", "H7", "H8", "H9", "HT", "HJ", "HQ", "HK", "HA",
        "D2", "D3", "D4", "D5", "D6", "D7", "D8", "D9", "DT", "DJ", "DQ", "DK", "DA",
        "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9", "CT", "CJ", "CQ", "CK", "CA",
        "BJ", "LJ", "HAND")
    assert LABELS == CARD_NAMES + ("NONE",)
    assert DETECTOR_NAMES == ("INDEX", "HAND")
    # every face a model names is a card the referee reads, as itself
    assert [parse_card(n).code for n in CARD_NAMES] == list(CARD_NAMES)
    assert len(set(CARD_NAMES)) == 54


VISION_MODULES = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts)
                        for p in (ROOT / "vision").rglob("*.py") if p.name != "__main__.py")


@pytest.mark.parametrize("name", VISION_MODULES)
def test_doctests(name):
    # pytest runs tests/ only; the examples in vision's docstrings must hold too
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
