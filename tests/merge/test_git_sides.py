"""Reading each side of a conflicted file from git's index (pmparse.merge.git_sides)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from pmparse.merge import git_sides

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(folder, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=folder,
                          capture_output=True, text=True)


@pytest.fixture
def conflicted(tmp_path):
    """A record both branches changed, merged: git leaves markers and stages 2 and 3."""
    _git(tmp_path, "init", "-q", "-b", "main")
    record = tmp_path / "IL-0001.yaml"
    record.write_text("title: Kiln\ncause: door\n", encoding="utf-8")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "base")
    _git(tmp_path, "checkout", "-qb", "other")
    record.write_text("title: Kiln\ncause: a fan stopped turning\n", encoding="utf-8")
    _git(tmp_path, "commit", "-qam", "theirs")
    _git(tmp_path, "checkout", "-q", "main")
    record.write_text("title: Kiln\ncause: the thermostat\n", encoding="utf-8")
    _git(tmp_path, "commit", "-qam", "ours")
    assert _git(tmp_path, "merge", "-q", "other").returncode != 0
    return record


def test_each_side_is_read_whole_from_the_index(conflicted):
    ours, theirs = git_sides.git_sides(conflicted, conflicted.read_text(encoding="utf-8"))
    assert ours == "title: Kiln\ncause: the thermostat\n"
    assert theirs == "title: Kiln\ncause: a fan stopped turning\n"


def test_a_side_larger_than_a_record_may_be_is_never_read(conflicted, monkeypatch):
    """A repository handed over may hold a blob of gigabytes at a stage: its size is asked first,
    and the blob itself is never read into memory (the markers are read instead)."""
    calls = []
    real = subprocess.run

    def recorded(args, *rest, **kwargs):
        calls.append(list(args))
        return real(args, *rest, **kwargs)

    monkeypatch.setattr(git_sides.subprocess, "run", recorded)
    monkeypatch.setattr(git_sides, "RECORD_READ_LIMIT", 20)
    assert git_sides.git_sides(conflicted, conflicted.read_text(encoding="utf-8")) is None
    assert calls and not [args for args in calls if "blob" in args]
