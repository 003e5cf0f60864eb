"""``pmparse resolve`` after a real ``git merge`` of two curators who each converted a new file:
both incidents kept, with the review one of them made (docs/record-format.md, "Sharing a library
through git")."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.curators import KILN, PUMP, converts, git, kiln_as_yaml_pump_as_json, pull, run_pmparse, two_clones

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")



@pytest.mark.parametrize("style", ["merge", "diff3"])
def test_a_pull_where_both_curators_took_one_id_keeps_both_incidents_and_the_review(tmp_path, monkeypatch, style):
    a, b = two_clones(tmp_path, monkeypatch)
    converts(monkeypatch, a, "kiln", KILN)
    converts(monkeypatch, b, "pump", PUMP)
    # curator b drops the root cause pmparse drafted: remembered in b's rejected/ and drafts/
    result = run_pmparse(monkeypatch, b, "review", "lib", "--drafts", "--record", "IL-0002", "--reject", "root_cause")
    assert result.exit_code == 0, result.output
    for clone in (a, b):
        assert git(clone, "add", "-A").returncode == 0
        assert git(clone, "commit", "-qm", "converted").returncode == 0
    assert git(a, "fetch", "-q", "../b", "main").returncode == 0
    merged = git(a, "merge", "FETCH_HEAD", style=style)
    assert merged.returncode == 1 and "CONFLICT (add/add)" in merged.stdout, merged.stdout + merged.stderr
    assert "|||||||" in (a / "lib" / "IL-0002.yaml").read_text(encoding="utf-8") or style == "merge"
    refused = run_pmparse(monkeypatch, a, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1")
    assert refused.exit_code == 2 and "pmparse resolve" in refused.output, refused.output

    result = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 0, result.output
    assert "IL-0002: kept ours (pm/kiln.md); theirs (pm/pump.md) is now IL-0003" in result.output
    assert run_pmparse(monkeypatch, a, "validate", "lib").exit_code == 0
    # b's rejection and draft decisions went with b's record
    state = a / "lib" / ".pmparse"
    rejected = json.loads((state / "rejected" / "IL-0003.json").read_text(encoding="utf-8"))["rejected"]
    assert [r["field"] for r in rejected] == ["root_cause"]
    assert not (state / "rejected" / "IL-0002.json").exists()
    assert (state / "drafts" / "IL-0003.json").is_file()

    again = run_pmparse(monkeypatch, a, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1", "--force")
    assert again.exit_code == 0, again.output
    assert "0 converted" in again.output and "0 pending review" in again.output, again.output
    assert not list(state.glob("pending/*.json"))
    records = {p.name: p.read_text(encoding="utf-8") for p in (a / "lib").glob("IL-*.yaml")}
    assert sorted(records) == ["IL-0001.yaml", "IL-0002.yaml", "IL-0003.yaml"]
    assert "title: Kiln overheated" in records["IL-0002.yaml"] and "title: Pump stalled" in records["IL-0003.yaml"]
    assert "root_cause: []" in records["IL-0003.yaml"]
    # the review of b's record goes on where b left it: the dropped root cause is not asked again
    left = run_pmparse(monkeypatch, a, "review", "lib", "--drafts", "--record", "IL-0003", "--accept-all")
    assert left.exit_code == 0 and "IL-0003: root_cause:" not in left.output, left.output
    assert "IL-0003: title: accept" in left.output
    # the merge can be committed: no file holds markers
    assert git(a, "add", "-A").returncode == 0
    assert git(a, "commit", "-qm", "merged").returncode == 0, "merge commit"


def test_resolve_without_conflicts_says_so(tmp_path, monkeypatch):
    (tmp_path / "pm").mkdir()
    converts(monkeypatch, tmp_path, "kiln", KILN)
    result = run_pmparse(monkeypatch, tmp_path, "resolve", "lib")
    assert result.exit_code == 0 and "no record holds conflict markers" in result.output, result.output


def test_resolve_of_a_folder_that_is_no_library_is_a_usage_error(tmp_path, monkeypatch):
    result = run_pmparse(monkeypatch, tmp_path, "resolve", "nowhere")
    assert result.exit_code == 2 and "expected a library folder" in result.output, result.output


def test_one_id_kept_as_yaml_on_one_side_and_json_on_the_other_is_split(tmp_path, monkeypatch):
    a, b = kiln_as_yaml_pump_as_json(tmp_path, monkeypatch)
    result = run_pmparse(monkeypatch, b, "review", "lib", "--drafts", "--record", "IL-0002", "--reject", "root_cause")
    assert result.exit_code == 0, result.output
    theirs = json.loads((b / "lib" / "IL-0002.json").read_text(encoding="utf-8"))
    pull(a, b)
    # git merged two files of one id without markers in either: only their bases conflict
    assert sorted(p.name for p in (a / "lib").glob("IL-0002.*")) == ["IL-0002.json", "IL-0002.yaml"]
    result = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 0, result.output
    assert "IL-0002: kept IL-0002.yaml (pm/kiln.md); IL-0002.json (pm/pump.md) is now IL-0003.json" in result.output
    assert run_pmparse(monkeypatch, a, "validate", "lib").exit_code == 0
    assert sorted(p.name for p in (a / "lib").glob("IL-*")) == ["IL-0001.yaml", "IL-0002.yaml", "IL-0003.json"]
    moved = json.loads((a / "lib" / "IL-0003.json").read_text(encoding="utf-8"))
    assert moved == {**theirs, "id": "IL-0003"}
    state = a / "lib" / ".pmparse"
    assert json.loads((state / "base" / "IL-0003.json").read_text(encoding="utf-8"))["source"]["location"] == "pm/pump.md"
    assert json.loads((state / "base" / "IL-0002.json").read_text(encoding="utf-8"))["source"]["location"] == "pm/kiln.md"
    assert (state / "rejected" / "IL-0003.json").is_file() and (state / "drafts" / "IL-0003.json").is_file()
    assert not (state / "rejected" / "IL-0002.json").exists()
    again = run_pmparse(monkeypatch, a, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1")
    assert again.exit_code == 0 and "0 converted" in again.output, again.output
    assert git(a, "add", "-A").returncode == 0
    assert git(a, "commit", "-qm", "merged").returncode == 0


def test_one_source_kept_as_yaml_and_as_json_is_left_for_a_person(tmp_path, monkeypatch):
    a, b = two_clones(tmp_path, monkeypatch)
    for clone, fmt in ((a, "yaml"), (b, "json")):
        (clone / "pm" / "kiln.md").write_text(KILN, encoding="utf-8")
        result = run_pmparse(monkeypatch, clone, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1",
                             "--format", fmt)
        assert result.exit_code == 0, result.output
    assert pull(a, b).returncode == 0  # no conflict at all: the two drafts' bases are the same
    before = {p.name: p.read_bytes() for p in (a / "lib").glob("IL-*")}
    result = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 1, result.output
    assert ("IL-0002: IL-0002.json and IL-0002.yaml are both records of one source (pm/kiln.md): keep one "
            "file and remove the other by hand (nothing changed)") in result.output
    assert {p.name: p.read_bytes() for p in (a / "lib").glob("IL-*")} == before


def test_draft_decisions_of_different_fields_made_on_both_sides_are_all_kept(tmp_path, monkeypatch):
    a, b = two_clones(tmp_path, monkeypatch)
    for clone, option, field_name in ((a, "--reject", "root_cause"), (b, "--accept", "title")):
        result = run_pmparse(monkeypatch, clone, "review", "lib", "--drafts", "--record", "IL-0001", option, field_name)
        assert result.exit_code == 0, result.output
    decided = [json.loads((clone / "lib/.pmparse/drafts/IL-0001.json").read_text(encoding="utf-8"))["decided"]
               for clone in (a, b)]
    merged = pull(a, b)
    assert "CONFLICT" in merged.stdout and "drafts/IL-0001.json" in merged.stdout, merged.stdout
    result = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 0, result.output
    assert "IL-0001: draft decisions of both sides kept (.pmparse/drafts/IL-0001.json)" in result.output
    kept = json.loads((a / "lib/.pmparse/drafts/IL-0001.json").read_text(encoding="utf-8"))["decided"]
    assert kept == {**decided[0], **decided[1]} and sorted(kept) == ["root_cause", "title"]
    # the review goes on with both decisions: neither field is asked again
    left = run_pmparse(monkeypatch, a, "review", "lib", "--drafts", "--record", "IL-0001", "--accept-all")
    assert left.exit_code == 0, left.output
    assert "IL-0001: title:" not in left.output and "IL-0001: root_cause:" not in left.output, left.output


def test_draft_decisions_that_disagree_on_a_field_are_left_naming_the_file_and_field(tmp_path, monkeypatch):
    a, b = two_clones(tmp_path, monkeypatch)
    for clone, option in ((a, "--reject"), (b, "--accept")):
        result = run_pmparse(monkeypatch, clone, "review", "lib", "--drafts", "--record", "IL-0001", option,
                             "root_cause")
        assert result.exit_code == 0, result.output
    pull(a, b)
    drafts = a / "lib" / ".pmparse" / "drafts" / "IL-0001.json"
    conflicted = drafts.read_bytes()
    result = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 1, result.output
    assert ("note: .pmparse/drafts/IL-0001.json: the two sides decided root_cause differently (dropped, kept): "
            "keep one side of the conflict by hand") in result.output
    assert drafts.read_bytes() == conflicted


def test_a_model_and_an_anchor_both_sides_changed_are_named_with_what_to_do(tmp_path, monkeypatch):
    from pmparse.nlp.pipeline import DEFAULT_MODEL_DIR

    a, b = two_clones(tmp_path, monkeypatch)
    for clone, name in ((a, "a"), (b, "b")):
        # each curator's own training: models of other settings (a real train --library takes minutes)
        model = clone / "lib" / ".pmparse" / "model"
        model.mkdir()
        shutil.copyfile(DEFAULT_MODEL_DIR / "weights.npz", model / "weights.npz")
        meta = (DEFAULT_MODEL_DIR / "meta.json").read_text(encoding="utf-8")
        (model / "meta.json").write_text(meta.replace('"name": "', f'"name": "{name}-', 1), encoding="utf-8")
        (clone / "lib" / ".pmparse" / "anchor.json").write_text(f'{{"folder": "../{name}"}}\n', encoding="utf-8")
    merged = pull(a, b)
    assert "anchor.json" in merged.stdout and "model/meta.json" in merged.stdout, merged.stdout
    # the anchor is read by every convert: it refuses rather than write its own over the markers
    refused = run_pmparse(monkeypatch, a, "convert", "pm", "-o", "lib", "-j", "1", "--rules-only")
    assert refused.exit_code == 2 and ".pmparse/anchor.json (line 1)" in refused.output, refused.output
    anchor = a / "lib" / ".pmparse" / "anchor.json"
    conflicted = anchor.read_bytes()
    result = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 1, result.output
    assert ("note: .pmparse/model/meta.json holds conflict markers (two library models trained apart): keep one "
            "side's whole model folder") in result.output
    assert ("note: .pmparse/anchor.json holds conflict markers: keep the side naming the folder the sources are "
            "read from, relative to the library (ours '../a', theirs '../b')") in result.output
    assert anchor.read_bytes() == conflicted
    anchor.write_text('{"folder": ".."}\n', encoding="utf-8")  # the curator settles the anchor
    # convert says what the broken model is, not only that its JSON does not parse
    refused = run_pmparse(monkeypatch, a, "convert", "pm", "-o", "lib", "-j", "1")
    assert refused.exit_code == 2 and "git's conflict markers from line" in refused.output, refused.output
    assert "meta.json" in refused.output and "pmparse train --library" in refused.output, refused.output


def _draft_fields(clone) -> list[str]:
    """The fields convert's draft of IL-0001 suggested (what review --drafts asks), from its base."""
    from pmparse.review.anchor import REVIEW_FIELDS

    base = json.loads((clone / "lib/.pmparse/base/IL-0001.json").read_text(encoding="utf-8"))
    return [name for name in REVIEW_FIELDS if base[name] not in (None, [])]


