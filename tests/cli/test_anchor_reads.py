"""Every command reads a record's relative source location from the library's anchor (the folder
of its first ``convert``, ``.pmparse/anchor.json``), whatever folder it runs in.

Before, only ``convert`` did: ``validate``, ``export``, ``diff``, ``review``, ``site`` and
``train --library`` run from inside the library found no source text, so evidence went unchecked,
unshown and unmoved onto an amended text, and the library's rows lost their units (fix-14c).
"""

from __future__ import annotations

import json
import re
import shutil

import pytest
from click.testing import CliRunner

from pmparse.cli import main
from pmparse.library.store import Library

# made-up reports of our own; the second is amended after the first convert
REPORT = (
    "# Billing API outage\n\n"
    "## Summary\n\nThe billing API returned errors for 40 minutes for every customer.\n\n"
    "## Root cause\n\nA configuration change lowered the connection pool limit on the primary database.\n\n"
    "## Detection\n\nAn alert on the error rate paged the on-call engineer after 5 minutes.\n\n"
    "## Resolution\n\nWe rolled back the configuration change and restarted the API servers.\n\n"
    "## Action items\n\n- Add a check on pool limits to the deploy pipeline.\n- Alert on pool saturation.\n"
)
OTHER = REPORT.replace("billing API", "search API").replace("connection pool", "thread pool")


def _reviewed(path, replace: dict[str, str] | None = None) -> None:
    """Mark a record reviewed by a person (and edit its text as ``replace`` says)."""
    text = path.read_text(encoding="utf-8")
    for old, new in {"status: suggested": "status: reviewed",
                     "reviewed: null": "reviewed: {by: ann, at: '2026-01-01T00:00:00Z'}", **(replace or {})}.items():
        assert old in text, old
        text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """``proj/lib`` converted from ``proj`` (relative names ``pm/a.md`` and ``pm/b.md``): IL-0001
    reviewed with one item's words edited by hand (its evidence no longer says them), IL-0002
    reviewed with a person's own item, then its source amended (a suggestion pending)."""
    proj = tmp_path / "proj"
    (proj / "pm").mkdir(parents=True)
    (proj / "pm" / "a.md").write_text(REPORT, encoding="utf-8")
    (proj / "pm" / "b.md").write_text(OTHER, encoding="utf-8")
    monkeypatch.chdir(proj)
    runner = CliRunner()
    assert runner.invoke(main, ["convert", "pm", "-o", "lib"]).exit_code == 0
    by_location = {entry.location: entry.path for entry in Library.open(proj / "lib").entries.values()}
    assert sorted(by_location) == ["pm/a.md", "pm/b.md"]
    _reviewed(by_location["pm/a.md"], {"- text: Alert on pool saturation.": "- text: Page someone on saturation."})
    start = OTHER.index("We rolled back the configuration change")
    _reviewed(by_location["pm/b.md"], {"lessons: []": (
        "lessons:\n- text: We rolled back the configuration change\n"
        f"  evidence: [{{start: {start}, end: {start + 39}}}]\n  confidence: 1.0\n  origin: person")})
    (proj / "pm" / "b.md").write_text(OTHER.replace("after 5 minutes", "after 15 minutes"), encoding="utf-8")
    result = runner.invoke(main, ["convert", "pm", "-o", "lib"])
    assert result.exit_code == 0 and "1 pending review" in result.output, result.output
    return proj


def _id_of(project, location: str) -> str:
    return next(entry.id for entry in Library.open(project / "lib").entries.values() if entry.location == location)


def _untimed(record: str) -> str:
    return re.sub(r"\bat: '[^']*'", "at: -", record)


def _from_both(project, monkeypatch, args: list[str]) -> tuple:
    """The result of ``pmparse ARGS`` run from the anchor (the library named ``lib``) and from
    inside the library (named ``.``)."""
    runner = CliRunner()
    monkeypatch.chdir(project)
    here = runner.invoke(main, [a if a != "LIB" else "lib" for a in args])
    monkeypatch.chdir(project / "lib")
    inside = runner.invoke(main, [a if a != "LIB" else "." for a in args])
    return here, inside


