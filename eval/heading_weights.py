"""How much should each kind of heading count? Per-heading-field weights fitted on held-out folds. A measurement, not a gate.

Issue 21 asks that how much a heading counts be fitted on held-out folds. The shipped labeler has
one ``heading_weight`` for every heading. This script trains the leave-one-source-out folds once
(as ``pmparse train --loso --labels annotated``, written postmortems included, calibrated), then
gives every heading field ``h`` its own weight ``w_h`` (a unit under a heading mapped to ``h``
scores ``(1 - w_h) * p`` plus ``w_h * section_conf`` for ``h``) and fits the eight weights by
coordinate ascent over :data:`GRID` on the headed gold documents: once on all of them (in-sample,
an upper bound) and once per held-out source on the other sources' documents only (nested: the
figure to quote). The objective is the headed part of the tuning objective (macro F1 less the
headed fields' shortfall against headings alone). The calibration is the shipped one's cross-fit,
held fixed while the weights move. Stripped text has no mapped headings, so its figures do not
depend on the weights.

Run from the repository root with the shared corpus beside it (about 12 minutes on a quiet
2-core machine, most of it training the folds)::

    python eval/heading_weights.py
"""

from __future__ import annotations

import contextlib

import pmparse.nlp.components.fields as labeler
from pmparse.card.schema import TEXT_FIELDS
from pmparse.evaluation.corpus import corpus_root
from pmparse.training.field_loso import _field_f1, _scores, _shortfalls, calibrate_held_out, leave_one_source_out
from pmparse.training.fields import DEFAULT_SETTINGS, GOLD_DIR, WRITTEN_WEIGHT

#: Weights tried for each heading field.
GRID = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


@contextlib.contextmanager
def per_field_weights(weights: dict[str, float]):
    """Make the labeler weigh each heading field by ``weights`` (its own weight where a field is missing)."""
    shipped = labeler.weighed

    def weighed(p, name, heading_field, section_conf, heading_weight):
        if heading_field is None:
            return p
        w = weights.get(heading_field, heading_weight)
        return (1.0 - w) * p + (w * section_conf if name == heading_field else 0.0)

    labeler.weighed = weighed
    try:
        yield
    finally:
        labeler.weighed = shipped


class Search:
    """Per-document token counts of the headed documents under a set of weights, cached: a
    document's result depends only on the weights of the heading fields it has."""

    def __init__(self, items, settings):
        self.items, self.settings, self.cache = items, settings, {}
        self.decoded = {it.id: it.model.decode(it.raw, settings.sequence_weight) for it in items}
        self.fields = {it.id: sorted({label for label, _ in labeler.unit_sections(it.doc) if label in TEXT_FIELDS})
                       for it in items}

    def counts(self, item, weights):
        key = (item.id, tuple(weights[h] for h in self.fields[item.id]))
        if key not in self.cache:
            with per_field_weights(weights):
                self.cache[key] = _scores([item], "pipeline", self.settings, {item.id: self.decoded[item.id]})[0]
        return self.cache[key]

    def f1(self, items, weights):
        return _field_f1([self.counts(it, weights) for it in items])

    def fit(self, items):
        """Coordinate ascent from the shipped weight, two passes at most."""
        headings = _field_f1(_scores(items, "headings", self.settings))

        def value(weights):
            f1 = self.f1(items, weights)
            return f1["macro_f1"] - sum(_shortfalls(f1, headings).values()) / len(TEXT_FIELDS)

        weights = {h: self.settings.heading_weight for h in TEXT_FIELDS}
        best = value(weights)
        for _ in range(2):
            moved = False
            for h in TEXT_FIELDS:
                for w in GRID:
                    trial = dict(weights, **{h: w})
                    v = value(trial)
                    if v > best + 1e-9:
                        best, weights, moved = v, trial, True
            if not moved:
                break
        return weights


def _row(name: str, f1: dict) -> str:
    return f"| {name} | " + " | ".join(f"{f1[k]:.3f}" for k in (*TEXT_FIELDS, "macro_f1")) + " |"


def measure(held) -> None:
    settings, _ = calibrate_held_out(held, DEFAULT_SETTINGS)
    items = held["headed"]
    search = Search(items, settings)
    print("| headed | " + " | ".join((*TEXT_FIELDS, "macro")) + " |")
    print("|---|" + "---:|" * (len(TEXT_FIELDS) + 1))
    print(_row("headings alone", _field_f1(_scores(items, "headings", settings))))
    print(_row(f"one weight ({settings.heading_weight}, shipped)",
               search.f1(items, {h: settings.heading_weight for h in TEXT_FIELDS})))
    everywhere = search.fit(items)
    print(_row("per field, fitted on all (in-sample)", search.f1(items, everywhere)))
    nested, chosen = [], {}
    for source in sorted({it.source for it in items}):
        chosen[source] = search.fit([it for it in items if it.source != source])
        nested += [search.counts(it, chosen[source]) for it in items if it.source == source]
    print(_row("per field, nested by source", _field_f1(nested)))
    print("\nfitted on all:", everywhere)
    for source, weights in chosen.items():
        print(f"without {source}:", weights)


if __name__ == "__main__":
    leave_one_source_out(corpus_root(None), GOLD_DIR, 0, DEFAULT_SETTINGS, rounds=10, labels="annotated",
                         calibrate=False, written=WRITTEN_WEIGHT, on_held_out=measure, progress=print)
