"""What pending suggestions still propose (pmparse.review.pending): an item turned down or a
person's own item is not offered again, an item pmparse no longer reads is, and without a base a
person's items are not offered away."""

from __future__ import annotations

import json

import yaml
from click.testing import CliRunner

from pmparse.card.schema import Card
from pmparse.cli import main
from pmparse.library.records import card_data, dumps, loads
from pmparse.library.store import Library
from pmparse.review.pending import pending_diffs
from pmparse.review.session import review
from tests.helpers import source_text
from tests.review.pending_records import SMALL, another_sentence, proposed


def test_an_item_pmparse_no_longer_reads_is_offered_for_removal_beside_one_turned_down(pending):
    """An item turned down is left out of the next suggestion; when that suggestion also drops
    an item pmparse wrote (and the person left as it was), the drop is pmparse's change to
    offer, not a proposal to delete the person's items hidden as rejected."""
    lib = Library.open(pending)
    base = lib.read_state("base", "IL-0001")
    items = card_data(base)["contributing_factors"]
    assert len(items) >= 2 and Library.read(pending / "IL-0001.yaml").contributing_factors == base.contributing_factors
    extra = another_sentence(base, items)
    data = card_data(base)
    data["contributing_factors"] = items + [extra]
    lib.write_state("pending", loads(json.dumps(data), "json", "x"))
    review(pending, reject=["contributing_factors"], reviewer="ann")
    assert "contributing_factors" not in proposed(pending)

    data["contributing_factors"] = items[1:] + [extra]  # pmparse no longer reads the first item
    Library.open(pending).write_state("pending", loads(json.dumps(data), "json", "x"))
    diff = next(d for d in pending_diffs(pending).diffs if d.id == "IL-0001")
    change = next((c for c in diff.changes if c.field == "contributing_factors"), None)
    assert change is not None, diff.rejected
    assert [i["text"] for i in change.suggestion] == [i["text"] for i in items[1:]]


def test_pmparse_reading_an_item_a_person_wrote_is_nothing_to_decide(pending):
    """A person added an item in a source sentence's own words; the next model (trained on the
    library) reads that sentence too. Its item says what the record already says: nothing to
    decide, and never the same words twice in the field."""
    lib = Library.open(pending)
    base = lib.read_state("base", "IL-0001")
    items = card_data(base)["contributing_factors"]
    text = source_text(base)
    sentence = next(line for line in text.splitlines()
                    if len(line.split()) > 5 and all(line.strip() != i["text"] for i in items))
    start = text.index(sentence)
    stretch = [{"start": start, "end": start + len(sentence)}]
    record_path = pending / "IL-0001.yaml"
    record = yaml.safe_load(record_path.read_text(encoding="utf-8"))
    mine = {"text": sentence.strip(), "evidence": stretch, "confidence": 1.0, "origin": "person"}
    record["contributing_factors"] = items + [mine]
    record_path.write_text(yaml.safe_dump(record, sort_keys=False), encoding="utf-8")
    data = card_data(base)
    data["contributing_factors"] = items + [{"text": sentence.strip(), "evidence": stretch, "confidence": 0.6}]
    lib.write_state("pending", loads(json.dumps(data), "json", "x"))
    assert "contributing_factors" not in proposed(pending)


def test_without_a_base_an_amended_source_offers_its_change_not_the_persons_items_away(tmp_path):
    source = tmp_path / "r.md"
    actions = "\nAction items:\n\n- Alert on broker disk use.\n"
    source.write_text(SMALL + actions, encoding="utf-8")
    lib, runner = tmp_path / "lib", CliRunner()
    args = ["convert", str(source), "-o", str(lib), "--rules-only", "-j", "1"]
    assert runner.invoke(main, args).exit_code == 0
    record = lib / "IL-0001.yaml"
    data = yaml.safe_load(record.read_text(encoding="utf-8"))
    assert [item["text"] for item in data["action_items"]] == ["Alert on broker disk use."]
    # the curator adds an item of their own and marks the card reviewed; the library then loses
    # its base (copied without .pmparse/base, or the file deleted)
    data["action_items"].append({"text": "Review broker capacity every quarter.", "evidence": [],
                                 "confidence": 1.0, "origin": "person"})
    data["status"] = "reviewed"
    record.write_text(dumps(Card.model_validate(data)), encoding="utf-8")
    (lib / ".pmparse" / "base" / "IL-0001.json").unlink()
    source.write_text(SMALL + actions + "- Grow the broker disks.\n", encoding="utf-8")
    assert "1 pending review" in runner.invoke(main, args).output
    result = runner.invoke(main, ["diff", str(lib), "--format", "json"])
    change = next(c for c in json.loads(result.output)["records"][0]["changes"] if c["field"] == "action_items")
    # pmparse's change is the item it adds; the person's own item is not offered away
    assert [(i["kind"], i["item"]) for i in change["items"]] == [("add", "Grow the broker disks.")], change


def _reviewed_without_base(tmp_path):
    """A converted record its curator gave an item of their own and marked reviewed, whose library
    then lost its base; returns ``(source, lib, convert args, runner)``."""
    source = tmp_path / "r.md"
    source.write_text(SMALL + "\nAction items:\n\n- Alert on broker disk use.\n", encoding="utf-8")
    lib, runner = tmp_path / "lib", CliRunner()
    args = ["convert", str(source), "-o", str(lib), "--rules-only", "-j", "1"]
    assert runner.invoke(main, args).exit_code == 0
    record = lib / "IL-0001.yaml"
    data = yaml.safe_load(record.read_text(encoding="utf-8"))
    data["action_items"].append({"text": "Review broker capacity every quarter.", "evidence": [],
                                 "confidence": 1.0, "origin": "person"})
    data["status"] = "reviewed"
    record.write_text(dumps(Card.model_validate(data)), encoding="utf-8")
    (lib / ".pmparse" / "base" / "IL-0001.json").unlink()
    return source, lib, args, runner


def _action_item_changes(runner, lib) -> list:
    result = runner.invoke(main, ["diff", str(lib), "--format", "json"])
    return [(i["kind"], i["item"]) for r in json.loads(result.output)["records"] for c in r["changes"]
            if c["field"] == "action_items" for i in c["items"]]


def test_without_a_base_a_field_pmparse_reads_in_the_same_words_keeps_the_persons_items(tmp_path):
    # the source is amended elsewhere: pmparse reads the action items in the same words, so it
    # has nothing to change there; before, that field was offered whole against the record and
    # the person's own item offered for removal
    source, lib, args, runner = _reviewed_without_base(tmp_path)
    source.write_text(SMALL.replace("20 minutes", "25 minutes") + "\nAction items:\n\n- Alert on broker disk use.\n",
                      encoding="utf-8")
    runner.invoke(main, args)
    assert ("drop", "Review broker capacity every quarter.") not in _action_item_changes(runner, lib)


def test_without_a_base_a_forced_reading_of_the_same_text_keeps_the_persons_items(tmp_path):
    _, lib, args, runner = _reviewed_without_base(tmp_path)
    result = runner.invoke(main, args + ["--force"])
    assert result.exit_code == 0, result.output
    assert ("drop", "Review broker capacity every quarter.") not in _action_item_changes(runner, lib)
    assert "0 pending review" in result.output, result.output
