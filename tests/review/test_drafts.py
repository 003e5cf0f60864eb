"""``pmparse review --drafts``: a fresh library's drafts reviewed field by field, and what
``convert`` and ``train --library`` make of the answers afterwards."""

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

from pmparse.cli import main
from pmparse.library.store import Library
from pmparse.review.anchor import REVIEW_FIELDS
from pmparse.review.decisions import Decision
from pmparse.review.drafts import decided_fields, draft_ids
from pmparse.review.rejections import load_rejections
from pmparse.review.session import review, uncertainty
from pmparse.training.library_rows import library_rows

#: Made-up postmortems written for these tests (no corpus text).
REPORTS = {
    "ledger.md": """# Ledger writes stalled for forty minutes

## What happened
Between 09:10 and 09:50 UTC customers could not record new payments in the ledger.
The payment page showed a spinner and then a timeout error.

## Why it happened
A schema migration took a table lock on the ledger entries table.

## How we found out
The write latency alert paged the on-call engineer at 09:14.

## How we fixed it
We cancelled the migration and the queued writes drained within two minutes.

## Follow-up
- Run schema migrations through the online migration tool only.
- Add a lock timeout to every migration session.
- Review the migration runbook with the database team.
""",
    "search.md": """# Search results went stale for a morning

## What happened
From 07:00 to 11:30 UTC the search page returned results that were up to six hours old.

## Why it happened
The indexer stopped consuming its queue after a certificate on the broker expired.

## How we fixed it
We renewed the certificate and restarted the indexer, which caught up by 11:30.

## Follow-up
- Move the broker certificate to automatic renewal.
- Alert when the indexer queue lag exceeds fifteen minutes.
""",
}

PROMPT = re.compile(r"\((\d+)/(\d+)\) Accept the suggested (\w+) \[y,n,e,(?:i,)?s,q,\?\]\? ")


def run(*args, **kwargs):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, **kwargs)


def convert_reports(tmp_path, *options: str):
    """The made-up reports converted into a fresh library nobody touched: ``(sources, library)``."""
    sources = tmp_path / "reports"
    sources.mkdir()
    for name, text in REPORTS.items():
        (sources / name).write_text(text, encoding="utf-8")
    lib = tmp_path / "lib"
    result = run("convert", sources, "-o", lib, *options, "--no-progress")
    assert result.exit_code == 0, result.output
    return sources, lib


@pytest.fixture()
def drafted(tmp_path):
    """A fresh library: two made-up reports converted by the heading rules, nobody touched them."""
    return convert_reports(tmp_path, "--rules-only")


def record(lib, card_id="IL-0001") -> dict:
    return yaml.safe_load((lib / f"{card_id}.yaml").read_text(encoding="utf-8"))


def asked(card: dict) -> list[str]:
    """The fields a draft asks about, in review order: the non-empty ones."""
    return [name for name in REVIEW_FIELDS if card[name] not in (None, [])]


def test_a_plain_review_points_to_drafts(drafted):
    _, lib = drafted
    result = run("review", lib, "--accept-all")
    assert "2 record(s) here are drafts" in result.stderr and "--drafts" in result.stderr


