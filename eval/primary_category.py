"""Why the card's primary root-cause category misses on unseen sources, and three designs tried against it.

A diagnostic for issue 23, not a gate. The card's primary root-cause category is the most
confident of the categories the tag model keeps (:func:`pmparse.training.tag_fit.primary_of`);
``pmparse train-categories`` prints how often it is among the gold card's, with whole sources held
out. This script reruns that leave-one-source-out cross-validation with the shipped settings and
training rows, prints where the misses fall (sources, confusions, whether the focus text held the
cause), then scores three ways of picking the primary instead, each with sources held out and
every choice it makes (a mixing weight, per-category weights, cue rules) fitted on the other
sources only, never on the held-out one:

1. a single-label (softmax) primary-category model trained on each labelled document's
   root-cause categories (a document with two gives two rows of half weight) over its root-cause
   text: the gold cards' annotated root-cause spans and the team's root-cause spans, the field
   model's focus of gold and team rows, and the icco summaries; it predicts a held-out gold
   document from the field model's root-cause units (confidence >= 0.5; the shipped focus when
   there are none). Its probabilities pick the primary alone, or mixed with the one-vs-rest ones;
2. the one-vs-rest probabilities times per-category weights (priors), fitted on the other sources;
3. cue rules (a category whose cue phrases occur, or do not, in the focus or in the root-cause
   units is promoted or demoted), picked greedily on the other sources.

Gold text is only scored. Run from the repository root with the shared corpus beside it (about
5 minutes on a quiet machine)::

    python eval/primary_category.py
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import numpy as np

#: Weights tried for each category by :func:`fit_weights` (1.0: the one-vs-rest probability as is).
WEIGHT_GRID = (0.5, 0.7, 0.85, 1.0, 1.2, 1.4, 2.0)

#: Mixing weights of the softmax model tried by the nested choice (0: the one-vs-rest model alone).
ALPHAS = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0)

#: Categories with strong lexical signals, whose cue rules :func:`greedy_rules` may pick.
CUE_CATEGORIES = ("security_incident", "expiry_or_time", "capacity_exhaustion", "hardware_failure",
                  "dependency_failure", "power_or_facility")

#: A cue rule: ``(category, "promote" or "demote", "focus" or "units", least count)``.
Rule = tuple[str, str, str, int]


@dataclass
class Case:
    """One held-out gold document as the primary-category choice sees it.

    Attributes:
        source: Its corpus source.
        gold: Its gold card's root-cause categories.
        chosen: The categories the shipped decision rules keep (the card's), in name order.
        ovr: Out-of-fold one-vs-rest probability of every root-cause category.
        soft: Out-of-fold softmax probability of every root-cause category (empty when not scored).
        focus_cues: Cue counts of each root-cause category in the shipped focus.
        unit_cues: Cue counts of each root-cause category in the field model's root-cause units.
    """

    source: str
    gold: set[str]
    chosen: list[str]
    ovr: dict[str, float]
    soft: dict[str, float] = field(default_factory=dict)
    focus_cues: dict[str, int] = field(default_factory=dict)
    unit_cues: dict[str, int] = field(default_factory=dict)


def root_cause_ids(labels: dict[str, int]) -> list[str]:
    """The root-cause ids a row labels positive, in name order (``root_cause_categories.x`` -> ``x``)."""
    prefix = "root_cause_categories."
    return sorted(k[len(prefix):] for k, v in labels.items() if v and k.startswith(prefix))


def spread(label_sets: Sequence[Sequence[str]]) -> tuple[list[int], list[str], list[float]]:
    """Single-label training rows of multi-label documents: one row per label, weights summing to 1.

    Returns:
        ``(row index, label, weight)`` lists; a row without labels gives none.
    """
    index, labels, weights = [], [], []
    for i, found in enumerate(label_sets):
        for label in found:
            index.append(i)
            labels.append(label)
            weights.append(1.0 / len(found))
    return index, labels, weights


def balanced(labels: Sequence[str], weights: Sequence[float]) -> np.ndarray:
    """``weights`` rescaled so every label's rows weigh the same in total (their mean stays 1)."""
    weights = np.asarray(weights, dtype=float)
    totals = Counter()
    for label, w in zip(labels, weights):
        totals[label] += w
    scale = np.array([weights.sum() / (len(totals) * totals[label]) for label in labels])
    return weights * scale


def mixed_primary(case: Case, alpha: float) -> str | None:
    """The kept category with the best ``alpha * softmax + (1 - alpha) * one-vs-rest`` probability."""
    if not case.chosen:
        return None
    return max(case.chosen, key=lambda k: alpha * case.soft.get(k, 0.0) + (1 - alpha) * case.ovr.get(k, 0.0))


def weighted_primary(case: Case, weights: dict[str, float], kept_only: bool = True) -> str | None:
    """The category (among the kept ones, or any) with the best one-vs-rest probability times its weight."""
    candidates = case.chosen if kept_only else sorted(case.ovr)
    if not candidates:
        return None
    return max(candidates, key=lambda k: case.ovr.get(k, 0.0) * weights.get(k, 1.0))


def fit_weights(cases: Iterable[Case], categories: Sequence[str], kept_only: bool = True,
                grid: Sequence[float] = WEIGHT_GRID, rounds: int = 2) -> dict[str, float]:
    """Per-category weights maximising primary hits on ``cases`` by coordinate search over ``grid``.

    Ties keep the weight nearest 1 (the least change).
    """
    cases = list(cases)
    weights = {k: 1.0 for k in categories}

    def hits(w: dict[str, float]) -> int:
        return sum(weighted_primary(c, w, kept_only) in c.gold for c in cases)

    for _ in range(rounds):
        for k in categories:
            weights[k] = max(grid, key=lambda v: (hits({**weights, k: v}), -abs(np.log(v))))
    return weights


def cue_primary(case: Case, rules: Sequence[Rule], alpha: float = 0.0) -> str | None:
    """The primary after cue rules: a promoted category gains 1, a demoted one loses 1, on the mixed score."""
    if not case.chosen:
        return None
    scores = {k: alpha * case.soft.get(k, 0.0) + (1 - alpha) * case.ovr.get(k, 0.0) for k in case.chosen}
    for category, action, scope, least in rules:
        if category not in scores:
            continue
        count = (case.focus_cues if scope == "focus" else case.unit_cues).get(category, 0)
        if action == "promote" and count >= least:
            scores[category] += 1.0
        elif action == "demote" and count < least:
            scores[category] -= 1.0
    return max(sorted(scores), key=scores.get)


def candidate_rules(categories: Iterable[str] = CUE_CATEGORIES) -> list[Rule]:
    """Every cue rule :func:`greedy_rules` may pick."""
    return [(k, action, scope, least) for k in categories for action in ("promote", "demote")
            for scope in ("focus", "units") for least in (1, 2)]


def greedy_rules(cases: Iterable[Case], candidates: Sequence[Rule], alpha: float = 0.0,
                 min_gain: int = 2) -> list[Rule]:
    """Cue rules added one at a time while the best one gains at least ``min_gain`` primary hits on ``cases``."""
    cases = list(cases)
    rules: list[Rule] = []

    def hits(found: list[Rule]) -> int:
        return sum(cue_primary(c, found, alpha) in c.gold for c in cases)

    current = hits(rules)
    while candidates:
        best = max(candidates, key=lambda r: hits(rules + [r]))
        gained = hits(rules + [best])
        if gained < current + min_gain:
            break
        rules.append(best)
        current = gained
    return rules


def held_out_by_source(cases: Sequence[Case], fit: Callable[[list[Case]], object],
                       pick: Callable[[Case, object], str | None]) -> float:
    """Share of primary hits when each source's choice is fitted on the other sources' cases only."""
    hits = 0
    for source in sorted({c.source for c in cases}):
        fitted = fit([c for c in cases if c.source != source])
        hits += sum(pick(c, fitted) in c.gold for c in cases if c.source == source)
    return hits / len(cases) if cases else 0.0


@dataclass
class Shipped:
    """The shipped source-held-out cross-validation as the experiments see it (see :func:`shipped`).

    Attributes:
        settings, taxonomy, matchers: The shipped settings, taxonomy and cue matchers.
        examples: Every training row of the tag model (``tc.build_examples``).
        folds: Row group -> fold, whole sources held out (``tc.row_folds``); groups not in it train in every fold.
        doc_of: Gold corpus path -> (gold row, analysed Doc).
        categories: The root-cause category ids.
        cases: One :class:`Case` per held-out gold document with a root cause (``soft`` still empty).
        scored: Beside each case: (example index, example, its root-cause units' text, the shipped primary).
    """

    settings: object
    taxonomy: object
    matchers: object
    examples: list
    folds: dict[str, int]
    doc_of: dict
    categories: list[str]
    cases: list[Case]
    scored: list[tuple]


def shipped() -> Shipped:  # pragma: no cover - needs the shared corpus and minutes of training
    """Reruns the shipped source-held-out cross-validation and builds the cases the experiments score."""
    from pmparse.evaluation.corpus import corpus_root, source_of
    from pmparse.nlp.tag_reading import Matchers, model_rows
    from pmparse.rules.taxonomy import load_taxonomy
    from pmparse.training import tags as tc
    from pmparse.training.tag_fit import decide, primary_of
    from pmparse.training.tag_inputs import TagSettings

    settings, root, taxonomy = TagSettings(), corpus_root(None), load_taxonomy(None)
    gold = tc.read_gold(None, root)
    docs = tc.analysed_docs([root / row["path"] for row in gold])
    doc_of = {row["path"]: (row, doc) for row, doc in zip(gold, docs)}
    examples, _ = tc.build_examples(root, taxonomy, settings, gold, docs)
    matchers = Matchers(tc.untagged_pipeline(), taxonomy)
    rows = model_rows(matchers, [(ex.focus, ex.whole) for ex in examples])
    folds = tc.row_folds(examples, gold)
    probs = tc.cross_validate(examples, rows, taxonomy, settings, folds)
    categories = [t.id for t in taxonomy.groups["root_cause_categories"]]

    def rc_cues(text: str) -> dict[str, int]:
        return {k.split(".", 1)[1]: v for k, v in matchers.cue_counts(text).items()
                if k.startswith("root_cause_categories.")}

    def unit_text(path: str) -> str:
        doc = doc_of[path][1]
        group = doc.spans["fields"] if "fields" in doc.spans else []
        scores = (group.attrs.get("scores") or [1.0] * len(group)) if len(group) else []
        return "\n".join(doc.text[a:b] for a, b in sorted((s.start_char, s.end_char) for s, p in zip(group, scores)
                                                         if s.label_ == "root_cause" and p >= 0.5))

    cases, scored = [], []
    for i, (ex, p) in enumerate(zip(examples, probs)):
        if ex.source != "gold" or not root_cause_ids(ex.labels):
            continue
        chosen = sorted(decide(p, settings, set(matchers.cue_counts(ex.focus)))["root_cause_categories"])
        units = unit_text(ex.group)
        cases.append(Case(source_of(ex.group), set(root_cause_ids(ex.labels)), chosen,
                          {k: p.get(f"root_cause_categories.{k}", 0.0) for k in categories},
                          focus_cues=rc_cues(ex.focus), unit_cues=rc_cues(units) if units else {}))
        scored.append((i, ex, units, primary_of(p, set(chosen))))
    return Shipped(settings, taxonomy, matchers, examples, folds, doc_of, categories, cases, scored)


def softmax_train_rows(run: Shipped) -> list[tuple[str, str, str, list[str]]]:
    """Experiment (1)'s training rows: ``(group, root-cause text, whole text, root-cause ids)``.

    The gold cards' annotated root-cause spans and focus, and the focus of team, field-card,
    written, icco and dfds rows.
    """
    train = []
    for ex in run.examples:
        found = root_cause_ids(ex.labels)
        if not found:
            continue
        if ex.source == "gold":
            row, doc = run.doc_of[ex.group]
            spans = sorted((s["start"], s["end"]) for s in row.get("spans", []) if s.get("field") == "root_cause")
            if spans:
                train.append((ex.group, "\n".join(doc.text[a:b] for a, b in spans), ex.whole, found))
            train.append((ex.group, ex.focus, ex.whole, found))
        elif ex.source in ("team", "team_spans", "field_card", "field_card_spans", "written_card",
                           "written_card_spans", "icco", "dfds"):
            train.append((ex.group, ex.focus, ex.whole, found))
    return train


def softmax_test_texts(run: Shipped) -> list[tuple[str, str]]:
    """Experiment (1)'s test input of each case: ``(its root-cause units, else its focus; its whole text)``."""
    return [(s[2] or s[1].focus, s[1].whole) for s in run.scored]


def fit_softmax(run: Shipped, train: list[tuple[str, str, str, list[str]]]) -> None:  # pragma: no cover
    """Experiment (1): fills every case's ``soft`` with the hashed n-gram softmax's out-of-fold probabilities."""
    from sklearn.linear_model import LogisticRegression

    from pmparse.nlp.tag_reading import cue_string
    from pmparse.training.tag_fit import make_features

    matchers, folds, settings = run.matchers, run.folds, run.settings

    def inputs(texts):
        return np.array([(f, w[:20000], cue_string(matchers.cue_counts(f), matchers.cue_counts(w[:20000])))
                         for f, w in texts], dtype=object).reshape(-1, 3)

    train_x = inputs([(f, w) for _, f, w, _ in train])
    test_x = inputs(softmax_test_texts(run))
    for fold in sorted(set(folds.values())):
        fit_rows = [j for j, r in enumerate(train) if folds.get(r[0]) != fold]
        test_rows = [j for j, s in enumerate(run.scored) if folds.get(s[1].group) == fold]
        if not test_rows:
            continue
        features = make_features(run.taxonomy, settings.hash_bits).fit(train_x[fit_rows])
        index, labels, weights = spread([train[j][3] for j in fit_rows])
        x = features.transform(train_x[fit_rows])[index]
        model = LogisticRegression(C=settings.c, max_iter=3000).fit(x, labels, sample_weight=balanced(labels, weights))
        for j, p in zip(test_rows, model.predict_proba(features.transform(test_x[test_rows]))):
            run.cases[j].soft = {str(k): float(v) for k, v in zip(model.classes_, p)}


def main() -> None:  # pragma: no cover - needs the shared corpus and minutes of training
    run = shipped()
    categories, cases, scored, doc_of = run.categories, run.cases, run.scored, run.doc_of

    # error analysis of the shipped primary
    misses = [(c, s) for c, s in zip(cases, scored) if s[3] not in c.gold]
    print(f"shipped primary among the gold card's, sources held out: {1 - len(misses) / len(cases):.3f} "
          f"of {len(cases)}")
    by_source = Counter(c.source for c, _ in misses)
    totals = Counter(c.source for c in cases)
    print("misses by source:", ", ".join(f"{k} {by_source[k]}/{totals[k]}" for k in sorted(totals)))
    print("confusions (gold -> primary):", Counter((",".join(sorted(c.gold)), s[3]) for c, s in misses).most_common(8))
    for name, test in (("a gold category is kept", lambda c, s: bool(c.gold & set(c.chosen))),
                       ("a gold category's cue phrase is in the focus",
                        lambda c, s: any(c.focus_cues.get(g) for g in c.gold)),
                       ("the field model found a root-cause unit >= 0.5", lambda c, s: bool(s[2]))):
        hit = sum(test(c, s) for c, s in zip(cases, scored) if s[3] in c.gold)
        miss = sum(test(c, s) for c, s in misses)
        print(f"{name}: hits {hit}/{len(cases) - len(misses)}, misses {miss}/{len(misses)}")
    overlap = 0
    for c, (_, ex, units, _) in misses:
        row, doc = doc_of[ex.group]
        gold_spans = [(s["start"], s["end"]) for s in row.get("spans", []) if s.get("field") == "root_cause"]
        group = doc.spans["fields"] if "fields" in doc.spans else []
        scores = (group.attrs.get("scores") or [1.0] * len(group)) if len(group) else []
        mine = [(s.start_char, s.end_char) for s, p in zip(group, scores) if s.label_ == "root_cause" and p >= 0.5]
        overlap += any(a < f and e < b for a, b in mine for e, f in gold_spans)
    print(f"misses whose root-cause units overlap a gold root-cause span: {overlap}/{len(misses)}")

    # (1) a softmax primary-category model over root-cause text
    fit_softmax(run, softmax_train_rows(run))
    n = len(cases)
    print(f"(1) softmax alone, any category: {sum(max(c.soft, key=c.soft.get) in c.gold for c in cases) / n:.3f}")
    for alpha in (0.5, 1.0):
        print(f"(1) softmax mixed at {alpha} among the kept categories: "
              f"{sum(mixed_primary(c, alpha) in c.gold for c in cases) / n:.3f}")
    nested = held_out_by_source(cases, lambda cs: max(ALPHAS, key=lambda a: (sum(mixed_primary(c, a) in c.gold
                                                                                 for c in cs), -a)),
                                lambda c, a: mixed_primary(c, a))
    print(f"(1) softmax mixed, weight chosen on the other sources: {nested:.3f}")
    # (2) per-category weights fitted on the other sources
    for kept_only in (True, False):
        share = held_out_by_source(cases, lambda cs: fit_weights(cs, categories, kept_only),
                                   lambda c, w: weighted_primary(c, w, kept_only))
        print(f"(2) per-category weights, {'kept categories' if kept_only else 'any category'}: {share:.3f}")
    # (3) cue rules picked on the other sources
    for alpha in (0.0, 0.5):
        share = held_out_by_source(cases, lambda cs: greedy_rules(cs, candidate_rules(), alpha),
                                   lambda c, r: cue_primary(c, r, alpha))
        print(f"(3) cue rules over the {'one-vs-rest' if not alpha else 'mixed'} scores: {share:.3f}")


if __name__ == "__main__":
    main()
