"""Make the hand model: crops of the boxes the detector takes for hands, then training.

What runs at a table is :mod:`vision.reading.hand_model`: it judges each
hand box the card detector proposes.  Its data are the detector's own
proposals (score 0.05 or more, as :meth:`vision.reading.detector.CardDetector.find_boxes_many`
finds them on zone pictures with their margin), each named by what it
covers, plus the true hands' boxes a little jittered:

- real hands: a random zone-shaped window of each training photograph of
  :func:`vision.training.real_photos.hand_photos`; a box on a labelled hand
  is a hand.  Boxes elsewhere in those photographs are left out (the
  labels box the hand, not the arm).
- real tables without a hand: windows of the ``tables`` and ``edje``
  training photographs (wood, white tables, coloured paper, green cloth,
  carpet, real cards): every box is not a hand.
- generated scenes (:class:`vision.training.synth.SceneGenerator`, the
  training decks and cloths, and the ``tables`` photographs as the
  surface under the cards), half of them with the generator's drawn hand.

Never the validation or test photographs, nor the ``overhead`` set, nor the
surfaces :mod:`vision.training.real_surfaces` holds back for measuring.
Training turns each crop a quarter turn at random and gives half of them
swapped colours, a turned hue or grey (:func:`augment`): judged by shape,
not skin colour, the model misses far fewer arms seen from above
(models/MODEL_CARD.md, "Hands on real photographs").  Train (needs
the ``train`` extra)::

    python -m vision.training.hand_model data/hands.npz --build REAL_ROOT --scenes 2500 --seed 1
    python -m vision.training.hand_model data/hands.npz --train --epochs 30 --to models/

``REAL_ROOT`` is the folder :mod:`vision.training.real_photos` says how to build.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.reading.hand_model import INPUT, crop, to_blob
from vision.reading.table import ZONE_PX
from vision.training.real_photos import (RPS_GESTURES, card_photos, cut, green_cloth_photos, hand_photos, in_window,
                                         off_green_box, table_photos, zone_view, zone_window)

MARGIN = 32     # the zone pictures' margin at 640 px (vision.reading.table.ZONE_MARGIN_MM)
PROPOSALS = 0.05


def _read(path: Path) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise OSError(f"cannot read {path}")
    return img


def _covers(box: tuple[float, ...], truth: tuple[float, ...]) -> float:
    """The share of ``box`` that lies in ``truth``."""
    iw = min(box[2], truth[2]) - max(box[0], truth[0])
    ih = min(box[3], truth[3]) - max(box[1], truth[1])
    area = max(1e-6, (box[2] - box[0]) * (box[3] - box[1]))
    return max(0.0, iw) * max(0.0, ih) / area if iw > 0 and ih > 0 else 0.0


def _jittered(box: tuple[float, ...], rng: np.random.Generator) -> tuple[float, ...]:
    w, h = box[2] - box[0], box[3] - box[1]
    dx, dy = rng.normal(0, 0.1, 2) * (w, h)
    sw, sh = np.exp(rng.normal(0, 0.12, 2))
    cx, cy = (box[0] + box[2]) / 2 + dx, (box[1] + box[3]) / 2 + dy
    return (cx - w * sw / 2, cy - h * sh / 2, cx + w * sw / 2, cy + h * sh / 2)


class _Crops:
    """Crops, labels and where each came from, gathered picture by picture."""

    def __init__(self, det) -> None:
        self.det = det
        self.x: list[np.ndarray] = []
        self.y: list[int] = []
        self.src: list[str] = []

    def add(self, pictures: list[tuple[np.ndarray, list[tuple[float, ...]], bool, str]],
            rng: np.random.Generator) -> None:
        """``pictures``: (zone picture with its margin, true hand boxes, whether
        boxes off the hands are surely no hand, source)."""
        founds = self.det.find_boxes_many([p for p, _, _, _ in pictures], self.det.imgsz / max(ZONE_PX))
        for (img, truths, sure, src), found in zip(pictures, founds):
            for d in found:
                if d.name != "HAND":
                    continue
                on_hand = any(_covers(d.box, t) >= 0.5 for t in truths)
                if on_hand or sure:
                    self._one(img, d.box, int(on_hand), src)
            for t in truths:
                self._one(img, _jittered(t, rng), 1, src)

    def _one(self, img: np.ndarray, box: tuple[float, ...], label: int, src: str) -> None:
        self.x.append(crop(img, box))
        self.y.append(label)
        self.src.append(src)


def real_crops(crops: _Crops, root: Path, rng: np.random.Generator, negative_windows: int = 2) -> None:
    """Crops from the real training photographs (``negative_windows`` random
    windows of each photograph without a hand), saying how far it got."""
    photos = ([(p, "hands", False) for p in hand_photos(root, "train")]
              + [(p, "tables", True) for p in table_photos(root, "train")] * negative_windows
              + [(p, "edje", True) for p in card_photos(root, "train")] * negative_windows)
    _window_crops(crops, photos, rng, "real", lambda p, img: p.hands)


def green_cloth_crops(crops: _Crops, root: Path, rng: np.random.Generator, windows: int = 2) -> None:
    """Crops from the ``rps`` training photographs (hands seen from above a
    green cloth; never its held-out third): ``windows`` random windows of
    each, the hand boxed by :func:`vision.training.real_photos.off_green_box`.
    As in the other hand photographs, boxes off the hand are left out."""
    photos = [(p, "rps", False) for g in RPS_GESTURES for p in green_cloth_photos(root, g, "train")] * windows
    def hand(p, img):
        box = off_green_box(img)
        return None if box is None else (box,)
    _window_crops(crops, photos, rng, "green cloth", hand)


def _window_crops(crops: _Crops, photos: list, rng: np.random.Generator, what: str, boxes) -> None:
    """A random zone-shaped window of each (photograph, source, whether boxes
    off its hands are surely no hand), cropped 32 photographs at a time,
    saying how far it got.  ``boxes(photo, image)``: its hands' boxes, or
    ``None`` to leave it out.  (In a hand photograph, boxes off the labelled
    hand may be on its arm: not sure.)"""
    t0 = time.time()
    for start in range(0, len(photos), 32):
        batch = []
        for p, src, sure in photos[start:start + 32]:
            img = _read(p.path)
            found = boxes(p, img)
            if found is None:
                continue
            window = zone_window(img.shape, rng)
            hands = [(x0 + MARGIN, y0 + MARGIN, x1 + MARGIN, y1 + MARGIN) for x0, y0, x1, y1 in in_window(found, window)]
            batch.append((cut(img, window, margin=MARGIN), hands, sure, src))
        crops.add(batch, rng)
        print(f"{what}: {min(start + 32, len(photos))}/{len(photos)} photographs, {len(crops.y)} crops, "
              f"{time.time() - t0:.0f} s", file=sys.stderr)


def generated_crops(crops: _Crops, root: Path, scenes: int, rng: np.random.Generator,
                    hand_rate: float = 0.5, real_surface: float = 0.3) -> None:
    """Crops from generated scenes (with a margin), a share of them laid on a
    real table photograph instead of generated cloth."""
    from vision.reading.classes import HAND_CLASS
    from vision.training.card_art import TRAIN_DECKS, load_decks
    from vision.training.synth import SceneGenerator, play_for_deck

    gen = SceneGenerator(load_decks(TRAIN_DECKS), hand_rate=hand_rate, joker_scenes=0.1, joker_designs=0.5)
    surfaces = [p.path for p in table_photos(root, "train")]
    W, H = ZONE_PX[0] + 2 * MARGIN, ZONE_PX[1] + 2 * MARGIN
    t0 = time.time()
    for start in range(0, scenes, 32):
        batch = []
        for _ in range(min(32, scenes - start)):
            deck = gen.decks[int(rng.integers(len(gen.decks)))]
            cards = play_for_deck(rng, deck) if rng.random() > 0.1 else []
            bg = None
            if surfaces and rng.random() < real_surface:
                bg, _ = zone_view(_read(surfaces[int(rng.integers(len(surfaces)))]), (), rng, size=(W, H))
            scene = gen.render(cards, rng, deck=deck, hand=rng.random() < hand_rate, margin=MARGIN, background=bg)
            hands = [tuple(lab[1:]) for lab in scene.labels if lab[0] == HAND_CLASS]
            batch.append((scene.image, hands, True, "generated"))
        crops.add(batch, rng)
        print(f"generated: {min(start + 32, scenes)}/{scenes} scenes, {len(crops.y)} crops, "
              f"{time.time() - t0:.0f} s", file=sys.stderr)


def build(out: Path, root: Path, scenes: int, seed: int, detector: Path | None = None,
          negative_windows: int = 2, green_cloth: bool = False) -> None:
    """Write the training crops to ``out`` (an ``.npz``); ``green_cloth``: also
    the ``rps`` training photographs' hands (tried, not shipped: the model
    learnt that set's look and lost arms and hands elsewhere; models/MODEL_CARD.md)."""
    from vision.reading.detector import CardDetector

    rng = np.random.default_rng(seed)
    det = CardDetector(detector, classifier=False, hand_model=False, hand_conf=PROPOSALS)
    crops = _Crops(det)
    real_crops(crops, root, rng, negative_windows)
    generated_crops(crops, root, scenes, rng)
    if green_cloth:
        # a stream of its own: the crops before these stay as the shipped recipe makes them
        green_cloth_crops(crops, root, np.random.default_rng([seed, 7]))
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, x=np.stack(crops.x), y=np.array(crops.y, np.uint8), source=np.array(crops.src))
    print(f"wrote {out}: {len(crops.y)} crops, {sum(crops.y)} of hands", file=sys.stderr)


