"""Where the field model's held-out figures come from: by writing style, by heading, by source group.

A pooled macro F1 hides the gap issue 34 is about: templated reports score well, free-form ones
(blog posts, disclosures, engineer logs) poorly, and in free-form reports the words under a
heading the table does not know score worst. These pure functions split the leave-one-source-out
counts (:mod:`pmparse.training.field_loso` gathers them) three ways:

* :func:`style_f1`: per-field token F1 and macro F1 of templated and free-form sources apart
  (``style`` in ``corpus/manifest.yaml``);
* :func:`heading_status` and :func:`status_counts`: every token of a headed document is under a
  heading the table knows (its section, or an enclosing one, maps to a field or to ``none``),
  under a heading it does not know (``unknown``), or under no heading (the preamble); F1 is then
  counted per status on the tokens of that status only;
* :func:`group_calibration`: expected calibration error and precision at 0.8 per hold-out group
  of at least five documents and per style, on the cross-fitted confidences of the items kept.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from pmparse.card.schema import TEXT_FIELDS
from pmparse.evaluation.metrics import prf

#: Token heading statuses (the index is the code :func:`heading_status` writes).
STATUSES = ("no_heading", "known_heading", "unknown_heading")

#: A hold-out group gets its own calibration figures from this many held-out documents on.
MIN_GROUP_DOCUMENTS = 5

Counts = dict[str, list[int]]


def add_counts(total: Counts, counts: dict[str, tuple[int, int, int]] | Counts) -> None:
    """Add one document's ``(tp, fp, fn)`` per field into ``total``."""
    for name, c in counts.items():
        row = total.setdefault(name, [0, 0, 0])
        for k in range(3):
            row[k] += int(c[k])


def f1_table(total: Counts, only_gold: bool = False) -> dict[str, float]:
    """Per-field token F1 of summed counts and their ``macro_f1`` over the fields some document
    annotates (all eight on the gold set: a development file may annotate one field alone, as
    :func:`pmparse.evaluation.metrics.summarise` averages); with ``only_gold``, over the fields
    with gold tokens (a bucket of tokens, such as those under unknown headings, may hold no
    lessons at all: a zero there says nothing)."""
    f1 = {name: prf(*total.get(name, (0, 0, 0)))[2] for name in TEXT_FIELDS}
    # a field no document annotates has no counts: eight-field averages of a root-cause
    # development file read 0.044 for a root-cause F1 of 0.349
    kept = [name for name in TEXT_FIELDS if name in total
            and (not only_gold or (total[name][0] + total[name][2]))]
    f1["macro_f1"] = float(np.mean([f1[name] for name in kept])) if kept else 0.0
    return f1


def style_f1(doc_counts: Iterable[tuple[str, dict[str, tuple[int, int, int]]]],
             style_of: dict[str, str]) -> dict[str, dict]:
    """Per style, the documents and per-field F1 (macro over the annotated fields) of
    ``(source, counts)`` pairs; a source the manifest does not list counts as templated."""
    totals: dict[str, Counts] = {}
    documents: dict[str, int] = {}
    for source, counts in doc_counts:
        style = style_of.get(source, "templated")
        add_counts(totals.setdefault(style, {}), counts)
        documents[style] = documents.get(style, 0) + 1
    return {style: {"documents": documents[style], **f1_table(totals[style])} for style in sorted(totals)}


def heading_status(tokens: np.ndarray, sections: list[tuple[int, int, str, float]],
                   learned: list[tuple[int, int]] = ()) -> np.ndarray:
    """For each token (``[start, end]`` rows), the index in :data:`STATUSES` of the heading it is under.

    ``sections`` are the sectionizer's ``(start, end, label, confidence)`` in document order; they
    nest, and a later section overrides the one enclosing it, so a token takes its innermost
    section. A heading the table does not know inside a known section passes that section's label
    on (the sectionizer's rule), so it counts as known: the table is what read it. ``learned``:
    the extents of sections the heading model mapped (``pmparse_learned_sections``): the table did
    not know their headings, so they count as unknown, whatever field the model gave them.
    """
    status = np.zeros(len(tokens), dtype=np.int8)
    starts = tokens[:, 0] if len(tokens) else np.zeros(0)
    for start, end, label, _ in sections:
        lo, hi = np.searchsorted(starts, start, side="left"), np.searchsorted(starts, end, side="left")
        status[lo:hi] = 0 if label == "preamble" else 2 if label == "unknown" else 1
    for start, end in learned:
        status[np.searchsorted(starts, start, side="left"):np.searchsorted(starts, end, side="left")] = 2
    return status


