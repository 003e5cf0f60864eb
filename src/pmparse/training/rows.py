"""The labelled rows a field model is fitted on, shared by training and by its curvature."""

from __future__ import annotations


def training_rows(examples, with_sources: bool = False) -> tuple:
    """``(rows, labels, weights)`` of the labelled units of ``examples``, each (text, label) pair once.

    With ``with_sources``, a fourth list gives the source of each row (the first document that
    holds it).
    """
    rows, labels, weights, sources, seen = [], [], [], [], set()
    for example in examples:
        for row, label in zip(example.rows, example.labels):
            if label is None or (row[0], label[0]) in seen:
                continue
            seen.add((row[0], label[0]))
            rows.append(row)
            labels.append(label[0])
            weights.append(label[1])
            sources.append(example.source)
    return (rows, labels, weights, sources) if with_sources else (rows, labels, weights)
