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

``--real-surfaces`` adds hand false alarms and misses on zone pictures of
real table surfaces (wood, cork, canvas, papers) from Debian packages
(``vision.training.real_surfaces``: ``apt-get install mypaint-data-extras
mate-backgrounds``), bare or with held-out synthetic cards, under light
changes (warm, cold, dim, a hard shadow band), and with synthetic hands
laid on the same surfaces; skipped with a message when the packages are
absent.  ``--only-real-surfaces`` runs that section alone.
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


def accuracy(det: CardDetector, plays: int, seed: int, margin_mm: float = ZONE_MARGIN_MM,
             decks: list | None = None) -> dict:
    """The held-out plays (``decks``: these rendered decks instead of the held-out ones)."""
    gen = SceneGenerator(decks or load_decks(HELD_OUT_DECKS), cloth=CLOTH_HELD_OUT, hand_rate=0.0)
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


HAND_THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


def _noisy(img: np.ndarray, rng: np.random.Generator, sd: float = 2.0) -> np.ndarray:
    """One camera frame of a still picture: sensor noise only."""
    return np.clip(img + rng.normal(0, sd, img.shape), 0, 255).astype(np.uint8)


def _with_hand(img: np.ndarray, rng: np.random.Generator, margin: int) -> np.ndarray | None:
    """The same picture with a synthetic hand reaching in over it (None if it missed the zone)."""
    from vision.training.synth import _draw_hand

    f = img.astype(np.float32)
    top = np.full(img.shape[:2], -1, np.int32)
    if not _draw_hand(rng, f, top, margin):
        return None
    return np.clip(f, 0, 255).astype(np.uint8)


def _sequence(frames: list[tuple[float, np.ndarray, object]], gate, stable_s: float = 0.4) -> dict:
    """Frames (time, picture, its read) through a hand gate and a zone tracker."""
    from vision.reading.tracker import ZoneTracker
    from vision.reading.watch import thumbnail

    tr = ZoneTracker("S", calibration=None, stable_s=stable_s)
    believed, events = [], []
    for t, img, read in frames:
        r = gate("S-play", t, thumbnail(img), read)
        believed.append((t, r.hand))
        events += [(t, e) for e in tr.update(t, r)]
    return {"believed": believed, "events": events}


