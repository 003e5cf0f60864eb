"""``pmparse resolve`` after a real ``git merge`` of two curators who each converted a new file:
both incidents kept, with the review one of them made (docs/record-format.md, "Sharing a library
through git")."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from pmparse.cli import main

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

BAKERY = "# Oven timer froze\n\nLoaves burned for 35 minutes.\n\nRoot cause: a timer firmware fault.\n"
KILN = "# Kiln overheated\n\nGlazes cracked for three hours.\n\nRoot cause: a thermostat wired backwards.\n"
PUMP = "# Pump stalled\n\nThe fountain ran dry for 50 minutes.\n\nRoot cause: a clogged intake filter.\n"


def _git(cwd, *args, style: str = "merge") -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", "-c", "user.name=Curator", "-c", "user.email=curator@example.invalid",
                           "-c", f"merge.conflictStyle={style}", "-c", "core.autocrlf=false",
                           "-c", "init.defaultBranch=main", *args],
                          cwd=cwd, env=env, capture_output=True, text=True)


def _pmparse(monkeypatch, cwd, *args):
    monkeypatch.chdir(cwd)
    return CliRunner().invoke(main, list(args))


def _converts(monkeypatch, clone, name: str, text: str):
    (clone / "pm" / f"{name}.md").write_text(text, encoding="utf-8")
    result = _pmparse(monkeypatch, clone, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("style", ["merge", "diff3"])
def test_a_pull_where_both_curators_took_one_id_keeps_both_incidents_and_the_review(tmp_path, monkeypatch, style):
    origin = tmp_path / "origin"
    (origin / "pm").mkdir(parents=True)
    assert _git(origin, "init", "-q").returncode == 0
    _converts(monkeypatch, origin, "bakery", BAKERY)
    assert _git(origin, "add", "-A").returncode == 0
    assert _git(origin, "commit", "-qm", "library").returncode == 0
    for clone in ("a", "b"):
        assert _git(tmp_path, "clone", "-q", "origin", clone).returncode == 0
    a, b = tmp_path / "a", tmp_path / "b"
    _converts(monkeypatch, a, "kiln", KILN)
    _converts(monkeypatch, b, "pump", PUMP)
    # curator b drops the root cause pmparse drafted: remembered in b's rejected/ and drafts/
    result = _pmparse(monkeypatch, b, "review", "lib", "--drafts", "--record", "IL-0002", "--reject", "root_cause")
    assert result.exit_code == 0, result.output
    for clone in (a, b):
        assert _git(clone, "add", "-A").returncode == 0
        assert _git(clone, "commit", "-qm", "converted").returncode == 0
    assert _git(a, "fetch", "-q", "../b", "main").returncode == 0
    merged = _git(a, "merge", "FETCH_HEAD", style=style)
    assert merged.returncode == 1 and "CONFLICT (add/add)" in merged.stdout, merged.stdout + merged.stderr
    assert "|||||||" in (a / "lib" / "IL-0002.yaml").read_text(encoding="utf-8") or style == "merge"
    refused = _pmparse(monkeypatch, a, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1")
    assert refused.exit_code == 2 and "pmparse resolve" in refused.output, refused.output

    result = _pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 0, result.output
    assert "IL-0002: kept ours (pm/kiln.md); theirs (pm/pump.md) is now IL-0003" in result.output
    assert _pmparse(monkeypatch, a, "validate", "lib").exit_code == 0
    # b's rejection and draft decisions went with b's record
    state = a / "lib" / ".pmparse"
    rejected = json.loads((state / "rejected" / "IL-0003.json").read_text(encoding="utf-8"))["rejected"]
    assert [r["field"] for r in rejected] == ["root_cause"]
    assert not (state / "rejected" / "IL-0002.json").exists()
    assert (state / "drafts" / "IL-0003.json").is_file()

    again = _pmparse(monkeypatch, a, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1", "--force")
    assert again.exit_code == 0, again.output
    assert "0 converted" in again.output and "0 pending review" in again.output, again.output
    assert not list(state.glob("pending/*.json"))
    records = {p.name: p.read_text(encoding="utf-8") for p in (a / "lib").glob("IL-*.yaml")}
    assert sorted(records) == ["IL-0001.yaml", "IL-0002.yaml", "IL-0003.yaml"]
    assert "title: Kiln overheated" in records["IL-0002.yaml"] and "title: Pump stalled" in records["IL-0003.yaml"]
    assert "root_cause: []" in records["IL-0003.yaml"]
    # the review of b's record goes on where b left it: the dropped root cause is not asked again
    left = _pmparse(monkeypatch, a, "review", "lib", "--drafts", "--record", "IL-0003", "--accept-all")
    assert left.exit_code == 0 and "IL-0003: root_cause:" not in left.output, left.output
    assert "IL-0003: title: accept" in left.output
    # the merge can be committed: no file holds markers
    assert _git(a, "add", "-A").returncode == 0
    assert _git(a, "commit", "-qm", "merged").returncode == 0, "merge commit"


def test_resolve_without_conflicts_says_so(tmp_path, monkeypatch):
    (tmp_path / "pm").mkdir()
    _converts(monkeypatch, tmp_path, "kiln", KILN)
    result = _pmparse(monkeypatch, tmp_path, "resolve", "lib")
    assert result.exit_code == 0 and "no record holds conflict markers" in result.output, result.output


def test_resolve_of_a_folder_that_is_no_library_is_a_usage_error(tmp_path, monkeypatch):
    result = _pmparse(monkeypatch, tmp_path, "resolve", "nowhere")
    assert result.exit_code == 2 and "expected a library folder" in result.output, result.output
