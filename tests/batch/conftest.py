"""Fixtures shared by the ``convert`` tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.batch.reports import write_reports
from tests.helpers import SAMPLES


@pytest.fixture()
def samples(tmp_path):
    """A copy of the bundled samples, in ``tmp_path / "in"``."""
    folder = tmp_path / "in"
    shutil.copytree(SAMPLES, folder)
    return folder


@pytest.fixture()
def batch(tmp_path) -> Path:
    """The samples, nine written reports and a binary file, in ``tmp_path / "in"``."""
    folder = tmp_path / "in"
    shutil.copytree(SAMPLES, folder)
    write_reports(folder, 9)
    (folder / "bad.txt").write_bytes(b"\x00\x01binary")
    return folder
