"""Which found files are converted: templates, readmes, index pages and pages of links are skipped,
``--exclude`` globs too; the markdown family is read."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from pmparse.batch.convert import convert
from pmparse.batch.inputs import (excluded_by, expand_inputs_relative, not_incident_content, not_incident_reason,
                                  skip_reason)
from pmparse.cli import main
from pmparse.nlp.pipeline import PipelineConfig

REPORT = """# Cache outage

## Summary

On 4 May 2023 the page cache of the shop returned stale prices for twenty minutes.

## Root cause

A purge job ran against the wrong region after a rename.
"""

TEMPLATE = """# Incident title

## Summary

Describe what happened here.

## Action items

- [ ] Add the follow-up work here.
"""


@pytest.mark.parametrize("name", ["README.md", "readme.txt", "template.md", "TEMPLATE.md",
                                  "template-incident-report.md", "PMyyyy-nnn - Postmortem template.md",
                                  "CHANGELOG.md", "LICENSE.md"])
def test_names_that_are_never_one_report_are_not_incidents(name):
    reason = not_incident_reason(f"reports/{name}")
    assert reason is not None and reason.startswith("not an incident report")


@pytest.mark.parametrize("name", ["2023-05-04-cache-outage.md", "PM2021-004 - Broker down.md",
                                  "templating-engine-crash.md", "incident-log.html.md.erb", "history.md"])
def test_report_names_are_kept(name):
    assert not_incident_reason(f"reports/{name}") is None


@pytest.mark.parametrize("name", ["index.html.md.erb", "_index.md", "index.md"])
def test_an_index_beside_other_pages_is_not_an_incident(tmp_path, name):
    (tmp_path / "2023-05-04-cache-outage.md").write_text(REPORT, encoding="utf-8")
    (tmp_path / name).write_text("# Incidents\n\n- [Cache outage](2023-05-04-cache-outage.md)\n", encoding="utf-8")
    reason = not_incident_reason(str(tmp_path / name))
    assert reason is not None and "an index page beside 1 other page" in reason


def test_a_page_bundles_index_is_the_post(tmp_path):
    bundle = tmp_path / "2023-05-04-cache-outage"
    bundle.mkdir()
    (bundle / "index.md").write_text(REPORT, encoding="utf-8")
    (bundle / "graph.png").write_bytes(b"\x89PNG")
    assert not_incident_reason(str(bundle / "index.md")) is None
    report = convert([str(tmp_path)], tmp_path / "lib", config=PipelineConfig())
    assert report.counts["converted"] == 1 and report.results[0].input.endswith("index.md")


LISTING = "# Directory listing for /\n\n" + "".join(f"- [{n}.md]({n}.md)\n" for n in ("a", "b", "c"))
LINKS = "# Our incidents\n\n" + "".join(f"- [Outage {n}](2023-0{n}-outage.md)\n" for n in range(1, 10))


def test_pages_that_hold_no_report_are_told_by_their_content():
    assert "a directory listing" in not_incident_content(LISTING)
    assert "a directory listing" in not_incident_content("Some files\n", title="Index of /pub/")
    assert "9 of its 10 lines are links" in not_incident_content(LINKS)
    assert not_incident_content(REPORT) is None
    # a report that ends in a list of references keeps its prose
    assert not_incident_content(REPORT + "\n## References\n\n" + LINKS.split("\n\n", 1)[1]) is None


def test_convert_skips_a_page_of_links_unless_all_files(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "history.md").write_text(LINKS, encoding="utf-8")
    report = convert([str(tmp_path / "in")], tmp_path / "lib", config=PipelineConfig())
    assert report.counts["skipped"] == 1 and "an index page" in report.results[0].message
    report = convert([str(tmp_path / "in")], tmp_path / "lib", config=PipelineConfig(), all_files=True)
    assert report.counts["converted"] == 1


@pytest.mark.parametrize("suffix", [".markdown", ".mdx", ".qmd", ".rst", ".adoc"])
def test_the_markdown_family_is_read_with_its_front_matter(tmp_path, suffix):
    (tmp_path / "in").mkdir()
    text = "---\ntitle: Cache outage\ndate: 2023-05-04\n---\n" + REPORT.split("\n", 2)[2]
    (tmp_path / "in" / f"cache{suffix}").write_text(text, encoding="utf-8")
    report = convert([str(tmp_path / "in")], tmp_path / "lib", config=PipelineConfig())
    assert report.counts["converted"] == 1, report.results[0].message
    record = (tmp_path / "lib" / "IL-0001.yaml").read_text(encoding="utf-8")
    assert "title: Cache outage" in record and "date: '2023-05-04'" in record


def test_a_url_is_never_judged_by_its_name():
    assert not_incident_reason("http://127.0.0.1:8000/README.md") is None


def test_exclude_matches_path_relative_path_or_name():
    assert excluded_by("in/drafts/a.md", "drafts/a.md", ["drafts/*"]) == "drafts/*"
    assert excluded_by("in/drafts/a.md", "drafts/a.md", ["a.md"]) == "a.md"
    assert excluded_by("in/drafts/a.md", "drafts/a.md", ["in/*/a.md"]) == "in/*/a.md"
    assert excluded_by("in/drafts/a.md", "drafts/a.md", ["b.md", "*.txt"]) is None
    assert skip_reason("in/README.md", "README.md", all_files=True) is None
    assert skip_reason("in/README.md", "README.md", ["README.md"], all_files=True) == "excluded by --exclude README.md"


@pytest.fixture()
def folder(tmp_path):
    root = tmp_path / "in"
    (root / "drafts").mkdir(parents=True)
    (root / "cache-outage.md").write_text(REPORT, encoding="utf-8")
    (root / "template.md").write_text(TEMPLATE, encoding="utf-8")
    (root / "README.md").write_text("# Our postmortems\n\nOne file per incident.\n", encoding="utf-8")
    (root / "drafts" / "half-written.md").write_text(REPORT, encoding="utf-8")
    return root


def test_convert_skips_non_incidents_and_excluded_files_with_a_reason(folder, tmp_path):
    report = convert([str(folder)], tmp_path / "lib", config=PipelineConfig(), exclude=["drafts/*"])
    by_name = {r.input.rsplit("/", 1)[-1]: r for r in report.results}
    assert report.counts["converted"] == 1 and report.counts["skipped"] == 3
    assert by_name["cache-outage.md"].status == "converted"
    assert by_name["template.md"].message.startswith("not an incident report (a report template)")
    assert by_name["README.md"].message.startswith("not an incident report (a readme)")
    assert by_name["half-written.md"].message == "excluded by --exclude drafts/*"
    assert len(list((tmp_path / "lib").glob("IL-*.yaml"))) == 1


def test_all_files_converts_them_anyway(folder, tmp_path):
    report = convert([str(folder)], tmp_path / "lib", config=PipelineConfig(), all_files=True)
    assert report.counts["skipped"] == 0 and report.counts["converted"] == 4


def test_cli_counts_and_names_skipped_files(folder, tmp_path):
    result = CliRunner().invoke(main, ["convert", str(folder), "-o", str(tmp_path / "lib"), "-j", "1",
                                       "--exclude", "drafts/*", "--exclude", "nothing-*.md"])
    assert result.exit_code == 0, result.output
    assert "1 converted, 0 updated, 0 unchanged, 0 pending review, 3 skipped, 0 failed" in result.stdout
    assert "skipped: " in result.stderr and "template.md: not an incident report" in result.stderr


SECRET = "# Private notes\n\nThe recovery passphrase of the vault is kept here and nowhere else.\n"


def _sent_folder(tmp_path):
    """A folder as someone might send it: one report, and a link out of it to the user's own file."""
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "notes.md").write_text(SECRET, encoding="utf-8")
    (tmp_path / "sent" / "posts").mkdir(parents=True)
    (tmp_path / "sent" / "posts" / "cache.md").write_text(REPORT, encoding="utf-8")
    (tmp_path / "sent" / "posts" / "zz.md").symlink_to(tmp_path / "home" / "notes.md")
    return tmp_path / "sent"


