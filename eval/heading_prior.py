"""Experiment, finished and not kept (field model card, "Tried and not kept"; docs/history.md,
"A heading names a family of fields"): a heading names a family of fields, learned, not one field.

Under a heading the table (or heading model) maps to field h, the labeler today adds
heading_weight * conf to h alone. Here it adds heading_weight * conf * M[h][f] / max_f M[h][f] to
every field f, M[h][f] the share of units under h-mapped headings whose gold field is f, counted on
the held-out gold documents of the OTHER hold-out groups (nested by group). Same folds,
calibration and threshold search as `pmparse train --loso` (shipped recipe).
Run: PYTHONPATH=src python eval/heading_prior.py > prior.jsonl (about 10 minutes for the folds
on a quiet 2-core machine, then about 2 minutes per design).
"""
import json, sys, time, collections
import numpy as np
from pmparse.card.schema import TEXT_FIELDS
from pmparse.evaluation.corpus import corpus_root, source_styles
from pmparse.training import field_loso as fl
from pmparse.training.field_breakdown import style_f1
from pmparse.nlp.components import fields as F

root = corpus_root(None)
captured = {}
t = time.time()
report = fl.leave_one_source_out(root, fl.GOLD_DIR, 0, fl.DEFAULT_SETTINGS, 50, labels="annotated",
                                 calibrate=True, written=1.0, heading_model=True,
                                 on_held_out=lambda h: captured.update(h),
                                 progress=lambda m: print(m, file=sys.stderr, flush=True))
print("loso seconds", round(time.time() - t), file=sys.stderr, flush=True)
print(json.dumps({"reported": {v: round(report[v]["pipeline"]["macro_f1"], 4) for v in ("stripped", "headed")},
                  "threshold": report["calibration"]["threshold"]}), flush=True)
style_of = source_styles()
LABELS = list(TEXT_FIELDS) + ["none"]

# unit counts (section label, gold label) per hold-out group, both variants
counts = collections.defaultdict(collections.Counter)
for variant, items in captured.items():
    for item in items:
        secs = F.unit_sections(item.doc)
        for unit, (lab, _) in zip(item.doc.spans["units"], secs):
            counts[item.group][(variant, lab, fl.unit_gold_label(item, unit.start_char, unit.end_char))] += 1
groups = sorted(counts)


def matrix(exclude, variants=("headed",)):
    m = collections.defaultdict(collections.Counter)
    for g in groups:
        if g == exclude:
            continue
        for (v, lab, gold), n in counts[g].items():
            if v in variants:
                m[lab][gold] += n
    return m


CURRENT = {"M": None, "mode": None}
original_decide = F.decide
original_predict = fl._predict


def decide(section_label, section_conf, probs, heading_weight, threshold, followup_weight=1.0,
           headed=False, opening=False, calibration=None):
    mode, M = CURRENT["mode"], CURRENT["M"]
    if mode is None or probs is None:
        return original_decide(section_label, section_conf, probs, heading_weight, threshold, followup_weight,
                               headed, opening, calibration)
    heading_field = section_label if section_label in TEXT_FIELDS else None
    row = M.get(section_label)
    if heading_field is not None and row:
        top = max(row.get(f, 0) for f in TEXT_FIELDS) or 1
        if mode == "family":
            prior = {f: row.get(f, 0) / top for f in TEXT_FIELDS}
        elif mode == "family-sq":  # sharper: squared shares
            prior = {f: (row.get(f, 0) / top) ** 2 for f in TEXT_FIELDS}
        elif mode == "family-top2":  # the heading's field, and its most frequent other field at its share
            others = sorted((f for f in TEXT_FIELDS if f != heading_field), key=lambda f: -row.get(f, 0))
            prior = {f: 0.0 for f in TEXT_FIELDS}
            prior[heading_field] = 1.0
            prior[others[0]] = row.get(others[0], 0) / top
        prior[heading_field] = max(prior[heading_field], 1.0)
        scores = {name: (1 - heading_weight) * p + heading_weight * section_conf * prior.get(name, 0.0)
                  for name, p in probs.items()}
        scores.setdefault(heading_field, heading_weight * section_conf)
        if not scores:
            return None, 0.0
        best = max(scores, key=scores.get)
        if best not in TEXT_FIELDS:
            return None, 0.0
        confidence = F.calibrated(min(1.0, scores[best]), calibration)
        if confidence < threshold:
            return None, 0.0
        return best, confidence
    return original_decide(section_label, section_conf, probs, heading_weight, threshold, followup_weight,
                           headed, opening, calibration)


MATRICES = {}


def predict(item, system, settings, decoded=None):
    CURRENT["M"] = MATRICES.get(item.group)
    return original_predict(item, system, settings, decoded)


F.decide = decide
fl._predict = predict


def measure(name, mode, variants=("headed",)):
    CURRENT["mode"] = mode
    for g in groups:
        MATRICES[g] = matrix(g, variants)
    settings, cal = fl.calibrate_held_out(captured, fl.DEFAULT_SETTINGS)
    row = {"design": name, "threshold": settings.threshold}
    for variant, items in captured.items():
        scores = fl._scores(items, "pipeline", settings)
        f1 = fl._field_f1(scores)
        row[variant] = round(f1["macro_f1"], 4)
        for style, v in style_f1(((s.source, s.counts) for s in scores), style_of).items():
            row[f"{variant}:{style}"] = round(v["macro_f1"], 4)
        row[f"{variant}:fields"] = {k: round(v, 3) for k, v in f1.items() if k != "macro_f1" and isinstance(v, float)}
        row[f"{variant}:ece/p08"] = [round(cal["figures"][variant].get(k, float("nan")), 3)
                                     for k in ("ece", "precision_at_0_8")] if variant in cal["figures"] else None
    print(json.dumps(row), flush=True)


# the nested matrix, printed once (all groups) for the record
allm = matrix(None)
print(json.dumps({"matrix_headed": {lab: dict(c) for lab, c in allm.items()}}), flush=True)
for name, mode in (("shipped", None), ("family", "family"), ("family-sq", "family-sq"), ("family-top2", "family-top2")):
    try:
        measure(name, mode)
    except Exception as exc:  # keep the other designs
        print(json.dumps({"design": name, "error": repr(exc)}), flush=True)