def status_counts(gold: dict[str, np.ndarray], predicted: dict[str, np.ndarray], status: np.ndarray) -> dict[str, Counts]:
    """Per heading status, per field ``[tp, fp, fn]`` counted on the tokens of that status only
    (``gold`` and ``predicted``: token masks per field)."""
    result: dict[str, Counts] = {}
    for code, name in enumerate(STATUSES):
        inside = status == code
        result[name] = {}
        for field in TEXT_FIELDS:
            g = gold[field] & inside
            p = predicted[field] & inside
            result[name][field] = [int((g & p).sum()), int((~g & p).sum()), int((g & ~p).sum())]
    return result


def status_f1(per_doc: Iterable[dict[str, Counts]], gold_tokens: Iterable[np.ndarray]) -> dict[str, dict]:
    """Per heading status, the summed counts' F1 (macro over the fields with gold tokens there),
    the gold tokens and the share of all gold tokens under that status."""
    totals = {name: {} for name in STATUSES}
    words = dict.fromkeys(STATUSES, 0)
    for counts, gold_status in zip(per_doc, gold_tokens):
        for name in STATUSES:
            add_counts(totals[name], counts[name])
        for code, name in enumerate(STATUSES):
            words[name] += int((gold_status == code).sum())
    all_words = sum(words.values()) or 1
    return {name: {"gold_tokens": words[name], "share": round(words[name] / all_words, 3),
                   **f1_table(totals[name], only_gold=True)} for name in STATUSES}


def group_calibration(pairs: list[tuple[str, float, bool]], documents: dict[str, int], style_of_group: dict[str, str],
                      min_documents: int = MIN_GROUP_DOCUMENTS) -> dict[str, dict]:
    """Calibration figures per hold-out group of at least ``min_documents`` documents and per style.

    Args:
        pairs: ``(group, confidence, right)`` of each item kept, confidences cross-fitted.
        documents: Held-out documents per group.
        style_of_group: Each group's style.
    """
    from pmparse.training.field_calibration import calibration_figures

    def figures(chosen: list[tuple[str, float, bool]]) -> dict:
        found = calibration_figures(np.array([p[1] for p in chosen]), np.array([p[2] for p in chosen]))
        found.pop("bands", None)
        return found

    result: dict[str, dict] = {"groups": {}, "styles": {}}
    for group in sorted(documents):
        chosen = [p for p in pairs if p[0] == group]
        if documents[group] >= min_documents and chosen:
            result["groups"][group] = {"documents": documents[group], **figures(chosen)}
    for style in sorted(set(style_of_group.values())):
        chosen = [p for p in pairs if style_of_group.get(p[0]) == style]
        if chosen:
            result["styles"][style] = figures(chosen)
    return result


def breakdown_markdown(breakdown: dict) -> str:
    """The style, heading and per-group calibration tables of a report's ``breakdown``."""
    lines = ["Macro F1 by writing style (held out):", "", "| variant | style | documents | macro F1 |",
             "|---|---|---:|---:|"]
    for variant, styles in breakdown["styles"].items():
        for style, f in styles.items():
            lines.append(f"| {variant} | {style} | {f['documents']} | {f['macro_f1']:.3f} |")
    lines += ["", "Free-form documents (headed), by the heading the words are under (macro over fields with gold "
              "words there):", "", "| words under | gold words | share | macro F1 |", "|---|---:|---:|---:|"]
    for status, f in breakdown["free_form_headings"].items():
        lines.append(f"| {status.replace('_', ' ')} | {f['gold_tokens']} | {f['share']:.2f} | {f['macro_f1']:.3f} |")
    lines += ["", f"Calibration per hold-out group of {MIN_GROUP_DOCUMENTS}+ documents and per style (items kept, "
              "cross-fitted):", "", "| variant | group | documents | items | ECE | precision at 0.8 | items at 0.8 |",
              "|---|---|---:|---:|---:|---:|---:|"]
    for variant, found in breakdown["calibration"].items():
        rows = [(g, f.get("documents", "")) for g, f in found["groups"].items()]
        rows += [(s, "") for s in found["styles"]]
        for name, docs in rows:
            f = found["groups"].get(name) or found["styles"][name]
            precision = f.get("precision_at_0.8")
            lines.append(f"| {variant} | {name} | {docs} | {f['units']} | {f['ece']:.3f} | "
                         f"{'-' if precision is None else f'{precision:.3f}'} | {f.get('units_at_0.8', 0)} |")
    return "\n".join(lines)
