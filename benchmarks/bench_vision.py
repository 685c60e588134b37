"""Card recognition figures on a fresh held-out set: accuracy and frames per second.

The set is generated here, from decks, cloth colours and seeds never used in
training (``vision.training.card_art.HELD_OUT_DECKS``, ``vision.training.synth.CLOTH_HELD_OUT``),
with the camera effects on and no hands.  Each zone picture carries the
cloth around the zone that the table watcher reads with it
(``vision.reading.table.ZONE_MARGIN_MM``; ``--margin-mm 0`` for the zone alone, as
before 2026-11-30), so a card pushed past the printed line is in the
picture.  Printed:

- per-card precision and recall (cards matched as multisets per play),
- the share of plays read exactly (every card, in order),
- the same over plays where every card shows at least one index
  ("readable": the others cannot be read from the picture at all),
- frames per second for a whole-table frame (2560x1920, the cloth at
  2 px/mm) with 4 play zones (rectify + detect + classify + pair, and the
  search for printed cards), ONNX Runtime on this CPU: every zone read
  every frame, and a still table (zones whose picture did not change keep
  their read, as `vision.reading.watch.TableWatcher` does by default).

    python benchmarks/bench_vision.py --plays 300 --frames 30 [--model models/cards-yolo11n.onnx]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.reading.detector import CardDetector  # noqa: E402
from vision.reading.table import ZONE_MARGIN_MM, ZONE_PX, Zone, calibrate  # noqa: E402
from vision.reading.watch import TableWatcher  # noqa: E402
from vision.training.card_art import HELD_OUT_DECKS, load_decks  # noqa: E402
from vision.training.synth import CLOTH_HELD_OUT, SceneGenerator, random_play  # noqa: E402
from vision.training.synth_table import TablePainter  # noqa: E402


def accuracy(det: CardDetector, plays: int, seed: int, margin_mm: float = ZONE_MARGIN_MM) -> dict:
    gen = SceneGenerator(load_decks(HELD_OUT_DECKS), cloth=CLOTH_HELD_OUT, hand_rate=0.0)
    tp = n_pred = n_true = exact = readable = exact_readable = 0
    by_kind: Counter = Counter()
    by_kind_exact: Counter = Counter()
    by_deck: Counter = Counter()
    by_deck_exact: Counter = Counter()
    margin = Zone.margin_px(margin_mm)
    for i in range(plays):
        rng = np.random.default_rng([seed, i])
        kind = None
        cards = random_play(rng, kind)
        deck = gen.decks[i % len(gen.decks)]
        while not all(c in deck.cards for c in cards):
            cards = random_play(rng, kind)
        scene = gen.render(cards, rng, deck=deck, margin=margin)
        # as the table watcher reads a zone: at the play zones' scale, the margin's own cards left out
        read = det.read_zones([scene.image], det.imgsz / max(ZONE_PX), margin)[0]
        got = read.names
        t, p = Counter(scene.cards), Counter(got)
        tp += sum((t & p).values())
        n_pred += len(got)
        n_true += len(cards)
        ok = got == scene.cards
        exact += ok
        if scene.readable:
            readable += 1
            exact_readable += ok
        by_kind[len(cards)] += 1
        by_kind_exact[len(cards)] += ok
        by_deck[deck.name] += 1
        by_deck_exact[deck.name] += ok
    return {
        "plays": plays, "zone_margin_mm": margin_mm, "card_precision": round(tp / max(1, n_pred), 4),
        "card_recall": round(tp / max(1, n_true), 4),
        "plays_exact": round(exact / plays, 4),
        "readable_plays": readable, "readable_plays_exact": round(exact_readable / max(1, readable), 4),
        "exact_by_card_count": {k: f"{by_kind_exact[k]}/{by_kind[k]}" for k in sorted(by_kind)},
        "exact_by_deck": {k: f"{by_deck_exact[k]}/{by_deck[k]}" for k in sorted(by_deck)},
    }


def speed(det: CardDetector, frames: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    gen = SceneGenerator(load_decks(HELD_OUT_DECKS), cloth=CLOTH_HELD_OUT)
    painter = TablePainter(gen, rng)
    frame, _ = painter.frame({f"{s}-play": random_play(rng, "straight") for s in "SENW"})
    geo = calibrate(frame)
    # reuse_below=0: every zone is read every frame, the worst case
    watcher = TableWatcher(geo, det, zones=[f"{s}-play" for s in "SENW"], reuse_below=0)
    watcher.read(frame)      # warm up
    t0 = time.perf_counter()
    for _ in range(frames):
        watcher.read(frame)
    dt = (time.perf_counter() - t0) / frames
    # the usual case: nothing moved since the last frame, each zone keeps its read
    still = TableWatcher(geo, det, zones=[f"{s}-play" for s in "SENW"])
    still.read(frame)
    t0 = time.perf_counter()
    for _ in range(frames):
        still.read(frame)
    ds = (time.perf_counter() - t0) / frames
    return {"table_frame_size": list(frame.shape[1::-1]), "zones": 4,
            "ms_per_frame": round(dt * 1000, 1), "frames_per_second": round(1 / dt, 1),
            "still_table_ms_per_frame": round(ds * 1000, 1), "still_table_frames_per_second": round(1 / ds, 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--plays", type=int, default=300)
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--seed", type=int, default=424242)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--conf", type=float, default=None, help="detector threshold (default: the detector's)")
    ap.add_argument("--classifier", default=None, help="index classifier ONNX (default: the shipped one)")
    ap.add_argument("--margin-mm", type=float, default=ZONE_MARGIN_MM,
                    help="cloth read around each zone (default: the table watcher's)")
    args = ap.parse_args()
    det = CardDetector(args.model, threads=args.threads, conf=args.conf, classifier=args.classifier)
    out = {"model": str(det.model_path),
           "index_classifier": str(det.classifier.model_path),
           "detector_conf": det.conf, "held_out_decks": list(HELD_OUT_DECKS),
           **accuracy(det, args.plays, args.seed, args.margin_mm), **speed(det, args.frames, args.seed)}
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
