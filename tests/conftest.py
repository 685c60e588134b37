"""Suite-wide settings.

The card model shipped in ``models/`` is interim (issue 4: it is still being
trained on CPU, session by session). The tests below check how well it reads
cards; they fail with the interim model, so they are expected failures,
strictly: when a better model reads them right, the run fails until the test
is taken off this list, so the list can only shrink.
"""

import pytest

NEEDS_BETTER_CARD_MODEL = {
    "tests/vision/test_detector.py::test_typical_plays_are_read_exactly[triple]",
    "tests/vision/test_detector.py::test_typical_plays_are_read_exactly[8-card bomb]",
    "tests/vision/test_detector.py::test_typical_plays_are_read_exactly[joker bomb]",
    "tests/vision/test_detector.py::test_heavy_fan_of_identical_pairs",
    "tests/vision/test_detector.py::test_camera_effects_most_plays_exact",
    "tests/vision/test_detector.py::test_hand_is_seen",
    "tests/vision/test_watch.py::test_watch_prints_the_plays_and_the_clears",
    # the demo's referee must catch its four scripted faults from the video (issue 7)
    "tests/node/test_demo.py::test_demo_catches_every_scripted_violation_from_video_and_devices",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid in NEEDS_BETTER_CARD_MODEL:
            item.add_marker(pytest.mark.xfail(
                strict=True, reason="the interim card model does not read this yet (issue 4)"))
