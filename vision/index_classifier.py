"""Second stage: a small CNN that names a corner index from its crop.

The YOLO detector only says where the corner indices are (two classes,
index and hand).  This classifier looks at the crop around one detected
index, resized to :data:`CROP_W` x :data:`CROP_H`, and names its card face
(or ``NONE``: not an index at all, which throws out false detections).

Crops come from zone pictures at :data:`vision.table.ZONE_PX` (640 px wide),
where an index is ~35 px tall.  Train (needs the ``train`` extra)::

    # crops of every labelled index, plus every box the detector finds
    python -m vision.index_classifier data/crops640 --scenes 3000 --seed 1 --detector models/cards-yolo11n.onnx
    python -m vision.index_classifier data/crops640 --scenes 500 --seed 9 --detector models/cards-yolo11n.onnx
    python -m vision.index_classifier data/crops640 --train --epochs 10 --to models/
    # more epochs later, from the shipped weights:
    python -m vision.index_classifier data/crops640 --train --epochs 4 --init models/index-classifier.pt --max-lr 1e-3

The last ``crops_*.npz`` (by name) is the validation set.

At run time :class:`IndexClassifier` runs the exported ONNX on ONNX Runtime.

>>> clf = IndexClassifier()                                        # doctest: +SKIP
>>> clf.classify(zone_image, [(10, 12, 22, 38)])                    # doctest: +SKIP
[('S5', 0.998)]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.classes import CARD_NAMES
from vision.runtime import cpu_session

CROP_W, CROP_H = 32, 48
LABELS = CARD_NAMES + ("NONE",)
NONE = len(CARD_NAMES)
DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "index-classifier.onnx"
MARGIN = 0.15          # crops take this share of the box's size around it
JOKERS = (CARD_NAMES.index("BJ"), CARD_NAMES.index("LJ"))


def crop(image: np.ndarray, box, margin: float = MARGIN) -> np.ndarray:
    """The box with a margin, resized to the classifier's input (BGR uint8)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    x0, x1 = x0 - margin * w, x1 + margin * w
    y0, y1 = y0 - margin * h, y1 + margin * h
    src = np.float32([[x0, y0], [x1, y0], [x0, y1]])
    dst = np.float32([[0, 0], [CROP_W, 0], [0, CROP_H]])
    M = cv2.getAffineTransform(src, dst)
    return cv2.warpAffine(image, M, (CROP_W, CROP_H), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)


def _to_blob(crops: list[np.ndarray]) -> np.ndarray:
    x = np.stack(crops).astype(np.float32) / 255.0
    return np.ascontiguousarray(x[:, :, :, ::-1].transpose(0, 3, 1, 2))   # RGB, NCHW


class IndexClassifier:
    """The exported classifier on ONNX Runtime."""

    def __init__(self, model: str | Path | None = None, threads: int = 2):
        path = Path(model or os.environ.get("GUANDAN_INDEX_MODEL") or DEFAULT_MODEL)
        if not path.exists():
            raise FileNotFoundError(f"index classifier not found: {path}")
        self.session = cpu_session(path, threads)
        self.input_name = self.session.get_inputs()[0].name
        self.model_path = path

    def _probabilities(self, crops: list[np.ndarray]) -> np.ndarray:
        """Each crop's probability of each label in :data:`LABELS` (N x 55)."""
        if not crops:
            return np.zeros((0, len(LABELS)), np.float32)
        logits = self.session.run(None, {self.input_name: _to_blob(crops)})[0]
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def ranked_many(self, pictures: list[tuple[np.ndarray, list]], top: int = 4) -> list[list[list[tuple[str, float]]]]:
        """:meth:`ranked` for several (image, boxes) at once, in one model run."""
        p = self._probabilities([crop(image, b) for image, boxes in pictures for b in boxes])
        order = np.argsort(-p, axis=1)[:, :top]
        flat = [[(LABELS[int(k)], float(p[n, k])) for k in row] for n, row in enumerate(order)]
        out, at = [], 0
        for _, boxes in pictures:
            out.append(flat[at:at + len(boxes)])
            at += len(boxes)
        return out

    def classify(self, image: np.ndarray, boxes) -> list[tuple[str, float]]:
        """(label, probability) for each box; label ``NONE`` for a non-index."""
        return [r[0] for r in self.ranked(image, boxes, top=1)]

    def ranked(self, image: np.ndarray, boxes, top: int = 4) -> list[list[tuple[str, float]]]:
        """The ``top`` likeliest (label, probability) for each box, best first."""
        return self.ranked_many([(image, list(boxes))], top)[0]


# -- data and training (PyTorch; the `train` extra) ----------------------------

