"""Second review of the shared-library branch (helper rev-14f): the ``.pmparse/.gitignore`` a
first run writes, and the merge check's cost on a library the scan cache vouches for.

No git is run here; the texts are written for these tests.
"""

from __future__ import annotations

import errno
import os

from click.testing import CliRunner

from pmparse.cli import main
from pmparse.library import lock as lock_module
from pmparse.library import store
from pmparse.library.store import Library

FAN = "# Fan failure\n\nA rack ran hot for 30 minutes.\n\nRoot cause: a fan controller left in manual mode.\n"
CERT = "# Certificate lapse\n\nLogins failed for an hour.\n\nRoot cause: a renewal reminder sent to a closed inbox.\n"


def _convert(runner: CliRunner, *inputs: str):
    return runner.invoke(main, ["convert", *inputs, "-o", "lib", "--rules-only", "-j", "1"])


def test_a_gitignore_write_cut_short_leaves_no_part_to_be_kept_as_the_curators(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "fan.md").write_text(FAN, encoding="utf-8")
    real_fdopen = os.fdopen

    class _Full:
        """A file whose writes fail as on a full disk, only for the .gitignore text."""

        def __init__(self, handle):
            self._handle = handle

        def write(self, text):
            if text == lock_module.GITIGNORE:
                raise OSError(errno.ENOSPC, "No space left on device")
            return self._handle.write(text)

        def __getattr__(self, name):
            return getattr(self._handle, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return self._handle.__exit__(*exc)

    monkeypatch.setattr(os, "fdopen", lambda *a, **k: _Full(real_fdopen(*a, **k)))
    first = _convert(CliRunner(), "pm")
    assert first.exit_code == 0, first.output  # the .gitignore is advice: its failed write stops nothing
    ignore = tmp_path / "lib" / ".pmparse" / ".gitignore"
    # an empty .gitignore left here was taken for a curator's own at every later run: the lock and
    # the scan cache went into git after all
    assert not ignore.exists()
    monkeypatch.setattr(os, "fdopen", real_fdopen)
    assert _convert(CliRunner(), "pm").exit_code == 0
    assert ignore.read_text(encoding="utf-8") == lock_module.GITIGNORE


def test_a_convert_with_nothing_new_reads_no_record_to_look_for_a_merge(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "fan.md").write_text(FAN, encoding="utf-8")
    (tmp_path / "pm" / "cert.md").write_text(CERT, encoding="utf-8")
    assert _convert(CliRunner(), "pm").exit_code == 0
    # the records were written just now: the scan would read them again for fear of a change in
    # the same clock tick (store._RACY_NS); this test is about what is read after the scan
    monkeypatch.setattr(store, "_RACY_NS", 0)
    reads = []
    real_read = Library.read

    def counting(path):
        reads.append(os.path.basename(path))
        return real_read(path)

    monkeypatch.setattr(Library, "read", staticmethod(counting))
    result = _convert(CliRunner(), "pm")
    assert result.exit_code == 0, result.output
    # the scan cache vouches for both records: the merge check parsed each one again, every run
    assert reads == []
