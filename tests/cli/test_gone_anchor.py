"""A library whose anchor folder (``.pmparse/anchor.json``, where its relative source names are
read from) is gone: the library moved without its sources, or its sources moved without it.

Before (sources-17), a library of HTML pages moved with its sources stayed anchored in the gone
folder (a page's sha256 is of its extracted text, which the bytes read to look for the new folder
never gave): ``convert`` moved each record onto an absolute name, gave an amended page a second
record and told the curator to run from the first folder, which was gone; ``site``, ``review``
and ``validate`` read no source and said nothing.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pmparse.cli import main
from pmparse.library.store import Library

# a made-up page of our own
PAGE = ("<html><body><article><h1>Ledger service outage</h1>"
        "<h2>Summary</h2><p>The ledger service rejected every payment for 25 minutes.</p>"
        "<h2>Root cause</h2><p>A schema migration locked the accounts table during peak traffic.</p>"
        "<h2>Detection</h2><p>An alert on failed payments paged the on-call engineer.</p>"
        "<h2>Resolution</h2><p>We cancelled the migration and the table lock was released.</p>"
        "<h2>Action items</h2><ul><li>Run migrations outside peak hours.</li></ul>"
        "</article></body></html>")
OTHER = PAGE.replace("Ledger service", "Search service").replace("schema migration", "reindex job")
FAST = ["--rules-only", "-j", "1"]


@pytest.fixture
def moved(tmp_path, monkeypatch):
    """``lib`` converted from ``old`` (``pm/page.html``, ``pm/other.html``), then ``old`` renamed ``new``."""
    (tmp_path / "old" / "pm").mkdir(parents=True)
    (tmp_path / "old" / "pm" / "page.html").write_text(PAGE, encoding="utf-8")
    (tmp_path / "old" / "pm" / "other.html").write_text(OTHER, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "old")
    result = CliRunner().invoke(main, ["convert", "pm", "-o", str(tmp_path / "lib"), *FAST])
    assert result.exit_code == 0 and "2 converted" in result.output, result.output
    (tmp_path / "old").rename(tmp_path / "new")
    return tmp_path


def _anchor(tmp_path) -> str:
    return json.loads((tmp_path / "lib" / ".pmparse" / "anchor.json").read_text(encoding="utf-8"))["folder"]


def test_an_html_library_whose_anchor_folder_moved_adopts_the_folder_its_pages_are_now_in(moved, monkeypatch):
    monkeypatch.chdir(moved / "new")
    result = CliRunner().invoke(main, ["convert", "pm", "-o", str(moved / "lib"), *FAST])
    assert result.exit_code == 0 and "2 unchanged" in result.output, result.output
    # still relative: the library reads them from its new anchor
    assert sorted(e.location for e in Library.open(moved / "lib").entries.values()) == ["pm/other.html",
                                                                                         "pm/page.html"]
    assert _anchor(moved) == "../new"
    assert "is gone" not in result.output


def test_an_amended_page_in_the_moved_folder_amends_its_record(moved, monkeypatch):
    page = moved / "new" / "pm" / "page.html"
    page.write_text(PAGE.replace("for 25 minutes", "for 35 minutes").replace("<li>Run", "<li>Always run"),
                    encoding="utf-8")
    # the library's other page, unchanged, is the evidence of the folder
    monkeypatch.chdir(moved / "new")
    result = CliRunner().invoke(main, ["convert", "pm/page.html", "-o", str(moved / "lib"), *FAST])
    assert result.exit_code == 0 and "1 updated" in result.output, result.output
    assert sorted(e.location for e in Library.open(moved / "lib").entries.values()) == ["pm/other.html",
                                                                                         "pm/page.html"]


@pytest.mark.parametrize("command", [
    ["validate", "LIB"],
    ["site", "LIB", "-o", "SITE"],
    ["review", "LIB", "--drafts"],
    ["export", "LIB"],
])
def test_every_command_names_a_gone_anchor_folder_and_what_to_do(moved, monkeypatch, command):
    (moved / "elsewhere").mkdir()
    monkeypatch.chdir(moved / "elsewhere")  # no folder with the library's sources
    args = [str(moved / "lib") if a == "LIB" else str(moved / "site") if a == "SITE" else a for a in command]
    result = CliRunner().invoke(main, args, input="")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert f"anchor folder {moved / 'old'} is gone" in result.output, result.output
    assert "run `pmparse convert` from the folder that now holds its sources" in result.output, result.output


def test_convert_from_a_folder_without_the_sources_names_the_gone_anchor_folder(moved, monkeypatch):
    (moved / "elsewhere" / "pm").mkdir(parents=True)
    (moved / "elsewhere" / "pm" / "page.html").write_text(PAGE.replace("25 minutes", "45 minutes"), encoding="utf-8")
    monkeypatch.chdir(moved / "elsewhere")
    result = CliRunner().invoke(main, ["convert", "pm", "-o", str(moved / "lib"), *FAST])
    assert result.exit_code == 0, result.output
    assert f"anchor folder {moved / 'old'} is gone" in result.output, result.output
    # the namesake warning no longer asks for a run from the gone folder
    assert "run convert from the folder it was first run in" not in result.output, result.output
    assert _anchor(moved) == "../old"  # nothing here holds a text of the library: the anchor stays
