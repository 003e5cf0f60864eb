"""The FIFO hang guard the tests share (tests/hang_guard.py): a read stuck on a FIFO fails its
test instead of hanging the suite, and a block that never waits on one is left alone."""

from __future__ import annotations

import os

import pytest

from tests.hang_guard import fifo_guard


def test_a_read_stuck_on_a_fifo_fails_the_test_naming_it(tmp_path):
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    with pytest.raises(AssertionError, match="pipe.md"):
        with fifo_guard(fifo, bound=0.1):
            with open(fifo, encoding="utf-8") as handle:  # no writer: blocks until the guard releases it
                assert handle.read() == ""


def test_a_block_that_does_not_wait_on_its_fifo_passes_and_keeps_its_own_failure(tmp_path):
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    with fifo_guard(fifo):
        assert fifo.exists()
    with pytest.raises(ValueError, match="own"):
        with fifo_guard(fifo):
            raise ValueError("its own failure")
