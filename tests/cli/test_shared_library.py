"""A library two curators share through git: what is committed, a merge left unfinished, a second
convert that must not touch committed files.

Found by walking a shared library with the CLI (helper session walk-14). No git is run here: the
states a clone, a pull and a merge leave are written as files.
"""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from pmparse.cli import main
from tests.hang_guard import fifo_guard

CACHE = "# Cache outage\n\nThe page cache stopped answering for 40 minutes.\n\nRoot cause: a zero memory limit.\n"
QUEUE = "# Queue backlog\n\nOrders were late for two hours.\n\nRoot cause: a lock held after each batch.\n"
DNS = "# Domain expired\n\nCheckout stopped resolving for 25 minutes.\n\nRoot cause: a disabled renewal job.\n"


def _convert(runner: CliRunner, *inputs: str):
    return runner.invoke(main, ["convert", *inputs, "-o", "lib", "--rules-only", "-j", "1"])


def _library(tmp_path, monkeypatch) -> CliRunner:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "cache.md").write_text(CACHE, encoding="utf-8")
    (tmp_path / "pm" / "queue.md").write_text(QUEUE, encoding="utf-8")
    runner = CliRunner()
    assert _convert(runner, "pm").exit_code == 0
    return runner


def test_the_state_folder_says_which_of_its_files_stay_out_of_git(tmp_path, monkeypatch):
    _library(tmp_path, monkeypatch)
    ignore = tmp_path / "lib" / ".pmparse" / ".gitignore"
    # `git add -A` committed the lock (a file any run recreates) and the scan cache (stat keys of
    # one checkout: a conflict at every pull where both curators converted)
    lines = {line for line in ignore.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")}
    assert {"lock", "index.json", "intent/"} <= lines
    # the curators' work (bases, rejections, the anchor) is shared
    assert not lines & {"base/", "rejected/", "pending/", "drafts/", "anchor.json", "model/"}
    # a curator's own version is theirs: never rewritten
    ignore.write_text("lock\n", encoding="utf-8")
    (tmp_path / "pm" / "dns.md").write_text(DNS, encoding="utf-8")
    assert _convert(CliRunner(), "pm").exit_code == 0
    assert ignore.read_text(encoding="utf-8") == "lock\n"


def _conflicted(record: str, ours: str, theirs: str) -> str:
    """``record`` with the line ``ours`` turned into a conflict between it and ``theirs``, as git
    leaves a file both sides changed."""
    assert ours in record
    return record.replace(ours, f"<<<<<<< HEAD\n{ours}\n=======\n{theirs}\n>>>>>>> 1f2e3d4\n", 1)


def test_a_record_left_mid_merge_is_named_as_such_and_stops_convert(tmp_path, monkeypatch):
    runner = _library(tmp_path, monkeypatch)
    record = tmp_path / "lib" / "IL-0001.yaml"
    text = record.read_text(encoding="utf-8")
    location = next(line for line in text.splitlines() if line.startswith("  location: "))
    # both curators gave IL-0001 to a new file of their own: git merges the two records into one
    record.write_text(_conflicted(text, location, "  location: pm/dns.md"), encoding="utf-8")
    (tmp_path / "pm" / "dns.md").write_text(DNS, encoding="utf-8")
    before = {p: p.read_bytes() for p in (tmp_path / "lib").rglob("*") if p.is_file() and p.name != "index.json"}
    result = _convert(runner, "pm")
    # convert read the first side's source and gave the other file a second record (one incident,
    # two records once the merge is finished); now nothing is written until the merge is finished
    assert result.exit_code == 2, result.output
    assert "IL-0001.yaml" in result.output and "conflict markers" in result.output, result.output
    assert "line 3" not in result.output or "<<<<<<<" in result.output
    after = {p: p.read_bytes() for p in (tmp_path / "lib").rglob("*") if p.is_file() and p.name != "index.json"}
    assert after == before
    # validate and review say what the problem is, not YAML's "could not find expected ':'"
    result = runner.invoke(main, ["validate", "lib"])
    assert result.exit_code == 1
    assert "unfinished merge" in result.output and "could not find expected" not in result.output, result.output
    result = runner.invoke(main, ["review", "lib", "--drafts", "--accept-all"])
    assert "unfinished merge" in result.output, result.output


def test_a_state_file_left_mid_merge_stops_convert(tmp_path, monkeypatch):
    runner = _library(tmp_path, monkeypatch)
    base = tmp_path / "lib" / ".pmparse" / "base" / "IL-0002.json"
    text = base.read_text(encoding="utf-8")
    base.write_text(_conflicted(text, '  "status": "suggested",', '  "status": "reviewed",'), encoding="utf-8")
    result = _convert(runner, "pm")
    # a base that does not parse was taken for none, and the draft for a person's record
    assert result.exit_code == 2, result.output
    assert "base/IL-0002.json" in result.output and "conflict markers" in result.output, result.output


def test_a_convert_with_nothing_new_leaves_committed_state_byte_for_byte(tmp_path, monkeypatch):
    runner = _library(tmp_path, monkeypatch)
    assert runner.invoke(main, ["review", "lib", "--drafts", "--accept-all"]).exit_code == 0
    state = tmp_path / "lib" / ".pmparse"
    shared = {p: p.read_bytes() for p in state.rglob("*.json") if p.name != "index.json"}
    assert _convert(runner, "pm").exit_code == 0
    # the first convert after a review wrote each reviewed record's base again with its keys in
    # another order: same data, a changed file in every clone that ran it, a conflict at a pull
    assert {p: p.read_bytes() for p in state.rglob("*.json") if p.name != "index.json"} == shared
    for path in shared:
        json.loads(path.read_text(encoding="utf-8"))


def test_links_checked_out_as_plain_files_are_skipped_not_made_records(tmp_path, monkeypatch):
    runner = _library(tmp_path, monkeypatch)
    # git with core.symlinks=false (Windows, some CI) writes each link as a file holding its target
    (tmp_path / "pm" / "latest.md").write_text("queue.md", encoding="utf-8")
    (tmp_path / "pm" / "sub").mkdir()
    (tmp_path / "pm" / "sub" / "up").write_text("..", encoding="utf-8")
    result = _convert(runner, "pm")
    assert result.exit_code == 0, result.output
    # each made a record of one line (a draft "Incident of ..." whose trigger was the path)
    assert "0 converted" in result.output, result.output
    assert "pm/latest.md" in result.output and "queue.md" in result.output and "core.symlinks" in result.output
    assert sorted(p.name for p in (tmp_path / "lib").glob("IL-*.yaml")) == ["IL-0001.yaml", "IL-0002.yaml"]
    # a named pipe beside them is not opened to be read (it would wait for a writer for ever)
    os.mkfifo(tmp_path / "pm" / "pipe.md")
    with fifo_guard(tmp_path / "pm" / "pipe.md"):
        result = _convert(runner, "pm")
    assert "pipe.md" in result.output and "0 converted" in result.output, result.output
    (tmp_path / "pm" / "pipe.md").unlink()
    # a one-line file that names no file beside it is read as before
    (tmp_path / "pm" / "note.md").write_text("Root cause: the queue.md job ran twice.", encoding="utf-8")
    assert "1 converted" in _convert(runner, "pm").output


@pytest.mark.parametrize("state", [".pmparse/base/IL-0002.json", ".pmparse/pending/IL-0001.json",
                                   ".pmparse/rejected/IL-0001.json"])
def test_a_state_file_of_gigabytes_stops_the_command_naming_it(tmp_path, monkeypatch, state):
    runner = _library(tmp_path, monkeypatch)
    assert runner.invoke(main, ["review", "lib", "--drafts", "--accept-all"]).exit_code == 0
    path = tmp_path / "lib" / state
    path.parent.mkdir(exist_ok=True)
    with open(path, "wb") as handle:
        handle.truncate(129 << 20)  # sparse: read whole, a hostile copy's file took its size in memory
    (tmp_path / "pm" / "cache.md").write_text(CACHE + "\nAmended.\n", encoding="utf-8")
    for args in (["convert", "pm", "-o", "lib", "--rules-only", "-j", "1"], ["review", "lib", "--accept-all"]):
        result = runner.invoke(main, args)
        assert result.exit_code == 2, (args, result.output)
        assert state.rsplit("/", 1)[-1] in result.output and "at most 128 MiB" in result.output, (args, result.output)


def test_a_site_manifest_of_gigabytes_stops_the_build_naming_it(tmp_path, monkeypatch):
    runner = _library(tmp_path, monkeypatch)
    assert runner.invoke(main, ["site", "lib", "-o", "site"]).exit_code == 0
    with open(tmp_path / "site" / ".pmparse-site.json", "wb") as handle:
        handle.truncate(129 << 20)
    result = runner.invoke(main, ["site", "lib", "-o", "site"])
    assert result.exit_code == 2 and ".pmparse-site.json" in result.output and "at most 128 MiB" in result.output


def test_a_link_checked_out_as_a_plain_file_whose_target_is_gone_is_skipped(tmp_path, monkeypatch):
    runner = _library(tmp_path, monkeypatch)
    # a link to a report since renamed, or into a folder git does not hold: each was a record of
    # one line whose trigger was the path
    (tmp_path / "pm" / "latest.md").write_text("renamed-since.md", encoding="utf-8")
    (tmp_path / "pm" / "archived").write_text("../../archive/2023/outage.md", encoding="utf-8")
    result = _convert(runner, "pm")
    assert result.exit_code == 0 and "0 converted" in result.output, result.output
    assert "renamed-since.md', which is missing" in result.output and "core.symlinks" in result.output
    assert "archive/2023/outage.md" in result.output
    assert sorted(p.name for p in (tmp_path / "lib").glob("IL-*.yaml")) == ["IL-0001.yaml", "IL-0002.yaml"]
    # a report of one line is a sentence, with or without a path in it
    (tmp_path / "pm" / "note.md").write_text("The cron job in ops/cron.md ran twice.", encoding="utf-8")
    (tmp_path / "pm" / "word.md").write_text("Outage", encoding="utf-8")
    assert "2 converted" in _convert(runner, "pm").output


def test_a_record_of_gigabytes_is_named_invalid_unread_and_the_rest_goes_on(tmp_path, monkeypatch):
    runner = _library(tmp_path, monkeypatch)
    with open(tmp_path / "lib" / "IL-0003.yaml", "wb") as handle:
        handle.truncate(129 << 20)  # sparse: read whole, a hostile copy's record took its size in memory
    result = runner.invoke(main, ["validate", "lib"])
    assert result.exit_code == 1 and "IL-0003.yaml" in result.output and "128 MiB" in result.output, result.output
    (tmp_path / "pm" / "dns.md").write_text(DNS, encoding="utf-8")
    result = _convert(runner, "pm")
    assert "1 converted" in result.output, result.output
    export = runner.invoke(main, ["export", "lib"])
    assert export.exit_code == 1 and "128 MiB" in export.output and export.output.count('"id"') == 3


def test_sources_a_curator_named_outside_a_folder_walk_are_read_back(tmp_path, monkeypatch):
    # convert reads a file of any ending it is given, and a report in a repository kept under a
    # hidden folder (~/.local/share/...): the site showed neither's text ("cannot be read")
    runner = _library(tmp_path, monkeypatch)
    (tmp_path / "pm" / "queue.log").write_text(QUEUE, encoding="utf-8")
    repo = tmp_path / ".local" / "share" / "repo"
    repo.mkdir(parents=True)
    (repo / "dns.md").write_text(DNS, encoding="utf-8")
    assert "2 converted" in _convert(runner, "pm/queue.log", str(repo / "dns.md")).output
    assert runner.invoke(main, ["site", "lib", "-o", "site"]).exit_code == 0
    for card_id in ("IL-0003", "IL-0004"):
        page = (tmp_path / "site" / "cards" / f"{card_id}.html").read_text(encoding="utf-8")
        assert "cannot be read" not in page, card_id


def test_a_scan_cache_over_the_limit_is_no_cache_and_is_written_again(tmp_path, monkeypatch):
    # index.json is a cache pmparse rebuilds from the records: over the limit (a hostile copy, or
    # a library of some hundred thousand records) it stopped every command, convert included,
    # which would have written it again as large
    runner = _library(tmp_path, monkeypatch)
    index = tmp_path / "lib" / ".pmparse" / "index.json"
    with open(index, "wb") as handle:
        handle.truncate(129 << 20)
    assert runner.invoke(main, ["validate", "lib"]).exit_code == 0
    (tmp_path / "pm" / "dns.md").write_text(DNS, encoding="utf-8")
    result = _convert(runner, "pm")
    assert result.exit_code == 0 and "1 converted" in result.output, result.output
    assert index.stat().st_size < 1 << 20
