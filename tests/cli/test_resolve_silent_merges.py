"""What a real ``git merge`` of two curators' libraries merges without a conflict, or with one
``resolve`` took for agreement: each is named for a person rather than settled in silence
(docs/review.md, "A draft reviewed")."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.curators import (
    converts,
    git,
    kiln_as_yaml_pump_as_json,
    pull,
    run_pmparse,
    two_clones,
)

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

#: A source whose draft has a list field of three items, each on lines of its own in the record.
SHED = ("# Shed door jammed\n\nTools were out of reach for 40 minutes.\n\n## Action items\n\n"
        "- Oil the hinges\n- Fit a wider handle\n- Label the spare key\n\nRoot cause: a warped frame.\n")


def _library_files(lib) -> dict:
    return {str(p.relative_to(lib)): p.read_bytes() for p in lib.rglob("*")
            if p.is_file() and p.name not in ("index.json", "lock")}


def _shed_clones(tmp_path, monkeypatch):
    a, b = two_clones(tmp_path, monkeypatch)
    converts(monkeypatch, a, "shed", SHED)
    assert git(a, "add", "-A").returncode == 0 and git(a, "commit", "-qm", "shed").returncode == 0
    assert git(b, "pull", "-q", "../a", "main").returncode == 0
    return a, b


def _review(monkeypatch, clone, *args):
    result = run_pmparse(monkeypatch, clone, "review", "lib", "--drafts", "--record", "IL-0002", *args)
    assert result.exit_code == 0, result.output


def test_one_field_decided_item_by_item_differently_on_both_sides_is_left_naming_draft_and_field(
        tmp_path, monkeypatch):
    a, b = _shed_clones(tmp_path, monkeypatch)
    # ann keeps the first two actions, bo the last two: both "items", other values
    _review(monkeypatch, a, "--reviewer", "ann", "--items", "action_items:1,2")
    _review(monkeypatch, b, "--reviewer", "bo", "--items", "action_items:2,3")
    merged = pull(a, b)
    # git merged the record's item lines into a value neither curator chose; only the decisions conflict
    assert "CONFLICT" in merged.stdout and "drafts/IL-0002.json" in merged.stdout, merged.stdout
    assert "Merge conflict in lib/IL-0002.yaml" not in merged.stdout, merged.stdout
    drafts = a / "lib" / ".pmparse" / "drafts" / "IL-0002.json"
    conflicted = drafts.read_bytes()
    result = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 1, result.output
    assert ("note: .pmparse/drafts/IL-0002.json: the two sides each gave field(s) of draft IL-0002 their own value: "
            "action_items (items by ann, items by bo)") in result.output, result.output
    assert drafts.read_bytes() == conflicted
    assert "0 split, 1 left for a person" in result.output


def test_a_field_decided_differently_beside_one_each_side_decided_item_by_item_is_named_too(tmp_path, monkeypatch):
    a, b = _shed_clones(tmp_path, monkeypatch)
    # besides the actions each took item by item, ann keeps the root cause and bo drops it: git
    # merged the record to bo's drop, and a curator keeping ann's side must know to restore it
    _review(monkeypatch, a, "--reviewer", "ann", "--items", "action_items:1,2", "--accept", "root_cause")
    _review(monkeypatch, b, "--reviewer", "bo", "--items", "action_items:2,3", "--reject", "root_cause")
    pull(a, b)
    result = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 1, result.output
    assert "action_items (items by ann, items by bo)" in result.output, result.output
    assert "root_cause differently (kept, dropped)" in result.output, result.output


def test_one_field_kept_on_both_sides_still_merges(tmp_path, monkeypatch):
    a, b = _shed_clones(tmp_path, monkeypatch)
    _review(monkeypatch, a, "--reviewer", "ann", "--accept", "action_items")
    _review(monkeypatch, b, "--reviewer", "bo", "--accept", "action_items,title")
    pull(a, b)
    result = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 0, result.output
    kept = json.loads((a / "lib/.pmparse/drafts/IL-0002.json").read_text(encoding="utf-8"))["decided"]
    assert sorted(kept) == ["action_items", "title"] and kept["action_items"]["by"] == "ann"


def test_a_draft_finished_on_one_side_and_decided_otherwise_on_the_other_is_named(tmp_path, monkeypatch):
    a, b = _shed_clones(tmp_path, monkeypatch)
    # ann drops the root cause and finishes the draft; bo keeps the root cause, the rest left open
    _review(monkeypatch, a, "--reviewer", "ann", "--reject", "root_cause", "--accept-all")
    _review(monkeypatch, b, "--reviewer", "bo", "--accept", "root_cause")
    assert pull(a, b).returncode == 0  # no conflict: bo's decisions' file comes in beside ann's reviewed record
    record = (a / "lib" / "IL-0002.yaml").read_text(encoding="utf-8")
    assert "status: reviewed" in record and "root_cause: []" in record
    before = _library_files(a / "lib")
    result = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 1, result.output
    assert ("note: IL-0002 is marked reviewed, but its draft decisions hold field(s) the record does not follow: "
            "root_cause (kept by bo) (decided on one side of a git merge while the other finished the draft, or "
            "before it was finished by hand): check those fields of IL-0002.yaml, then remove "
            ".pmparse/drafts/IL-0002.json") in result.output, result.output
    assert _library_files(a / "lib") == before


def test_a_draft_finished_on_one_side_and_decided_alike_on_the_other_says_nothing(tmp_path, monkeypatch):
    a, b = _shed_clones(tmp_path, monkeypatch)
    _review(monkeypatch, a, "--reviewer", "ann", "--reject", "root_cause", "--accept-all")
    _review(monkeypatch, b, "--reviewer", "bo", "--reject", "root_cause", "--accept", "title")
    pull(a, b)
    result = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 0 and "is marked reviewed" not in result.output, result.output
    assert "0 split, 0 left for a person" in result.output


def test_a_draft_finished_by_hand_after_a_decision_is_named_without_blaming_a_merge(tmp_path, monkeypatch):
    # no git here: ann kept the title in review --drafts, then corrected it in the file and set
    # status: reviewed by hand (as review's own advice allows); the decisions' file stays behind
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "shed.md").write_text(SHED, encoding="utf-8")
    assert run_pmparse(monkeypatch, tmp_path, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1").exit_code == 0
    result = run_pmparse(monkeypatch, tmp_path, "review", "lib", "--drafts", "--reviewer", "ann", "--accept", "title")
    assert result.exit_code == 0, result.output
    record = tmp_path / "lib" / "IL-0001.yaml"
    text = record.read_text(encoding="utf-8")
    assert "status: suggested\n" in text and "title: Shed door jammed\n" in text
    record.write_text(text.replace("status: suggested\n", "status: reviewed\n")
                      .replace("title: Shed door jammed\n", "title: The shed door stuck\n"), encoding="utf-8")
    result = run_pmparse(monkeypatch, tmp_path, "resolve", "lib")
    assert result.exit_code == 1, result.output
    assert "title (kept by ann)" in result.output and "remove .pmparse/drafts/IL-0001.json" in result.output
    # what happened cannot be told from the files: the note must not say it was another curator
    assert "the other decided" not in result.output, result.output
    assert "by hand" in result.output, result.output


def _one_id_twice(tmp_path, monkeypatch):
    """a converted a file as YAML, b another as JSON, both under IL-0002: git merges both files."""
    a, b = kiln_as_yaml_pump_as_json(tmp_path, monkeypatch)
    pull(a, b)
    # settle the conflicted bases by hand (ours), so only the two files of one id are left
    assert git(a, "checkout", "--ours", "--", "lib/.pmparse").returncode == 0
    assert git(a, "add", "-A").returncode == 0 and git(a, "commit", "-qm", "merged").returncode == 0
    assert sorted(p.name for p in (a / "lib").glob("IL-0002.*")) == ["IL-0002.json", "IL-0002.yaml"]
    return a


@pytest.mark.parametrize("command", [["convert", "pm", "-o", "lib", "--rules-only", "-j", "1", "--force"],
                                     ["review", "lib", "--accept-all"],
                                     ["review", "lib", "--drafts", "--accept-all"]])
def test_a_writer_refuses_an_id_held_by_two_files_before_writing(tmp_path, monkeypatch, command):
    a = _one_id_twice(tmp_path, monkeypatch)
    before = _library_files(a / "lib")
    result = run_pmparse(monkeypatch, a, *command)
    assert result.exit_code == 2, result.output
    assert "IL-0002.json and IL-0002.yaml" in result.output and "pmparse resolve" in result.output, result.output
    assert _library_files(a / "lib") == before


def test_diff_names_an_id_held_by_two_files(tmp_path, monkeypatch):
    a = _one_id_twice(tmp_path, monkeypatch)
    result = run_pmparse(monkeypatch, a, "diff", "lib")
    assert result.exit_code == 1, result.output
    assert "failed:" in result.output and "IL-0002.json and IL-0002.yaml" in result.output, result.output
    assert "pmparse resolve" in result.output


@pytest.mark.parametrize("how", [("checkout", "--ours"), ("rm", "-r", "-q")])
def test_the_advice_for_two_models_leaves_convert_working_where_training_is_refused(tmp_path, monkeypatch, how):
    from pmparse.nlp.pipeline import DEFAULT_MODEL_DIR

    a, b = two_clones(tmp_path, monkeypatch)
    for clone, name in ((a, "a"), (b, "b")):
        model = clone / "lib" / ".pmparse" / "model"
        model.mkdir()
        shutil.copyfile(DEFAULT_MODEL_DIR / "weights.npz", model / "weights.npz")
        meta = (DEFAULT_MODEL_DIR / "meta.json").read_text(encoding="utf-8")
        (model / "meta.json").write_text(meta.replace('"name": "', f'"name": "{name}-', 1), encoding="utf-8")
    pull(a, b)
    result = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 1, result.output
    assert ("keep one side's whole model folder ('git checkout --ours -- lib/.pmparse/model', or --theirs) or remove "
            "it ('git rm -r -- lib/.pmparse/model')") in result.output, result.output
    # training again is no way out on a library this small: nothing is trained, the markers stay
    trained = run_pmparse(monkeypatch, a, "train", "--library", "lib")
    assert trained.exit_code != 0 and "<<<<<<<" in (a / "lib/.pmparse/model/meta.json").read_text(encoding="utf-8")
    assert git(a, *how, "--", "lib/.pmparse/model").returncode == 0  # as the note says
    converted = run_pmparse(monkeypatch, a, "convert", "pm", "-o", "lib", "-j", "1")
    assert converted.exit_code == 0, converted.output
