"""``pmparse diff LIBRARY --patch | git apply`` with the library a subfolder of a git repository:
the patch's paths were the records' bare names, which git reads from the work tree's top, so git
apply failed from the repository's root and skipped every file ("Skipped patch", exit 0) from
the library's folder."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from pmparse.cli import main
from pmparse.review.pending import diff_paths
from tests.helpers import reviewed_with_pending

# written for this test: a short report, then the paragraph its team added later
_REPORT = ("# Billing queue outage\n\nSummary: The billing queue refused new messages for forty minutes.\n\n"
           "Root cause: The broker's data disk filled up after a retention setting was lowered by mistake.\n")
_ADDED = ("\nAction items:\n\n- Alert when the broker's data disk passes eighty percent.\n"
          "- Review retention settings in the weekly change meeting.\n")

_GIT = shutil.which("git")


def _pending_library(tmp_path: Path, folder: Path) -> None:
    """A library at ``folder`` whose one reviewed record has a suggestion waiting."""
    reviewed_with_pending(tmp_path / "reports" / "billing-queue.md", folder, _REPORT, _ADDED)


def _git(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([_GIT, *args], cwd=cwd, input=stdin, capture_output=True, text=True)


@pytest.mark.skipif(_GIT is None, reason="git is not installed")
@pytest.mark.parametrize("where", ["repository root", "library folder"])
@pytest.mark.parametrize("name", ["lib", "incident library", "cartes d'incident é"])
def test_the_patch_applies_with_git_from_the_repository_root_and_from_the_library(tmp_path, monkeypatch, where, name):
    repo = tmp_path / "repo"
    library = repo / "cards" / name
    _pending_library(tmp_path, library)
    assert _git("init", "-q", cwd=repo).returncode == 0
    before = (library / "IL-0001.yaml").read_text(encoding="utf-8")
    # the documented command, as a curator types it in either folder
    cwd, argument = (repo, f"cards/{name}") if where == "repository root" else (library, ".")
    monkeypatch.chdir(cwd)
    patch = CliRunner().invoke(main, ["diff", argument, "--patch"])
    assert patch.exit_code == 1 and patch.output, patch.output
    applied = _git("apply", cwd=cwd, stdin=patch.output)
    assert applied.returncode == 0, applied.stderr
    assert "Skipped" not in applied.stderr
    after = (library / "IL-0001.yaml").read_text(encoding="utf-8")
    assert after != before and "Alert when the broker's data disk passes eighty percent." in after
    # every suggested change taken: nothing is left to propose
    assert CliRunner().invoke(main, ["diff", argument, "--patch"]).output == ""
    assert not diff_paths([str(library)]).has_changes


@pytest.mark.skipif(shutil.which("patch") is None, reason="patch is not installed")
def test_the_patch_applies_with_patch_p1_from_the_repository_root(tmp_path):
    # as docs/review.md says: paths are from the top of the git work tree holding the library
    repo = tmp_path / "repo"
    library = repo / "incident library"
    _pending_library(tmp_path, library)
    (repo / ".git").mkdir()
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    patch = CliRunner().invoke(main, ["diff", str(library), "--patch"]).output
    assert patch.startswith('diff --git "a/incident library/IL-0001.yaml" ') or \
        patch.startswith("diff --git a/incident library/IL-0001.yaml b/incident library/IL-0001.yaml\n"), patch[:200]
    done = subprocess.run(["patch", "-p1"], cwd=repo, input=patch, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not diff_paths([str(library)]).has_changes


def test_outside_a_git_work_tree_the_patch_names_the_records_from_the_library_folder(tmp_path):
    library = tmp_path / "lib"
    _pending_library(tmp_path, library)
    patch = CliRunner().invoke(main, ["diff", str(library), "--patch"]).output
    assert patch.startswith("diff --git a/IL-0001.yaml b/IL-0001.yaml\n--- a/IL-0001.yaml\n+++ b/IL-0001.yaml\n")


@pytest.mark.skipif(_GIT is None, reason="git is not installed")
@pytest.mark.parametrize("where", ["work tree top", "library folder"])
def test_the_patch_applies_where_git_dir_and_git_work_tree_name_the_repository(tmp_path, monkeypatch, where):
    # a repository kept apart from its files (git init --bare, then GIT_DIR and GIT_WORK_TREE):
    # no .git above the library, yet git reads the paths from GIT_WORK_TREE; the bare names
    # were skipped ("Skipped patch", exit 0) from the library folder
    home = tmp_path / "home"
    library = home / "cards" / "lib"
    _pending_library(tmp_path, library)
    assert _git("init", "-q", "--bare", str(tmp_path / "cards.git"), cwd=tmp_path).returncode == 0
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "cards.git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(home))
    cwd, argument = (home, "cards/lib") if where == "work tree top" else (library, ".")
    monkeypatch.chdir(cwd)
    patch = CliRunner().invoke(main, ["diff", argument, "--patch"]).output
    applied = _git("apply", cwd=cwd, stdin=patch)
    assert applied.returncode == 0 and "Skipped" not in applied.stderr, applied.stderr
    assert not diff_paths([str(library)]).has_changes


@pytest.mark.skipif(_GIT is None, reason="git is not installed")
def test_with_git_dir_alone_git_reads_the_paths_from_the_folder_it_runs_in(tmp_path, monkeypatch):
    # GIT_DIR without GIT_WORK_TREE: git takes the folder it runs in as the work tree's top,
    # even inside another repository's work tree
    repo = tmp_path / "repo"
    library = repo / "cards" / "lib"
    _pending_library(tmp_path, library)
    assert _git("init", "-q", cwd=repo).returncode == 0
    assert _git("init", "-q", "--bare", str(tmp_path / "cards.git"), cwd=tmp_path).returncode == 0
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "cards.git"))
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)
    monkeypatch.chdir(library)
    patch = CliRunner().invoke(main, ["diff", ".", "--patch"]).output
    assert patch.startswith("diff --git a/IL-0001.yaml b/IL-0001.yaml\n"), patch[:100]
    applied = _git("apply", cwd=library, stdin=patch)
    assert applied.returncode == 0 and "Skipped" not in applied.stderr, applied.stderr
    assert not diff_paths([str(library)]).has_changes
