"""Carrying page offsets over to extracted text (pmparse.ingest.align)."""

from pmparse.evaluation.gold import GoldDoc
from pmparse.evaluation.metrics import score_spans, scoring_view
from pmparse.ingest.align import project_spans, visible, word_anchors
from pmparse.ingest.read import ingest_bytes
from pmparse.util import sha256_text

PAGE = """<html><head><title>Queue stall</title><style>p { color: red; }</style></head>
<body><nav>Home | Blog | Stall</nav>
<article><h1>Queue stall</h1>
<p>The <b>worker queue</b> stopped draining at noon &amp; jobs piled up for an hour.</p>
<!-- an editor's note about the stall -->
<p>An expired token on the broker was the cause; we rotated it and the queue drained.</p>
</article></body></html>
"""


def _span(page: str, phrase: str) -> tuple[int, int]:
    start = page.index(phrase)
    return start, start + len(phrase)


def test_visible_blanks_markup_and_keeps_offsets():
    shown = visible(PAGE)
    assert len(shown) == len(PAGE)
    assert "<b>" not in shown and "color" not in shown and "editor" not in shown
    assert shown[PAGE.index("worker")] == "w"


def test_words_are_found_in_order_past_dropped_boilerplate():
    extracted = "Queue stall\n\nThe worker queue stopped draining at noon & jobs piled up for an hour."
    anchors = word_anchors(PAGE, extracted)
    assert [extracted[a:b] for a, b, _ in anchors][:3] == ["Queue", "stall", "The"]
    # "stall" of the nav bar precedes the heading's, and the anchors must still be in page order
    at = [raw for _, _, raw in anchors]
    assert at == sorted(at)
    assert PAGE[at[2]:at[2] + 3] == "The"


def test_a_stretch_across_inline_tags_and_entities_is_carried_over():
    extracted = ("Queue stall\n\nThe worker queue stopped draining at noon & jobs piled up for an hour.\n\n"
                 "An expired token on the broker was the cause; we rotated it and the queue drained.")
    cause = _span(PAGE, "An expired token on the broker was the cause")
    symptom = _span(PAGE, "The <b>worker queue</b> stopped draining at noon &amp; jobs piled up for an hour.")
    out = project_spans(PAGE, extracted, {"root_cause": [cause], "symptoms": [symptom], "lessons": [(0, 5)]})
    (a, b), = out["root_cause"]
    assert extracted[a:b] == "An expired token on the broker was the cause"
    (a, b), = out["symptoms"]
    assert extracted[a:b] == "The worker queue stopped draining at noon & jobs piled up for an hour"
    assert out["lessons"] == []  # no extracted word lies there


def test_an_html_gold_document_is_scored_on_the_text_the_pipeline_read():
    cause = _span(PAGE, "An expired token on the broker was the cause")
    doc = GoldDoc(id="mine/stall", path="mine/stall.html", sha256=sha256_text(PAGE), annotated=["root_cause"],
                  spans=[{"field": "root_cause", "start": cause[0], "end": cause[1]}])
    source = ingest_bytes(PAGE.encode("utf-8"), "mine/stall.html")
    assert source.extracted
    text, spans = scoring_view(doc, PAGE, source.text)
    assert text == source.text
    (a, b), = spans["root_cause"]
    assert text[a:b] == "An expired token on the broker was the cause"
    # a prediction of exactly that stretch of the extracted text is a perfect score
    score = score_spans(doc.id, doc.source, text, doc.annotated, spans, {"root_cause": [(a, b)]})
    tp, fp, fn = score.counts["root_cause"]
    assert tp > 0 and fp == 0 and fn == 0


def test_a_file_read_as_it_is_keeps_its_offsets():
    text = "The queue stalled. A token had expired."
    doc = GoldDoc(id="mine/q", path="mine/q.md", sha256=sha256_text(text), annotated=["root_cause"],
                  spans=[{"field": "root_cause", "start": 19, "end": 39}])
    assert scoring_view(doc, text, None) == (text, {"root_cause": [(19, 39)]})
