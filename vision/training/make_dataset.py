"""Write a YOLO data set of synthetic play zones (images, labels, data.yaml).

Two classes, ``INDEX`` (every corner index) and ``HAND``: the detector finds
indices, the index classifier names them.

Run it as a script::

    python -m vision.training.make_dataset data/cards --train 3000 --val 300 --seed 1

Splits: ``train`` and ``val`` use the training decks and cloths (val with
its own seeds); ``test`` (``--test N``) uses the held-out decks and cloths
only, for an independent measure.  The same seed gives the same pictures.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.reading.classes import DETECTOR_NAMES
from vision.training.card_art import HELD_OUT_DECKS, TRAIN_DECKS, CardArtError, load_decks
from vision.training.synth import CLOTH_HELD_OUT, CLOTH_TRAIN, SceneGenerator, add_scene_options, scene_options

# Seeds of each split are offset so that no two splits share a picture.
_SPLIT_SEED = {"train": 0, "val": 1_000_003, "test": 2_000_003}


def write_split(out: Path, split: str, count: int, gen: SceneGenerator, seed: int,
                size: tuple[int, int] | None = None) -> int:
    """Render ``count`` scenes into ``out/images/split`` and ``out/labels/split``,
    shrunk to ``size`` (the detector's input) when given."""
    img_dir, lab_dir = out / "images" / split, out / "labels" / split
    img_dir.mkdir(parents=True, exist_ok=True)
    lab_dir.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        rng = np.random.default_rng([seed, _SPLIT_SEED[split], i])
        scene = gen.random_scene(rng)
        stem = f"{split}_{seed}_{i:06d}"
        image = scene.image
        if size is not None and (image.shape[1], image.shape[0]) != size:
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)   # labels are relative
        cv2.imwrite(str(img_dir / f"{stem}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        (lab_dir / f"{stem}.txt").write_text("".join(l + "\n" for l in scene.yolo_lines(True)))
    return count


def write_yaml(out: Path) -> Path:
    """The ultralytics data file, with absolute paths so it works from anywhere."""
    lines = [f"path: {out.resolve()}", "train: images/train", "val: images/val"]
    if (out / "images" / "test").exists():
        lines.append("test: images/test")
    lines.append("names:")
    lines += [f"  {i}: {n}" for i, n in enumerate(DETECTOR_NAMES)]
    path = out / "data.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.training.make_dataset", description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path, help="folder to write (kept out of git, e.g. data/cards)")
    ap.add_argument("--train", type=int, default=3000)
    ap.add_argument("--val", type=int, default=300)
    ap.add_argument("--test", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--size", default="320x224",
                    help="picture WIDTHxHEIGHT written, the detector's input (default 320x224); scenes "
                         "are drawn at the zone pictures' size and shrunk to it, as the detector sees them")
    ap.add_argument("--hand-rate", type=float, default=0.3, help="share of scenes with a hand (default 0.3)")
    add_scene_options(ap, "training scenes")
    args = ap.parse_args(argv)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        print(f"bad --size {args.size!r}: expected WIDTHxHEIGHT such as 320x224", file=sys.stderr)
        return 2
    try:
        train_decks = load_decks(TRAIN_DECKS)
        held = load_decks(HELD_OUT_DECKS) if args.test else []
    except CardArtError as exc:
        print(exc, file=sys.stderr)
        return 2
    gen = SceneGenerator(train_decks, cloth=CLOTH_TRAIN, hand_rate=args.hand_rate, **scene_options(args))
    write_split(args.out, "train", args.train, gen, args.seed, (w, h))
    write_split(args.out, "val", args.val, gen, args.seed, (w, h))
    if args.test:
        write_split(args.out, "test", args.test, SceneGenerator(held, cloth=CLOTH_HELD_OUT, hand_rate=args.hand_rate),
                    args.seed, (w, h))
    print(write_yaml(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