def test_review_drafts_keeps_drops_and_takes_items_then_convert_and_train_respect_it(drafted):
    sources, lib = drafted
    draft = record(lib)
    fields = asked(draft)
    assert {"root_cause", "remediation", "action_items"} <= set(fields) and len(draft["action_items"]) == 3
    # nothing decided yet: an untouched draft teaches nothing
    assert run("train", "--library", lib).output.startswith("0 reviewed record(s)")
    other = (lib / "IL-0002.yaml").read_bytes()
    answers = {"root_cause": "y\n", "remediation": "n\n", "action_items": "i\nn\ny\nn\n"}
    keys = "".join(answers.get(name, "s\n") for name in fields) + "q\n"  # then quit at IL-0002
    result = run("review", lib, "--drafts", "--no-color", "--reviewer", "curator", input=keys)
    assert result.exit_code == 0, result.output
    # each field offered against nothing, its items with their evidence line and confidence
    assert "+[1] A schema migration took a table lock" in result.output
    assert re.search(r"evidence line \d+, confidence 0\.\d\d: ", result.output)
    # the fields the draft has no value for are named as empty, not as unchanged
    assert re.search(r"fields the draft leaves empty: ", result.output) and "fields unchanged" not in result.output
    assert "1 accepted (0 edited), 1 rejected, 1 decided item by item" in result.stderr
    assert "2 draft(s) with fields still open" in result.stderr
    after = record(lib)
    # the file holds exactly that: the kept field as it was, the dropped one empty, one item of three
    assert after["root_cause"] == draft["root_cause"]
    assert after["remediation"] == []
    assert after["action_items"] == draft["action_items"][1:2]
    assert {k: v for k, v in after.items() if k not in ("remediation", "action_items")} == \
           {k: v for k, v in draft.items() if k not in ("remediation", "action_items")}
    assert after["status"] == "suggested" and after["reviewed"] is None  # other fields still open
    library = Library.open(lib)
    assert decided_fields(library, library.entries["IL-0001"].card) == {
        "root_cause": "kept", "remediation": "dropped", "action_items": "items"}
    memory = load_rejections(library, "IL-0001").rejected
    assert sorted((r.field, r.decision, len(r.items_sha256 or [])) for r in memory) == [
        ("action_items", "rejected", 2), ("remediation", "rejected", 1)]
    assert (lib / "IL-0002.yaml").read_bytes() == other  # quit before anything of it

    # a second convert proposes neither the dropped field nor the refused items, nor overwrites the kept one
    before = (lib / "IL-0001.yaml").read_bytes()
    again = run("convert", sources, "-o", lib, "--rules-only", "--no-progress", "--force")
    assert again.exit_code == 0 and "0 pending review" in again.output, again.output
    assert (lib / "IL-0001.yaml").read_bytes() == before
    assert run("diff", lib).exit_code == 0
    # the fields left open are still asked, the decided ones not
    assert draft_ids(Library.open(lib)) == ["IL-0001", "IL-0002"]

    # train --library: the kept field and the item taken are accepted, the dropped ones rejected
    rows = library_rows(lib)
    assert [doc.id for doc in rows.docs] == ["IL-0001"]
    assert set(rows.docs[0].labels) == {"root_cause", "action_items", "not:remediation", "not:action_items"}
    taught = run("train", "--library", lib).output
    assert taught.startswith(f"1 reviewed record(s): {rows.count('field')} field units, 0 units of no field, "
                             f"{rows.count('negative')} rejected")
    assert rows.count("field") >= 2 and rows.count("negative") >= 3

    # deciding the rest marks the draft reviewed: a whole card from then on
    result = run("review", lib, "--drafts", "--record", "IL-0001", "--accept-all", "--reviewer", "curator")
    assert result.exit_code == 0, result.output
    done = record(lib)
    assert done["status"] == "reviewed" and done["reviewed"]["by"] == "curator"
    assert done["remediation"] == [] and done["action_items"] == draft["action_items"][1:2]
    assert not (lib / ".pmparse" / "drafts" / "IL-0001.json").exists()
    assert draft_ids(Library.open(lib)) == ["IL-0002"]
    assert library_rows(lib).docs[0].whole


def test_scripted_draft_review_and_item_numbers(drafted):
    _, lib = drafted
    draft = record(lib)
    result = run("review", lib, "--drafts", "--record", "IL-0001", "--items", "action_items:1,3",
                 "--reject", "remediation")
    assert result.exit_code == 0, result.output
    assert "IL-0001: action_items: items 1,3" in result.output
    after = record(lib)
    assert after["action_items"] == [draft["action_items"][0], draft["action_items"][2]]
    assert after["remediation"] == [] and after["status"] == "suggested"
    # a number the draft's field does not have: a usage error before anything is written
    before = (lib / "IL-0002.yaml").read_bytes()
    wrong = run("review", lib, "--drafts", "--items", "action_items:7")
    assert wrong.exit_code == 2 and "nothing was written" in wrong.output
    assert (lib / "IL-0002.yaml").read_bytes() == before
    # a record that is no draft with a field to decide
    assert run("review", lib, "--drafts", "--record", "IL-0009", "--accept-all").exit_code == 2