def ink_box(image: np.ndarray, box, tighter: float = 0.85) -> tuple[float, float, float, float] | None:
    """The box around the ink inside ``box`` (whatever is far from the card
    stock, the brightest colour there), or None when that is not clearly
    tighter (both sides over ``tighter`` of the box's).

    A joker's corner mark is often a round picture, shorter than a rank
    index: a detector may box just the mark, and the classifier must still
    read it as a joker.

    >>> img = np.full((60, 40, 3), 250, np.uint8); img[10:22, 10:22] = (30, 30, 200)
    >>> ink_box(img, (8, 8, 24, 40))
    (10.0, 10.0, 22.0, 22.0)
    """
    h, w = image.shape[:2]
    x0, y0 = max(0, int(box[0])), max(0, int(box[1]))
    x1, y1 = min(w, int(np.ceil(box[2]))), min(h, int(np.ceil(box[3])))
    patch = image[y0:y1, x0:x1].astype(np.int16)
    if patch.size == 0:
        return None
    grey = patch.sum(axis=2)
    paper = np.median(patch[grey >= np.percentile(grey, 75)], axis=0)
    ys, xs = np.nonzero(np.abs(patch - paper).max(axis=2) > 60)
    if len(xs) < 4:
        return None
    ib = (float(x0 + xs.min()), float(y0 + ys.min()), float(x0 + xs.max() + 1), float(y0 + ys.max() + 1))
    if ib[2] - ib[0] > tighter * (x1 - x0) and ib[3] - ib[1] > tighter * (y1 - y0):
        return None
    return ib


def _jittered(box, sx: float, sy: float, rng: np.random.Generator) -> tuple[float, float, float, float]:
    """``box`` with each edge moved at random (sd ``sx`` across, ``sy`` down), as a detector's box is off."""
    j = rng.normal(0, 1, 4) * np.array([sx, sy, sx, sy])
    return box[0] + j[0], box[1] + j[1], box[2] + j[2], box[3] + j[3]


def _intersections(box, boxes: np.ndarray) -> np.ndarray:
    """The area ``box`` shares with each of ``boxes`` (N x 4)."""
    ix = np.clip(np.minimum(box[2], boxes[:, 2]) - np.maximum(box[0], boxes[:, 0]), 0, None)
    iy = np.clip(np.minimum(box[3], boxes[:, 3]) - np.maximum(box[1], boxes[:, 1]), 0, None)
    return ix * iy


def _iou(box, boxes: np.ndarray) -> np.ndarray:
    """Intersection over union of one box with each of ``boxes`` (N x 4)."""
    if len(boxes) == 0:
        return np.zeros(0)
    inter = _intersections(box, boxes)
    area = (box[2] - box[0]) * (box[3] - box[1])
    return inter / (area + (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]) - inter)


