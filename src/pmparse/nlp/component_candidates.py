"""Component tags: the candidate components a text names, where, and which of them the card keeps."""

from __future__ import annotations

import bisect
import itertools

import numpy as np
from spacy.tokens import Doc

from pmparse.nlp.lines import doc_text
from pmparse.nlp.tag_reading import Matchers, summary_regions

#: Weight of a component mention by where it stands.
REGION_WEIGHTS = {
    "title": 1.5,
    "trigger": 1.0,
    "root_cause": 1.0,
    "symptoms": 0.7,
    "summary": 0.5,
    "contributing_factors": 0.5,
    "remediation": 0.4,
    "detection": 0.25,
}


def score_components(matches: list[tuple[str, int, int]], regions: dict[str, list[tuple[int, int]]],
                     weights: dict[str, float] = REGION_WEIGHTS) -> dict[str, tuple[float, list[tuple[int, int]]]]:
    """Add up where each component is named.

    Args:
        matches: ``(group.id, start, end)`` of component matches.
        regions: Region name (``title``, ``summary`` or a field) -> offsets.
        weights: Weight of a match by region; a match in no weighted region counts nothing.

    Returns:
        ``group.id`` -> ``(score, evidence)`` for components named in a weighted region. Each
        region stretch (a unit, the title) counts once per component, with the heaviest weight of
        the regions holding the match.
    """
    scores: dict[str, tuple[float, list[tuple[int, int]]]] = {}
    seen: set[tuple[str, int, int]] = set()
    for key, start, end in matches:
        weight, holder = 0.0, None
        for name, spans in regions.items():
            if name not in weights or weights[name] <= weight:
                continue
            for s, e in spans:
                if s <= start and end <= e:
                    weight, holder = weights[name], (s, e)
                    break
        if weight <= 0 or holder is None:
            continue
        score, evidence = scores.get(key, (0.0, []))
        if (key, *holder) in seen:
            scores[key] = (score, evidence + [(start, end)])
            continue
        seen.add((key, *holder))
        scores[key] = (score + weight, evidence + [(start, end)])
    return scores


def keep_components(scores: dict[str, tuple[float, list]], threshold: float, relative: float) -> list[str]:
    """Components whose score reaches ``threshold`` and ``relative`` times the best score."""
    if not scores:
        return []
    best = max(score for score, _ in scores.values())
    return sorted(k for k, (score, _) in scores.items() if score >= threshold and score >= relative * best)

#: Regions a component candidate's mentions are counted in, for the component model.
CANDIDATE_REGIONS = ("title", "trigger", "root_cause", "symptoms", "summary", "contributing_factors", "remediation",
                     "detection", "other")


class _Containment:
    """Whether any of a list of spans holds a given span: a binary search, not a scan of the list."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        ordered = sorted(spans)
        self.starts = [s for s, _ in ordered]
        self.reach = list(itertools.accumulate((e for _, e in ordered), max))  # furthest end of the first k

    def holds(self, start: int, end: int) -> bool:
        k = bisect.bisect_right(self.starts, start)  # the spans starting at or before ``start``
        return bool(k) and self.reach[k - 1] >= end


def component_candidates(doc: Doc, matchers: Matchers, matches: list[tuple[str, int, int]] | None = None,
                         regions: dict[str, list[tuple[int, int]]] | None = None
                         ) -> dict[str, tuple[np.ndarray, list[tuple[int, int]], float]]:
    """Every component named in ``doc``, with its mention counts per region and its evidence.

    Returns:
        ``group.id`` -> ``(counts, evidence, first)``; ``counts`` has one entry per
        :data:`CANDIDATE_REGIONS` (a mention counts in every region holding it, ``other`` when in
        none) and the total last. Evidence is the mentions inside a region other than ``other``.
        ``first`` is where the first mention stands, as a share of the text (0 at its start).
    """
    if "components" not in matchers.groups:
        return {}
    regions = component_regions(doc) if regions is None else regions
    found: dict[str, tuple[np.ndarray, list[tuple[int, int]]]] = {}
    first: dict[str, int] = {}
    if matches is None:
        matches = matchers.matches(doc, "components")
    holders = [_Containment(regions.get(name, [])) for name in CANDIDATE_REGIONS[:-1]]
    for key, start, end in matches:
        first[key] = min(start, first.get(key, start))
        counts, evidence = found.setdefault(key, (np.zeros(len(CANDIDATE_REGIONS) + 1), []))
        held = False
        for i, holder in enumerate(holders):
            if holder.holds(start, end):
                counts[i] += 1
                held = True
        if held:
            evidence.append((start, end))
        else:
            counts[len(CANDIDATE_REGIONS) - 1] += 1
        counts[-1] += 1
    length = max(1, len(doc_text(doc)))
    return {key: (counts, evidence, first[key] / length) for key, (counts, evidence) in found.items()}


def candidate_width(ids: list[str], first_mention: bool = False) -> int:
    """Width of a component model row (:func:`candidate_rows`)."""
    return len(CANDIDATE_REGIONS) + 2 + len(ids) + int(first_mention)


def candidate_rows(candidates: dict[str, tuple], ids: list[str],
                   first_mention: bool = False) -> tuple[list[str], np.ndarray]:
    """Component model input: log counts per region, share of the most named component, id one-hot,
    and with ``first_mention`` where the component is first named (share of the text)."""
    keys = sorted(candidates)
    if not keys:
        return [], np.zeros((0, candidate_width(ids, first_mention)))
    best = max(candidates[k][0][-1] for k in keys)
    rows = []
    for key in keys:
        counts = candidates[key][0]
        taxon = key.split(".", 1)[1]
        rows.append(list(np.log1p(counts)) + [counts[-1] / best] + [1.0 if taxon == i else 0.0 for i in ids]
                    + ([candidates[key][2]] if first_mention else []))
    return keys, np.array(rows, dtype=float)


def component_regions(doc: Doc) -> dict[str, list[tuple[int, int]]]:
    """Where a component mention says it was involved: title, summary and field units."""
    regions: dict[str, list[tuple[int, int]]] = {"title": [], "summary": summary_regions(doc)}
    title = doc.user_data.get("pmparse_facts", {}).get("source_title")
    if title:
        regions["title"] = [tuple(e) for e in title.get("evidence", [])]
    if "fields" in doc.spans:
        for span in doc.spans["fields"]:
            regions.setdefault(span.label_, []).append((span.start_char, span.end_char))
    return regions
