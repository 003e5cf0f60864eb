"""Fixtures shared by the training tests."""

import pytest

from pmparse.rules.taxonomy import load_taxonomy


@pytest.fixture(scope="module")
def taxonomy():
    """The packaged taxonomy."""
    return load_taxonomy()
