"""Shared fixtures: the shared corpus (skipped when absent) and patching across modules."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import corpus_path


@pytest.fixture(scope="session")
def corpus_root() -> Path:
    root = corpus_path()
    if root is None:
        pytest.skip("the shared corpus is not available")
    return root


@pytest.fixture
def patch_all(monkeypatch):
    """``patch_all(module, name, value)`` or ``patch_all("pmparse.mod.name", value)``: replace
    ``module.name`` in every pmparse module that imported the same object, so a test's stand-in
    reaches the caller whichever module of the package calls it."""
    import importlib
    import sys

    def patch(module, name, value=None) -> None:
        if isinstance(module, str):
            module, name, value = importlib.import_module(module.rsplit(".", 1)[0]), module.rsplit(".", 1)[1], name
        original = getattr(module, name)
        for mod_name, mod in list(sys.modules.items()):
            if (mod_name == "pmparse" or mod_name.startswith("pmparse.")) and getattr(mod, name, None) is original:
                monkeypatch.setattr(mod, name, value)

    return patch
