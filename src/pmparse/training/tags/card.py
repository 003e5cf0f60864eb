"""The tag model's card (README) and its figures against the floors of ``eval/categories_floors.json``."""

from __future__ import annotations

from pathlib import Path

from pmparse.errors import UsageError
from pmparse.evaluation.corpus import REPO_ROOT
from pmparse.evaluation.facts import confusion_markdown
from pmparse.evaluation.floors import floor_figures


def model_card(summary: dict) -> str:
    """The model card (``src/pmparse/models/categories/README.md``) from a training summary.

    Short by design: what the model is, what it learns from, its held-out figures and limits. Why
    each setting is what it is, and the experiments behind it, are in ``docs/history.md``; the
    hand-written "tried" table after the generated part is carried over by a retrain.
    """
    settings = summary["settings"]
    rows = summary["examples"]
    sources = [("gold cards of `eval/gold` and their annotated spans", ("gold", "gold_spans")),
               ("the team's category labels (`corpus/category_labels`) and root-cause spans "
                "(`corpus/root_cause_spans`)", ("team", "team_spans", "team_evidence")),
               ("the card facts of the all-field annotations (`corpus/field_spans`)",
                ("field_card", "field_card_spans")),
               ("the postmortems the team wrote (`corpus/written`, root-cause categories only)",
                ("written_card", "written_card_spans")),
               ("icco summaries and dfds Stats lines, mapped by the taxonomy's `label_maps`", ("icco", "dfds"))]
    data = [f"  - {what}: {sum(rows.get(k, 0) for k in keys):,} rows" for what, keys in sources
            if sum(rows.get(k, 0) for k in keys)]
    team = summary.get("component_team", {})
    lines = [
        "# Tag model (root-cause categories, contributing-factor categories, components)",
        "",
        "Written by `pmparse train-categories` (`pmparse.training.tags.train`); the generated part is not "
        "edited by hand. Why each setting is what it is: `docs/history.md`, \"Tag model\".",
        "",
        f"- **Files**: `{Path(summary['model']).name}` ({summary['size_bytes']:,} bytes, numeric arrays read with "
        "`allow_pickle=False`) and `meta.json` (settings, labels). Trained with scikit-learn, predicted with "
        "numpy (`pmparse.nlp.linear`, checked equal at training).",
        "- **What it is**: one calibrated logistic regression per category (one-vs-rest) over hashed word and "
        "character n-grams of the root-cause, trigger and contributing-factor units and the summary, hashed "
        "words of the whole text, and counts of the category's cue phrases (taxonomy). Hashing stores no "
        "corpus vocabulary.",
        f"- **Decisions**: tagged at probability >= {settings['threshold']} (>= {settings['cue_gate']} with a cue "
        f"phrase in the focused text); with none, the most likely root cause is kept at >= {settings['fallback']}"
        + (", else `unknown`" if settings.get("unsure_unknown") else ", else none")
        + (f"; at most {settings['max_root_causes']} root causes" if settings.get("max_root_causes") else "") + ".",
        f"- **Components**: candidates from the taxonomy's phrases, kept by a logistic regression over where "
        f"each is named, at >= {settings['component_threshold']}"
        + ("; with none, the most likely candidate" if settings.get("component_keep_best") else "")
        + f". Trained on {summary['component_candidates']:,} gold candidates"
        + (f" and {team['candidates']:,} of {team['documents']} team-labelled documents "
           "(`corpus/component_labels`)" if team.get("documents") else "") + ".",
        f"- **Inputs** made with the field {'model' if summary.get('field_model') else 'heading rules (no field model)'}.",
        "- **Data** (read at training time, offsets only, never copied):",
        *data,
        f"- **Categories without a classifier** (tagged from taxonomy phrases only): {summary['skipped'] or 'none'}.",
        f"- **Settings**: `{summary['settings']}`.",
        "",
    ]
    lines.append(figures_markdown(summary))
    lines += ["## Limits", "",
              "- Per-category figures for rare categories (`expiry_or_time`, `power_or_facility`, "
              "`security_incident`, `unknown`) rest on a handful of gold documents.",
              "- The shipped model is trained on every gold document: `pmparse eval`'s category figures are "
              "in-sample; quote the source-held-out figures above.",
              "- Team labels are one annotator per document (second passes measure their agreement, in "
              "`corpus/category_labels/README.md` and `corpus/component_labels/README.md`).",
              "- The inputs depend on the field labeler: retrain after the field model or the heading table "
              "changes.",
              ""]
    return "\n".join(lines)


