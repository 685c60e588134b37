"""Fixtures for the device tests."""

import pytest

from hardware.binding import parse_binding

from .helpers import EventSink


@pytest.fixture
def sink() -> EventSink:
    return EventSink()


@pytest.fixture
def binding():
    return parse_binding({"devices": {
        "P01": {"table": "T01", "seats": "ESWN"},
        "P02": {"table": "T02", "seats": "E", "serves": ["count"]},
    }})
