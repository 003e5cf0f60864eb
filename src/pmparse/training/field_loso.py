"""Leave-one-source-out evaluation of the field model, its tuning grid search and error analysis."""

from __future__ import annotations

import functools
import itertools
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pmparse.card.schema import TEXT_FIELDS
from pmparse.errors import UsageError
from pmparse.evaluation.corpus import REPO_ROOT, hold_out_groups
from pmparse.ingest.read import ingest_bytes
from pmparse.nlp.components.classifier import NONE, UnitModel
from pmparse.nlp.components.fields import label_fields
from pmparse.rules.cues import load_cues
from pmparse.training.field_labels import MODEL_NAME, MODEL_VERSION, analyse_structure, structure_pipeline
from pmparse.training.fields import (
    DEFAULT_SETTINGS,
    GOLD_DIR,
    SYSTEMS,
    TUNING_GRID,
    VARIANTS,
    FieldSettings,
    fit,
    gold_paths,
    held_out_paths,
    training_examples,
    training_spans,
)
from pmparse.training.heading_model import examples_headings, fit_heading_model

LOSO_FLOORS_PATH = REPO_ROOT / "eval" / "loso_floors.json"


@dataclass
class _HeldOut:
    """One gold document of a held-out source, analysed once, with its fold's raw probabilities."""

    id: str
    source: str
    text: str
    annotated: list[str]
    gold: dict[str, list[tuple[int, int]]]
    doc: object
    model: UnitModel
    raw: np.ndarray
    calibration: tuple[list[float], list[float]] | None = None
    group: str = ""

    def __post_init__(self) -> None:
        self.group = self.group or self.source

    @functools.cached_property
    def tokens(self) -> np.ndarray:
        """Token bounds of ``text`` (read once: every unit's coverage is counted on them)."""
        from pmparse.evaluation.metrics import token_bounds

        return token_bounds(self.text)

    @functools.cached_property
    def gold_masks(self) -> dict[str, np.ndarray]:
        """Per field, the tokens its gold spans cover."""
        from pmparse.evaluation.metrics import token_mask

        return {name: token_mask(self.tokens, self.gold.get(name, [])) for name in TEXT_FIELDS}


def _spans(doc) -> dict[str, list[tuple[int, int]]]:
    spans: dict[str, list[tuple[int, int]]] = {}
    for span in doc.spans.get("fields", []):
        spans.setdefault(span.label_, []).append((span.start_char, span.end_char))
    return spans


def _predict(item: _HeldOut, system: str, settings: FieldSettings, decoded=None) -> dict[str, list[tuple[int, int]]]:
    """Predicted spans per field of one held-out document for a system."""
    doc = item.doc
    units = doc.spans["units"]
    if system == "keywords":
        from pmparse.nlp.components.keywords import keyword_field, load_keywords

        table = load_keywords()
        spans: dict[str, list[tuple[int, int]]] = {}
        for unit in units:
            name = keyword_field(unit.text, table)
            if name is not None and name != NONE:
                spans.setdefault(name, []).append((unit.start_char, unit.end_char))
        return spans
    if system == "headings":
        units.attrs.pop("probs", None)
        label_fields(doc)
    else:
        units.attrs["probs"] = decoded if decoded is not None else item.model.decode(item.raw, settings.sequence_weight)
        label_fields(doc, **settings.labeler(), calibration=item.calibration)
    return _spans(doc)


def _scores(items: list[_HeldOut], system: str, settings: FieldSettings, decoded: dict | None = None) -> list:
    from pmparse.evaluation.metrics import score_spans

    return [score_spans(item.id, item.source, item.text, item.annotated, item.gold,
                        _predict(item, system, settings, decoded.get(item.id) if decoded else None))
            for item in items]


def _field_f1(scores) -> dict[str, float]:
    """Per-field token F1 (counts summed over documents) and ``macro_f1``."""
    from pmparse.training.field_breakdown import add_counts, f1_table

    total: dict[str, list[int]] = {}
    for score in scores:
        add_counts(total, score.counts)
    return f1_table(total)


