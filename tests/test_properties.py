"""Property-based tests: any text through ingest and the whole pipeline keeps offsets valid.

Hypothesis feeds random Unicode and random markdown-like documents (headings of every shape,
known field headings, lists, tables, timelines, front matter, code fences, HTML) through
``ingest_bytes`` and the pipeline. Nothing may raise except the documented input errors, and
every item's evidence must spell its text (``assert_offsets``).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pmparse.card.build import build_card
from pmparse.errors import InputError
from pmparse.ingest.read import ingest_bytes
from pmparse.nlp.pipeline import analyse, get, pipeline_config, version_info
from pmparse.nlp.tokenizer import GuardedTokenizer, risky_runs
from tests.helpers import assert_offsets
from tests.strategies import markdown_document

#: The pipeline as convert builds it: with the bundled field model when there is one.
CONFIG = pipeline_config()
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _convert(text: str, name: str):
    try:
        source = ingest_bytes(text.encode("utf-8"), name)
    except InputError:
        return None  # empty, binary or undecodable input: refused with a message, by design
    nlp = get(CONFIG)
    doc = analyse(nlp, source)
    assert doc.text == source.text
    card = build_card(doc, source, "IL-0001", version_info(nlp))
    assert_offsets(card, source.text)
    return card


@SETTINGS
@given(text=st.text(max_size=400), name=st.sampled_from(["x.md", "x.txt", "x"]))
def test_random_unicode_never_breaks_the_pipeline(text, name):
    _convert(text, name)


@SETTINGS
@given(text=markdown_document(), name=st.sampled_from(["x.md", "x.txt"]))
def test_markdown_like_documents_keep_valid_offsets(text, name):
    _convert(text, name)


@SETTINGS
@given(text=markdown_document())
def test_markdown_as_html_keeps_valid_offsets(text):
    html = "<html><body><article>" + "".join(f"<p>{line}</p>" for line in text.splitlines()) + "</article></body></html>"
    _convert(html, "x.html")


@SETTINGS
@given(text=st.text(alphabet=st.sampled_from(list(" \t\n=*#-|:.()'\"ab1é😀")), max_size=600))
def test_the_guarded_tokenizer_keeps_the_text_and_spacys_tokens(text):
    guarded = get(CONFIG).tokenizer
    assert isinstance(guarded, GuardedTokenizer)
    doc = guarded(text)
    assert doc.text == text
    if not risky_runs(text):
        assert [t.text for t in doc] == [t.text for t in guarded.tokenizer(text)]
    for start, end in risky_runs(text):
        # a guarded run is never split by spaCy's affix rules: it lies inside one token
        assert doc.char_span(start, end, alignment_mode="expand") is not None
        assert len(doc.char_span(start, end, alignment_mode="expand")) == 1
