"""Suite-wide settings.

The card model shipped in ``models/`` is interim (issue 4: it is still being
trained on CPU, session by session). The tests below need it to read the
cards right; they fail with the interim model, so they are expected failures,
strictly: when a better model reads them right, the run fails until the test
is taken off this list, so the list can only shrink.
"""

import pytest

NEEDS_BETTER_CARD_MODEL = {
    # the demo's referee must catch its four scripted faults from the video (issue 7);
    # the vision tests that need a better model carry tests.vision.conftest.needs_accurate_model
    "tests/node/test_demo.py::test_demo_catches_every_scripted_violation_from_video_and_devices",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid in NEEDS_BETTER_CARD_MODEL:
            item.add_marker(pytest.mark.xfail(
                strict=True, reason="the interim card model does not read this yet (issue 4)"))