def _library_text(library):
    return "".join(p.read_text(encoding="utf-8") for p in library.glob("IL-*"))


@pytest.mark.parametrize("given", ["folder", "glob", "glob of folders"])
def test_a_link_out_of_the_folder_given_is_skipped_not_read(tmp_path, given):
    sent = _sent_folder(tmp_path)
    inputs = {"folder": [str(sent)], "glob": [str(sent / "posts" / "*.md")],
              "glob of folders": [str(sent / "p*")]}[given]
    result = CliRunner().invoke(main, ["convert", *inputs, "-o", str(tmp_path / "lib")])
    assert result.exit_code == 0, result.output
    assert "recovery passphrase" not in _library_text(tmp_path / "lib")
    assert "Cache outage" in _library_text(tmp_path / "lib")
    assert "zz.md" in result.output and "a link to a file outside the folder given" in result.output


def test_a_link_the_user_names_is_read(tmp_path):
    sent = _sent_folder(tmp_path)
    result = CliRunner().invoke(main, ["convert", str(sent / "posts" / "zz.md"), "-o", str(tmp_path / "lib")])
    assert result.exit_code == 0, result.output
    assert "recovery passphrase" in _library_text(tmp_path / "lib")


def test_a_link_inside_the_folder_given_is_read(tmp_path):
    (tmp_path / "in" / "drafts").mkdir(parents=True)
    (tmp_path / "in" / "drafts" / "cache.md").write_text(REPORT, encoding="utf-8")
    (tmp_path / "in" / "cache-link.md").symlink_to(tmp_path / "in" / "drafts" / "cache.md")
    report = convert([str(tmp_path / "in" / "cache-link.md"), str(tmp_path / "in")], tmp_path / "lib",
                     config=PipelineConfig())
    assert report.counts.get("skipped", 0) == 0
    assert "Cache outage" in _library_text(tmp_path / "lib")


