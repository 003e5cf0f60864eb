"""Train the heading model (:mod:`pmparse.nlp.heading_model`) from annotated training documents.

What a heading means is read off what annotators marked under it: each heading of an annotated
training document (gold documents never) is counted with the labels of the units it is the
nearest heading of (:func:`heading_label_counts`). The same normalised heading across documents
is one training text (:func:`heading_rows`): a row per label it was seen with, weighted by that
label's share of its units, times ``1 + log(documents)`` so that a template's heading repeated
over a hundred reports does not drown the one-off headings of free-form writing, which are the
ones the model is for. A softmax over hashed word 1-2-grams and character 2-5-grams (tf-idf) is
fitted on them and exported to numpy.
"""

from __future__ import annotations

import bisect
import math
from collections import Counter, defaultdict
from typing import Iterable

import numpy as np

from pmparse.nlp.heading_model import HeadingModel
from pmparse.rules.headings import normalise_heading

#: Inverse regularisation of the heading softmax and the model's least confidence, chosen by
#: grouped cross-validation over the training documents' headings (``pmparse.training.heading_model``,
#: :func:`heading_cv`; see the field model card).
HEADING_C = 4.0
MIN_CONFIDENCE = 0.5


def heading_label_counts(doc, offsets: list[tuple[int, int]], labels: list[list[str]]) -> list[tuple[str, dict[str, int]]]:
    """Each heading of ``doc`` (``doc.spans["headings"]``) with the labels of the units it is the
    nearest heading before (a heading with no unit under it is left out).

    Args:
        doc: A Doc the sectionizer and unit splitter ran on.
        offsets: ``(start, end)`` of each unit.
        labels: The labels of each unit (a unit of two fields counts for both).
    """
    headings = sorted((span.start_char, span.text) for span in doc.spans.get("headings", []))
    starts = [start for start, _ in headings]
    counts: dict[int, Counter] = defaultdict(Counter)
    for (start, _), found in zip(offsets, labels):
        i = bisect.bisect_right(starts, start) - 1
        if i >= 0:
            counts[i].update(found)
    return [(headings[i][1], dict(counts[i])) for i in sorted(counts)]


def heading_rows(pairs: Iterable[tuple[str, dict[str, int]]]) -> tuple[list[str], list[str], list[float]]:
    """Training rows ``(normalised headings, labels, weights)`` of ``(heading, label counts)`` pairs
    (see the module docstring); a heading that normalises to nothing is left out."""
    totals: dict[str, Counter] = defaultdict(Counter)
    documents: Counter = Counter()
    for heading, counts in pairs:
        norm = normalise_heading(heading)
        if not norm or not counts:
            continue
        totals[norm].update(counts)
        documents[norm] += 1
    texts, labels, weights = [], [], []
    for norm in sorted(totals):
        n = sum(totals[norm].values())
        scale = 1.0 + math.log(documents[norm])
        for label, count in sorted(totals[norm].items()):
            texts.append(norm)
            labels.append(label)
            weights.append(scale * count / n)
    return texts, labels, weights


def _estimator(seed: int, c: float):
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline

    from pmparse.training.hashing import hashed

    features = ColumnTransformer([
        ("words", hashed(ngram_range=(1, 2), n_features=2**12), 0),
        ("chars", hashed(analyzer="char_wb", ngram_range=(2, 5), n_features=2**13), 0),
    ])
    return Pipeline([("features", features),
                     ("classifier", LogisticRegression(C=c, max_iter=3000, random_state=seed))])


def fit_heading_model(pairs: Iterable[tuple[str, dict[str, int]]], seed: int = 0, c: float = HEADING_C,
                      min_confidence: float = MIN_CONFIDENCE) -> HeadingModel | None:
    """The heading model fitted on ``(heading, label counts)`` pairs; None with fewer than two labels."""
    from threadpoolctl import threadpool_limits

    from pmparse.nlp.linear import TextClassifier
    from pmparse.training.export import check_export, export_features, export_softmax

    texts, labels, weights = heading_rows(pairs)
    if len(set(labels)) < 2:
        return None
    estimator = _estimator(seed, c)
    rows = np.array([[t] for t in texts], dtype=object)
    with threadpool_limits(1):
        estimator.fit(rows, np.array(labels), classifier__sample_weight=np.array(weights))
    exported = TextClassifier(export_features(estimator.named_steps["features"]),
                              export_softmax(estimator.named_steps["classifier"]))
    probe = [(t,) for t in sorted(set(texts))[:: max(1, len(set(texts)) // 200)]]
    check_export(estimator.predict_proba(np.array(probe, dtype=object)), exported.predict_proba(probe), "heading model")
    about = {"headings": len(set(texts)), "rows": len(texts), "c": c, "seed": seed}
    return HeadingModel(exported, min_confidence, about)


def examples_headings(examples) -> list[tuple[str, dict[str, int]]]:
    """The ``(heading, label counts)`` pairs of training documents (:class:`DocExamples`)."""
    return [pair for example in examples for pair in getattr(example, "headings", [])]


def heading_cv(examples, group_of: dict[str, str], cs: tuple[float, ...] = (1.0, 4.0, 16.0),
               thresholds: tuple[float, ...] = (0.3, 0.4, 0.5, 0.6, 0.7), seed: int = 0) -> list[dict]:
    """Grouped cross-validation of the heading model on training documents' headings (no gold).

    Each hold-out group's headings that the table does not know are read by a model fitted on the
    other groups' headings. A heading mapped to field ``f`` is right on the units annotated ``f``
    under it; precision is right units over the units under mapped headings, recall right units
    over the field units under every unknown heading of the group.

    Returns:
        One row per ``(c, threshold)``: ``precision``, ``recall``, ``f1``, ``mapped_headings``.
    """
    from pmparse.card.schema import TEXT_FIELDS
    from pmparse.rules.headings import load_headings

    table = load_headings()
    by_group: dict[str, list] = defaultdict(list)
    for example in examples:
        by_group[group_of.get(example.source, example.source)].extend(getattr(example, "headings", []))
    rows = []
    for c in cs:
        tallies = {t: [0, 0, 0, 0] for t in thresholds}  # right, mapped units, field units, mapped headings
        for group, pairs in by_group.items():
            unknown = [(h, counts) for h, counts in pairs if table.lookup(h) is None and normalise_heading(h)]
            if not unknown:
                continue
            model = fit_heading_model([p for g, ps in by_group.items() if g != group for p in ps], seed, c, 0.0)
            probs = model.probabilities([h for h, _ in unknown])
            for (_, counts), row in zip(unknown, probs):
                best = int(np.argmax(row))
                label = model.classes[best]
                for t, tally in tallies.items():
                    tally[2] += sum(n for name, n in counts.items() if name in TEXT_FIELDS)
                    if label in TEXT_FIELDS and row[best] >= t:
                        tally[0] += counts.get(label, 0)
                        tally[1] += sum(counts.values())
                        tally[3] += 1
        for t, (right, mapped, field_units, headings) in tallies.items():
            p = right / mapped if mapped else 0.0
            r = right / field_units if field_units else 0.0
            rows.append({"c": c, "threshold": t, "precision": round(p, 3), "recall": round(r, 3),
                         "f1": round(2 * p * r / (p + r), 3) if p + r else 0.0, "mapped_headings": headings})
    return rows
