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

#: The pipeline as convert builds it: with the bundled field model when there is one.
CONFIG = pipeline_config()
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

WORDS = st.sampled_from([
    "the", "queue", "stalled", "workers", "idle", "database", "failover", "took", "minutes", "we", "restarted",
    "broker", "alert", "fired", "late", "because", "threshold", "was", "wrong", "customers", "saw", "errors",
    "UTC", "p99", "v2.3.1", "e.g.", "i.e.", "U.S.", "API", "DNS", "café", "东京", "😀", "—", "10:42", "2024-03-05",
    "for 2 hours", "about 45 minutes", "3 March 2024",
])
HEADINGS = st.sampled_from([
    "Summary", "Impact", "Root cause", "Root Cause(s)", "Trigger", "Detection", "Resolution", "Remediation",
    "Action items", "Follow-up", "Lessons learned", "What went well", "Timeline", "Contributing factors",
    "What happened?", "Why did it happen?", "Background", "Appendix",
])
INLINE = st.sampled_from(["", "**", "*", "`", "_", "[", "](", ")", "<b>", "|", "~~"])


@st.composite
def sentence(draw) -> str:
    words = draw(st.lists(WORDS, min_size=1, max_size=14))
    marks = draw(st.lists(INLINE, min_size=len(words), max_size=len(words)))
    text = " ".join(m + w for m, w in zip(marks, words))
    return text + draw(st.sampled_from([".", ".", "!", "?", "", ":", ";", " .", "..."]))


@st.composite
def block(draw) -> str:
    kind = draw(st.sampled_from(["atx", "setext", "bold", "label", "upper", "wiki", "question", "para", "list",
                                 "numbered", "table", "timeline", "fence", "quote", "rule", "blank", "html",
                                 "noise"]))
    heading = draw(HEADINGS)
    para = " ".join(draw(st.lists(sentence(), min_size=1, max_size=4)))
    if kind == "atx":
        return "#" * draw(st.integers(1, 7)) + draw(st.sampled_from([" ", "  ", "\t", ""])) + heading + draw(
            st.sampled_from(["", " #", " ##", "  "]))
    if kind == "setext":
        return heading + "\n" + draw(st.sampled_from(["===", "---", "-", "=========="]))
    if kind == "bold":
        return f"**{heading}**" + draw(st.sampled_from(["", ":", " :"])) + draw(st.sampled_from(["", " " + para]))
    if kind == "label":
        return draw(st.sampled_from(["", "- ", "* "])) + heading + ": " + para
    if kind == "upper":
        return heading.upper()
    if kind == "wiki":
        level = "=" * draw(st.integers(1, 6))
        return f"{level} {heading} {level}"
    if kind == "question":
        return "What " + para.rstrip(".!?") + "?"
    if kind in ("list", "numbered"):
        items = draw(st.lists(sentence(), min_size=1, max_size=5))
        indent = draw(st.sampled_from(["", "  ", "    ", "\t"]))
        marker = "1." if kind == "numbered" else draw(st.sampled_from(["-", "*", "+", "•"]))
        return "\n".join(indent * (i % 2) + f"{marker} {item}" for i, item in enumerate(items))
    if kind == "table":
        rows = draw(st.lists(st.lists(sentence(), min_size=1, max_size=3), min_size=1, max_size=4))
        return "\n".join(["| a | b |", "|---|:--:|"] + ["| " + " | ".join(row) + " |" for row in rows])
    if kind == "timeline":
        return "\n".join(f"{h:02d}:{m:02d} {s}" for h, m, s in draw(
            st.lists(st.tuples(st.integers(0, 23), st.integers(0, 59), sentence()), min_size=1, max_size=4)))
    if kind == "fence":
        return "```\n" + para + draw(st.sampled_from(["\n```", ""]))
    if kind == "quote":
        return "> " + para
    if kind == "rule":
        return draw(st.sampled_from(["---", "***", "___", "- - -", "=" * 40, "-" * 300]))
    if kind == "blank":
        return draw(st.sampled_from(["", " ", "\t", "\u00a0", "\u2028"]))
    if kind == "html":
        return draw(st.sampled_from(["<div>", "</div>", "<br>", "<%= partial 'x' %>", "<!-- note -->"])) + para
    return draw(st.text(min_size=0, max_size=80))


@st.composite
def markdown_document(draw) -> str:
    parts = draw(st.lists(block(), min_size=1, max_size=14))
    separator = draw(st.sampled_from(["\n\n", "\n", "\r\n\r\n", "\r\n"]))
    text = separator.join(parts)
    front = draw(st.sampled_from(["", "---\ntitle: Outage\ndate: 2024-03-05\n---\n", "---\nbroken: [\n---\n",
                                  "---\n- a list\n---\n", "---\n"]))
    return front + text


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
