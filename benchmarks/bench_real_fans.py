"""Plays of real card faces laid as rows, fans and tight fans, turned up to 45 degrees: read exactly?

The cards are :mod:`vision.training.card_faces`' real faces of a few
hundred decks (its ``valid`` and ``test`` splits by default: measured only,
never trained or tuned on); the laying is ours
(:func:`vision.training.card_faces.play_picture`): each play a legal
combination as a player lays it (:func:`combination`: a same-rank group
together, a run low to high), its faces from one stock (white card stock,
as tournament decks are printed, or the set's art decks:
:func:`vision.training.card_faces.white_stock`), each card a picture of
its own, laid left to right in a zone of a real table surface (:mod:`vision.training.real_surfaces`:
Debian's wooden boards, cork, paper and cloth; the zone picture with the
cloth round it that the table watcher reads) as (the combinations of each
kind's number of cards)

- ``row``: 1 to 4 cards side by side with small gaps (1.05-1.15 card widths apart);
- ``fan``: 2 to 6 cards, each over the last, 0.35-0.55 card widths apart;
- ``tight_fan``: 4 to 8 cards, 0.24-0.28 card widths apart (each card but
  the last showing little more than its index strip),

each card up to 2-3 degrees crooked, the play turned as a whole by an angle
drawn from 0-15, 15-30 and 30-45 degrees (either way round), under the
light as shot, dimmed, or with a hard shadow band across it (a lamp's tint
is left out: the table takes it out by its markers' white,
:mod:`vision.reading.white_balance`).  A smaller combination where the
play would not fit in the zone.  Each picture is read as the table watcher reads a
zone.  A play holds no jokers (the set's jokers are one folder of many
designs); two cards of one face from two decks may be drawn, as Guandan's
two decks give.  ``--random-faces`` draws each play's faces at random, as
before 2026-12-06: such plays are mostly no combination, which the reader
asks about whatever its score, so they hide how many right plays pass
unasked and how many wrong ones do.

Printed per stock, kind and angle: plays read exactly (the same faces, as
many of each), the same in order (left to right), card recall and
precision, plays with a phantom joker, nothing read; and what would reach
the referee unasked (the play's calibrated confidence,
:func:`vision.reading.tracker.play_confidence`, at or above the table's
default ``min_confidence``): right, and wrong; and each stock's totals
(``all plays``).  Then card recall by the
play's angle and in tight fans, every stock and kind together: the issue's
figures for real cards.  The cards are real; their laying, the surfaces'
cut and the light are ours, so this is not a photograph of a play.

``--venue-curve`` adds, for each stock, a confidence curve of the venue's
own (as ``guandan-ref camera-check --fit`` makes one from the reads its
referees judged) fitted on half of that stock's plays and judged on the
other half, beside the shipped curve fitted on generated plays: the reads
each puts at the table's threshold or more, and how many of those are
right.

``--shadow-after`` casts a hard shadow band over every play only once it
lay (the zone seen bare without it), as an arm or a player leaning over
the zone does: plays read right should not be marked as holding more than
their cards (``marked_right``).

``--px-per-mm ACROSS[,ALONG]`` reads every play as a camera seeing the
cloth that finely gives it (:func:`benchmarks.bench_real_piles.seen_at`;
ALONG alone coarser: a camera tilted up and down the zone): what a venue's
coarser camera costs.  ``--glare`` puts a lamp's glare on each play's
cards (:func:`glare_on_cards`), ``--motion-blur PX`` reads each play as a
camera moving PX px while exposed gives it (:func:`shaken`), ``--defocus
PX`` as a camera out of focus by PX px (a Gaussian blur).

A fan here is spread evenly, each card a step from the last; ``--uneven
SHARE`` spreads it as a hand does, each step within SHARE of the play's
either way (the play's span kept, so the same plays are drawn): what a
hand's uneven fan costs, and what any rule reading the fan's spacing
would ask about (models/MODEL_CARD.md, "A gap in a fan").

``--known-faces`` lays plays only of faces the reader reads right alone
and upright on a plain zone (:func:`faces_read_alone`): what rows, fans
and turns cost cards whose deck the classifier knows, apart from the
decks it has never met (a venue enrols its own: ``guandan-ref
enroll-deck``).  The screening is itself a choice of faces, so these
figures say what laying costs, not how well an unknown deck reads.

    python benchmarks/bench_real_fans.py --root ROOT [--plays 20] [--splits valid,test] [--per-play FILE] \
        [--venue-curve] [--random-faces] [--shadow-after] [--px-per-mm 1.5] [--glare] [--motion-blur 3] [--defocus 1] \
        [--uneven 0.3] [--known-faces]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_real_piles import PX_PER_MM_HELP, px_per_mm_value, seen_at, venue_cross_fit  # noqa: E402
from referee.settings import Settings  # noqa: E402
from vision.reading.classes import JOKERS  # noqa: E402
from vision.reading.detector import CardDetector, ZoneRead  # noqa: E402
from vision.reading.laid import EmptyLook  # noqa: E402
from vision.reading.table import ZONE_MARGIN_MM, ZONE_PX, Zone  # noqa: E402
from vision.reading.tracker import calibration_for, play_confidence  # noqa: E402
from vision.training.card_faces import (JOKER, SOURCE, CardFacesError, PlayDoesNotFit, face_pictures,  # noqa: E402
                                        play_picture, white_stock, zone_picture)

# kind: (card widths apart, fewest and most cards, most degrees a card lies crooked)
KINDS = {"row": ((1.05, 1.15), (1, 4), 2.0),
         "fan": ((0.35, 0.55), (2, 6), 3.0),
         "tight_fan": ((0.24, 0.28), (4, 8), 2.0)}
ANGLE_BINS = ((0, 15), (15, 30), (30, 45))
LIGHTS = ("as_shot", "dim", "shadow_band")
RANKS = "A23456789TJQKA"       # in order for straights, tubes and plates (an ace below 2 or above K)
SUITS = "SHDC"
# the combinations a player lays, by their number of cards (no jokers: the set's are one folder of many designs)
COMBINATIONS = {"single": (1,), "pair": (2,), "triple": (3,), "bomb": (4, 5, 6, 7, 8), "full_house": (5,),
                "straight": (5,), "straight_flush": (5,), "tube": (6,), "plate": (6,)}
BATCH = 8
MARGIN_PX = Zone.margin_px(ZONE_MARGIN_MM)     # the cloth round the zone the table watcher reads with it
GLARE_SIGMA_PX = (8.0, 25.0)   # a glare spot's spread: 2-6 cm across at the zones' 2.13 px/mm
GLARE_CARD_LEVEL = 30          # grey levels a laid card differs from the bare surface by, somewhere
def glare_on_cards(picture: np.ndarray, bare: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``picture`` with a lamp's glare on its cards: a soft round spot where a
    glossy card reflects the lamp (2-6 cm across, :data:`GLARE_SIGMA_PX`),
    washed towards white (most of the way at its middle), centred on a
    pixel where the play differs from its ``bare`` surface (a card), and
    only within the play's outline (the cloth round the cards is matte and
    shows none).  The picture as it is where nothing was laid.

    >>> bare = np.full((60, 80, 3), 90, np.uint8)
    >>> play = bare.copy(); play[20:40, 30:50] = 150
    >>> lit = glare_on_cards(play, bare, np.random.default_rng(1))
    >>> int(lit[20:40, 30:50].max()) > 200, np.array_equal(lit[:18], play[:18]), lit.shape == play.shape
    (True, True, True)
    >>> glare_on_cards(bare, bare, np.random.default_rng(1)) is bare
    True
    """
    cards = np.argwhere(np.abs(picture.astype(np.int16) - bare.astype(np.int16)).max(axis=2) > GLARE_CARD_LEVEL)
    if not len(cards):
        return picture
    y, x = cards[int(rng.integers(len(cards)))]
    sigma = float(rng.uniform(*GLARE_SIGMA_PX))
    yy, xx = np.mgrid[0:picture.shape[0], 0:picture.shape[1]].astype(np.float32)
    spot = float(rng.uniform(0.75, 1.0)) * np.exp(-((yy - y) ** 2 + (xx - x) ** 2) / (2 * sigma ** 2))
    # (on the cards alone: the play's outline, the hull of where it differs from the bare surface)
    glossy = np.zeros(picture.shape[:2], np.uint8)
    cv2.fillConvexPoly(glossy, cv2.convexHull(cards[:, ::-1].astype(np.int32)), 1)
    spot *= glossy
    f = picture.astype(np.float32)
    return np.clip(f + (255.0 - f) * spot[:, :, None], 0, 255).astype(np.uint8)


