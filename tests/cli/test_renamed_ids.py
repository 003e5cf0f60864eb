"""A record renamed by hand (its file and its ``id:`` line): what its state files under the old id
then do, for ``convert``, ``review``, ``diff`` and ``validate`` (docs/record-format.md, "The
library's own state")."""

from __future__ import annotations

import pytest

from tests.renamed_ids import KILN_AMENDED
from tests.renamed_ids import library_of_three as _library
from tests.renamed_ids import ok as _ok
from tests.renamed_ids import rename as _rename
from tests.curators import run_pmparse


def _state(lib) -> list[str]:
    return sorted(str(p.relative_to(lib / ".pmparse")) for p in (lib / ".pmparse").glob("*/IL-*.json"))


def test_a_suggestion_left_under_an_id_another_record_was_renamed_onto_is_not_offered_for_it(tmp_path, monkeypatch):
    lib = _library(tmp_path, monkeypatch)
    _ok(monkeypatch, tmp_path, "review", "lib", "--drafts", "--record", "IL-0002", "--accept-all")
    (tmp_path / "pm" / "kiln.md").write_text(KILN_AMENDED, encoding="utf-8")
    assert "1 pending review" in _ok(monkeypatch, tmp_path, "convert", "pm", "-o", "lib", "--rules-only",
                                     "-j", "1").output
    # the curator deletes the kiln record and gives the pump record its id
    (lib / "IL-0002.yaml").unlink()
    _rename(lib, "IL-0003", "IL-0002")
    pump = (lib / "IL-0002.yaml").read_bytes()

    shown = run_pmparse(monkeypatch, tmp_path, "diff", "lib", "--no-color")

    # the kiln's amendment was offered as a change of the pump record (offsets into another text)
    assert shown.exit_code == 0 and "Label every thermostat" not in shown.output, shown.output
    _ok(monkeypatch, tmp_path, "review", "lib", "--accept-all")
    assert (lib / "IL-0002.yaml").read_bytes() == pump
    assert "pending/IL-0002.json" not in _state(lib)  # a writer drops what waits for nothing
    checked = _ok(monkeypatch, tmp_path, "validate", "lib")
    assert (".pmparse/base/IL-0002.json: of another source than IL-0002.yaml, the record now under IL-0002"
            in checked.output), checked.output


@pytest.mark.parametrize("writer", ["review", "convert"])
def test_the_state_of_a_record_renamed_by_hand_follows_it_and_validate_names_it_until_then(
        tmp_path, monkeypatch, writer):
    lib = _library(tmp_path, monkeypatch)
    _ok(monkeypatch, tmp_path, "review", "lib", "--drafts", "--record", "IL-0001", "--reviewer", "ann",
        "--reject", "root_cause", "--accept", "title")
    assert {"base/IL-0001.json", "drafts/IL-0001.json", "rejected/IL-0001.json"} <= set(_state(lib))
    _rename(lib, "IL-0001", "IL-0009")

    checked = _ok(monkeypatch, tmp_path, "validate", "lib")
    said = (".pmparse/base/IL-0001.json, .pmparse/rejected/IL-0001.json, .pmparse/drafts/IL-0001.json: no record "
            "is IL-0001; IL-0009 holds the same source and text (renamed by hand?): the next 'pmparse convert' or "
            "'pmparse review' moves them to IL-0009")
    assert said in checked.output, checked.output

    if writer == "convert":
        done = _ok(monkeypatch, tmp_path, "convert", "pm", "-o", "lib", "--rules-only", "-j", "1")
        assert "0 converted" in done.output, done.output
    else:
        done = _ok(monkeypatch, tmp_path, "review", "lib", "--drafts", "--record", "IL-0009", "--accept-all")
    assert "IL-0001 was renamed by hand to IL-0009 (same source and text): its state files follow it" in done.output
    assert not [name for name in _state(lib) if "IL-0001" in name], _state(lib)
    assert "rejected/IL-0009.json" in _state(lib) and "base/IL-0009.json" in _state(lib)
    if writer == "convert":
        # the draft's decisions came along: review --drafts asks only the fields left, and the
        # rejected root cause stays rejected
        _ok(monkeypatch, tmp_path, "review", "lib", "--drafts", "--record", "IL-0009", "--accept-all")
    record = (lib / "IL-0009.yaml").read_text(encoding="utf-8")
    assert "status: reviewed" in record and "root_cause: []" in record, record
    again = _ok(monkeypatch, tmp_path, "validate", "lib")
    assert "warning" not in again.output, again.output
