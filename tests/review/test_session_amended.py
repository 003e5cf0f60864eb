"""``review`` of a suggestion made from an amended source (kept fields' evidence follows the new
text), and of a list field a person edited item by item (what a suggestion still proposes, the
review aside: test_pending.py).
"""

from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner

from pmparse.batch.convert import convert
from pmparse.cli import main
from pmparse.library.records import card_data, loads
from pmparse.library.store import Library
from pmparse.batch.sync import store
from pmparse.library.validate import validate_library
from pmparse.nlp.pipeline import PipelineConfig
from pmparse.review.rejections import load_rejections
from pmparse.review.pending import pending_diffs
from pmparse.review.session import Decision, review
from tests.helpers import source_text
from tests.review.pending_records import SMALL, another_sentence, proposed


# --- an amended source: kept fields' evidence follows the new text -------------------------------

AMENDED_NOTE = ("\n> Update, two days later: we added the timeline of the failover and corrected the time the "
                "pages went out.\n")
OLD_DETECTION = ("Our monitoring paged the on-call engineer at 15:09 BST, when the error rate for the API reached\n"
                 "one hundred percent.")
NEW_DETECTION = "A customer told our support team about failing payments at 15:20 BST, before any alert fired."


@pytest.fixture()
def amended(tmp_path):
    """A converted sample, marked reviewed, whose source was then amended: a note above every
    field, and the detection sentence replaced; the suggestion made from the new text is pending."""
    from tests.helpers import SAMPLES

    source = tmp_path / "src" / "failover.md"
    source.parent.mkdir()
    old = (SAMPLES / "gocardless-postgres-failover.md").read_text(encoding="utf-8")
    source.write_text(old, encoding="utf-8")
    lib = tmp_path / "lib"
    assert convert([str(source)], lib).counts["converted"] == 1
    record = lib / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    before = Library.read(record)
    assert OLD_DETECTION in old and "\n## Summary\n" in old
    new = old.replace(OLD_DETECTION, NEW_DETECTION).replace("\n## Summary\n", AMENDED_NOTE + "\n## Summary\n")
    source.write_text(new, encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    return lib, before, new


def assert_current_or_marked(card, text: str, old_sha: str) -> tuple[int, int]:
    """Every stretch either spells its item in ``text`` or carries the old text's sha256."""
    from pmparse.card.build import collapse

    current = marked = 0
    for name in ("symptoms", "trigger", "root_cause", "contributing_factors", "detection", "remediation",
                 "action_items", "lessons"):
        for item in getattr(card, name):
            if all(ev.current for ev in item.evidence):
                assert collapse(" ".join(text[ev.start:ev.end] for ev in item.evidence)) == item.text, name
                current += 1
            else:
                assert {ev.sha256 for ev in item.evidence} == {old_sha}, name
                marked += 1
    for key, support in card.support.items():
        for ev in support.evidence:
            assert ev.sha256 in (None, old_sha) and (not ev.current or ev.end <= len(text)), key
    return current, marked


#: The fields of the amended sample whose words stayed the same (only their offsets moved).
SAME_WORDS = ["symptoms", "trigger", "root_cause", "remediation", "action_items", "lessons"]


def test_an_amended_source_asks_only_about_changed_words_and_the_record_follows_it(amended):
    lib, before, new = amended
    diff = pending_diffs(lib).diffs[0]
    # the note above every field moved their offsets; of the text fields only the detection
    # changed its words (the tags read the text, so they may change too)
    changed = [c.field for c in diff.changes]
    assert diff.moved == SAME_WORDS and "detection" in changed
    assert not set(changed) - {"detection", "title", "components", "root_cause_categories",
                                "contributing_factor_categories"}
    suggestion = Library(lib).read_state("pending", "IL-0001")
    report = review(lib, reject=changed, reviewer="ann")
    assert report.count("reject") == len(changed) and report.count("settled") == len(SAME_WORDS)
    card = Library.read(lib / "IL-0001.yaml")
    # every field decided: the record now reads the new text, its status and values as they were
    assert card.source.sha256 == suggestion.source.sha256 != before.source.sha256
    assert card.status == before.status and card.reviewed == before.reviewed
    current, marked = assert_current_or_marked(card, new, before.source.sha256)
    # the kept detection is the old one, which the amended text no longer holds: marked, not moved
    assert card.detection == [item.model_copy(update={"evidence": [
        ev.model_copy(update={"sha256": before.source.sha256}) for ev in item.evidence]}) for item in before.detection]
    assert marked == len(before.detection) and current > 0
    for name in SAME_WORDS:
        assert getattr(card, name) == getattr(suggestion, name) and getattr(card, name)
        assert [i.text for i in getattr(card, name)] == [i.text for i in getattr(before, name)]
        assert getattr(card, name)[0].evidence[0].start > getattr(before, name)[0].evidence[0].start
    assert proposed(lib) == [] and Library(lib).read_state("pending", "IL-0001") is None
    assert validate_library(lib) == (1, [])


def test_marked_evidence_round_trips_and_the_plain_form_stays_two_keys(amended):
    lib, before, new = amended
    review(lib, reject=proposed(lib), reviewer="ann")
    card = Library.read(lib / "IL-0001.yaml")
    text = (lib / "IL-0001.yaml").read_text(encoding="utf-8")
    assert f"sha256: {before.source.sha256}" in text.split("\ndetection:")[1].split("\nremediation:")[0]
    assert loads(text, "yaml", "x") == card
    # stretches of the current text carry no marker at all
    symptoms = text.split("\nsymptoms:")[1].split("\ntrigger:")[0]
    assert "evidence: [{start: " in symptoms and "sha256" not in symptoms


def test_accepting_the_changed_field_leaves_nothing_marked(amended):
    lib, before, new = amended
    suggestion = Library(lib).read_state("pending", "IL-0001")
    review(lib, accept=proposed(lib), reviewer="ann")
    card = Library.read(lib / "IL-0001.yaml")
    assert assert_current_or_marked(card, new, before.source.sha256)[1] == 0
    assert card.status == "reviewed" and card.source.sha256 == suggestion.source.sha256
    for name in SAME_WORDS + ["detection"]:
        assert getattr(card, name) == getattr(suggestion, name)
    assert Library(lib).read_state("pending", "IL-0001") is None


def test_a_failing_editor_returns_to_the_question(pending, monkeypatch):
    import click

    fields = proposed(pending)
    calls = []

    def editor(text, extension):
        calls.append(extension)
        raise click.UsageError("EDITOR: Editing failed")

    monkeypatch.setattr("click.edit", editor)
    # IL-0001: edit the first field (the editor fails), then accept it; skip the rest; quit
    keys = "e\ny\n" + "s\n" * (len(fields) - 1) + "q\n"
    result = CliRunner().invoke(main, ["review", str(pending), "--reviewer", "bob"], input=keys)
    assert result.exit_code == 0, result.output
    assert calls == [".yaml"] and "the editor failed (EDITOR: Editing failed): back to the question" in result.output
    assert f"1 accepted (0 edited), 0 rejected, {len(fields) - 1} skipped" in result.output
    assert proposed(pending) == fields[1:]


def test_fields_that_only_moved_are_not_asked_about(amended):
    lib, before, _ = amended
    changed = proposed(lib)
    asked = []

    def ask(diff, change, position, total):
        asked.append(change.field)
        return Decision("skip")

    report = review(lib, ask=ask, reviewer="ann")
    # fields left open: the moved ones wait with the record, not counted as settled yet
    assert asked == changed and report.count("settled") == 0
    assert "detection" in asked and not set(asked) & set(SAME_WORDS)
    # a field left open: the record stays on the text it was made from
    assert Library.read(lib / "IL-0001.yaml").source.sha256 == before.source.sha256
    assert proposed(lib) == changed
    result = CliRunner().invoke(main, ["review", str(lib), "--accept", ",".join(changed), "--reviewer", "ann"])
    assert result.exit_code == 0 and f"{len(changed)} accepted" in result.output and proposed(lib) == []
    assert f"{len(SAME_WORDS)} settled" in result.output


def test_a_follow_keeps_a_persons_comments_inside_the_fields_that_moved(amended):
    lib, before, new = amended
    record = lib / "IL-0001.yaml"
    text = record.read_text(encoding="utf-8")
    first_confidence = text.index("\n  confidence:", text.index("\nsymptoms:")) + 1
    line_end = text.index("\n", first_confidence)
    text = (text[:line_end] + "  # ann: wording checked with the team" + text[line_end:]).replace(
        "\nlessons:", "\n# ann: lessons agreed in the retro\nlessons:")
    record.write_text(text, encoding="utf-8")
    suggestion = Library(lib).read_state("pending", "IL-0001")
    review(lib, reject=proposed(lib), reviewer="ann")
    after = record.read_text(encoding="utf-8")
    card = Library.read(record)
    assert card.source.sha256 == suggestion.source.sha256
    assert "  # ann: wording checked with the team\n" in after and "# ann: lessons agreed in the retro\nlessons:" in after
    for name in SAME_WORDS:
        assert getattr(card, name) == getattr(suggestion, name)
    assert validate_library(lib) == (1, [])


def test_a_patch_keeps_a_persons_own_address(amended):
    lib, _, _ = amended
    record = lib / "IL-0001.yaml"
    text = record.read_text(encoding="utf-8")
    assert "\n  url: null\n" in text
    record.write_text(text.replace("\n  url: null\n", "\n  url: https://example.org/our-report\n"), encoding="utf-8")
    patch = CliRunner().invoke(main, ["diff", str(lib), "--patch"])
    assert patch.exit_code == 1 and "+  sha256: " in patch.output
    assert "url:" not in "".join(line for line in patch.output.splitlines(keepends=True) if line[:1] in "+-")


def test_an_interactive_review_shows_a_record_that_only_follows_its_source(tmp_path):
    from pmparse.nlp.pipeline import PipelineConfig
    from tests.helpers import SAMPLES

    # heading rules without the tag model: a category near its threshold may flip with any added
    # line (the note's words enter the whole-text features, and the note pushes the front matter
    # down into the text), which is not what this test is about
    config = PipelineConfig(tagger=False)
    source = tmp_path / "failover.md"
    source.write_text((SAMPLES / "gocardless-postgres-failover.md").read_text(encoding="utf-8"), encoding="utf-8")
    lib = tmp_path / "lib"
    convert([str(source)], lib, config=config)
    record = lib / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    source.write_text("> A note added the next day.\n\n" + source.read_text(encoding="utf-8"), encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib, config=config).results] == ["pending"]
    assert proposed(lib) == []
    result = CliRunner().invoke(main, ["review", str(lib), "--reviewer", "ann", "--no-color"], input="")
    assert result.exit_code == 0, result.output
    assert "the source text changed" in result.output and "nothing to decide: the record follows" in result.output
    assert Library.read(record).source.sha256 == Library(lib).read_state("base", "IL-0001").source.sha256


