"""Shared fixtures: the shared corpus (skipped when absent) and record checks."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pmparse.card.build import collapse
from pmparse.card.schema import TEXT_FIELDS, Card

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "corpus" / "samples"


def _corpus() -> Path | None:
    for candidate in (os.environ.get("PMPARSE_CORPUS"), REPO.parent / "shared" / "corpus"):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


@pytest.fixture(scope="session")
def corpus_root() -> Path:
    root = _corpus()
    if root is None:
        pytest.skip("the shared corpus is not available")
    return root


def assert_offsets(card: Card, text: str) -> int:
    """Every item's evidence indexes ``text`` and spells the item's text; returns items checked."""
    checked = 0
    for name in TEXT_FIELDS:
        for item in getattr(card, name):
            assert item.evidence, f"{name} item without evidence"
            for ev in item.evidence:
                assert 0 <= ev.start < ev.end <= len(text), f"{name}: {ev} outside text of {len(text)}"
            joined = " ".join(text[ev.start:ev.end] for ev in item.evidence)
            assert collapse(joined) == item.text, f"{name}: evidence does not spell the item"
            checked += 1
    for key, support in card.support.items():
        for ev in support.evidence:
            assert 0 <= ev.start < ev.end <= len(text), f"{key}: {ev} outside text"
    return checked


def source_text(card: Card) -> str:
    """The text a card's offsets index (extracted text, or the file as read)."""
    if card.source.extracted_text is not None:
        return card.source.extracted_text
    with open(card.source.location, encoding="utf-8", newline="") as handle:
        return handle.read()


def write_jsonl(folder: Path, name: str, *rows) -> Path:
    """Write ``rows`` (dicts as JSON, strings as they are) one per line into ``folder/name``."""
    path = folder / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


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
