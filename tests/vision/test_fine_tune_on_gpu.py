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


def _run(args: list[str], work: Path, real: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, FINE_TUNE_WORK=str(work), FINE_TUNE_WORKERS="0", REAL=real,
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")   # python3 = this one
    return subprocess.run(["bash", str(SCRIPT), *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)


def test_one_size_trains_from_the_shipped_weights_and_lands_in_out(tmp_path):
    from vision.training.card_art import TRAIN_DECKS, load_decks

    load_decks(TRAIN_DECKS)      # rendered once here, not by the script's 16 processes at once
    out = tmp_path / "out"
    out.mkdir()
    real = _real_folder(tmp_path / "real")
    done = _run(["1", "1", "0.0005", "cpu", str(out), "160", "0.0002"], tmp_path / "work", f"{real}:2")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "train pictures 18 from 18 sets, of them real 2" in done.stdout    # the real folder listed twice
    data = (tmp_path / "work" / "gds" / "data.yaml").read_text()
    assert data.count(str(real)) == 2 and data.index(str(real)) < data.index("val:")   # trained on, not validated
    assert sorted(p.name for p in out.iterdir()) == ["g160_best.pt", "g160_last.pt", "g160_log.txt",
                                                      "g160_results.csv"]
    rows = list(csv.DictReader((out / "g160_results.csv").open()))
    assert 1 <= len(rows) <= 3            # the time limit stopped it long before the 80 epochs asked
    assert float(rows[0]["lr/pg0"]) == pytest.approx(0.0002, rel=0.05)   # the gentle rate, no warm-up
    assert (out / "g160_best.pt").stat().st_size > 1_000_000


def _real_folder(root: Path) -> Path:
    """A YOLO folder of one real photograph boxed at one index (an EdjeElectronics one, tests/data, Apache-2.0)."""
    (root / "images" / "train").mkdir(parents=True)
    (root / "labels" / "train").mkdir(parents=True)
    src = ROOT / "tests" / "data" / "real" / "edje" / "images" / "train" / "IMG_2447.JPG"
    (root / "images" / "train" / "a.jpg").write_bytes(src.read_bytes())
    (root / "labels" / "train" / "a.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    return root


@pytest.mark.parametrize("real", ["nowhere:3", "{real}:0", "{real}", "{real}:x"])
def test_a_bad_real_folder_or_count_stops_before_training(tmp_path, real):
    folder = _real_folder(tmp_path / "real")
    out = tmp_path / "out"
    done = _run(["1", "1", "0.0005", "cpu", str(out), "160"], tmp_path / "work", real.format(real=folder))
    assert done.returncode == 4
    assert "is not DIR:COPIES" in done.stderr and not out.exists()           # before anything was made


def test_without_an_out_folder_it_says_so(tmp_path):
    done = _run(["1", "1", "0.001", "cpu"], tmp_path)
    assert done.returncode != 0
    assert "give the folder for the results" in done.stderr
