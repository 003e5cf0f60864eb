"""``review`` of pending suggestions: accept and reject written exactly, the rejection memory, the
interactive walk (CliRunner and a real terminal), broken records, a title's facts, a killed review.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import pexpect

import pytest
import yaml
from click.testing import CliRunner

from pmparse.batch.convert import convert
from pmparse.cli import main
from pmparse.library.records import card_data, loads
from pmparse.library.store import Library
from pmparse.library.validate import validate_library
from pmparse.nlp.pipeline import PipelineConfig
from pmparse.review.compare import merge
from pmparse.review.rejections import load_rejections
from pmparse.review.pending import diff_paths, pending_diffs
from pmparse.review.session import Decision, review
from tests.helpers import other_headings, source_text
from tests.review.pending_records import HUMAN_LINES, proposed, reconvert


PROMPT = re.compile(r"\((\d+)/(\d+)\) Accept the suggested (\w+) \[y,n,e,(?:i,)?s,q,\?\]\? ")


def snapshot(lib) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(lib.glob("IL-*.yaml"))}


def test_a_human_edit_survives_reconversion_with_a_different_model(library, sources, tmp_path, monkeypatch):
    before = snapshot(library)
    assert reconvert(monkeypatch, tmp_path, sources, library) == ["pending", "pending"]
    assert snapshot(library) == before  # byte for byte, comments included
    suggestion = Library(library).read_state("pending", "IL-0001")
    assert suggestion.pipeline.model == "test-model-2" and suggestion.date == "2020-02-03"
    diff = pending_diffs(library).diffs[0]
    assert diff.kept == ["date"] and "date" not in proposed(library)
    # the same suggestion again still leaves the record alone
    assert reconvert(monkeypatch, tmp_path, sources, library) == ["pending", "pending"]
    assert snapshot(library) == before


def test_accept_writes_exactly_the_suggestion_and_only_that_record(pending):
    before = snapshot(pending)
    fields = proposed(pending)
    suggestion = Library(pending).read_state("pending", "IL-0001")
    report = review(pending, accept=["root_cause"], reviewer="ann", records=["IL-0001"],
                    now=lambda: "2025-01-02T03:04:05+00:00")
    assert [(o.id, o.field, o.action) for o in report.outcomes] == [
        ("IL-0001", name, "accept" if name == "root_cause" else "skip") for name in fields]
    card = Library.read(pending / "IL-0001.yaml")
    assert card_data(card)["root_cause"] == card_data(suggestion)["root_cause"] and card.root_cause
    assert card.status == "reviewed" and card.reviewed.by == "ann" and card.reviewed.at == "2025-01-02T03:04:05+00:00"
    # everything else is as the person left it, their comment lines included
    old, text = before["IL-0001.yaml"].decode(), (pending / "IL-0001.yaml").read_text(encoding="utf-8")
    assert HUMAN_LINES in text
    assert text[: text.index("\nroot_cause:")] == old[: old.index("\nroot_cause:")].replace(
        "status: suggested", "status: reviewed")
    old_card = loads(old, "yaml", "old")
    for name in fields:
        if name != "root_cause":
            assert getattr(card, name) == getattr(old_card, name)
    assert snapshot(pending)["IL-0002.yaml"] == before["IL-0002.yaml"]
    # the accepted field is no longer proposed; the skipped ones still are
    assert proposed(pending) == [name for name in fields if name != "root_cause"]


def test_reject_then_reconvert_proposes_nothing_new(pending, sources, tmp_path, monkeypatch):
    before = snapshot(pending)
    first, second = proposed(pending), proposed(pending, "IL-0002")
    report = review(pending, reject=sorted(set(first) | set(second)), reviewer="ann")
    assert report.count("reject") == len(first) + len(second)
    assert report.count("skip") == 0 and report.still_pending == []
    assert snapshot(pending) == before  # rejecting never rewrites a record
    assert list((pending / ".pmparse" / "pending").glob("*.json")) == []
    assert reconvert(monkeypatch, tmp_path, sources, pending) == ["unchanged", "unchanged"]
    assert CliRunner().invoke(main, ["diff", str(pending)]).exit_code == 0
    # back to the first model: the records already hold what it suggests, the date edit is kept
    assert [r.status for r in convert(sources, pending).results] == ["unchanged", "unchanged"]
    assert list((pending / ".pmparse" / "pending").glob("*.json")) == []
    assert snapshot(pending) == before


def test_the_rejection_memory_alone_blocks_the_same_suggestion(patch_all, pending, sources, tmp_path, monkeypatch):
    second = proposed(pending, "IL-0002")
    review(pending, reject=second, reviewer="ann", records=["IL-0002"])
    memory = load_rejections(Library(pending), "IL-0002")
    assert [(r.field, r.model, r.decision) for r in memory.rejected] == [
        (name, "0.1.0/test-model-2", "rejected") for name in second]
    # with no memory of what pmparse wrote, only the rejections tell that nothing is new
    (pending / ".pmparse" / "base" / "IL-0002.json").unlink()
    assert reconvert(monkeypatch, tmp_path, sources, pending)[1] == "unchanged"
    assert not (pending / ".pmparse" / "pending" / "IL-0002.json").exists()
    # the suggestion that proposed nothing open became the base again (what pmparse last read)
    assert Library(pending).read_state("base", "IL-0002").pipeline.model == "test-model-2"
    (pending / ".pmparse" / "base" / "IL-0002.json").unlink()
    # another model version proposing the same values is a new suggestion to the memory alone
    patch_all("pmparse.batch.pool.version_info", lambda nlp: {"version": "0.1.0", "model": "test-model-3"})
    report = convert(sources[1:], pending, config=PipelineConfig(headings_path=other_headings(tmp_path)))
    assert report.results[0].status == "pending" and proposed(pending, "IL-0002") == second


def test_edits_and_comments_survive_a_review_that_does_not_change_the_record(pending, sources, tmp_path, monkeypatch):
    before = snapshot(pending)
    review(pending, reject=["lessons"], reviewer="ann")  # the other fields are skipped
    assert snapshot(pending) == before
    assert reconvert(monkeypatch, tmp_path, sources, pending) == ["pending", "pending"]
    assert "lessons" not in proposed(pending) and snapshot(pending) == before


def test_interactive_review_through_clirunner(pending, monkeypatch):
    fields = proposed(pending)
    suggestion = Library(pending).read_state("pending", "IL-0001")

    def editor(text, extension):
        assert extension == ".yaml" and text.startswith("# IL-0001: edit the suggested remediation")
        data = yaml.safe_load(text)
        data["remediation"] = data["remediation"][:1]
        data["remediation"][0]["text"] = "Our own wording of the first remediation step."
        return yaml.safe_dump(data)

    monkeypatch.setattr("click.edit", editor)
    answers = {"root_cause": "y", "remediation": "e", "action_items": "n"}
    # IL-0001: '?' (help) first, then one answer per field (skip the rest); IL-0002: quit
    keys = "?\n" + "".join(answers.get(name, "s") + "\n" for name in fields) + "q\n"
    result = CliRunner().invoke(main, ["review", str(pending), "--reviewer", "bob"], input=keys)
    assert result.exit_code == 0, result.output
    assert "e - edit the suggested value in $EDITOR" in result.output
    # i (item by item) is offered where the field adds or drops more than one item
    assert re.search(rf"\(1/{len(fields)}\) Accept the suggested {fields[0]} \[y,n,e,(i,)?s,q,\?\]\? ", result.output)
    assert (f"2 accepted (1 edited), 1 rejected, {len(fields) - 3} skipped; 2 record(s) still pending"
            in result.output)
    card = Library.read(pending / "IL-0001.yaml")
    assert card.root_cause == suggestion.root_cause and card.reviewed.by == "bob"
    assert [i.text for i in card.remediation] == ["Our own wording of the first remediation step."]
    assert card.action_items != suggestion.action_items
    assert {r.decision for r in load_rejections(Library(pending), "IL-0001").rejected} == {"edited", "rejected"}
    assert proposed(pending) == [name for name in fields if name not in answers]
    assert HUMAN_LINES in (pending / "IL-0001.yaml").read_text(encoding="utf-8")


def test_review_library_function_asks_per_field(pending, sources, tmp_path, monkeypatch):
    fields = proposed(pending)
    total = len(fields) + len(proposed(pending, "IL-0002"))
    asked = []

    def ask(diff, change, position, total):
        asked.append((diff.id, change.field, position, total))
        return Decision("accept")

    report = review(pending, ask=ask, reviewer="ann")
    assert asked[: len(fields)] == [("IL-0001", name, k, len(fields)) for k, name in enumerate(fields, 1)]
    assert len(asked) == report.count("accept") == total
    assert report.still_pending == [] and pending_diffs(pending).diffs == []
    assert not diff_paths([str(pending)]).has_changes
    # accepted and settled: the same suggestion is not stored again
    assert reconvert(monkeypatch, tmp_path, sources, pending) == ["unchanged", "unchanged"]


def test_review_usage_errors_exit_two(pending, tmp_path):
    runner = CliRunner()
    lib = str(pending)
    assert runner.invoke(main, ["review", lib, "--accept", "nonsense"]).exit_code == 2
    assert runner.invoke(main, ["review", lib, "--accept", "lessons", "--reject", "lessons"]).exit_code == 2
    assert runner.invoke(main, ["review", str(tmp_path / "missing"), "--accept-all"]).exit_code == 2
    assert runner.invoke(main, ["review", lib, "--accept-all", "--record", "IL-0042"]).exit_code == 2
    result = runner.invoke(main, ["review", lib, "--accept", "root_cause,lessons", "--reviewer", "ann"])
    assert result.exit_code == 0 and "IL-0001: lessons: accept" in result.output


def test_review_works_with_an_empty_environment(pending, monkeypatch):
    # a container or cron job: no $USER, no $HOME, nothing; the account name is still known
    for name in list(os.environ):
        monkeypatch.delenv(name)
    import pwd

    try:
        account = pwd.getpwuid(os.getuid()).pw_name
    except KeyError:  # an arbitrary uid without an entry
        account = f"uid {os.getuid()}"
    result = CliRunner().invoke(main, ["review", str(pending), "--accept", "lessons", "--record", "IL-0001"])
    assert result.exit_code == 0, result.output
    assert Library.read(pending / "IL-0001.yaml").reviewed.by == account


def test_the_reviewer_falls_back_to_the_account_then_the_uid(monkeypatch):
    from pmparse.review.session import reviewer_name

    for name in ("USER", "USERNAME", "LOGNAME", "LNAME"):
        monkeypatch.delenv(name, raising=False)
    assert reviewer_name("dana") == "dana"
    monkeypatch.setattr("getpass.getuser", lambda: "svc")
    assert reviewer_name() == "svc"

    def no_name():
        raise KeyError("getpwuid(): uid not found: 12345")

    monkeypatch.setattr("getpass.getuser", no_name)
    assert reviewer_name() == f"uid {os.getuid()}"
    monkeypatch.setenv("USER", "erin")
    assert reviewer_name() == "erin"


def test_a_record_broken_by_hand_waits_with_its_suggestion_until_repaired(pending):
    record = pending / "IL-0001.yaml"
    good = record.read_text(encoding="utf-8")
    lines = good.splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if line.startswith("title:"))
    lines[number] = lines[number].replace("title: ", "title: [unclosed ", 1)
    broken = "".join(lines)
    record.write_text(broken, encoding="utf-8")
    suggestion = (pending / ".pmparse" / "pending" / "IL-0001.json").read_bytes()
    # validate names the file, the line and the reason, and the suggestion waiting
    checked, problems = validate_library(pending)
    assert checked == 2 and len(problems) == 1
    text = str(problems[0])
    assert text.startswith("IL-0001.yaml:") and problems[0].line is not None
    assert abs(problems[0].line - (number + 1)) <= 1
    assert "flow sequence" in text and ".pmparse/pending/IL-0001.json" in text and "<unicode string>" not in text
    # an interactive review says why, offers the suggestion, and keeps counting it
    result = CliRunner().invoke(main, ["review", str(pending), "--reviewer", "bob"], input="y\nq\n")
    assert "IL-0001: the record cannot be reviewed until it is repaired" in result.output
    assert "show the pending suggestion [y,n]? " in result.output
    assert "# the pending suggestion for IL-0001" in result.output and "schema_version: 1" in result.output
    assert "2 record(s) still pending" in result.output
    report = review(pending, accept_all=True, reviewer="bob", records=["IL-0001"])
    assert report.still_pending == ["IL-0001"] and len(report.errors) == 1
    # nothing is lost: the record as the person left it, the suggestion still waiting
    assert record.read_text(encoding="utf-8") == broken
    assert (pending / ".pmparse" / "pending" / "IL-0001.json").read_bytes() == suggestion
    # repaired, it is reviewed as usual
    record.write_text(good, encoding="utf-8")
    assert validate_library(pending)[1] == []
    report = review(pending, accept_all=True, reviewer="bob", records=["IL-0001"])
    assert report.errors == [] and report.still_pending == [] and report.count("accept") > 0
    assert validate_library(pending)[1] == []


def test_an_edited_item_is_the_persons_and_its_evidence_spells_its_words(pending):
    suggestion = Library(pending).read_state("pending", "IL-0001")
    field = next(name for name in proposed(pending) if len(card_data(suggestion)[name]) >= 2)
    items = card_data(suggestion)[field]
    text = source_text(suggestion)
    first, second = items[0], items[1]
    # a shortened item whose words the source still says, a rewritten one, and one kept as it was
    start, end = first["evidence"][0]["start"], first["evidence"][0]["end"]
    words = text[start:end].split()
    shortened = {**first, "text": " ".join(words[: max(2, len(words) // 2)])}
    rewritten = {**second, "text": "Our own summary of this step, in words the report does not use."}
    value = [shortened, rewritten, *items[2:]]

    def ask(diff, change, position, total):
        return Decision("edit", value) if change.field == field else Decision("skip")

    review(pending, ask=ask, reviewer="ann", records=["IL-0001"])
    card = Library.read(pending / "IL-0001.yaml")
    got = getattr(card, field)
    assert [i.origin for i in got] == ["person", "person"] + [None] * (len(items) - 2)
    assert got[0].confidence == got[1].confidence == 1.0
    # the shortened item's words are found in the source: its evidence says them
    assert " ".join(text[e.start:e.end] for e in got[0].evidence).split() == shortened["text"].split()
    assert got[1].evidence == []  # no stretch of the source says the rewritten words
    assert [card_data(card)[field][k] for k in range(2, len(items))] == items[2:]  # kept: the model's
    assert "origin: person" in (pending / "IL-0001.yaml").read_text(encoding="utf-8")
    assert validate_library(pending)[1] == []


def test_validate_finds_an_item_whose_evidence_does_not_say_its_words(pending):
    record = pending / "IL-0002.yaml"
    card = Library.read(record)
    field = next(name for name in ("root_cause", "remediation", "lessons", "action_items") if getattr(card, name))
    old = getattr(card, field)[0].text
    text = record.read_text(encoding="utf-8")
    assert text.count(old[:40]) == 1
    record.write_text(text.replace(old[:40], "Words a person typed over the model's ones"), encoding="utf-8")
    problems = validate_library(pending)[1]
    assert [(p.file, p.field) for p in problems] == [("IL-0002.yaml", f"{field}[1]")]
    assert "not words of the item's text" in problems[0].reason


def test_accepting_a_duration_takes_the_title_that_says_it(longer_outage):
    report = review(longer_outage, accept=["duration_minutes"], reviewer="ann")
    assert {(o.field, o.action) for o in report.outcomes} >= {("title", "accept"), ("duration_minutes", "accept")}
    card = Library.read(longer_outage / "IL-0001.yaml")
    assert card.duration_minutes == 41 and "lasting 41 minutes" in card.title


@pytest.mark.parametrize("answer", ["skip", "reject"])
def test_a_title_skipped_or_rejected_keeps_its_duration_with_it(longer_outage, answer):
    asked = []

    def ask(diff, change, position, total):
        asked.append(change.field)
        return Decision(answer if change.field == "title" else "accept")

    review(longer_outage, ask=ask, reviewer="ann")
    assert "duration_minutes" not in asked  # decided with the title
    card = Library.read(longer_outage / "IL-0001.yaml")
    assert card.duration_minutes == 31 and "lasting 31 minutes" in card.title
    if answer == "skip":
        assert [c.field for c in pending_diffs(longer_outage).diffs[0].changes] == ["title", "duration_minutes"]


def test_the_prompt_shows_the_facts_a_title_decides(longer_outage):
    result = CliRunner().invoke(main, ["review", str(longer_outage), "--reviewer", "bob"], input="y\nq\n")
    assert result.exit_code == 0, result.output
    assert "the title says duration_minutes: your answer decides it too" in result.output
    assert Library.read(longer_outage / "IL-0001.yaml").duration_minutes == 41


# --- a real terminal ---------------------------------------------------------------------------------


EDITOR_SCRIPT = """
import os, sys, yaml
path = sys.argv[1]
data = yaml.safe_load(open(path, encoding="utf-8"))
data["root_cause"] = data["root_cause"][:1]
data["root_cause"][0]["text"] = "Edited in a real editor."
open(path, "w", encoding="utf-8").write(yaml.safe_dump(data))
stat = os.stat(path)
os.utime(path, (stat.st_atime + 5, stat.st_mtime + 5))  # saved: a later modification time
"""


def spawn_review(lib, *extra, editor: str | None = None):
    env = dict(os.environ, USER="carol", TERM="xterm")
    if editor:
        env["EDITOR"] = editor
    return pexpect.spawn(sys.executable, ["-m", "pmparse", "review", str(lib), *extra], env=env,
                         encoding="utf-8", timeout=60, dimensions=(40, 250))


def next_field(child) -> str:
    """Wait for the next prompt; the field it asks about."""
    child.expect(PROMPT)
    return child.match.group(3)


def test_interactive_review_through_a_pseudo_terminal(pending, tmp_path):
    fields = proposed(pending)
    script = tmp_path / "editor.py"
    script.write_text(EDITOR_SCRIPT, encoding="utf-8")
    child = spawn_review(pending, editor=f"'{sys.executable}' '{script}'")
    answers = {"root_cause": "e", "remediation": "n"}
    for name in fields:
        assert next_field(child) == name
        assert "\x1b[" in child.before  # a terminal gets colours
        child.sendline(answers.get(name, "y"))
    next_field(child)  # the first field of IL-0002
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    card = Library.read(pending / "IL-0001.yaml")
    assert card.reviewed.by == "carol" and card.status == "reviewed"
    assert [item.text for item in card.root_cause] == ["Edited in a real editor."]
    memory = load_rejections(Library(pending), "IL-0001").rejected
    assert sorted((r.field, r.decision) for r in memory) == [("remediation", "rejected"), ("root_cause", "edited")]
    # IL-0001 is settled, IL-0002 still waits
    assert proposed(pending) == [] and proposed(pending, "IL-0002")
    assert HUMAN_LINES in (pending / "IL-0001.yaml").read_text(encoding="utf-8")


def test_a_killed_review_leaves_every_record_old_or_new(pending):
    before = snapshot(pending)
    fields = proposed(pending)
    suggestion = Library(pending).read_state("pending", "IL-0001")
    child = spawn_review(pending, "--no-color")
    taken = []
    for _ in range(2):
        taken.append(next_field(child))
        child.sendline("y")
    assert next_field(child) == fields[2]
    child.kill(signal.SIGKILL)  # dies waiting at the prompt, two fields accepted
    child.close(force=True)
    assert child.signalstatus == signal.SIGKILL
    # every record parses and validates; no temporary file is left behind
    checked, problems = validate_library(pending)
    assert checked == 2 and problems == []
    assert list(pending.glob(".*.tmp")) == []
    after = snapshot(pending)
    assert after["IL-0002.yaml"] == before["IL-0002.yaml"]  # old
    # IL-0001 is new: exactly the two accepted fields taken, the rest as it was
    expected = card_data(merge(loads(before["IL-0001.yaml"].decode(), "yaml", "old"), suggestion, taken,
                               places=Library.open(pending).places))
    card = card_data(Library.read(pending / "IL-0001.yaml"))
    assert card["status"] == "reviewed" and card["reviewed"]["by"] == "carol"
    assert {k: v for k, v in card.items() if k not in ("status", "reviewed")} == {
        k: v for k, v in expected.items() if k not in ("status", "reviewed")}
    assert HUMAN_LINES in after["IL-0001.yaml"].decode()
    # the review picks up where it stopped
    assert proposed(pending) == fields[2:]
    report = review(pending, accept_all=True, reviewer="carol")
    assert report.still_pending == [] and validate_library(pending)[1] == []
