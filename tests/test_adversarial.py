"""The whole pipeline on hostile documents: no step may blow up (regexes, tokenizer, loops).

Each document (50,000 characters of one repeated unit; 150,000 for one section per line) is
converted, with the bundled field model when there is one, in a forked process with a
generous budget: the pipeline needs well under a second for each, while a quadratic step on
input of this size takes minutes (spaCy's own tokenizer needed three minutes for 20,000 ``=``
before the guard of :mod:`pmparse.nlp.tokenizer`). The budget is a timeout, not a timing assertion.
"""

from __future__ import annotations

import multiprocessing
import sys

import pytest

from pmparse.card.build import build_card
from pmparse.errors import InputError
from pmparse.ingest.read import ingest_bytes
from pmparse.nlp.pipeline import analyse, get, pipeline_config, version_info
from tests.helpers import assert_offsets

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
    # the card rules of issue 35 (free-15): closing checklists, indented fences, helpers, notices
    "checklists": "- [x] The sections above are filled out\n", "indented fences": "- a step\n\n    ```\n",
    "helpers": "thanks to the [Acme](https://acme.example) team ", "notices": "\u00a9 2031 Acme Labs ",
    "key events": "- **Key events**\n",
}

#: One section per line, three times longer: the section lookups of facts and the tagger were
#: quadratic (80 s for 150,000 characters of inline labels; about 1 s now).
SECTION_UNITS = {
    "headings": "## Root cause\n", "inline labels": "Root cause: the disk filled up.\n\n",
    "upper-case headings": "ROOT CAUSE\n", "setext headings": "Title words\n-----\n",
    "bold labels": "- **Impact**: users saw errors\n",
}
SECTION_SIZE = 150_000

#: The pipeline as convert builds it: with the bundled field model when there is one.
CONFIG = pipeline_config()


def _convert(conn, text: str, name: str) -> None:
    try:
        source = ingest_bytes(text.encode("utf-8"), name)
    except InputError as exc:
        conn.send(f"refused: {exc.kind}")
        return
    nlp = get(CONFIG)
    doc = analyse(nlp, source)
    card = build_card(doc, source, "IL-0001", version_info(nlp))
    assert_offsets(card, source.text)
    conn.send("ok")


@pytest.mark.skipif(sys.platform != "linux", reason="needs fork to reuse the loaded pipeline")
@pytest.mark.parametrize("name", ["x.md", "x.txt"])
@pytest.mark.parametrize("unit,size", [(u, SIZE) for u in UNITS.values()]
                         + [(u, SECTION_SIZE) for u in SECTION_UNITS.values()], ids=list(UNITS) + list(SECTION_UNITS))
def test_pipeline_stays_linear_on_hostile_documents(unit, size, name):
    get(CONFIG)  # built before the fork, so the budget covers the document only
    text = (unit * (size // len(unit) + 1))[:size]
    context = multiprocessing.get_context("fork")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_convert, args=(child, text, name), daemon=True)
    process.start()
    child.close()
    try:
        if not parent.poll(BUDGET):
            pytest.fail(f"converting {size} characters of {unit!r} took more than {BUDGET} s")
        # white space alone is refused as empty, by design; everything else converts
        assert parent.recv() == ("refused: empty" if not text.strip() else "ok")
    except EOFError:
        pytest.fail(f"converting {size} characters of {unit!r} raised (see the captured output)")
    finally:
        process.kill()
        process.join()