def _shortfalls(headed: dict[str, float], headings: dict[str, float]) -> dict[str, float]:
    """Headed fields where the pipeline is below headings alone, and by how much."""
    return {name: headings[name] - headed[name] for name in TEXT_FIELDS if headed[name] < headings[name]}


def _objective(stripped: dict[str, float], headed: dict[str, float], headings: dict[str, float]) -> tuple:
    """What tuning maximises: stripped plus headed macro F1, less the headed fields' shortfall
    against headings alone counted once more at its macro weight (a field 0.01 below its headings
    costs 0.01 / 8 again).

    The shortfall used to come first, ahead of macro F1: on the 128 gold documents a shortfall
    0.005 smaller on one field then chose a threshold of 0.45 over 0.2, for 0.10 less stripped
    macro F1, because a higher threshold removes the model's items and leaves the headings'."""
    shortfall = sum(_shortfalls(headed, headings).values()) / len(TEXT_FIELDS)
    return (stripped["macro_f1"] + headed["macro_f1"] - shortfall,)


def tune(held: dict[str, list[_HeldOut]], base: FieldSettings, grid: dict[str, tuple] = TUNING_GRID) -> tuple[FieldSettings, list[dict]]:
    """Search the labeler settings on held-out predictions; returns the best and every point tried."""
    headings = _field_f1(_scores(held["headed"], "headings", base))
    tried = []
    best, best_value = base, None
    keys = list(grid)
    decoded_cache: dict[float, dict[str, dict]] = {}
    for values in itertools.product(*(grid[k] for k in keys)):
        settings = base.replaced(**dict(zip(keys, values)))
        if settings.sequence_weight not in decoded_cache:
            decoded_cache[settings.sequence_weight] = {
                variant: {item.id: item.model.decode(item.raw, settings.sequence_weight) for item in items}
                for variant, items in held.items()}
        decoded = decoded_cache[settings.sequence_weight]
        stripped = _field_f1(_scores(held["stripped"], "pipeline", settings, decoded["stripped"]))
        headed = _field_f1(_scores(held["headed"], "pipeline", settings, decoded["headed"]))
        value = _objective(stripped, headed, headings)
        tried.append({**{k: getattr(settings, k) for k in keys}, "stripped_macro_f1": stripped["macro_f1"],
                      "headed_macro_f1": headed["macro_f1"],
                      "headed_below_headings": sorted(_shortfalls(headed, headings))})
        if best_value is None or value > best_value:
            best, best_value = settings, value
    return best, tried


#: Link targets: markup the annotators never mark (``eval/GUIDE.md``), so their word pieces
#: ("https", "github", "com", ...) are not words of a unit a field could cover.
_URL = re.compile(r"(?:https?://|www\.)[^\s)\]>]+")


def _prose_mask(item: _HeldOut, tokens: np.ndarray, start: int, end: int) -> np.ndarray:
    """The word tokens of a unit outside link targets (all its tokens when it is only a link)."""
    from pmparse.evaluation.metrics import token_mask

    inside = token_mask(tokens, [(start, end)])
    links = token_mask(tokens, [(start + m.start(), start + m.end()) for m in _URL.finditer(item.text[start:end])])
    prose = inside & ~links
    return prose if prose.any() else inside


def unit_coverage(item: _HeldOut, start: int, end: int) -> dict[str, float]:
    """Per field, the share of a unit's words (outside link targets) its gold spans cover."""
    prose = _prose_mask(item, item.tokens, start, end)
    n = int(prose.sum())
    if not n:
        return {name: 0.0 for name in TEXT_FIELDS}
    return {name: int((item.gold_masks[name] & prose).sum()) / n for name in TEXT_FIELDS}


