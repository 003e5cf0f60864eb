"""Experiment, finished and not kept (field model card, "Tried and not kept"): a per-field item budget
applied after the field labeler, measured on the shipped leave-one-source-out recipe's held-out
documents (annotated labels, written postmortems at weight 1, heading model, cross-fitted
calibration). Run: PYTHONPATH=src python eval/item_budget.py > budget.jsonl (about 20 minutes on a
loaded 2-core machine)."""
import json, math, sys, time
from pathlib import Path
import numpy as np

from pmparse.evaluation.corpus import corpus_root, source_styles
from pmparse.training import field_loso as fl
from pmparse.training.field_breakdown import style_f1
from pmparse.nlp.components.fields import unit_sections
from pmparse.card.schema import TEXT_FIELDS

root = corpus_root(None)
captured = {}
t = time.time()
report = fl.leave_one_source_out(root, fl.GOLD_DIR, 0, fl.DEFAULT_SETTINGS, 50, labels="annotated",
                                 calibrate=True, written=1.0, heading_model=True,
                                 on_held_out=lambda h: captured.update(h),
                                 progress=lambda m: print(m, file=sys.stderr, flush=True))
print("loso seconds", round(time.time() - t), file=sys.stderr)
settings = fl.DEFAULT_SETTINGS.replaced(threshold=report["calibration"]["threshold"])
print("threshold", settings.threshold, "reported stripped", report["stripped"]["pipeline"]["macro_f1"],
      "headed", report["headed"]["pipeline"]["macro_f1"])
style_of = source_styles()
original_spans = fl._spans
RULE = {"kind": None}


def budgeted(doc):
    spans = original_spans(doc)
    kind = RULE["kind"]
    if kind is None:
        return spans
    group = doc.spans.get("fields", [])
    scores = group.attrs["scores"] if len(group) else []
    units = list(doc.spans["units"])
    sections = unit_sections(doc)
    starts = [u.start_char for u in units]
    import bisect
    by_field = {}
    for span, score in zip(group, scores):
        i = bisect.bisect_right(starts, span.start_char) - 1
        label = sections[i][0] if 0 <= i < len(sections) else None
        headed = label in TEXT_FIELDS  # a heading maps the unit's section to a field
        by_field.setdefault(span.label_, []).append(((span.start_char, span.end_char), float(score), headed))
    n_units = max(1, len(units))
    out = {}
    for field, items in by_field.items():
        capped = [it for it in items if not (RULE.get("unheaded_only") and it[2])]
        free = [it for it in items if RULE.get("unheaded_only") and it[2]]
        if kind == "topk":
            k = RULE["k"]
        elif kind == "share":
            k = max(RULE["min"], math.ceil(RULE["share"] * n_units))
        elif kind == "rel":
            top = max((it[1] for it in capped), default=0)
            capped = [it for it in capped if it[1] >= RULE["rel"] * top]
            k = len(capped)
        capped = sorted(capped, key=lambda it: -it[1])[:k]
        out[field] = sorted([it[0] for it in capped + free])
    return out


fl._spans = budgeted


def measure(name):
    row = {"rule": name}
    for variant, items in captured.items():
        scores = fl._scores(items, "pipeline", settings)
        f1 = fl._field_f1(scores)
        styles = style_f1(((s.source, s.counts) for s in scores), style_of)
        row[variant] = round(f1["macro_f1"], 4)
        for style, v in styles.items():
            row[f"{variant}:{style}"] = round(v["macro_f1"], 4)
        row[f"{variant}:fields"] = {k: round(v, 3) for k, v in f1.items() if k != "macro_f1" and isinstance(v, float)}
    print(json.dumps(row), flush=True)


RULE.clear(); RULE["kind"] = None
measure("shipped")
for unheaded in (False, True):
    for k in (2, 3, 4, 6, 10):
        RULE.clear(); RULE.update(kind="topk", k=k, unheaded_only=unheaded); measure(f"top{k}{'-unheaded' if unheaded else ''}")
    for share in (0.05, 0.1, 0.2):
        RULE.clear(); RULE.update(kind="share", share=share, min=2, unheaded_only=unheaded); measure(f"share{share}{'-unheaded' if unheaded else ''}")
    for rel in (0.5, 0.7, 0.85):
        RULE.clear(); RULE.update(kind="rel", rel=rel, unheaded_only=unheaded); measure(f"rel{rel}{'-unheaded' if unheaded else ''}")
