"""A library over time (convert, review, sources changing, convert again): what a curator is told.

Found by walking a library's life end to end with the CLI (helper session walk-13).
"""

from __future__ import annotations

import errno
import os

from click.testing import CliRunner

from pmparse.cli import main

REPORT = "# Queue stalled\n\nThe queue stalled for 20 minutes.\n\nRoot cause: a full disk on the broker.\n"


def read_only(monkeypatch, folder) -> None:
    """Every file or folder made under ``folder`` fails as on a read-only file system (tests run as
    root, which chmod does not stop: the refusal is simulated where the system call is made)."""
    real_open, real_mkdir = os.open, os.mkdir
    under = os.path.abspath(folder)

    def refused(path) -> bool:
        return os.path.abspath(path) == under or os.path.abspath(path).startswith(under + os.sep)

    def guarded_open(path, flags, *args, **kwargs):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) and refused(path):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *args, **kwargs)

    def guarded_mkdir(path, *args, **kwargs):
        if refused(path):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded_open)
    monkeypatch.setattr(os, "mkdir", guarded_mkdir)


def test_a_read_only_library_is_one_line_naming_the_folder_and_exit_1(tmp_path, monkeypatch):
    (tmp_path / "r.md").write_text(REPORT, encoding="utf-8")
    runner = CliRunner()
    lib = tmp_path / "lib"
    assert runner.invoke(main, ["convert", str(tmp_path / "r.md"), "-o", str(lib), "--rules-only", "-j", "1"]
                         ).exit_code == 0
    (tmp_path / "r.md").write_text(REPORT + "\nWe added an alert on disk use.\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in lib.rglob("*") if p.is_file()}
    read_only(monkeypatch, lib)
    # a library folder someone else owns, or a read-only mount: a file pmparse cannot write (exit
    # 1, docs/cli.md), not a usage error, and never a traceback
    for args in (["convert", str(tmp_path / "r.md"), "-o", str(lib), "--rules-only", "-j", "1"],
                 ["review", str(lib), "--drafts", "--accept-all"]):
        result = runner.invoke(main, args)
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output and not isinstance(result.exception, OSError)
        assert f"pmparse: {lib}: expected a library folder pmparse can write" in result.output, result.output
        assert "read-only file system" in result.output
    assert {p: p.read_bytes() for p in lib.rglob("*") if p.is_file()} == before


def test_a_new_library_under_a_read_only_folder_is_one_line_not_a_traceback(tmp_path, monkeypatch):
    (tmp_path / "r.md").write_text(REPORT, encoding="utf-8")
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    read_only(monkeypatch, shelf)
    result = CliRunner().invoke(main, ["convert", str(tmp_path / "r.md"), "-o", str(shelf / "lib"),
                                       "--rules-only", "-j", "1"])
    assert result.exit_code == 1, result.output
    assert not isinstance(result.exception, OSError), result.exception
    assert f"pmparse: {shelf / 'lib'}: expected a library folder pmparse can write" in result.output


def test_a_source_gone_from_a_converted_folder_is_named_and_its_record_kept(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "queue.md").write_text(REPORT, encoding="utf-8")
    (tmp_path / "pm" / "dns.md").write_text("# DNS outage\n\nNames did not resolve for an hour.\n", encoding="utf-8")
    runner = CliRunner()
    args = ["convert", "pm", "-o", "lib", "--rules-only", "-j", "1"]
    assert runner.invoke(main, args).exit_code == 0
    queue = next(p for p in (tmp_path / "lib").glob("IL-*.yaml") if "pm/queue.md" in p.read_text(encoding="utf-8"))
    kept = queue.read_bytes()
    # renamed and edited in one go: neither name nor text finds the record, the file gets a new one
    (tmp_path / "pm" / "queue.md").rename(tmp_path / "pm" / "queue-2024.md")
    with open(tmp_path / "pm" / "queue-2024.md", "a", encoding="utf-8") as out:
        out.write("\nWe now alert on broker disk use.\n")
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "1 converted, 0 updated, 1 unchanged" in result.output
    notes = [line for line in result.output.splitlines() if line.startswith("note: ")]
    assert len(notes) == 1 and f"{queue.stem} (pm/queue.md)" in notes[0] and "source is gone" in notes[0], notes
    assert queue.read_bytes() == kept  # told, never removed: the curator decides
    # run again: said again until the curator acts; a file alone names no folder, so nothing then
    assert "source is gone" in runner.invoke(main, args).output
    alone = runner.invoke(main, ["convert", "pm/dns.md", "-o", "lib", "--rules-only", "-j", "1"])
    assert alone.exit_code == 0 and "note: " not in alone.output, alone.output
    # a file renamed with the same text is found again by its text: nothing is gone
    (tmp_path / "pm" / "dns.md").rename(tmp_path / "pm" / "dns-2024.md")
    queue.unlink()
    moved = runner.invoke(main, args)
    assert "1 updated" in moved.output and "note: " not in moved.output, moved.output
