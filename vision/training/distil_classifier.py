"""A narrower index classifier taught by the shipped one (distillation).

The shipped classifier (:func:`vision.training.index_classifier.build_model`
at width 32) costs about 58 million multiply-adds a crop; a table reads some
40 crops a frame, and on a CPU without 8-bit dot products that is a fifth of
the frame.  Half as wide it costs a quarter.  It learns to give the shipped
classifier's probabilities (its "teacher") on crops of every kind the reader
cuts, so what that one learnt from real photographs and half-covered
indices carries over without those photographs' original training run:

- ``crops_*.npz`` (:func:`vision.training.classifier_data.make_crops`): crops
  with a label each (``y``);
- ``covered_*.npz``, ``sideways_*.npz`` and the real photographs' crops
  (:mod:`vision.training.real_crops`): crops with a set of allowed labels
  (``allowed``);
- crops recorded while the shipped reader read generated plays
  (:func:`record_scenes`: rows, rows turned up to 45 degrees, tight fans,
  fans, cards pushed in crooked, joker plays, a fifth of them printed with
  four corners, and plain scenes with hands; the training decks and
  cloths) or the phone set's training photographs
  (:func:`record_phone`): ``x`` alone, the turned, quarter-turned and edge
  crops exactly as a table cuts them.

The loss is the teacher's softened probabilities (temperature ``T``) plus,
where a crop has a label or a set, a share of the ordinary loss.  One crop
in twenty (drawn once, seeded) is held out: each epoch prints how often the
student names it as the teacher does, how often it reads a joker the teacher
does not, and the labelled crops' accuracy.

Needs the ``train`` extra::

    python -m vision.training.distil_classifier record --scenes 2000 --seed 2201 data/rec_2201.npz
    python -m vision.training.distil_classifier record --phone PHONE_DIR data/rec_phone.npz
    python -m vision.training.distil_classifier train data/crops data/covered data/rec_2201.npz \\
        data/rec_phone.npz --width 16 --epochs 8 --to runs/clf-w16
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from vision.reading.index_classifier import CROP_H, CROP_W, FLOAT_MODEL, LABELS, IndexClassifier, softmax, to_blob
from vision.training.classifier_data import JOKER_IDS
from vision.training.real_piles import RealPilesError


class DistilError(ValueError):
    """Bad input to distillation: no crops, a file of another shape."""


@contextmanager
def recording(into: list) -> Iterator[list]:
    """Every crop any :class:`IndexClassifier` is asked about while inside
    is appended to ``into`` (the reader asks through
    :meth:`IndexClassifier.probabilities` alone)."""
    original = IndexClassifier.probabilities

    def probabilities(self, crops):
        into.extend(crops)
        return original(self, crops)

    IndexClassifier.probabilities = probabilities     # type: ignore[method-assign]
    try:
        yield into
    finally:
        IndexClassifier.probabilities = original      # type: ignore[method-assign]


def _save_recorded(crops: list, out: Path) -> int:
    if not crops:
        raise DistilError("the reader asked about no crops: nothing to save")
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, x=np.stack(crops).astype(np.uint8))
    return len(crops)


def record_scenes(scenes: int, seed: int, out: Path, progress: Callable[[int, int, int], None] | None = None) -> int:
    """Read ``scenes`` generated plays with the shipped reader, each kind in
    turn (rows, rows turned up to 45 degrees, tight fans, fans, crooked
    cards, joker plays, crooked again, a scene with hands), a fifth printed
    with four corners, on the training decks and cloths; save every crop it
    cut as ``out`` (``x``); returns how many.  Scene ``i`` is drawn from
    ``[seed, i]``."""
    from vision.reading.detector import CardDetector
    from vision.reading.table import ZONE_MARGIN_MM, ZONE_PX, Zone
    from vision.training.card_art import TRAIN_DECKS, four_corner_deck, load_decks
    from vision.training.synth import MULTI_CARD_KINDS, SceneGenerator, joker_play, play_for_deck

    decks = load_decks(TRAIN_DECKS)
    gen = SceneGenerator(decks, joker_designs=0.6, ink_weight=0.5, index_designs=0.3, outline_prints=0.2)
    det = CardDetector(threads=1)
    margin = Zone.margin_px(ZONE_MARGIN_MM)
    scale = det.imgsz / max(ZONE_PX)
    crops: list = []
    with recording(crops):
        for i in range(scenes):
            rng = np.random.default_rng([seed, i])
            kind = i % 8
            if kind == 7:
                scene = gen.random_scene(rng)
                det.read_zones([scene.image], scale, 0)
            else:
                deck = decks[int(rng.integers(len(decks)))]
                if rng.random() < 0.2:
                    deck = four_corner_deck(deck)
                jokers = kind == 5 and "BJ" in deck.cards
                cards = joker_play(rng) if jokers else play_for_deck(rng, deck, str(rng.choice(MULTI_CARD_KINDS)))
                scene = gen.render(cards, rng, deck=deck, margin=margin, **_laid(kind, cards, deck, rng))
                det.read_zones([scene.image], scale, margin)
            if progress:
                progress(i + 1, scenes, len(crops))
    return _save_recorded(crops, out)


def _laid(kind: int, cards: list[str], deck, rng: np.random.Generator) -> dict:
    """How :func:`record_scenes`' scene of ``kind`` lays its cards (its render options)."""
    if kind == 1:
        return {"turn": float(rng.uniform(0, 45) * rng.choice([-1, 1]))}
    if kind == 2:
        return {"spacing": max(0.17, deck.index_box[2] + 0.03), "turn": float(rng.uniform(-15, 15))}
    if kind in (3, 5) and len(cards) > 1 and rng.random() < 0.6:
        return {"spread": float(rng.uniform(30, 90))}
    if kind in (4, 5, 6) and len(cards) > 1:
        turns = [0.0] * len(cards)
        for k in rng.choice(len(cards), size=min(len(cards), int(rng.integers(1, 3))), replace=False):
            turns[int(k)] = float(rng.uniform(15, 45) * rng.choice([-1, 1]))
        return {"card_turns": turns}
    return {}