def test_an_item_turned_down_is_not_proposed_again_inside_another_value_of_its_field(pending):
    """A rejected field's items stay rejected when the next suggestion adds a new item beside
    them (a retrained model): only the new item is asked about, and accepting takes it alone."""
    lib = Library.open(pending)
    suggestion = lib.read_state("pending", "IL-0001")
    record = lib.entries["IL-0001"].card
    turned_down = [i for i in suggestion.remediation if i not in record.remediation]
    assert turned_down
    review(pending, reject=["remediation"], reviewer="ann")
    assert "remediation" not in proposed(pending)

    # the next suggestion: the same items, other confidences, and one new item from the text
    text = source_text(lib.entries["IL-0001"].card)
    sentence = next(line for line in text.splitlines() if len(line.split()) > 5 and
                    all(line.strip() != i.text for i in suggestion.remediation))
    start = text.index(sentence)
    new_item = {"text": sentence.strip(), "evidence": [{"start": start, "end": start + len(sentence)}],
                "confidence": 0.7}
    data = card_data(suggestion)
    data["remediation"] = [{**i, "confidence": round(i["confidence"] / 2, 3)} for i in data["remediation"]] + [new_item]
    lib.write_state("pending", loads(yaml.safe_dump(data), "yaml", "x"))
    diff = next(d for d in pending_diffs(pending).diffs if d.id == "IL-0001")
    change = next(c for c in diff.changes if c.field == "remediation")
    assert [i["text"] for i in change.suggestion] == [i.text for i in record.remediation] + [sentence.strip()]
    review(pending, accept=["remediation"], reviewer="ann")
    taken = Library.read(pending / "IL-0001.yaml").remediation
    assert [i.text for i in taken] == [i.text for i in record.remediation] + [sentence.strip()]
    assert not any(i.text == t.text and i.evidence == t.evidence for i in taken for t in turned_down)