def test_quit_leaves_the_open_field_untouched(drafted):
    _, lib = drafted
    before = {p.name: p.read_bytes() for p in lib.glob("IL-*.yaml")}
    fields = asked(record(lib))
    # q at the first field, and q in the middle of an item-by-item answer
    assert run("review", lib, "--drafts", input="q\n").exit_code == 0
    keys = "".join("s\n" for name in fields[:fields.index("action_items")]) + "i\ny\nq\nq\n"
    result = run("review", lib, "--drafts", "--no-color", input=keys)
    assert result.exit_code == 0 and "action_items stays pending: nothing of it was written" in result.output
    assert {p.name: p.read_bytes() for p in lib.glob("IL-*.yaml")} == before
    assert not (lib / ".pmparse" / "drafts").is_dir() or not any((lib / ".pmparse" / "drafts").iterdir())
    assert not (lib / ".pmparse" / "rejected").is_dir() or not any((lib / ".pmparse" / "rejected").iterdir())


def test_ctrl_c_keeps_what_was_decided_and_leaves_the_open_field(drafted):
    _, lib = drafted
    draft = record(lib)
    fields = asked(draft)
    env = dict(os.environ, USER="carol", TERM="xterm")
    child = pexpect.spawn(sys.executable, ["-m", "pmparse", "review", str(lib), "--drafts", "--no-color"],
                          env=env, encoding="utf-8", timeout=60, dimensions=(40, 250))
    child.expect(PROMPT)
    assert child.match.group(3) == fields[0]
    child.sendline("n")
    child.expect(PROMPT)
    assert child.match.group(3) == fields[1]
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 or child.signalstatus == signal.SIGINT
    after = record(lib)
    assert after[fields[0]] in (None, [])  # dropped before the interrupt
    assert after[fields[1]] == draft[fields[1]]
    assert after["status"] == "suggested"
    state = json.loads((lib / ".pmparse" / "drafts" / "IL-0001.json").read_text(encoding="utf-8"))
    assert list(state["decided"]) == [fields[0]]


def test_order_uncertain_asks_drafts_fields_least_certain_first(tmp_path):
    sources, lib = convert_reports(tmp_path)  # the model: varied confidences
    seen = []

    def ask(diff, change, position, total):
        seen.append((uncertainty(diff.suggestion, change), diff.id, change.field))
        return Decision("skip")

    review(lib, ask=ask, order="uncertain", drafts=True)
    assert len({card_id for _, card_id, _ in seen}) == 2 and len({u for u, _, _ in seen}) > 2
    assert [u for u, _, _ in seen] == sorted(u for u, _, _ in seen)
    # through the CLI too: the prompts come in the same order
    result = run("review", lib, "--drafts", "--order", "uncertain", "--no-color", input="s\n" * len(seen))
    assert [m.group(3) for m in PROMPT.finditer(result.output)] == [name for _, _, name in seen]


def test_a_partly_reviewed_draft_is_not_refreshed_in_place_by_another_model(drafted):
    sources, lib = drafted
    draft = record(lib)
    assert run("review", lib, "--drafts", "--record", "IL-0001", "--accept", "root_cause").exit_code == 0
    before = (lib / "IL-0001.yaml").read_bytes()
    untouched = (lib / "IL-0002.yaml").read_bytes()
    # the shipped model reads the reports otherwise than the heading rules did
    result = run("convert", sources, "-o", lib, "--no-progress")
    assert result.exit_code == 0, result.output
    # the untouched draft is refreshed in place; the one a person decided a field of is theirs:
    # what the model suggests anew waits for review, the record stays as it was
    assert (lib / "IL-0002.yaml").read_bytes() != untouched
    assert (lib / "IL-0001.yaml").read_bytes() == before and record(lib)["root_cause"] == draft["root_cause"]
    assert (lib / ".pmparse" / "pending" / "IL-0001.json").is_file()
    assert "IL-0001" not in draft_ids(Library.open(lib))  # asked by the plain review from now on


