from __future__ import annotations

import json
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
from pmparse.card.schema import Card
from pmparse.library.records import card_data, dumps, loads
from pmparse.library.store import Library
from pmparse.library.sync import store
from pmparse.library.validate import validate_library
from pmparse.nlp.pipeline import PipelineConfig, pipeline_config
from pmparse.review.compare import merge
from pmparse.review.rejections import load_rejections
from pmparse.review.session import Decision, diff_paths, pending_diffs, review
from tests.helpers import CORE_DNS, INOTIFY, convert_with_other_model, other_headings, source_text

HUMAN_LINES = "\n# confirmed with the on-call notes\ndate: '2020-02-04'   # was 02-03\n"
#: What the other heading table moves, whatever else follows from it (titles, tags).
MOVED = {"root_cause", "remediation", "action_items", "lessons"}
PROMPT = re.compile(r"\((\d+)/(\d+)\) Accept the suggested (\w+) \[y,n,e,(?:i,)?s,q,\?\]\? ")


@pytest.fixture()
def sources(corpus_root):
    return [str(corpus_root / CORE_DNS), str(corpus_root / INOTIFY)]


@pytest.fixture()
def library(sources, tmp_path, monkeypatch):
    """Two corpus records (IL-0001 edited by hand: a comment and the date; IL-0002 marked
    reviewed), both re-converted by another model so each has a pending suggestion."""
    lib = tmp_path / "lib"
    assert convert(sources, lib).counts["converted"] == 2
    record = lib / "IL-0001.yaml"
    text = record.read_text(encoding="utf-8")
    assert "\ndate: '2020-02-03'\n" in text
    record.write_text(text.replace("\ndate: '2020-02-03'\n", HUMAN_LINES), encoding="utf-8")
    (lib / "IL-0002.yaml").write_text((lib / "IL-0002.yaml").read_text(encoding="utf-8").replace(
        "status: suggested", "status: reviewed"), encoding="utf-8")
    return lib


def snapshot(lib) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(lib.glob("IL-*.yaml"))}


def reconvert(monkeypatch, tmp_path, sources, lib) -> list[str]:
    return [r.status for r in convert_with_other_model(monkeypatch, tmp_path, sources, lib).results]


def proposed(lib, card_id: str = "IL-0001") -> list[str]:
    """The fields still proposed for a record, in review order."""
    for diff in pending_diffs(lib).diffs:
        if diff.id == card_id:
            return [c.field for c in diff.changes]
    return []


@pytest.fixture()
def pending(library, sources, tmp_path, monkeypatch):
    assert reconvert(monkeypatch, tmp_path, sources, library) == ["pending", "pending"]
    assert MOVED <= set(proposed(library)) and MOVED <= set(proposed(library, "IL-0002"))
    return library


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


# the author's title says how long it lasted, as a title pmparse built from the facts would
OUTAGE = """# Queue outage lasting {end} minutes

## Summary

On 3 March 2024 between 09:00 and 09:{end} UTC the job queue stopped handing out work.

## Root cause

A configuration push lowered the worker limit of the pool to zero.

## Action items

- Validate worker limits before a push reaches production.
"""


@pytest.fixture()
def longer_outage(tmp_path):
    """A reviewed record of a 31-minute outage whose amended source now says 41 minutes."""
    source = tmp_path / "outage.md"
    source.write_text(OUTAGE.format(end="31"), encoding="utf-8")
    lib = tmp_path / "lib"
    config = pipeline_config()
    convert([str(source)], lib, config=config)
    record = lib / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    assert Library.read(record).duration_minutes == 31 and "lasting 31 minutes" in Library.read(record).title
    source.write_text(OUTAGE.format(end="41"), encoding="utf-8")
    assert convert([str(source)], lib, config=config).results[0].status == "pending"
    diff = pending_diffs(lib).diffs[0]
    title = next(c for c in diff.changes if c.field == "title")
    assert title.linked == ["duration_minutes"]
    return lib


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
    added = _another_sentence(base, items)
    data = card_data(base)
    data["contributing_factors"] = items + [added]
    made = loads(json.dumps(data), "json", "x")
    lib.write_state("pending", made)
    return lib, items, record_path, added["text"], made


def _another_sentence(card, items: list[dict]) -> dict:
    """An item (as JSON) for a line of ``card``'s source text that none of ``items`` says."""
    text = source_text(card)
    sentence = next(line for line in text.splitlines()
                    if len(line.split()) > 5 and all(line.strip() != i["text"] for i in items))
    start = text.index(sentence)
    return {"text": sentence.strip(), "evidence": [{"start": start, "end": start + len(sentence)}], "confidence": 0.6}


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


def test_an_item_pmparse_no_longer_reads_is_offered_for_removal_beside_one_turned_down(pending):
    """An item turned down is left out of the next suggestion; when that suggestion also drops
    an item pmparse wrote (and the person left as it was), the drop is pmparse's change to
    offer, not a proposal to delete the person's items hidden as rejected."""
    lib = Library.open(pending)
    base = lib.read_state("base", "IL-0001")
    items = card_data(base)["contributing_factors"]
    assert len(items) >= 2 and Library.read(pending / "IL-0001.yaml").contributing_factors == base.contributing_factors
    extra = _another_sentence(base, items)
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


SMALL = "# Queue stalled\n\nThe queue stalled for 20 minutes.\n\nRoot cause: a full disk on the broker.\n"


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
