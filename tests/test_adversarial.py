"""The whole pipeline on hostile documents: no step may blow up (regexes, tokenizer, loops).

Each document (50,000 characters of one repeated unit) is converted in a forked process with a
generous budget: the pipeline needs well under a second for each, while a quadratic step on
input of this size takes minutes (spaCy's own tokenizer needed three minutes for 20,000 ``=``
before the guard of :mod:`pmparse.tokenizer`). The budget is a timeout, not a timing assertion.
"""

from __future__ import annotations

import multiprocessing
import sys

import pytest

from conftest import assert_offsets
from pmparse.card import build_card
from pmparse.errors import InputError
from pmparse.ingest import ingest_bytes
from pmparse.pipeline import PipelineConfig, analyse, get, version_info

#: Seconds one document may take (a linear pipeline needs well under one).
BUDGET = 20.0
SIZE = 50_000

UNITS = {
    "equals": "=", "stars": "*", "hashes": "#", "pipes": "|", "dashes": "-", "colons": ":", "parens": "(",
    "quotes": "'", "x-colon": "x:", "a:b": "a:b ", "letters": "a", "spaces": " ", "newlines": "\n", "crlf": "\r\n",
    "tabs": "\t", "dots": ".", "digits": "7", "one-line sentences": "The queue stalled for an hour. ",
    "abbreviations": "e.g. A. i.e. B. ", "list lines": "- an item of the list\n",
    "nested list": "  - a nested item\n    - deeper item\n", "table": "| a | b | c |\n|---|---|---|\n",
    "timeline": "10:00 the alert fired\n", "fences": "```\n", "emphasis": "**a** _b_ ", "atx noise": "# # # # ",
    "durations": "for 2 hours and 3 minutes ", "dates": "3 March 2020, ", "short lines": "ab\n",
    "questions": "What happened here today?\n", "erb": "<%= partial 'x' %>", "html tags": "<div><p>",
    "emoji": "😀", "cjk": "東京の障害", "rtl": "שלום ",
}

#: Quadratic steps found in components their owners are rewriting (issue 7 report); skipped
#: here so the suite stays usable, listed so they are not forgotten.
KNOWN_QUADRATIC = {
    "headings": ("## Root cause\n", "facts.section_regions: a linear search per section (use bisect)"),
    "inline labels": ("Root cause: the disk filled up.\n\n",
                      "tagger.category_texts: every summary region checked against every focus span"),
    "upper-case headings": ("ROOT CAUSE\n", "facts.section_regions and tagger.category_texts"),
    "setext headings": ("Title words\n-----\n", "facts.section_regions: a linear search per section"),
}


def _convert(conn, text: str, name: str) -> None:
    try:
        source = ingest_bytes(text.encode("utf-8"), name)
    except InputError as exc:
        conn.send(f"refused: {exc.kind}")
        return
    nlp = get(PipelineConfig())
    doc = analyse(nlp, source)
    card = build_card(doc, source, "IL-0001", version_info(nlp))
    assert_offsets(card, source.text)
    conn.send("ok")


def _params():
    for name, unit in UNITS.items():
        yield pytest.param(unit, id=name)
    for name, (unit, reason) in KNOWN_QUADRATIC.items():
        yield pytest.param(unit, id=name, marks=pytest.mark.skip(reason=f"known quadratic: {reason}"))


@pytest.mark.skipif(sys.platform != "linux", reason="needs fork to reuse the loaded pipeline")
@pytest.mark.parametrize("name", ["x.md", "x.txt"])
@pytest.mark.parametrize("unit", _params())
def test_pipeline_stays_linear_on_hostile_documents(unit, name):
    get(PipelineConfig())  # built before the fork, so the budget covers the document only
    text = (unit * (SIZE // len(unit) + 1))[:SIZE]
    context = multiprocessing.get_context("fork")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_convert, args=(child, text, name), daemon=True)
    process.start()
    child.close()
    try:
        if not parent.poll(BUDGET):
            pytest.fail(f"converting {SIZE} characters of {unit!r} took more than {BUDGET} s")
        # white space alone is refused as empty, by design; everything else converts
        assert parent.recv() == ("refused: empty" if not text.strip() else "ok")
    except EOFError:
        pytest.fail(f"converting {SIZE} characters of {unit!r} raised (see the captured output)")
    finally:
        process.kill()
        process.join()
