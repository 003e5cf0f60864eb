"""Shared set-up of the tests of records renamed by hand (tests/cli/test_renamed_ids.py and
tests/library/test_orphans.py): three reports converted into a library, and a rename as a curator
makes it."""

from __future__ import annotations

from tests.curators import BAKERY, KILN, PUMP, run_pmparse

#: A section the kiln report's team added later (written for these tests).
KILN_AMENDED = KILN + "\nAction items:\n\n- Label every thermostat lead before the kiln is closed.\n"


def library_of_three(tmp_path, monkeypatch):
    """Three reports converted: bakery IL-0001, kiln IL-0002, pump IL-0003."""
    (tmp_path / "pm").mkdir()
    for name, text in (("bakery", BAKERY), ("kiln", KILN), ("pump", PUMP)):
        (tmp_path / "pm" / f"{name}.md").write_text(text, encoding="utf-8")
    ok(monkeypatch, tmp_path, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1")
    return tmp_path / "lib"


def ok(monkeypatch, cwd, *args):
    result = run_pmparse(monkeypatch, cwd, *args)
    assert result.exit_code == 0, result.output
    return result


def rename(lib, old: str, new: str) -> None:
    """What a curator does by hand: the file and its id line."""
    text = (lib / f"{old}.yaml").read_text(encoding="utf-8")
    assert f"\nid: {old}\n" in text
    (lib / f"{new}.yaml").write_text(text.replace(f"\nid: {old}\n", f"\nid: {new}\n"), encoding="utf-8")
    (lib / f"{old}.yaml").unlink()
