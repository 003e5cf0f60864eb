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
    """The text a card's offsets index (extracted text, or the file as read: for an entry of a
    file holding many incidents, the whole file)."""
    from pmparse.ingest.read import split_location

    if card.source.extracted_text is not None:
        return card.source.extracted_text
    with open(split_location(card.source.location)[0], encoding="utf-8", newline="") as handle:
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


#: A two-page, two-column paper written for the tests: (left column, right column) lines per page.
#: Each page also carries a running header and a page number, which extraction must drop, and
#: "configu-" / "ration" is a word hyphenated over a line end.
PAPER_TITLE = "Lessons from a replicated queue outage"
PAPER_HEADER = "Proceedings of the Imaginary Operations Workshop"
PAPER_PAGES = [
    (["Summary",
      "On 12 May 2022 the replicated job queue",
      "of our build service stopped handing out",
      "jobs for 95 minutes. A configu-",
      "ration push set the lease timeout to zero,",
      "so every worker gave its job back at once."],
     ["Detection",
      "The queue depth alert paged the on-call",
      "engineer eleven minutes after the push.",
      "Root cause",
      "The lease timeout was read from a new",
      "field that older nodes did not know."]),
    (["Remediation",
      "The push was rolled back and the queue",
      "drained within twenty minutes.",
      "Lessons learned",
      "Defaults that stop all work are dangerous."],
     ["Action items",
      "- Refuse a lease timeout of zero.",
      "- Roll out new fields to every node first.",
      "- Add a canary queue for configuration pushes."]),
]


def two_column_pdf(path: Path, row_by_row: bool = True) -> Path:
    """Write the test paper as a PDF (fpdf2, a test dependency).

    With ``row_by_row`` the content stream interleaves the columns (a left line, then the right
    line beside it), as some typesetters write them: a reader that follows the stream instead of
    the layout reads the columns mixed.
    """
    from fpdf import FPDF

    pdf = FPDF(format="A4", unit="pt")
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=10)
    for number, (left, right) in enumerate(PAPER_PAGES, start=1):
        pdf.add_page()
        pdf.set_font("Helvetica", size=8)
        pdf.text(60, 40, PAPER_HEADER)
        pdf.text(290, 810, str(number))
        if number == 1:
            pdf.set_font("Helvetica", "B", size=16)
            pdf.text(60, 90, PAPER_TITLE)
        pdf.set_font("Helvetica", size=10)
        top = 130
        rows = max(len(left), len(right))
        cells = [(column, i) for i in range(rows) for column in (0, 1)] if row_by_row else \
            [(column, i) for column in (0, 1) for i in range(rows)]
        for column, i in cells:
            lines = left if column == 0 else right
            if i < len(lines):
                pdf.text(60 + column * 260, top + i * 14, lines[i])
    pdf.output(str(path))
    return path