def unit_gold_label(item: _HeldOut, start: int, end: int) -> str:
    """The field whose gold spans cover at least half of a unit's words (most of them; link
    targets not counted), else ``none``."""
    share = unit_coverage(item, start, end)
    best = max(TEXT_FIELDS, key=lambda name: share[name])
    return best if share[best] and share[best] >= 0.5 else NONE


def unit_right(item: _HeldOut, start: int, end: int, label: str) -> bool:
    """Whether a unit given ``label`` is in a right field: that field's gold spans cover at least
    half of its words (link targets not counted). A sentence annotated as two fields (the guide
    allows it when it states both) is right in either."""
    return label in TEXT_FIELDS and unit_coverage(item, start, end)[label] >= 0.5


def error_analysis(items: list[_HeldOut], settings: FieldSettings) -> dict:
    """Unit-level view of the pipeline's errors on held-out documents.

    Returns:
        ``confusion[gold][predicted]`` unit counts (a unit's gold label per
        :func:`unit_gold_label`, ``none`` when no field is predicted); per field the number of
        gold units and how many of them fire that field's cue; and ``calibration``: for the units
        given a field, by confidence band, how many there are and the share whose gold label is
        that field (:func:`unit_right`).
    """
    cues = load_cues()
    labels = list(TEXT_FIELDS) + [NONE]
    confusion = {g: {p: 0 for p in labels} for g in labels}
    cue_hits = {name: {"gold_units": 0, "cue_fires": 0} for name in TEXT_FIELDS}
    bands = [0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.01]
    hits = np.zeros(len(bands) - 1)
    totals = np.zeros(len(bands) - 1)
    for item in items:
        _predict(item, "pipeline", settings)
        group = item.doc.spans["fields"]
        by_start = {span.start_char: (span.label_, score) for span, score in zip(group, group.attrs["scores"])}
        for unit in item.doc.spans["units"]:
            gold = unit_gold_label(item, unit.start_char, unit.end_char)
            predicted, score = by_start.get(unit.start_char, (NONE, None))
            confusion[gold][predicted] += 1
            if score is not None:
                band = int(np.searchsorted(bands, score, side="right")) - 1
                totals[band] += 1
                hits[band] += unit_right(item, unit.start_char, unit.end_char, predicted)
            if gold != NONE:
                cue_hits[gold]["gold_units"] += 1
                cue_hits[gold]["cue_fires"] += int(gold in cues.hits(unit.text))
    calibration = [{"confidence": f"{bands[i]:.1f}-{min(bands[i + 1], 1.0):.1f}", "units": int(totals[i]),
                    "correct": float(hits[i] / totals[i]) if totals[i] else None} for i in range(len(totals))]
    return {"confusion": confusion, "cues": cue_hits, "calibration": calibration}


