"""The type gate: the rules engine, the layers that serve it (storage,
services) and the venue's publisher and central service pass ``mypy --strict``
with no ``type: ignore``."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("referee", "storage", "services", "venue")


def test_no_type_ignore_in_the_checked_packages():
    hits = [f"{p.relative_to(ROOT)}:{i}" for pkg in CHECKED for p in sorted((ROOT / pkg).glob("*.py"))
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if "type: ignore" in line]
    assert hits == []


def test_checked_packages_pass_mypy_strict(tmp_path):
    pytest.importorskip("mypy")
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path),
                          *CHECKED], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