def test_validate_and_export_check_evidence_against_the_source_from_inside_the_library(project, monkeypatch):
    here, inside = _from_both(project, monkeypatch, ["validate", "LIB"])
    assert here.exit_code == 1 and "says 'Alert on pool saturation.'" in here.output, here.output
    assert inside.exit_code == 1 and inside.output == here.output
    here, inside = _from_both(project, monkeypatch, ["export", "LIB", "--output", str(project / "cards.csv")])
    assert "says 'Alert on pool saturation.'" in here.output
    assert inside.exit_code == here.exit_code == 1 and inside.output == here.output.replace("lib/", "")


def test_diff_and_review_show_and_move_evidence_from_inside_the_library(project, monkeypatch):
    for args in (["diff", "LIB"], ["diff", "LIB", "--format", "json"]):
        here, inside = _from_both(project, monkeypatch, args)
        assert here.exit_code == inside.exit_code and inside.output == here.output.replace("lib/IL-", "IL-")
        assert "after 15 minutes" in inside.output and "source text not available" not in inside.output
    # an accept on the amended text moves the person's own item onto it, read from the anchor
    shutil.copytree(project, project.parent / "copy", symlinks=True)
    here, inside = _from_both(project.parent / "copy", monkeypatch, ["review", "LIB", "--accept", "detection"])
    assert here.exit_code == inside.exit_code == 0, inside.output
    monkeypatch.chdir(project / "lib")
    assert CliRunner().invoke(main, ["review", ".", "--accept", "detection"]).exit_code == 0
    record = next(p for p in (project / "lib").glob("IL-*.yaml") if "We rolled back the configuration change\n"
                  in p.read_text())
    moved = record.read_text()
    start = moved.index("- text: We rolled back the configuration change")
    assert "sha256" not in moved[start:moved.index("origin: person", start)]  # not left on the old text
    # as the same review run from the anchor wrote it (the time of the review aside)
    assert _untimed(moved) == _untimed((project.parent / "copy" / "lib" / record.name).read_text())


def test_site_highlights_evidence_and_lists_problems_from_inside_the_library(project, monkeypatch):
    here, inside = _from_both(project, monkeypatch, ["site", "LIB", "-o", str(project / "site")])
    assert here.exit_code == 1 and "says 'Alert on pool saturation.'" in here.output
    assert inside.exit_code == 1 and "says 'Alert on pool saturation.'" in inside.output
    # the second build keeps the first's pages: it reads the same source texts
    assert "2 cards, 0 pages rendered" in inside.output, inside.output
    # the reviewed card of the unchanged report: its evidence highlighted in its source text
    card_id = _id_of(project, "pm/a.md")
    page = (project / "site" / "cards" / f"{card_id}.html").read_text(encoding="utf-8")
    assert re.search(r"<mark\b", page) and "The source text cannot be read" not in page


def test_train_library_reads_the_reviewed_sources_from_inside_the_library(project, monkeypatch):
    here, inside = _from_both(project, monkeypatch, ["train", "--library", "LIB"])
    assert "1 reviewed record(s)" in here.output, here.output
    assert inside.output == here.output and "not a file" not in inside.output


def test_a_gone_anchor_folder_gives_way_to_the_folder_the_library_s_relative_names_are_found_from(
        project, monkeypatch, tmp_path):
    # the anchor names a folder that is gone (an absolute anchor, the library moved with its
    # sources): validate reads relative names from where they are files, as convert adopts that folder
    (project / "lib" / ".pmparse" / "anchor.json").write_text(
        json.dumps({"folder": str(tmp_path / "gone")}), encoding="utf-8")
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["validate", "lib"])
    assert result.exit_code == 1 and "says 'Alert on pool saturation.'" in result.output, result.output
    # from a folder none of them is a file from, the anchor stays: no text, nothing to check
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert CliRunner().invoke(main, ["validate", str(project / "lib")]).exit_code == 0