def record_phone(folder: Path, out: Path, progress: Callable[[int, int, int], None] | None = None) -> int:
    """Read the phone set's **training** photographs
    (:func:`vision.training.real_piles.phone_photographs`; its valid and
    test photographs are the benchmark's and never recorded) with the
    shipped reader, each whole as one zone; save every crop it cut as
    ``out`` (``x``); returns how many."""
    import cv2

    from vision.reading.detector import CardDetector
    from vision.training.real_piles import phone_photographs, read_as_zone

    det = CardDetector(threads=1)
    photos = phone_photographs(Path(folder), ("train",))
    crops: list = []
    with recording(crops):
        for k, (path, labels) in enumerate(photos):
            img = cv2.imread(str(path))
            if img is None:
                raise DistilError(f"cannot read {path}")
            read_as_zone(det, img, labels)
            if progress:
                progress(k + 1, len(photos), len(crops))
    return _save_recorded(crops, out)


def crop_files(paths: list[Path]) -> list[Path]:
    """Every ``.npz`` named, or found directly in a folder named, sorted by name."""
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out += sorted(p.glob("*.npz"))
        elif p.suffix == ".npz" and p.exists():
            out.append(p)
        else:
            raise DistilError(f"{p}: not a folder or an existing .npz file")
    if not out:
        raise DistilError(f"no .npz crop files in {', '.join(map(str, paths))}")
    return out


