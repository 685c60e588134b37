"""The demo's video cache, its clean interruption, its progress line and its speed warning
(with a stand-in renderer: the real one is the end-to-end test's)."""

import io
import types

import pytest

from commands import version

from table_node import demo
from table_node.demo import DemoScript, ProgressBar, cached_video_path, make_script


@pytest.fixture(scope="module")
def script():
    return make_script()


@pytest.fixture
def renders(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    calls = []

    def fake_render(script, path, decks=("anglo",), seed=7, progress=None):
        calls.append(path)
        path.write_bytes(b"video")
        return path
    monkeypatch.setattr(demo, "render_video", fake_render)
    return calls


def test_the_second_run_takes_the_video_from_the_cache(script, renders, tmp_path):
    out = io.StringIO()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    demo._video(script, tmp_path / "a" / "table.mp4", 3, ("anglo",), True, out)
    demo._video(script, tmp_path / "b" / "table.mp4", 3, ("anglo",), True, out)
    assert len(renders) == 1                                   # rendered once
    kept = cached_video_path(script, 3, ("anglo",))
    assert kept.parent == tmp_path / "cache" / "guandan-referee"
    assert kept.name.startswith(f"demo-{version()}-3-")
    assert (tmp_path / "b" / "table.mp4").read_bytes() == b"video"
    assert "from the cache" in out.getvalue()
    # another seed, other decks or another script is another video
    assert cached_video_path(script, 4, ("anglo",)) != kept
    assert cached_video_path(script, 3, ("anglo", "other")) != kept
    other = DemoScript(script.settings, script.events, script.injected, script.changes[:-1], script.end)
    assert cached_video_path(other, 3, ("anglo",)) != kept
    # --no-cache renders again
    demo._video(script, tmp_path / "b" / "table.mp4", 3, ("anglo",), False, out)
    assert len(renders) == 2


def test_ctrl_c_while_rendering_leaves_no_partial_file(script, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    def interrupted(script, path, decks=("anglo",), seed=7, progress=None):
        path.write_bytes(b"half a vid")
        raise KeyboardInterrupt
    monkeypatch.setattr(demo, "render_video", interrupted)
    for cache in (True, False):
        with pytest.raises(KeyboardInterrupt):
            demo._video(script, tmp_path / "table.mp4", 3, ("anglo",), cache, io.StringIO())
        assert not (tmp_path / "table.mp4").exists()
        leftovers = list((tmp_path / "cache").rglob("*.mp4")) + list(tmp_path.glob("*.mp4"))
        assert leftovers == []


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_the_progress_line_is_ended_before_anything_else_is_printed():
    stream = _Tty()
    bar = ProgressBar("match", stream=stream)
    bar(99, 100, "t=10:42 violations 4")
    bar.finish()
    stream.write("demo: match over\n")
    assert stream.getvalue().endswith("violations 4\ndemo: match over\n")
    bar.finish()                                              # twice: no blank line
    assert not stream.getvalue().endswith("\n\n")


class _SlowMachine:
    """time for demo._play: each frame costs half a second of wall time (table time
    moves 0.2 s a frame at 5 fps: 0.4x), so 8x cannot be kept."""

    def __init__(self):
        self.now = 0.0

    def monotonic(self):
        self.now += 0.5
        return self.now

    def sleep(self, s):
        self.now += s


def test_a_machine_that_cannot_keep_the_speed_says_so(script, monkeypatch, capsys):
    monkeypatch.setattr(demo, "time", _SlowMachine())
    node = types.SimpleNamespace(tick=lambda: [])
    short = DemoScript(script.settings, [], {}, [], 20.0)
    frames = ((n / demo.FPS, None) for n in range(int(short.end * demo.FPS)))
    demo._play(short, frames, lambda t, f: None, node, None, types.SimpleNamespace(t=0.0),
               demo._Violations(), speed=8.0)
    err = capsys.readouterr().err
    assert "keeps up only about" in err and "not the 8x asked" in err
    assert err.count("keeps up only") == 1                    # said once
    assert "played at 0.4x real time (8x asked)" in err
