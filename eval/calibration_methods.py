"""Which confidence calibration of the field labeler meets issue 21's targets? A measurement, not a gate.

Trains the leave-one-source-out folds once (as ``pmparse train --loso --labels annotated``) and
compares calibration methods on the same held-out units: every unit the labeler gives a field
with no threshold is a ``(inputs, right)`` row (right: :func:`pmparse.training.field_loso.unit_right`);
each method is cross-fitted by source (a held-out source's units are calibrated by a fit on the
other sources' rows alone), the threshold on calibrated confidence is chosen among
``CALIBRATED_THRESHOLDS`` by the tuning objective, as the shipped calibration's is, and the
figures are measured on the items that threshold keeps: expected calibration error, precision at
confidence 0.8 or more, how many items are there, and macro token F1.

Inputs a method may use besides the unit's score: its field, whether a heading mapped to that
field holds it (``agree``), to another field (``other``) or none, its kind (list item and table
row against sentence and timeline entry). Grouped methods fit an isotonic curve per group and
shrink it to the pooled one: ``n / (n + k)`` of the group's curve, the rest the pooled curve.

Run from the repository root with the shared corpus beside it (about 4 minutes for the folds on
a quiet 2-core machine, then about 30 s per method)::

    python eval/calibration_methods.py
"""

from __future__ import annotations

import collections

import numpy as np
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression

from pmparse.card.schema import TEXT_FIELDS
from pmparse.evaluation.corpus import corpus_root
from pmparse.evaluation.metrics import score_spans
from pmparse.nlp.components.fields import FOLLOW_UP, likeliest_unit, unit_sections, weighed
from pmparse.training.field_calibration import apply, calibration_figures, fit_calibration
from pmparse.training.field_loso import (
    CALIBRATED_THRESHOLDS,
    _field_f1,
    _objective,
    _scores,
    leave_one_source_out,
    unit_coverage,
)
from pmparse.training.fields import DEFAULT_SETTINGS, GOLD_DIR

S = DEFAULT_SETTINGS
KINDS = ("sentence", "list_item", "table_row", "timeline")


def unit_rows(item) -> dict:
    """The document's units as the labeler scores them with no threshold (mirrors ``decide``)."""
    doc = item.doc
    units = list(doc.spans["units"])
    probs = item.model.decode(item.raw, S.sequence_weight)
    doc.spans["units"].attrs["probs"] = probs
    sections = unit_sections(doc)
    headed = any(label in TEXT_FIELDS for label, _ in sections)
    opening = 0 if headed else S.followup_opening * len(units)
    rows = []
    for i, (unit, (label, conf)) in enumerate(zip(units, sections)):
        p = probs[i]
        heading = label if label in TEXT_FIELDS else None
        if heading is not None:
            scores = {n: weighed(v, n, heading, conf, S.heading_weight) for n, v in p.items()}
            scores.setdefault(heading, S.heading_weight * conf)
        else:
            scores = {n: v for n, v in p.items() if n in TEXT_FIELDS}
            if label == "none" or headed or i < opening:
                for n in FOLLOW_UP:
                    scores[n] = scores.get(n, 0.0) * S.followup_weight
        best = max(scores, key=scores.get)
        ranked = sorted(scores.values(), reverse=True) + [0.0]
        rows.append({"i": i, "field": best, "score": min(1.0, scores[best]), "margin": ranked[0] - ranked[1],
                     "section": label, "heading": "agree" if heading == best else "other" if heading else "none",
                     "headed": headed, "kind": unit.label_, "pnone": p.get("none", 0.0), "source": item.source,
                     "cover": unit_coverage(item, unit.start_char, unit.end_char), "given": best in TEXT_FIELDS})
        rows[-1]["right"] = rows[-1]["given"] and rows[-1]["cover"][best] >= 0.5
    return {"item": item, "rows": rows, "probs": probs, "sections": sections}


def simulate(docs: list[dict], conf, threshold: float):
    """Kept ``(row, confidence)`` and the per-field F1 of the labeler with calibration ``conf`` and
    ``threshold`` (the root-cause floor as ``label_fields`` applies it)."""
    kept, scores = [], []
    for d in docs:
        item, chosen = d["item"], {}
        for r in d["rows"]:
            if r["given"] and (c := conf(r)) >= threshold:
                chosen[r["i"]] = (r, c)
        if not any(r["field"] == "root_cause" for r, _ in chosen.values()):
            probs = d["probs"]
            skip = {i for i in chosen if max(probs[i], key=probs[i].get) != "root_cause"}
            item.doc.spans["units"].attrs["probs"] = probs
            found = likeliest_unit(item.doc, "root_cause", S.root_cause_floor, S.heading_weight, skip, d["sections"])
            if found is not None:
                r = dict(d["rows"][found[0]], field="root_cause", score=found[1])
                r["heading"] = "agree" if r["section"] == "root_cause" else "other" if r["section"] in TEXT_FIELDS else "none"
                r["right"] = r["cover"]["root_cause"] >= 0.5
                chosen[found[0]] = (r, conf(r))
        units, pred = list(item.doc.spans["units"]), {}
        for i, (r, c) in sorted(chosen.items()):
            pred.setdefault(r["field"], []).append((units[i].start_char, units[i].end_char))
            kept.append((r, c))
        scores.append(score_spans(item.id, item.source, item.text, item.annotated, item.gold, pred))
    return kept, _field_f1(scores)


