"""A batch knows its publisher: the --organisation option, a folder's settings file, and a
folder's consensus offered to its cards naming none (texts written for these tests)."""

from __future__ import annotations

import pytest

from pmparse.batch.convert import convert
from pmparse.batch.publisher import folder_settings
from pmparse.errors import UsageError
from pmparse.library.store import Library

_NAMED = ("# Queue stalled on {day}\n\n## Summary\n\nAt Zorbq Labs, we saw the job queue stall for 20 minutes "
          "after a deploy on 2031-03-0{n}.\n\n## Root cause\n\nA worker pool was sized to zero by a typo.\n")
_UNNAMED = ("# Builds slow\n\n## Summary\n\nBuilds were slow for an hour on 2031-04-02 because the cache "
            "filled up.\n\n## Root cause\n\nThe cache had no eviction.\n")


def _cards(library):
    return {entry.card.source.location.rsplit("/", 1)[-1]: entry.card for entry in Library.open(library).entries.values()}


def _write(folder, named: int, unnamed: int):
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(named):
        (folder / f"a{n}.md").write_text(_NAMED.format(day=f"day {n}", n=n + 1), encoding="utf-8")
    for n in range(unnamed):
        (folder / f"z{n}.md").write_text(_UNNAMED.replace("slow", f"slow {n}"), encoding="utf-8")


def test_the_batch_option_names_every_cards_publisher(tmp_path):
    _write(tmp_path / "in", 1, 1)
    convert([str(tmp_path / "in")], tmp_path / "lib", organisation="Acme Rockets")
    cards = _cards(tmp_path / "lib")
    assert {c.organisation for c in cards.values()} == {"Acme Rockets"}
    assert {c.support["organisation"].origin for c in cards.values()} == {"batch"}


def test_a_folder_setting_names_the_publisher_of_the_files_below_it(tmp_path):
    _write(tmp_path / "in" / "2031", 0, 2)
    (tmp_path / "in" / ".pmparse.yaml").write_text("organisation: Acme Rockets\n", encoding="utf-8")
    convert([str(tmp_path / "in")], tmp_path / "lib")
    cards = _cards(tmp_path / "lib")
    assert {c.organisation for c in cards.values()} == {"Acme Rockets"}
    assert {c.support["organisation"].origin for c in cards.values()} == {"setting"}


def test_a_broken_settings_file_is_a_usage_error(tmp_path):
    (tmp_path / ".pmparse.yaml").write_text("organisation: Acme\ncolour: blue\n", encoding="utf-8")
    with pytest.raises(UsageError):
        folder_settings(str(tmp_path / "a.md"))


def test_a_folders_consensus_is_offered_to_its_cards_naming_none(tmp_path):
    _write(tmp_path / "in", 3, 1)
    report = convert([str(tmp_path / "in")], tmp_path / "lib")
    cards = _cards(tmp_path / "lib")
    assert cards["a0.md"].organisation == "Zorbq Labs"
    offered = cards["z0.md"]
    assert offered.organisation == "Zorbq Labs"
    assert offered.support["organisation"].origin == "folder"
    assert offered.support["organisation"].confidence < cards["a0.md"].support["organisation"].confidence
    warned = [w for r in report.results for w in r.warnings if "offered from this folder" in w]
    assert len(warned) == 1 and "3 of 3" in warned[0]


def test_no_consensus_without_enough_of_the_folder(tmp_path):
    _write(tmp_path / "in", 2, 3)
    convert([str(tmp_path / "in")], tmp_path / "lib")
    assert _cards(tmp_path / "lib")["z0.md"].organisation is None


def test_results_stay_in_input_order_and_earlier_cards_are_not_offered_it(tmp_path):
    _write(tmp_path / "in", 3, 0)
    (tmp_path / "in" / "0.md").write_text(_UNNAMED, encoding="utf-8")  # read before the consensus forms
    (tmp_path / "in" / "z.md").write_text(_UNNAMED.replace("slow", "late"), encoding="utf-8")
    report = convert([str(tmp_path / "in")], tmp_path / "lib")
    assert [r.input.rsplit("/", 1)[-1] for r in report.results] == ["0.md", "a0.md", "a1.md", "a2.md", "z.md"]
    cards = _cards(tmp_path / "lib")
    assert cards["0.md"].organisation is None and cards["z.md"].organisation == "Zorbq Labs"