def _persons_item_edits_and_a_new_reading(pending, words: str):
    """IL-0001's contributing factors edited by hand (the first deleted, the second reworded as
    ``words``) and a pmparse suggestion of the base's items plus one more sentence of the text.

    Returns:
        ``(library, base items, record path, the added sentence, the suggestion as made)``.
    """
    lib = Library.open(pending)
    base = lib.read_state("base", "IL-0001")
    items = card_data(base)["contributing_factors"]
    assert len(items) >= 3
    record_path = pending / "IL-0001.yaml"
    record = yaml.safe_load(record_path.read_text(encoding="utf-8"))
    mine = {**items[1], "text": words, "evidence": [], "confidence": 1.0, "origin": "person"}
    record["contributing_factors"] = [mine] + items[2:]  # the first deleted, the second reworded
    record_path.write_text(yaml.safe_dump(record, sort_keys=False), encoding="utf-8")
    added = another_sentence(base, items)
    data = card_data(base)
    data["contributing_factors"] = items + [added]
    made = loads(json.dumps(data), "json", "x")
    lib.write_state("pending", made)
    return lib, items, record_path, added["text"], made


def test_a_review_offers_pmparses_change_on_top_of_a_persons_item_edits(pending):
    """A person deleted one item of a field and reworded another by hand; pmparse now reads one
    more: the review offers that one added to the person's items, and accepting it keeps their
    deletion and their words (the field is not put back as pmparse first wrote it)."""
    lib, items, record_path, sentence, _ = _persons_item_edits_and_a_new_reading(
        pending, "Our own words for the second factor.")

    diff = next(d for d in pending_diffs(pending).diffs if d.id == "IL-0001")
    change = next(c for c in diff.changes if c.field == "contributing_factors")
    assert change.kind == "conflict"
    expected = ["Our own words for the second factor."] + [i["text"] for i in items[2:]] + [sentence]
    assert [i["text"] for i in change.suggestion] == expected
    review(pending, accept=["contributing_factors"], reviewer="ann")
    taken = Library.read(record_path).contributing_factors
    assert [i.text for i in taken] == expected
    assert taken[0].origin == "person" and items[0]["text"] not in [i.text for i in taken]