def _iso(rows):
    x = np.array([r["score"] for r in rows])
    return IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip").fit(x, np.array([r["right"] for r in rows], float))


def pooled(train):
    """The shipped method: one isotonic fit over every field (64 knots)."""
    knots = fit_calibration([round(r["score"], 3) for r in train], [r["right"] for r in train])
    return lambda r: float(apply(knots, r["score"]))


def grouped(key, k: float):
    """Isotonic per group of ``key``, shrunk to the pooled curve by ``n / (n + k)``."""
    def fitter(train):
        whole = _iso(train)
        groups = collections.defaultdict(list)
        for r in train:
            groups[key(r)].append(r)
        fits = {g: (_iso(rs), len(rs)) for g, rs in groups.items() if len(rs) >= 2}

        def conf(r):
            p = whole.predict([r["score"]])[0]
            if key(r) not in fits:
                return p
            fit, n = fits[key(r)]
            return n / (n + k) * fit.predict([r["score"]])[0] + k / (n + k) * p
        return conf
    return fitter


def _logit(p):
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return float(np.log(p / (1 - p)))


def logistic(inputs: tuple[str, ...]):
    """A logistic regression on the score's logit and the given inputs."""
    def features(r):
        x = [_logit(r["score"])]
        if "field" in inputs:
            x += [r["field"] == f for f in TEXT_FIELDS]
        if "heading" in inputs:
            x += [r["heading"] == "agree", r["heading"] == "other", r["headed"]]
        if "kind" in inputs:
            x += [r["kind"] == k for k in KINDS]
        if "margin" in inputs:
            x += [r["margin"], _logit(max(r["margin"], 0.0))]
        if "none" in inputs:
            x += [_logit(r["pnone"])]
        return np.array(x, float)

    def fitter(train):
        x = np.array([features(r) for r in train])
        mu, sd = x.mean(0), x.std(0) + 1e-9
        model = LogisticRegression(max_iter=2000).fit((x - mu) / sd, np.array([r["right"] for r in train], int))
        return lambda r: float(model.predict_proba(((features(r) - mu) / sd)[None])[0, 1])
    return fitter


def balanced(train):
    """Isotonic with each source's rows weighing as much in total as another's."""
    n = collections.Counter(r["source"] for r in train)
    fit = IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip").fit(
        np.array([r["score"] for r in train]), np.array([r["right"] for r in train], float),
        sample_weight=np.array([1.0 / n[r["source"]] for r in train]))
    return lambda r: float(fit.predict([r["score"]])[0])


def _lists(r):
    return "list" if r["kind"] in ("list_item", "table_row") else "prose"


METHODS = {
    "pooled isotonic (shipped)": pooled,
    "per field, k=0": grouped(lambda r: r["field"], 0),
    "per field, k=200": grouped(lambda r: r["field"], 200),
    "field x heading, k=200": grouped(lambda r: (r["field"], r["heading"]), 200),
    "heading x kind, k=100": grouped(lambda r: (r["heading"], _lists(r)), 100),
    "logistic: score, field, heading": logistic(("field", "heading")),
    "logistic: + kind, margin, p(none)": logistic(("field", "heading", "kind", "margin", "none")),
    "isotonic, sources weighed equally": balanced,
}


def compare(held: dict) -> None:
    docs = {variant: [unit_rows(item) for item in items] for variant, items in held.items()}
    rows = [r for found in docs.values() for d in found for r in d["rows"] if r["given"]]
    sources = sorted({r["source"] for r in rows})
    headings = _field_f1(_scores(held["headed"], "headings", S))
    print("| method | threshold | " + " | ".join(f"{v} ECE | {v} precision at 0.8 | {v} items at 0.8 | {v} macro F1"
                                                 for v in docs) + " |")
    print("|---|---:|" + "---:|" * 4 * len(docs))
    for name, method in METHODS.items():
        fits = {s: method([r for r in rows if r["source"] != s]) for s in sources}

        def conf(r):
            return round(fits[r["source"]](r), 3)
        best = None
        for threshold in CALIBRATED_THRESHOLDS:
            found = {v: simulate(d, conf, threshold) for v, d in docs.items()}
            value = _objective(found["stripped"][1], found["headed"][1], headings)
            if best is None or value > best[0]:
                best = (value, threshold, found)
        cells = []
        for kept, f1 in best[2].values():
            f = calibration_figures(np.array([c for _, c in kept]), np.array([r["right"] for r, _ in kept]))
            cells += [f"{f['ece']:.3f}", f"{f['precision_at_0.8']:.3f}", str(f["units_at_0.8"]), f"{f1['macro_f1']:.4f}"]
        print(f"| {name} | {best[1]} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    leave_one_source_out(corpus_root(None), GOLD_DIR, 0, DEFAULT_SETTINGS, rounds=10, labels="annotated",
                         calibrate=False, on_held_out=compare, progress=print)
