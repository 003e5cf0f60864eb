"""Train the root-cause and contributing-factor category model, and measure it honestly.

Training data, all read from ``../shared/corpus`` and ``eval/gold`` at training time (nothing of
the corpus is copied into the repository):

- **gold cards** (``eval/gold/*.jsonl``, first pass): every document is run through the pipeline
  (without the tagger) and gives the model's inputs (:func:`pmparse.components.tagger.category_texts`);
  its card's ``root_cause_categories`` label every root-cause id (present = 1, absent = 0), and
  its ``contributing_factor_categories``, when the key is there, every contributing-factor id;
- **icco labels** (``labels/icco-postmortems.jsonl``): the one-line summary (focus) and title,
  keywords and summary (whole text); its ``categories`` map onto our ids through the taxonomy's
  ``label_maps.icco_categories`` (an id the icco file has a label for is 0 when the label is
  absent), and ``label_maps.icco_keywords`` adds positives for ids the file has no label for
  (those ids are never negatives from this source);
- **dfds Stats** ("Category:" lines of ``dfds/*.md``), mapped through
  ``label_maps.dfds_category``: only labels that map onto a category count (as positives).

Each category gets its own calibrated logistic regression over the rows that label it (so a
partial label never counts as a negative). It reads the text features and the cue counts of its
own category only (:func:`own_cue_mask`), and its sigmoid is fitted on folds that keep each
document's rows together (:func:`calibration_folds`). Figures on the gold set come from grouped
cross-validation: each gold document is predicted by a model that did not see it (its dfds Stats
row included), trained on the other folds plus the extra sources. The saved model is then trained
on everything.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np

from .components.tagger import (
    CANDIDATE_REGIONS,
    CATEGORY_GROUPS,
    DEFAULT_MODEL_DIR,
    FOCUS_FIELDS,
    CategoryModel,
    Matchers,
    candidate_rows,
    category_texts,
    component_candidates,
    cue_vocabulary,
    decide_categories,
    model_rows,
)
from .corpus import REPO_ROOT, corpus_root
from .errors import GoldError, UsageError
from .evaluate_facts import confusion, confusion_markdown, set_scores
from .linear import check_export, export_calibrated, export_features, export_logistic
from .taxonomy import Taxonomy, load_taxonomy

GOLD_DIR = REPO_ROOT / "eval" / "gold"
SECOND_PASS = "second_pass.jsonl"
ICCO = Path("labels") / "icco-postmortems.jsonl"
# blanks, not \s: with MULTILINE a leading \s* would run across blank lines (quadratic)
_DFDS_CATEGORY = re.compile(r"^[ \t]*[-*][ \t]*Category:[ \t]*(?P<label>[^\n]+?)[ \t]*$", re.MULTILINE | re.IGNORECASE)


@dataclass
class Example:
    """One training row.

    Attributes:
        group: What ties rows of one document together (its corpus path); CV never splits it.
        focus: The focused text (root-cause, trigger and contributing-factor units, or a summary).
        whole: The whole text.
        labels: ``group.id`` -> 1 or 0 for the ids this row labels; other ids are unknown.
        weight: Sample weight.
        source: ``gold``, ``icco`` or ``dfds``.
    """

    group: str
    focus: str
    whole: str
    labels: dict[str, int]
    weight: float = 1.0
    source: str = "gold"


@dataclass
class Settings:
    """Hyper-parameters of the category model."""

    c: float = 4.0
    extra_weight: float = 1.0
    hash_bits: int = 14
    threshold: float = 0.4
    fallback: float = 0.25
    min_positives: int = 3
    seed: int = 0
    folds: int = 5
    component_c: float = 1.0
    component_threshold: float = 0.4
    cue_gate: float = 0.1
    repeats: int = 3
    own_cues: bool = True


# --- data -----------------------------------------------------------------------------------


def read_gold(files: Iterable[Path] | None = None) -> list[dict]:
    """First-pass gold documents (one per id) from ``eval/gold``.

    Raises:
        GoldError: a line is not JSON or lacks ``id``/``path``.
    """
    files = sorted(files) if files is not None else sorted(p for p in GOLD_DIR.glob("*.jsonl") if p.name != SECOND_PASS)
    docs: dict[str, dict] = {}
    for path in files:
        for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise GoldError(f"line {number}: expected JSON, found {exc.msg}", str(path)) from exc
            if not isinstance(row, dict) or "id" not in row or "path" not in row:
                raise GoldError(f"line {number}: expected a gold document with id and path", str(path))
            docs.setdefault(row["id"], row)
    return list(docs.values())


def gold_labels(card: dict, taxonomy: Taxonomy) -> dict[str, int]:
    """Labels of a gold card: every id of each category group the card states."""
    labels: dict[str, int] = {}
    for group in CATEGORY_GROUPS:
        if group not in card:
            continue
        given = set(card.get(group) or [])
        for taxon in taxonomy.groups.get(group, ()):
            labels[taxon.key] = int(taxon.id in given)
    return labels


def untagged_pipeline(config=None):
    """The pipeline up to the facts (no tagger): what the tagger's inputs are made from."""
    from .pipeline import get, pipeline_config

    if config is None:
        config = pipeline_config()
    return get(dataclasses.replace(config, tagger=False))


