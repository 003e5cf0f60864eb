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
