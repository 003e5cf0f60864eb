"""``resolve`` on a library from someone else (a tarball, a copied folder): what it holds in
``.pmparse/intent/`` and its record files are the sender's (pmparse.merge.resolve)."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from pmparse.cli import main
from pmparse.library import statefiles
from pmparse.merge.resolve import resolve_library
from pmparse.util import sha256_text
from tests.hang_guard import fifo_guard

KILN = "# Kiln overheated\n\nGlazes cracked for three hours.\n\nRoot cause: a thermostat wired backwards.\n"


@pytest.fixture
def lib(tmp_path, monkeypatch):
    """A library of one record kept in a git checkout's root, its source beside it."""
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "kiln.md").write_text(KILN, encoding="utf-8")
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / ".pmparse").mkdir()
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["convert", "pm", "-o", ".", "--rules-only", "-j", "1"])
    assert result.exit_code == 0, result.output
    return tmp_path


def _journal(lib, steps, *, record="IL-0001.yaml", new_id="IL-0002") -> dict:
    """A journal as a killed run leaves it, whose record is still the text it names."""
    text = (lib / "IL-0001.yaml").read_text(encoding="utf-8")
    journal = {"record": record, "conflicted": sha256_text(text), "steps": steps, "new_id": new_id,
               "message": "IL-0001: kept ours"}
    (lib / ".pmparse" / "intent").mkdir(exist_ok=True)
    (lib / ".pmparse" / "intent" / "resolve-IL-0001.json").write_text(json.dumps(journal), encoding="utf-8")
    return journal


def _tree(lib) -> dict:
    return {str(p.relative_to(lib)): p.read_bytes() for p in lib.rglob("*")
            if p.is_file() and p.name not in ("index.json", "lock")}


@pytest.mark.parametrize("steps", [
    [[".git/hooks/pre-commit", "#!/bin/sh\necho hi\n"], ["IL-0001.yaml", "id: IL-0001\n"]],
    [[".git/config", "[core]\n\tfsmonitor = touch /tmp/x\n"], ["IL-0001.yaml", "id: IL-0001\n"]],
    [["pm/kiln.md", None], ["IL-0001.yaml", "id: IL-0001\n"]],
    [[".pmparse/anchor.json", "{}"], ["IL-0001.yaml", "id: IL-0001\n"]],
    [["IL-0002.yaml", "x"], ["IL-0007.yaml", None], ["IL-0001.yaml", "id: IL-0001\n"]],
    [[".pmparse/base/IL-0002.json", None], ["IL-0001.yaml", "id: IL-0001\n"]],
    [["IL-0002.yaml", "x"], [".pmparse/base/IL-0001.json", "{}"]],  # the last step is not its record
    # each file once: 20,000 writes of one file (a journal of 500 kB) took 106 s, 128 MiB hours
    [["IL-0002.yaml", "x"], ["IL-0002.yaml", "x"], ["IL-0001.yaml", "id: IL-0001\n"]],
    # a split writes no record file of its id but its record, and one of the new id
    [["IL-0001.json", "{}"], ["IL-0001.yaml", "id: IL-0001\n"]],
    [["IL-0001.json", None], ["IL-0001.yaml", "id: IL-0001\n"]],
    [["IL-0002.yaml", "x"], ["IL-0002.json", "{}"], ["IL-0001.yaml", "id: IL-0001\n"]],
], ids=["git-hook", "git-config", "a-source", "anchor", "another-record", "removes-the-new-ids", "last-step",
        "a-file-twice", "another-format-of-its-id", "removes-another-format-of-its-id", "two-new-records"])