def test_a_draft_whose_every_field_one_side_or_the_other_decided_is_marked_reviewed(tmp_path, monkeypatch):
    a, b = two_clones(tmp_path, monkeypatch)
    fields = _draft_fields(a)
    assert "title" in fields and "root_cause" in fields and len(fields) > 2
    # a decides the title, b every other field: neither side's draft is finished on its own
    result = run_pmparse(monkeypatch, a, "review", "lib", "--drafts", "--record", "IL-0001", "--reviewer", "ann",
                      "--accept", "title")
    assert result.exit_code == 0, result.output
    others = ",".join(name for name in fields if name not in ("title", "root_cause"))
    result = run_pmparse(monkeypatch, b, "review", "lib", "--drafts", "--record", "IL-0001", "--reviewer", "bo",
                      "--reject", "root_cause", "--accept", others)
    assert result.exit_code == 0, result.output
    for clone in (a, b):
        assert "status: suggested" in (clone / "lib" / "IL-0001.yaml").read_text(encoding="utf-8")
    merged = pull(a, b)
    assert "CONFLICT" in merged.stdout and "drafts/IL-0001.json" in merged.stdout, merged.stdout
    result = run_pmparse(monkeypatch, a, "resolve", "lib")
    assert result.exit_code == 0, result.output
    assert ("IL-0001: draft decisions of both sides kept, every field decided: marked reviewed, "
            ".pmparse/drafts/IL-0001.json removed") in result.output, result.output
    # both sides added the file: git lists it unmerged until the removal is staged, and says so
    assert ("git still lists it as unmerged: run 'git rm -q -- lib/.pmparse/drafts/IL-0001.json'"
            in result.output), result.output
    record = (a / "lib" / "IL-0001.yaml").read_text(encoding="utf-8")
    # as review --drafts marks a draft whose last field is decided: reviewed, its decisions' file gone
    assert "status: reviewed" in record and "root_cause: []" in record, record
    assert "by: ann" in record or "by: bo" in record, record
    assert not (a / "lib/.pmparse/drafts/IL-0001.json").exists()
    listed = run_pmparse(monkeypatch, a, "review", "lib", "--drafts", "--accept-all")
    assert listed.exit_code == 0 and "IL-0001" not in listed.output, listed.output
    assert git(a, "add", "-A").returncode == 0
    assert git(a, "commit", "-qm", "merged").returncode == 0


def test_the_closing_count_counts_every_file_left_for_a_person(tmp_path, monkeypatch):
    (tmp_path / "pm").mkdir()
    converts(monkeypatch, tmp_path, "kiln", KILN)
    anchor = tmp_path / "lib" / ".pmparse" / "anchor.json"
    anchor.write_text('<<<<<<< HEAD\n{"folder": "../a"}\n=======\n{"folder": "../b"}\n>>>>>>> 0123abc\n',
                      encoding="utf-8")
    result = run_pmparse(monkeypatch, tmp_path, "resolve", "lib")
    # exit 1 with a note: the closing line must not say that nothing is left
    assert result.exit_code == 1 and "note: .pmparse/anchor.json holds conflict markers" in result.output, result.output
    assert "0 split, 1 left for a person" in result.output, result.output