def leave_one_source_out(root: Path, gold_dir: Path = GOLD_DIR, seed: int = 0, settings: FieldSettings = DEFAULT_SETTINGS,
                         rounds: int = 1000, tune_grid: dict[str, tuple] | None = None, progress=None,
                         use_spans: bool = False, dev_files: list[Path] | None = None, warn=None,
                         labels: str = "weak", calibrate: bool = False, written: float = 0.0,
                         on_held_out=None, heading_model: bool = False) -> dict:
    """Train on every source but one, score the gold documents of the held-out source; every source in turn.

    Args:
        root: Corpus root.
        gold_dir: Gold folder (its documents never enter training).
        seed: Training seed.
        settings: Training and labeler settings (the labeler part is replaced by the tuned one
            when ``tune_grid`` is given).
        rounds: Bootstrap rounds of the intervals.
        tune_grid: Search these labeler settings on the held-out predictions first.
        progress: Called with a message after each fold.
        use_spans: Train on the team's root-cause spans too (they leave with their source).
        dev_files: Score the documents of these development files (as written, the ``headed``
            variant only) instead of the gold set's; they are kept out of training too, so a
            change can be judged with sources held out without reading gold figures.
        warn: Called with each training span line left out.
        labels: What the model learns from: ``weak`` (the fields headings name), ``annotated``
            (the fields annotators marked, :mod:`pmparse.training.field_annotations`) or ``both``.
        calibrate: Calibrate confidences on the held-out units (:func:`calibrate_held_out`): the
            figures are then those of the calibrated labeler and its threshold.
        written: Above 0, every fold also trains on the team's written postmortems, rows weighted
            this much (:func:`~pmparse.training.fields.training_examples`).
        on_held_out: Called with the held-out documents of every fold (``{variant: [_HeldOut]}``,
            each with its fold's raw probabilities) once the folds are trained, so a measurement
            can reuse them instead of training the folds again (as the calibration experiment did: ``docs/history.md``).
        heading_model: Also fit a heading model (:mod:`pmparse.training.heading_model`) on each
            fold's training documents and read the held-out documents' headings with it (the
            headings-alone baseline then reads them with it too).

    Returns:
        A report: ``{"stripped": {system: summary}, "headed": {...}, "settings", "folds", ...}``
        with systems ``pipeline``, ``headings`` and ``keywords`` (summaries as ``pmparse eval``);
        ``headed`` only with ``dev_files``.
    """
    from pmparse.evaluation.gold import default_gold_files, gold_text, load_gold
    from pmparse.evaluation.metrics import scoring_view, summarise

    started = time.time()
    root = Path(root)
    nlp = structure_pipeline()
    sectionizer = nlp.get_pipe("pmparse_sectionizer")
    exclude = gold_paths(gold_dir, root)
    if dev_files:
        if tune_grid:
            raise UsageError("expected --tune on the gold set, found it with a development set")
        exclude |= held_out_paths(dev_files, root)
        variants: tuple[str, ...] = ("headed",)
        gold = {"headed": load_gold(dev_files, root)}
    else:
        variants = VARIANTS
        gold = {variant: load_gold(default_gold_files(variant), root) for variant in VARIANTS}
    spans = training_spans(root, exclude, warn, gold_dir) if use_spans else None
    examples = training_examples(root, exclude, nlp, spans, warn, labels, written, settings.row_features())
    group_of = hold_out_groups()
    groups = sorted({group_of.get(d.source, d.source) for docs in gold.values() for d in docs})
    held: dict[str, list[_HeldOut]] = {variant: [] for variant in variants}
    folds = {}
    for source in groups:  # a hold-out group: one source, or sources of one author and template
        train_examples = [e for e in examples if group_of.get(e.source, e.source) != source]
        result = fit(train_examples, seed, settings)
        folds[source] = {"train_documents": result.documents, "label_counts": result.label_counts}
        # the fold's heading model never saw the held-out group's headings either
        sectionizer.heading_model = (fit_heading_model(examples_headings(train_examples), seed)
                                     if heading_model else None)
        for variant in variants:
            docs = [d for d in gold[variant] if group_of.get(d.source, d.source) == source]
            folds[source][f"{variant}_gold_documents"] = len(docs)
            for g in docs:
                text = gold_text(g, root)
                ingested = ingest_bytes(text.encode("utf-8"), g.path or f"{g.id}.md")
                doc = analyse_structure(nlp, ingested)
                # an HTML page is scored on its extracted text, its gold carried over to it
                scored, gold_of = scoring_view(g, text, ingested.text if ingested.extracted else None)
                held[variant].append(_HeldOut(g.id, g.source, scored, list(g.annotated), gold_of, doc,
                                              result.model, result.model.raw_probs(doc), group=source))
        if progress is not None:
            progress(f"fold {source}: trained on {result.documents} documents, "
                     f"{sum(len(held[v]) for v in variants)} documents scored so far")
    sectionizer.heading_model = None
    if on_held_out is not None:
        on_held_out(held)
    report: dict = {"labels": labels, "written_weight": written, "seed": seed, "cues_version": load_cues().version,
                    "heading_model": heading_model,
                    "model": f"{MODEL_NAME}-v{MODEL_VERSION}",
                    "root_cause_span_documents": len(spans.spans) if spans is not None else 0}
    if dev_files:
        report["scored"] = [str(f) for f in dev_files]
    if tune_grid:
        settings, tried = tune(held, settings, tune_grid)
        report["tuning"] = {"grid": {k: list(v) for k, v in tune_grid.items()}, "best": settings.as_dict(),
                            "objective": "stripped + headed macro F1, less the headed fields' shortfall against "
                                         "headings alone divided by the number of fields", "points": tried}
    if calibrate:
        settings, report["calibration"] = calibrate_held_out(held, settings)
    for variant in variants:
        report[variant] = {system: summarise(_scores(held[variant], system, settings), rounds) for system in SYSTEMS}
        report[variant]["pipeline"]["units"] = error_analysis(held[variant], settings)
    report["breakdown"] = breakdown(held, settings)
    report["settings"] = settings.as_dict()
    report["folds"] = folds
    report["seconds"] = round(time.time() - started, 1)
    return report