@pytest.mark.parametrize("answer", ["accept", "reject"])
def test_the_same_suggestion_after_a_three_way_decision_proposes_nothing(pending, answer):
    """After a person decided pmparse's change offered on top of their item edits, the same
    suggestion converted again (same model, same text) is nothing new: it neither puts back the
    item they deleted nor their reworded item's old words. The base must hold what pmparse read,
    not the record's items the review merged in."""
    lib, _, record_path, _, made = _persons_item_edits_and_a_new_reading(pending, "A reviewer's wording of this factor.")
    assert "contributing_factors" in proposed(pending)
    review(pending, **{answer: ["contributing_factors"]}, reviewer="ann")
    kept = Library.read(record_path).contributing_factors

    lib = Library.open(pending)
    assert store(lib, made.model_copy(update={"id": "IL-0001"}), "yaml")[0] == "unchanged"
    assert "contributing_factors" not in proposed(pending)
    assert Library.read(record_path).contributing_factors == kept


def test_an_edit_saved_without_a_change_is_a_keep_not_an_edit(tmp_path, monkeypatch):
    (tmp_path / "r.md").write_text(SMALL, encoding="utf-8")
    lib, runner = tmp_path / "lib", CliRunner()
    assert runner.invoke(main, ["convert", str(tmp_path / "r.md"), "-o", str(lib), "--rules-only", "-j", "1"]
                         ).exit_code == 0
    monkeypatch.setattr("click.edit", lambda text, extension: text)  # saved as shown
    # a draft: the first field asked is edited and saved unchanged, then the review quits
    result = runner.invoke(main, ["review", str(lib), "--drafts", "--no-color"], input="e\nq\n")
    assert result.exit_code == 0, result.output
    assert "1 accepted (0 edited), 0 rejected" in result.output, result.output
    state = json.loads((lib / ".pmparse" / "drafts" / "IL-0001.json").read_text(encoding="utf-8"))
    assert [field["decision"] for field in state["decided"].values()] == ["kept"]
    # nothing was replaced by the person's version: nothing is remembered as edited away
    assert load_rejections(Library(lib), "IL-0001").rejected == []


def test_an_edit_of_a_pending_field_saved_without_a_change_is_an_accept(tmp_path, monkeypatch):
    source = tmp_path / "r.md"
    source.write_text(SMALL, encoding="utf-8")
    lib, runner = tmp_path / "lib", CliRunner()
    args = ["convert", str(source), "-o", str(lib), "--rules-only", "-j", "1"]
    assert runner.invoke(main, args).exit_code == 0
    record = lib / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    source.write_text(SMALL + "\nAction items:\n\n- Alert on broker disk use.\n- Grow the broker disks.\n",
                      encoding="utf-8")
    assert "1 pending review" in runner.invoke(main, args).output
    monkeypatch.setattr("click.edit", lambda text, extension: text)
    result = runner.invoke(main, ["review", str(lib), "--no-color"], input="e\n" * 20)
    assert result.exit_code == 0, result.output
    assert "(0 edited)" in result.output and "(1 edited)" not in result.output, result.output
    assert load_rejections(Library(lib), "IL-0001").rejected == []
    card = Library.read(record)
    assert card.action_items and all(item.origin != "person" for item in card.action_items)
