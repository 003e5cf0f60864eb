from __future__ import annotations

import re

from pmparse.site.highlight import Span, highlight, usable


def _text_of(html: str) -> str:
    import html as html_module

    return html_module.unescape(re.sub(r"<[^>]+>", "", html))


def test_marks_each_span_with_its_field_colour_and_an_anchor():
    text = "The disk failed. We replaced it."
    out = highlight(text, [Span(0, 16, "root_cause", "ev-root_cause-1-1"), Span(17, 32, "remediation", "ev-r-1-1")])
    assert out == ('<span class="anchor" id="ev-root_cause-1-1"></span><mark class="f-root_cause" title="Root cause">'
                   'The disk failed.</mark> <span class="anchor" id="ev-r-1-1"></span>'
                   '<mark class="f-remediation" title="Remediation">We replaced it.</mark>')
    assert _text_of(out) == text


def test_overlapping_spans_are_cut_into_pieces_that_nest_and_the_text_field_wins():
    text = "alpha beta gamma delta"
    spans = [Span(0, 16, "root_cause_categories", "a"), Span(6, 22, "root_cause", "b")]
    out = highlight(text, spans)
    marks = re.findall(r'<mark class="([^"]+)" title="([^"]+)">([^<]*)</mark>', out)
    assert marks == [("f-root_cause_categories", "Root-cause categories", "alpha "),
                     ("f-root_cause", "Root cause, Root-cause categories", "beta gamma"),
                     ("f-root_cause", "Root cause", " delta")]
    assert _text_of(out) == text
    assert out.index('id="b"') < out.index("beta")


def test_a_pending_span_gives_way_to_the_records_and_says_so():
    out = highlight("one two", [Span(0, 7, "symptoms", "p", pending=True), Span(0, 3, "detection", "d")])
    assert '<mark class="f-detection" title="Symptoms, Detection (and a pending suggestion)">one</mark>' in out
    assert '<mark class="f-symptoms pending" title="Symptoms (pending suggestion)"> two</mark>' in out


def test_text_is_escaped_and_spans_outside_it_are_left_out():
    text = "<script>alert(1)</script> & more"
    spans = [Span(0, 8, "symptoms", "x"), Span(5, 99, "trigger", "y"), Span(3, 3, "trigger", "z")]
    inside, outside = usable(spans, len(text))
    assert [s.anchor for s in inside] == ["x"] and [s.anchor for s in outside] == ["y", "z"]
    out = highlight(text, spans)
    assert "<script" not in out and "&lt;script&gt;" in out and "&amp; more" in out
    assert 'id="y"' not in out
    assert _text_of(out) == text


def test_two_stretches_starting_together_get_an_anchor_each():
    out = highlight("same words", [Span(0, 10, "root_cause", "b"), Span(0, 4, "components", "a")])
    assert out.startswith('<span class="anchor" id="a"></span><span class="anchor" id="b"></span>')