def shaken(picture: np.ndarray, length: float, angle: float) -> np.ndarray:
    """``picture`` as a camera that moved ``length`` px (the zones' scale)
    along ``angle`` degrees while it was exposed gives it: a line blur (a
    camera on a stand that the table's knocks shake).  Under 1 px, the
    picture as it is.

    >>> img = np.zeros((9, 21, 3), np.uint8); img[:, 10] = 210
    >>> [int(v) for v in shaken(img, 3, 0.0)[4, 8:13, 0]]
    [0, 70, 70, 70, 0]
    >>> shaken(img, 0.5, 0.0) is img
    True
    """
    if length < 1:
        return picture
    k = int(np.ceil(length)) | 1        # an odd kernel, the line through its middle
    line = np.zeros((k, k), np.float32)
    c = k // 2
    dx, dy = np.cos(np.radians(angle)) * (length - 1) / 2, np.sin(np.radians(angle)) * (length - 1) / 2
    cv2.line(line, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1)
    return cv2.filter2D(picture, -1, line / line.sum(), borderType=cv2.BORDER_REPLICATE)


def combination(least: int, most: int, have: dict[str, int], rng: np.random.Generator) -> tuple[str, list[str]]:
    """A legal Guandan combination (:data:`COMBINATIONS`) of ``least`` to
    ``most`` cards, as a player lays it (a same-rank group together, a run
    low to high), drawn from the faces ``have`` holds pictures of (face:
    how many; two decks: no face more than twice): its kind and faces.
    Raises :class:`CardFacesError` where none can be drawn.

    >>> have = {s + r: 2 for s in SUITS for r in RANKS[1:]}
    >>> rng = np.random.default_rng(1)
    >>> draws = [combination(4, 8, have, rng) for _ in range(200)]
    >>> sorted({kind for kind, _ in draws})
    ['bomb', 'full_house', 'plate', 'straight', 'straight_flush', 'tube']
    >>> all(4 <= len(faces) <= 8 for _, faces in draws)
    True
    >>> combination(1, 1, have, rng)[0]
    'single'
    """
    kinds = [k for k, sizes in COMBINATIONS.items() if any(least <= n <= most for n in sizes)]
    for _ in range(200):
        kind = kinds[int(rng.integers(len(kinds)))]
        n = int(rng.choice([v for v in COMBINATIONS[kind] if least <= v <= most]))
        flush = SUITS[int(rng.integers(4))]
        if kind in ("straight", "straight_flush", "tube", "plate"):
            per, length = {"straight": (1, 5), "straight_flush": (1, 5), "tube": (2, 3), "plate": (3, 2)}[kind]
            low = int(rng.integers(len(RANKS) - length + 1))
            groups = [(RANKS[low + k], per) for k in range(length)]
        else:
            ranks = [str(r) for r in rng.permutation(list(RANKS[1:]))]
            groups = [(ranks[0], n)] if kind != "full_house" else [(ranks[0], 3), (ranks[1], 2)]
        faces: list[str] = []
        for rank, count in groups:
            if kind == "straight_flush":
                options = [flush + rank] * min(1, have.get(flush + rank, 0))
            else:       # each suit at most twice (two decks) and no more often than there are pictures of it
                options = [s + rank for s in SUITS for _ in range(min(2, have.get(s + rank, 0)))]
            if len(options) < count:
                break
            faces += [options[int(k)] for k in rng.choice(len(options), size=count, replace=False)]
        else:
            return kind, faces
    raise CardFacesError(f"no combination of {least} to {most} cards can be drawn from these faces")


