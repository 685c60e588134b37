#!/bin/bash
# Fine-tune the shipped corner-index detector on a borrowed GPU machine, in one
# timed run: draw fresh scenes on all its cores, then train one detector per
# input size side by side from models/cards-yolo11n.pt (vision.training.train).
# models/MODEL_CARD.md, "Fine-tuned on a borrowed GPU", says what it made.
#
#   bash vision/training/fine_tune_on_gpu.sh TRAIN_PER_SET VAL_PER_SET HOURS DEVICE OUT [SIZES] [LR0]
#   e.g. bash vision/training/fine_tune_on_gpu.sh 300 30 0.035 0 /tmp/out "256 320" 0.0002
#
# 16 scene sets (seeds 101-116) of TRAIN_PER_SET + VAL_PER_SET scenes each:
# 6 joker-rich, 4 with new corner-index type faces, 3 with line-drawn cards,
# 3 plain. Such a machine reaches no network, so what the run needs travels
# with the repository in .gpu/ (git-ignored): .gpu/card-art (the training
# decks' sheets from ~/.cache/guandan-referee/card-art, rendered here by
# vision.training.card_art), .gpu/fonts (a few DejaVu and Liberation faces
# for the new indices) and, where ultralytics is missing there, its wheel and
# ultralytics-thop's in .gpu/whl. Each size's best and last weights, results
# and log tail land in OUT; export one with `python -m vision.training.train
# --export OUT/g256_best.pt --imgsz 256 --to DIR`.
#
# REAL="DIR:COPIES ..." adds real photographs boxed at their indices (a YOLO
# folder from `python -m vision.training.real_piles`, carried in .gpu/), its
# train split listed COPIES times among the generated scenes.
NT=${1:-600}; NV=${2:-40}; HRS=${3:-0.085}; DEV=${4:-0}; O=${5:?give the folder for the results}
SIZES=${6:-"256 320"}; LR=${7:+--lr0 $7}
W=${FINE_TUNE_WORK:-/tmp}   # scenes and runs go here
# a bad REAL stops the run before any scene is drawn
python3 - "${REAL:-}" <<'PY' || exit 4
import sys
from pathlib import Path
for item in sys.argv[1].split():
    d, _, k = item.rpartition(":")
    if not d or not k.isdigit() or not 1 <= int(k) <= 20 or not (Path(d) / "images" / "train").is_dir():
        sys.exit(f"REAL: {item!r} is not DIR:COPIES with DIR/images/train and 1-20 copies")
PY
mkdir -p "$O"
export PYTHONUNBUFFERED=1 YOLO_OFFLINE=1 YOLO_VERBOSE=True
R=$PWD
if ! python3 -c "import ultralytics" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpu/whl/*.whl || exit 3
fi
# ultralytics reads its results CSV back with polars (only to report it); where
# polars is missing, a stand-in whose calls fail, which ultralytics catches.
if ! python3 -c "import polars" 2>/dev/null; then
  mkdir -p /tmp/stub/polars
  cat > /tmp/stub/polars/__init__.py <<'STUB'
def read_csv(*a, **k):
    raise RuntimeError("no polars")


class DataFrame:
    def __init__(self, *a, **k):
        raise RuntimeError("no polars")
STUB
fi
export PYTHONPATH=$R:/tmp/site:/tmp/stub
if [ ! -d /usr/share/fonts/truetype/liberation ] && [ -d .gpu/fonts ]; then
  mkdir -p /usr/share/fonts/truetype/carried && cp .gpu/fonts/* /usr/share/fonts/truetype/carried/
fi
[ -d .gpu/card-art ] && export GUANDAN_CARD_CACHE=$R/.gpu/card-art
nproc; nvidia-smi -L 2>/dev/null; date
DS=$W/gds; rm -rf $DS; mkdir -p $DS
for i in $(seq 0 15); do
  s=$((101 + i))
  case $i in
    0|1|2|3|4|5) o="--joker-scenes 0.2 --joker-designs 0.6 --ink-weight 0.5" ;;
    6|7|8|9) o="--joker-scenes 0.15 --joker-designs 0.6 --ink-weight 0.5 --index-designs 0.6" ;;
    10|11|12) o="--joker-scenes 0.15 --joker-designs 0.6 --ink-weight 0.5 --outline-prints 0.3" ;;
    *) o="" ;;
  esac
  python3 -m vision.training.make_dataset $DS/s$s --train $NT --val $NV --seed $s $o > $DS/gen$s.log 2>&1 &
done
wait
date
python3 - "$DS" "${REAL:-}" <<'PY' || exit 5
import sys
from pathlib import Path
from vision.reading.classes import DETECTOR_NAMES
ds = Path(sys.argv[1])
scenes = sorted(p for p in ds.iterdir() if p.is_dir())
real = [(Path(d).resolve(), int(k)) for d, _, k in (item.rpartition(":") for item in sys.argv[2].split())]
parts = scenes + [d for d, k in real for _ in range(k)]
count = lambda p: len(list((p / "images" / "train").glob("*.jpg")))   # noqa: E731
lines = ["train:"] + [f"  - {p / 'images' / 'train'}" for p in parts]
lines += ["val:"] + [f"  - {p / 'images' / 'val'}" for p in scenes]   # the generated scenes only
lines += ["names:"] + [f"  {i}: {x}" for i, x in enumerate(DETECTOR_NAMES)]
(ds / "data.yaml").write_text("\n".join(lines) + "\n")
print("train pictures", sum(count(p) for p in parts), "from", len(parts), "sets, of them real",
      sum(count(d) * k for d, k in real))
PY
for sz in $SIZES; do
  python3 -m vision.training.train $DS/data.yaml --project $W/gruns --name g$sz --imgsz $sz --batch 64 \
    --workers ${FINE_TUNE_WORKERS:-7} --device $DEV --init models/cards-yolo11n.pt --epochs 80 --hours $HRS $LR \
    > $W/train$sz.log 2>&1 &
done
wait
date
for sz in $SIZES; do
  w=$W/gruns/g$sz/weights
  cp $w/best.pt $O/g${sz}_best.pt; cp $w/last.pt $O/g${sz}_last.pt; cp $W/gruns/g$sz/results.csv $O/g${sz}_results.csv
  grep -v "it/s]\|s/it]" $W/train$sz.log | tail -n 60 > $O/g${sz}_log.txt
done
ls -la $O
