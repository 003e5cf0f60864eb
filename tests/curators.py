"""Two curators sharing a library through git (tests of ``pmparse resolve`` and of what a merge
leaves): an origin library cloned twice, reports written for these tests, and the real git and
pmparse commands run in a clone."""

from __future__ import annotations

import os
import subprocess

from click.testing import CliRunner

from pmparse.cli import main

BAKERY = "# Oven timer froze\n\nLoaves burned for 35 minutes.\n\nRoot cause: a timer firmware fault.\n"
KILN = "# Kiln overheated\n\nGlazes cracked for three hours.\n\nRoot cause: a thermostat wired backwards.\n"
PUMP = "# Pump stalled\n\nThe fountain ran dry for 50 minutes.\n\nRoot cause: a clogged intake filter.\n"


def git(cwd, *args, style: str = "merge") -> subprocess.CompletedProcess:
    """Real git in ``cwd``, with none of this machine's own settings (``style``: the conflict style)."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", "-c", "user.name=Curator", "-c", "user.email=curator@example.invalid",
                           "-c", f"merge.conflictStyle={style}", "-c", "core.autocrlf=false",
                           "-c", "init.defaultBranch=main", *args],
                          cwd=cwd, env=env, capture_output=True, text=True)


def run_pmparse(monkeypatch, cwd, *args):
    """``pmparse ARGS`` run in ``cwd`` through click's runner."""
    monkeypatch.chdir(cwd)
    return CliRunner().invoke(main, list(args))


def converts(monkeypatch, clone, name: str, text: str):
    """The curator of ``clone`` writes ``pm/NAME.md`` and converts the folder into ``lib``."""
    (clone / "pm" / f"{name}.md").write_text(text, encoding="utf-8")
    result = run_pmparse(monkeypatch, clone, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1")
    assert result.exit_code == 0, result.output


def two_clones(tmp_path, monkeypatch):
    """An origin library holding one converted file, cloned by two curators (a and b)."""
    origin = tmp_path / "origin"
    (origin / "pm").mkdir(parents=True)
    assert git(origin, "init", "-q").returncode == 0
    converts(monkeypatch, origin, "bakery", BAKERY)
    assert git(origin, "add", "-A").returncode == 0
    assert git(origin, "commit", "-qm", "library").returncode == 0
    for clone in ("a", "b"):
        assert git(tmp_path, "clone", "-q", "origin", clone).returncode == 0
    return tmp_path / "a", tmp_path / "b"


def pull(a, b) -> subprocess.CompletedProcess:
    """Both clones commit what they did; a merges b's work."""
    for clone in (a, b):
        assert git(clone, "add", "-A").returncode == 0
        assert git(clone, "commit", "-qm", "work").returncode == 0
    assert git(a, "fetch", "-q", "../b", "main").returncode == 0
    return git(a, "merge", "FETCH_HEAD")


def kiln_as_yaml_pump_as_json(tmp_path, monkeypatch):
    """Two clones: a converted the kiln report as YAML, b the pump report as JSON (both IL-0002)."""
    a, b = two_clones(tmp_path, monkeypatch)
    converts(monkeypatch, a, "kiln", KILN)
    (b / "pm" / "pump.md").write_text(PUMP, encoding="utf-8")
    result = run_pmparse(monkeypatch, b, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1", "--format", "json")
    assert result.exit_code == 0, result.output
    return a, b
