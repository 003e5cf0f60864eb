"""What convert tells a curator about each record it touched (batch/sync.py), through the CLI."""

from __future__ import annotations

from click.testing import CliRunner

from pmparse.cli import main

REPORT = "# Queue stalled\n\nThe queue stalled for 20 minutes.\n\nRoot cause: a full disk on the broker.\n"


def convert(*args: str):
    return CliRunner().invoke(main, ["convert", *args, "--rules-only", "-j", "1"])


def test_force_counts_a_draft_it_writes_again_byte_for_byte_as_unchanged(tmp_path):
    (tmp_path / "r.md").write_text(REPORT, encoding="utf-8")
    lib = tmp_path / "lib"
    assert convert(str(tmp_path / "r.md"), "-o", str(lib)).exit_code == 0
    record = lib / "IL-0001.yaml"
    before, stamp = record.read_bytes(), record.stat().st_mtime_ns
    result = convert(str(tmp_path / "r.md"), "-o", str(lib), "--force")
    assert result.exit_code == 0, result.output
    # the same source read again by the same pipeline: nothing in the record changed
    assert "0 converted, 0 updated, 1 unchanged" in result.output, result.output
    assert record.read_bytes() == before and record.stat().st_mtime_ns == stamp


def test_force_counts_a_draft_of_a_crlf_checkout_as_unchanged_and_leaves_it_alone(tmp_path):
    # a library checked out with core.autocrlf holds each record with CRLF line breaks: --force
    # took every unchanged draft for a changed one, rewrote it and its base and said "updated"
    (tmp_path / "r.md").write_text(REPORT, encoding="utf-8")
    lib = tmp_path / "lib"
    assert convert(str(tmp_path / "r.md"), "-o", str(lib)).exit_code == 0
    record = lib / "IL-0001.yaml"
    record.write_bytes(record.read_bytes().replace(b"\n", b"\r\n"))
    before, stamp = record.read_bytes(), record.stat().st_mtime_ns
    result = convert(str(tmp_path / "r.md"), "-o", str(lib), "--force")
    assert "0 converted, 0 updated, 1 unchanged" in result.output, result.output
    assert record.read_bytes() == before and record.stat().st_mtime_ns == stamp


def test_force_still_counts_a_draft_whose_bytes_change_as_updated(tmp_path):
    (tmp_path / "r.md").write_text(REPORT, encoding="utf-8")
    lib = tmp_path / "lib"
    assert convert(str(tmp_path / "r.md"), "-o", str(lib)).exit_code == 0
    # a new public address changes the draft (url), so --force rewrites it: an update
    result = convert(str(tmp_path / "r.md"), "-o", str(lib), "--force", "--url-base", "https://example.org/pm/")
    assert "0 converted, 1 updated, 0 unchanged" in result.output, result.output
    assert "url: https://example.org/pm/r.md" in (lib / "IL-0001.yaml").read_text(encoding="utf-8")


def test_a_deleted_records_rejections_do_not_pass_to_the_record_its_source_gets_again(tmp_path):
    (tmp_path / "r.md").write_text(REPORT, encoding="utf-8")
    lib, runner = tmp_path / "lib", CliRunner()
    assert convert(str(tmp_path / "r.md"), "-o", str(lib)).exit_code == 0
    made = (lib / "IL-0001.yaml").read_text(encoding="utf-8")
    assert "title: Queue stalled" in made
    # the curator turns the title down, then deletes the record; the source converted again gets
    # the same id (it was the highest) and a fresh draft
    result = runner.invoke(main, ["review", str(lib), "--drafts", "--reject", "title", "--accept-all"])
    assert result.exit_code == 0, result.output
    (lib / "IL-0001.yaml").unlink()
    assert "1 converted" in convert(str(tmp_path / "r.md"), "-o", str(lib)).output
    assert (lib / "IL-0001.yaml").read_text(encoding="utf-8") == made
    # the new record's curator sets the title by hand: the site says pmparse's reading was
    # another, as for any record; the deleted record's rejection made it read as a refusal kept
    record = lib / "IL-0001.yaml"
    record.write_text(made.replace("title: Queue stalled", "title: Broker disk full"), encoding="utf-8")
    result = runner.invoke(main, ["site", str(lib), "-o", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    page = next((tmp_path / "site").rglob("IL-0001.html")).read_text(encoding="utf-8")
    assert "set by hand (pmparse had Queue stalled" in page


def test_a_renamed_record_keeps_its_id_and_rejections_when_another_source_is_converted(tmp_path):
    # the highest record's file is renamed to a free lower number (its id inside unchanged): the
    # record is still in the library, so its id is not free; before, a new source got that id,
    # a second record with it was written, and the renamed record's rejections were dropped
    (tmp_path / "a.md").write_text(REPORT, encoding="utf-8")
    (tmp_path / "b.md").write_text(REPORT.replace("Queue stalled", "Cache cold"), encoding="utf-8")
    lib, runner = tmp_path / "lib", CliRunner()
    assert convert(str(tmp_path / "a.md"), str(tmp_path / "b.md"), "-o", str(lib)).exit_code == 0
    result = runner.invoke(main, ["review", str(lib), "--drafts", "--record", "IL-0002", "--reject", "title", "--accept-all"])
    assert result.exit_code == 0, result.output
    rejected = lib / ".pmparse" / "rejected" / "IL-0002.json"
    assert rejected.is_file()
    (lib / "IL-0001.yaml").unlink()
    (lib / "IL-0002.yaml").rename(lib / "IL-0001.yaml")
    (tmp_path / "c.md").write_text(REPORT.replace("Queue stalled", "Disk filled"), encoding="utf-8")
    assert "1 converted" in convert(str(tmp_path / "c.md"), "-o", str(lib)).output
    assert rejected.is_file()
    assert not (lib / "IL-0002.yaml").exists()
    assert "id: IL-0003" in (lib / "IL-0003.yaml").read_text(encoding="utf-8")


def test_a_moved_address_whose_base_would_be_too_large_leaves_record_and_base_as_they_were(tmp_path, monkeypatch):
    # a person's record follows a new --url-base: the record was rewritten, then the base with the
    # new address; a base refused then (past the state files' limit, made small here) left the
    # record with the new address and the base with the old one
    from pmparse.batch.convert import convert
    from pmparse.library import statefiles

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "cache.md").write_text("# Cache outage\n\nThe cache restarted and pages timed out.\n",
                                              encoding="utf-8")
    library = tmp_path / "lib"
    convert([str(tmp_path / "in")], library, url_base="https://example.org/a/", jobs=1)
    record = library / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    base = library / ".pmparse" / "base" / "IL-0001.json"
    monkeypatch.setattr(statefiles, "STATE_READ_LIMIT", base.stat().st_size + 50)
    before = (record.read_bytes(), base.read_bytes())
    report = convert([str(tmp_path / "in")], library, url_base="https://example.org/" + "b/" * 60, jobs=1)
    assert [r.status for r in report.results] == ["failed"], [(r.status, r.message) for r in report.results]
    assert "IL-0001.json" in report.results[0].message
    assert (record.read_bytes(), base.read_bytes()) == before
