"""How far can a model that gives whole units a field go? A diagnostic, not a gate.

The field labeler puts whole units (sentences, list items, table rows, timeline entries) into
fields, and the scorer counts tokens against the annotated stretches, which may cover part of a
sentence or run across several. This script scores, on the gold documents of both variants, the
best any unit labeler could do: every unit given exactly the fields whose gold stretches cover at
least half its tokens (``single``: the one field covering most, as the unit model's labels are
built; ``multi``: every such field). The gap between these figures and the model's is what a
better unit model could still win; the gap between them and 1.0 needs spans inside units.

Run from the repository root with the shared corpus beside it (about a minute)::

    python eval/unit_oracle.py
"""

from __future__ import annotations

import json
import sys

from pmparse.card.schema import TEXT_FIELDS
from pmparse.evaluation.corpus import corpus_root
from pmparse.evaluation.gold import default_gold_files, gold_text, load_gold
from pmparse.evaluation.metrics import score_spans, scoring_view, summarise, token_bounds, token_mask
from pmparse.ingest.read import ingest_bytes
from pmparse.training.field_labels import analyse_structure, structure_pipeline


def oracle_spans(text: str, gold: dict[str, list[tuple[int, int]]], units: list[tuple[int, int]],
                 multi: bool) -> dict[str, list[tuple[int, int]]]:
    """The units each field would get from a perfect unit labeler (see the module docstring)."""
    tokens = token_bounds(text)
    masks = {name: token_mask(tokens, gold.get(name, [])) for name in TEXT_FIELDS}
    out: dict[str, list[tuple[int, int]]] = {}
    for start, end in units:
        inside = token_mask(tokens, [(start, end)])
        size = int(inside.sum())
        if not size:
            continue
        counts = {name: int((mask & inside).sum()) for name, mask in masks.items()}
        chosen = [n for n, c in counts.items() if 2 * c >= size and c]
        if not multi and chosen:
            chosen = [max(chosen, key=counts.get)]
        for name in chosen:
            out.setdefault(name, []).append((start, end))
    return out


def main() -> int:
    root = corpus_root(None)
    nlp = structure_pipeline()
    report = {}
    for variant in ("stripped", "headed"):
        scores = {"single": [], "multi": []}
        for g in load_gold(default_gold_files(variant), root):
            raw = gold_text(g, root)
            ingested = ingest_bytes(raw.encode("utf-8"), g.path or f"{g.id}.md")
            doc = analyse_structure(nlp, ingested)
            text, gold = scoring_view(g, raw, ingested.text if ingested.extracted else None)
            units = [(u.start_char, u.end_char) for u in doc.spans.get("units", [])]
            for kind in scores:
                scores[kind].append(score_spans(g.id, g.source, text, g.annotated, gold,
                                                oracle_spans(text, gold, units, kind == "multi")))
        report[variant] = {}
        for kind, found in scores.items():
            summary = summarise(found, rounds=1)
            report[variant][kind] = {"macro_f1": round(summary["macro_f1"], 3),
                                     "fields": {n: round(v["f1"], 3) for n, v in summary["fields"].items()}}
    json.dump(report, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
