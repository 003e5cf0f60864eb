"""A source renamed and edited in one go is paired with its record when nothing else could be
meant (:mod:`pmparse.batch.renamed`).

Before (sources-17), it got a new record, and the old one (a person's reviewed edits in it) was
left pointing at a gone file: a curator saw ``1 converted`` and a note that the old one's file
was gone.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pmparse.cli import main
from pmparse.library.store import Library

# made-up reports of our own
REPORT = (
    "# Invoice export outage\n\n"
    "## Summary\n\nThe invoice export job failed for three hours and no customer received an invoice.\n\n"
    "## Root cause\n\nA library upgrade changed the date format the export job wrote into every file name.\n\n"
    "## Detection\n\nA customer asked support why the monthly invoice had not arrived in the morning.\n\n"
    "## Resolution\n\nWe pinned the library to its previous version and ran the export job again by hand.\n\n"
    "## Action items\n\n- Add a test of the export file names to the build.\n"
    "- Alert when the export job writes no file for an hour.\n"
)
EDITED = REPORT.replace("three hours", "four hours").replace("in the morning", "before noon")
UNRELATED = (
    "# Mail relay backlog\n\n"
    "## Summary\n\nOutgoing mail queued on the relay for ninety minutes while the disk filled with logs.\n\n"
    "## Root cause\n\nLog rotation had been switched off on the relay during a migration last spring.\n\n"
    "## Resolution\n\nThe operators removed the old logs and turned log rotation back on.\n"
)
FAST = ["--rules-only", "-j", "1"]


@pytest.fixture
def library(tmp_path, monkeypatch):
    """``lib`` converted from ``pm/a.md``, its record reviewed by a person who edited one item."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "a.md").write_text(REPORT, encoding="utf-8")
    assert CliRunner().invoke(main, ["convert", "pm", "-o", "lib", *FAST]).exit_code == 0
    record = tmp_path / "lib" / "IL-0001.yaml"
    text = record.read_text(encoding="utf-8")
    assert "- text: Add a test of the export file names to the build." in text
    record.write_text(text.replace("status: suggested", "status: reviewed")
                      .replace("- text: Add a test of the export file names to the build.",
                               "- text: Test the export file names in CI."), encoding="utf-8")
    return tmp_path


def _locations(tmp_path) -> dict[str, str]:
    return {entry.id: entry.location for entry in Library.open(tmp_path / "lib").entries.values()}


def test_a_source_renamed_and_edited_amends_its_record_and_keeps_the_person_s_edits(library):
    (library / "pm" / "a.md").unlink()
    (library / "pm" / "invoices.md").write_text(EDITED, encoding="utf-8")
    result = CliRunner().invoke(main, ["convert", "pm", "-o", "lib", *FAST])
    assert result.exit_code == 0, result.output
    assert "0 converted" in result.output and "1 pending review" in result.output, result.output
    assert "IL-0001 (pm/a.md) renamed and edited" in result.output, result.output
    assert "whose source is gone" not in result.output, result.output
    assert _locations(library) == {"IL-0001": "pm/invoices.md"}
    record = (library / "lib" / "IL-0001.yaml").read_text(encoding="utf-8")
    assert "- text: Test the export file names in CI." in record  # the person's edit kept
    assert "status: reviewed" in record
    # the suggestion of the new text waits for review; a second run has nothing new
    again = CliRunner().invoke(main, ["convert", "pm", "-o", "lib", *FAST])
    assert "0 converted" in again.output and "1 pending review" in again.output, again.output
    assert _locations(library) == {"IL-0001": "pm/invoices.md"}


def test_a_draft_renamed_and_edited_is_updated_in_place(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "a.md").write_text(REPORT, encoding="utf-8")
    assert CliRunner().invoke(main, ["convert", "pm", "-o", "lib", *FAST]).exit_code == 0
    (tmp_path / "pm" / "a.md").rename(tmp_path / "pm" / "b.md")
    (tmp_path / "pm" / "b.md").write_text(EDITED, encoding="utf-8")
    result = CliRunner().invoke(main, ["convert", "pm", "-o", "lib", *FAST])
    assert "0 converted, 1 updated" in result.output, result.output
    assert _locations(tmp_path) == {"IL-0001": "pm/b.md"}
    assert "before noon" in (tmp_path / "lib" / "IL-0001.yaml").read_text(encoding="utf-8")


def test_two_new_files_close_to_one_gone_record_pair_with_neither(library):
    (library / "pm" / "a.md").unlink()
    (library / "pm" / "invoices.md").write_text(EDITED, encoding="utf-8")
    (library / "pm" / "invoices-copy.md").write_text(EDITED.replace("four hours", "five hours"), encoding="utf-8")
    result = CliRunner().invoke(main, ["convert", "pm", "-o", "lib", *FAST])
    assert "2 converted" in result.output, result.output
    assert "taken for it renamed and edited by neither" in result.output, result.output
    # the record that lost its file is named
    assert "whose source is gone" in result.output and "IL-0001 (pm/a.md)" in result.output, result.output
    assert _locations(library)["IL-0001"] == "pm/a.md"


