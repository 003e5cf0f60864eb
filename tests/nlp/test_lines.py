from __future__ import annotations

from spacy.tokens import Doc

from pmparse.ingest.read import ingest_bytes
from pmparse.nlp.lines import Mask
from pmparse.nlp.pipeline import PipelineConfig, analyse, get, make_doc


def test_mask_takes_regions_as_tuples_or_lists():
    mask = Mask([[10, 20], (0, 5), [18, 30]])
    assert mask.covers(12, 25) and mask.overlaps(4, 6) and not mask.overlaps(5, 10)


def test_a_serialised_doc_goes_through_the_pipeline():
    """spaCy's DocBin and nlp.pipe(n_process=...) turn user_data tuples into lists."""
    nlp = get(PipelineConfig())
    source = ingest_bytes(b"---\ntitle: Outage\n---\n# Outage\n\n```\nlog line\n```\n\n## Root cause\n\n"
                          b"A full disk stopped the database.\n", "x.md")
    doc = Doc(nlp.vocab).from_bytes(make_doc(nlp, source).to_bytes())
    assert isinstance(doc.user_data["pmparse_masked"][0], list)
    for _, component in nlp.pipeline:
        doc = component(doc)
    expected = analyse(nlp, source)
    assert [(s.start_char, s.end_char, s.label_) for s in doc.spans["fields"]] == [
        (s.start_char, s.end_char, s.label_) for s in expected.spans["fields"]]


def _fences(text: str) -> list[str]:
    from pmparse.nlp.lines import code_fence_regions, split_lines

    return [text[a:b] for a, b in code_fence_regions(split_lines(text))]


def test_a_line_of_inline_code_between_triple_backticks_opens_no_block():
    text = "Error:\n```x509: certificate is valid for another host```\n\n## Resolution\n\nWe renewed it.\n"
    assert _fences(text) == []


def test_a_block_closes_only_on_a_bare_fence_of_its_own_kind_and_length():
    text = "````\n```\nnested\n~~~\n```python\n````\nprose\n~~~\nlog\n~~~\nafter\n```\nunclosed\n"
    assert _fences(text) == ["````\n```\nnested\n~~~\n```python\n````", "~~~\nlog\n~~~", "```\nunclosed"]


def test_a_fence_of_the_other_kind_or_with_an_info_string_does_not_close_a_block():
    assert _fences("~~~\n```\nx\n```\n~~~\nprose\n") == ["~~~\n```\nx\n```\n~~~"]
    assert _fences("```\nx\n```python\ny\n```\nprose\n") == ["```\nx\n```python\ny\n```"]


def test_a_fence_indented_under_a_list_item_opens_a_block():
    """Issue 35 (free-15): a stack trace fenced inside a timeline's bullet became a card's symptom."""
    text = ("- 10:02 the queue web worker logged:\n\n    ```\n    Error: publish deadline exceeded\n"
            "    at sendLater (/srv/queue/publisher.js:12:3)\n    ```\n\n    All those errors stopped by 11:00.\n")
    assert _fences(text) == ["    ```\n    Error: publish deadline exceeded\n    at sendLater (/srv/queue/publisher.js:12:3)\n"
                             "    ```"]
    # an indented fence never closed is no block (a deep indent alone does not hide the rest of the text)
    assert _fences("- a step\n\n      ```\n  the queue stalled\n\nWe restarted it.\n") == []
    # a top-level block keeps an indented fence-like line as its content
    assert _fences("```\nx\n    ```\ny\n```\nprose\n") == ["```\nx\n    ```\ny\n```"]


def test_an_indented_fence_is_not_closed_by_a_fence_outside_its_list_item():
    """Review of free-15: a list item's fence left open took the next top-level fence as its
    closer, hid the prose between as code, and made that block's closer open a block to the end."""
    text = ("- 10:02 the worker logged:\n\n    ```\n    Error: publish deadline exceeded\n\n"
            "## Root cause\n\nThe zorbq queue filled.\n\n```\nstack line\n```\n\n## Action items\n\n- Add an alert\n")
    assert _fences(text) == ["```\nstack line\n```"]