def make_crops(out: Path, scenes: int, seed: int, detector: Path | None = None,
               joker_scenes: float = 0.0, joker_designs: float = 0.0, ink_weight: float = 0.0,
               tight_jokers: bool = False, index_designs: float = 0.0, body_negatives: int = 0) -> None:
    """Crops of every labelled index (boxes jittered like a detector's) plus
    non-index crops of cloth, card faces and hands; saved as one .npz.

    With ``detector`` (an ONNX card detector), every box it finds is cropped
    too: named after the index it covers, or ``NONE`` when it covers none
    (its false alarms on pips and faces are the negatives that matter).
    ``tight_jokers``: a joker's index is also cropped tight around its ink
    (:func:`ink_box`).  ``body_negatives``: this many more non-index crops a
    scene, drawn within the row of cards (pips and pictures of unseen decks
    must not read as jokers).
    ``joker_scenes``, ``joker_designs``, ``ink_weight`` and ``index_designs``: see :class:`vision.synth.SceneGenerator`
    (jokers are rare in ordinary plays, and a dozen decks' jokers teach a
    dozen pictures rather than the big/little colour rule).
    """
    from vision.card_art import TRAIN_DECKS, load_decks
    from vision.synth import SceneGenerator

    gen = SceneGenerator(load_decks(TRAIN_DECKS), joker_scenes=joker_scenes, joker_designs=joker_designs,
                         ink_weight=ink_weight, index_designs=index_designs)
    finder = None
    if detector is not None:
        from vision.detector import CardDetector

        finder = CardDetector(detector, classifier=False, threads=1)
    xs, ys = [], []
    for i in range(scenes):
        rng = np.random.default_rng([seed, 77, i])
        scene = gen.random_scene(rng)
        img = scene.image
        h, w = img.shape[:2]
        sizes = []
        for c, x0, y0, x1, y1 in scene.labels:
            if c >= NONE:
                continue
            bw, bh = x1 - x0, y1 - y0
            sizes.append((bw, bh))
            for _ in range(1 if finder else 2):
                xs.append(crop(img, _jittered((x0, y0, x1, y1), 0.1 * bw, 0.1 * bh, rng)))
                ys.append(c)
            if tight_jokers and c in JOKERS:
                ib = ink_box(img, (x0, y0, x1, y1))
                if ib is not None:          # the mark alone, as a detector may box it
                    xs.append(crop(img, _jittered(ib, 0.05 * bw, 0.05 * bh, rng)))
                    ys.append(c)
        boxes = np.array([l[1:] for l in scene.labels if l[0] < NONE]).reshape(-1, 4)
        classes = [l[0] for l in scene.labels if l[0] < NONE]
        if finder is not None:
            for d in finder.find_boxes(img):
                if d.name == "HAND":
                    continue
                ious = _iou(np.array(d.box), boxes)
                best = int(ious.argmax()) if len(ious) else -1
                if best >= 0 and ious[best] >= 0.5:
                    xs.append(crop(img, d.box))
                    ys.append(classes[best])
                elif best < 0 or ious[best] < 0.2:
                    xs.append(crop(img, d.box))
                    ys.append(NONE)
        # negatives: random boxes of an index's size that miss every index,
        # anywhere (mostly cloth), and on the cards' bodies (pips, pictures)
        bw, bh = np.median(sizes, axis=0) if sizes else (0.037 * w, 0.083 * h)
        areas = [((0.0, 0.0, float(w), float(h)), 3)]
        if body_negatives and len(boxes):     # the row's extent: the indices' span and an index's size around it
            areas.append(((max(0.0, boxes[:, 0].min() - bw), max(0.0, boxes[:, 1].min() - bh),
                           min(float(w), boxes[:, 2].max() + bw), min(float(h), boxes[:, 3].max() + bh)),
                          body_negatives))
        for (ax0, ay0, ax1, ay1), count in areas:
            for _ in range(count):
                sc = rng.uniform(0.7, 1.4)
                x0 = rng.uniform(ax0, max(ax0, ax1 - bw * sc))
                y0 = rng.uniform(ay0, max(ay0, ay1 - bh * sc))
                b = np.array([x0, y0, x0 + bw * sc, y0 + bh * sc])
                if len(boxes) and (_intersections(b, boxes) / ((b[2] - b[0]) * (b[3] - b[1]))).max() > 0.25:
                    continue
                xs.append(crop(img, b))
                ys.append(NONE)
        if (i + 1) % 500 == 0:
            print(f"{i + 1}/{scenes} scenes, {len(xs)} crops", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out / f"crops_{seed}.npz", x=np.stack(xs), y=np.array(ys, np.int64))
    print(f"{len(xs)} crops -> {out / f'crops_{seed}.npz'}")


