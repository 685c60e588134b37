"""Train the corner-index detector with ultralytics, offline, from a model yaml.

Needs the ``train`` extra (ultralytics, PyTorch).  Nothing is downloaded: the
network starts from random weights (``pretrained=False``) and ultralytics
runs with ``YOLO_OFFLINE=1``.

Typical use::

    python -m vision.training.make_dataset data/cards --train 3000 --val 300
    nice -n 19 python -m vision.training.train data/cards/data.yaml --name cards320 --epochs 40
    # later, carry on where it stopped (same command with --resume):
    nice -n 19 python -m vision.training.train data/cards/data.yaml --name cards320 --resume
    # copy the best weights into models/ and export ONNX:
    python -m vision.training.train --export runs/cards320/weights/best.pt --to models/

Runs go under ``runs/NAME`` (git-ignored).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

# Before ultralytics is imported: no hub, no downloads, no telemetry.
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_VERBOSE", "True")

MODEL_YAML = "yolo11n.yaml"
MODEL_BASENAME = "cards-yolo11n"


def train(data: Path, name: str, epochs: int, imgsz: int, batch: int, workers: int,
          project: Path, resume: bool, model_yaml: str = MODEL_YAML, cache: str | bool = "ram",
          fraction: float = 1.0, device: str = "cpu", patience: int = 100,
          init: Path | None = None, hours: float | None = None, lr0: float | None = None) -> Path:
    """Train (or resume) and return the run folder.

    ``init``: start from these weights instead of random ones (a checkpoint
    of our own, e.g. the shipped ``models/cards-yolo11n.pt``); layers whose
    shape differs (the head, when the classes change) start afresh.
    ``hours``: stop after this long, the epochs and the learning-rate schedule
    fitted to it after the first epoch (a borrowed GPU is lent by the minute).
    ``lr0``: AdamW at this learning rate with no warm-up, for a gentle
    fine-tune of ``init`` (default: ultralytics' own choice, with warm-up).
    """
    from ultralytics import YOLO, settings

    settings.update({"sync": False})
    run_dir = project / name
    last = run_dir / "weights" / "last.pt"
    if resume:
        if not last.exists():
            raise FileNotFoundError(f"nothing to resume: {last} does not exist")
        YOLO(str(last)).train(resume=True)
        return run_dir
    model = YOLO(model_yaml)
    rate = {} if lr0 is None else {"optimizer": "AdamW", "lr0": lr0, "warmup_epochs": 0.0}
    model.train(
        data=str(data), epochs=epochs, imgsz=imgsz, batch=batch, workers=workers,
        project=str(project.resolve()), name=name, exist_ok=True,
        pretrained=str(init) if init else False,
        device=device, cache=cache, plots=False, amp=False, fraction=fraction,
        patience=patience, seed=0, deterministic=False, time=hours,
        # Cards are never mirrored (a mirrored index is not a card); colour is
        # what tells hearts from spades on worn cards, so hue moves little.
        fliplr=0.0, flipud=0.0, hsv_h=0.01, hsv_s=0.5, hsv_v=0.4,
        degrees=5.0, translate=0.1, scale=0.35, mosaic=1.0, close_mosaic=4, **rate,
    )
    return run_dir


def export(weights: Path, to: Path, imgsz: int, basename: str = MODEL_BASENAME) -> tuple[Path, Path]:
    """Copy ``weights`` to ``to/basename.pt`` and export ``to/basename.onnx``.

    The ONNX takes any batch and any stride-aligned size (dynamic axes):
    :class:`vision.reading.detector.CardDetector` feeds a table's zones in one run,
    each as a rectangle whose long side is ``imgsz``.
    """
    from ultralytics import YOLO

    from ultralytics.utils.torch_utils import strip_optimizer

    to.mkdir(parents=True, exist_ok=True)
    pt = to / f"{basename}.pt"
    shutil.copyfile(weights, pt)
    strip_optimizer(str(pt))     # a mid-run checkpoint carries the optimizer: ~5x the size
    onnx_path = Path(YOLO(str(pt)).export(format="onnx", imgsz=imgsz, opset=17, simplify=True,
                                          dynamic=True, half=False))
    final = to / f"{basename}.onnx"
    if onnx_path.resolve() != final.resolve():
        shutil.move(str(onnx_path), final)
    return pt, final


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.training.train", description=__doc__.split("\n")[0])
    ap.add_argument("data", nargs="?", type=Path, help="data.yaml written by vision.training.make_dataset")
    ap.add_argument("--name", default="cards320")
    ap.add_argument("--project", type=Path, default=Path("runs"))
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--cache", default="ram", help="ram, disk or none")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--model", default=MODEL_YAML, help="model yaml (no pretrained weights)")
    ap.add_argument("--init", type=Path, help="start from these weights (ours, never downloaded)")
    ap.add_argument("--hours", type=float, help="stop after this many hours (the schedule fitted to it)")
    ap.add_argument("--lr0", type=float, help="AdamW at this learning rate, no warm-up (a gentle fine-tune)")
    ap.add_argument("--resume", action="store_true", help="carry on runs/NAME/weights/last.pt")
    ap.add_argument("--export", type=Path, metavar="WEIGHTS", help="copy WEIGHTS and export ONNX, no training")
    ap.add_argument("--to", type=Path, default=Path("models"))
    args = ap.parse_args(argv)
    if args.export:
        if not args.export.exists():
            print(f"weights file not found: {args.export}", file=sys.stderr)
            return 2
        for p in export(args.export, args.to, args.imgsz):
            print(p)
        return 0
    if args.hours is not None and not (0 < args.hours <= 240):
        print(f"--hours must be above 0 and at most 240, not {args.hours}", file=sys.stderr)
        return 2
    if args.lr0 is not None and not (0 < args.lr0 <= 0.1):
        print(f"--lr0 must be above 0 and at most 0.1, not {args.lr0}", file=sys.stderr)
        return 2
    if not args.resume and (args.data is None or not args.data.exists()):
        print(f"data file not found: {args.data} (write one with python -m vision.training.make_dataset)",
              file=sys.stderr)
        return 2
    try:
        run = train(args.data, args.name, args.epochs, args.imgsz, args.batch, args.workers,
                    args.project, args.resume, args.model,
                    cache=False if args.cache == "none" else args.cache, device=args.device,
                    init=args.init, hours=args.hours, lr0=args.lr0)
    except FileNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