def lay_plays(faces: list[tuple[np.ndarray, str]], kind: str, angles: tuple[float, float], count: int,
              rng: np.random.Generator, combinations: bool = True, shadow_after: bool = False,
              uneven: float = 0.0, spread: np.random.Generator | None = None
              ) -> list[tuple[np.ndarray, np.ndarray, list[str], float, str]]:
    """``count`` plays of ``kind`` from ``faces`` (pictures and their faces),
    each turned by an angle in ``angles`` (degrees, either way round), on a
    real surface under one of :data:`LIGHTS`: (picture, the surface bare
    under the same light, faces left to right, angle, combination) each.
    Each play is a legal combination (:func:`combination`), each card a
    picture of its own; where it would not fit in the zone, a smaller one is
    drawn.  ``combinations=False``: faces drawn at random, as before
    2026-12-06 (the combination then says ``random``), and cards left off
    the end until the play fits.  ``shadow_after``: every play under a hard
    shadow band cast only once it lay, the surface bare as shot (an arm or
    a player leaning over the zone after laying: what the table watcher's
    empty look must not take for a card; the draws are as without it).
    ``uneven``: each card's step from the last drawn from ``spread`` (a
    generator of its own) within that share of the play's step either way,
    then all scaled so the play spans what it would evenly (a fan spread by
    hand, not by a machine; its outer cards lie as they would, so the plays
    drawn are as without it)."""
    from vision.training.real_surfaces import relight, surfaces, zone_surface

    steps, (least, most), crooked = KINDS[kind]
    tops = surfaces()
    m = MARGIN_PX
    size = (ZONE_PX[0] + 2 * m, ZONE_PX[1] + 2 * m)
    by_face: dict[str, list[int]] = defaultdict(list)
    for k, (_, f) in enumerate(faces):
        by_face[f].append(k)
    have = {f: len(ks) for f, ks in by_face.items()}

    def draw(fewest: int, most_cards: int) -> tuple[str, list[tuple[np.ndarray, str]]]:
        if not combinations:
            n = int(rng.integers(fewest, most_cards + 1))
            return "random", [faces[int(k)] for k in rng.choice(len(faces), size=n, replace=False)]
        name, codes = combination(fewest, most_cards, have, rng)
        # (sorted: a set's order differs from run to run, and so did the faces drawn)
        pools = {f: [int(k) for k in rng.permutation(by_face[f])] for f in sorted(set(codes))}
        return name, [faces[pools[f].pop()] for f in codes]

    out = []
    while len(out) < count:
        angle = float(rng.uniform(*angles)) * float(rng.choice([-1.0, 1.0]))
        step = float(rng.uniform(*steps))
        if tops:
            surface = zone_surface(tops[int(rng.integers(len(tops)))], size, rng)
        else:
            surface = np.full((size[1], size[0], 3), 120, np.uint8)
        name, picks = draw(least, most)
        own = [float(v) for v in rng.uniform(-crooked, crooked, size=len(picks))]
        light = str(rng.choice(LIGHTS))
        while True:     # fewer cards until the play fits in the zone
            try:
                picture = surface.copy()      # (laid in the zone, the cloth round it as it was)
                spaced = None
                if uneven and spread is not None and len(picks) > 2:
                    # (the play's span kept: its outer cards lie as they would, so it fits as it would;
                    # two cards have one step, nothing to spread)
                    f = spread.uniform(1 - uneven, 1 + uneven, len(picks) - 1)
                    spaced = [step * float(v) for v in f * (len(f) / f.sum())]
                picture[m:-m, m:-m] = play_picture([p for p, _ in picks], surface[m:-m, m:-m], angle, step, own,
                                                   spaced)
                break
            except PlayDoesNotFit:
                if len(picks) == least:
                    picture = None
                    break
                if combinations:
                    name, picks = draw(least, len(picks) - 1)
                else:
                    picks = picks[:-1]
                own = own[:len(picks)]
        if picture is None:
            continue
        lit = int(rng.integers(2 ** 31))      # (one shadow on the bare surface and the play)
        # (cast after: the band over the play alone, the surface bare as shot)
        bare = surface if shadow_after else relight(surface, light, np.random.default_rng(lit))
        out.append((relight(picture, "shadow_band" if shadow_after else light, np.random.default_rng(lit)), bare,
                    [f for _, f in picks], angle, name))
    return out


