"""A rules file a person wrote (``--taxonomy``, a heading or cue table) that does not load is
named in one line: the file, the line and the reason, never a parser's or pydantic's block."""

from __future__ import annotations

import pytest

from pmparse.errors import RulesError
from pmparse.rules.cues import load_cues
from pmparse.rules.headings import load_headings
from pmparse.rules.taxonomy import load_taxonomy


def _message(loader, path) -> str:
    with pytest.raises(RulesError) as caught:
        loader(path)
    message = str(caught.value)
    assert str(path) in message and "\n" not in message
    assert "<unicode string>" not in message and "errors.pydantic.dev" not in message
    return message


@pytest.mark.parametrize("loader", [load_taxonomy, load_headings, load_cues])
def test_a_syntax_error_gives_its_line(tmp_path, loader):
    bad = tmp_path / "rules.yaml"
    bad.write_text("version: 1\ngroups:\n  - id: x\n    words: [a, b\n", encoding="utf-8")
    assert "syntax error at line" in _message(loader, bad)


@pytest.mark.parametrize("loader", [load_taxonomy, load_headings, load_cues])
def test_an_unknown_key_gives_its_line_and_name(tmp_path, loader):
    bad = tmp_path / "rules.yaml"
    bad.write_text("version: 1\n\nmisspelt_key: 3\n", encoding="utf-8")
    message = _message(loader, bad)
    assert "line 3: misspelt_key: not a known key" in message


def test_an_unreadable_file_says_so(tmp_path):
    bad = tmp_path / "rules.yaml"
    bad.write_bytes(b"version: 1\n\xff\xfe\n")
    assert "readable UTF-8" in _message(load_taxonomy, bad)
