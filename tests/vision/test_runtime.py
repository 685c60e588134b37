"""A model's work shared out between the cores reads exactly as one run does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vision.reading.detector import EIGHT_BIT_MODEL, CardDetector, DetectorError
from vision.reading.index_classifier import EIGHT_BIT_MODEL as CLF_MODEL
from vision.reading.runtime import ParallelSession, Workers, cpu_session
from vision.reading.table import ZONE_MARGIN_MM, ZONE_PX, Zone


@pytest.fixture(scope="module")
def detector_session():
    return ParallelSession(EIGHT_BIT_MODEL, threads=2)


def test_a_split_batch_gives_what_one_run_gives(detector_session):
    rng = np.random.default_rng(1)
    four = rng.random((4, 3, 256, 352), dtype=np.float32)
    name = detector_session.get_inputs()[0].name
    whole = cpu_session(EIGHT_BIT_MODEL, 2).run(None, {name: four})[0]
    shared = detector_session.run(None, {name: four})[0]
    assert detector_session.shares([4]) == [[(0, 0, 2)], [(0, 2, 4)]]
    assert shared.shape == whole.shape and np.array_equal(shared, whole)


def test_batches_of_other_sizes_run_side_by_side_in_order(detector_session):
    rng = np.random.default_rng(2)
    name = detector_session.get_inputs()[0].name
    feeds = [{name: rng.random((1, 3, h, w), dtype=np.float32)} for h, w in ((448, 448), (320, 384), (256, 352))]
    alone = [detector_session.one.run(None, f)[0] for f in feeds]
    together = detector_session.run_many(None, feeds)
    assert [t[0].shape for t in together] == [a.shape for a in alone]
    assert all(np.array_equal(t[0], a) for t, a in zip(together, alone))


def test_a_batch_shared_out_beside_larger_pictures_keeps_each_output_in_place(detector_session):
    # a table's four zones and two larger turned pictures: the zones' batch is
    # split between the threads, each output still where its picture was
    rng = np.random.default_rng(3)
    name = detector_session.get_inputs()[0].name
    feeds = [{name: rng.random(shape, dtype=np.float32)}
             for shape in ((4, 3, 256, 352), (1, 3, 416, 416), (1, 3, 384, 448))]
    shares = detector_session.shares([4, 1, 1], [256 * 352, 416 * 416, 384 * 448])
    assert sorted(p[0] for s in shares for p in s).count(0) == 2      # the batch of four was split
    alone = [detector_session.one.run(None, f)[0] for f in feeds]
    together = detector_session.run_many(None, feeds)
    assert all(np.array_equal(t[0], a) for t, a in zip(together, alone))


@given(st.lists(st.tuples(st.integers(0, 6), st.integers(1, 50)), min_size=1, max_size=8), st.integers(1, 4))
def test_shares_run_every_picture_once_and_balance_the_work(batches, threads):
    s = ParallelSession.__new__(ParallelSession)
    s.threads, s.splits = threads, True
    sizes, work = [n for n, _ in batches], [w for _, w in batches]
    shares = s.shares(sizes, work)
    for k, n in enumerate(sizes):
        runs = sorted((a, b) for share in shares for j, a, b in share if j == k)
        # each batch's parts follow one another from its first picture to its last
        assert (not runs) if n == 0 else ([a for a, _ in runs] == [0] + [b for _, b in runs[:-1]] and runs[-1][1] == n)
    loads = [sum((b - a) * work[k] for k, a, b in share) for share in shares]
    if not loads:
        assert sum(sizes) == 0
        return
    assert len(shares) <= threads and all(loads)
    # no thread has more than another plus one picture's work (pictures handed out costliest first)
    assert max(loads) - min(loads) <= max((w for n, w in batches if n), default=0)


def test_work_handed_to_one_thread_runs_in_the_callers_thread_and_raises_when_asked():
    w = Workers(1)
    assert w.map(str, [1, 2]) == ["1", "2"]
    failed = w.submit(int, "not a number")
    with pytest.raises(ValueError):
        failed.result()
    assert not w.started
    two = Workers(2)
    assert two.map(lambda x: -x, range(5)) == [0, -1, -2, -3, -4] and two.started


def test_one_thread_shares_nothing_out():
    s = ParallelSession(CLF_MODEL, threads=1)
    assert s.wide is s.one and s.shares([8]) == [[(0, 0, 8)]]
    x = np.zeros((3, 3, 48, 32), np.float32)
    assert s.run(None, {s.get_inputs()[0].name: x})[0].shape[0] == 3
    assert not s.workers.started


def test_the_detector_reads_zones_the_same_with_one_thread_or_two(gen, decks):
    margin = Zone.margin_px(ZONE_MARGIN_MM)
    rng = np.random.default_rng(12)
    # a fan, a turned row, a crooked card and a plain row: turned reads as well
    kws = [{"spread": 60.0}, {"turn": 40.0}, {"card_turns": [0.0, 35.0, 0.0]}, {}]
    pics = [gen.render(["S5", "H6", "D7"], rng, deck=decks[k % len(decks)], margin=margin, **kw).image
            for k, kw in enumerate(kws)]
    reads = []
    for threads in (1, 2):
        det = CardDetector(threads=threads, hand_landmarks=False, hand_model=False)
        reads.append([r.to_dict() for r in det.read_zones(pics, det.imgsz / max(ZONE_PX), margin)])
    assert reads[0] == reads[1]
    assert any(r["cards"] for r in reads[0])


def test_a_model_that_takes_one_picture_a_run_runs_several_side_by_side():
    """MediaPipe's palm detector takes a batch of one: one picture keeps both
    threads, several run each on one, with the same outputs."""
    from vision.reading.hand_landmarks import PALM_MODEL

    s = ParallelSession(PALM_MODEL, threads=2)
    assert not s.splits and s.one is not s.wide
    name = s.get_inputs()[0].name
    rng = np.random.default_rng(5)
    feeds = [{name: rng.random((1, 192, 192, 3), np.float32)} for _ in range(3)]
    s.run_many(None, feeds[:1])
    assert not s.workers.started                  # one picture: the wide session, in this thread
    outs = s.run_many(None, feeds)
    assert s.workers.started
    for f, out in zip(feeds, outs):
        assert all(np.array_equal(a, b) for a, b in zip(out, s.wide.run(None, f)))


def test_the_float_models_unless_eight_bits_are_asked_for(monkeypatch, caplog):
    from vision.reading import runtime
    from vision.reading.detector import FLOAT_MODEL

    assert runtime.eight_bit_exact("fpu sse4_2 avx2 amx_int8", "x86_64")
    assert not runtime.eight_bit_exact("fpu sse4_2 avx2 avx512f avx512bw", "x86_64")   # AVX-512 without VNNI
    assert not runtime.eight_bit_exact("fp asimd", "aarch64")
    # the float models on every CPU, one that sums 8-bit products exactly too
    monkeypatch.delenv(runtime.EIGHT_BIT_ENV, raising=False)
    for flags in ("fpu avx2 fma", "fpu avx2 avx_vnni"):
        monkeypatch.setattr(runtime, "_cpu_flags", lambda flags=flags: flags)
        assert runtime.shipped_model(EIGHT_BIT_MODEL, FLOAT_MODEL) == FLOAT_MODEL
        assert CardDetector(threads=1, hand_landmarks=False).model_path == FLOAT_MODEL
        monkeypatch.setenv(runtime.EIGHT_BIT_ENV, "0")
        assert runtime.shipped_model(EIGHT_BIT_MODEL, FLOAT_MODEL) == FLOAT_MODEL
        monkeypatch.delenv(runtime.EIGHT_BIT_ENV)
    # asked for, the 8-bit ones; the log warns, once, where the CPU sums them in 16 bits
    monkeypatch.setenv(runtime.EIGHT_BIT_ENV, "1")
    monkeypatch.setattr(runtime, "_warned_inexact", set())
    with caplog.at_level("WARNING", logger="vision.reading.runtime"):
        assert runtime.shipped_model(EIGHT_BIT_MODEL, FLOAT_MODEL) == EIGHT_BIT_MODEL
        assert caplog.text == ""
        monkeypatch.setattr(runtime, "_cpu_flags", lambda: "fpu avx2 fma")
        assert runtime.shipped_model(EIGHT_BIT_MODEL, FLOAT_MODEL) == EIGHT_BIT_MODEL
        assert runtime.shipped_model(EIGHT_BIT_MODEL, FLOAT_MODEL) == EIGHT_BIT_MODEL
    assert caplog.text.count("loses cards") == 1 and EIGHT_BIT_MODEL.name in caplog.text
    # only the setting's two values are taken
    monkeypatch.setenv(runtime.EIGHT_BIT_ENV, "yes")
    with pytest.raises(runtime.RuntimeSettingError, match="GUANDAN_EIGHT_BIT must be 1"):
        runtime.eight_bit_chosen()
    with pytest.raises(DetectorError, match="GUANDAN_EIGHT_BIT must be 1"):     # a clear error at start
        CardDetector(threads=1, hand_landmarks=False)


def test_the_cpus_flags_are_read_from_proc_cpuinfo():
    from vision.reading import runtime

    flags = runtime._cpu_flags()
    assert isinstance(flags, str)
    if Path("/proc/cpuinfo").exists():
        assert flags.split(), "no flags line found in /proc/cpuinfo"