def load_crops(files: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    """All crops (N x 48 x 32 x 3, BGR uint8) and each one's allowed labels
    (N x 55, bool; all False where a crop has no label: recorded crops).

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> np.savez(d / "crops_1.npz", x=np.zeros((2, 48, 32, 3), np.uint8), y=np.array([0, 54]))
    >>> np.savez(d / "rec.npz", x=np.zeros((1, 48, 32, 3), np.uint8))
    >>> x, allowed = load_crops(crop_files([d]))
    >>> x.shape, allowed.sum(axis=1).tolist(), int(allowed[1].argmax())
    ((3, 48, 32, 3), [1, 1, 0], 54)
    """
    xs, sets = [], []
    for f in files:
        d = np.load(f)
        if "x" not in d.files:
            raise DistilError(f"{f}: no crops ('x')")
        x = d["x"]
        if x.ndim != 4 or x.shape[1:] != (CROP_H, CROP_W, 3) or x.dtype != np.uint8:
            raise DistilError(f"{f}: crops must be N x {CROP_H} x {CROP_W} x 3 uint8, got {x.shape} {x.dtype}")
        allowed = np.zeros((len(x), len(LABELS)), bool)
        if "y" in d.files:
            allowed[np.arange(len(x)), d["y"]] = True
        elif "allowed" in d.files:
            allowed = d["allowed"].astype(bool)
        xs.append(x)
        sets.append(allowed)
    return np.concatenate(xs), np.concatenate(sets)


def teacher_probabilities(x: np.ndarray, teacher: Path, temperature: float, threads: int = 2,
                          batch: int = 2048) -> np.ndarray:
    """The teacher's probabilities of each crop at ``temperature`` (its logits
    divided by it before the softmax), computed once on ONNX Runtime."""
    clf = IndexClassifier(teacher, threads=threads)
    out = np.zeros((len(x), len(LABELS)), np.float32)
    for k in range(0, len(x), batch):
        logits = clf.session.run([clf.logits_name], {clf.input_name: to_blob(list(x[k:k + batch]))})[0]
        out[k:k + batch] = softmax(logits / temperature)
        if (k // batch) % 20 == 19:
            print(f"teacher: {k + batch}/{len(x)} crops", flush=True)
    return out


def held_out(n: int, share: float = 0.05, seed: int = 0) -> np.ndarray:
    """Which of ``n`` crops are held out (a fixed draw of ``share`` of them)."""
    return np.random.default_rng(seed).random(n) < share


def distil(paths: list[Path], to: Path, width: int = 16, epochs: int = 12, teacher: Path = FLOAT_MODEL,
           temperature: float = 2.0, hard: float = 0.3, batch: int = 256, max_lr: float = 3e-3,
           threads: int = 2, init: Path | None = None, device: str = "cpu") -> Path:
    """Train a classifier ``width`` wide on the crops in ``paths`` to give the
    ``teacher``'s probabilities; the weights the held-out crops agree with the
    teacher on most are saved as ``to/index-classifier.pt`` and ``.onnx``.
    ``device``: where the network trains (``cuda`` on a GPU machine); the
    crops stay in memory there and go over a batch at a time."""
    import torch
    import torch.nn.functional as F

    from vision.training.index_classifier import _save, build_model, partial_label_loss

    if not 0 < temperature <= 10 or not 0 <= hard <= 1 or epochs < 1 or width < 4 or batch < 1:
        raise DistilError("temperature in (0, 10], hard in [0, 1], epochs >= 1, width >= 4, batch >= 1")
    torch.manual_seed(0)
    torch.set_num_threads(threads)
    x, allowed = load_crops(crop_files(paths))
    print(f"{len(x)} crops, {int(allowed.any(1).sum())} with a label or a set", flush=True)
    soft = teacher_probabilities(x, teacher, temperature, threads)
    hold = held_out(len(x))
    teacher_top = soft.argmax(1)
    xt = torch.from_numpy(to_blob(list(x)))
    st, at = torch.from_numpy(soft), torch.from_numpy(allowed)
    train_idx = torch.from_numpy(np.flatnonzero(~hold))
    xv, top_v, allowed_v = xt[torch.from_numpy(np.flatnonzero(hold))], teacher_top[hold], allowed[hold]
    model = build_model(width)
    if init is not None:
        model.load_state_dict(torch.load(init, map_location="cpu"))
    model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=1e-4)
    steps = epochs * ((len(train_idx) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps)
    best, path = -1.0, to / "index-classifier.onnx"
    for ep in range(epochs):
        model.train()
        perm = train_idx[torch.randperm(len(train_idx))]
        for k in range(0, len(perm), batch):
            idx = perm[k:k + batch]
            xb, sb, ab = xt[idx].to(device), st[idx].to(device), at[idx].to(device)
            logits = model(xb)
            loss = F.kl_div(torch.log_softmax(logits / temperature, 1), sb, reduction="batchmean") * temperature ** 2
            labelled = ab.any(1)
            if hard and labelled.any():
                loss = loss + hard * partial_label_loss(logits[labelled], ab[labelled]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        agree, phantom, acc = _held_out_figures(model, xv, top_v, allowed_v, device)
        print(f"epoch {ep + 1}/{epochs} loss {loss.item():.3f} held out: agrees with the teacher {agree:.4f}, "
              f"jokers the teacher does not read {phantom}, labelled crops within their label {acc:.4f}",
              flush=True)
        if agree > best:
            best, path = agree, _save(model.cpu(), to)
            model.to(device)
    print(f"best agreement {best:.4f} -> {path}")
    return path


def _held_out_figures(model, xv, teacher_top: np.ndarray, allowed: np.ndarray,
                      device: str = "cpu") -> tuple[float, int, float]:
    """Agreement with the teacher, jokers it does not read, and the labelled crops' accuracy."""
    import torch

    model.eval()
    with torch.no_grad():
        pred = torch.cat([model(xv[k:k + 2048].to(device)).argmax(1).cpu() for k in range(0, len(xv), 2048)]).numpy()
    model.train()
    phantom = int((np.isin(pred, JOKER_IDS) & ~np.isin(teacher_top, JOKER_IDS)).sum())
    labelled = allowed.any(1)
    acc = float(allowed[np.flatnonzero(labelled), pred[labelled]].mean()) if labelled.any() else float("nan")
    return float((pred == teacher_top).mean()), phantom, acc


def _progress(done: int, total: int, crops: int) -> None:
    if done == total or done % 100 == 0:
        print(f"{done}/{total} read, {crops} crops", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.training.distil_classifier",
                                 description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="save the crops the shipped reader cuts")
    what = rec.add_mutually_exclusive_group(required=True)
    what.add_argument("--scenes", type=int, help="this many generated plays (record_scenes)")
    what.add_argument("--phone", type=Path, help="the phone set's folder: its training photographs (record_phone)")
    rec.add_argument("--seed", type=int, default=1)
    rec.add_argument("out", type=Path, help="the .npz to write")
    tr = sub.add_parser("train", help="teach a narrower classifier the teacher's answers")
    tr.add_argument("crops", type=Path, nargs="+", help="crop files (.npz) or folders of them")
    tr.add_argument("--to", type=Path, required=True, help="folder for index-classifier.pt and .onnx")
    tr.add_argument("--width", type=int, default=16, help="the first layers' channels (the shipped one: 32)")
    tr.add_argument("--epochs", type=int, default=12)
    tr.add_argument("--teacher", type=Path, default=FLOAT_MODEL, help="the ONNX classifier to learn from")
    tr.add_argument("--temperature", type=float, default=2.0)
    tr.add_argument("--hard", type=float, default=0.3, help="share of the labels' own loss")
    tr.add_argument("--max-lr", type=float, default=3e-3)
    tr.add_argument("--batch", type=int, default=256)
    tr.add_argument("--threads", type=int, default=2)
    tr.add_argument("--init", type=Path, help="continue from these weights (of the same width)")
    tr.add_argument("--device", default="cpu", help="where to train: cpu, or cuda on a GPU machine")
    args = ap.parse_args(argv)
    try:
        if args.command == "record":
            if args.scenes is not None:
                if not 1 <= args.scenes <= 1_000_000:
                    raise DistilError("--scenes must be 1 to 1,000,000")
                n = record_scenes(args.scenes, args.seed, args.out, _progress)
            else:
                n = record_phone(args.phone, args.out, _progress)
            print(f"{n} crops -> {args.out}")
            return 0
        distil(args.crops, args.to, args.width, args.epochs, args.teacher, args.temperature, args.hard,
               batch=args.batch, max_lr=args.max_lr, threads=args.threads, init=args.init, device=args.device)
    except (DistilError, RealPilesError) as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
