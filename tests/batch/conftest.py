"""Fixtures shared by the ``convert`` tests."""

from __future__ import annotations

import shutil

import pytest

from tests.helpers import SAMPLES


@pytest.fixture()
def samples(tmp_path):
    """A copy of the bundled samples, in ``tmp_path / "in"``."""
    folder = tmp_path / "in"
    shutil.copytree(SAMPLES, folder)
    return folder