def test_diff_of_records_in_two_libraries_reads_each_source_from_its_own_library(tmp_path, monkeypatch):
    # two projects each convert their own pm/a.md (the same relative name, other texts): diff A B
    # read B's source from A's anchor, found A's text (another sha256) and showed none of B's
    # evidence, even run from B's anchor, where it was shown before anchors were read (rev-14e)
    for name, text in (("one", REPORT), ("two", REPORT.replace("after 5 minutes", "after 15 minutes"))):
        (tmp_path / name / "pm").mkdir(parents=True)
        (tmp_path / name / "pm" / "a.md").write_text(text, encoding="utf-8")
        monkeypatch.chdir(tmp_path / name)
        assert CliRunner().invoke(main, ["convert", "pm", "-o", "lib"]).exit_code == 0
    a, b = (tmp_path / "one" / "lib" / "IL-0001.yaml"), (tmp_path / "two" / "lib" / "IL-0001.yaml")
    for where in (tmp_path, tmp_path / "two"):
        monkeypatch.chdir(where)
        result = CliRunner().invoke(main, ["diff", str(a), str(b)])
        assert "paged the on-call engineer after {+15+} minutes" in result.output, result.output
        assert "source text not available" not in result.output
        assert re.search(r"evidence line \d+, confidence [\d.]+: An alert on the error rate paged the on-call "
                         r"engineer after 15 minutes\.", result.output), result.output
    monkeypatch.chdir(tmp_path)
    shown = json.loads(CliRunner().invoke(main, ["diff", str(a), str(b), "--format", "json"]).output)
    detection = next(c for c in shown["records"][0]["changes"] if c["field"] == "detection")
    assert detection["evidence"][0]["sentence"].endswith("paged the on-call engineer after 15 minutes."), detection


def test_a_library_from_elsewhere_with_a_gone_anchor_and_a_planted_index_link_still_validates(
        project, monkeypatch, tmp_path):
    # a library received from someone else: its anchor an absolute folder of their machine, its
    # scan cache a link out. Looking for the folder its relative names are read from scanned it
    # as convert does, which refuses the link: validate and site stopped with exit 2 (they read
    # record files one by one and never touch the cache); they now read the records' locations
    # without it (rev-14e)
    state = project / "lib" / ".pmparse"
    (state / "anchor.json").write_text(json.dumps({"folder": str(tmp_path / "gone")}), encoding="utf-8")
    (state / "index.json").unlink()
    (state / "index.json").symlink_to(tmp_path / "elsewhere.json")
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["validate", "lib"])
    assert result.exit_code == 1 and "says 'Alert on pool saturation.'" in result.output, result.output
    # site opens the library for a card with a pending suggestion, which refuses the link as
    # before anchors were read; with none pending it reads records one by one, as validate does
    shutil.rmtree(state / "pending")
    result = CliRunner().invoke(main, ["site", "lib", "-o", str(tmp_path / "site")])
    assert result.exit_code == 1 and "says 'Alert on pool saturation.'" in result.output, result.output
    assert not (tmp_path / "elsewhere.json").exists()  # nothing written through the link


def test_an_older_library_of_html_pages_adopts_the_folder_its_pages_read_the_same_from(tmp_path, monkeypatch):
    # an HTML page's sha256 is of the text extracted, never of the file's bytes: the evidence
    # asked of a folder (a file holding a record's text) was never found, and a library of pages
    # run from its own folder recorded no anchor
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pm").mkdir()
    body = "".join(f"<h2>Part {n}</h2><p>{line}</p>" for n, line in enumerate(REPORT.split("\n\n")[1:]))
    (tmp_path / "pm" / "page.html").write_text(f"<html><body><article><h1>Billing API outage</h1>{body}"
                                               "</article></body></html>", encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(main, ["convert", "pm", "-o", "lib", "--rules-only", "-j", "1"]).exit_code == 0
    (tmp_path / "lib" / ".pmparse" / "anchor.json").unlink()  # written before anchors were recorded
    (tmp_path / "pm" / "other.md").write_text(OTHER, encoding="utf-8")
    result = runner.invoke(main, ["convert", "pm", "-o", "lib", "--rules-only", "-j", "1"])
    assert "1 converted" in result.output and "1 unchanged" in result.output, result.output
    assert json.loads((tmp_path / "lib" / ".pmparse" / "anchor.json").read_text(encoding="utf-8")) == {"folder": ".."}
