"""Fitting the tag model and cross-validating it by document and by source."""

from __future__ import annotations

import multiprocessing
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from pmparse.evaluation.corpus import source_of
from pmparse.evaluation.facts import confusion, set_scores
from pmparse.evaluation.gold_cards import Example
from pmparse.nlp.component_candidates import candidate_rows, candidate_width, component_candidates
from pmparse.nlp.components.tagger import CategoryModel, decide_categories
from pmparse.nlp.tag_reading import CATEGORY_GROUPS, Matchers
from pmparse.rules.taxonomy import Taxonomy
from pmparse.training.export import check_export, export_calibrated, export_features
from pmparse.training.tags.features import TagFeatures, hash_rows, own_cue_mask
from pmparse.training.tags.folds import calibration_folds
from pmparse.training.tags.inputs import TagSettings
from pmparse.training.tags.labels import COMPONENT_LABELS_DIR, labelled_docs, read_component_labels


def fit(examples: list[Example], rows: np.ndarray, taxonomy: Taxonomy, settings: TagSettings,
        name: str = "categories", hashed: list | None = None) -> CategoryModel:
    """Fit the feature transformer and one calibrated classifier per category with enough data.

    Args:
        examples: Training rows' labels and weights.
        rows: Their model input (:func:`pmparse.nlp.tag_reading.model_rows`).
        taxonomy: The taxonomy whose category ids are learned.
        settings: Hyper-parameters.
        name: Model name for records.
        hashed: The hashed counts of ``rows`` with ``settings.hash_bits``
            (:func:`~pmparse.training.tags.features.hash_rows`), when already made; the model is
            the same either way.
    """
    from scipy import sparse
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.linear_model import LogisticRegression

    # fit_transform: fit, then transform would weigh every row twice (the same matrix)
    features = TagFeatures(taxonomy, settings.hash_bits)
    x = features.fit_transform(rows, hashed)
    classifiers = {}
    skipped = []
    for group in CATEGORY_GROUPS:
        for taxon in taxonomy.groups.get(group, ()):
            key = taxon.key
            idx = [i for i, ex in enumerate(examples) if key in ex.labels]
            y = np.array([examples[i].labels[key] for i in idx])
            if len(idx) == 0 or y.sum() < settings.min_positives or (len(y) - y.sum()) < settings.min_positives:
                skipped.append(key)
                continue
            weights = np.array([examples[i].weight for i in idx])
            # masked columns are zero in every training row, so their weights stay exactly zero
            # and the classifier predicts the same on the unmasked features (checked below)
            xk = x[idx]
            if settings.own_cues:
                xk = sparse.csr_matrix(xk @ sparse.diags(own_cue_mask(features, taxonomy, key, x.shape[1])))
            base = LogisticRegression(C=settings.c, class_weight="balanced", max_iter=5000, solver="liblinear", dual=True,
                                      random_state=settings.seed)
            folds = calibration_folds([examples[i] for i in idx], y, settings.seed)
            model = CalibratedClassifierCV(base, method="sigmoid", cv=folds, ensemble=False)
            model.fit(xk, y, sample_weight=weights)
            classifiers[key] = model
    meta = {"name": name, "taxonomy_version": taxonomy.version, "skipped": skipped,
            "settings": settings.as_dict()}
    # the run-time form (numpy only), checked against scikit-learn on a sample of the rows
    exported = CategoryModel(export_features(features), export_calibrated(classifiers), meta)
    step = max(1, len(rows) // 200)
    probe = rows[::step]
    if classifiers and len(probe):
        # once, not once per category
        x_probe = features.transform(probe, None if hashed is None else [block[::step] for block in hashed])
        expected = np.column_stack([classifiers[k].predict_proba(x_probe)[:, 1] for k in exported.keys])
        found = np.array([[p[k] for k in exported.keys] for p in exported.predict_rows(probe)])
        check_export(expected, found, "category model")
    return exported


def decide(probs: dict[str, float], settings: TagSettings, cues: Iterable[str] = ()) -> dict[str, set[str]]:
    """Predicted ids per category group from probabilities and the focused text's cue keys."""
    out = {}
    for group in CATEGORY_GROUPS:
        root = group == "root_cause_categories"
        fallback = settings.fallback if root else None
        keys = decide_categories(probs, group, settings.threshold, fallback, cues, settings.cue_gate,
                                 settings.unsure_unknown, settings.max_root_causes if root else None,
                                 settings.cue_needs_fallback and root)
        out[group] = {k.split(".", 1)[1] for k in keys}
    return out


def primary_of(probs: dict[str, float], chosen: set[str]) -> str | None:
    """The most probable of the root-cause categories ``chosen`` for a document (the card's primary)."""
    if not chosen:
        return None
    return max(sorted(chosen), key=lambda name: probs.get(f"root_cause_categories.{name}", 0.0))


#: What the fold workers read: set just before they fork, so each inherits it and nothing big is
#: sent to them (``cross_validate``'s arguments; None outside a cross-validation).
_FOLD_INPUT: tuple | None = None


def _fold_probs(fold: int) -> list[tuple[int, dict[str, float]]]:
    """Out-of-fold probabilities of one fold's gold examples: ``(example index, probabilities)``."""
    examples, rows, taxonomy, settings, fold_of, test_rows, hashed = _FOLD_INPUT  # type: ignore[misc]
    test = [i for i, ex in enumerate(examples) if ex.source == "gold" and fold_of.get(ex.group) == fold]
    if not test:
        return []
    train = [i for i, ex in enumerate(examples) if fold_of.get(ex.group) != fold]
    model = fit([examples[i] for i in train], rows[train], taxonomy, settings,
                hashed=[block[train] for block in hashed])
    return list(zip(test, model.predict_rows((rows if test_rows is None else test_rows)[test])))


def cross_validate(examples: list[Example], rows: np.ndarray, taxonomy: Taxonomy, settings: TagSettings,
                   fold_of: dict[str, int], test_rows: np.ndarray | None = None,
                   jobs: int = 1, hashed: list | None = None) -> list[dict[str, float]]:
    """Out-of-fold probabilities for every gold example (other rows get ``{}``).

    Args:
        examples: Every training row.
        rows: Their model input.
        taxonomy: The taxonomy.
        settings: Hyper-parameters.
        fold_of: Gold document group (corpus path) -> fold. Each fold is predicted by a model
            fitted on the other folds and on every extra row whose document is not in the fold.
        test_rows: The input the held-out gold examples are predicted from, when it differs from
            what they train on (the oracle-focus experiment: ``docs/history.md``); ``rows`` when None.
        jobs: Folds fitted at once, each in a forked worker process (where the platform forks;
            one at a time otherwise). Every fold's fit is seeded and alone, so the probabilities
            are the same whatever the number.
        hashed: The hashed counts of ``rows`` with ``settings.hash_bits``
            (:func:`~pmparse.training.tags.features.hash_rows`); made here when None. Each fold
            takes its rows' counts from them instead of hashing its texts again.
    """
    global _FOLD_INPUT
    folds = sorted(set(fold_of.values()))
    if hashed is None:
        hashed = hash_rows(rows, settings.hash_bits)
    _FOLD_INPUT = (examples, rows, taxonomy, settings, fold_of, test_rows, hashed)
    try:
        workers = min(jobs, len(folds))
        if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
            # fork, not the batch pool's forkserver: the workers need this process's rows, built
            # over minutes, and a forked child shares them instead of receiving a copy
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
                found = list(pool.map(_fold_probs, folds))
        else:
            found = [_fold_probs(fold) for fold in folds]
    finally:
        _FOLD_INPUT = None
    out: list[dict[str, float]] = [{} for _ in examples]
    for pairs in found:
        for i, probs in pairs:
            out[i] = probs
    return out


def cv_report(examples: list[Example], probs: list[dict[str, float]], settings: TagSettings,
              cues: list[set[str]] | None = None) -> dict:
    """Scores of out-of-fold predictions on the gold examples (``cues``: cue keys of each row's focus)."""
    pairs: dict[str, list[tuple[set[str], set[str]]]] = {g: [] for g in CATEGORY_GROUPS}
    by_source: dict[str, list[tuple[set[str], set[str]]]] = {}
    primary_hits = primary_total = 0
    for i, (ex, p) in enumerate(zip(examples, probs)):
        if ex.source != "gold":
            continue
        predicted = decide(p, settings, cues[i] if cues else ())
        for group in CATEGORY_GROUPS:
            keys = [k for k in ex.labels if k.startswith(group + ".")]
            if keys:
                gold = {k.split(".", 1)[1] for k in keys if ex.labels[k]}
                pairs[group].append((gold, predicted[group]))
                if group == "root_cause_categories":
                    by_source.setdefault(source_of(ex.group), []).append(pairs[group][-1])
                    if gold:
                        primary_total += 1
                        primary_hits += primary_of(p, predicted[group]) in gold
    report = {group: set_scores(found) for group, found in pairs.items()}
    report["root_cause_confusion"] = confusion(pairs["root_cause_categories"])
    # the card's primary root cause (its most confident category) among the gold card's
    report["root_cause_primary"] = {"documents": primary_total,
                                    "share": primary_hits / primary_total if primary_total else 0.0}
    # root-cause set F1 of each source's documents: how unevenly the figure above is earned
    report["root_cause_by_source"] = {name: {"documents": len(found), "f1": set_scores(found)["f1"]}
                                      for name, found in sorted(by_source.items())}
    return report


def baseline_report(examples: list[Example]) -> dict:
    """Scores of always predicting the most frequent root-cause category (for comparison)."""
    gold = [ex for ex in examples if ex.source == "gold"]
    counts = Counter(k for ex in gold for k, v in ex.labels.items() if v and k.startswith("root_cause_categories."))
    if not counts:
        return {}
    top = counts.most_common(1)[0][0].split(".", 1)[1]
    pairs = [({k.split(".", 1)[1] for k, v in ex.labels.items() if v and k.startswith("root_cause_categories.")}, {top})
             for ex in gold if any(k.startswith("root_cause_categories.") for k in ex.labels)]
    return {"predict": top, **set_scores(pairs)}


@dataclass
class ComponentData:
    """Component candidates of labelled documents: model input, labels and where they come from.

    Attributes:
        x: One row per candidate (:func:`pmparse.nlp.component_candidates.candidate_rows`).
        y: 1 when the document's label lists the candidate.
        doc: Which document a row belongs to: the gold document's index, or ``len(gold)`` and up
            for team-labelled documents.
        keys: ``components.<id>`` of each row.
        gold: Gold document index -> its card's components (the documents a figure is scored on).
        source: Corpus source of each row (what leave-one-source-out holds out).
    """

    x: np.ndarray
    y: np.ndarray
    doc: np.ndarray
    keys: list[str]
    gold: dict[int, set[str]] = field(default_factory=dict)
    source: list[str] = field(default_factory=list)

    def team_rows(self) -> np.ndarray:
        """Mask of the rows of team-labelled documents (trained on, never scored)."""
        return np.array([int(d) not in self.gold for d in self.doc], dtype=bool)


def component_data(gold: list[dict], docs: list, matchers: Matchers, ids: list[str],
                   first_mention: bool = False, team: Iterable[tuple[str, object, set[str]]] = ()) -> ComponentData:
    """One row per component a labelled document names.

    Args:
        gold: Gold documents; those whose card states ``components`` give rows.
        docs: Their analysed Docs, in the same order.
        matchers: The taxonomy's matchers.
        ids: Component ids (the one-hot columns).
        first_mention: Rows also hold where the component is first named.
        team: ``(path, doc, components)`` of team-labelled documents (:func:`team_component_docs`).
    """
    xs, ys, doc_index, keys, truth, sources = [], [], [], [], {}, []
    labelled = [(i, row["path"], doc, set(row["card"]["components"]))
                for i, (row, doc) in enumerate(zip(gold, docs)) if "components" in row.get("card", {})]
    truth = {i: comps for i, _, _, comps in labelled}
    labelled += [(len(gold) + j, path, doc, set(comps)) for j, (path, doc, comps) in enumerate(team)]
    for i, path, doc, comps in labelled:
        found, x = candidate_rows(component_candidates(doc, matchers), ids, first_mention)
        for key, features in zip(found, x):
            xs.append(features)
            ys.append(int(key.split(".", 1)[1] in comps))
            doc_index.append(i)
            keys.append(key)
            sources.append(source_of(path))
    width = candidate_width(ids, first_mention)
    return ComponentData(np.array(xs).reshape(-1, width), np.array(ys), np.array(doc_index), keys, truth, sources)


def team_component_docs(root: Path, taxonomy: Taxonomy, gold_paths: set[str], files: Iterable[Path] | None = None,
                        config=None, warn: Callable[[str], None] | None = None, *,
                        gold_shas: set[str] | None = None) -> tuple[list[tuple[str, object, set[str]]], list[str]]:
    """The team's component labels of non-gold documents, each with its analysed Doc.

    The same documents are left out as for category labels (:func:`labelled_texts`).

    Args:
        files: Component label files; ``corpus/component_labels/*.jsonl`` of this checkout when None.

    Returns:
        ``(docs, skipped)``: ``(path, doc, components)`` triples and why each left-out line was left out.

    Raises:
        LabelError: a line is invalid (:func:`read_component_labels`) or its evidence lies outside its text.
    """
    files = sorted(COMPONENT_LABELS_DIR.glob("*.jsonl")) if files is None else sorted(files)
    kept, docs, skipped = labelled_docs(root, read_component_labels(files, taxonomy), gold_paths, gold_shas,
                                        config, warn, "component")
    return [(label.path, doc, set(label.components)) for (label, _), doc in zip(kept, docs)], skipped


def fit_components(data: ComponentData, settings: TagSettings, rows: np.ndarray | None = None):
    """A logistic regression saying whether a named component was involved."""
    from sklearn.linear_model import LogisticRegression

    idx = np.arange(len(data.y)) if rows is None else rows
    return LogisticRegression(C=settings.component_c, max_iter=5000, random_state=settings.seed).fit(
        data.x[idx], data.y[idx])


def cv_components(data: ComponentData, settings: TagSettings, fold_of: dict[int, int],
                  source_fold: dict[str, int] | None = None) -> dict:
    """Set scores of out-of-fold component predictions on the gold documents.

    Args:
        fold_of: Gold document index -> fold.
        source_fold: Source -> fold when whole sources are held out: a team-labelled row then
            leaves training in its source's fold. Without it, team rows train in every fold.
    """
    team = data.team_rows()
    fold = np.array([fold_of.get(int(d), -1) if not t else (source_fold or {}).get(src, -1)
                     for d, t, src in zip(data.doc, team, data.source or [""] * len(data.doc))])
    probs = np.zeros(len(data.y))
    for k in sorted(set(fold_of.values())):
        test = (fold == k) & ~team
        train_rows = np.where(fold != k)[0]
        if not test.any() or not len(train_rows):
            continue
        model = fit_components(data, settings, train_rows)
        probs[test] = model.predict_proba(data.x[test])[:, 1]
    pairs = []
    for i, truth in sorted(data.gold.items()):
        rows = np.where(data.doc == i)[0]
        predicted = {data.keys[r].split(".", 1)[1] for r in rows if probs[r] >= settings.component_threshold}
        if not predicted and settings.component_keep_best and len(rows):
            # as the tagger does: the most likely candidate (ties: the first key in name order)
            predicted = {data.keys[min(rows, key=lambda r: (-probs[r], data.keys[r]))].split(".", 1)[1]}
        pairs.append((truth, predicted))
    return set_scores(pairs)