def test_index_pages_of_one_folder_list_it_once_and_see_it_change(tmp_path, monkeypatch):
    from pmparse.batch import inputs

    for n in range(30):
        (tmp_path / f"index.{n}.md").write_text(REPORT, encoding="utf-8")
    calls = []
    real_listdir = os.listdir
    monkeypatch.setattr(inputs.os, "listdir", lambda folder: calls.append(folder) or real_listdir(folder))
    reasons = [not_incident_reason(str(tmp_path / f"index.{n}.md")) for n in range(30)]
    assert all("beside 29 other page(s)" in reason for reason in reasons)
    assert len(calls) == 1
    for n in range(1, 30):
        (tmp_path / f"index.{n}.md").unlink()
    os.utime(tmp_path, ns=(1, 1))  # another modification time, whatever the clock's step
    assert not_incident_reason(str(tmp_path / "index.0.md")) is None


@pytest.mark.parametrize("pattern", ["posts/**/*.md", "posts/*/*.md", "posts/*"])
def test_a_glob_through_a_link_to_a_folder_outside_skips_the_files_there(tmp_path, monkeypatch, pattern):
    # `**` and `*/` go through a link to a folder, and `*` matches the link itself: the files
    # found there are no links, but they are the user's own files all the same
    sent = _sent_folder(tmp_path)
    (sent / "posts" / "elsewhere").symlink_to(tmp_path / "home", target_is_directory=True)
    monkeypatch.chdir(sent)
    found = {f.path: f.skip for f in expand_inputs_relative([pattern])}
    assert found[os.path.join("posts", "elsewhere", "notes.md")] is not None
    assert "a link to a file outside the folder given" in found[os.path.join("posts", "elsewhere", "notes.md")]
    if pattern != "posts/*/*.md":
        assert found[os.path.join("posts", "cache.md")] is None


def test_a_link_in_a_matched_folder_to_a_page_of_the_globs_folder_is_read(tmp_path, monkeypatch):
    (tmp_path / "posts" / "2024").mkdir(parents=True)
    (tmp_path / "posts" / "cache.md").write_text(REPORT, encoding="utf-8")
    (tmp_path / "posts" / "2024" / "cache.md").symlink_to(os.path.join("..", "cache.md"))
    monkeypatch.chdir(tmp_path)
    found = {f.path: f.skip for f in expand_inputs_relative(["posts/*"])}
    assert found == {os.path.join("posts", "2024", "cache.md"): None, os.path.join("posts", "cache.md"): None}


