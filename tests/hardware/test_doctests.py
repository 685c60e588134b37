"""The examples in the hardware modules' docstrings run and hold."""

import doctest

import pytest

import hardware.audio
import hardware.binding
import hardware.knock
import hardware.protocol
import hardware.reader
import hardware.simulator


MODULES = [hardware.protocol, hardware.binding, hardware.reader, hardware.simulator,
           hardware.audio, hardware.knock]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