def build_model():
    """The network: five strided conv blocks, global pooling, one logit."""
    import torch.nn as nn

    def block(cin, cout, stride):
        return [nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    return nn.Sequential(*block(3, 16, 2), *block(16, 32, 2), *block(32, 64, 2), *block(64, 64, 1),
                         *block(64, 128, 2), *block(128, 128, 1),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(128, 1))


def augment(batch: np.ndarray, rng: np.random.Generator, colour_free: bool = False) -> np.ndarray:
    """Flips (a hand comes from any seat), light colour (warm, cold, dim, bright),
    a shadow band, blur and sensor noise: each picture its own way.

    ``colour_free``: also quarter turns (an arm reaches in from any side of an
    overhead picture) and, for half the pictures, colours swapped, hue turned
    or grey, so that a hand is judged by its shape, not its skin (gloves,
    skin tones, coloured light)."""
    out = batch.astype(np.float32)
    n, h, w = out.shape[:3]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for i in range(n):
        if rng.random() < 0.5:
            out[i] = out[i, :, ::-1]
        if rng.random() < 0.5:
            out[i] = out[i, ::-1]
        if colour_free:
            if h == w:
                out[i] = np.rot90(out[i], int(rng.integers(4)))
            kind = rng.integers(6)
            if kind == 0:
                out[i] = out[i][:, :, rng.permutation(3)]
            elif kind == 1:
                hsv = cv2.cvtColor(out[i].astype(np.uint8), cv2.COLOR_BGR2HSV)
                hsv[:, :, 0] = (hsv[:, :, 0].astype(np.int32) + int(rng.integers(20, 160))) % 180
                out[i] = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR).astype(np.float32)
            elif kind == 2:
                out[i] = out[i].mean(axis=2, keepdims=True)
        out[i] *= rng.uniform(0.8, 1.2, 3).astype(np.float32) * np.float32(rng.uniform(0.5, 1.25))
        if rng.random() < 0.25:
            a = rng.uniform(0, np.pi)
            d = (xx - w / 2) * np.cos(a) + (yy - h / 2) * np.sin(a) - rng.uniform(-0.3, 0.3) * h
            out[i] *= (1 - rng.uniform(0.3, 0.6) * (np.abs(d) < rng.uniform(0.08, 0.25) * h))[:, :, None]
        if rng.random() < 0.3:
            out[i] = cv2.GaussianBlur(out[i], (0, 0), rng.uniform(0.5, 1.5))
        out[i] += rng.normal(0, rng.uniform(0, 6), out[i].shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def train(data: Path, epochs: int, to: Path, seed: int = 0, max_lr: float = 3e-3, colour_free: bool = True) -> None:
    """Train on ``data`` (a tenth held back, by picture, to watch), export ONNX and .pt to ``to``."""
    import torch

    torch.manual_seed(seed)
    # one thread: on a shared 2-core machine two threads spent most of their time waiting on each other
    torch.set_num_threads(1)
    rng = np.random.default_rng(seed)
    d = np.load(data)
    x, y, src = d["x"], d["y"].astype(np.float32), d["source"]
    order = rng.permutation(len(x))
    val, tr = order[:len(x) // 10], order[len(x) // 10:]
    model = build_model()
    # real and generated, hands and not, weigh a quarter each
    group = (src == "generated").astype(int) * 2 + (y >= 0.5).astype(int)
    counts = np.bincount(group, minlength=4)
    weight = (len(x) / 4 / np.maximum(1, counts[group])).astype(np.float32)
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr / 10, weight_decay=1e-4)
    batch = 64
    steps = epochs * (len(tr) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps)
    loss_fn = torch.nn.BCEWithLogitsLoss(reduction="none")
    for epoch in range(epochs):
        model.train()
        t0 = time.time()
        perm = rng.permutation(tr)
        total = 0.0
        for k in range(len(tr) // batch):
            idx = perm[k * batch:(k + 1) * batch]
            xb = torch.from_numpy(to_blob(list(augment(x[idx], rng, colour_free))))
            logit = model(xb).squeeze(1)
            loss = (loss_fn(logit, torch.from_numpy(y[idx])) * torch.from_numpy(weight[idx])).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
        model.eval()
        with torch.no_grad():
            p = np.concatenate([torch.sigmoid(model(torch.from_numpy(to_blob(list(x[val[i:i + 256]]))))).numpy().ravel()
                                for i in range(0, len(val), 256)])
        wrong = (p >= 0.5) != (y[val] >= 0.5)
        by = {str(s): f"{int(wrong[src[val] == s].sum())}/{int((src[val] == s).sum())}" for s in sorted(set(src[val]))}
        print(f"epoch {epoch + 1}/{epochs}: loss {total / max(1, len(tr) // batch):.4f}, "
              f"held-back wrong {int(wrong.sum())}/{len(val)} {by}, {time.time() - t0:.0f} s", file=sys.stderr)
    export(model, to)


def export(model, to: Path) -> None:
    import torch

    to.mkdir(parents=True, exist_ok=True)
    model.eval()
    torch.save(model.state_dict(), to / "hand-classifier.pt")
    torch.onnx.export(model, torch.zeros(1, 3, INPUT, INPUT), str(to / "hand-classifier.onnx"),
                      input_names=["zones"], output_names=["logit"],
                      dynamic_axes={"zones": {0: "n"}, "logit": {0: "n"}}, opset_version=17, dynamo=False)
    print(f"wrote {to / 'hand-classifier.onnx'}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.training.hand_model", description=__doc__.split("\n")[0])
    ap.add_argument("data", type=Path, help="the .npz of training pictures (kept out of git, e.g. data/hands.npz)")
    ap.add_argument("--build", type=Path, metavar="REAL_ROOT", help="make the pictures from this folder of real photographs")
    ap.add_argument("--scenes", type=int, default=2500, help="generated scenes to add (default 2500)")
    ap.add_argument("--detector", type=Path, default=None, help="the detector whose hand boxes to crop (default: the shipped one)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--negative-windows", type=int, default=2,
                    help="random windows of each training photograph without a hand (default 2)")
    ap.add_argument("--green-cloth", action="store_true",
                    help="also crops of the rps set's training hands (tried, not shipped; see the model card)")
    ap.add_argument("--train", action="store_true")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--max-lr", type=float, default=3e-3)
    ap.add_argument("--to", type=Path, default=Path("models"))
    ap.add_argument("--plain-colours", action="store_true",
                    help="no quarter turns and no colours swapped, hue turned or grey (the first model's training)")
    args = ap.parse_args(argv)
    if args.build:
        build(args.data, args.build, args.scenes, args.seed, args.detector, args.negative_windows, args.green_cloth)
    if args.train:
        train(args.data, args.epochs, args.to, args.seed, args.max_lr, not args.plain_colours)
    if not (args.build or args.train):
        ap.error("nothing to do: give --build REAL_ROOT and/or --train")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
