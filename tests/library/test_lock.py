"""A library's write lock (pmparse.library.lock): one writer at a time, a lock file that is a link
or cannot be opened."""

from __future__ import annotations

import os

import pytest

from pmparse.errors import UnsafePathError, UsageError
from pmparse.library.lock import write_lock


def test_a_dangling_lock_link_does_not_create_its_target(tmp_path):
    lib = tmp_path / "lib"
    (lib / ".pmparse").mkdir(parents=True)
    target = tmp_path / "created-by-pmparse"
    os.symlink(target, lib / ".pmparse" / "lock")
    with pytest.raises(UnsafePathError):
        with write_lock(lib):
            pass
    assert not target.exists() and not os.path.lexists(target)


def test_a_lock_that_cannot_be_opened_is_a_usage_error(tmp_path):
    lib = tmp_path / "lib"
    (lib / ".pmparse" / "lock").mkdir(parents=True)  # a folder where the lock file belongs
    with pytest.raises(UsageError, match="lock file"):
        with write_lock(lib):
            pass


def test_a_library_has_one_writer_at_a_time(tmp_path):
    with write_lock(tmp_path):
        with pytest.raises(UsageError, match="another pmparse process|other pmparse process"):
            with write_lock(tmp_path):
                pass
    with write_lock(tmp_path):  # released when the holder ends
        pass
