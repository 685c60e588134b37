"""benchmarks/bench_false_penalties.py: a real read's mistake carried onto a simulated
play, and a match without faults judged with the referee answering every request."""

import json
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.bench_false_penalties import carried, load_rows, read_match, refereed
from referee.settings import Settings
from referee.simulation import simulate_match


def test_a_reads_mistake_lands_at_the_same_place_of_the_play():
    assert carried(["S5", "H5"], {"truth": ["SQ", "DQ"], "read": ["SQ", "DQ"]}) == ["S5", "H5"]
    assert carried(["S5", "H5", "D5"], {"truth": ["SQ", "DQ", "CQ"], "read": ["SQ", "CQ"]}) == ["S5", "D5"]
    assert carried(["S5", "H5"], {"truth": ["SQ", "DQ"], "read": ["SQ", "D9"]}) == ["S5", "D9"]
    assert carried(["S5"], {"truth": ["S8"], "read": ["S8", "LJ"]}) == ["S5", "LJ"]


def _rows(tmp_path, wrong_pairs: bool):
    """Every combination read right, and pairs read as singles at 0.99 where ``wrong_pairs``."""
    kinds = ("single", "pair", "triple", "full_house", "straight", "tube", "plate", "bomb", "straight_flush")
    path = tmp_path / "rows.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for kind in kinds:
            truth = ["SQ", "DQ"] if kind == "pair" else ["SQ"]
            read = truth[:1] if kind == "pair" and wrong_pairs else truth
            f.write(json.dumps({"stock": "white card stock", "combination": kind, "truth": truth, "read": read,
                                "confidence": 0.99, "asked": False}) + "\n")
    return load_rows(path, "white")


def test_a_camera_that_reads_right_gives_no_penalty_and_asks_nothing(tmp_path):
    rows = _rows(tmp_path, wrong_pairs=False)
    settings = Settings.parse_format("deals:1")
    events = simulate_match(seed=1, settings=settings)
    seen, wrong = read_match(events, rows, np.random.default_rng(0))
    assert wrong == 0 and [e.get("cards") for e in seen] == [e.get("cards") for e in events]
    given, did = refereed(events, seen, settings)
    assert not given and not did


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_pairs_read_as_singles_give_false_penalties_at_once_and_none_when_held(tmp_path, seed):
    # (three deals: a seat going out on a pair read as a single, a deal the reads leave unfinished at
    # the next deal's start; session 45's engine gave 2-6 false penalties on each of these seeds)
    rows = _rows(tmp_path, wrong_pairs=True)
    settings = Settings.parse_format("deals:3")
    events = simulate_match(seed=seed, settings=settings)
    seen, wrong = read_match(events, rows, np.random.default_rng(seed))
    pairs = sum(1 for e in events if e["type"] == "play" and len(e["cards"]) == 2 and e["cards"][0][1] == e["cards"][1][1])
    assert wrong == pairs > 0
    scored = {"direct": Counter(), "held": Counter()}
    direct, _ = refereed(events, seen, replace(settings, camera_penalties="direct"), scored["direct"])
    held, did = refereed(events, seen, settings, scored["held"])
    assert sum(direct.values()) > 0 and not held
    assert did["count"] > 0              # held for the referee, who counted the hands
    # and every deal is scored as it was played (level, 上游 and 二游, upgrade)
    assert scored["held"]["as_played"] == scored["held"]["deals"] == 3
    assert scored["direct"]["as_played"] < 3


@settings(max_examples=30, deadline=None, derandomize=True)
@given(seed=st.integers(1, 10_000), errors=st.lists(
    st.tuples(st.integers(0, 400), st.sampled_from(["miss", "add", "name"]),
              st.sampled_from(["S3", "HK", "D9", "LJ", "CA", "H2"])),
    min_size=1, max_size=30))
def test_whatever_the_camera_misreads_surely_a_referee_answering_rightly_gets_the_true_record(seed, errors):
    # any plays read short of a card, with a card too many or one misnamed, each at 0.99 (sure, not
    # asked for that): no penalty is given, and every deal is scored as it was played
    settings = Settings.parse_format("deals:3")
    events = simulate_match(seed=seed, settings=settings)
    plays = [k for k, e in enumerate(events) if e["type"] == "play" and e.get("source") == "vision"]
    seen = [dict(e) for e in events]
    for at, kind, card in errors:
        e = seen[plays[at % len(plays)]]
        cards = list(e["cards"])
        if kind == "miss" and len(cards) > 1:
            cards.pop()
        elif kind == "add":
            cards.append(card)
        elif kind == "name":
            cards[-1] = card
        e.update(cards=cards, confidence=0.99)
    scored: Counter = Counter()
    given, _ = refereed(events, seen, settings, scored)
    assert not given
    assert scored["as_played"] == scored["deals"] > 0
