"""``pmparse resolve`` after a real ``git merge`` where both curators replaced one record of the
common ancestor: a line only one side changed is merged by git outside the conflicts, into both
sides as the markers give them, so the markers alone may make two sources look like one
(pmparse.merge.git_sides)."""

from __future__ import annotations

import json
import shutil

import pytest

from pmparse.library.validate import validate_library
from pmparse.merge.conflicts import conflicts_of
from tests.curators import KILN, PUMP, converts, git, run_pmparse, two_clones

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

#: A wholly other incident written over the kiln report's file (pmparse: the same source, amended).
KILN_REWRITTEN = ("# Kiln cooled too fast\n\nTiles shattered for two hours.\n\n"
                  "Root cause: a door left ajar by the night shift.\n")


def _state(lib, card_id: str) -> dict:
    return json.loads((lib / ".pmparse" / "base" / f"{card_id}.json").read_text(encoding="utf-8"))


def _replaced_on_both_sides(tmp_path, monkeypatch, ours_change):
    """The ancestor holds the kiln report as IL-0002; a changes it (``ours_change``), b removes it
    and converts the pump report, which takes the freed id: both commit, a merges b."""
    a, b = two_clones(tmp_path, monkeypatch)
    converts(monkeypatch, a, "kiln", KILN)
    assert git(a, "add", "-A").returncode == 0 and git(a, "commit", "-qm", "kiln").returncode == 0
    assert git(b, "pull", "-q", "../a", "main").returncode == 0
    ours_change(a)
    result = run_pmparse(monkeypatch, a, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1")
    assert result.exit_code == 0, result.output
    assert git(b, "rm", "-q", "pm/kiln.md", "lib/IL-0002.yaml", "lib/.pmparse/base/IL-0002.json").returncode == 0
    converts(monkeypatch, b, "pump", PUMP)
    assert "location: pm/pump.md" in (b / "lib" / "IL-0002.yaml").read_text(encoding="utf-8")
    ours_record = (a / "lib" / "IL-0002.yaml").read_text(encoding="utf-8")
    for clone in (a, b):
        assert git(clone, "add", "-A").returncode == 0 and git(clone, "commit", "-qm", "work").returncode == 0
    assert git(a, "fetch", "-q", "../b", "main").returncode == 0
    merged = git(a, "merge", "FETCH_HEAD")
    assert "Merge conflict in lib/IL-0002.yaml" in merged.stdout, merged.stdout
    return a, ours_record


def _amended_in_place(clone):
    (clone / "pm" / "kiln.md").write_text(KILN_REWRITTEN, encoding="utf-8")


def _renamed(clone):
    assert git(clone, "mv", "pm/kiln.md", "pm/oven.md").returncode == 0


@pytest.mark.parametrize("ours_change, location, merged_line", [
    # ours kept the location line: theirs' (pm/pump.md) stood in both sides, "one source (pm/pump.md)"
    (_amended_in_place, "pm/kiln.md", "location:"),
    # ours kept the text (sha256) and every field: theirs' stood in both, "the same text at ..."
    (_renamed, "pm/oven.md", "sha256:"),
])
def test_records_of_two_sources_are_split_each_with_what_its_side_holds(tmp_path, monkeypatch, ours_change,
                                                                        location, merged_line):
    a, ours_record = _replaced_on_both_sides(tmp_path, monkeypatch, ours_change)
    lib = a / "lib"
    conflicted = (lib / "IL-0002.yaml").read_text(encoding="utf-8")
    # the line that tells the two sources apart is one git merged: in no conflict, so in both sides
    assert not any(merged_line in ours or merged_line in theirs for ours, theirs in conflicts_of(conflicted, "IL-0002"))
    theirs_record = git(a, "show", "FETCH_HEAD:lib/IL-0002.yaml").stdout

    result = run_pmparse(monkeypatch, a, "resolve", "lib")

    assert result.exit_code == 0, result.output
    assert f"IL-0002: kept ours ({location}); theirs (pm/pump.md) is now IL-0003" in result.output, result.output
    # each record is its side's whole file: no line of the other side's merged into it
    assert (lib / "IL-0002.yaml").read_text(encoding="utf-8") == ours_record
    assert (lib / "IL-0003.yaml").read_text(encoding="utf-8") == theirs_record.replace("id: IL-0002", "id: IL-0003")
    assert [_state(lib, i)["source"]["location"] for i in ("IL-0002", "IL-0003")] == [location, "pm/pump.md"]
    assert validate_library(lib) == (3, [])


def test_without_git_s_sides_a_source_line_outside_the_conflicts_is_not_taken_for_one_source(
        tmp_path, monkeypatch):
    a, _ = _replaced_on_both_sides(tmp_path, monkeypatch, _amended_in_place)
    lib = a / "lib"
    # the curator marked the files resolved before running resolve: git's index holds one side no more
    assert git(a, "add", "-A").returncode == 0
    before = {p: p.read_bytes() for p in lib.rglob("*") if p.is_file() and p.name not in ("index.json", "lock")}

    result = run_pmparse(monkeypatch, a, "resolve", "lib")

    assert result.exit_code == 1, result.output
    assert "one source (pm/pump.md), but only through lines git merged outside its conflicts" in result.output
    assert "both sides are records of one source" not in result.output
    assert {p: p.read_bytes() for p in lib.rglob("*") if p.is_file() and p.name not in ("index.json", "lock")} == before


def test_one_record_edited_on_both_sides_is_still_one_source(tmp_path, monkeypatch):
    a, b = two_clones(tmp_path, monkeypatch)
    for clone, title in ((a, "Oven timer stuck"), (b, "Bakery timer froze")):
        record = clone / "lib" / "IL-0001.yaml"
        record.write_text(record.read_text(encoding="utf-8").replace("title: Oven timer froze", f"title: {title}"),
                          encoding="utf-8")
        assert git(clone, "commit", "-qam", "title").returncode == 0
    assert git(a, "fetch", "-q", "../b", "main").returncode == 0
    assert "Merge conflict in lib/IL-0001.yaml" in git(a, "merge", "FETCH_HEAD").stdout

    result = run_pmparse(monkeypatch, a, "resolve", "lib")

    assert result.exit_code == 1, result.output
    assert "IL-0001: both sides are records of one source (pm/bakery.md)" in result.output, result.output
