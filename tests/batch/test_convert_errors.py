"""``convert`` where inputs or records are bad: a bad file fails alone, a record broken by hand
keeps its source and is not duplicated, an index row not trusted, inputs that all fail, a record
too large to read back."""

from __future__ import annotations

import json

from pmparse.batch.convert import convert
from pmparse.library.store import Library


def test_bad_files_fail_alone_and_good_ones_convert(samples, tmp_path):
    (samples / "empty.md").write_bytes(b"")
    (samples / "binary.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (samples / "latin1.txt").write_bytes("Panne du r\xe9seau pendant une heure".encode("latin-1"))
    (samples / "broken.html").write_bytes(b"<html><body><div></div>")
    report = convert([str(samples)], tmp_path / "lib")
    failed = {r.input.rsplit("/", 1)[-1]: (r.error_kind, r.message) for r in report.failed}
    assert failed["empty.md"][0] == "empty"
    assert failed["binary.txt"] == ("binary", "expected text, found binary data (NUL byte at offset 8)")
    assert failed["latin1.txt"][0] == "encoding" and "UTF-8" in failed["latin1.txt"][1]
    assert failed["broken.html"][0] == "malformed"
    assert report.counts["converted"] == 3


def test_missing_input_is_a_failure_not_a_crash(tmp_path):
    report = convert([str(tmp_path / "nothing-here.md")], tmp_path / "lib")
    assert report.failed[0].error_kind == "missing"


def test_a_record_broken_by_hand_is_not_duplicated(samples, tmp_path):
    convert([str(samples / "tencent-moe-slow-ranks.txt")], tmp_path / "lib")
    record = tmp_path / "lib" / "IL-0001.yaml"
    broken = record.read_text().replace("schema_version: 1", "schema_version: one")
    record.write_text(broken)
    report = convert([str(samples / "tencent-moe-slow-ranks.txt")], tmp_path / "lib", force=True)
    assert report.results[0].status == "pending"
    assert record.read_text() == broken
    assert [p.name for p in (tmp_path / "lib").glob("IL-*")] == ["IL-0001.yaml"]


def test_a_record_that_no_longer_parses_keeps_its_source_and_says_so(samples, tmp_path):
    source = str(samples / "tencent-moe-slow-ranks.txt")
    convert([source], tmp_path / "lib")
    record = tmp_path / "lib" / "IL-0001.yaml"
    broken = record.read_text() + "organisation: [unclosed\n"  # a slip in a person's edit
    record.write_text(broken)
    report = convert([source], tmp_path / "lib")
    # the source is still known by the record's source block: no second record, the record untouched
    assert report.results[0].status == "pending"
    assert "IL-0001.yaml is not a valid record" in report.results[0].warnings[-1]
    assert record.read_text() == broken
    assert [p.name for p in (tmp_path / "lib").glob("IL-*")] == ["IL-0001.yaml"]


def test_an_index_row_written_before_salvage_is_not_trusted(samples, tmp_path):
    import json
    import time

    source = str(samples / "tencent-moe-slow-ranks.txt")
    convert([source], tmp_path / "lib")
    record = tmp_path / "lib" / "IL-0001.yaml"
    record.write_text(record.read_text() + "organisation: [unclosed\n")
    time.sleep(0.01)
    Library.open(tmp_path / "lib").save_index()
    index = tmp_path / "lib" / ".pmparse" / "index.json"
    # an older pmparse cached the broken record without its source, and the file has not changed since
    data = json.loads(index.read_text())
    data["version"] = 1  # the version before salvage
    data["written_ns"] = time.time_ns() + 10**10
    data["records"]["IL-0001.yaml"][1][2:4] = [None, None]
    index.write_text(json.dumps(data))
    report = convert([source], tmp_path / "lib")
    assert report.results[0].status == "pending"
    assert [p.name for p in (tmp_path / "lib").glob("IL-*")] == ["IL-0001.yaml"]


def test_a_json_record_that_no_longer_parses_keeps_its_source(samples, tmp_path):
    source = str(samples / "tencent-moe-slow-ranks.txt")
    convert([source], tmp_path / "lib", fmt="json")
    record = tmp_path / "lib" / "IL-0001.json"
    broken = record.read_text().replace("{", "{,,", 1)  # a slip in a person's edit
    record.write_text(broken)
    report = convert([source], tmp_path / "lib", fmt="json")
    assert report.results[0].status == "pending"
    assert record.read_text() == broken
    assert [p.name for p in (tmp_path / "lib").glob("IL-*")] == ["IL-0001.json"]


def test_a_broken_record_of_a_long_folded_location_keeps_its_source(samples, tmp_path):
    # a location longer than a YAML line is folded over two lines in the record
    folder = tmp_path / ("a folder whose name is long enough " * 3).strip()
    folder.mkdir()
    source = folder / "tencent-moe-slow-ranks.txt"
    source.write_bytes((samples / "tencent-moe-slow-ranks.txt").read_bytes())
    convert([str(source)], tmp_path / "lib")
    record = tmp_path / "lib" / "IL-0001.yaml"
    text = record.read_text()
    block = text[text.index("\nsource:"):]
    assert str(source) not in block.splitlines()[2] and str(source) == Library.read(record).source.location
    record.write_text(text + "organisation: [unclosed\n")
    # amended too: only the location can tell which record the source has
    source.write_text(source.read_text() + "\nAn amendment added later.\n")
    report = convert([str(source)], tmp_path / "lib")
    assert report.results[0].status == "pending"
    assert [p.name for p in (tmp_path / "lib").glob("IL-*")] == ["IL-0001.yaml"]


def test_inputs_that_all_fail_leave_no_library_folder_behind(tmp_path):
    # a mistyped input path: the failure is reported, and no empty library is left to puzzle over
    from pmparse.nlp.pipeline import pipeline_config

    result = convert([str(tmp_path / "no-such-report.md")], tmp_path / "lib", config=pipeline_config(rules_only=True),
                     jobs=1)
    assert result.counts["failed"] == 1
    assert not (tmp_path / "lib").exists()


def test_a_source_whose_record_would_be_too_large_to_read_back_fails_and_the_batch_goes_on(tmp_path, monkeypatch):
    # records are read back up to 128 MiB (made small here): a larger one was written, then
    # refused by every later command
    from pmparse.library import statefiles
    from pmparse.nlp.pipeline import PipelineConfig

    monkeypatch.setattr(statefiles, "RECORD_READ_LIMIT", 6000)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "long.md").write_text(
        "# Disk outage\n\n## Root cause\n\n" + "".join(f"Disk {i} of the primary filled and stopped its writes. "
                                                   for i in range(150)),
        encoding="utf-8")
    (tmp_path / "in" / "short.md").write_text("# Cache outage\n\nThe cache restarted and pages timed out.\n",
                                              encoding="utf-8")
    report = convert([str(tmp_path / "in")], tmp_path / "lib", config=PipelineConfig(), jobs=1)
    assert report.counts["converted"] == 1 and report.counts["failed"] == 1
    failed = next(r for r in report.results if r.status == "failed")
    assert failed.input.endswith("long.md") and failed.error_kind == "record", report.results
    assert "expected a record of at most 6,000 bytes" in failed.message
    assert len(list((tmp_path / "lib").glob("IL-*.yaml"))) == 1