def measure(det: CardDetector, root: Path, splits: tuple[str, ...] = ("valid", "test"), plays: int = 20,
            seed: int = 424242, per_play: list | None = None, marked: bool = True,
            venue_curve: bool = False, combinations: bool = True, empty_look: bool = True,
            shadow_after: bool = False, px_per_mm: tuple[float, float] | None = None,
            glare: bool = False, motion_blur: float = 0.0, defocus: float = 0.0, uneven: float = 0.0,
            known_faces: bool = False) -> dict:
    """The figures of the module's docstring: ``plays`` plays of each stock,
    kind and angle bin.  ``per_play``: a list that gets one dict a play.
    ``combinations``: each play a legal combination (else faces drawn at
    random, as before 2026-12-06: :func:`lay_plays`).
    ``marked``: each read marked where more lies in the zone than its cards
    cover, as the table watcher marks it (:class:`vision.reading.laid.EmptyLook`).
    ``empty_look``: each zone read with its bare surface as the zone seen
    empty (:func:`vision.reading.looks.laid_where`), as the table watcher
    reads a play zone (since 2026-12-06); False: from the picture alone.
    ``venue_curve``: also a confidence curve of the venue's own, fitted on
    half of a stock's plays as ``guandan-ref camera-check --fit`` fits one and
    judged on the other half (:func:`benchmarks.bench_real_piles.venue_cross_fit`).
    ``shadow_after``: see :func:`lay_plays` (each group's ``more_than_read``
    then says how many plays the empty look marks, right ones among them).
    ``px_per_mm``: every play and its bare surface as a camera seeing the
    cloth that finely (across, along the zone) gives them (:func:`seen_at`;
    the draws are as without it).  ``glare``: every play with a lamp's
    glare on its cards (:func:`glare_on_cards`; drawn apart, so the plays
    are as without it).  ``motion_blur``: every play and its bare surface
    as a camera moving that many px while exposed gives them (:func:`shaken`,
    each play its own direction).  ``defocus``: every play and its bare
    surface out of focus by that much (a Gaussian blur of that many px,
    the zones' scale: a webcam refocusing).  ``uneven``: see :func:`lay_plays`
    (the spacing drawn apart: the plays are as without it).  ``known_faces``:
    plays laid only of faces the reader reads right alone
    (:func:`faces_read_alone`; other plays are drawn)."""
    rng = np.random.default_rng(seed)
    spread = np.random.default_rng([seed, 11])
    spots = np.random.default_rng([seed, 7])
    rows: list[dict] = []
    calibration, asked_below = calibration_for(det), Settings().min_confidence
    pools = face_pools(root, splits)
    counted = {white: len(pool) for white, pool in pools.items()}
    if known_faces:
        pools = {white: faces_read_alone(det, pool) for white, pool in pools.items()}
    out: dict = {"source": f"{SOURCE[0]} {SOURCE[1]} ({SOURCE[2]}); real card faces, laid as plays here"
                           + ("; a hard shadow cast over each once it lay" if shadow_after else "")
                           + ("; a lamp's glare on each play's cards" if glare else "")
                           + (f"; the camera moving {motion_blur:g} px while exposed" if motion_blur else "")
                           + (f"; out of focus by {defocus:g} px" if defocus else "")
                           + (f"; each card's step within {uneven:.0%} of the play's" if uneven else ""),
                 **({"camera_px_per_mm": {"across": px_per_mm[0], "along": px_per_mm[1]}} if px_per_mm else {}),
                 "splits": list(splits),
                 "faces": {"white card stock": len(pools[True]),
                           "coloured or dark stock (art decks)": len(pools[False])}}
    if known_faces:
        out["faces"] = {stock: f"{len(pools[white])} of {counted[white]} read right alone, upright"
                        for white, stock in ((True, "white card stock"), (False, "coloured or dark stock (art decks)"))}
    by_angle: dict[str, Counter] = {f"{lo}-{hi}": Counter() for lo, hi in ANGLE_BINS}
    tight = Counter()
    totals: dict[str, Counter] = defaultdict(Counter)
    for white, stock in ((True, "white card stock"), (False, "coloured or dark stock (art decks)")):
        if not pools[white]:
            continue
        for kind in KINDS:
            for lo, hi in ANGLE_BINS:
                c = Counter()
                laid = lay_plays(pools[white], kind, (lo, hi), plays, rng, combinations, shadow_after, uneven, spread)
                if glare:
                    laid = [(glare_on_cards(p, b, spots), b, *rest) for p, b, *rest in laid]
                if defocus:
                    laid = [(cv2.GaussianBlur(p, (0, 0), defocus), cv2.GaussianBlur(b, (0, 0), defocus), *rest)
                            for p, b, *rest in laid]
                if motion_blur:
                    laid = [(shaken(p, motion_blur, a), shaken(b, motion_blur, a), *rest)
                            for (p, b, *rest), a in zip(laid, spots.uniform(0.0, 180.0, len(laid)))]
                if px_per_mm is not None:
                    laid = [(seen_at(p, *px_per_mm), seen_at(b, *px_per_mm), *rest) for p, b, *rest in laid]
                for i in range(0, len(laid), BATCH):
                    batch = laid[i:i + BATCH]
                    # (the zone seen bare before: its cards looked for where it changed, as the table
                    # watcher reads a play zone it has seen empty)
                    reads = det.read_zones([p for p, *_ in batch], det.imgsz / max(ZONE_PX), MARGIN_PX,
                                           empties=[b for _, b, *_ in batch] if empty_look else None)
                    for (picture, bare, truth, angle, shape), read in zip(batch, reads):
                        if marked:
                            # as the table watcher marks it, the zone seen bare before the play was laid
                            look = EmptyLook()
                            look("zone", 0.0, bare, MARGIN_PX, ZoneRead())
                            read = look("zone", 1.0, picture, MARGIN_PX, read)
                        names = read.names
                        found = sum((Counter(names) & Counter(truth)).values())
                        confidence = play_confidence(read.confidence, names, calibration)[0] if names else 0.0
                        unasked = bool(names) and confidence >= asked_below
                        exact = Counter(names) == Counter(truth)
                        c["plays"] += 1
                        c["cards"] += len(truth)
                        c["read"] += len(names)
                        c["found"] += found
                        c["exact"] += exact
                        c["in_order"] += names == truth
                        c["phantom_jokers"] += any(n in JOKERS for n in names)
                        c["nothing_read"] += not names
                        c["exact_unasked"] += exact and unasked
                        c["wrong_unasked"] += (not exact) and unasked
                        c["unexplained"] += read.unexplained > 0
                        c["unexplained_exact"] += read.unexplained > 0 and exact
                        for k in (by_angle[f"{lo}-{hi}"], *((tight,) if kind == "tight_fan" else ())):
                            k["cards"] += len(truth)
                            k["found"] += found
                        rows.append({"stock": stock, "kind": kind, "combination": shape, "angle": round(angle, 1),
                                     "truth": truth,
                                     "read": names, "exact": exact, "raw": round(float(read.confidence), 4),
                                     "confidence": round(float(confidence), 4), "asked": not unasked,
                                     "unexplained": read.unexplained})
                out.setdefault(stock, {}).setdefault(kind, {})[f"{lo}-{hi} degrees"] = _figures(c)
                totals[stock] += c
    for stock, t in totals.items():
        out[stock]["all plays"] = {"plays": t["plays"], "exact": round(t["exact"] / max(1, t["plays"]), 3),
                                   "card_recall": _recall(t),
                                   "card_precision": round(t["found"] / max(1, t["read"]), 3),
                                   "right_not_asked": f"{t['exact_unasked']} of {t['exact']}",
                                   "wrong_not_asked": f"{t['wrong_unasked']} of {t['plays'] - t['exact']}",
                                   # where more lies in the zone than the read covers (asked about)
                                   "marked_right": f"{t['unexplained_exact']} of {t['exact']}",
                                   "marked_wrong": f"{t['unexplained'] - t['unexplained_exact']} of "
                                                   f"{t['plays'] - t['exact']}"}
    out["card recall by angle, all plays"] = {k: _recall(v) for k, v in by_angle.items()}
    out["card recall in tight fans, all angles"] = _recall(tight)
    if venue_curve:
        # a venue plays one deck: each stock's plays fitted and judged apart
        out["venue_curve"] = {stock: venue_cross_fit([r for r in rows if r["stock"] == stock], calibration,
                                                     asked_below)
                              for stock in ("white card stock", "coloured or dark stock (art decks)")
                              if any(r["stock"] == stock for r in rows)}
    if per_play is not None:
        per_play.extend(rows)
    return out


