"""Train the root-cause and contributing-factor category model, and measure it honestly.

Training data, all read from ``../shared/corpus`` and ``eval/gold`` at training time (nothing of
the corpus is copied into the repository):

- **gold cards** (``eval/gold/*.jsonl``, first pass): every document is run through the pipeline
  (without the tagger) and gives the model's inputs (:func:`pmparse.nlp.tag_reading.category_texts`);
  its card's ``root_cause_categories`` label every root-cause id (present = 1, absent = 0), and
  its ``contributing_factor_categories``, when the key is there, every contributing-factor id;
- **team labels** (``corpus/category_labels/*.jsonl`` of this checkout, :class:`TeamLabel`):
  full root-cause and contributing-factor labels the team wrote for non-gold corpus documents,
  run through the pipeline like a gold document (source ``team``); they train in every fold of
  the document-grouped cross-validation and leave with their source in the source-held-out one;
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
document's rows together (:func:`calibration_folds`). Figures on the gold set come from two
cross-validations: grouped by document (each gold document is predicted by a model that did not
see it, its dfds Stats row included, trained on the other folds plus the extra sources), and
leave one source out (:func:`row_folds`: every row of the held-out source leaves training, the
project's rule for a reported figure). The saved model is then trained on everything.
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from pmparse.errors import UsageError
from pmparse.evaluation.corpus import corpus_root, source_of
from pmparse.evaluation.gold_cards import Example, read_gold
from pmparse.nlp.components.tagger import DEFAULT_MODEL_DIR
from pmparse.nlp.tag_reading import CATEGORY_GROUPS, Matchers, model_rows
from pmparse.rules.taxonomy import Taxonomy, load_taxonomy
from pmparse.training.export import export_logistic
from pmparse.training.spans import read_training_spans
from pmparse.training.tags.card import model_card
from pmparse.training.tags.field_cards import CARD_SPANS, field_card_examples
from pmparse.training.tags.fit import (
    baseline_report,
    component_data,
    cross_validate,
    cv_components,
    cv_report,
    fit,
    fit_components,
    team_component_docs,
)
from pmparse.training.tags.features import hash_rows
from pmparse.training.tags.folds import gold_folds, row_folds, source_folds
from pmparse.training.tags.inputs import TagSettings, analysed_docs, gold_examples, untagged_pipeline
from pmparse.training.tags.labels import (
    COMPONENT_LABELS_DIR,
    ICCO,
    LABELS_DIR,
    dfds_examples,
    icco_examples,
    read_component_labels,
    read_team_labels,
    team_examples,
)
from pmparse.training.tags.written_cards import (
    CATEGORIES_FILE,
    WRITTEN_CARD_SPANS,
    read_written_categories,
    written_card_examples,
)
from pmparse.util import available_cores

#: The set scores averaged over the repeats of the document-grouped cross-validation.
SET_SCORES = ("precision", "recall", "f1", "macro_f1")

#: Where the hand-written part of the model card starts (kept when the card is regenerated).
HISTORY_HEADING = "## Tried and not kept"


def build_examples(root: Path, taxonomy: Taxonomy, settings: TagSettings, gold: list[dict], docs: list,
                   config=None, label_files: Iterable[Path] | None = None,
                   warn: Callable[[str], None] | None = None,
                   span_files: Iterable[Path] | None = None,
                   card_files: Iterable[Path] | None = None, written_categories: Path | None = None,
                   written_file: Path | None = None) -> tuple[list[Example], list[str]]:
    """Every training row: gold documents, team labels (with their root-cause spans when
    ``settings.team_spans``; ``span_files``, or ``corpus/root_cause_spans`` when None), the
    annotated cards of other documents when ``settings.field_cards``, the team's written
    postmortems when ``settings.written_cards``, icco summaries and dfds Stats categories.

    Args:
        card_files: Annotation files whose cards give rows; ``corpus/field_spans/batch_*.jsonl`` when None.
        written_categories: Category facts of the written postmortems; ``corpus/written/categories.jsonl``
            when None.
        written_file: The built written postmortems; ``corpus/written/written.jsonl`` when None.
        jobs: Cross-validation folds fitted at once (:func:`cross_validate`); the cores this
            process may use when None.

    Returns:
        ``(examples, skipped)``: the rows and the team label lines left out, with why.
    """
    examples = gold_examples(gold, docs, taxonomy)
    gold_paths = {row["path"] for row in gold}
    gold_shas = {row["sha256"] for row in gold if row.get("sha256")}
    spans = (read_training_spans(root, span_files, exclude=gold_paths, exclude_shas=gold_shas, warn=warn).spans
             if settings.team_spans else None)
    team, skipped = team_examples(root, taxonomy, settings.team_weight, gold_paths, label_files,
                                  config, warn, settings.team_evidence, gold_shas=gold_shas, spans=spans)
    examples += team
    if settings.field_cards:
        # a document's team label line or gold card comes first; the annotated card fills the rest
        examples += field_card_examples(root, taxonomy, settings.team_weight, gold_paths | {ex.group for ex in team},
                                        gold_shas, card_files, config, settings.team_spans, warn)
    if settings.written_cards:
        # text the team wrote: never gold, its source is no gold source, so it trains in every fold
        examples += written_card_examples(taxonomy, settings.team_weight, written_categories, written_file,
                                          config, settings.team_spans, warn)
    icco = root / ICCO
    if icco.is_file():
        examples += icco_examples(icco, taxonomy, settings.extra_weight)
    examples += dfds_examples(root, taxonomy, settings.extra_weight, config)
    return examples, skipped


def train(output: str | Path | None = None, corpus: str | None = None, gold_files: Iterable[Path] | None = None,
          settings: TagSettings | None = None, taxonomy_path: str | None = None, evaluate: bool = True,
          config=None, label_files: Iterable[Path] | None = None, warn: Callable[[str], None] | None = None,
          component_label_files: Iterable[Path] | None = None, card_files: Iterable[Path] | None = None,
          written_categories: Path | None = None, written_file: Path | None = None,
          jobs: int | None = None) -> dict:
    """Train the tag model (categories and components), measure it by grouped cross-validation and
    save it with its model card.

    Args:
        output: Model folder; ``src/pmparse/models/categories`` when None.
        corpus: Corpus root; ``$PMPARSE_CORPUS`` or ``../shared/corpus`` when None.
        gold_files: Gold JSONL files; ``eval/gold/*.jsonl`` (first pass) when None.
        settings: Hyper-parameters (defaults when None).
        taxonomy_path: A taxonomy file extending or replacing the packaged one.
        evaluate: Run the cross-validation (False only saves a model).
        config: The pipeline configuration the inputs are made with (the default field model or
            heading rules when None).
        label_files: Team category label files; ``corpus/category_labels/*.jsonl`` when None.
        warn: Called with each warning (team label lines left out).
        component_label_files: Team component label files; ``corpus/component_labels/*.jsonl`` when None.
        card_files: All-field annotation files whose cards give rows (``settings.field_cards``);
            ``corpus/field_spans/batch_*.jsonl`` when None.
        written_categories: Category facts of the written postmortems (``settings.written_cards``);
            ``corpus/written/categories.jsonl`` when None.
        written_file: The built written postmortems; ``corpus/written/written.jsonl`` when None.
        jobs: Cross-validation folds fitted at once (:func:`cross_validate`); the cores this
            process may use when None.

    Returns:
        A summary: ``model`` path, ``examples`` per source, ``cv`` scores (categories, components
        and the root-cause confusion table), ``baseline``, label counts and settings.

    Raises:
        UsageError: the corpus is missing or holds no gold document with category labels.
        LabelError: a team label line is invalid.
    """
    settings = settings or TagSettings()
    jobs = jobs or available_cores()
    root = corpus_root(corpus)
    taxonomy = load_taxonomy(taxonomy_path)
    gold = read_gold(gold_files, root)
    # a list: the files are read twice (an iterator would be empty the second time)
    label_files = sorted(LABELS_DIR.glob("*.jsonl")) if label_files is None else list(label_files)
    # a bad label line stops training before minutes of pipeline work, not after
    read_team_labels(label_files, taxonomy)
    component_label_files = (sorted(COMPONENT_LABELS_DIR.glob("*.jsonl")) if component_label_files is None
                             else list(component_label_files))
    read_component_labels(component_label_files, taxonomy)
    if settings.written_cards:
        read_written_categories(written_categories or CATEGORIES_FILE, taxonomy)
    docs = analysed_docs([root / row["path"] for row in gold], config)
    examples, skipped = build_examples(root, taxonomy, settings, gold, docs, config, label_files, warn,
                                       card_files=card_files, written_categories=written_categories,
                                       written_file=written_file)
    if not any(ex.source == "gold" for ex in examples):
        raise UsageError("expected gold documents with category labels, found none")
    matchers = Matchers(untagged_pipeline(config), taxonomy)
    rows = model_rows(matchers, [(ex.focus, ex.whole) for ex in examples])
    component_ids = taxonomy.ids("components")
    team_components, component_skipped = team_component_docs(
        root, taxonomy, {row["path"] for row in gold}, component_label_files, config, warn,
        gold_shas={row["sha256"] for row in gold if row.get("sha256")})
    components = component_data(gold, docs, matchers, component_ids, settings.component_first_mention,
                                team_components)
    cues = [set(matchers.cue_counts(ex.focus)) for ex in examples]
    # hashing is stateless: every fit below takes its rows' counts from here (the same model)
    hashed = hash_rows(rows, settings.hash_bits)
    summary: dict = {"examples": dict(Counter(ex.source for ex in examples)), "team_skipped": skipped,
                     "component_candidates": int((~components.team_rows()).sum()),
                     "component_team": {"documents": len(team_components),
                                        "candidates": int(components.team_rows().sum()),
                                        "skipped": component_skipped}}
    if evaluate:
        repeats = []
        for repeat in range(max(1, settings.repeats)):
            run = settings.replaced(seed=settings.seed + repeat)
            folds = gold_folds(gold, run)
            probs = cross_validate(examples, rows, taxonomy, run, row_folds(examples, gold, folds), jobs=jobs,
                                   hashed=hashed)
            report = cv_report(examples, probs, run, cues)
            report["components"] = cv_components(components, run, folds)
            repeats.append(report)
        summary["cv"] = repeats[0]
        summary["cv_repeats"] = [{**{name: {k: r[name][k] for k in SET_SCORES}
                                     for name in (*CATEGORY_GROUPS, "components")},
                                  "root_cause_primary": {"share": r["root_cause_primary"]["share"]}}
                                 for r in repeats]
        summary["cv_mean"] = {name: {k: round(float(np.mean([r[name][k] for r in summary["cv_repeats"]])), 4)
                                     for k in summary["cv_repeats"][0][name]}
                              for name in summary["cv_repeats"][0]}
        summary["baseline"] = baseline_report(examples)
        # leave one source out: the project's rule for a reported figure (no document of the
        # held-out source, gold or extra, is seen); one run, the folds are not random
        by_source = row_folds(examples, gold)
        probs = cross_validate(examples, rows, taxonomy, settings, by_source, jobs=jobs, hashed=hashed)
        report = cv_report(examples, probs, settings, cues)
        sources = source_folds(gold)
        report["components"] = cv_components(components, settings,
                                             {i: sources[source_of(row["path"])] for i, row in enumerate(gold)},
                                             sources)
        summary["cv_sources"] = report
    name = f"tags-{_dt.date.today().isoformat()}"
    model = fit(examples, rows, taxonomy, settings, name, hashed)
    if len(set(components.y.tolist())) == 2:
        model.components = export_logistic(fit_components(components, settings))
        model.meta["component_ids"] = component_ids
        model.meta["component_threshold"] = settings.component_threshold
        model.meta["component_keep_best"] = settings.component_keep_best
        model.meta["component_first_mention"] = settings.component_first_mention
    folder = Path(output) if output else DEFAULT_MODEL_DIR
    path = model.save(folder)
    summary["model"] = str(path)
    summary["size_bytes"] = path.stat().st_size
    summary["classifiers"] = model.keys
    summary["skipped"] = model.meta["skipped"]
    documents = [ex for ex in examples if ex.source not in ("gold_spans", "team_evidence", "team_spans",
                                                                  CARD_SPANS, WRITTEN_CARD_SPANS)]  # one row each
    summary["label_counts"] = {k: int(sum(ex.labels.get(k, 0) for ex in documents))
                               for k in model.keys + model.meta["skipped"]}
    summary["settings"] = settings.as_dict()
    summary["field_model"] = untagged_pipeline(config).has_pipe("pmparse_unit_classifier")
    card = folder / "README.md"
    # the generated card is followed by the hand-written training history, which a retrain keeps
    old = card.read_text(encoding="utf-8") if card.exists() else ""
    history = old[old.index(HISTORY_HEADING):] if HISTORY_HEADING in old else ""
    card.write_text(model_card(summary) + ("\n" + history if history else ""), encoding="utf-8")
    return summary
