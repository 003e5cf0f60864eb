"""``pmparse resolve`` after a real ``git merge``: a state file it would merge stays within what
pmparse reads back, or is left as git left it, named (docs/review.md)."""

from __future__ import annotations

import json
import shutil

import pytest

from pmparse.library import statefiles
from tests.curators import git, pull, run_pmparse, two_clones

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _both_reject_root_cause(tmp_path, monkeypatch):
    """Two clones whose curators each turned down the root cause of the library's one draft
    (IL-0001), pulled together: git leaves its rejection memory (and draft decisions) conflicted."""
    a, b = two_clones(tmp_path, monkeypatch)
    for clone, who in ((a, "ann"), (b, "bo")):
        result = run_pmparse(monkeypatch, clone, "review", "lib", "--drafts", "--record", "IL-0001",
                          "--reviewer", who, "--reject", "root_cause")
        assert result.exit_code == 0, result.output
    sides = [json.loads((clone / "lib/.pmparse/rejected/IL-0001.json").read_text(encoding="utf-8"))
             for clone in (a, b)]
    merged = pull(a, b)
    assert "CONFLICT" in merged.stdout and "rejected/IL-0001.json" in merged.stdout, merged.stdout
    return a, sides


def test_a_merged_rejection_memory_too_large_to_read_back_is_refused_and_left_as_it_is(tmp_path, monkeypatch):
    a, sides = _both_reject_root_cause(tmp_path, monkeypatch)
    memory = a / "lib" / ".pmparse" / "rejected" / "IL-0001.json"
    conflicted = memory.read_bytes()
    one_side = max(len(json.dumps(side, indent=2, ensure_ascii=False)) + 1 for side in sides)
    # room for either side's memory, not for both: the union was written whole, then read back by
    # no command (refused, or passed over and every rejection in it forgotten)
    monkeypatch.setattr(statefiles, "STATE_READ_LIMIT", one_side + 10)

    result = run_pmparse(monkeypatch, a, "resolve", "lib")

    assert result.exit_code == 2, result.output
    assert "rejections of both sides kept" not in result.output
    assert "error: IL-0001: " in result.output and ".pmparse/rejected/IL-0001.json" in result.output, result.output
    assert "expected a state file of at most" in result.output, result.output
    assert memory.read_bytes() == conflicted
    assert not list((a / "lib" / ".pmparse").rglob("*.tmp*"))
    # the rest goes on: the draft decisions of one field decided alike on both sides are merged
    assert "draft decisions of both sides kept" in result.output, result.output


def test_a_merged_rejection_memory_within_the_limit_is_still_written(tmp_path, monkeypatch):
    a, sides = _both_reject_root_cause(tmp_path, monkeypatch)
    result = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 0, result.output
    assert "IL-0001: rejections of both sides kept (.pmparse/rejected/IL-0001.json)" in result.output
    kept = json.loads((a / "lib/.pmparse/rejected/IL-0001.json").read_text(encoding="utf-8"))["rejected"]
    assert kept == sides[0]["rejected"] + sides[1]["rejected"]
    assert git(a, "add", "-A").returncode == 0



def _draft_fields(clone) -> list[str]:
    """The fields convert's draft of IL-0001 suggested (what review --drafts asks), from its base."""
    from pmparse.review.anchor import REVIEW_FIELDS

    base = json.loads((clone / "lib/.pmparse/base/IL-0001.json").read_text(encoding="utf-8"))
    return [name for name in REVIEW_FIELDS if base[name] not in (None, [])]


def _decided_apart(tmp_path, monkeypatch, every_field: bool):
    """Two clones: ann drops the root cause of the draft IL-0001, bo keeps the title (or every
    other field); pulled together, git leaves its draft decisions conflicted."""
    a, b = two_clones(tmp_path, monkeypatch)
    kept = [name for name in _draft_fields(a) if name != "root_cause"] if every_field else ["title"]
    for clone, who, option, fields in ((a, "ann", "--reject", "root_cause"), (b, "bo", "--accept", ",".join(kept))):
        result = run_pmparse(monkeypatch, clone, "review", "lib", "--drafts", "--record", "IL-0001",
                             "--reviewer", who, option, fields)
        assert result.exit_code == 0, result.output
    sides = [(clone / "lib/.pmparse/drafts/IL-0001.json").read_text(encoding="utf-8") for clone in (a, b)]
    merged = pull(a, b)
    assert "CONFLICT" in merged.stdout and "drafts/IL-0001.json" in merged.stdout, merged.stdout
    return a, sides


@pytest.mark.parametrize("every_field", [False, True], ids=["fields-left", "every-field-decided"])
def test_merged_draft_decisions_too_large_to_read_back_are_refused_before_anything_is_written(
        tmp_path, monkeypatch, every_field):
    a, sides = _decided_apart(tmp_path, monkeypatch, every_field)
    lib = a / "lib"
    before = {str(p.relative_to(lib)): p.read_bytes() for p in lib.rglob("*")
              if p.is_file() and p.name not in ("index.json", "lock")}
    # room for either side's decisions, not for both: as for a rejection memory, the merged file
    # must be one pmparse reads back (all or none: the record marked, the decisions written)
    monkeypatch.setattr(statefiles, "STATE_READ_LIMIT", max(len(side.encode("utf-8")) for side in sides) + 10)

    result = run_pmparse(monkeypatch, a, "resolve", "lib")

    assert result.exit_code == 2, result.output
    assert "draft decisions of both sides kept" not in result.output, result.output
    assert "error: IL-0001: " in result.output and ".pmparse/drafts/IL-0001.json" in result.output, result.output
    assert "expected a state file of at most" in result.output, result.output
    after = {str(p.relative_to(lib)): p.read_bytes() for p in lib.rglob("*")
             if p.is_file() and p.name not in ("index.json", "lock")}
    assert after == before  # the record not marked reviewed, the decisions left with their markers


@pytest.mark.parametrize("every_field", [False, True], ids=["fields-left", "every-field-decided"])
def test_merged_draft_decisions_within_the_limit_are_still_merged(tmp_path, monkeypatch, every_field):
    a, _ = _decided_apart(tmp_path, monkeypatch, every_field)
    result = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 0, result.output
    assert "IL-0001: draft decisions of both sides kept" in result.output, result.output
    assert (a / "lib/.pmparse/drafts/IL-0001.json").exists() is not every_field