def face_pools(root: Path, splits: tuple[str, ...]) -> dict[bool, list[tuple[np.ndarray, str]]]:
    """The faces of ``splits`` of the card-face set at ``root`` but its jokers,
    as (picture, face), by stock: white card stock (True) or an art deck."""
    pools: dict[bool, list[tuple[np.ndarray, str]]] = {True: [], False: []}
    for f in (f for s in splits for f in face_pictures(root, s)):
        if f.face == JOKER:
            continue
        img = cv2.imread(str(f.path), cv2.IMREAD_COLOR)
        if img is None:
            raise CardFacesError(f"cannot read {f.path}")
        pools[white_stock(img)].append((img, f.face))
    return pools


def faces_read_alone(det: CardDetector, faces: list[tuple[np.ndarray, str]]) -> list[tuple[np.ndarray, str]]:
    """Those of ``faces`` (pictures and their faces) the reader reads right
    laid alone, upright, in the middle of a plain grey zone (seen bare
    before): the cards whose deck it knows, so that plays of them measure
    what laying costs (fans, turns, cards over cards), not which decks the
    classifier has met.  A picture cut so that its top-left index does not
    show, or an art deck's index the classifier cannot name, is left out
    here; a real deck at a table prints its indices (and an event's own can
    be enrolled: ``guandan-ref enroll-deck``)."""
    m = MARGIN_PX
    bare = np.full((ZONE_PX[1] + 2 * m, ZONE_PX[0] + 2 * m, 3), 120, np.uint8)
    kept = []
    for i in range(0, len(faces), BATCH):
        batch = faces[i:i + BATCH]
        pictures = []
        for img, _ in batch:
            picture = bare.copy()
            picture[m:-m, m:-m] = zone_picture(img, bare[m:-m, m:-m])
            pictures.append(picture)
        reads = det.read_zones(pictures, det.imgsz / max(ZONE_PX), m, empties=[bare] * len(pictures))
        kept += [(img, face) for (img, face), read in zip(batch, reads) if list(read.names) == [face]]
    return kept


