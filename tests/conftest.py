"""Shared fixtures: the shared corpus (skipped when absent), its one conversion, and patching across modules."""

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


@pytest.fixture(scope="session")
def corpus_library(corpus_root, tmp_path_factory):
    """Every corpus incident (extra sources included) converted once into one library, as
    ``pmparse convert`` does: ``(files, report, library folder)``.

    Converting the corpus takes half a minute or more; the tests reading its every card share one
    conversion. They are marked ``xdist_group("corpus_library")`` so that with ``--dist loadgroup``
    (pyproject's ``addopts``) one worker runs them all and converts once.
    """
    from pmparse.batch.convert import convert
    from pmparse.evaluation.corpus import incident_files

    files = incident_files(corpus_root, include_extra=True)
    folder = tmp_path_factory.mktemp("corpus") / "lib"
    report = convert([str(corpus_root / rel) for _, rel in files], folder)
    return files, report, folder


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