def breakdown(held: dict[str, list[_HeldOut]], settings: FieldSettings) -> dict:
    """The held-out figures split by style, by heading status (free-form headed documents) and
    per hold-out group (:mod:`pmparse.training.field_breakdown`)."""
    from pmparse.evaluation.corpus import source_styles
    from pmparse.evaluation.metrics import token_mask
    from pmparse.training.field_breakdown import group_calibration, heading_status, status_counts, status_f1, style_f1

    from pmparse.nlp.components.sectionizer import table_sections
    from pmparse.rules.headings import load_headings

    style_of = source_styles()
    table = load_headings()
    result: dict = {"styles": {}, "calibration": {}}
    for variant, items in held.items():
        result["styles"][variant] = style_f1(((s.source, s.counts) for s in _scores(items, "pipeline", settings)),
                                             style_of)
        documents: dict[str, int] = {}
        for item in items:
            documents[item.group] = documents.get(item.group, 0) + 1
        group_style = {item.group: style_of.get(item.source, "templated") for item in items}
        result["calibration"][variant] = group_calibration(_held_out_pairs(items, settings), documents, group_style)
    per_doc, statuses = [], []
    for item in held.get("headed", []):
        if style_of.get(item.source) != "free-form":
            continue
        predicted = _predict(item, "pipeline", settings)
        # the table's reading alone: the same words count as under an unknown heading whether or
        # not a heading model mapped it, so runs with and without one compare
        status = heading_status(item.tokens, table_sections(item.doc, table))
        masks = {name: token_mask(item.tokens, predicted.get(name, [])) for name in TEXT_FIELDS}
        per_doc.append(status_counts(item.gold_masks, masks, status))
        gold_any = np.any([item.gold_masks[name] for name in TEXT_FIELDS], axis=0)
        statuses.append(status[gold_any])
    result["free_form_headings"] = status_f1(per_doc, statuses)
    return result


def loso_markdown(report: dict) -> str:
    """The per-field F1 table of a leave-one-source-out report (its variants, three systems); a
    development report scores only the fields its documents annotate."""
    variants = [v for v in VARIANTS if v in report]
    names = [n for n in TEXT_FIELDS if any(report[v]["pipeline"]["fields"][n]["gold_tokens"] for v in variants)]
    lines = ["| field | " + " | ".join(f"{v} {s}" for v in variants for s in SYSTEMS) + " |",
             "|---|" + "---:|" * (len(variants) * len(SYSTEMS))]
    for name in names:
        lines.append(f"| {name} | " + " | ".join(
            f"{report[v][s]['fields'][name]['f1']:.3f}" for v in variants for s in SYSTEMS) + " |")
    lines.append("| **macro F1** | " + " | ".join(
        f"**{report[v][s]['macro_f1']:.3f}** [{report[v][s]['interval95']['macro_f1'][0]:.2f}-"
        f"{report[v][s]['interval95']['macro_f1'][1]:.2f}]" for v in variants for s in SYSTEMS) + " |")
    per_source = report[variants[0]]["pipeline"]["per_source"]
    lines += ["", f"Per held-out source (pipeline, {'heading-stripped' if variants[0] == 'stripped' else 'headed'}, "
              "macro F1): " + ", ".join(f"{src} {v['macro_f1']:.2f} ({v['documents']})" for src, v in per_source.items())]
    return "\n".join(lines)


