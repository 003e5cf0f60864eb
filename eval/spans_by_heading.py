"""Where do the team's root-cause spans hurt the field model on gold? A diagnostic, not a gate.

``pmparse train --loso --spans`` lowered root cause on headed gold documents with sources held out
(0.450 to 0.406 with the first round, 0.411 with both) while the development set said the spans
help. One reading was that the gold set's headed reports, whose cause sits under a Root cause
heading, are where they hurt. This script reruns the leave-one-source-out folds of the field model on the headed gold documents,
without and with the spans, and splits the root-cause figure by whether a document has a unit
under a heading the table maps to root cause. It counts non-space characters (close to, not the
same as, the token F1 of ``pmparse eval``).

Run from the repository root with the shared corpus beside it (about 5 minutes)::

    python eval/spans_by_heading.py
"""

from __future__ import annotations

from pmparse.evaluation.corpus import corpus_root
from pmparse.evaluation.gold import default_gold_files, gold_text, load_gold
from pmparse.evaluation.metrics import gold_spans
from pmparse.ingest.read import ingest_bytes
from pmparse.nlp.components.fields import unit_sections
from pmparse.training.field_labels import analyse_structure, build_dataset, structure_pipeline
from pmparse.training.field_loso import _HeldOut, _predict
from pmparse.training.fields import DEFAULT_SETTINGS, GOLD_DIR, fit, gold_paths, training_spans


def characters(text: str, spans) -> set[int]:
    """Offsets of the non-space characters inside ``spans``."""
    return {i for a, b in spans for i in range(a, b) if not text[i].isspace()}


def main() -> None:
    root = corpus_root(None)
    nlp = structure_pipeline()
    exclude = gold_paths(GOLD_DIR, root)
    gold = load_gold(default_gold_files("headed"), root)
    counts: dict[tuple[bool, bool], list[int]] = {}
    for use in (False, True):
        examples = build_dataset(root, exclude, nlp, training_spans(root, exclude) if use else None)
        for source in sorted({d.source for d in gold}):
            model = fit([e for e in examples if e.source != source], 0, DEFAULT_SETTINGS).model
            for g in (d for d in gold if d.source == source):
                text = gold_text(g, root)
                doc = analyse_structure(nlp, ingest_bytes(text.encode("utf-8"), g.path or f"{g.id}.md"))
                headed = any(section == "root_cause" for section, _ in unit_sections(doc))
                item = _HeldOut(g.id, g.source, text, list(g.annotated), gold_spans(g), doc, model,
                                model.raw_probs(doc))
                predicted = characters(text, _predict(item, "pipeline", DEFAULT_SETTINGS).get("root_cause", []))
                wanted = characters(text, item.gold.get("root_cause", []))
                tally = counts.setdefault((headed, use), [0, 0, 0, 0])
                tally[0] += 1
                tally[1] += len(predicted & wanted)
                tally[2] += len(predicted - wanted)
                tally[3] += len(wanted - predicted)
    print("| root-cause section | documents | spans | precision | recall | F1 (characters) |")
    print("|---|---:|---|---:|---:|---:|")
    for headed in (True, False):
        for use in (False, True):
            n, tp, fp, fn = counts[(headed, use)]
            p, r = tp / (tp + fp) if tp + fp else 0.0, tp / (tp + fn) if tp + fn else 0.0
            f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
            print(f"| {'yes' if headed else 'no'} | {n} | {'with' if use else 'without'} | {p:.3f} | {r:.3f} | {f1:.3f} |")


if __name__ == "__main__":
    main()