def test_a_journal_naming_files_resolve_never_writes_is_refused_and_nothing_is_written(lib, steps):
    (lib / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    (lib / "IL-0007.yaml").write_text("kept\n", encoding="utf-8")
    _journal(lib, steps)
    before = _tree(lib)
    report = resolve_library(lib)
    assert [(r.card_id, r.outcome) for r in report.records] == [("IL-0001", "refused")]
    assert "resolve-IL-0001.json" in report.records[0].message
    assert _tree(lib) == before  # the journal kept, for a person to remove


@pytest.mark.parametrize("field,value", [("record", "../IL-0001.yaml"), ("record", "IL-0002.yaml"),
                                         ("new_id", "../../x"), ("new_id", "IL-0001")])
def test_a_journal_naming_another_record_or_id_is_refused(lib, field, value):
    journal = _journal(lib, [["IL-0002.yaml", "x"], ["IL-0001.yaml", "id: IL-0001\n"]])
    journal[field] = value
    (lib / ".pmparse" / "intent" / "resolve-IL-0001.json").write_text(json.dumps(journal), encoding="utf-8")
    before = _tree(lib)
    assert [r.outcome for r in resolve_library(lib).records] == ["refused"]
    assert _tree(lib) == before



@pytest.mark.parametrize("held", ["IL-0002.yaml", ".pmparse/base/IL-0002.json"])
def test_a_journal_writing_over_what_its_new_id_already_holds_is_refused(lib, held):
    # a split gives a free id: a file of it the journal does not hold is another record's, or a
    # person's edit of theirs since the run was stopped, and was overwritten
    (lib / held).parent.mkdir(parents=True, exist_ok=True)
    (lib / held).write_text("a curator's own\n", encoding="utf-8")
    _journal(lib, [[".pmparse/base/IL-0002.json", "{}"], ["IL-0002.yaml", "x"], ["IL-0001.yaml", "id: IL-0001\n"]])
    before = _tree(lib)
    report = resolve_library(lib)
    assert [r.outcome for r in report.records] == ["refused"] and held in report.records[0].message
    assert "settle IL-0001.yaml by hand" in report.records[0].message
    assert _tree(lib) == before


def test_a_journal_whose_new_id_a_stopped_run_already_wrote_is_finished(lib):
    steps = [[".pmparse/base/IL-0002.json", "{}"], ["IL-0002.yaml", "x"], ["IL-0001.yaml", "id: IL-0001\n"]]
    _journal(lib, steps)
    (lib / ".pmparse" / "base").mkdir(exist_ok=True)
    (lib / ".pmparse" / "base" / "IL-0002.json").write_text("{}", encoding="utf-8")  # killed after one write
    assert [r.outcome for r in resolve_library(lib).records] == ["split"]
    assert (lib / "IL-0001.yaml").read_text(encoding="utf-8") == "id: IL-0001\n"


@pytest.mark.parametrize("link", ["IL-0002.yaml", ".pmparse/pending"])
def test_a_journal_through_a_symbolic_link_writes_nothing(lib, tmp_path_factory, link):
    # the link was refused only when its step came: the steps before it were written
    outside = tmp_path_factory.mktemp("outside")
    os.symlink(outside / "victim" if link.endswith(".yaml") else outside, lib / link)
    _journal(lib, [[".pmparse/base/IL-0002.json", "{}"], ["IL-0002.yaml", "x"],
                   [".pmparse/pending/IL-0002.json", "{}"], ["IL-0001.yaml", "id: IL-0001\n"]])
    before = _tree(lib)
    result = CliRunner().invoke(main, ["resolve", "."])
    assert result.exit_code == 2 and link in result.stderr
    assert _tree(lib) == before and list(outside.iterdir()) == []

def test_the_cli_names_the_journal_and_exits_2(lib):
    _journal(lib, [[".git/hooks/pre-commit", "#!/bin/sh\n"], ["IL-0001.yaml", "id: IL-0001\n"]])
    result = CliRunner().invoke(main, ["resolve", "."])
    assert result.exit_code == 2
    assert "resolve-IL-0001.json" in result.stderr and ".git/hooks/pre-commit" in result.stderr
    assert not (lib / ".git" / "hooks" / "pre-commit").exists()


def test_a_fifo_in_place_of_a_journal_is_not_read(lib):
    # read, it waits for a writer for ever, the library's lock held
    os.mkfifo(lib / ".pmparse" / "intent" / "resolve-IL-0001.json")
    with fifo_guard(lib / ".pmparse" / "intent" / "resolve-IL-0001.json"):
        assert resolve_library(lib).records == []


def test_a_conflicted_record_larger_than_a_record_may_be_is_not_read(lib, monkeypatch):
    text = (lib / "IL-0001.yaml").read_text(encoding="utf-8")
    conflicted = f"<<<<<<< HEAD\n{text}=======\n{text.replace('kiln.md', 'pump.md')}>>>>>>> 0123abc\n"
    (lib / "IL-0001.yaml").write_text(conflicted, encoding="utf-8")
    monkeypatch.setattr(statefiles, "RECORD_READ_LIMIT", len(conflicted) - 1)
    before = _tree(lib)
    assert resolve_library(lib).records == []  # left alone: validate names it too large
    assert _tree(lib) == before


@pytest.fixture
def merged(tmp_path, monkeypatch):
    """Two curators' new records of other sources merged by git into IL-0001."""
    from tests.curators import KILN as OURS, PUMP
    from tests.merge.sides import curator as _curator, merge_as_git as _merge

    lib = _merge(_curator(tmp_path, monkeypatch, "kiln", OURS), _curator(tmp_path, monkeypatch, "pump", PUMP))
    monkeypatch.chdir(tmp_path / "kiln")
    return lib


@pytest.mark.parametrize("kind,data", [
    ("rejected", {"rejected": [1]}),
    ("rejected", {"rejected": "abc"}),
    ("rejected", {"rejected": [{"sha256": ["x"]}]}),
    ("drafts", {"sha256": ["x"], "decided": {}}),
    ("drafts", {"sha256": {"a": 1}}),
], ids=["an-int", "a-string", "a-list-sha", "drafts-list-sha", "drafts-object-sha"])
def test_a_state_file_that_is_not_pmparses_is_refused_naming_it(merged, kind, data):
    # a traceback (AttributeError, TypeError: unhashable) stopped the whole run
    state = merged / ".pmparse" / kind / "IL-0001.json"
    state.parent.mkdir(exist_ok=True)
    state.write_text(json.dumps(data), encoding="utf-8")
    before = _tree(merged)
    report = resolve_library(merged)
    assert [r.outcome for r in report.records] == ["refused"]
    assert str(state) in report.records[0].message
    assert _tree(merged) == before


class _Counted(dict):
    """A rejection that counts how often it is compared with another."""

    compared = 0

    def __eq__(self, other):
        _Counted.compared += 1
        return dict.__eq__(self, other)

    __hash__ = None


def _rejection(n: int) -> dict:
    return {"sha256": "a" * 64, "model": "0.1.0/rules", "field": "title", "value_sha256": f"{n:064x}",
            "decision": "rejected", "by": "ann", "at": "2026-12-07T10:00:00+00:00"}


def test_rejections_both_sides_added_are_merged_comparing_each_a_bounded_number_of_times(lib, monkeypatch):
    # each of theirs was looked for in all of ours: 20,000 a side took 30 s, 200,000 hours, the lock held
    from pmparse.merge import merged_state

    n = 2000
    memory = lib / ".pmparse" / "rejected" / "IL-0001.json"
    memory.parent.mkdir(exist_ok=True)
    sides = [{"version": 1, "rejected": [_rejection(i) for i in range(n)]},
             {"version": 1, "rejected": [_rejection(i) for i in range(n, 2 * n)] + [_rejection(0)]}]
    memory.write_text("<<<<<<< HEAD\n" + json.dumps(sides[0]) + "\n=======\n" + json.dumps(sides[1]) + "\n>>>>>>> b\n",
                      encoding="utf-8")
    real = merged_state.parse_state
    monkeypatch.setattr(merged_state, "parse_state", lambda text, path: {
        **real(text, path), "rejected": [_Counted(e) for e in real(text, path)["rejected"]]})
    _Counted.compared = 0
    report = resolve_library(lib)
    assert report.merged == ["IL-0001: rejections of both sides kept (.pmparse/rejected/IL-0001.json)"]
    kept = json.loads(memory.read_text(encoding="utf-8"))["rejected"]
    assert kept == [_rejection(i) for i in range(2 * n)]  # the one both hold, once
    assert _Counted.compared <= 4 * n


def test_rejections_a_side_of_which_is_not_pmparses_are_left_for_a_person(lib):
    memory = lib / ".pmparse" / "rejected" / "IL-0001.json"
    memory.parent.mkdir(exist_ok=True)
    text = ("<<<<<<< HEAD\n" + json.dumps({"rejected": [1, 2]}) + "\n=======\n" + json.dumps({"rejected": [3]})
            + "\n>>>>>>> b\n")
    memory.write_text(text, encoding="utf-8")
    report = resolve_library(lib)
    assert report.merged == [] and report.unsettled == [".pmparse/rejected/IL-0001.json"]
    assert memory.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("kind,ours,theirs,kept", [
    ("rejected", {"version": 1}, {"version": 1, "rejected": [_rejection(1)]}, {"rejected": [_rejection(1)]}),
    ("drafts", {"sha256": "a" * 64}, {"sha256": "a" * 64, "decided": {}}, {"decided": {}}),
], ids=["rejections-left-out", "decisions-left-out"])
def test_a_side_leaving_out_what_its_model_defaults_is_merged(lib, kind, ours, theirs, kept):
    # both sides are files as pmparse reads them (the list or object defaults to empty): the
    # merge looked the key up and stopped the whole run with a KeyError
    state = lib / ".pmparse" / kind / "IL-0001.json"
    state.parent.mkdir(exist_ok=True)
    state.write_text("<<<<<<< HEAD\n" + json.dumps(ours) + "\n=======\n" + json.dumps(theirs) + "\n>>>>>>> b\n",
                     encoding="utf-8")
    result = CliRunner().invoke(main, ["resolve", "."])
    assert result.exit_code == 0, result.output
    assert json.loads(state.read_text(encoding="utf-8")).items() >= kept.items()
