"""``pmparse resolve`` after a real ``git merge`` where one curator finished a draft (marked
reviewed, its decisions' file gone) while the other decided some of its fields (the file came):
a file that agrees with the record is the finished draft's leftover, and goes, as ``review``
removes it when it finishes a draft (docs/review.md, "A draft reviewed")."""

from __future__ import annotations

import shutil

import pytest

from tests.curators import git, pull, run_pmparse, two_clones

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _review(monkeypatch, clone, *args):
    result = run_pmparse(monkeypatch, clone, "review", "lib", "--drafts", "--record", "IL-0001", *args)
    assert result.exit_code == 0, result.output


def test_decisions_a_finished_draft_follows_are_removed_as_its_leftover(tmp_path, monkeypatch):
    a, b = two_clones(tmp_path, monkeypatch)
    # ann drops the root cause and finishes the draft; bo drops it too and keeps the title
    _review(monkeypatch, a, "--reviewer", "ann", "--reject", "root_cause", "--accept-all")
    _review(monkeypatch, b, "--reviewer", "bo", "--reject", "root_cause", "--accept", "title")
    pull(a, b)
    drafts = a / "lib" / ".pmparse" / "drafts" / "IL-0001.json"
    assert drafts.exists()  # bo's decisions' file, beside ann's reviewed record
    assert "status: reviewed" in (a / "lib" / "IL-0001.yaml").read_text(encoding="utf-8")

    result = run_pmparse(monkeypatch, a, "resolve", "lib")

    assert result.exit_code == 0, result.output
    assert ("IL-0001: marked reviewed, and its draft decisions agree with it: the draft is finished, "
            ".pmparse/drafts/IL-0001.json removed") in result.output, result.output
    assert not drafts.exists()
    # nothing is met again: a second resolve has nothing to say, review --drafts no draft to ask
    again = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert again.exit_code == 0 and "no record holds conflict markers" in again.output, again.output
    assert git(a, "add", "-A").returncode == 0
    assert git(a, "commit", "-qm", "merged").returncode == 0
    assert "drafts/IL-0001.json" not in git(a, "ls-files", "lib").stdout


def test_decisions_a_finished_draft_does_not_follow_are_kept_for_a_person(tmp_path, monkeypatch):
    a, b = two_clones(tmp_path, monkeypatch)
    _review(monkeypatch, a, "--reviewer", "ann", "--reject", "root_cause", "--accept-all")
    _review(monkeypatch, b, "--reviewer", "bo", "--accept", "root_cause")
    pull(a, b)
    drafts = a / "lib" / ".pmparse" / "drafts" / "IL-0001.json"
    kept = drafts.read_bytes()

    result = run_pmparse(monkeypatch, a, "resolve", "lib")

    assert result.exit_code == 1, result.output
    assert "root_cause (kept by bo)" in result.output and "removed" not in result.output, result.output
    assert drafts.read_bytes() == kept


def test_a_leftover_git_holds_unmerged_is_named_with_the_git_rm_that_settles_it(tmp_path, monkeypatch):
    # the draft had decisions before the clones parted: ann finished it (her side deleted the file)
    # while bo decided one more field (his side edited it), a modify/delete conflict; resolve
    # removed the file, and git still listed it as unmerged, refusing the commit
    a, b = two_clones(tmp_path, monkeypatch)
    origin = tmp_path / "origin"
    _review(monkeypatch, origin, "--reviewer", "cy", "--reject", "root_cause")
    assert git(origin, "add", "-A").returncode == 0
    assert git(origin, "commit", "-qm", "root cause dropped").returncode == 0
    for clone in (a, b):
        assert git(clone, "pull", "-q", "--no-rebase", "../origin", "main").returncode == 0
    _review(monkeypatch, a, "--reviewer", "ann", "--accept-all")
    _review(monkeypatch, b, "--reviewer", "bo", "--accept", "title")
    merged = pull(a, b)
    assert merged.returncode != 0 and "modify/delete" in merged.stdout, merged.stdout
    rel = "lib/.pmparse/drafts/IL-0001.json"

    result = run_pmparse(monkeypatch, a, "resolve", "lib")

    assert result.exit_code == 0, result.output
    assert ".pmparse/drafts/IL-0001.json removed" in result.output, result.output
    # pmparse leaves git's index to the curator: the line says what to run
    told = f"git still lists it as unmerged: run 'git rm -q -- {rel}'"  # as the library was named
    assert told in result.output, result.output
    assert git(a, "commit", "-qm", "merged").returncode != 0  # what the curator met
    assert git(a, "rm", "-q", "--", rel).returncode == 0
    assert git(a, "ls-files", "-u").stdout == "" and git(a, "commit", "-qm", "merged").returncode == 0
    assert rel not in git(a, "ls-files", "lib").stdout


@pytest.mark.parametrize("committed", [True, False])
def test_a_field_the_finisher_kept_and_the_other_dropped_is_named_not_removed_as_agreed(
        tmp_path, monkeypatch, committed):
    # ann keeps every field and finishes the draft; bo drops the root cause: git merged bo's drop
    # into ann's reviewed record without a conflict, and resolve then removed bo's decisions as
    # the finished draft's leftover ("agree"): ann's kept root cause was gone without a word
    a, b = two_clones(tmp_path, monkeypatch)
    _review(monkeypatch, a, "--reviewer", "ann", "--accept-all")
    _review(monkeypatch, b, "--reviewer", "bo", "--reject", "root_cause")
    for clone in (a, b):
        assert git(clone, "add", "-A").returncode == 0
        assert git(clone, "commit", "-qm", "work").returncode == 0
    assert git(a, "fetch", "-q", "../b", "main").returncode == 0
    merged = git(a, "merge", *([] if committed else ["--no-commit"]), "FETCH_HEAD")
    assert merged.returncode == 0 and "CONFLICT" not in merged.stdout, merged.stdout
    record = (a / "lib" / "IL-0001.yaml").read_text(encoding="utf-8")
    assert "status: reviewed" in record and "root_cause: []" in record  # the silent merge
    drafts = a / "lib" / ".pmparse" / "drafts" / "IL-0001.json"

    result = run_pmparse(monkeypatch, a, "resolve", "lib")

    assert result.exit_code == 1, result.output
    ours = "HEAD^1" if committed else "HEAD"
    assert (f"IL-0001: root_cause: the side that finished the draft ({ours}) holds a value the other side's draft "
            "decisions dropped (by bo)") in result.output, result.output
    assert f"git show {ours}:lib/IL-0001.yaml" in result.output and "removed" not in result.output
    assert drafts.exists()
