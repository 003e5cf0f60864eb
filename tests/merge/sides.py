"""Two curators' checkouts merged as git merges them, without git: each file both added is written
as one add/add conflict holding each whole file (tests/cli/test_resolve.py runs git itself)."""

from __future__ import annotations

import shutil

from click.testing import CliRunner

from pmparse.cli import main


def curator(tmp_path, monkeypatch, name: str, text: str, *, fmt: str = "yaml", reject: bool = False):
    """A checkout where one curator converted one new file (and maybe rejected its root cause)."""
    home = tmp_path / name
    (home / "pm").mkdir(parents=True)
    (home / "pm" / f"{name}.md").write_text(text, encoding="utf-8")
    monkeypatch.chdir(home)
    runner = CliRunner()
    result = runner.invoke(main, ["convert", "pm", "-o", "lib", "--rules-only", "-j", "1", "--format", fmt])
    assert result.exit_code == 0, result.output
    if reject:
        result = runner.invoke(main, ["review", "lib", "--drafts", "--record", "IL-0001", "--reject", "root_cause"])
        assert result.exit_code == 0, result.output
    return home


def conflict(ours: str, theirs: str) -> str:
    """One add/add conflict holding each whole file, as git writes it."""
    return f"<<<<<<< HEAD\n{ours}=======\n{theirs}>>>>>>> 0123abc\n"


def merge_as_git(ours_home, theirs_home):
    """Theirs pulled into ours: each file both added is one conflict, one only theirs added is theirs."""
    lib, other = ours_home / "lib", theirs_home / "lib"
    for path in sorted(p for p in other.rglob("*") if p.is_file()):
        rel = path.relative_to(other)
        if rel.parts[-1] in ("lock", "index.json", ".gitignore") or rel.parts[:2] == (".pmparse", "intent"):
            continue
        mine = lib / rel
        if not mine.exists():
            mine.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, mine)
        elif mine.read_bytes() != path.read_bytes():
            mine.write_text(conflict(mine.read_text(encoding="utf-8"), path.read_text(encoding="utf-8")),
                            encoding="utf-8")
    shutil.copytree(theirs_home / "pm", ours_home / "pm", dirs_exist_ok=True)
    return lib