def test_an_index_page_of_another_working_folder_is_judged_by_its_own_folder(tmp_path, monkeypatch):
    # two unpacked archives keep the same modification time: "x/index.md" of the second is
    # another folder, not the first one's cached listing
    for name, pages in (("one", ["index.md", "a.md", "b.md"]), ("two", ["index.md"])):
        (tmp_path / name / "x").mkdir(parents=True)
        for page in pages:
            (tmp_path / name / "x" / page).write_text(REPORT, encoding="utf-8")
        os.utime(tmp_path / name / "x", ns=(10**18, 10**18))
    monkeypatch.chdir(tmp_path / "one")
    assert "beside 2 other page(s)" in not_incident_reason(os.path.join("x", "index.md"))
    monkeypatch.chdir(tmp_path / "two")
    assert not_incident_reason(os.path.join("x", "index.md")) is None


def test_a_globs_folder_is_its_names_before_the_first_wildcard_with_either_windows_separator():
    import ntpath
    import posixpath

    from pmparse.batch.inputs import _glob_base

    assert _glob_base("sent/posts/*.md", posixpath) == "sent/posts"
    assert _glob_base("*.md", posixpath) == "."
    assert _glob_base("/srv*/posts/*.md", posixpath) == "/"
    assert _glob_base("/srv/posts/**/*.md", posixpath) == "/srv/posts"
    # a glob with forward slashes on Windows was searched from the working folder
    assert _glob_base("C:/Users/me/sent/*.md", ntpath) == "C:\\Users\\me\\sent"
    assert _glob_base("C:\\Users\\me\\sent\\*.md", ntpath) == "C:\\Users\\me\\sent"
    assert _glob_base("sent/posts\\*.md", ntpath) == "sent\\posts"
    assert _glob_base("C:/*.md", ntpath) == "C:\\"


def test_a_link_spelling_the_folder_given_in_another_case_is_inside_it(tmp_path):
    (tmp_path / "Posts").mkdir()
    if not (tmp_path / "posts").exists():
        pytest.skip("a case-sensitive file system: one spelling per folder")
    (tmp_path / "Posts" / "cache.md").write_text(REPORT, encoding="utf-8")
    # an absolute link, spelling the folder as the user did not type it (macOS keeps both)
    (tmp_path / "Posts" / "again.md").symlink_to(str(tmp_path / "posts" / "cache.md"))
    found = {os.path.basename(f.path): f.skip for f in expand_inputs_relative([str(tmp_path / "Posts")])}
    assert found == {"again.md": None, "cache.md": None}


def test_a_link_out_is_still_skipped_when_its_folder_is_found_by_identity(tmp_path):
    # the identity check walks up the target's folders: none of them is the folder given
    sent = _sent_folder(tmp_path)
    (sent / "posts" / "up.md").symlink_to(tmp_path / "sent" / ".." / "home" / "notes.md")
    found = {os.path.basename(f.path): f.skip for f in expand_inputs_relative([str(sent / "posts")])}
    assert found["cache.md"] is None and found["zz.md"] and found["up.md"]
    # a folder spelled otherwise than its file's path (as macOS's "Posts" and "posts") is found by
    # its identity; the case-insensitive test above needs such a file system to run
    from pmparse.batch.inputs import _inside

    assert _inside(str(sent / "posts" / "cache.md"), os.path.join(str(sent / "posts"), "."))
    assert not _inside(str(tmp_path / "home" / "notes.md"), os.path.join(str(sent / "posts"), "."))


@pytest.mark.parametrize("line", ["N/A", "数据库故障/已修复", "https://status.example.org/incidents/42",
                                  "see:runbooks/db-failover"])
def test_a_one_line_report_that_is_no_path_is_not_taken_for_a_dangling_link(tmp_path, line):
    # a word holding a '/' read as a link whose target is gone: a one-line report in a language
    # written without spaces, a placeholder or a bare address was skipped as a symbolic link
    (tmp_path / "r.md").write_text(line, encoding="utf-8")
    assert skip_reason(str(tmp_path / "r.md"), "r.md") is None


@pytest.mark.parametrize("target", ["../2023/outage.md", "renamed.md", "/srv/pm/gone", "./drafts"])
def test_a_link_stub_whose_target_is_gone_is_still_skipped(tmp_path, target):
    (tmp_path / "r.md").write_text(target, encoding="utf-8")
    assert "which is missing" in skip_reason(str(tmp_path / "r.md"), "r.md")
