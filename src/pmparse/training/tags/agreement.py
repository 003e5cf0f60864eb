"""Agreement between two passes of the team's category and component labels."""

from __future__ import annotations

from pathlib import Path

from pmparse.errors import UsageError
from pmparse.evaluation.facts import set_scores
from pmparse.nlp.tag_reading import CATEGORY_GROUPS
from pmparse.rules.taxonomy import load_taxonomy
from pmparse.training.tags.labels import (
    COMPONENT_LABELS_DIR,
    LABELS_DIR,
    TeamLabels,
    read_component_labels,
    read_team_labels,
)


def label_agreement(first: TeamLabels, second: TeamLabels) -> dict:
    """How two independent passes of category labels agree, on the documents both labelled.

    The first pass is taken as the reference (agreement is symmetric for set F1 and exact
    match; precision and recall swap).

    Returns:
        ``documents`` and, per category group, set scores (:func:`set_scores`: micro
        precision, recall, F1, per-category F1 and their macro average) plus ``exact``, the
        share of documents given exactly the same categories.
    """
    by_path = {label.path: label for label in first.labels}
    return group_agreement([(by_path[label.path], label) for label in second.labels if label.path in by_path])


def group_agreement(pairs: list) -> dict:
    """``documents`` and, per category group, the set scores of ``(first, second)`` label pairs
    (objects with the groups as attributes) plus ``exact``, the share given the same ids."""
    result: dict = {"documents": len(pairs)}
    for group in CATEGORY_GROUPS:
        sets = [(set(getattr(a, group)), set(getattr(b, group))) for a, b in pairs]
        scores = set_scores(sets)
        scores["exact"] = round(sum(a == b for a, b in sets) / len(sets), 4) if sets else 0.0
        result[group] = scores
    return result


def agreement_markdown(agreement: dict) -> str:
    """The agreement of :func:`label_agreement` as a Markdown table."""
    lines = [f"Agreement of two independent label passes on {agreement['documents']} documents (first pass as reference)",
             "", "| categories | set F1 | macro F1 | same set |", "|---|---|---|---|"]
    for group in CATEGORY_GROUPS:
        g = agreement[group]
        lines.append(f"| {group.replace('_', ' ')} | {g['f1']:.3f} | {g['macro_f1']:.3f} | {g['exact']:.3f} |")
    return "\n".join(lines)


def component_agreement(first: TeamLabels, second: TeamLabels) -> dict:
    """How two independent passes of component labels agree, on the documents both labelled.

    Returns:
        ``documents`` and ``components``: set scores (:func:`set_scores`) with the first pass as
        reference, plus ``exact``, the share of documents given exactly the same components.
    """
    by_path = {label.path: label for label in first.labels}
    sets = [(set(by_path[label.path].components), set(label.components))
            for label in second.labels if label.path in by_path]
    scores = set_scores(sets)
    scores["exact"] = round(sum(a == b for a, b in sets) / len(sets), 4) if sets else 0.0
    return {"documents": len(sets), "components": scores}


def component_agreement_markdown(agreement: dict) -> str:
    """The agreement of :func:`component_agreement` as a Markdown table."""
    g = agreement["components"]
    return "\n".join([f"Agreement of two independent component label passes on {agreement['documents']} documents "
                      "(first pass as reference)", "", "| tags | set F1 | macro F1 | same set |", "|---|---|---|---|",
                      f"| components | {g['f1']:.3f} | {g['macro_f1']:.3f} | {g['exact']:.3f} |"])


def pass_agreement(second_pass: Path, label_files: list[Path] | None, taxonomy_path: str | None,
                  components: bool = False) -> dict:
    """A second pass of labels against the team's first pass (``label_agreement`` or
    ``component_agreement``, which give its shape).

    Args:
        second_pass: The second pass's label file.
        label_files: The first pass; the committed category (or component) label files when None.
        taxonomy_path: A taxonomy file extending or replacing the packaged one.
        components: Compare component labels instead of category labels.

    Raises:
        LabelError: a line of either pass is invalid.
        UsageError: no document is labelled in both passes (a wrong file, not a total disagreement).
    """
    taxonomy = load_taxonomy(taxonomy_path)
    if components:
        first = read_component_labels(label_files or sorted(COMPONENT_LABELS_DIR.glob("*.jsonl")), taxonomy)
        agreement = component_agreement(first, read_component_labels([second_pass], taxonomy))
    else:
        first = read_team_labels(label_files or sorted(LABELS_DIR.glob("*.jsonl")), taxonomy)
        agreement = label_agreement(first, read_team_labels([second_pass], taxonomy))
    if not agreement["documents"]:
        raise UsageError(f"expected documents labelled in both passes, found none in {second_pass}")
    return agreement