def build_model():
    import torch.nn as nn

    def block(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    return nn.Sequential(
        *block(3, 32), *block(32, 32), nn.MaxPool2d(2),           # 24 x 16
        *block(32, 64), *block(64, 64), nn.MaxPool2d(2),          # 12 x 8
        *block(64, 128), *block(128, 128), nn.MaxPool2d(2),       # 6 x 4
        nn.Flatten(), nn.Dropout(0.2), nn.Linear(128 * 6 * 4, 256), nn.ReLU(inplace=True),
        nn.Linear(256, len(LABELS)),
    )


def reshape_batch(xb, turn: float = 0.12, shear: float = 0.15, scale: float = 0.1, shift: float = 0.06):
    """Each crop of a training batch (N x 3 x H x W, 0..1) turned, sheared,
    scaled and shifted a little, each its own way.

    Unseen decks draw their indices in other fonts, slanted, narrower or
    wider; the crops of ~20 decks alone taught those decks' shapes.  The
    limits are fractions of the crop (``shift``), radians (``turn``) and
    plain factors.
    """
    import torch
    import torch.nn.functional as F

    n = len(xb)

    def u(lim):
        return torch.empty(n).uniform_(-lim, lim)

    a, s = u(turn), 1 + u(scale)
    theta = torch.stack([torch.stack([s * torch.cos(a), -s * torch.sin(a) + u(shear), u(shift)], 1),
                         torch.stack([s * torch.sin(a), s * torch.cos(a), u(shift)], 1)], 1)
    grid = F.affine_grid(theta, list(xb.shape), align_corners=False)
    return F.grid_sample(xb, grid, padding_mode="border", align_corners=False)


def train(data_dir: Path, epochs: int, to: Path, batch: int = 256, threads: int = 2,
          init: Path | None = None, max_lr: float = 3e-3, reshape: bool = False) -> Path:
    """Train on every crops_*.npz in ``data_dir`` (the last file held out for validation).

    ``init`` continues from saved weights (an ``index-classifier.pt``);
    ``reshape``: each batch's crops also turned, sheared and scaled a little
    (:func:`reshape_batch`).
    """
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    torch.set_num_threads(threads)
    files = sorted(data_dir.glob("crops_*.npz"))
    if len(files) < 2:
        raise FileNotFoundError(f"need two or more crops_*.npz in {data_dir} (the last is validation)")
    tr = [np.load(f) for f in files[:-1]]
    x = np.concatenate([d["x"] for d in tr])
    y = np.concatenate([d["y"] for d in tr])
    va = np.load(files[-1])
    xt = torch.from_numpy(_to_blob(list(x)))
    yt = torch.from_numpy(y)
    xv, yv = torch.from_numpy(_to_blob(list(va["x"]))), torch.from_numpy(va["y"])
    model = build_model()
    if init is not None:
        model.load_state_dict(torch.load(init, map_location="cpu"))
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=1e-4)
    steps = epochs * ((len(xt) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps)
    best_acc, onnx_path = -1.0, to / "index-classifier.onnx"
    for ep in range(epochs):
        model.train()
        perm = torch.randperm(len(xt))
        for k in range(0, len(xt), batch):
            idx = perm[k:k + batch]
            xb = xt[idx]
            # light photometric jitter per batch: gain and offset
            xb = (xb * torch.empty(len(xb), 1, 1, 1).uniform_(0.7, 1.3)
                  + torch.empty(len(xb), 3, 1, 1).uniform_(-0.08, 0.08)).clamp(0, 1)
            if reshape:
                xb = reshape_batch(xb)
            loss = F.cross_entropy(model(xb), yt[idx], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        model.eval()
        with torch.no_grad():
            pred = torch.cat([model(xv[k:k + 1024]).argmax(1) for k in range(0, len(xv), 1024)])
        acc = float((pred == yv).float().mean())
        print(f"epoch {ep + 1}/{epochs} loss {loss.item():.3f} val accuracy {acc:.4f}", flush=True)
        if acc > best_acc:      # saved as it improves: an interrupted run keeps its best
            best_acc = acc
            onnx_path = _save(model, to)
    print(f"best val accuracy {best_acc:.4f} -> {onnx_path}")
    return onnx_path


def _save(model, to: Path) -> Path:
    """Write ``to/index-classifier.pt`` and the ONNX export beside it."""
    import torch

    to.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), to / "index-classifier.pt")
    onnx_path = to / "index-classifier.onnx"
    torch.onnx.export(model, torch.zeros(1, 3, CROP_H, CROP_W), str(onnx_path), input_names=["crops"],
                      output_names=["logits"], dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
                      opset_version=17, dynamo=False)
    model.train()
    return onnx_path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.index_classifier", description=__doc__.split("\n")[0])
    ap.add_argument("data", type=Path, help="folder of crops_*.npz (kept out of git, e.g. data/crops)")
    ap.add_argument("--scenes", type=int, default=0, help="make crops from this many scenes")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--detector", type=Path, help="also crop every box this ONNX detector finds")
    ap.add_argument("--joker-scenes", type=float, default=0.0,
                    help="share of scenes holding jokers on purpose (e.g. 0.15)")
    ap.add_argument("--joker-designs", type=float, default=0.0,
                    help="share of joker scenes drawing jokers in new designs (e.g. 0.6)")
    ap.add_argument("--ink-weight", type=float, default=0.0,
                    help="share of scenes whose cards are printed heavier or lighter (e.g. 0.5)")
    ap.add_argument("--index-designs", type=float, default=0.0,
                    help="share of scenes printing the indices in a new type face and pip shape (e.g. 0.5)")
    ap.add_argument("--body-negatives", type=int, default=0,
                    help="non-index crops a scene drawn on the cards' bodies (e.g. 4)")
    ap.add_argument("--tight-jokers", action="store_true",
                    help="also crop each joker index tight around its mark, as a detector may box it")
    ap.add_argument("--train", action="store_true")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--to", type=Path, default=Path("models"))
    ap.add_argument("--init", type=Path, help="continue from these weights (index-classifier.pt)")
    ap.add_argument("--max-lr", type=float, default=3e-3)
    ap.add_argument("--reshape", action="store_true",
                    help="turn, shear and scale each training crop a little (fonts of unseen decks)")
    args = ap.parse_args(argv)
    if args.scenes:
        make_crops(args.data, args.scenes, args.seed, args.detector, args.joker_scenes, args.joker_designs,
                   args.ink_weight, args.tight_jokers, args.index_designs, args.body_negatives)
    if args.train:
        try:
            train(args.data, args.epochs, args.to, init=args.init, max_lr=args.max_lr, reshape=args.reshape)
        except FileNotFoundError as exc:
            print(exc, file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
