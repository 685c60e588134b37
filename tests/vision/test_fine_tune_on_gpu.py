"""The borrowed-GPU fine-tune script runs end to end on this CPU, tiny."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ultralytics", reason="the train extra (ultralytics) is not installed")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "vision" / "training" / "fine_tune_on_gpu.sh"


def _run(args: list[str], work: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, FINE_TUNE_WORK=str(work), FINE_TUNE_WORKERS="0",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")   # python3 = this one
    return subprocess.run(["bash", str(SCRIPT), *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)


def test_one_size_trains_from_the_shipped_weights_and_lands_in_out(tmp_path):
    from vision.training.card_art import TRAIN_DECKS, load_decks

    load_decks(TRAIN_DECKS)      # rendered once here, not by the script's 16 processes at once
    out = tmp_path / "out"
    out.mkdir()
    done = _run(["1", "1", "0.0005", "cpu", str(out), "160", "0.0002"], tmp_path / "work")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "train pictures 16 from 16 sets" in done.stdout
    assert sorted(p.name for p in out.iterdir()) == ["g160_best.pt", "g160_last.pt", "g160_log.txt",
                                                      "g160_results.csv"]
    rows = list(csv.DictReader((out / "g160_results.csv").open()))
    assert 1 <= len(rows) <= 3            # the time limit stopped it long before the 80 epochs asked
    assert float(rows[0]["lr/pg0"]) == pytest.approx(0.0002, rel=0.05)   # the gentle rate, no warm-up
    assert (out / "g160_best.pt").stat().st_size > 1_000_000


def test_without_an_out_folder_it_says_so(tmp_path):
    done = _run(["1", "1", "0.001", "cpu"], tmp_path)
    assert done.returncode != 0
    assert "give the folder for the results" in done.stderr
