"""Helpers the tests share: where the samples and the corpus are, and record checks."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

import yaml

from pmparse import __version__
from pmparse.batch.convert import convert
from pmparse.card.build import collapse
from pmparse.card.schema import TEXT_FIELDS, Card
from pmparse.nlp.pipeline import PipelineConfig

#: The project checkout the tests run in.
REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "corpus" / "samples"


def corpus_path() -> Path | None:
    for candidate in (os.environ.get("PMPARSE_CORPUS"), REPO.parent / "shared" / "corpus"):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


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


# --- records made from the shared corpus by two different models --------------------------------

CORE_DNS = "dfds/PM2020-004 - CoreDNS upgrade issue.md"
INOTIFY = "dfds/PM2020-001 - Inotify file watches exhaustion.md"


def other_headings(tmp_path: Path) -> str:
    """A heading table that files 'lessons learned' under root cause and 'action items' under remediation."""
    table = yaml.safe_load(resources.files("pmparse.resources").joinpath("headings.yaml").read_text(encoding="utf-8"))
    table["synonyms"]["lessons"].remove("lessons learned")
    table["synonyms"]["root_cause"].append("lessons learned")
    table["synonyms"]["action_items"].remove("action items")
    table["synonyms"]["remediation"].append("action items")
    path = tmp_path / "other-headings.yaml"
    path.write_text(yaml.safe_dump(table), encoding="utf-8")
    return str(path)


def convert_with_other_model(monkeypatch, tmp_path, sources, library):
    """Re-convert as a different model would: another heading table and another model name."""
    for module in ("pmparse.batch.pool", "pmparse.library.sync"):  # both stamp records with it
        monkeypatch.setattr(f"{module}.version_info", lambda nlp: {"version": __version__, "model": "test-model-2"})
    report = convert(sources, library, config=PipelineConfig(headings_path=other_headings(tmp_path)))
    monkeypatch.undo()
    return report