def analysed_docs(paths: list[Path], config=None) -> list:
    """Docs of ``paths`` after the pipeline up to the facts (no tagger)."""
    from .ingest import ingest
    from .pipeline import analyse

    nlp = untagged_pipeline(config)
    return [analyse(nlp, ingest(str(path))) for path in paths]


def gold_examples(gold: list[dict], docs: list, taxonomy: Taxonomy) -> list[Example]:
    """Training rows of the gold documents (``docs``: their analysed Docs, in the same order)."""
    examples = []
    for row, doc in zip(gold, docs):
        focus, whole, _ = category_texts(doc)
        labels = gold_labels(row.get("card", {}), taxonomy)
        if not labels:
            continue
        examples.append(Example(row["path"], focus, whole, labels, 1.0, "gold"))
        # the annotated root-cause, trigger and contributing-factor spans: the same labels over a
        # cleaner focus; a training row only (cross-validation keeps it with its document)
        spans = sorted((s["start"], s["end"]) for s in row.get("spans", []) if s.get("field") in FOCUS_FIELDS)
        if spans:
            text = doc.text
            examples.append(Example(row["path"], "\n".join(text[a:b] for a, b in spans), whole, labels, 1.0,
                                    "gold_spans"))
    return examples


def icco_examples(path: Path, taxonomy: Taxonomy, weight: float) -> list[Example]:
    """Training rows of the icco label file (summaries with mapped categories)."""
    mapping = taxonomy.label_maps.get("icco_categories", {})
    keyword_maps = [(re.compile(p, re.IGNORECASE), keys) for p, keys in taxonomy.label_maps.get("icco_keywords", {}).items()]
    covered = {key for keys in mapping.values() for key in keys}
    examples = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        summary = (row.get("summary") or "").strip()
        categories = row.get("categories") or []
        if not summary or not categories:
            continue
        labels = {key: 0 for key in covered}
        for category in categories:
            for key in mapping.get(category, ()):
                labels[key] = 1
        keywords = " ".join(str(k) for k in row.get("keywords") or [])
        for pattern, keys in keyword_maps:
            if pattern.search(keywords) or pattern.search(summary):
                for key in keys:
                    labels[key] = 1
        whole = " ".join(part for part in (row.get("title") or "", summary, keywords) if part)
        examples.append(Example(f"icco/{row.get('uuid', len(examples))}", summary, whole, labels, weight, "icco"))
    return examples


