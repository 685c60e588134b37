"""Whole plays watched on tables whose top is a real surface: each play reported once, right, and cleared.

The demo and the speed figures watch generated cloth.  Here each table's
top is a real photograph or scan of a surface (Debian's wooden boards,
cork, canvas, papers and cloths: :mod:`vision.training.real_surfaces`),
seen through the table painter's camera (:mod:`vision.training.synth_table`:
its tilt and its uneven light), optionally under another light
(``--lights``: the whole frame warmer, colder, dimmer).  On each, plays are
laid in S's zone one after another, each by a real hand (cut out of the
rps photographs in ``tests/data/real/rps``, CC BY-SA 4.0), left still,
then swept by the hand; the table watcher reads the frames as a camera
gives them (10 a second) and its events are set against the script.

Printed, per light and in all: plays reported with the right cards (in
any order), plays reported wrong, plays missed, zone clears reported and
missed, and events that are no play of the script (an unread play, a
second report of a play).  The cards are the held-out decks' (generated);
the tops and hands are real; the camera and its light are drawn.
``--joker-bombs 0.3`` makes that share of the plays the joker bomb (its
count, right, and read wrong at or over the table's default threshold,
unasked, printed apart); ``--no-white-balance`` reads the pictures with
the lamp's colour left in (:mod:`vision.reading.white_balance`);
``--bump [MM]`` knocks each table's camera halfway through its plays,
pushed MM/4 to MM mm (default 40) and turned 0.5-3 degrees (the camera's
moves, how often it said it found the table again, or lost it);
``--blackout [S]`` takes the picture away for S seconds (default 2) while
each play lies still, after it is reported: the lights off (the frame at
4 %), a capture card's blue "no signal" screen and a dark coat over the
lens in turn (:mod:`vision.reading.picture_loss`; the camera said offline
and back, and any play reported again); ``--shake [MM]`` sways the
camera's stand MM mm (default 2) as each play is laid, dying away over
0.8 s (:func:`swaying`: each frame moved and blurred along the sway; a
play read while the picture still shakes); ``--refocus [MM]`` blurs the
picture by up to MM mm (default 1) as each play is laid, for 0.7 s
(:func:`refocusing`: a webcam left on autofocus).

    python benchmarks/bench_real_tops.py [--plays 3] [--tops N] [--lights as_shot,warm,dim] [--seed 5] [--details FILE]
    python benchmarks/bench_real_tops.py --lights warm,cold --joker-bombs 0.3 [--no-white-balance]
    python benchmarks/bench_real_tops.py --bump [MM] --plays 4
    python benchmarks/bench_real_tops.py --blackout [S] --plays 3
    python benchmarks/bench_real_tops.py --shake [MM] --plays 3
    python benchmarks/bench_real_tops.py --refocus [MM] --plays 3
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_real_fans import shaken  # noqa: E402
from referee.settings import Settings  # noqa: E402
from vision.reading.confidence import read_right  # noqa: E402
from vision.reading.detector import CardDetector  # noqa: E402
from vision.reading.table import TableGeometry, calibrate  # noqa: E402
from vision.reading.watch import TableWatcher  # noqa: E402
from vision.training.card_art import HELD_OUT_DECKS, load_decks  # noqa: E402
from vision.training.real_photos import green_cloth_cutout  # noqa: E402
from vision.training.real_surfaces import LIGHTS, relight, surfaces, zone_surface  # noqa: E402
from vision.training.synth import SceneGenerator, random_play  # noqa: E402
from vision.training.synth_table import TablePainter  # noqa: E402

RPS = Path(__file__).resolve().parent.parent / "tests" / "data" / "real" / "rps"
ZONE = "S-play"
FPS = 10.0
# frames of one play: the zone bare, a hand laying the cards, the cards still,
# a hand sweeping them, the zone bare again
BARE, LAYING, STILL, SWEEPING = 8, 4, 8, 3
JOKER_BOMB = ["BJ", "BJ", "LJ", "LJ"]
ASKED = Settings().min_confidence     # a play read under a table's default threshold is asked about


def _coat(f: np.ndarray) -> np.ndarray:
    """A dark wool coat over the lens: a near-black weave, a little light at one edge."""
    rng = np.random.default_rng(3)
    weave = cv2.GaussianBlur(rng.normal(28, 10, f.shape[:2]).astype(np.float32), (0, 0), 3)
    ramp = np.linspace(1.0, 1.8, f.shape[1], dtype=np.float32)[None, :]
    g = np.clip(weave * ramp, 0, 255).astype(np.uint8)
    return cv2.merge([g, (g * 0.9).astype(np.uint8), (g * 0.8).astype(np.uint8)])


# a picture taken away: the lights off, a capture card's "no signal" screen, a coat over the lens
BLACKOUTS = (lambda f: cv2.convertScaleAbs(f, alpha=0.04), lambda f: np.full_like(f, (160, 40, 0)), _coat)


def cloth_px_mm(geo: TableGeometry) -> float:
    """Camera pixels a millimetre of cloth along the table's top edge, as
    calibrated (:func:`vision.reading.table.calibrate`)."""
    return float(np.linalg.norm(np.subtract(*geo.to_image([(0, 0), (100, 0)])))) / 100


SWAY = 8     # frames a knocked stand sways for (0.8 s at 10 frames a second), dying away


def swaying(still: np.ndarray, px: float, angle: float) -> list[np.ndarray]:
    """The frames a camera gives while its stand sways along ``angle``
    degrees, ``px`` camera pixels at first, then less (:data:`SWAY` frames,
    the last a third as far): each frame moved along the sway, one way then
    the other, and blurred by as far as the camera moved while it was
    exposed (:func:`benchmarks.bench_real_fans.shaken`).

    >>> frames = swaying(np.zeros((40, 60, 3), np.uint8), 6.0, 0.0)
    >>> len(frames), all(f.shape == (40, 60, 3) for f in frames)
    (8, True)
    """
    out = []
    along = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
    for k in range(SWAY):
        far = px * (1.0 - 2.0 * k / (3.0 * (SWAY - 1)))       # px down to px / 3
        moved = np.float32([[1, 0, 0], [0, 1, 0]])
        moved[:, 2] = along * far / 2 * (1 if k % 2 == 0 else -1)
        f = cv2.warpAffine(still, moved, (still.shape[1], still.shape[0]), borderMode=cv2.BORDER_REPLICATE)
        out.append(shaken(f, far, angle))
    return out


REFOCUS = (0.5, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2)   # a webcam refocusing after a hand passed: its blur, of the most


def refocusing(still: np.ndarray, px: float) -> list[np.ndarray]:
    """The frames a webcam left on autofocus gives while it refocuses after
    a hand passed under it: ``still`` blurred (Gaussian) by ``px`` camera
    pixels at most, as :data:`REFOCUS` goes (0.7 s at 10 frames a second).

    >>> frames = refocusing(np.zeros((40, 60, 3), np.uint8), 2.0)
    >>> len(frames) == len(REFOCUS), all(f.shape == (40, 60, 3) for f in frames)
    (True, True)
    """
    return [cv2.GaussianBlur(still, (0, 0), px * k) for k in REFOCUS]


def watch_top(det: CardDetector, gen: SceneGenerator, top: np.ndarray, plays: int, light: str,
              rng: np.random.Generator, details: list | None = None, joker_bombs: float = 0.0,
              white_balance: bool = True, bump: float = 0.0, blackout: float = 0.0, shake: float = 0.0,
              refocus: float = 0.0) -> Counter:
    """One table with ``top``, ``plays`` plays laid and swept in S's zone; the
    counts.  ``details``: gets one dict a play (the cards laid, the play
    events of its stretch of time).  ``joker_bombs``: the share of plays
    that are the joker bomb (else drawn as a match's); ``white_balance``:
    the watcher's (:mod:`vision.reading.white_balance`); ``bump``: halfway
    through, the camera is knocked (turned 0.5-3 degrees and pushed a
    quarter of ``bump`` mm to ``bump`` mm on the cloth) and stays so
    (:mod:`vision.reading.camera_shift`); 0: never.  ``blackout``: seconds
    without a picture in the middle of each play's still stretch (the kinds
    of :data:`BLACKOUTS` in turn); 0: none.  ``shake``: mm the camera's
    stand sways as each play's cards are laid (:func:`swaying`), for
    :data:`SWAY` frames after the hand leaves; 0: a still camera.
    ``refocus``: mm the camera's picture goes soft by as each play is laid
    (:func:`refocusing`); 0: a camera focused by hand."""
    if bump and plays < 2:
        # (halfway through one play is before its first frame: nothing to calibrate on, nothing to move from)
        raise ValueError("a knock comes between two plays: 2 plays or more")
    painter = TablePainter(gen, rng, top=top)
    script: list[np.ndarray] = []
    lit = (lambda f: f) if light == "as_shot" else (lambda f: relight(f, light, np.random.default_rng(0)))

    knocked: list[np.ndarray] = []      # the camera's move, once knocked (an affine map of the frame)

    def frame(cards: list[str] | None, hand: bool) -> np.ndarray:
        f = lit(painter.frame({ZONE: cards} if cards else {}, hands={ZONE} if hand else frozenset(), clean=True)[0])
        if knocked:
            f = cv2.warpAffine(f, knocked[0], (f.shape[1], f.shape[0]), borderMode=cv2.BORDER_REPLICATE)
        return f

    calibrated: list[TableGeometry] = []

    def geometry() -> TableGeometry:
        """The table as calibrated from its first frame (once: a marker search of the whole frame)."""
        if not calibrated:
            calibrated.append(calibrate(script[0]))
        return calibrated[0]

    laid, starts = [], []
    for p in range(plays):
        starts.append(len(script))
        if bump and p == plays // 2:
            h, w = painter.frame_size[1], painter.frame_size[0]
            m = cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.uniform(0.5, 3.0) * rng.choice([-1, 1])), 1.0)
            a = rng.uniform(0, 2 * np.pi)
            m[:, 2] += rng.uniform(bump / 4, bump) * cloth_px_mm(geometry()) * np.array([np.cos(a), np.sin(a)])
            knocked.append(m)
        cards = JOKER_BOMB if joker_bombs and rng.random() < joker_bombs else random_play(rng)
        laid.append(cards)
        script += [frame(None, False)] * BARE + [frame(cards, True)] * LAYING
        still = frame(cards, False)
        if refocus:
            script += refocusing(still, refocus * cloth_px_mm(geometry()))
        if shake:
            # (its own draw: the plays are the same as without the sway)
            script += swaying(still, shake * cloth_px_mm(geometry()),
                              float(np.random.default_rng([p, 77]).uniform(0.0, 180.0)))
        script += [still] * STILL
        if blackout:
            script += [BLACKOUTS[p % len(BLACKOUTS)](still)] * round(blackout * FPS) + [still] * STILL
        script += [frame(cards, True)] * SWEEPING
    starts.append(len(script))
    script += [frame(None, False)] * (BARE + 4)
    watcher = TableWatcher(geometry(), det, zones=[ZONE], stable_s=0.3, stable_frames=3,
                           white_balance=white_balance)
    events = [e for k, f in enumerate(script) for e in watcher.process(k / FPS, f)]
    c: Counter = Counter()
    seen = [e for e in events if e.type == "play"]
    clears = [e for e in events if e.type == "zone_clear"]
    # each play of the script is matched with the play events in its stretch of time
    for i, cards in enumerate(laid):
        t0, t1 = starts[i] / FPS, (starts[i + 1] + BARE) / FPS
        mine = [e for e in seen if t0 <= e.t < t1 and e.cards]
        c["plays"] += 1
        c["reported_right"] += any(read_right(list(e.cards), cards) for e in mine)
        c["reported_wrong"] += bool(mine) and not any(read_right(list(e.cards), cards) for e in mine)
        c["missed"] += not mine
        if cards == JOKER_BOMB:
            c["joker_bombs"] += 1
            c["joker_bombs_right"] += any(read_right(list(e.cards), cards) for e in mine)
            # read wrong, and no doubt raised on it: the dangerous kind
            c["joker_bombs_wrong_unasked"] += any(not read_right(list(e.cards), cards) and e.confidence >= ASKED
                                                  for e in mine)
        c["reported_more_than_once"] += len(mine) > 1
        c["cleared"] += any(t0 <= e.t < t1 for e in clears)
        if details is not None:
            details.append({"laid": cards, "seen": [{"t": e.t, "cards": list(e.cards or ()), "confidence": e.confidence,
                                                     "doubt": e.get("doubt")} for e in seen if t0 <= e.t < t1]})
    c["unread_plays"] += sum(1 for e in seen if not e.cards)
    said = [e for e in events if e.type == "device_status"]
    c["camera_moves"] += len(knocked)
    c["blackouts"] += plays if blackout else 0
    c["camera_found_again"] += sum(1 for e in said if e.get("online"))
    c["camera_lost"] += sum(1 for e in said if not e.get("online"))
    return c


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plays", type=int, default=3, help="plays laid on each top (1-50)")
    ap.add_argument("--tops", type=int, default=0, help="the first N surfaces only (0: all)")
    ap.add_argument("--lights", default="as_shot,warm,dim", help=f"comma-separated, of {', '.join(LIGHTS[:4])}")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--details", type=Path, help="also write each play (cards laid, events seen) here, JSON lines")
    ap.add_argument("--joker-bombs", type=float, default=0.0,
                    help="share of plays that are the joker bomb, 0-1 (default 0: plays drawn as a match's)")
    ap.add_argument("--bump", type=float, nargs="?", const=40.0, default=0.0, metavar="MM",
                    help="knock each table's camera halfway through: turned 0.5-3 degrees, pushed MM/4 to MM "
                         "(default 40) mm")
    ap.add_argument("--blackout", type=float, nargs="?", const=2.0, default=0.0, metavar="S",
                    help="take the picture away for S (default 2) seconds while each play lies still")
    ap.add_argument("--shake", type=float, nargs="?", const=2.0, default=0.0, metavar="MM",
                    help="the camera's stand sways MM (default 2) mm as each play is laid, dying away in 0.8 s")
    ap.add_argument("--refocus", type=float, nargs="?", const=1.0, default=0.0, metavar="MM",
                    help="the camera's picture goes soft by MM (default 1) mm as each play is laid, for 0.7 s "
                         "(a webcam refocusing)")
    ap.add_argument("--no-white-balance", action="store_true",
                    help="read the pictures as the camera gives them (the lamp's colour left in)")
    args = ap.parse_args(argv)
    if not 0.0 <= args.joker_bombs <= 1.0:     # (False for NaN too)
        ap.error("--joker-bombs: a share from 0 to 1")
    if not 0.0 <= args.bump <= 200.0:
        ap.error("--bump: 0 to 200 mm")
    if args.bump and args.plays < 2:
        ap.error("--bump knocks the camera between two plays: --plays 2 or more")
    if not 0.0 <= args.blackout <= 60.0:
        ap.error("--blackout: 0 to 60 seconds")
    if not 0.0 <= args.shake <= 20.0:
        ap.error("--shake: 0 to 20 mm")
    if not 0.0 <= args.refocus <= 10.0:
        ap.error("--refocus: 0 to 10 mm")
    if not 1 <= args.plays <= 50:
        ap.error("--plays: 1 to 50")
    lights = args.lights.split(",")
    if not lights or any(x not in LIGHTS[:4] for x in lights):
        ap.error(f"--lights: each one of {', '.join(LIGHTS[:4])} (a shadow band across the whole table is no light)")
    tops = surfaces()[:args.tops or None]
    if not tops:
        ap.error("no real surfaces installed (apt-get install mate-backgrounds mypaint-data-extras)")
    hands = [green_cloth_cutout(cv2.imread(str(p))) for p in sorted(RPS.glob("*.png"))]
    gen = SceneGenerator(load_decks(HELD_OUT_DECKS), hand_rate=0.0, hand_cutouts=hands or None)
    det = CardDetector(threads=args.threads)
    out: dict = {"tops": len(tops), "plays_a_top": args.plays, "decks": list(HELD_OUT_DECKS),
                 "joker_bomb_share": args.joker_bombs, "white_balance": not args.no_white_balance,
                 "camera_knocked_mm": args.bump, "blackout_s": args.blackout, "stand_sways_mm": args.shake,
                 "refocus_mm": args.refocus}
    total: Counter = Counter()
    start = time.perf_counter()
    details: list | None = [] if args.details else None
    for light in lights:
        c: Counter = Counter()
        wrong = []
        for k, s in enumerate(tops):
            # each table drawn from its own seed (the same with --tops, --lights)
            rng = np.random.default_rng([args.seed, LIGHTS.index(light), k])
            # the table's top: the surface at its own scale (tiles repeated, the photograph cropped)
            top = zone_surface(s, (1800, 1800), rng)
            mine: list | None = [] if details is not None else None
            got = watch_top(det, gen, top, args.plays, light, rng, mine, args.joker_bombs,
                            not args.no_white_balance, args.bump, args.blackout, args.shake, args.refocus)
            if details is not None and mine is not None:
                details += [{"light": light, "top": s.name, **d} for d in mine]
            c += got
            if got["reported_right"] < got["plays"] or got["unread_plays"] or got["cleared"] < got["plays"]:
                wrong.append({"top": s.name, **{k: v for k, v in got.items() if v}})
            print(f"  {light} {s.name}: {dict(got)}", file=sys.stderr, flush=True)
        out[light] = {**dict(sorted(c.items())), "tops_not_all_right": wrong}
        total += c
    out["all"] = dict(sorted(total.items()))
    out["seconds"] = round(time.perf_counter() - start, 1)
    if args.details:
        args.details.write_text("".join(json.dumps(d) + "\n" for d in details or []))
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
