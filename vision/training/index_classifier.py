"""Make the index classifier: crops from synthetic scenes, then training.

What runs at a table is :mod:`vision.reading.index_classifier`; this module
holds its network, its training and the command line that makes its crops
(:mod:`vision.training.classifier_data`) and trains it.

Crops come from zone pictures at :data:`vision.reading.table.ZONE_PX` (640 px
wide), where an index is ~35 px tall.
Train (needs the ``train`` extra)::

    # crops of every labelled index, plus every box the detector finds
    python -m vision.training.index_classifier data/crops640 --scenes 3000 --seed 1 --detector models/cards-yolo11n.onnx
    python -m vision.training.index_classifier data/crops640 --scenes 500 --seed 9 --detector models/cards-yolo11n.onnx
    python -m vision.training.index_classifier data/crops640 --train --epochs 10 --to models/
    # more epochs later, from the shipped weights:
    python -m vision.training.index_classifier data/crops640 --train --epochs 4 --init models/index-classifier.pt --max-lr 1e-3
    # with crops of real photographs whose labels are sets (vision.training.real_crops)
    python -m vision.training.index_classifier data/crops640 --train --epochs 2 --init models/index-classifier.pt \
        --max-lr 3e-4 --reshape --real data/real_train.npz
    # with crops of indices half covered by the next card, cut as the reader cuts them
    # (--covered; label sets: vision.training.classifier_data.covered_label), several files each with its share
    python -m vision.training.index_classifier data/cov --covered --scenes 1200 --seed 301 --detector models/cards-yolo11n.onnx
    python -m vision.training.index_classifier data/crops640 --train --epochs 4 --init models/index-classifier.pt \
        --max-lr 3e-4 --reshape --real data/cov/covered_301.npz data/real_train.npz --real-share 0.5 0.25 --every-epoch
    # indices on their side (a zone turned the wrong way round): each its card or NONE, never a joker
    # (--covered --sideways; models/MODEL_CARD.md, "Indices on their side and lone corner pips": tried, not shipped)
    python -m vision.training.index_classifier data/sw --covered --sideways --scenes 1500 --seed 401 --detector models/cards-yolo11n.onnx

The last ``crops_*.npz`` (by name) is the validation set.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from vision.reading.index_classifier import CROP_H, CROP_W, LABELS, to_blob
from vision.training.classifier_data import joker_crops_again, make_covered_crops, make_crops, make_partial_crops
from vision.training.synth import add_scene_options, scene_options


def build_model(width: int = 32):
    """The classifier's network: three stages of two 3x3 convolutions
    (``width``, twice and four times as many channels), then ``8 * width``
    features and the labels.  The shipped one is 32 wide; 16 wide costs a
    quarter as much (:mod:`vision.training.distil_classifier`)."""
    import torch.nn as nn

    def block(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    w = width
    return nn.Sequential(
        *block(3, w), *block(w, w), nn.MaxPool2d(2),                    # 24 x 16
        *block(w, 2 * w), *block(2 * w, 2 * w), nn.MaxPool2d(2),        # 12 x 8
        *block(2 * w, 4 * w), *block(4 * w, 4 * w), nn.MaxPool2d(2),    # 6 x 4
        nn.Flatten(), nn.Dropout(0.2), nn.Linear(4 * w * 6 * 4, 8 * w), nn.ReLU(inplace=True),
        nn.Linear(8 * w, len(LABELS)),
    )


def width_of(state: dict) -> int:
    """The width :func:`build_model` was given, from its saved weights."""
    return int(state["0.weight"].shape[0])


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


def partial_label_loss(logits, allowed):
    """Each crop's loss when its label is only known to be one of a set:
    ``-log`` of the probability the model gives the whole set (``allowed``:
    N x labels, bool).  A crop that may be an index of rank R or nothing
    costs nothing when the model puts its mass anywhere in that set; which
    of them it is, the model's own reading of the crop decides.  A set of
    one label is ordinary cross-entropy (tests/vision/test_real_crops.py).
    """
    import torch

    logp = torch.log_softmax(logits, dim=1)
    return -torch.logsumexp(logp.masked_fill(~allowed, float("-inf")), dim=1)


def _augment(xb, reshape: bool):
    """A training batch's photometric jitter (gain and offset), and
    :func:`reshape_batch` with ``reshape``."""
    import torch

    xb = (xb * torch.empty(len(xb), 1, 1, 1).uniform_(0.7, 1.3)
          + torch.empty(len(xb), 3, 1, 1).uniform_(-0.08, 0.08)).clamp(0, 1)
    return reshape_batch(xb) if reshape else xb


def _real_split(path: Path, every: int = 8, only_none: bool = False):
    """Real crops (:mod:`vision.training.real_crops`) split by photograph:
    every ``every``-th photograph (by name) held out to watch.  ``only_none``:
    only the crops whose one allowed label is ``NONE`` (boxes off the
    photographs' indices: court pictures, pips, backs)."""
    d = np.load(path)
    keep = (d["allowed"][:, -1] & (d["allowed"].sum(axis=1) == 1)) if only_none else np.ones(len(d["x"]), bool)
    photos = sorted(set(d["photo"].tolist()))
    held = np.isin(d["photo"], photos[::every])
    return (d["x"][~held & keep], d["allowed"][~held & keep]), (d["x"][held & keep], d["allowed"][held & keep])


def train(data_dir: Path, epochs: int, to: Path, batch: int = 256, threads: int = 2,
          init: Path | None = None, max_lr: float = 3e-3, reshape: bool = False,
          real: Path | list[Path] | None = None, real_share: float | list[float] = 0.25,
          every_epoch: bool = False) -> Path:
    """Train on every crops_*.npz in ``data_dir`` (the last file held out for validation).

    ``init`` continues from saved weights (an ``index-classifier.pt``);
    ``reshape``: each batch's crops also turned, sheared and scaled a little
    (:func:`reshape_batch`).  ``real``: crops of real photographs with sets
    of allowed labels (:mod:`vision.training.real_crops`): each batch adds
    ``real_share`` of its size of them, drawn at random, always reshaped,
    with :func:`partial_label_loss`; one photograph in eight is held out,
    and how often its crops are read within their sets, and as jokers, is
    printed each epoch.  ``real`` may be several such files (e.g. the real
    photographs' crops and :func:`vision.training.classifier_data.make_covered_crops`'),
    each with its own share (``real_share``: one for all, or one a file),
    held out and printed each on its own.  ``every_epoch``: each epoch's
    weights are also saved in ``to/epoch-N/`` (to choose among them on
    held-out plays rather than on the validation crops).
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
    xt = torch.from_numpy(to_blob(list(x)))
    yt = torch.from_numpy(y)
    xv, yv = torch.from_numpy(to_blob(list(va["x"]))), torch.from_numpy(va["y"])
    if init is not None:
        state = torch.load(init, map_location="cpu")
        model = build_model(width_of(state))
        model.load_state_dict(state)
    else:
        model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=1e-4)
    steps = epochs * ((len(xt) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps)
    reals = [] if real is None else [real] if isinstance(real, (str, Path)) else list(real)
    shares = [real_share] * len(reals) if isinstance(real_share, (int, float)) else list(real_share)
    if len(shares) != len(reals):
        raise ValueError(f"one real share for all, or one a real file ({len(reals)}), got {len(shares)}")
    sets = []       # each real file: its crops and label sets, held-out ones, crops a batch
    for path, share in zip(reals, shares):
        (rx, ra), (rvx, rva) = _real_split(path)
        sets.append((torch.from_numpy(to_blob(list(rx))), torch.from_numpy(ra),
                     torch.from_numpy(to_blob(list(rvx))), torch.from_numpy(rva), max(1, round(batch * share)),
                     Path(path).name))
    best_acc, onnx_path = -1.0, to / "index-classifier.onnx"
    for ep in range(epochs):
        model.train()
        perm = torch.randperm(len(xt))
        for k in range(0, len(xt), batch):
            idx = perm[k:k + batch]
            xb = _augment(xt[idx], reshape)
            if not sets:
                loss = F.cross_entropy(model(xb), yt[idx], label_smoothing=0.05)
            else:       # one forward pass: batch norm sees every kind together
                draws = [torch.randint(len(rx), (n,)) for rx, _, _, _, n, _ in sets]
                out = model(torch.cat([xb] + [_augment(st[0][d], True) for st, d in zip(sets, draws)]))
                parts = [F.cross_entropy(out[:len(idx)], yt[idx], label_smoothing=0.05, reduction="none")]
                at = len(idx)
                for st, d in zip(sets, draws):
                    parts.append(partial_label_loss(out[at:at + len(d)], st[1][d]))
                    at += len(d)
                loss = torch.cat(parts).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        model.eval()
        with torch.no_grad():
            pred = torch.cat([model(xv[k:k + 1024]).argmax(1) for k in range(0, len(xv), 1024)])
        acc = float((pred == yv).float().mean())
        print(f"epoch {ep + 1}/{epochs} loss {loss.item():.3f} val accuracy {acc:.4f}", flush=True)
        for _, _, rvx, rva, _, name in sets:
            with torch.no_grad():
                rp = torch.cat([model(rvx[k:k + 1024]).argmax(1) for k in range(0, len(rvx), 1024)])
            inside = float(rva[torch.arange(len(rp)), rp].float().mean())
            jokers = int(((rp == LABELS.index("BJ")) | (rp == LABELS.index("LJ"))).sum())
            jokers_allowed = int((rva[:, LABELS.index("BJ")] | rva[:, LABELS.index("LJ")]).sum())
            named = rva[:, :-1].any(1) & ~rva[:, -1]    # crops that must be named (NONE not allowed)
            hits = rva[torch.arange(len(rp)), rp]
            must = f"; of the {int(named.sum())} that must be named, {float(hits[named].float().mean()):.4f}" \
                if named.any() else ""
            print(f"  held-out crops of {name}: read within their sets {inside:.4f}, "
                  f"as jokers {jokers} of {len(rp)} (jokers allowed in {jokers_allowed}){must}", flush=True)
        if every_epoch:
            _save(model, to / f"epoch-{ep + 1}")
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
    add_embedding_output(onnx_path)
    model.train()
    return onnx_path


def add_embedding_output(path: Path, out: Path | None = None) -> Path:
    """Give an exported classifier a second output, ``embedding``: the input
    of its last layer (the 256 features, at the shipped width, after the first
    fully connected layer and its ReLU), beside ``logits``.

    Deck enrollment (:mod:`vision.reading.enroll`) fits a small per-deck head
    on these features; a table node reads them with ONNX Runtime alone, so
    the output is added here once, with the ``onnx`` package, and shipped.
    The weights and ``logits`` stay exactly as they were (a graph output is
    added, nothing retrained).  Does nothing to a model that has it already.
    """
    import onnx
    from onnx import TensorProto, helper

    from vision.reading.deck_profile import EMBEDDING_OUTPUT

    path = Path(path)
    m = onnx.load(str(path))
    g = m.graph
    if any(o.name == EMBEDDING_OUTPUT for o in g.output):
        if out is not None and Path(out) != path:
            onnx.save(m, str(out))
        return Path(out or path)
    last = [n for n in g.node if "logits" in n.output]
    if len(last) != 1 or last[0].op_type != "Gemm":
        raise ValueError(f"{path}: expected a last Gemm layer giving 'logits'")
    features = last[0].input[0]
    weight = next(i for i in g.initializer if i.name == last[0].input[1])
    g.node.append(helper.make_node("Identity", [features], [EMBEDDING_OUTPUT], name="embedding_out"))
    g.output.append(helper.make_tensor_value_info(EMBEDDING_OUTPUT, TensorProto.FLOAT, ["n", int(weight.dims[1])]))
    onnx.checker.check_model(m)
    onnx.save(m, str(out or path))
    return Path(out or path)


def deck_names(text: str) -> tuple[str, ...]:
    """``--decks``: deck names, or ``pysol`` for PySolFC's sets, checked as
    the command line is read (an unknown one stops the run before any crops
    are drawn).

    >>> deck_names("anglo, tango"), len(deck_names("pysol")) > 10
    (('anglo', 'tango'), True)
    >>> deck_names("anglo, tangoo")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: unknown deck 'tangoo' (known: anglo, ...)
    """
    from vision.training.card_art import deck_names_argument

    return deck_names_argument()(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.training.index_classifier", description=__doc__.split("\n")[0])
    ap.add_argument("data", type=Path, help="folder of crops_*.npz (kept out of git, e.g. data/crops)")
    ap.add_argument("--scenes", type=int, default=0, help="make crops from this many scenes")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--detector", type=Path, help="also crop every box this ONNX detector finds")
    add_scene_options(ap)
    ap.add_argument("--body-negatives", type=int, default=0,
                    help="non-index crops a scene drawn on the cards' bodies (e.g. 4)")
    ap.add_argument("--tight-jokers", action="store_true",
                    help="also crop each joker index tight around its mark, as a detector may box it")
    ap.add_argument("--covered", action="store_true",
                    help="with --scenes: crops of half-covered and turned indices (crooked cards, fans, tight "
                         "fans) with sets of allowed labels, DATA/covered_SEED.npz, for --real")
    ap.add_argument("--only-covered", type=float, default=0.0,
                    help="with --covered: only corners showing less than this share of themselves (e.g. 0.95), "
                         "three crops each")
    ap.add_argument("--sideways", action="store_true",
                    help="with --covered: the pictures turned a quarter turn wrong, each index on its side "
                         "(its card or NONE, never a joker), DATA/sideways_SEED.npz, for --real")
    ap.add_argument("--partial", action="store_true",
                    help="with --scenes (not --covered): crops of a rank or a pip boxed alone, with sets of allowed "
                         "labels (never a joker), DATA/partial_SEED.npz, for --real")
    ap.add_argument("--decks", type=deck_names,
                    help="with --scenes (not --covered): the decks drawn, comma-separated, or 'pysol' for PySolFC's "
                         "card sets (vision.training.card_art.PYSOL_DECKS); default the training decks")
    ap.add_argument("--no-drawn-jokers", action="store_true",
                    help="with --decks: PySolFC's sets as they print them, without the pair of jokers drawn on "
                         "their stock (the candidate classifiers' PySolFC crops, models/candidates)")
    ap.add_argument("--jokers-again", type=Path, metavar="CROPS",
                    help="write the joker crops of this crops_*.npz again as DATA/crops_SEED.npz (beside it in "
                         "DATA they are drawn twice as often)")
    ap.add_argument("--train", action="store_true")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--to", type=Path, default=Path("models"))
    ap.add_argument("--init", type=Path, help="continue from these weights (index-classifier.pt)")
    ap.add_argument("--max-lr", type=float, default=3e-3)
    ap.add_argument("--reshape", action="store_true",
                    help="turn, shear and scale each training crop a little (fonts of unseen decks)")
    ap.add_argument("--real", type=Path, nargs="+",
                    help="also train on these crops with label sets: real photographs' (vision.training.real_crops), "
                         "half-covered indices' (--covered)")
    ap.add_argument("--real-share", type=float, nargs="+", default=[0.25],
                    help="crops of each --real file added to each batch, as a share of its size "
                         "(one for all files, or one a file)")
    ap.add_argument("--every-epoch", action="store_true", help="also save each epoch's weights in TO/epoch-N/")
    ap.add_argument("--add-embedding", action="store_true",
                    help="DATA is an exported index-classifier.onnx: add its 'embedding' output "
                         "(deck enrollment needs it; exports made here have it)")
    args = ap.parse_args(argv)
    if args.add_embedding:
        add_embedding_output(args.data)
        return 0
    if args.jokers_again:
        try:
            path = joker_crops_again(args.jokers_again, args.data, args.seed)
        except (OSError, ValueError, KeyError) as e:
            print(f"index_classifier: {e}", file=sys.stderr)
            return 2
        print(f"the joker crops of {args.jokers_again} -> {path}")
    options = scene_options(args)
    if args.covered and (options.pop("face_down") + options.pop("drawn_backs")):
        print("--face-down and --drawn-backs lay cards in plain scenes, not --covered ones", file=sys.stderr)
        return 2
    if args.partial and (not args.scenes or args.covered):
        print("--partial needs --scenes, without --covered", file=sys.stderr)
        return 2
    if args.partial:
        try:
            make_partial_crops(args.data, args.scenes, args.seed, decks=args.decks, **options)
        except ValueError as exc:
            print(f"index_classifier: {exc}", file=sys.stderr)
            return 2
    elif args.scenes and args.covered:
        make_covered_crops(args.data, args.scenes, args.seed, args.detector, only_covered=args.only_covered,
                           sideways=args.sideways, **options)
    elif args.sideways:
        print("--sideways needs --covered and --scenes", file=sys.stderr)
        return 2
    elif args.scenes:
        make_crops(args.data, args.scenes, args.seed, args.detector, tight_jokers=args.tight_jokers,
                   body_negatives=args.body_negatives, decks=args.decks,
                   drawn_jokers=not args.no_drawn_jokers, **options)
    if args.train:
        try:
            train(args.data, args.epochs, args.to, init=args.init, max_lr=args.max_lr, reshape=args.reshape,
                  real=args.real, real_share=args.real_share[0] if len(args.real_share) == 1 else args.real_share,
                  every_epoch=args.every_epoch)
        except (FileNotFoundError, ValueError) as exc:
            print(exc, file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
