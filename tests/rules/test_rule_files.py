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


def _packaged_headings():
    import yaml
    from importlib import resources

    return yaml.safe_load(resources.files("pmparse.resources").joinpath("headings.yaml").read_text(encoding="utf-8"))


def test_a_rules_file_nested_past_the_limit_is_refused_not_crashed_on(tmp_path):
    # libyaml's loader crashed the process (segmentation fault) on 100,000 "["
    path = tmp_path / "headings.yaml"
    path.write_text("[" * 100_000, encoding="utf-8")
    with pytest.raises(RulesError, match="nested at most 32 levels") as caught:
        load_headings(path)
    assert caught.value.path == str(path)


def test_a_rules_file_whose_aliases_multiply_is_refused(tmp_path):
    import yaml

    bomb = ["x0: &a0 [root cause, root cause, root cause, root cause, root cause, root cause, root cause, root cause]"]
    bomb += [f"x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 8)}]" for i in range(1, 7)]
    body = yaml.safe_dump(_packaged_headings(), sort_keys=False).replace("synonyms:\n", "synonyms:\n  lessons: *a6\n", 1)
    path = tmp_path / "headings.yaml"
    path.write_text("bomb:\n" + "".join(f"  {line}\n" for line in bomb) + body, encoding="utf-8")
    with pytest.raises(RulesError, match="aliases that expand"):
        load_headings(path)


def test_a_model_folders_headings_may_add_synonyms_but_no_regex(tmp_path):
    import yaml

    from pmparse.rules.headings import check_learnt_headings

    table = _packaged_headings()
    table["synonyms"]["lessons"].append("what we took away")
    path = tmp_path / "headings.yaml"
    path.write_text(yaml.safe_dump(table, sort_keys=False), encoding="utf-8")
    check_learnt_headings(path)
    table["patterns"].insert(0, {"field": "root_cause", "regex": "^(a+)+$"})  # backtracks on "aaaa...!"
    path.write_text(yaml.safe_dump(table, sort_keys=False), encoding="utf-8")
    load_headings.cache_clear()
    with pytest.raises(RulesError, match="packaged heading patterns"):
        check_learnt_headings(path)