def figures_markdown(summary: dict) -> str:
    """The cross-validated figures of a training summary, as markdown (model card and CLI)."""
    cv = summary.get("cv", {})
    loso = summary.get("cv_sources", {})
    base = summary.get("baseline", {})
    if not cv:
        return "No figures: trained without cross-validation.\n"
    names = (("root-cause categories", "root_cause_categories"),
             ("contributing-factor categories", "contributing_factor_categories"),
             ("components", "components"))
    lines = [
        "## Figures (cross-validation on the gold set)",
        "",
        f"Two ways of holding data out. **Documents**: each gold document is predicted by a model that did not "
        f"see it ({summary['settings']['folds']} folds of whole documents, repeated "
        f"{len(summary.get('cv_repeats', []))} times with different seeds; the extra sources stay in every "
        "training fold); mean over the repeats, with the range. **Sources**: each of the gold set's "
        f"{len(loso.get('root_cause_by_source', {})) or 'n'} sources is held out in turn (leave one source out, "
        "one run: the folds are not random), together with every extra row of that source (other dfds Stats "
        "rows, team labels), so the model has seen neither the documents nor the template and wording of the "
        "source it is scored on; this is the figure to quote. Reproduce with `pmparse train-categories` "
        "(prints the same tables).",
        "",
        "| tags | held out | documents | precision | recall | set F1 (micro) | macro F1 |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, name in names:
        if name not in summary.get("cv_mean", {}):
            continue
        mean = summary["cv_mean"][name]
        runs = [r[name] for r in summary["cv_repeats"]]

        def cell(key: str) -> str:
            values = [r[key] for r in runs]
            return f"{mean[key]:.3f} ({min(values):.2f}-{max(values):.2f})"

        lines.append(f"| {label} | documents | {cv[name]['documents']} | {cell('precision')} | {cell('recall')} | "
                     f"{cell('f1')} | {cell('macro_f1')} |")
        if name in loso:
            held = loso[name]
            lines.append(f"| {label} | sources | {held['documents']} | {held['precision']:.3f} | "
                         f"{held['recall']:.3f} | {held['f1']:.3f} | {held['macro_f1']:.3f} |")
    if base:
        lines.append(f"| baseline: always `{base['predict']}` (root cause) | - | {base['documents']} | "
                     f"{base['precision']:.3f} | {base['recall']:.3f} | {base['f1']:.3f} | {base['macro_f1']:.3f} |")
    lines += ["", "Per-label figures, sources held out."]
    for title, report in (("sources", loso),):
        rc = report.get("root_cause_categories", {})
        cf = report.get("contributing_factor_categories", {})
        if rc:
            lines += ["", f"Per root-cause category F1 (support), {title} held out: " + ", ".join(
                f"{k} {v:.2f} ({rc['support'][k]})" for k, v in rc["per_label_f1"].items())]
        if cf:
            lines += ["", f"Per contributing-factor category F1 (support), {title} held out: " + ", ".join(
                f"{k} {v:.2f} ({cf['support'][k]})" for k, v in cf["per_label_f1"].items())]
    primary = summary.get("cv_mean", {}).get("root_cause_primary")
    for title, report in (("documents", cv), ("sources", loso)):
        if report.get("root_cause_primary", {}).get("documents"):
            held = report["root_cause_primary"]
            # documents held out: the mean over the repeats, as in the table above
            share = primary["share"] if title == "documents" and primary else held["share"]
            lines += ["", f"Primary root-cause category (the most confident) among the gold card's, {title} held "
                      f"out: {share:.3f} of {held['documents']} documents."]
    if loso.get("root_cause_by_source"):
        lines += ["", "Root-cause set F1 of each source when it is held out (documents): " + ", ".join(
            f"{k} {v['f1']:.2f} ({v['documents']})" for k, v in loso["root_cause_by_source"].items())]
    lines.append("")
    for title, report in (("sources held out", loso),):
        if report.get("root_cause_confusion"):
            lines += [f"### Root-cause confusion, {title} (rows gold, columns predicted)", "",
                      confusion_markdown(report["root_cause_confusion"]), ""]
    return "\n".join(lines)

#: Floors of the cross-validated tag figures, checked by ``pmparse train-categories --check-floors`` (CI).
FLOORS_PATH = REPO_ROOT / "eval" / "categories_floors.json"

#: The figures floored: ``(name, summary group, score)``.
FLOORED = (("root_cause_macro_f1", "root_cause_categories", "macro_f1"),
           ("root_cause_f1", "root_cause_categories", "f1"),
           ("contributing_factor_macro_f1", "contributing_factor_categories", "macro_f1"),
           ("components_f1", "components", "f1"),
           # the card's most confident root cause among the gold card's (issue 23)
           ("root_cause_primary", "root_cause_primary", "share"))


def cv_figures(summary: dict) -> dict[str, dict[str, float]]:
    """The floored figures of a training summary: ``{"sources": {...}, "documents": {...}}``.

    Sources held out is the leave-one-source-out run; documents held out the mean of the repeats.

    Raises:
        UsageError: the summary has no cross-validated figures (trained with ``evaluate=False``).
    """
    if "cv_sources" not in summary or "cv_mean" not in summary:
        raise UsageError("expected cross-validated figures, found a model trained without them")
    return {held: {name: float(report[group][score]) for name, group, score in FLOORED}
            for held, report in (("sources", summary["cv_sources"]), ("documents", summary["cv_mean"]))}


def check_category_floors(figures: dict[str, dict[str, float]], floors: dict) -> list[str]:
    """The figures below their floor by more than the floors' margin, as messages."""
    margin = floors.get("margin", 0.02)
    failures = []
    for held, names in floors.get("floors", {}).items():
        for name, floor in names.items():
            value = figures.get(held, {}).get(name)
            if value is None:
                failures.append(f"{held} held out: {name}: expected a figure, found none")
            elif value < floor - margin:
                failures.append(f"{held} held out: {name}: {value:.3f} is below its floor {floor:.2f} - margin {margin}")
    return failures


def new_category_floors(figures: dict[str, dict[str, float]], old: dict, allow_lower: bool) -> tuple[dict, list[str]]:
    """Floors set to the figures (rounded down to 0.01); a floor that would go down is kept unless
    ``allow_lower`` (lowering a floor is an explicit act).

    Returns:
        ``(floors, lowered)``, lowered naming each floor kept (or lowered, with ``allow_lower``).
    """
    floors = {"margin": old.get("margin", 0.02), "note": old.get("note", ""), "floors": {}}
    lowered = []
    for held, names in figures.items():
        floors["floors"][held], down = floor_figures(names, old.get("floors", {}).get(held, {}), allow_lower,
                                                     f"{held} held out")
        lowered += down
    return floors, lowered
