"""``convert`` and where a source is: one file named several ways is one source, the library's
anchor, the same relative name in two folders, a library moved with its sources, public
addresses from ``--url-base``."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time

import pytest

from pmparse.batch.convert import convert
from pmparse.library.store import Library
from pmparse.util import sha256_text
from tests.hang_guard import fifo_guard
from tests.helpers import without_inode_numbers


def test_one_path_spelled_several_ways_has_one_record(samples, tmp_path, monkeypatch):
    monkeypatch.chdir(samples.parent)
    convert(["in"], tmp_path / "lib")
    for spelling in ("./in", "in//", "in/../in"):
        report = convert([spelling], tmp_path / "lib")
        assert report.counts["unchanged"] == 3, spelling
    assert len(list((tmp_path / "lib").glob("IL-*"))) == 3
    # an amended file found by another spelling updates its record
    md = "./in/gocardless-postgres-failover.md"
    (samples / "gocardless-postgres-failover.md").write_text(
        (samples / "gocardless-postgres-failover.md").read_text() + "\nAn amendment added later.\n")
    report = convert([md], tmp_path / "lib")
    assert report.results[0].status == "updated"
    assert len(list((tmp_path / "lib").glob("IL-*"))) == 3


def test_a_file_converted_by_its_absolute_path_is_found_again_by_another_spelling(samples, tmp_path, monkeypatch):
    # a curator converts by absolute path once, then from the folder by a relative one, or through
    # a link to the folder: the same file, so no second record of every source
    convert([str(samples)], tmp_path / "lib")
    (tmp_path / "link").symlink_to(samples, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    for spelling in ("in", "link", str(tmp_path / "link")):
        report = convert([spelling], tmp_path / "lib")
        assert report.counts["unchanged"] == 3, spelling
    md = samples / "gocardless-postgres-failover.md"
    md.write_text(md.read_text() + "\nAn amendment added later.\n")
    report = convert(["link/gocardless-postgres-failover.md"], tmp_path / "lib")
    assert report.results[0].status == "updated"
    library = Library.open(tmp_path / "lib")
    assert sorted(library.entries) == ["IL-0001", "IL-0002", "IL-0003"]
    # the record keeps the name it was first read by
    assert {e.card.source.location for e in library.entries.values()} == {str(p) for p in samples.iterdir()}


def test_an_amended_file_named_from_another_folder_is_found_by_the_library_anchor(tmp_path, monkeypatch):
    # read as pm/x.md from one folder, then by its absolute path from another: the library knows
    # the folder its relative names are read from, so the amended text updates the first record
    (tmp_path / "a" / "pm").mkdir(parents=True)
    source = tmp_path / "a" / "pm" / "x.md"
    source.write_text("# Outage\n\n## Impact\n\nThe payments API was down for ten minutes.\n")
    monkeypatch.chdir(tmp_path / "a")
    convert(["pm/x.md"], tmp_path / "lib")
    source.write_text(source.read_text() + "\n## Root cause\n\nA certificate expired on the gateway.\n")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    for spelling in (str(source), "../a/pm/x.md"):
        report = convert([spelling], tmp_path / "lib")
        assert [r.status for r in report.results] in (["updated"], ["unchanged"]), spelling
        assert not any(w for r in report.results for w in r.warnings), report.results
    library = Library.open(tmp_path / "lib")
    assert [(e.id, e.location) for e in library.entries.values()] == [("IL-0001", "pm/x.md")]


def test_an_amended_file_named_from_another_folder_says_which_record_it_may_be_without_an_anchor(
        tmp_path, monkeypatch):
    # a library written before it recorded its anchor: a relative name not found from here may be
    # this file named from elsewhere; the amended text gets a new record, and the curator is told which
    (tmp_path / "a" / "pm").mkdir(parents=True)
    source = tmp_path / "a" / "pm" / "x.md"
    source.write_text("# Outage\n\n## Impact\n\nThe payments API was down for ten minutes.\n")
    monkeypatch.chdir(tmp_path / "a")
    convert(["pm/x.md"], tmp_path / "lib")
    (tmp_path / "lib" / ".pmparse" / "anchor.json").unlink()
    source.write_text(source.read_text() + "\n## Root cause\n\nA certificate expired on the gateway.\n")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    report = convert([str(source)], tmp_path / "lib")
    result = report.results[0]
    assert result.status == "converted"
    assert any("IL-0001 was read from 'pm/x.md', a relative name not found from this folder" in w
               and "delete IL-0002.yaml" in w for w in result.warnings), result.warnings
    # not adopted as the anchor: none of the library's relative names is a file from there
    assert not (tmp_path / "lib" / ".pmparse" / "anchor.json").exists()
    # run from the first folder, the same file is the first record's: no note
    monkeypatch.chdir(tmp_path / "a")
    again = convert(["pm/x.md"], tmp_path / "lib")
    assert not any("relative name" in w for r in again.results for w in r.warnings)
    assert (tmp_path / "lib" / ".pmparse" / "anchor.json").exists()


def test_the_same_relative_path_in_two_folders_is_two_sources(tmp_path, monkeypatch):
    for name, words in (("a", "The payments API was down for ten minutes."),
                        ("b", "The search cluster lost a shard for two hours.")):
        (tmp_path / name / "pm").mkdir(parents=True)
        (tmp_path / name / "pm" / "x.md").write_text(f"# Outage\n\n## Impact\n\n{words}\n")
    monkeypatch.chdir(tmp_path / "a")
    convert(["pm/x.md"], tmp_path / "lib")
    monkeypatch.chdir(tmp_path / "b")
    convert([str(tmp_path / "b" / "pm" / "x.md")], tmp_path / "lib")
    # another folder's file is not the record's file, whatever the working directory
    texts = sorted(p.read_text() for p in (tmp_path / "lib").glob("IL-*.yaml"))
    assert len(texts) == 2 and "payments API" in texts[1] + texts[0] and "search cluster" in texts[0] + texts[1]


def test_url_base_gives_each_record_its_public_address(samples, tmp_path):
    (samples / "sub").mkdir()
    (samples / "sub" / "a copy.md").write_text("# Disk filled up\n\nThe disk filled up for an hour.\n",
                                              encoding="utf-8")
    base = "https://github.com/acme-rockets/reports/blob/main/"
    report = convert([str(samples)], tmp_path / "lib", url_base=base)
    assert report.counts["converted"] == 4 and not report.failed
    urls = {e.card.source.location.rsplit("/", 1)[-1]: e.card.source.url
            for e in Library.open(tmp_path / "lib").entries.values()}
    assert urls["a copy.md"] == base + "sub/a%20copy.md"
    assert urls["tencent-moe-slow-ranks.txt"] == base + "tencent-moe-slow-ranks.txt"
    # the text of this sample names nobody, and never writes the account's two words: a slug is no
    # display name (issue 35: every such guess on the labelled cards was wrong)
    tencent = next(e.card for e in Library.open(tmp_path / "lib").entries.values()
                   if e.card.source.location.endswith("tencent-moe-slow-ranks.txt"))
    assert tencent.organisation is None
    # an account of one word left (a generic part dropped) is the organisation, weakly
    convert([str(samples)], tmp_path / "lib2", url_base="https://github.com/acmerockets-official/reports/blob/main/")
    tencent = next(e.card for e in Library.open(tmp_path / "lib2").entries.values()
                   if e.card.source.location.endswith("tencent-moe-slow-ranks.txt"))
    assert tencent.organisation == "Acmerockets" and tencent.support["organisation"].confidence < 0.5


def test_a_new_url_base_updates_records_whose_text_did_not_change(samples, tmp_path):
    convert([str(samples)], tmp_path / "lib")
    again = convert([str(samples)], tmp_path / "lib")
    assert again.counts["unchanged"] == 3
    moved = convert([str(samples)], tmp_path / "lib", url_base="https://example.org/pm")
    assert moved.counts["unchanged"] == 0 and not moved.failed
    assert all(e.card.source.url.startswith("https://example.org/pm/")
               for e in Library.open(tmp_path / "lib").entries.values())


def test_a_url_base_that_is_not_http_is_a_usage_error(samples, tmp_path):
    from pmparse.errors import UsageError

    with pytest.raises(UsageError, match="url-base"):
        convert([str(samples)], tmp_path / "lib", url_base="ftp://example.org/")
    assert not (tmp_path / "lib").exists()


def _cli_convert(*args: str) -> str:
    from click.testing import CliRunner

    from pmparse.cli import main

    result = CliRunner().invoke(main, ["convert", *args, "--no-progress", "--rules-only", "-j", "1"])
    assert result.exit_code == 0, result.output
    return result.output


_REPORT = "# Outage\n\n## Impact\n\nThe {what} was down for ten minutes on 2031-04-02.\n"


def test_one_file_named_several_ways_in_one_batch_has_one_record(tmp_path, monkeypatch):
    # a relative name, its "./" spelling, the absolute path, a link to its folder, a link to the
    # file and the folder holding it, all in one batch: one file, so one record, under the first name
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "x.md").write_text(_REPORT.format(what="payments API"), encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "pm", target_is_directory=True)
    (tmp_path / "x-link.md").symlink_to(tmp_path / "pm" / "x.md")
    monkeypatch.chdir(tmp_path)
    names = ["pm/x.md", "./pm/x.md", str(tmp_path / "pm" / "x.md"), "link/x.md", "x-link.md", "pm"]
    assert "1 converted, 0 updated, 5 unchanged" in _cli_convert(*names, "-o", "lib")
    assert [(e.id, e.location) for e in Library.open(tmp_path / "lib").entries.values()] == [("IL-0001", "pm/x.md")]
    # the absolute name first: the record keeps it, the other names find it
    assert "1 converted, 0 updated, 2 unchanged" in _cli_convert(str(tmp_path / "pm" / "x.md"), "pm/x.md", "link",
                                                                 "-o", "lib2")
    assert [e.location for e in Library.open(tmp_path / "lib2").entries.values()] == [str(tmp_path / "pm" / "x.md")]
    assert "0 converted, 0 updated, 3 unchanged" in _cli_convert("x-link.md", "link", "pm", "-o", "lib2")


def test_the_same_relative_names_converted_from_two_folders_into_one_library_stay_two_sources(tmp_path, monkeypatch):
    # `cd one && convert pm -o LIB`, then `cd two && convert pm -o LIB`: two.pm/x.md is another
    # file; read as "pm/x.md" it rewrote one's record, and each run from the other folder took it back
    for name, what in (("one", "payments API"), ("two", "search cluster")):
        (tmp_path / name / "pm").mkdir(parents=True)
        (tmp_path / name / "pm" / "x.md").write_text(_REPORT.format(what=what), encoding="utf-8")
    lib = str(tmp_path / "lib")
    monkeypatch.chdir(tmp_path / "one")
    assert "1 converted" in _cli_convert("pm", "-o", lib)
    monkeypatch.chdir(tmp_path / "two")
    assert "1 converted, 0 updated" in _cli_convert("pm", "-o", lib)
    cards = {e.location: e.card for e in Library.open(lib).entries.values()}
    assert sorted(cards) == sorted(["pm/x.md", str(tmp_path / "two" / "pm" / "x.md")])
    for location, name in (("pm/x.md", "one"), (str(tmp_path / "two" / "pm" / "x.md"), "two")):
        text = (tmp_path / name / "pm" / "x.md").read_text(encoding="utf-8")
        assert cards[location].source.sha256 == sha256_text(text)
    # each found again on the next run, from either folder or from inside them
    for folder, names in (("one", ["pm"]), ("two", ["pm"]), ("one/pm", [".", "../../two/pm"]), (".", ["one", "two"])):
        monkeypatch.chdir(tmp_path / folder)
        assert "0 converted, 0 updated" in _cli_convert(*names, "-o", lib), folder
    assert len(Library.open(lib).entries) == 2


@pytest.mark.parametrize("how", ["moved", "copied"])
def test_a_library_moved_or_copied_with_its_sources_reads_them_where_they_are_now(tmp_path, monkeypatch, how):
    # `cd first && convert pm -o lib`, then the folder is moved, or copied (a repository cloned beside
    # the first) while the first stays: an absolute anchor named a folder gone (the unchanged file's
    # record moved to an absolute name) or the first folder (its files read): the amended file got
    # a second record. The anchor is kept relative to the library: the folder beside it, wherever it is
    for name, what in (("x.md", "payments API"), ("y.md", "search cluster")):
        (tmp_path / "first" / "pm").mkdir(parents=True, exist_ok=True)
        (tmp_path / "first" / "pm" / name).write_text(_REPORT.format(what=what), encoding="utf-8")
    monkeypatch.chdir(tmp_path / "first")
    assert "2 converted" in _cli_convert("pm", "-o", "lib")
    monkeypatch.chdir(tmp_path)
    (shutil.copytree if how == "copied" else os.rename)(tmp_path / "first", tmp_path / "new")
    with open(tmp_path / "new" / "pm" / "y.md", "a", encoding="utf-8") as out:
        out.write("\nThe billing job failed again an hour later.\n")
    monkeypatch.chdir(tmp_path / "new")
    output = _cli_convert("pm", "-o", "lib")
    assert output.splitlines() == ["0 converted, 1 updated, 1 unchanged, 0 pending review, 0 failed"], output
    assert sorted(e.location for e in Library.open("lib").entries.values()) == ["pm/x.md", "pm/y.md"]
    assert json.loads((tmp_path / "new" / "lib" / ".pmparse" / "anchor.json").read_text()) == {"folder": ".."}
    if how == "copied":  # the first is untouched and still finds its own files
        monkeypatch.chdir(tmp_path / "first")
        assert "0 converted, 0 updated, 2 unchanged" in _cli_convert("pm", "-o", "lib")


def test_relative_names_given_while_the_anchor_folder_is_away_are_not_mixed_with_the_anchors(tmp_path, monkeypatch):
    # the anchor folder is away for now (a drive not mounted) and none of the library's relative
    # names is a file from here: another folder's pm/x.md is recorded by its absolute path, so once
    # the anchor is back its own pm/x.md is still its record's file
    (tmp_path / "drive" / "pm").mkdir(parents=True)
    (tmp_path / "drive" / "pm" / "x.md").write_text(_REPORT.format(what="payments API"), encoding="utf-8")
    (tmp_path / "home" / "pm").mkdir(parents=True)
    (tmp_path / "home" / "pm" / "y.md").write_text(_REPORT.format(what="search cluster"), encoding="utf-8")
    lib = str(tmp_path / "lib")
    monkeypatch.chdir(tmp_path / "drive")
    _cli_convert("pm", "-o", lib)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "drive").rename(tmp_path / "away")
    monkeypatch.chdir(tmp_path / "home")
    assert "1 converted" in _cli_convert("pm", "-o", lib)
    assert sorted(e.location for e in Library.open(lib).entries.values()) == sorted(
        ["pm/x.md", str(tmp_path / "home" / "pm" / "y.md")])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "away").rename(tmp_path / "drive")
    monkeypatch.chdir(tmp_path / "drive")
    assert "0 converted, 0 updated, 1 unchanged" in _cli_convert("pm", "-o", lib)

def test_a_library_whose_anchor_is_a_fifo_still_converts(tmp_path, monkeypatch):
    # a library received from someone else: opening a FIFO for reading waits for a writer for ever
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "x.md").write_text(_REPORT.format(what="payments API"), encoding="utf-8")
    (tmp_path / "lib" / ".pmparse").mkdir(parents=True)
    os.mkfifo(tmp_path / "lib" / ".pmparse" / "anchor.json")
    monkeypatch.chdir(tmp_path)
    with fifo_guard(tmp_path / "lib" / ".pmparse" / "anchor.json"):
        assert "1 converted" in _cli_convert("pm", "-o", "lib")


def test_two_files_on_a_file_system_without_inode_numbers_are_two_sources(tmp_path, monkeypatch):
    # st_ino is 0 for every file on some file systems: "one file" by inode, every input after the
    # first was reported unchanged and got no record
    for name, what in (("a.md", "payments API"), ("b.md", "search cluster"), ("c.md", "billing job")):
        (tmp_path / "pm").mkdir(exist_ok=True)
        (tmp_path / "pm" / name).write_text(_REPORT.format(what=what), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    without_inode_numbers(monkeypatch)
    report = convert(["pm"], tmp_path / "lib", jobs=1)
    assert report.counts["converted"] == 3, [(r.input, r.status) for r in report.results]
    assert len(Library.open(tmp_path / "lib").entries) == 3
    report = convert(["pm"], tmp_path / "lib", jobs=1)
    assert report.counts["unchanged"] == 3, [(r.input, r.status) for r in report.results]


def test_a_file_named_dash_in_a_converted_folder_is_that_file_not_standard_input(tmp_path, monkeypatch):
    # `convert .` in a folder holding a file named "-": "./-" normalised to "-", standard input,
    # which was read instead of the file (on a terminal, convert waited for typing)
    import io

    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "-").write_text(_REPORT.format(what="ledger"), encoding="utf-8")
    monkeypatch.chdir(tmp_path / "pm")
    report = convert(["."], tmp_path / "lib", stdin=io.BytesIO(b"# Other\n\nNot this text.\n"), jobs=1)
    assert [r.status for r in report.results] == ["converted"], [(r.input, r.status, r.message) for r in report.results]
    [entry] = Library.open(tmp_path / "lib").entries.values()
    assert entry.card.source.sha256 == sha256_text(_REPORT.format(what="ledger"))
    assert entry.location != "-"
    # and so on the next run: the same file, unchanged
    again = convert(["."], tmp_path / "lib", stdin=io.BytesIO(b""), jobs=1)
    assert [r.status for r in again.results] == ["unchanged"]


# pages of our own, for a library whose anchor folder is gone
_PAGE = ("<html><body><article><h1>{name} outage</h1><h2>Summary</h2><p>The {name} rejected requests "
         "for twenty minutes.</p><h2>Root cause</h2><p>A full disk on the {name} host.</p>"
         "<h2>Action items</h2><ul><li>Alert on disk use.</li></ul></article></body></html>")


def test_a_page_read_at_a_gone_anchors_relative_name_is_parsed_under_the_time_limit(tmp_path, monkeypatch):
    """While the anchor folder is gone, the pages at the library's relative names in this folder
    are parsed to see whether they hold its texts: a page that hangs the parser there stopped the
    whole batch (no --timeout); it now fails alone as ``timeout`` and the batch goes on."""
    from pmparse.ingest import read as read_module

    (tmp_path / "old" / "pm").mkdir(parents=True)
    for name in ("ledger", "search"):
        (tmp_path / "old" / "pm" / f"{name}.html").write_text(_PAGE.format(name=name), encoding="utf-8")
    monkeypatch.chdir(tmp_path / "old")
    assert convert(["pm"], tmp_path / "lib", jobs=1, isolate=False).counts["converted"] == 2
    (tmp_path / "old").rename(tmp_path / "new")
    monkeypatch.chdir(tmp_path / "new")

    real, untimed = read_module.extract_html, []

    def hangs_on_ledger(raw_text, location):  # a stand-in parser stuck on one page
        if "ledger" not in raw_text:
            return real(raw_text, location)
        if signal.getitimer(signal.ITIMER_REAL)[0] == 0:
            untimed.append(location)  # nothing would ever stop it: not waited for here
            return real(raw_text, location)
        while True:
            time.sleep(0.01)

    monkeypatch.setattr(read_module, "extract_html", hangs_on_ledger)
    report = convert(["pm"], tmp_path / "lib", jobs=1, isolate=False, timeout=1.0)
    assert untimed == []
    by_location = {os.path.normpath(result.input): result for result in report.results}
    assert by_location["pm/ledger.html"].status == "failed" and by_location["pm/ledger.html"].error_kind == "timeout"
    assert by_location["pm/search.html"].status == "unchanged"  # its page showed where the sources are now