def test_a_field_edited_by_hand_while_its_question_waits_is_not_overwritten(drafted):
    """A curator who edits the draft's file while the review asks about it (the file open in an
    editor beside the prompt) keeps their words: the answer given to the draft as it was asked
    writes nothing over them."""
    _, lib = drafted
    draft = record(lib)
    path = lib / "IL-0001.yaml"
    typed = "A person's own reading of the cause."

    def ask(diff, change, position, total):
        if diff.id == "IL-0001" and change.field == "root_cause":
            text = path.read_text(encoding="utf-8")
            first = draft["root_cause"][0]["text"]
            assert first in text
            path.write_text(text.replace(first, typed, 1), encoding="utf-8")
            return Decision("accept")  # y: keep the draft's value, as it was shown
        if diff.id == "IL-0001" and change.field == "remediation":
            return Decision("reject")
        return Decision("skip")

    report = review(lib, ask=ask, drafts=True, records=["IL-0001"])
    after = record(lib)
    assert after["root_cause"][0]["text"] == typed  # the hand edit stays
    assert after["remediation"] == []  # the next answer was still applied
    assert report.errors and "root_cause" in report.errors[0]
    library = Library.open(lib)
    assert "root_cause" not in decided_fields(library, library.entries["IL-0001"].card)


def test_a_partly_reviewed_draft_follows_its_amended_source_with_its_decisions(drafted):
    """The source of a partly reviewed draft gains a sentence; the review that moves the record
    onto the new text moves its draft decisions with it: the kept field still teaches, the open
    fields are still asked by review --drafts."""
    sources, lib = drafted
    assert run("review", lib, "--drafts", "--record", "IL-0001", "--accept", "root_cause",
               "--reject", "remediation").exit_code == 0
    source = sources / "ledger.md"
    source.write_text(source.read_text(encoding="utf-8").replace(
        "## Why it happened", "A few refunds were held back too.\n\n## Why it happened"), encoding="utf-8")
    assert run("convert", sources, "-o", lib, "--rules-only", "--no-progress").exit_code == 0
    assert run("review", lib, "--accept-all").exit_code == 0  # moves the record onto the new text
    library = Library.open(lib)
    card = library.entries["IL-0001"].card
    assert card.status == "suggested"
    assert decided_fields(library, card) == {"root_cause": "kept", "remediation": "dropped"}
    assert "IL-0001" in draft_ids(library)
    assert [doc.id for doc in library_rows(lib).docs] == ["IL-0001"]


def test_the_pointer_to_drafts_prints_a_library_name_escaped_and_quoted(drafted):
    """The command it suggests names the library as typed: a folder name with a space is quoted
    (the command can be copied), one with a control character is escaped (it reaches a terminal)."""
    _, lib = drafted
    odd = lib.parent / "my lib\x1b[2J"
    lib.rename(odd)
    result = run("review", odd, "--accept-all")
    assert "\x1b" not in result.stderr
    assert "review 'my lib\\x1b[2J' --drafts" in result.stderr.replace(str(lib.parent) + "/", "")


def test_a_deleted_partly_reviewed_draft_leaves_no_decisions_to_the_record_that_replaces_it(drafted):
    """A curator deletes a partly reviewed draft to start over; convert makes it again under the
    same id (the highest): a fresh draft, every field asked, none decided."""
    sources, lib = drafted
    assert run("review", lib, "--drafts", "--record", "IL-0002", "--accept", "title",
               "--reject", "remediation").exit_code == 0
    (lib / "IL-0002.yaml").unlink()
    assert run("convert", sources, "-o", lib, "--rules-only", "--no-progress").exit_code == 0
    fresh = record(lib, "IL-0002")
    assert fresh["remediation"] and fresh["status"] == "suggested"
    library = Library.open(lib)
    assert decided_fields(library, library.entries["IL-0002"].card) == {}
    seen = []

    def ask(diff, change, position, total):
        seen.append(change.field)
        return Decision("skip")

    review(lib, ask=ask, drafts=True, records=["IL-0002"])
    assert seen == asked(fresh)


def test_review_drafts_opens_each_draft_once_before_asking_it(drafted, monkeypatch):
    _, lib = drafted
    import pmparse.review.drafts as drafts_module
    import pmparse.review.session as session_module

    opened: list[str] = []
    real = drafts_module.open_draft

    def counting(library, entry):
        opened.append(entry.id)
        return real(library, entry)

    monkeypatch.setattr(drafts_module, "open_draft", counting)
    monkeypatch.setattr(session_module, "open_draft", counting)
    first_asked: dict[str, int] = {}

    def ask(diff, change, position, total):
        first_asked.setdefault(diff.id, opened.count(diff.id))
        return Decision("skip")

    review(lib, ask=ask, drafts=True, reviewer="ann")
    # listing a draft compared it with what convert made; asking it must not compare it again
    assert first_asked == {"IL-0001": 1, "IL-0002": 1}, first_asked