def test_a_new_file_close_to_two_gone_records_pairs_with_neither(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "a.md").write_text(REPORT, encoding="utf-8")
    (tmp_path / "pm" / "b.md").write_text(REPORT.replace("no customer", "not one customer"), encoding="utf-8")
    assert "2 converted" in CliRunner().invoke(main, ["convert", "pm", "-o", "lib", *FAST]).output
    for name in ("a.md", "b.md"):
        (tmp_path / "pm" / name).unlink()
    (tmp_path / "pm" / "c.md").write_text(EDITED, encoding="utf-8")
    result = CliRunner().invoke(main, ["convert", "pm", "-o", "lib", *FAST])
    assert "1 converted" in result.output, result.output
    assert "close to IL-0001 (pm/a.md), IL-0002 (pm/b.md), records whose files are gone" in result.output
    assert _locations(tmp_path) == {"IL-0001": "pm/a.md", "IL-0002": "pm/b.md", "IL-0003": "pm/c.md"}


def test_an_unrelated_new_file_is_not_paired_with_a_gone_record(library):
    (library / "pm" / "a.md").unlink()
    (library / "pm" / "mail.md").write_text(UNRELATED, encoding="utf-8")
    result = CliRunner().invoke(main, ["convert", "pm", "-o", "lib", *FAST])
    assert "1 converted" in result.output and "IL-0001 (pm/a.md) renamed and edited" not in result.output
    assert "whose source is gone" in result.output and "IL-0001 (pm/a.md)" in result.output, result.output
    assert _locations(library) == {"IL-0001": "pm/a.md", "IL-0002": "pm/mail.md"}


# three made-up reports of one template: their own summary and cause, the same stock sections
STOCK = (
    "## Detection\n\nThe on-call engineer was paged by the standard availability alert for the service within five minutes.\n\n"
    "## Action items\n\n- Review the runbook for this service and bring every step up to date with the current tooling.\n"
    "- Add the failure mode to the quarterly game day so the on-call rotation practises the recovery.\n"
    "- Check that the dashboards for this service show saturation as well as errors and latency.\n\n"
    "## Lessons\n\n- Our standard alerts caught the problem quickly, but the runbook was out of date and slowed recovery.\n"
)


def _from_template(title: str, summary: str, cause: str) -> str:
    return f"# {title}\n\n## Summary\n\n{summary}\n\n## Root cause\n\n{cause}\n\n{STOCK}"


def test_a_new_report_of_the_template_of_a_kept_record_does_not_take_a_gone_reviewed_record(tmp_path, monkeypatch):
    # a.md withdrawn, b.md another incident written from the template c.md (still here) shares:
    # closeness that a record whose file is here also has tells nothing of which file b.md is
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "a.md").write_text(_from_template(
        "Queue stall", "The billing queue stalled for an hour.", "A consumer deadlocked on a lock."), encoding="utf-8")
    (tmp_path / "pm" / "c.md").write_text(_from_template(
        "Cache miss storm", "Search latency rose tenfold for twenty minutes.",
        "The cache cluster was restarted all at once."), encoding="utf-8")
    assert "2 converted" in CliRunner().invoke(main, ["convert", "pm", "-o", "lib", *FAST]).output
    record = tmp_path / "lib" / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    (tmp_path / "pm" / "a.md").unlink()
    (tmp_path / "pm" / "b.md").write_text(_from_template(
        "Log host disk full", "Log ingestion stopped for two hours.",
        "Retention was switched off by a configuration change."), encoding="utf-8")
    result = CliRunner().invoke(main, ["convert", "pm", "-o", "lib", *FAST])
    assert "1 converted" in result.output, result.output
    assert "renamed and edited:" not in result.output, result.output
    assert "IL-0002 (pm/c.md)" in result.output, result.output  # why it was not paired
    assert "whose source is gone" in result.output and "IL-0001 (pm/a.md)" in result.output, result.output
    assert _locations(tmp_path) == {"IL-0001": "pm/a.md", "IL-0002": "pm/c.md", "IL-0003": "pm/b.md"}


def test_a_batch_stopped_between_holding_back_and_pairing_loses_nothing(library, monkeypatch):
    # the held-back file is neither stored nor counted; the next run pairs it
    import pmparse.batch.convert as convert

    (library / "pm" / "a.md").unlink()
    (library / "pm" / "invoices.md").write_text(EDITED, encoding="utf-8")
    before = (library / "lib" / "IL-0001.yaml").read_text(encoding="utf-8")
    real = convert.gone_sources

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt  # Ctrl-C once the batch is read, before the pairing

    monkeypatch.setattr(convert, "gone_sources", stopped)
    result = CliRunner().invoke(main, ["convert", "pm", "-o", "lib", *FAST])
    assert result.exit_code == 130 and "interrupted after 0 inputs" in result.output, result.output
    assert (library / "lib" / "IL-0001.yaml").read_text(encoding="utf-8") == before
    assert _locations(library) == {"IL-0001": "pm/a.md"}
    monkeypatch.setattr(convert, "gone_sources", real)
    again = CliRunner().invoke(main, ["convert", "pm", "-o", "lib", *FAST])
    assert "IL-0001 (pm/a.md) renamed and edited" in again.output, again.output
    assert _locations(library) == {"IL-0001": "pm/invoices.md"}
    assert "- text: Test the export file names in CI." in (library / "lib" / "IL-0001.yaml").read_text(encoding="utf-8")