def real_surfaces(model: str | None, classifier: str | None, threads: int, seed: int,
                  per_light: int = 2, margin_mm: float = ZONE_MARGIN_MM) -> dict:
    """Hands on real surfaces: false alarms (no hand in the picture) and misses
    (a synthetic hand over the zone), per picture at several hand thresholds,
    and over frame sequences through the watcher's hand gate
    (:class:`vision.reading.watch.HandGate`): the detector alone ("before"),
    hands dropped from a still zone only, and also a moving zone taken for
    a hand ("after", the watcher's default).

    Per picture: the detector runs with a hand threshold of 0.05 and each
    picture keeps its strongest hand score over the zone; it "raises a hand"
    at threshold t when that score is t or more (the same as running the
    detector with ``hand_conf=t``).  Sequences, 10 frames a second: the bare
    surface 0.5 s, a hand over the cards 0.5 s, the cards 2 s; and the bare
    surface alone 3 s.  Each frame is its picture with sensor noise (sd 2
    grey levels); each picture is read once (as the watcher keeps a still
    zone's read)."""
    from vision.reading.watch import HandGate, thumbnail
    from vision.training.real_surfaces import LIGHTS, relight, surfaces, zone_surface

    found = surfaces()
    if not found:
        return {"skipped": "no real surfaces installed: apt-get install mypaint-data-extras mate-backgrounds"}
    det = CardDetector(model, threads=threads, classifier=classifier, hand_conf=0.05)
    shipped = CardDetector.DEFAULT_HAND_CONF
    gen = SceneGenerator(load_decks(HELD_OUT_DECKS), cloth=CLOTH_HELD_OUT, hand_rate=0.0)
    margin = Zone.margin_px(margin_mm)
    size = (ZONE_PX[0] + 2 * margin, ZONE_PX[1] + 2 * margin)
    rows = []     # (surface, light, what, hand in the picture, strongest hand score)
    gates = {"before": lambda: HandGate(0), "still_hands_dropped": lambda: HandGate(busy_level=None),
             "after": HandGate}
    seq = {name: Counter() for name in gates}
    still_diffs, arrival_diffs, delays = [], [], {name: [] for name in gates}

    def hand_read(read, thr):
        from dataclasses import replace
        return replace(read, hand=read.hand_confidence >= thr)

    for si, surf in enumerate(found):
        for li, light in enumerate(LIGHTS):
            for k in range(per_light):
                rng = np.random.default_rng([seed, si, li, k])
                bg = relight(zone_surface(surf, size, rng), light, rng)
                deck = gen.decks[(si + li + k) % len(gen.decks)]
                cards = random_play(rng)
                while not all(c in deck.cards for c in cards):
                    cards = random_play(rng)
                bare = gen.render([], rng, deck=deck, background=bg, margin=margin).image
                laid = gen.render(cards, rng, deck=deck, background=bg, margin=margin).image
                pics = {"bare": (bare, False), "cards": (laid, False)}
                for what, base in (("hand_bare", bare), ("hand_cards", laid)):
                    h = _with_hand(base, rng, margin)
                    if h is not None:
                        pics[what] = (h, True)
                reads = dict(zip(pics, det.read_zones([p for p, _ in pics.values()],
                                                      det.imgsz / max(ZONE_PX), margin)))
                rows += [(surf.name, light, what, hand, reads[what].hand_confidence)
                         for what, (_, hand) in pics.items()]
                noise = np.random.default_rng([seed, si, li, k, 1])
                frames = [noise_frame for noise_frame in
                          [(i / 10, _noisy(bare, noise), hand_read(reads["bare"], shipped)) for i in range(5)]]
                if "hand_cards" in pics:
                    frames += [(0.5 + i / 10, _noisy(pics["hand_cards"][0], noise),
                                hand_read(reads["hand_cards"], shipped)) for i in range(5)]
                frames += [(1.0 + i / 10, _noisy(laid, noise), hand_read(reads["cards"], shipped)) for i in range(21)]
                th = [thumbnail(f) for _, f, _ in frames]
                diffs = [float(np.abs(a - b).mean()) for a, b in zip(th, th[1:])]
                if "hand_cards" in pics:
                    arrival_diffs.append(diffs[4])
                    still_diffs += diffs[5:9] + diffs[10:]
                else:
                    still_diffs += diffs[:4] + diffs[5:]
                for name, make in gates.items():
                    out = _sequence(frames, make())
                    plays = [(t, e) for t, e in out["events"] if e.type == "play"]
                    c = seq[name]
                    c["sequences"] += 1
                    if "hand_cards" in pics:
                        c["hand_frames"] += 5
                        c["hand_frames_believed"] += sum(h for t, h in out["believed"] if 0.45 < t < 0.95)
                        # a play reported while the hand is over it would be one laid half way
                        c["reported_under_hand"] += any(t < 0.95 for t, _ in plays)
                    if plays and plays[0][0] >= 0.95:
                        c["reported"] += 1
                        delays[name].append(plays[0][0] - 1.0)
                    else:
                        c["never_reported"] += not plays
                    bare_only = [(i / 10, _noisy(bare, noise), hand_read(reads["bare"], shipped)) for i in range(30)]
                    b = _sequence(bare_only, make())["believed"]
                    c["bare_frames_after_1s"] += sum(t > 1.05 for t, _ in b)
                    c["bare_frames_after_1s_with_hand"] += sum(h for t, h in b if t > 1.05)
    out: dict = {"surfaces": [f"{s.name} ({s.package}, {s.licence})" for s in found],
                 "lights": list(LIGHTS), "pictures_without_hand": sum(not r[3] for r in rows),
                 "pictures_with_hand": sum(r[3] for r in rows), "by_threshold": {}}
    for t in HAND_THRESHOLDS:
        fa = [r for r in rows if not r[3] and r[4] >= t]
        miss = [r for r in rows if r[3] and r[4] < t]
        out["by_threshold"][str(t)] = {
            "false_alarm_rate": round(len(fa) / max(1, out["pictures_without_hand"]), 4),
            "false_alarms": len(fa),
            "false_alarms_bare": sum(r[2] == "bare" for r in fa),
            "false_alarms_cards": sum(r[2] == "cards" for r in fa),
            "false_alarm_surfaces": dict(Counter(r[0] for r in fa).most_common()),
            "false_alarm_lights": dict(Counter(r[1] for r in fa).most_common()),
            "miss_rate": round(len(miss) / max(1, out["pictures_with_hand"]), 4), "misses": len(miss)}
    out["shipped_hand_threshold"] = shipped
    out["sequences"] = {name: {**dict(c), "median_delay_s": round(float(np.median(delays[name])), 2)
                               if delays[name] else None,
                               "max_delay_s": round(max(delays[name]), 2) if delays[name] else None}
                        for name, c in seq.items()}
    out["frame_to_frame_change"] = {
        "motion_level": HandGate().motion_level,
        "still_max": round(max(still_diffs), 2), "still_mean": round(float(np.mean(still_diffs)), 2),
        "hand_arrival_min": round(min(arrival_diffs), 2) if arrival_diffs else None,
        "hand_arrivals_below_motion_level": sum(d < HandGate().motion_level for d in arrival_diffs)}
    return out


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
    ap.add_argument("--real-surfaces", action="store_true",
                    help="also hand false alarms and misses on real surfaces from Debian packages")
    ap.add_argument("--only-real-surfaces", action="store_true", help="that section alone")
    ap.add_argument("--surface-seed", type=int, default=5150)
    args = ap.parse_args()
    if args.only_real_surfaces:
        print(json.dumps({"real_surfaces": real_surfaces(args.model, args.classifier, args.threads,
                                                         args.surface_seed, margin_mm=args.margin_mm)}, indent=1))
        return 0
    det = CardDetector(args.model, threads=args.threads, conf=args.conf, classifier=args.classifier)
    out = {"model": str(det.model_path),
           "index_classifier": str(det.classifier.model_path),
           "detector_conf": det.conf, "held_out_decks": list(HELD_OUT_DECKS),
           **accuracy(det, args.plays, args.seed, args.margin_mm), **speed(det, args.frames, args.seed)}
    if args.real_surfaces:
        out["real_surfaces"] = real_surfaces(args.model, args.classifier, args.threads, args.surface_seed,
                                             margin_mm=args.margin_mm)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