def _recall(c: Counter) -> str:
    return f"{c['found']}/{c['cards']} = {c['found'] / max(1, c['cards']):.3f}"


def _figures(c: Counter) -> dict:
    """One group's figures from its counts."""
    n = max(1, c["plays"])
    return {"plays": c["plays"], "exact": round(c["exact"] / n, 3), "in_order": round(c["in_order"] / n, 3),
            "card_recall": round(c["found"] / max(1, c["cards"]), 3),
            "card_precision": round(c["found"] / max(1, c["read"]), 3),
            "phantom_jokers": c["phantom_jokers"], "nothing_read": c["nothing_read"],
            "exact_not_asked": c["exact_unasked"], "wrong_not_asked": c["wrong_unasked"],
            "more_than_read": f"{c['unexplained']} ({c['unexplained_exact']} read exactly)"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, required=True,
                    help="the folder holding faces/ (see vision/training/card_faces.py)")
    ap.add_argument("--splits", default="valid,test", help="comma-separated: train, valid, test")
    ap.add_argument("--plays", type=int, default=20, help="plays of each stock, kind and angle bin (1-1000)")
    ap.add_argument("--seed", type=int, default=424242)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--per-play", type=Path, help="also write each play's read here (JSON lines)")
    ap.add_argument("--venue-curve", action="store_true",
                    help="also a venue's own confidence curve: fitted on half of each stock's plays, "
                         "judged on the rest")
    ap.add_argument("--random-faces", action="store_true",
                    help="each play's faces drawn at random, not a legal combination (as before 2026-12-06)")
    ap.add_argument("--unmarked", action="store_true",
                    help="reads not marked where more lies in the zone than they cover (as before 2026-12-06)")
    ap.add_argument("--no-empty-look", action="store_true",
                    help="each zone read from its picture alone, not with the zone seen bare (as before "
                         "2026-12-06, session 46)")
    ap.add_argument("--shadow-after", action="store_true",
                    help="every play under a hard shadow band cast only once it lay (the zone seen bare "
                         "without it): right plays the empty look marks should stay 0")
    ap.add_argument("--glare", action="store_true",
                    help="every play with a lamp's glare on its cards (a white spot 2-6 cm across)")
    ap.add_argument("--motion-blur", type=float, default=0.0, metavar="PX",
                    help="every play and its bare zone as a camera moving PX px (0-20) while exposed gives them")
    ap.add_argument("--defocus", type=float, default=0.0, metavar="PX",
                    help="every play and its bare zone out of focus: a Gaussian blur of PX px (0-10)")
    ap.add_argument("--px-per-mm", type=px_per_mm_value, metavar="ACROSS[,ALONG]",
                    help=PX_PER_MM_HELP)
    ap.add_argument("--known-faces", action="store_true",
                    help="plays laid only of faces the reader reads right alone, upright: what laying costs "
                         "cards whose deck it knows")
    ap.add_argument("--uneven", type=float, default=0.0, metavar="SHARE",
                    help="each card's step from the last within SHARE (0-0.5) of the play's either way: a fan "
                         "spread by hand (the cards and their order as without it)")
    args = ap.parse_args(argv)
    if not 1 <= args.plays <= 1000:
        ap.error("--plays: from 1 to 1000")
    if not 0 <= args.motion_blur <= 20:         # (NaN fails both)
        ap.error("--motion-blur: from 0 to 20 px")
    if not 0 <= args.defocus <= 10:
        ap.error("--defocus: from 0 to 10 px")
    if not 0 <= args.uneven <= 0.5:
        ap.error("--uneven: a share from 0 to 0.5")
    det = CardDetector(threads=args.threads)
    rows: list | None = [] if args.per_play else None
    try:
        out = measure(det, args.root, tuple(s for s in args.splits.split(",") if s), args.plays, args.seed, rows,
                      not args.unmarked, args.venue_curve, not args.random_faces, not args.no_empty_look,
                      args.shadow_after, args.px_per_mm, args.glare, args.motion_blur, args.defocus,
                      uneven=args.uneven, known_faces=args.known_faces)
    except CardFacesError as e:
        print(f"bench_real_fans: {e}", file=sys.stderr)
        return 2
    if args.per_play and rows is not None:
        args.per_play.write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