#: Calibrated thresholds :func:`calibrate_held_out` chooses among.
CALIBRATED_THRESHOLDS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)


def _held_out_pairs(items: list[_HeldOut], settings: FieldSettings) -> list[tuple[str, float, bool]]:
    """``(hold-out group, confidence, right)`` of every unit the labeler gives a field with
    ``settings`` and each document's calibration (right: :func:`unit_right`)."""
    pairs = []
    for item in items:
        _predict(item, "pipeline", settings)
        group = item.doc.spans["fields"]
        for span, score in zip(group, group.attrs["scores"]):
            pairs.append((item.group, float(score), unit_right(item, span.start_char, span.end_char, span.label_)))
    return pairs


def calibrate_held_out(held: dict[str, list[_HeldOut]], settings: FieldSettings) -> tuple[FieldSettings, dict]:
    """Calibrate the labeler's confidences on held-out units and choose its threshold.

    Each held-out document is given a calibration fitted on the other hold-out groups' units only
    (cross-fitted), the threshold on calibrated confidence is chosen among
    :data:`CALIBRATED_THRESHOLDS` by the tuning objective, and the calibration's figures (expected
    calibration error, precision at 0.8) are measured on the items that threshold keeps.

    Returns:
        The settings with the chosen threshold, and ``{"knots": [scores, probabilities] fitted on
        every held-out unit, "threshold", "figures": {variant: ...}, "thresholds": [...]}``.
    """
    from pmparse.training.field_calibration import calibration_figures, fit_calibration, knots_by_source

    # every unit given a field with no threshold and no calibration yet: the raw scores to calibrate
    for items in held.values():
        for item in items:
            item.calibration = None
    open_settings = settings.replaced(threshold=0.0)
    raw = {variant: _held_out_pairs(items, open_settings) for variant, items in held.items()}
    pairs = [pair for found in raw.values() for pair in found]
    sources = [p[0] for p in pairs]
    scores = np.array([p[1] for p in pairs])
    right = np.array([p[2] for p in pairs])
    by_source = knots_by_source(sources, scores, right)
    for items in held.values():
        for item in items:
            item.calibration = by_source[item.group]
    headings = _field_f1(_scores(held["headed"], "headings", settings)) if "headed" in held else None
    tried, best, best_value = [], settings, None
    for threshold in CALIBRATED_THRESHOLDS:
        candidate = settings.replaced(threshold=threshold)
        f1 = {variant: _field_f1(_scores(items, "pipeline", candidate)) for variant, items in held.items()}
        value = (_objective(f1["stripped"], f1["headed"], headings) if headings and "stripped" in f1
                 else (sum(v["macro_f1"] for v in f1.values()),))
        tried.append({"threshold": threshold, **{f"{v}_macro_f1": round(f["macro_f1"], 4) for v, f in f1.items()}})
        if best_value is None or value > best_value:
            best, best_value = candidate, value
    figures = {}
    for variant, items in held.items():
        # the items the chosen threshold keeps, with their cross-fitted confidences
        kept = _held_out_pairs(items, best)
        figures[variant] = calibration_figures(np.array([p[1] for p in kept]), np.array([p[2] for p in kept]))
        figures[variant]["units_scored_without_threshold"] = len(raw[variant])
    return best, {"knots": list(fit_calibration(scores, right)), "threshold": best.threshold,
                  "figures": figures, "thresholds": tried}
