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