def dfds_examples(root: Path, taxonomy: Taxonomy, weight: float, config=None) -> list[Example]:
    """Training rows of dfds reports whose Stats "Category" maps onto a category id."""
    mapping = taxonomy.label_maps.get("dfds_category", {})
    picked: list[tuple[Path, dict[str, int]]] = []
    for path in sorted((root / "dfds").glob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        match = _DFDS_CATEGORY.search(text)
        if not match:
            continue
        keys = [k for k in mapping.get(match.group("label").strip().lower(), ()) if k.split(".")[0] in CATEGORY_GROUPS]
        if keys:
            picked.append((path, {k: 1 for k in keys}))
    if not picked:
        return []
    docs = analysed_docs([p for p, _ in picked], config)
    examples = []
    for (path, labels), doc in zip(picked, docs):
        focus, whole, _ = category_texts(doc)
        examples.append(Example(path.relative_to(root).as_posix(), focus, whole, labels, weight, "dfds"))
    return examples


# --- model ----------------------------------------------------------------------------------


def make_features(taxonomy: Taxonomy, bits: int):
    """The unfitted feature transformer over ``(focus, whole, cues)`` rows.

    Hashing keeps the model free of any vocabulary (no corpus words are stored in it).
    """
    from sklearn.compose import ColumnTransformer
    from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfTransformer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import MaxAbsScaler

    def hashed(**kwargs):
        return Pipeline([("hash", HashingVectorizer(n_features=2**bits, alternate_sign=False, norm=None, **kwargs)),
                         ("tfidf", TfidfTransformer(sublinear_tf=True))])

    return ColumnTransformer([
        ("focus_words", hashed(ngram_range=(1, 2)), 0),
        ("focus_chars", hashed(analyzer="char_wb", ngram_range=(3, 5)), 0),
        ("whole_words", hashed(ngram_range=(1, 1)), 1),
        ("cues", Pipeline([("count", CountVectorizer(vocabulary=cue_vocabulary(taxonomy), token_pattern=r"\S+",
                                                      lowercase=False)),
                           ("scale", MaxAbsScaler())]), 2),
    ])


def calibration_folds(examples: list[Example], y: np.ndarray, seed: int,
                      folds: int = 3) -> list[tuple[np.ndarray, np.ndarray]]:
    """Internal folds of a category's calibration: shuffled, stratified and grouped by document.

    The rows of one document (its gold row, its annotated-spans row) share the whole text: split
    across folds, one would score the other as if it had seen it, and the sigmoid fitted on
    those scores would be fitted to a leak. Plain (unshuffled) folds are worse still: the rows are
    ordered by source, so each fold would hold out mostly one source. Falls back to shuffled
    stratified folds when grouping leaves a training fold with one class.
    """
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold

    n = max(2, int(min(folds, y.sum(), len(y) - y.sum())))
    groups = [ex.group for ex in examples]
    if len(set(groups)) >= n:
        splits = list(StratifiedGroupKFold(n, shuffle=True, random_state=seed).split(np.zeros(len(y)), y, groups))
        if all(len(set(y[train].tolist())) == 2 and len(test) for train, test in splits):
            return splits
    return list(StratifiedKFold(n, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))


def own_cue_mask(features, taxonomy: Taxonomy, key: str, width: int) -> np.ndarray:
    """1 for every feature column except the cue counts of categories other than ``key``.

    A classifier that sees every category's cue counts learns from the small gold set that, say,
    a capacity cue speaks against a software bug; those weights do not carry to new documents.
    Each classifier keeps the text features and its own category's cue counts (focus and whole).
    """
    mask = np.ones(width)
    block = features.output_indices_.get("cues")
    if block is None:
        return mask
    for j, word in enumerate(cue_vocabulary(taxonomy)):
        if word.split("__", 1)[1] != key:
            mask[block.start + j] = 0.0
    return mask


def fit(examples: list[Example], rows: np.ndarray, taxonomy: Taxonomy, settings: Settings,
        name: str = "categories") -> CategoryModel:
    """Fit the feature transformer and one calibrated classifier per category with enough data.

    Args:
        examples: Training rows' labels and weights.
        rows: Their model input (:func:`pmparse.components.tagger.model_rows`).
        taxonomy: The taxonomy whose category ids are learned.
        settings: Hyper-parameters.
        name: Model name for records.
    """
    from scipy import sparse
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.linear_model import LogisticRegression

    features = make_features(taxonomy, settings.hash_bits).fit(rows)
    x = features.transform(rows)
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
            "settings": dataclasses.asdict(settings)}
    # the run-time form (numpy only), checked against scikit-learn on a sample of the rows
    exported = CategoryModel(export_features(features), export_calibrated(classifiers), meta)
    probe = rows[:: max(1, len(rows) // 200)]
    if classifiers and len(probe):
        expected = np.column_stack([classifiers[k].predict_proba(features.transform(probe))[:, 1]
                                    for k in exported.keys])
        found = np.array([[p[k] for k in exported.keys] for p in exported.predict_rows(probe)])
        check_export(expected, found, "category model")
    return exported


def decide(probs: dict[str, float], settings: Settings, cues: Iterable[str] = ()) -> dict[str, set[str]]:
    """Predicted ids per category group from probabilities and the focused text's cue keys."""
    out = {}
    for group in CATEGORY_GROUPS:
        fallback = settings.fallback if group == "root_cause_categories" else None
        keys = decide_categories(probs, group, settings.threshold, fallback, cues, settings.cue_gate)
        out[group] = {k.split(".", 1)[1] for k in keys}
    return out


def cross_validate(examples: list[Example], rows: np.ndarray, taxonomy: Taxonomy, settings: Settings,
                   fold_of: dict[str, int]) -> list[dict[str, float]]:
    """Out-of-fold probabilities for every gold example (other rows get ``{}``).

    Args:
        examples: Every training row.
        rows: Their model input.
        taxonomy: The taxonomy.
        settings: Hyper-parameters.
        fold_of: Gold document group (corpus path) -> fold. Each fold is predicted by a model
            fitted on the other folds and on every extra row whose document is not in the fold.
    """
    out: list[dict[str, float]] = [{} for _ in examples]
    for fold in sorted(set(fold_of.values())):
        test = [i for i, ex in enumerate(examples) if ex.source == "gold" and fold_of.get(ex.group) == fold]
        if not test:
            continue
        train = [i for i, ex in enumerate(examples) if fold_of.get(ex.group) != fold]
        model = fit([examples[i] for i in train], rows[train], taxonomy, settings)
        for i, probs in zip(test, model.predict_rows(rows[test])):
            out[i] = probs
    return out


def cv_report(examples: list[Example], probs: list[dict[str, float]], settings: Settings,
              cues: list[set[str]] | None = None) -> dict:
    """Scores of out-of-fold predictions on the gold examples (``cues``: cue keys of each row's focus)."""
    pairs: dict[str, list[tuple[set[str], set[str]]]] = {g: [] for g in CATEGORY_GROUPS}
    for i, (ex, p) in enumerate(zip(examples, probs)):
        if ex.source != "gold":
            continue
        predicted = decide(p, settings, cues[i] if cues else ())
        for group in CATEGORY_GROUPS:
            keys = [k for k in ex.labels if k.startswith(group + ".")]
            if keys:
                gold = {k.split(".", 1)[1] for k in keys if ex.labels[k]}
                pairs[group].append((gold, predicted[group]))
    report = {group: set_scores(found) for group, found in pairs.items()}
    report["root_cause_confusion"] = confusion(pairs["root_cause_categories"])
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


# --- components -----------------------------------------------------------------------------


@dataclass
class ComponentData:
    """Component candidates of the gold documents: model input, labels and where they come from."""

    x: np.ndarray
    y: np.ndarray
    doc: np.ndarray
    keys: list[str]
    gold: dict[int, set[str]] = field(default_factory=dict)


def component_data(gold: list[dict], docs: list, matchers: Matchers, ids: list[str]) -> ComponentData:
    """One row per component a gold document names (its card states ``components``)."""
    xs, ys, doc_index, keys, truth = [], [], [], [], {}
    for i, (row, doc) in enumerate(zip(gold, docs)):
        card = row.get("card", {})
        if "components" not in card:
            continue
        truth[i] = set(card["components"])
        found, x = candidate_rows(component_candidates(doc, matchers), ids)
        for key, features in zip(found, x):
            xs.append(features)
            ys.append(int(key.split(".", 1)[1] in truth[i]))
            doc_index.append(i)
            keys.append(key)
    width = len(CANDIDATE_REGIONS) + 2 + len(ids)
    return ComponentData(np.array(xs).reshape(-1, width), np.array(ys), np.array(doc_index), keys, truth)


def fit_components(data: ComponentData, settings: Settings, rows: np.ndarray | None = None):
    """A logistic regression saying whether a named component was involved."""
    from sklearn.linear_model import LogisticRegression

    idx = np.arange(len(data.y)) if rows is None else rows
    return LogisticRegression(C=settings.component_c, max_iter=5000, random_state=settings.seed).fit(
        data.x[idx], data.y[idx])


def cv_components(data: ComponentData, settings: Settings, fold_of: dict[int, int]) -> dict:
    """Set scores of out-of-fold component predictions (``fold_of``: gold doc index -> fold)."""
    probs = np.zeros(len(data.y))
    for fold in sorted(set(fold_of.values())):
        test = np.array([fold_of.get(int(d), -1) == fold for d in data.doc])
        if not test.any() or test.all():
            continue
        model = fit_components(data, settings, np.where(~test)[0])
        probs[test] = model.predict_proba(data.x[test])[:, 1]
    pairs = []
    for i, truth in sorted(data.gold.items()):
        predicted = {data.keys[r].split(".", 1)[1] for r in np.where(data.doc == i)[0]
                     if probs[r] >= settings.component_threshold}
        pairs.append((truth, predicted))
    return set_scores(pairs)


def gold_folds(gold: list[dict], settings: Settings) -> dict[int, int]:
    """Fold of each gold document: a seeded shuffle of documents dealt into ``settings.folds`` folds."""
    rng = np.random.default_rng(settings.seed)
    order = rng.permutation(len(gold))
    return {int(doc): k % settings.folds for k, doc in enumerate(order)}


# --- entry point ----------------------------------------------------------------------------


def build_examples(root: Path, taxonomy: Taxonomy, settings: Settings, gold: list[dict], docs: list,
                   config=None) -> list[Example]:
    """Every training row: gold documents, icco summaries and dfds Stats categories."""
    examples = gold_examples(gold, docs, taxonomy)
    icco = root / ICCO
    if icco.is_file():
        examples += icco_examples(icco, taxonomy, settings.extra_weight)
    examples += dfds_examples(root, taxonomy, settings.extra_weight, config)
    return examples


def train(output: str | Path | None = None, corpus: str | None = None, gold_files: Iterable[Path] | None = None,
          settings: Settings | None = None, taxonomy_path: str | None = None, evaluate: bool = True,
          config=None) -> dict:
    """Train the tag model (categories and components), measure it by grouped cross-validation and
    save it with its model card.

    Args:
        output: Model folder; ``models/categories`` when None.
        corpus: Corpus root; ``$PMPARSE_CORPUS`` or ``../shared/corpus`` when None.
        gold_files: Gold JSONL files; ``eval/gold/*.jsonl`` (first pass) when None.
        settings: Hyper-parameters (defaults when None).
        taxonomy_path: A taxonomy file extending or replacing the packaged one.
        evaluate: Run the cross-validation (False only saves a model).
        config: The pipeline configuration the inputs are made with (the default field model or
            heading rules when None).

    Returns:
        A summary: ``model`` path, ``examples`` per source, ``cv`` scores (categories, components
        and the root-cause confusion table), ``baseline``, label counts and settings.

    Raises:
        UsageError: the corpus is missing or holds no gold document with category labels.
    """
    settings = settings or Settings()
    root = corpus_root(corpus)
    taxonomy = load_taxonomy(taxonomy_path)
    gold = read_gold(gold_files)
    docs = analysed_docs([root / row["path"] for row in gold], config)
    examples = build_examples(root, taxonomy, settings, gold, docs, config)
    if not any(ex.source == "gold" for ex in examples):
        raise UsageError("expected gold documents with category labels, found none")
    matchers = Matchers(untagged_pipeline(config), taxonomy)
    rows = model_rows(matchers, [(ex.focus, ex.whole) for ex in examples])
    component_ids = taxonomy.ids("components")
    components = component_data(gold, docs, matchers, component_ids)
    cues = [set(matchers.cue_counts(ex.focus)) for ex in examples]
    summary: dict = {"examples": dict(Counter(ex.source for ex in examples)),
                     "component_candidates": int(len(components.y))}
    if evaluate:
        repeats = []
        for repeat in range(max(1, settings.repeats)):
            run = dataclasses.replace(settings, seed=settings.seed + repeat)
            folds = gold_folds(gold, run)
            probs = cross_validate(examples, rows, taxonomy, run, {row["path"]: folds[i] for i, row in enumerate(gold)})
            report = cv_report(examples, probs, run, cues)
            report["components"] = cv_components(components, run, folds)
            repeats.append(report)
        summary["cv"] = repeats[0]
        summary["cv_repeats"] = [{name: {k: r[name][k] for k in ("precision", "recall", "f1", "macro_f1")}
                                  for name in (*CATEGORY_GROUPS, "components")} for r in repeats]
        summary["cv_mean"] = {name: {k: round(float(np.mean([r[name][k] for r in summary["cv_repeats"]])), 4)
                                     for k in ("precision", "recall", "f1", "macro_f1")}
                              for name in (*CATEGORY_GROUPS, "components")}
        summary["baseline"] = baseline_report(examples)
    name = f"tags-{_dt.date.today().isoformat()}"
    model = fit(examples, rows, taxonomy, settings, name)
    if len(set(components.y.tolist())) == 2:
        model.components = export_logistic(fit_components(components, settings))
        model.meta["component_ids"] = component_ids
        model.meta["component_threshold"] = settings.component_threshold
    folder = Path(output) if output else DEFAULT_MODEL_DIR
    path = model.save(folder)
    summary["model"] = str(path)
    summary["size_bytes"] = path.stat().st_size
    summary["classifiers"] = model.keys
    summary["skipped"] = model.meta["skipped"]
    summary["label_counts"] = {k: int(sum(ex.labels.get(k, 0) for ex in examples if ex.source != "gold_spans"))
                               for k in model.keys + model.meta["skipped"]}
    summary["settings"] = dataclasses.asdict(settings)
    summary["field_model"] = untagged_pipeline(config).has_pipe("pmparse_unit_classifier")
    (folder / "README.md").write_text(model_card(summary), encoding="utf-8")
    return summary


def model_card(summary: dict) -> str:
    """The model card (``models/categories/README.md``) from a training summary."""
    lines = [
        "# Tag model (root-cause categories, contributing-factor categories, components)",
        "",
        "Written by `pmparse train-categories` (`pmparse.train_categories.train`); do not edit by hand.",
        "",
        f"- **Model**: `{Path(summary['model']).name}` ({summary['size_bytes']:,} bytes) and `meta.json`: numeric "
        "arrays read with `allow_pickle=False` plus JSON settings, never pickle. Trained with scikit-learn, then "
        "exported to `pmparse.linear`, which predicts the same probabilities (checked at training) without "
        "importing scikit-learn at run time.",
        "- **What it is**: one calibrated (sigmoid, 3-fold) logistic regression per category (one-vs-rest) over "
        "hashed word 1-2-grams and character 3-5-grams of the root-cause, trigger and contributing-factor units "
        "plus the summary, hashed words of the whole text, and "
        + ("counts of the category's own cue phrases from the taxonomy, in the focused and in the whole text (the "
           "other categories' cue counts are left out: `own_cues`, chosen by comparing the cross-validated "
           "figures below, one more reason to read them as slightly optimistic)"
           if summary["settings"].get("own_cues", True) else "counts of every category's cue phrases from the taxonomy")
        + ". The calibration folds are shuffled and keep the rows of one document together. Hashing means the "
        "file stores no corpus vocabulary.",
        f"- **Decisions**: a category is tagged at probability >= {summary['settings']['threshold']}, or at >= "
        f"{summary['settings']['cue_gate']} when one of its cue phrases occurs in the focused text; when no "
        f"root-cause category is, the most likely one is kept at >= {summary['settings']['fallback']}, else the card "
        "abstains (no category). These three values were chosen by looking at the cross-validated figures below, "
        "which makes those figures slightly optimistic.",
        "- **Data** (read at training time, never copied): the gold cards of `eval/gold` (first pass), the "
        "`labels/icco-postmortems.jsonl` summaries and the dfds Stats `Category` lines, mapped onto our ids by "
        "`label_maps` in `src/pmparse/resources/taxonomy.yaml` (a partial label never counts as a negative).",
        "- **Components**: the taxonomy's phrases find candidates; a logistic regression over where each is "
        "named (log counts in the title, summary and each field's units, share of the most named component, the "
        f"component id) keeps those involved, at probability >= {summary['settings']['component_threshold']}. "
        f"Trained on {summary['component_candidates']} candidates of the gold documents.",
        f"- **Inputs** made with the field {'model' if summary.get('field_model') else 'heading rules (no field model)'}.",
        f"- **Rows**: {summary['examples']}; positives per category: {summary['label_counts']}.",
        f"- **Categories without a classifier** (too few positives; tagged from taxonomy synonyms only): "
        f"{summary['skipped'] or 'none'}.",
        f"- **Settings**: {summary['settings']}.",
        "",
    ]
    lines.append(figures_markdown(summary))
    lines += ["## Limits", "",
              "- The gold set is small (86 documents, 8 sources); per-category figures for rare categories "
              "(`expiry_or_time`, `security_incident`, `unknown`) rest on a handful of documents.",
              "- `hardware_failure` and `power_or_facility` have no gold document: their classifiers learn from "
              "icco summaries only and are not measured here.",
              "- The shipped model is trained on every gold document, so `pmparse eval` figures for categories "
              "and components are in-sample; quote the cross-validated figures above.",
              "- The inputs depend on the field labeler: retrain after the field model or the heading table "
              "changes.",
              ""]
    return "\n".join(lines)


def figures_markdown(summary: dict) -> str:
    """The cross-validated figures of a training summary, as markdown (model card and CLI)."""
    cv = summary.get("cv", {})
    rc = cv.get("root_cause_categories", {})
    cf = cv.get("contributing_factor_categories", {})
    base = summary.get("baseline", {})
    if not cv:
        return "No figures: trained without cross-validation.\n"
    lines = [
        "## Figures (grouped cross-validation on the gold set)",
        "",
        f"Each gold document is predicted by a model that did not see it ({summary['settings']['folds']} folds of "
        f"whole documents, repeated {len(summary.get('cv_repeats', []))} times with different seeds; the extra "
        "sources stay in every training fold). Mean over the repeats, with the range. Reproduce with "
        "`pmparse train-categories` (prints the same table).",
        "",
        "| tags | documents | precision | recall | set F1 (micro) | macro F1 |",
        "|---|---|---|---|---|---|",
    ]
    for label, name in (("root-cause categories", "root_cause_categories"),
                        ("contributing-factor categories", "contributing_factor_categories"),
                        ("components", "components")):
        if name not in summary.get("cv_mean", {}):
            continue
        mean = summary["cv_mean"][name]
        runs = [r[name] for r in summary["cv_repeats"]]

        def cell(key: str) -> str:
            values = [r[key] for r in runs]
            return f"{mean[key]:.3f} ({min(values):.2f}-{max(values):.2f})"

        lines.append(f"| {label} | {cv[name]['documents']} | {cell('precision')} | {cell('recall')} | {cell('f1')} | "
                     f"{cell('macro_f1')} |")
    if base:
        lines.append(f"| baseline: always `{base['predict']}` (root cause) | {base['documents']} | {base['precision']:.3f} | "
                     f"{base['recall']:.3f} | {base['f1']:.3f} | {base['macro_f1']:.3f} |")
    lines += ["", "Per-label figures and the confusion table below are from the first repeat."]
    if rc:
        lines += ["", "Per root-cause category F1 (support): " + ", ".join(
            f"{k} {v:.2f} ({rc['support'][k]})" for k, v in rc["per_label_f1"].items()), ""]
    if cf:
        lines += ["Per contributing-factor category F1 (support): " + ", ".join(
            f"{k} {v:.2f} ({cf['support'][k]})" for k, v in cf["per_label_f1"].items()), ""]
    if cv.get("root_cause_confusion"):
        lines += ["### Root-cause confusion (rows gold, columns predicted)", "",
                  confusion_markdown(cv["root_cause_confusion"]), ""]
    return "\n".join(lines)
