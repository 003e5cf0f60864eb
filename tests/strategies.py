"""Hypothesis strategies of markdown-like documents (headings of every shape, known field headings,
lists, tables, timelines, front matter, code fences, HTML) made of words written for these tests:
shared by the property tests of the pipeline and of convert."""

from __future__ import annotations

from hypothesis import strategies as st

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
