"""The examples in the table referee's docstrings hold."""

import doctest
import importlib

import pytest

MODULES = ["referee.seating", "referee.settings", "referee.decisions", "referee.scoring",
           "referee.penalties", "referee.clock", "referee.match", "referee.deal", "referee.table",
           "storage", "storage.sqlite_log", "services.venue", "referee.simulation"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
