"""Paths pmparse writes or deletes stay inside their folder (src/pmparse/paths.py)."""

from __future__ import annotations

import os

import pytest

from pmparse.errors import UnsafePathError
from pmparse.paths import inside, plain_parts


@pytest.mark.parametrize("rel", ["", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", "a/.", "a\\b", "a\0b"])
def test_only_plain_relative_names_pass(rel):
    with pytest.raises(UnsafePathError):
        plain_parts(rel)


def test_a_plain_name_gives_its_parts(tmp_path):
    assert plain_parts("by/component/dns.html") == ("by", "component", "dns.html")
    assert inside(tmp_path, "by/new/page.html") == tmp_path / "by" / "new" / "page.html"


def test_a_link_on_the_way_is_refused_dangling_or_not(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "victim").mkdir()
    os.symlink(tmp_path / "victim", tmp_path / "site" / "by")
    os.symlink(tmp_path / "nowhere", tmp_path / "site" / "lock")
    for rel in ("by/x.html", "by", "lock"):
        with pytest.raises(UnsafePathError, match="symbolic link"):
            inside(tmp_path / "site", rel)


def test_the_folder_itself_may_be_a_link(tmp_path):
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "named")
    assert inside(tmp_path / "named", "a.html") == tmp_path / "named" / "a.html"
