"""A list field decided item by item (``review``'s answer ``i``, ``--items`` for scripts).

The library is made here, without the NLP pipeline: a record pmparse wrote from a small text of
our own, a person's touch (so a new suggestion waits for review) and a suggestion stored as
``convert`` stores it (:func:`pmparse.batch.sync.store`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from pmparse.card.build import collapse
from pmparse.card.schema import Card
from pmparse.cli import main
from pmparse.library.records import card_data
from pmparse.library.store import Library
from pmparse.batch.sync import store
from pmparse.review.compare import item_key
from pmparse.review.rejections import load_rejections
from pmparse.review.pending import pending_diffs
from pmparse.util import sha256_text

#: Five sentences of our own, one a line: the first is the record's action item, the next three
#: the items a new reading adds.
SENTENCES = [
    "Add an alert on the queue depth of the build service.",
    "Refuse a lease timeout of zero at configuration load.",
    "Write down who owns the scheduler configuration.",
    "Run the lease tests against a three node cluster.",
    "Page the storage team when a disk passes ninety percent.",
]
TEXT = "Queue outage\n\nAction items:\n\n" + "".join(f"- {s}\n" for s in SENTENCES)
ITEMS_PROMPT = "Accept the suggested action_items [y,n,e,i,s,q,?]"


def item(number: int, confidence: float = 0.8) -> dict:
    """Sentence ``number`` as a pipeline item (plain JSON), its evidence at its offsets."""
    start = TEXT.index(SENTENCES[number])
    return {"text": collapse(SENTENCES[number]), "evidence": [{"start": start, "end": start + len(SENTENCES[number])}],
            "confidence": confidence}


def card(path, action_items: list[dict], **fields) -> Card:
    return Card.model_validate({
        "id": "IL-0001", "source": {"location": str(path), "sha256": sha256_text(TEXT), "format": "md"},
        "pipeline": {"version": "0.1.0", "model": "test"}, "action_items": action_items, **fields})


@pytest.fixture()
def lib(tmp_path):
    return make_library(tmp_path)


def make_library(tmp_path):
    """A reviewed record holding sentence 0; the suggestion adds sentences 1, 2 and 3."""
    source = tmp_path / "outage.md"
    source.write_text(TEXT, encoding="utf-8")
    root = tmp_path / "lib"
    library = Library(root)
    assert store(library, card(source, [item(0)]), "yaml")[0] == "converted"
    record = root / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    made = card(source, [item(0), item(1, 0.9), item(2, 0.4), item(3, 0.7)])
    assert store(Library.open(root), made, "yaml")[0] == "pending"
    return root, made


def texts(root) -> list[str]:
    return [i.text for i in Library.read(root / "IL-0001.yaml").action_items]


def proposed(root) -> list[str]:
    return [c.field for d in pending_diffs(root).diffs for c in d.changes]


def run(root, answers: str, *extra: str):
    return CliRunner().invoke(main, ["review", str(root), "--no-color", "--reviewer", "ann", *extra], input=answers)


def test_two_of_three_items_accepted_and_the_third_never_proposed_again(lib):
    root, made = lib
    result = run(root, "i\ny\nn\ny\n")
    assert result.exit_code == 0, result.output
    assert ITEMS_PROMPT in result.output
    # each item with its evidence line and confidence, asked one at a time
    assert "(item 2/3) Accept adding this item to action_items [y,n,q,?]" in result.output
    assert "evidence line 7, confidence 0.40: " + SENTENCES[2] in result.output
    assert "0 accepted (0 edited), 0 rejected, 1 decided item by item, 0 skipped; 0 record(s) still pending" \
        in result.output

    record = Library.read(root / "IL-0001.yaml")
    assert [i.text for i in record.action_items] == [SENTENCES[0], SENTENCES[1], SENTENCES[3]]
    # the accepted ones stay the pipeline's: origin, evidence and confidence as suggested
    assert card_data(record)["action_items"][1:] == [item(1, 0.9), item(3, 0.7)]
    assert record.status == "reviewed" and record.reviewed.by == "ann"
    memory = load_rejections(Library.open(root), "IL-0001").rejected
    assert [(r.field, r.decision, r.items_sha256) for r in memory] == [
        ("action_items", "rejected", [item_key(item(2, 0.4))])]

    # converted again: nothing new; a retrained model's reading with other confidences and one
    # more sentence asks only about that sentence (the refused one stays out)
    assert store(Library.open(root), made, "yaml")[0] == "unchanged"
    assert proposed(root) == [] and texts(root) == [SENTENCES[0], SENTENCES[1], SENTENCES[3]]
    retrained = card(made.source.location, [item(0, 0.5), item(1, 0.5), item(2, 0.95), item(3, 0.5), item(4, 0.6)])
    assert store(Library.open(root), retrained, "yaml")[0] == "pending"
    change = next(c for d in pending_diffs(root).diffs for c in d.changes)
    assert [i["text"] for i in change.suggestion if i["text"] not in texts(root)] == [SENTENCES[4]]


@pytest.mark.parametrize(("items", "whole"), [("y\ny\ny\n", "y\n"), ("n\nn\nn\n", "n\n")])
def test_every_item_taken_is_an_accept_and_every_item_refused_a_reject(tmp_path, items, whole):
    written = []
    for name, answers in (("items", "i\n" + items), ("whole", whole)):
        (tmp_path / name).mkdir()
        root, _ = make_library(tmp_path / name)
        result = run(root, answers)
        assert result.exit_code == 0, result.output
        memory = load_rejections(Library.open(root), "IL-0001").model_dump()
        for rejection in memory["rejected"]:
            rejection.pop("at")
        written.append(((root / "IL-0001.yaml").read_text(encoding="utf-8").replace(str(tmp_path / name), "@"),
                        memory, card_data(Library.open(root).read_state("base", "IL-0001"))["action_items"]))
    assert written[0][0].split("reviewed:")[0] == written[1][0].split("reviewed:")[0]
    assert written[0][1:] == written[1][1:]


def test_a_persons_own_edit_of_the_field_is_kept_through_an_item_review(lib):
    root, made = lib
    record = root / "IL-0001.yaml"
    data = yaml.safe_load(record.read_text(encoding="utf-8"))
    mine = {"text": "Alert on the build queue's depth.", "evidence": [], "confidence": 1.0, "origin": "person"}
    data["action_items"] = [mine]
    record.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    # the person's item stands where pmparse's first reading was: offered on top of it, not reverted
    change = next(c for d in pending_diffs(root).diffs for c in d.changes)
    assert [i["text"] for i in change.suggestion] == [mine["text"], SENTENCES[1], SENTENCES[2], SENTENCES[3]]
    result = run(root, "i\nn\ny\ny\n")
    assert result.exit_code == 0, result.output
    taken = card_data(Library.read(record))["action_items"]
    assert taken == [mine, item(2, 0.4), item(3, 0.7)]
    assert store(Library.open(root), made, "yaml")[0] == "unchanged" and proposed(root) == []


def test_quitting_half_way_leaves_the_field_as_it_was_and_pending(lib):
    root, _ = lib
    before = (root / "IL-0001.yaml").read_bytes()
    result = run(root, "i\ny\nq\n")
    assert result.exit_code == 0, result.output
    assert "action_items stays pending: nothing of it was written" in result.output
    assert "0 accepted (0 edited), 0 rejected, 1 skipped; 1 record(s) still pending" in result.output
    assert (root / "IL-0001.yaml").read_bytes() == before
    assert load_rejections(Library.open(root), "IL-0001").rejected == []
    assert proposed(root) == ["action_items"]
    # the end of the input half-way is a quit: nothing of the field written either
    assert run(root, "i\ny\n").exit_code == 0 and (root / "IL-0001.yaml").read_bytes() == before


def test_one_item_change_is_not_offered_item_by_item(lib):
    root, _ = lib
    assert run(root, "i\nn\ny\ny\n", "--accept", "action_items").exit_code == 0
    made = card(Library.read(root / "IL-0001.yaml").source.location, [item(0), item(1), item(2), item(3), item(4)])
    assert store(Library.open(root), made, "yaml")[0] == "pending"
    result = run(root, "i\ns\n")
    assert "Accept the suggested action_items [y,n,e,s,q,?]" in result.output and ITEMS_PROMPT not in result.output
    assert "i - item by item" not in result.output  # the help shown for 'i' leaves it out here


def test_a_title_and_its_duration_stay_one_decision_beside_an_item_review(tmp_path):
    source = tmp_path / "outage.md"
    source.write_text(TEXT, encoding="utf-8")
    root = tmp_path / "lib"
    old = card(source, [item(0)], title="Queue outage lasting 31 minutes", duration_minutes=31)
    assert store(Library(root), old, "yaml")[0] == "converted"
    record = root / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    new = card(source, [item(0), item(1), item(2)], title="Queue outage lasting 41 minutes", duration_minutes=41)
    assert store(Library.open(root), new, "yaml")[0] == "pending"
    result = run(root, "n\ni\ny\nn\n")
    assert result.exit_code == 0, result.output
    assert "the title says duration_minutes: your answer decides it too" in result.output
    taken = Library.read(record)
    assert (taken.title, taken.duration_minutes) == ("Queue outage lasting 31 minutes", 31)
    assert [i.text for i in taken.action_items] == [SENTENCES[0], SENTENCES[1]]
    assert proposed(root) == []


def test_scripts_name_the_items_they_take(lib):
    root, _ = lib
    diff = json.loads(CliRunner().invoke(main, ["diff", str(root), "--format", "json"]).output)
    change = diff["records"][0]["changes"][0]
    assert [(i["number"], i["kind"], i["item"]) for i in change["items"]] == [
        (1, "add", SENTENCES[1]), (2, "add", SENTENCES[2]), (3, "add", SENTENCES[3])]
    result = CliRunner().invoke(main, ["review", str(root), "--items", "action_items:1,3", "--reviewer", "ann"])
    assert result.exit_code == 0, result.output
    assert "IL-0001: action_items: items 1,3" in result.output
    assert texts(root) == [SENTENCES[0], SENTENCES[1], SENTENCES[3]]
    memory = load_rejections(Library.open(root), "IL-0001").rejected
    assert memory[0].items_sha256 == [item_key(item(2))]


def test_scripted_item_numbers_are_checked(lib):
    root, _ = lib
    runner = CliRunner()
    for option, words in ((["--items", "action_items:4"], "expected item numbers among 1-3, found 4"),
                          (["--items", "title:1"], "expected a list field"),
                          (["--items", "action_items:x"], "expected FIELD:N[,N...]"),
                          (["--items", "action_items:1", "--reject", "action_items"], "both"),
                          (["--items", "lessons:1"],
                           "lessons: expected a pending change of this field, found none in the 1 record(s) reviewed")):
        result = runner.invoke(main, ["review", str(root), *option])
        assert result.exit_code == 2 and words in result.output, (option, result.output)
    assert proposed(root) == ["action_items"]


def test_train_library_learns_the_items_taken_and_refused(lib):
    from pmparse.nlp.components.classifier import NONE
    from pmparse.training.library_rows import NOT, library_rows

    root, _ = lib
    assert run(root, "i\ny\nn\ny\n").exit_code == 0
    rows = library_rows(root)
    (doc,) = rows.docs
    units = list(doc.doc.spans["units"])
    label = {units[u].text.strip("- \n"): l for u, l in zip(doc.units, doc.labels)}
    assert [label.get(s) for s in SENTENCES[:4]] == ["action_items", "action_items", NONE, "action_items"]
    # a record not reviewed as a whole (every item refused: the same as n) says "not this field"
    (root.parent / "two").mkdir()
    other, _ = make_library(root.parent / "two")
    record = other / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: reviewed", "status: suggested"),
                      encoding="utf-8")
    assert run(other, "i\nn\nn\nn\n").exit_code == 0
    (doc,) = library_rows(other).docs
    units = list(doc.doc.spans["units"])
    label = {units[u].text.strip("- \n"): l for u, l in zip(doc.units, doc.labels)}
    assert [label.get(s) for s in SENTENCES[1:4]] == [NOT + "action_items"] * 3


def test_an_item_review_on_an_amended_source_moves_the_kept_items_onto_the_new_text(lib):
    from pmparse.library.validate import validate_library

    root, _ = lib
    source = Path(Library.read(root / "IL-0001.yaml").source.location)
    amended = "Updated after the review meeting.\n\n" + TEXT
    source.write_text(amended, encoding="utf-8")

    def moved(number: int, confidence: float = 0.8) -> dict:
        start = amended.index(SENTENCES[number])
        return {**item(number, confidence), "evidence": [{"start": start, "end": start + len(SENTENCES[number])}]}

    made = Card.model_validate({**card_data(card(source, [])), "source": {
        "location": str(source), "sha256": sha256_text(amended), "format": "md"},
        "action_items": [moved(0), moved(1), moved(2), moved(4)]})
    assert store(Library.open(root), made, "yaml")[0] == "pending"
    result = run(root, "i\ny\nn\ny\n")
    assert result.exit_code == 0, result.output
    taken = Library.read(root / "IL-0001.yaml")
    assert taken.source.sha256 == sha256_text(amended)
    # the record's own item, kept as it was, now indexes the new text (its words where they moved)
    assert card_data(taken)["action_items"] == [moved(0), moved(1), moved(4)]
    assert validate_library(root)[1] == []


def test_ctrl_c_half_way_through_the_items_writes_nothing_of_the_field_and_exits_130(lib, monkeypatch):
    import click

    from pmparse.cli import prompter

    root, _ = lib
    before = (root / "IL-0001.yaml").read_bytes()
    answers = iter(["i", "y"])

    def prompt(*args, **kwargs):
        try:
            return next(answers)
        except StopIteration:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt:
                raise click.Abort() from None  # what click.prompt does with Ctrl-C

    monkeypatch.setattr(prompter.click, "prompt", prompt)
    result = run(root, "")
    assert result.exit_code == 130, result.output
    assert (root / "IL-0001.yaml").read_bytes() == before and proposed(root) == ["action_items"]
    assert load_rejections(Library.open(root), "IL-0001").rejected == []


def test_item_numbers_one_of_several_records_lacks_are_refused_before_anything_is_written(lib):
    root, _ = lib
    # a second record, of another text, whose suggestion adds two items where IL-0001's adds three
    other = TEXT + "\nWritten up by the platform team.\n"
    source = root.parent / "other.md"
    source.write_text(other, encoding="utf-8")

    def second(items: list[dict]) -> Card:
        data = card_data(card(source, items))
        data["id"], data["source"]["sha256"] = "IL-0002", sha256_text(other)
        return Card.model_validate(data)

    assert store(Library.open(root), second([item(0)]), "yaml")[0] == "converted"
    record = root / "IL-0002.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    assert store(Library.open(root), second([item(0), item(1), item(2)]), "yaml")[0] == "pending"
    before = {path.name: path.read_bytes() for path in root.glob("IL-*.yaml")}
    result = CliRunner().invoke(main, ["review", str(root), "--items", "action_items:1,3", "--reviewer", "ann"])
    assert result.exit_code == 2 and "IL-0002: action_items: expected item numbers among 1-2, found 3" in result.output
    # IL-0001 has a third change, but it was not decided alone before the usage error
    assert {path.name: path.read_bytes() for path in root.glob("IL-*.yaml")} == before
    assert proposed(root) == ["action_items", "action_items"]
    assert load_rejections(Library.open(root), "IL-0001").rejected == []


def test_items_of_a_field_whose_words_stay_are_refused_with_what_to_do_instead(tmp_path):
    # the suggestion says the record's item in the same words, at other offsets: nothing to take
    # item by item (the review's answer would be y or n)
    source = tmp_path / "outage.md"
    source.write_text(TEXT, encoding="utf-8")
    root = tmp_path / "lib"
    assert store(Library(root), card(source, [item(0)]), "yaml")[0] == "converted"
    record = root / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    moved = {**item(0), "evidence": [{"start": 0, "end": 12}]}
    assert store(Library.open(root), card(source, [moved]), "yaml")[0] == "pending"
    result = CliRunner().invoke(main, ["review", str(root), "--items", "action_items:1"])
    assert result.exit_code == 2
    assert "found only its evidence or confidences changing (decide it with --accept or --reject)" in result.output
    assert "among 1-0" not in result.output


def test_the_text_diff_numbers_each_item_change_as_the_json_and_items_do(tmp_path):
    # a record holding sentences 0 and 4, a new reading with 0, 1 and 2: 4 is dropped beside the
    # add of 1 (a pair), and 2 added; the text diff is what a person reads before --items
    source = tmp_path / "outage.md"
    source.write_text(TEXT, encoding="utf-8")
    root = tmp_path / "lib"
    assert store(Library(root), card(source, [item(0), item(4)]), "yaml")[0] == "converted"
    record = root / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    assert store(Library.open(root), card(source, [item(0), item(1), item(2)]), "yaml")[0] == "pending"
    runner = CliRunner()
    listed = json.loads(runner.invoke(main, ["diff", str(root), "--format", "json"]).output)
    items = [(i["number"], i["kind"], i["item"]) for i in listed["records"][0]["changes"][0]["items"]]
    assert items == [(1, "drop", SENTENCES[4]), (2, "add", SENTENCES[1]), (3, "add", SENTENCES[2])]
    text = runner.invoke(main, ["diff", str(root), "--no-color"]).output
    numbered = [line for line in text.splitlines() if line[:2] in ("-[", "+[")]
    assert numbered == [f"-[1] {SENTENCES[4]}", f"+[2] {SENTENCES[1]}", f"+[3] {SENTENCES[2]}"], text
    # the numbers the text shows are the ones review --items takes
    assert runner.invoke(main, ["review", str(root), "--items", "action_items:1,3"]).exit_code == 0
    assert texts(root) == [SENTENCES[0], SENTENCES[2]]
