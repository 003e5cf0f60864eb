"""``pmparse resolve`` after a real ``git merge`` of two clones that diverged in ways of their
own: a record renamed on one side and edited on the other, a draft's decisions file deleted on
one side (the draft finished) and edited on the other."""

from __future__ import annotations

import shutil

import pytest

from tests.curators import git, pull, run_pmparse, two_clones

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _review(monkeypatch, clone, *args):
    result = run_pmparse(monkeypatch, clone, "review", "lib", "--drafts", "--record", "IL-0001", *args)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("renamed_on", ["ours", "theirs"])
def test_a_record_renamed_on_one_side_and_edited_on_the_other_is_an_edit_conflict_named_as_such(
        tmp_path, monkeypatch, renamed_on):
    a, b = two_clones(tmp_path, monkeypatch)
    # one curator gives the record another id by hand (file and id line); the other reviews it
    # under the old one
    renamer, reviewer = (a, b) if renamed_on == "ours" else (b, a)
    text = (renamer / "lib" / "IL-0001.yaml").read_text(encoding="utf-8")
    assert git(renamer, "mv", "lib/IL-0001.yaml", "lib/IL-0005.yaml").returncode == 0
    (renamer / "lib" / "IL-0005.yaml").write_text(text.replace("id: IL-0001\n", "id: IL-0005\n"), encoding="utf-8")
    _review(monkeypatch, reviewer, "--reviewer", "bo", "--reject", "root_cause", "--accept-all")
    merged = pull(a, b)
    assert "CONFLICT" in merged.stdout and "IL-0005.yaml" in merged.stdout, merged.stdout
    record = a / "lib" / "IL-0005.yaml"
    conflicted = record.read_bytes()

    result = run_pmparse(monkeypatch, a, "resolve", "lib")

    # one source edited on both sides: a person's to settle (exit 1), not a side that cannot be read
    assert result.exit_code == 1, result.output
    assert "error:" not in result.output, result.output
    old_side = "theirs" if renamed_on == "ours" else "ours"
    assert (f"IL-0005: both sides are records of one source (pm/bakery.md), {old_side} still under id IL-0001 (renamed "
            "on one side): keep one side of each conflict, or both edits, by hand, the id line saying IL-0005 "
            "(nothing changed)") in result.output, result.output
    assert record.read_bytes() == conflicted


def _finished_and_decided(tmp_path, monkeypatch, bo_decides: str):
    """Two clones holding a draft with its title decided (its decisions' file committed); ann
    finishes it, dropping the root cause (the file goes), bo decides the root cause with
    ``bo_decides`` (the file changes); ann pulls bo's. Returns ann's clone and git's pull output."""
    a, b = two_clones(tmp_path, monkeypatch)
    _review(monkeypatch, a, "--reviewer", "ann", "--accept", "title")
    assert git(a, "add", "-A").returncode == 0 and git(a, "commit", "-qm", "title").returncode == 0
    assert git(b, "pull", "-q", "../a", "main").returncode == 0
    _review(monkeypatch, a, "--reviewer", "ann", "--reject", "root_cause", "--accept-all")
    _review(monkeypatch, b, "--reviewer", "bo", bo_decides, "root_cause")
    return a, pull(a, b)


def test_decisions_deleted_on_one_side_and_edited_alike_on_the_other_go_with_the_finished_draft(
        tmp_path, monkeypatch):
    # ann finishes the draft (the file goes), bo drops the root cause too (the file changes)
    a, merged = _finished_and_decided(tmp_path, monkeypatch, "--reject")
    assert "CONFLICT (modify/delete): lib/.pmparse/drafts/IL-0001.json" in merged.stdout, merged.stdout

    result = run_pmparse(monkeypatch, a, "resolve", "lib")

    assert result.exit_code == 0, result.output
    assert "IL-0001: marked reviewed, and its draft decisions agree with it" in result.output, result.output
    assert not (a / "lib" / ".pmparse" / "drafts" / "IL-0001.json").exists()
    assert git(a, "add", "-A").returncode == 0 and git(a, "commit", "-qm", "merged").returncode == 0
    validated = run_pmparse(monkeypatch, a, "validate", "lib")
    assert validated.exit_code == 0, validated.output


def test_decisions_deleted_on_one_side_and_edited_otherwise_on_the_other_are_named_by_resolve_and_validate(
        tmp_path, monkeypatch):
    a, _ = _finished_and_decided(tmp_path, monkeypatch, "--accept")

    result = run_pmparse(monkeypatch, a, "resolve", "lib")

    assert result.exit_code == 1, result.output
    assert "root_cause (kept by bo)" in result.output, result.output
    assert "deleted on one side" not in result.output, result.output  # the draft's note says it all
    assert "0 split, 1 left for a person" in result.output, result.output
    assert (a / "lib" / ".pmparse" / "drafts" / "IL-0001.json").exists()
    # committed as it is, the merge is still named by validate
    assert git(a, "add", "-A").returncode == 0 and git(a, "commit", "-qm", "merged").returncode == 0
    validated = run_pmparse(monkeypatch, a, "validate", "lib")
    assert validated.exit_code == 1, validated.output
    assert ": root_cause: the record is marked reviewed, but its draft decisions (.pmparse/drafts/IL-0001.json) " \
           "do not agree: kept by bo" in validated.output, validated.output


@pytest.mark.parametrize("deleted_on", ["ours", "theirs"])
def test_a_record_deleted_on_one_side_and_edited_on_the_other_is_named_not_passed_over(
        tmp_path, monkeypatch, deleted_on):
    a, b = two_clones(tmp_path, monkeypatch)
    _review(monkeypatch, a, "--reviewer", "ann", "--accept", "title")
    assert git(a, "add", "-A").returncode == 0 and git(a, "commit", "-qm", "title").returncode == 0
    assert git(b, "pull", "-q", "../a", "main").returncode == 0
    # one curator removes the record with its state files; the other drops its root cause
    remover, editor = (a, b) if deleted_on == "ours" else (b, a)
    assert git(remover, "rm", "-q", "lib/IL-0001.yaml", "lib/.pmparse/base/IL-0001.json",
               "lib/.pmparse/drafts/IL-0001.json").returncode == 0
    _review(monkeypatch, editor, "--reviewer", "bo", "--reject", "root_cause")
    merged = pull(a, b)
    assert "CONFLICT (modify/delete): lib/IL-0001.yaml" in merged.stdout, merged.stdout
    before = {p: p.read_bytes() for p in (a / "lib").rglob("IL-0001*")}

    result = run_pmparse(monkeypatch, a, "resolve", "lib")

    # git's merge is unfinished on them: 'no record holds conflict markers' (exit 0) said all was settled
    assert result.exit_code == 1, result.output
    assert "no record holds conflict markers" not in result.output, result.output
    assert (f"note: IL-0001: deleted on one side ({deleted_on}) and edited on the other, whose files git left "
            "in place (IL-0001.yaml, .pmparse/drafts/IL-0001.json): keep the edit ('git add -- lib/IL-0001.yaml "
            "lib/.pmparse/drafts/IL-0001.json') or the deletion ('git rm -- lib/IL-0001.yaml "
            "lib/.pmparse/drafts/IL-0001.json')") in result.output, result.output
    assert "0 split, 1 left for a person" in result.output, result.output
    assert {p: p.read_bytes() for p in (a / "lib").rglob("IL-0001*")} == before
