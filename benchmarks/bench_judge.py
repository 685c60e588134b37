"""Judgements per second on (play, previous) pairs drawn from random deals.

    python benchmarks/bench_judge.py [--pairs 100000] [--seed 1]

Each pair comes from one random deal at a random level, wildcards included:
the play is a combination from one hand (laid in order, or shuffled: an
arrangement problem) or a random handful of cards (mostly no combination);
the previous play is a combination from another hand (or none: a lead).
Prints judgements per second on one core, and the mix of verdicts.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee import LEVELS, judge  # noqa: E402
from referee.hands import combinations_in, deal  # noqa: E402


def draw_pairs(n: int, seed: int) -> list[tuple]:
    rng = random.Random(seed)
    pairs = []
    while len(pairs) < n:
        level = rng.choice(LEVELS)
        hands = deal(rng)
        seats = rng.sample("SENW", 2)
        mine, theirs = hands[seats[0]], hands[seats[1]]
        my_plays = combinations_in(mine, level)
        their_plays = combinations_in(theirs, level)
        for _ in range(50):
            r = rng.random()
            if r < 0.6:
                play = list(rng.choice(my_plays).cards)
            elif r < 0.75:
                play = list(rng.choice(my_plays).cards)
                rng.shuffle(play)
            else:
                play = rng.sample(mine, rng.randint(1, 8))
            prev = None if rng.random() < 0.2 else rng.choice(their_plays)
            pairs.append((tuple(c.code for c in play), level, prev))
    return pairs[:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    t0 = time.perf_counter()
    pairs = draw_pairs(args.pairs, args.seed)
    print(f"drew {len(pairs):,} pairs in {time.perf_counter() - t0:.1f} s")

    verdicts = Counter()
    start = time.perf_counter()
    for play, level, prev in pairs:
        j = judge(play, level, prev)
        verdicts[j.code or "legal"] += 1
    elapsed = time.perf_counter() - start
    print(f"judged {len(pairs):,} pairs in {elapsed:.2f} s: "
          f"{len(pairs) / elapsed:,.0f} judgements per second (one core, card codes parsed each time)")
    print("verdicts:", dict(verdicts))
    target = 100_000
    print(f"aim: {target:,}/s -> {'met' if len(pairs) / elapsed >= target else 'NOT met'}")


if __name__ == "__main__":
    main()
