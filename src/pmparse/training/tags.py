"""Train the root-cause and contributing-factor category model, and measure it honestly.

Training data, all read from ``../shared/corpus`` and ``eval/gold`` at training time (nothing of
the corpus is copied into the repository):

- **gold cards** (``eval/gold/*.jsonl``, first pass): every document is run through the pipeline
  (without the tagger) and gives the model's inputs (:func:`pmparse.nlp.components.tagger.category_texts`);
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

import dataclasses
import datetime as _dt
import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pmparse.nlp.components.tagger import (
    CATEGORY_GROUPS,
    DEFAULT_MODEL_DIR,
    FOCUS_FIELDS,
    CategoryModel,
    Matchers,
    candidate_rows,
    candidate_width,
    category_texts,
    component_candidates,
    cue_vocabulary,
    decide_categories,
    model_rows,
)
from pmparse.evaluation.corpus import REPO_ROOT, corpus_root, path_problem, resolve_reference, source_of
from pmparse.errors import GoldError, LabelError, UsageError
from pmparse.evaluation.evaluate import corpus_path, floor_figures, floors_verdict, read_floors, save_floors
from pmparse.evaluation.facts import confusion, confusion_markdown, set_scores
from pmparse.nlp.linear import check_export, export_calibrated, export_features, export_logistic
from pmparse.rules.taxonomy import Taxonomy, load_taxonomy
from pmparse.training.spans import read_training_spans

GOLD_DIR = REPO_ROOT / "eval" / "gold"
#: Category labels the team wrote for non-gold corpus documents (offsets only, no corpus text).
LABELS_DIR = REPO_ROOT / "corpus" / "category_labels"
#: Component labels the team wrote for non-gold corpus documents (offsets only, no corpus text).
COMPONENT_LABELS_DIR = REPO_ROOT / "corpus" / "component_labels"
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
        source: ``gold``, ``gold_spans``, ``team``, ``team_spans``, ``team_evidence``, ``icco`` or ``dfds``.
    """

    group: str
    focus: str
    whole: str
    labels: dict[str, int]
    weight: float = 1.0
    source: str = "gold"


@dataclass
class Settings:
    """Hyper-parameters of the category model.

    Attributes:
        extra_weight: Sample weight of icco and dfds Stats rows (partial labels).
        team_weight: Sample weight of team label rows (full labels, like gold).
        team_evidence: Also train on a row whose focus is a team line's evidence stretches.
        team_spans: Also train on a row whose focus is a document's annotated root-cause spans
            (``corpus/root_cause_spans``), labelled with its team root-cause categories only.
        unsure_unknown: Tag root cause ``unknown`` when no root-cause category reaches
            ``fallback`` (see :func:`pmparse.nlp.components.tagger.decide_categories`).
        max_root_causes: Most root-cause categories a card gets, the most likely first (0: no limit).
        cue_needs_fallback: A cue-gated root cause needs the most likely one to reach ``fallback``
            when none reaches ``threshold`` (else the cause is ``unknown``).
        component_keep_best: When no component candidate reaches ``component_threshold``, keep the
            most likely one.
        component_first_mention: The component model also reads where a component is first named.
    """

    c: float = 4.0
    extra_weight: float = 1.0
    team_weight: float = 1.0
    team_evidence: bool = False
    team_spans: bool = True
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
    unsure_unknown: bool = True
    max_root_causes: int = 2
    cue_needs_fallback: bool = True
    component_keep_best: bool = True
    component_first_mention: bool = True


# --- data -----------------------------------------------------------------------------------


def read_gold(files: Iterable[Path] | None = None, root: Path | None = None) -> list[dict]:
    """First-pass gold documents (one per id) from ``eval/gold``.

    Args:
        files: Gold JSONL files; ``eval/gold/*.jsonl`` without the second pass when None.
        root: The corpus root; when given, a ``path`` pattern is replaced by the file it names
            (:func:`pmparse.evaluation.corpus.resolve_reference`).

    Raises:
        GoldError: a line is not JSON or lacks ``id``/``path``, or its path pattern names no
            single corpus file.
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
            if root is not None:
                row["path"] = corpus_path(root, row["path"], row["id"])
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
    from pmparse.nlp.pipeline import get, pipeline_config

    if config is None:
        config = pipeline_config()
    return get(dataclasses.replace(config, tagger=False))


def analysed_docs(paths: list[Path], config=None) -> list:
    """Docs of ``paths`` after the pipeline up to the facts (no tagger)."""
    from pmparse.ingest.read import ingest
    from pmparse.nlp.pipeline import analyse

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


class LabelEvidence(BaseModel):
    """Where a team label's reason stands in the document (offsets into its text as read)."""

    model_config = ConfigDict(extra="forbid")
    label: str = Field(description="The ``group.id`` this stretch supports.")
    start: int = Field(ge=0, description="First character.")
    end: int = Field(gt=0, description="One past the last character.")


class TeamLabel(BaseModel):
    """One line of ``corpus/category_labels/*.jsonl``: full category labels of one corpus document.

    Extra keys are refused: a misspelt ``root_cause_categories`` would otherwise leave a document
    with every category a negative.
    """

    model_config = ConfigDict(extra="forbid")
    path: str = Field(min_length=1, description="Path relative to the corpus root.")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="sha256 of the UTF-8 text the labels were read on.")
    root_cause_categories: list[str] = Field(min_length=1, description="Root-cause ids (``unknown`` when "
                                                                       "the report does not say).")
    contributing_factor_categories: list[str] = Field(description="Contributing-factor ids (may be empty).")
    evidence: list[LabelEvidence] = Field(default_factory=list, description="Stretches supporting the labels.")
    annotator: str = Field(min_length=1, description="Who labelled it.")


class ComponentLabel(BaseModel):
    """One line of ``corpus/component_labels/*.jsonl``: the components involved in one corpus document's failure.

    Extra keys are refused, as for :class:`TeamLabel`: a misspelt ``components`` would make every
    candidate of the document a negative.
    """

    model_config = ConfigDict(extra="forbid")
    path: str = Field(min_length=1, description="Path relative to the corpus root.")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="sha256 of the UTF-8 text the labels were read on.")
    components: list[str] = Field(description="Component ids involved in the failure (empty: none of the "
                                              "taxonomy's components was).")
    evidence: list[LabelEvidence] = Field(default_factory=list, description="Stretches showing each was involved.")
    annotator: str = Field(min_length=1, description="Who labelled it.")


@dataclass
class TeamLabels:
    """Team labels (:class:`TeamLabel` or :class:`ComponentLabel`) read from label files, and the
    lines left out with why."""

    labels: list = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    #: Where each kept label was read: corpus path -> ``(label file, line number)``.
    where: dict[str, tuple[str, int]] = field(default_factory=dict)


def _evidence_problem(label, given: set[str]) -> str | None:
    """Why a label line's evidence does not fit its labels, or None."""
    for ev in label.evidence:
        if ev.label not in given:
            return f"expected evidence for one of the line's labels, found {ev.label!r}"
        if ev.end <= ev.start:
            return f"expected evidence with start < end, found {ev.start}-{ev.end}"
    return None


def _check_component_label(label: ComponentLabel, taxonomy: Taxonomy) -> str | None:
    """What is wrong with a parsed component label line, or None."""
    problem = path_problem(label.path)
    if problem:
        return problem
    wrong = sorted(set(label.components) - set(taxonomy.ids("components")))
    if wrong:
        return f"expected component ids of the taxonomy, found unknown ids {wrong}"
    return _evidence_problem(label, {f"components.{i}" for i in label.components})


def _check_label(label: TeamLabel, taxonomy: Taxonomy) -> str | None:
    """What is wrong with a parsed label line, or None."""
    problem = path_problem(label.path)
    if problem:
        return problem
    given: set[str] = set()
    for group in CATEGORY_GROUPS:
        known = set(taxonomy.ids(group))
        ids = getattr(label, group)
        wrong = sorted(set(ids) - known)
        if wrong:
            return f"expected {group} ids of the taxonomy, found unknown ids {wrong}"
        given |= {f"{group}.{i}" for i in ids}
    if "unknown" in label.root_cause_categories and len(set(label.root_cause_categories)) > 1:
        return "expected `unknown` alone (the report does not say the cause), found it with other root causes"
    return _evidence_problem(label, given)


def _read_label_files(files: Iterable[Path], model, check: Callable, taxonomy: Taxonomy, kind: str) -> TeamLabels:
    """Read label lines of ``model`` from ``files``, each checked by ``check``; see :func:`read_team_labels`."""
    out = TeamLabels()
    seen: dict[str, str] = {}
    for path in sorted(files):
        try:
            content = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise LabelError(f"expected a readable UTF-8 label file, found {exc}", str(path)) from exc
        for number, line in enumerate(content.splitlines(), 1):
            if not line.strip():
                continue
            where = f"{Path(path).name}:{number}"
            try:
                label = model.model_validate_json(line)
            except ValidationError as exc:
                raise LabelError(f"line {number}: expected a {kind} label line, found: {exc}", str(path)) from exc
            problem = check(label, taxonomy)
            if problem:
                raise LabelError(f"line {number}: {problem}", str(path))
            if label.path in seen:
                out.skipped.append(f"{where}: {label.path} is labelled already ({seen[label.path]}); first kept")
                continue
            seen[label.path] = where
            out.labels.append(label)
            out.where[label.path] = (str(path), number)
    return out


def read_team_labels(files: Iterable[Path], taxonomy: Taxonomy) -> TeamLabels:
    """Read and validate team label files (one :class:`TeamLabel` per line).

    A line that is not a valid label is an annotator's mistake and stops training: skipping it
    would silently train on fewer documents. A document labelled twice keeps its first line (in
    file-name order) and the other is reported as skipped.

    Raises:
        LabelError: a line is not JSON, misses a key or has an extra one, names an id the
            taxonomy does not have, pairs ``unknown`` with another root cause, or gives evidence
            for a label it does not state.
    """
    return _read_label_files(files, TeamLabel, _check_label, taxonomy, "category")


def read_component_labels(files: Iterable[Path], taxonomy: Taxonomy) -> TeamLabels:
    """Read and validate component label files (one :class:`ComponentLabel` per line).

    Same rules as :func:`read_team_labels`: an invalid line stops training, a document labelled
    twice keeps its first line.

    Raises:
        LabelError: a line is not JSON, misses a key or has an extra one, names a component id the
            taxonomy does not have, or gives evidence for a component it does not list.
    """
    return _read_label_files(files, ComponentLabel, _check_component_label, taxonomy, "component")


def label_agreement(first: TeamLabels, second: TeamLabels) -> dict:
    """How two independent passes of category labels agree, on the documents both labelled.

    The first pass is taken as the reference (agreement is symmetric for set F1 and exact
    match; precision and recall swap).

    Returns:
        ``documents`` and, per category group, set scores (:func:`set_scores`: micro
        precision, recall, F1, per-category F1 and their macro average) plus ``exact``, the
        share of documents given exactly the same categories.
    """
    by_path = {label.path: label for label in first.labels}
    pairs = [(by_path[label.path], label) for label in second.labels if label.path in by_path]
    result: dict = {"documents": len(pairs)}
    for group in CATEGORY_GROUPS:
        sets = [(set(getattr(a, group)), set(getattr(b, group))) for a, b in pairs]
        scores = set_scores(sets)
        scores["exact"] = round(sum(a == b for a, b in sets) / len(sets), 4) if sets else 0.0
        result[group] = scores
    return result


def agreement_markdown(agreement: dict) -> str:
    """The agreement of :func:`label_agreement` as a Markdown table."""
    lines = [f"Agreement of two independent label passes on {agreement['documents']} documents (first pass as reference)",
             "", "| categories | set F1 | macro F1 | same set |", "|---|---|---|---|"]
    for group in CATEGORY_GROUPS:
        g = agreement[group]
        lines.append(f"| {group.replace('_', ' ')} | {g['f1']:.3f} | {g['macro_f1']:.3f} | {g['exact']:.3f} |")
    return "\n".join(lines)


def component_agreement(first: TeamLabels, second: TeamLabels) -> dict:
    """How two independent passes of component labels agree, on the documents both labelled.

    Returns:
        ``documents`` and ``components``: set scores (:func:`set_scores`) with the first pass as
        reference, plus ``exact``, the share of documents given exactly the same components.
    """
    by_path = {label.path: label for label in first.labels}
    sets = [(set(by_path[label.path].components), set(label.components))
            for label in second.labels if label.path in by_path]
    scores = set_scores(sets)
    scores["exact"] = round(sum(a == b for a, b in sets) / len(sets), 4) if sets else 0.0
    return {"documents": len(sets), "components": scores}


def component_agreement_markdown(agreement: dict) -> str:
    """The agreement of :func:`component_agreement` as a Markdown table."""
    g = agreement["components"]
    return "\n".join([f"Agreement of two independent component label passes on {agreement['documents']} documents "
                      "(first pass as reference)", "", "| tags | set F1 | macro F1 | same set |", "|---|---|---|---|",
                      f"| components | {g['f1']:.3f} | {g['macro_f1']:.3f} | {g['exact']:.3f} |"])


def run_agreement(second_pass: Path, label_files: list[Path] | None, taxonomy_path: str | None,
                  components: bool = False) -> str:
    """What ``pmparse train-categories --agreement`` prints: a second pass against the team labels.

    Args:
        second_pass: The second pass's label file.
        label_files: The first pass; the committed category (or component) label files when None.
        taxonomy_path: A taxonomy file extending or replacing the packaged one.
        components: Compare component labels instead of category labels.

    Raises:
        LabelError: a line of either pass is invalid.
        UsageError: no document is labelled in both passes (a wrong file, not a total disagreement).
    """
    taxonomy = load_taxonomy(taxonomy_path)
    if components:
        first = read_component_labels(label_files or sorted(COMPONENT_LABELS_DIR.glob("*.jsonl")), taxonomy)
        agreement = component_agreement(first, read_component_labels([second_pass], taxonomy))
    else:
        first = read_team_labels(label_files or sorted(LABELS_DIR.glob("*.jsonl")), taxonomy)
        agreement = label_agreement(first, read_team_labels([second_pass], taxonomy))
    if not agreement["documents"]:
        raise UsageError(f"expected documents labelled in both passes, found none in {second_pass}")
    return component_agreement_markdown(agreement) if components else agreement_markdown(agreement)


def team_labels_of(label: TeamLabel, taxonomy: Taxonomy) -> dict[str, int]:
    """Full labels of a team line: every root-cause and every contributing-factor id, 1 or 0."""
    return gold_labels({g: getattr(label, g) for g in CATEGORY_GROUPS}, taxonomy)


def labelled_texts(root: Path, read: TeamLabels, gold_paths: set[str], gold_shas: set[str] | None = None
                   ) -> tuple[list[tuple], list[str]]:
    """The label lines to train on, each with its text, and why the others are left out.

    Left out: a gold document (its gold card is the reference, and a training row of a gold
    document would sit in the training folds that test it), a missing file, a path pattern that
    names no single file, and a file whose sha256 differs from the labelled one (the labels and
    offsets were read on another text).

    Returns:
        ``(kept, skipped)``: ``(label, text)`` pairs, each label's path pattern replaced by the
        file it names (:func:`pmparse.evaluation.corpus.resolve_reference`), and the reasons, lines already
        skipped by the reader first.

    Raises:
        LabelError: a line's evidence lies outside its (unchanged) text (naming the label file and line).
    """
    skipped = list(read.skipped)
    kept: list[tuple] = []
    for label in read.labels:
        rel = resolve_reference(root, label.path)
        if rel is None:
            skipped.append(f"{label.path}: expected one corpus file to match, found none or several")
            continue
        if rel != label.path:
            read.where[rel] = read.where.get(label.path, (label.path, 0))
            label = label.model_copy(update={"path": rel})
        source = root / label.path
        if label.path in gold_paths or label.sha256 in (gold_shas or set()):
            skipped.append(f"{label.path}: a gold document; its gold card is used")
            continue
        try:
            with open(source, encoding="utf-8", newline="") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            skipped.append(f"{label.path}: expected the labelled file, found {getattr(exc, 'strerror', None) or exc}")
            continue
        if hashlib.sha256(text.encode("utf-8")).hexdigest() != label.sha256:
            skipped.append(f"{label.path}: expected the labelled text, found a different sha256 (the source changed)")
            continue
        outside = [ev for ev in label.evidence if ev.end > len(text)]
        if outside:
            file, number = read.where.get(label.path, (label.path, 0))
            raise LabelError(f"line {number}: expected evidence inside the text of {label.path} ({len(text)} "
                             f"characters), found {outside[0].start}-{outside[0].end}", file)
        kept.append((label, text))
    return kept, skipped


def labelled_docs(root: Path, read: TeamLabels, gold_paths: set[str], gold_shas: set[str] | None, config=None,
                  warn: Callable[[str], None] | None = None, kind: str = "category") -> tuple[list[tuple], list, list[str]]:
    """The kept label lines of :func:`labelled_texts` with their analysed Docs; each line left out
    is reported to ``warn`` as ``"<kind> labels: skipped ..."``.

    Returns:
        ``(kept, docs, skipped)``: ``(label, text)`` pairs, their Docs in the same order, and the reasons.
    """
    kept, skipped = labelled_texts(root, read, gold_paths, gold_shas)
    for message in skipped:
        if warn:
            warn(f"{kind} labels: skipped {message}")
    docs = analysed_docs([root / label.path for label, _ in kept], config) if kept else []
    return kept, docs, skipped


def team_examples(root: Path, taxonomy: Taxonomy, weight: float, gold_paths: set[str],
                  files: Iterable[Path] | None = None, config=None,
                  warn: Callable[[str], None] | None = None, evidence: bool = False, *,
                  gold_shas: set[str] | None = None,
                  spans: dict[str, list[tuple[int, int]]] | None = None) -> tuple[list[Example], list[str]]:
    """Training rows of the team's category labels (source ``team``), made like gold rows.

    Each labelled document runs through the pipeline without the tagger and gives the same
    inputs a gold document does (:func:`pmparse.nlp.components.tagger.category_texts`). Left out,
    with a warning: a gold document (the gold card is the reference, and a training row of a gold
    document would sit in the training folds that test it), a missing file and a file whose
    sha256 differs from the labelled one (the labels and offsets were read on another text).

    Args:
        root: The corpus root.
        taxonomy: The taxonomy the ids belong to.
        weight: Sample weight of a team row.
        gold_paths: Corpus paths of the gold documents.
        gold_shas: sha256 of the gold documents' texts (a copy of one under another name is one too).
        files: Label files; ``corpus/category_labels/*.jsonl`` of this checkout when None.
        config: The pipeline configuration the inputs are made with.
        warn: Called with each warning.
        evidence: Also a row (source ``team_evidence``) whose focus is the line's evidence stretches.
        spans: Annotated root-cause stretches by corpus path (:mod:`pmparse.training.spans`): a
            labelled document that has some also gives a row (source ``team_spans``) whose focus
            is their text, labelled with its root-cause categories only.

    Returns:
        ``(examples, skipped)``: the rows and why each left-out line was left out.

    Raises:
        LabelError: a line is invalid (see :func:`read_team_labels`) or its evidence lies
            outside its (unchanged) text.
    """
    files = sorted(LABELS_DIR.glob("*.jsonl")) if files is None else sorted(files)
    kept, docs, skipped = labelled_docs(root, read_team_labels(files, taxonomy), gold_paths, gold_shas,
                                        config, warn, "category")
    examples = []
    for (label, text), doc in zip(kept, docs):
        focus, whole, _ = category_texts(doc)
        labels = team_labels_of(label, taxonomy)
        examples.append(Example(label.path, focus, whole, labels, weight, "team"))
        if evidence and label.evidence:
            # the stretches the annotator gave as reasons: the same labels over a cleaner focus,
            # like a gold document's annotated spans (a training row only)
            stretches = sorted({(ev.start, ev.end) for ev in label.evidence})
            examples.append(Example(label.path, "\n".join(text[a:b] for a, b in stretches), whole, labels, weight,
                                    "team_evidence"))
        causes = (spans or {}).get(label.path)
        root_cause = {k: v for k, v in labels.items() if k.startswith("root_cause_categories.")}
        if causes and root_cause:
            # the annotated cause is a cleaner focus than the field model's units; its
            # contributing-factor labels stay off this row (that focus does not hold them)
            examples.append(Example(label.path, "\n".join(text[a:b] for a, b in causes), whole, root_cause, weight,
                                    "team_spans"))
    return examples, skipped


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
        rows: Their model input (:func:`pmparse.nlp.components.tagger.model_rows`).
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
        root = group == "root_cause_categories"
        fallback = settings.fallback if root else None
        keys = decide_categories(probs, group, settings.threshold, fallback, cues, settings.cue_gate,
                                 settings.unsure_unknown, settings.max_root_causes if root else None,
                                 settings.cue_needs_fallback and root)
        out[group] = {k.split(".", 1)[1] for k in keys}
    return out


def cross_validate(examples: list[Example], rows: np.ndarray, taxonomy: Taxonomy, settings: Settings,
                   fold_of: dict[str, int], test_rows: np.ndarray | None = None) -> list[dict[str, float]]:
    """Out-of-fold probabilities for every gold example (other rows get ``{}``).

    Args:
        examples: Every training row.
        rows: Their model input.
        taxonomy: The taxonomy.
        settings: Hyper-parameters.
        fold_of: Gold document group (corpus path) -> fold. Each fold is predicted by a model
            fitted on the other folds and on every extra row whose document is not in the fold.
        test_rows: The input the held-out gold examples are predicted from, when it differs from
            what they train on (``eval/oracle_focus.py``); ``rows`` when None.
    """
    out: list[dict[str, float]] = [{} for _ in examples]
    for fold in sorted(set(fold_of.values())):
        test = [i for i, ex in enumerate(examples) if ex.source == "gold" and fold_of.get(ex.group) == fold]
        if not test:
            continue
        train = [i for i, ex in enumerate(examples) if fold_of.get(ex.group) != fold]
        model = fit([examples[i] for i in train], rows[train], taxonomy, settings)
        for i, probs in zip(test, model.predict_rows((rows if test_rows is None else test_rows)[test])):
            out[i] = probs
    return out


def cv_report(examples: list[Example], probs: list[dict[str, float]], settings: Settings,
              cues: list[set[str]] | None = None) -> dict:
    """Scores of out-of-fold predictions on the gold examples (``cues``: cue keys of each row's focus)."""
    pairs: dict[str, list[tuple[set[str], set[str]]]] = {g: [] for g in CATEGORY_GROUPS}
    by_source: dict[str, list[tuple[set[str], set[str]]]] = {}
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
    report = {group: set_scores(found) for group, found in pairs.items()}
    report["root_cause_confusion"] = confusion(pairs["root_cause_categories"])
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


# --- components -----------------------------------------------------------------------------


@dataclass
class ComponentData:
    """Component candidates of labelled documents: model input, labels and where they come from.

    Attributes:
        x: One row per candidate (:func:`pmparse.nlp.components.tagger.candidate_rows`).
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


def fit_components(data: ComponentData, settings: Settings, rows: np.ndarray | None = None):
    """A logistic regression saying whether a named component was involved."""
    from sklearn.linear_model import LogisticRegression

    idx = np.arange(len(data.y)) if rows is None else rows
    return LogisticRegression(C=settings.component_c, max_iter=5000, random_state=settings.seed).fit(
        data.x[idx], data.y[idx])


def cv_components(data: ComponentData, settings: Settings, fold_of: dict[int, int],
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


def gold_folds(gold: list[dict], settings: Settings) -> dict[int, int]:
    """Fold of each gold document: a seeded shuffle of documents dealt into ``settings.folds`` folds."""
    rng = np.random.default_rng(settings.seed)
    order = rng.permutation(len(gold))
    return {int(doc): k % settings.folds for k, doc in enumerate(order)}


def source_folds(gold: list[dict]) -> dict[str, int]:
    """Fold of each gold source (the first component of a corpus path), in name order."""
    return {name: k for k, name in enumerate(sorted({source_of(row["path"]) for row in gold}))}


def row_folds(examples: list[Example], gold: list[dict], doc_folds: dict[int, int] | None = None) -> dict[str, int]:
    """Fold of every row group a cross-validation holds out (groups not in the map train in every fold).

    Args:
        examples: Every training row.
        gold: The gold documents.
        doc_folds: Gold document index -> fold for document-grouped folds; None to hold out
            whole sources: then every row of a gold source (its other dfds Stats rows, its team
            labels) leaves training with it, since sharing the held-out source's template and
            wording is what a source-held-out figure must not see. icco rows have no source
            among the gold ones and train in every fold.
    """
    if doc_folds is not None:
        return {row["path"]: doc_folds[i] for i, row in enumerate(gold)}
    sources = source_folds(gold)
    return {ex.group: sources[source_of(ex.group)] for ex in examples if source_of(ex.group) in sources}


# --- entry point ----------------------------------------------------------------------------


def build_examples(root: Path, taxonomy: Taxonomy, settings: Settings, gold: list[dict], docs: list,
                   config=None, label_files: Iterable[Path] | None = None,
                   warn: Callable[[str], None] | None = None,
                   span_files: Iterable[Path] | None = None) -> tuple[list[Example], list[str]]:
    """Every training row: gold documents, team labels (with their root-cause spans when
    ``settings.team_spans``; ``span_files``, or ``corpus/root_cause_spans`` when None), icco
    summaries and dfds Stats categories.

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
    icco = root / ICCO
    if icco.is_file():
        examples += icco_examples(icco, taxonomy, settings.extra_weight)
    examples += dfds_examples(root, taxonomy, settings.extra_weight, config)
    return examples, skipped


def train(output: str | Path | None = None, corpus: str | None = None, gold_files: Iterable[Path] | None = None,
          settings: Settings | None = None, taxonomy_path: str | None = None, evaluate: bool = True,
          config=None, label_files: Iterable[Path] | None = None, warn: Callable[[str], None] | None = None,
          component_label_files: Iterable[Path] | None = None) -> dict:
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
        label_files: Team category label files; ``corpus/category_labels/*.jsonl`` when None.
        warn: Called with each warning (team label lines left out).
        component_label_files: Team component label files; ``corpus/component_labels/*.jsonl`` when None.

    Returns:
        A summary: ``model`` path, ``examples`` per source, ``cv`` scores (categories, components
        and the root-cause confusion table), ``baseline``, label counts and settings.

    Raises:
        UsageError: the corpus is missing or holds no gold document with category labels.
        LabelError: a team label line is invalid.
    """
    settings = settings or Settings()
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
    docs = analysed_docs([root / row["path"] for row in gold], config)
    examples, skipped = build_examples(root, taxonomy, settings, gold, docs, config, label_files, warn)
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
    summary: dict = {"examples": dict(Counter(ex.source for ex in examples)), "team_skipped": skipped,
                     "component_candidates": int((~components.team_rows()).sum()),
                     "component_team": {"documents": len(team_components),
                                        "candidates": int(components.team_rows().sum()),
                                        "skipped": component_skipped}}
    if evaluate:
        repeats = []
        for repeat in range(max(1, settings.repeats)):
            run = dataclasses.replace(settings, seed=settings.seed + repeat)
            folds = gold_folds(gold, run)
            probs = cross_validate(examples, rows, taxonomy, run, row_folds(examples, gold, folds))
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
        # leave one source out: the project's rule for a reported figure (no document of the
        # held-out source, gold or extra, is seen); one run, the folds are not random
        by_source = row_folds(examples, gold)
        probs = cross_validate(examples, rows, taxonomy, settings, by_source)
        report = cv_report(examples, probs, settings, cues)
        sources = source_folds(gold)
        report["components"] = cv_components(components, settings,
                                             {i: sources[source_of(row["path"])] for i, row in enumerate(gold)},
                                             sources)
        summary["cv_sources"] = report
    name = f"tags-{_dt.date.today().isoformat()}"
    model = fit(examples, rows, taxonomy, settings, name)
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
    documents = [ex for ex in examples if ex.source not in ("gold_spans", "team_evidence", "team_spans")]  # one row each
    summary["label_counts"] = {k: int(sum(ex.labels.get(k, 0) for ex in documents))
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
        "Written by `pmparse train-categories` (`pmparse.training.tags.train`); do not edit by hand.",
        "",
        f"- **Model**: `{Path(summary['model']).name}` ({summary['size_bytes']:,} bytes) and `meta.json`: numeric "
        "arrays read with `allow_pickle=False` plus JSON settings, never pickle. Trained with scikit-learn, then "
        "exported to `pmparse.nlp.linear`, which predicts the same probabilities (checked at training) without "
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
        f"root-cause category is, the most likely one is kept at >= {summary['settings']['fallback']}, else "
        + ("the card says the root cause is `unknown` (`unsure_unknown`: a report that states its cause gives the "
           "model one to find, so no disclosed cause reaching even the fallback is read as an undisclosed one; the "
           "`unknown` classifier alone never gets there, with a handful of positives and no words of its own). "
           if summary["settings"].get("unsure_unknown") else "the card abstains (no category). ")
        + "The three values were chosen by looking at the document-grouped cross-validated figures (before the "
        "source-held-out figures existed), which makes those figures slightly optimistic; "
        + ("`unsure_unknown` adds no value of its own (it reuses the fallback), but turning it on was also decided "
           "by comparing the cross-validated figures with and without it." if summary["settings"].get("unsure_unknown")
           else "")
        + ((f" At most {summary['settings']['max_root_causes']} root-cause categories are kept, the most likely "
            "first (`max_root_causes`: 85 of the first 86 gold cards have one or two, while with sources held out 41 "
            "documents got two to five)." if summary["settings"].get("max_root_causes") else "")
           + (" When no root-cause category reaches the threshold and the most likely misses the fallback, a cue "
              "phrase no longer tags one at the lower gate (`cue_needs_fallback`): the report is read as not "
              "disclosing its cause, as when no cue occurs." if summary["settings"].get("cue_needs_fallback") else "")
           + (" Both were decided by comparing the cross-validated figures (out-of-fold probabilities of the same "
              "model, decisions changed only): source-held-out root-cause macro F1 0.557 without either, 0.569 "
              "with the limit of 2 alone (1: 0.476, 3: 0.547), 0.583 with the cue rule alone, 0.594 with both; "
              "documents held out 0.571, 0.572, 0.594, 0.595. Keeping only categories within a share of the most "
              "likely one's probability was tried too and not kept (no gain beyond the limit worth a tuned value)."
              if summary["settings"].get("max_root_causes") == 2 and summary["settings"].get("cue_needs_fallback")
              else "")),
        "- **Data** (read at training time, never copied): the gold cards of `eval/gold` (first pass), the team's "
        "category labels of non-gold documents (`corpus/category_labels/*.jsonl`: full labels, offsets only, run "
        "through the pipeline like a gold document), the `labels/icco-postmortems.jsonl` summaries and the dfds "
        "Stats `Category` lines, mapped onto our ids by `label_maps` in `src/pmparse/resources/taxonomy.yaml` (a "
        "partial label never counts as a negative)."
        + (f" Team label lines left out: {summary['team_skipped']}." if summary.get("team_skipped") else "")
        + ("" if summary["settings"].get("team_evidence") else
           " The annotators' evidence stretches are not a training row of their own (`team_evidence` off, "
           "unlike the gold spans): decided by the cross-validated figures, with which it lowered the "
           "source-held-out root-cause macro F1 (0.532 to 0.486) for no change with documents held out "
           "(0.592 to 0.595).")
        + (" A team-labelled document whose root-cause spans the team annotated (`corpus/root_cause_spans`, "
           f"{summary['examples'].get('team_spans', 0)} rows) gives one more row whose focus is those spans, labelled "
           "with its root-cause categories only (`team_spans`; its contributing factors are not in that focus). "
           "How it would be judged was written down before the spans were annotated (`eval/GUIDE.md`, \"Root-cause "
           "training spans\": kept unless the source-held-out root-cause macro F1 falls by more than 0.01). "
           "When the first round's rows were added (2026-11-30), with the same inputs otherwise, that figure went "
           "from 0.590 to 0.608, nearly all of it one of the six "
           "gold documents that disclose no cause now tagged `unknown` rather than `software_bug` (`unknown` F1 "
           "0.25 to 0.44); with documents held out root-cause macro F1 went from 0.647 to 0.640, and "
           "contributing-factor macro F1 from 0.469 to 0.465 (sources) and 0.480 to 0.481 (documents). A second "
           "round of 96 wikitech pages, judged by the same rule, moved them to 0.606 and 0.651 (root cause) and "
           "0.467 and 0.480 (contributing factors)."
           if summary["settings"].get("team_spans") else ""),
        "- **Components**: the taxonomy's phrases find candidates; a logistic regression over where each is "
        "named (log counts in the title, summary and each field's units, share of the most named component, the "
        "component id"
        + (", where it is first named as a share of the text" if summary["settings"].get("component_first_mention")
           else "")
        + f") keeps those involved, at probability >= {summary['settings']['component_threshold']}"
        + ("; when none reaches it, the most likely candidate is kept (`component_keep_best`: every gold card that "
           "lists components lists at least one)" if summary["settings"].get("component_keep_best") else "")
        + f". Trained on {summary['component_candidates']} candidates of the gold documents"
        + (f" and {summary['component_team']['candidates']} candidates of {summary['component_team']['documents']} "
           "non-gold documents whose components the team labelled (`corpus/component_labels/*.jsonl`, offsets only; "
           "they train in every fold of the document-grouped cross-validation and leave with their source in the "
           "source-held-out one, as team category labels do)"
           if summary.get("component_team", {}).get("documents") else "")
        + "."
        + (f" Component label lines left out: {summary['component_team']['skipped']}."
           if summary.get("component_team", {}).get("skipped") else "")
        + (" Both settings were decided by comparing the cross-validated figures: components set F1 with sources "
           "held out 0.681 without either, 0.699 with `component_keep_best`, 0.704 with `component_first_mention` "
           "too (documents held out 0.708, 0.715, 0.716). The first-mention position was the best of seven extra "
           "inputs tried on those same figures (the others: a failure word in the mention's unit, a mention in a "
           "heading, rank by mentions, number of candidates, most named, share of mentions outside the fields, "
           "none of which helped); its gain is two fewer false positives, within noise and slightly optimistic."
           if summary["settings"].get("component_keep_best") and summary["settings"].get("component_first_mention")
           else ""),
        f"- **Inputs** made with the field {'model' if summary.get('field_model') else 'heading rules (no field model)'}.",
        f"- **Rows**: {summary['examples']}; positives per category: {summary['label_counts']}.",
        f"- **Categories without a classifier** (too few positives; tagged from taxonomy synonyms only): "
        f"{summary['skipped'] or 'none'}.",
        f"- **Settings**: {summary['settings']}.",
        "",
    ]
    lines.append(figures_markdown(summary))
    lines += ["## Limits", "",
              f"- The gold set is small ({summary['examples'].get('gold', 0)} documents, 8 sources); per-category "
              "figures for rare categories (`expiry_or_time`, `power_or_facility`, `security_incident`, `unknown`) "
              "rest on a handful of documents.",
              "- `hardware_failure` and `power_or_facility` are measured on wikitech pages only (the third wikitech "
              "batch of `eval/GUIDE.md`, drawn for them: every team label of either category is on a wikitech "
              "page); with sources held out their classifiers learn from icco summaries and cue phrases alone.",
              "- The shipped model is trained on every gold document, so `pmparse eval` figures for categories "
              "and components are in-sample; quote the cross-validated figures above, the source-held-out ones "
              "first.",
              "- Team labels are one annotator per document; independent second passes over samples of them "
              "measure their agreement (`corpus/category_labels/README.md`, `corpus/component_labels/README.md`). "
              "They are never scored on, only trained on.",
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
    lines += ["", "Per-label figures: documents held out (first repeat), then sources held out."]
    for title, report in (("documents", cv), ("sources", loso)):
        rc = report.get("root_cause_categories", {})
        cf = report.get("contributing_factor_categories", {})
        if rc:
            lines += ["", f"Per root-cause category F1 (support), {title} held out: " + ", ".join(
                f"{k} {v:.2f} ({rc['support'][k]})" for k, v in rc["per_label_f1"].items())]
        if cf:
            lines += ["", f"Per contributing-factor category F1 (support), {title} held out: " + ", ".join(
                f"{k} {v:.2f} ({cf['support'][k]})" for k, v in cf["per_label_f1"].items())]
    if loso.get("root_cause_by_source"):
        lines += ["", "Root-cause set F1 of each source when it is held out (documents): " + ", ".join(
            f"{k} {v['f1']:.2f} ({v['documents']})" for k, v in loso["root_cause_by_source"].items())]
    lines.append("")
    for title, report in (("documents held out, first repeat", cv), ("sources held out", loso)):
        if report.get("root_cause_confusion"):
            lines += [f"### Root-cause confusion, {title} (rows gold, columns predicted)", "",
                      confusion_markdown(report["root_cause_confusion"]), ""]
    return "\n".join(lines)


# --- floors ---------------------------------------------------------------------------------

#: Floors of the cross-validated tag figures, checked by ``pmparse train-categories --check-floors`` (CI).
FLOORS_PATH = REPO_ROOT / "eval" / "categories_floors.json"
#: The figures floored: ``(name, summary group, score)``.
FLOORED = (("root_cause_macro_f1", "root_cause_categories", "macro_f1"),
           ("root_cause_f1", "root_cause_categories", "f1"),
           ("contributing_factor_macro_f1", "contributing_factor_categories", "macro_f1"),
           ("components_f1", "components", "f1"))


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


def run_train_categories(output: str | None, corpus: str | None, gold_files: list[Path] | None, seed: int,
                         taxonomy_path: str | None, evaluate: bool, label_files: list[Path] | None,
                         check: bool = False, update: bool = False, allow_lower: bool = False,
                         warn: Callable[[str], None] | None = None,
                         component_label_files: list[Path] | None = None,
                         spans: bool = True) -> tuple[str, list[str], int]:
    """What ``pmparse train-categories`` prints, its notes for standard error, and its exit code
    (``spans``: train on the team's root-cause spans too, ``Settings.team_spans``).

    With ``check`` and no ``output`` the model is written to a temporary folder, so a check (CI)
    leaves the committed model alone.

    Raises:
        UsageError: floors asked for without the cross-validation, ``allow_lower`` without
            ``update``, or the errors of :func:`train`.
    """
    import tempfile

    if (check or update) and not evaluate:
        raise UsageError("expected the cross-validation for --check-floors or --update-floors, found --no-eval")
    if allow_lower and not update:
        raise UsageError("expected --update-floors with --allow-lower, found it missing")
    scratch = tempfile.TemporaryDirectory(prefix="pmparse-tags-") if check and output is None else None
    try:
        summary = train(scratch.name if scratch else output, corpus, gold_files, Settings(seed=seed, team_spans=spans),
                        taxonomy_path,
                        evaluate=evaluate, label_files=label_files, warn=warn,
                        component_label_files=component_label_files)
    finally:
        if scratch is not None:
            scratch.cleanup()
    parts, notes, code = [figures_markdown(summary)], [], 0
    if scratch is None:
        notes.append(f"model written to {summary['model']}")
    floors = read_floors(FLOORS_PATH)
    if update:
        updated, lowered = new_category_floors(cv_figures(summary), floors, allow_lower)
        parts += save_floors(FLOORS_PATH, updated, floors, lowered, allow_lower, note=(
            "Floors of the tag model's cross-validated figures (sources held out: leave one source out; documents "
            "held out: mean of the repeated grouped folds), in-sample figures are in eval/facts_floors.json. "
            "Checked in CI by `pmparse train-categories --check-floors`; lowering one takes "
            "--update-floors --allow-lower."))
        floors = updated
    if check:
        # no floors is a failed check, not a passed one (a renamed file, an install without eval/)
        line, code = floors_verdict(check_category_floors(cv_figures(summary), floors) if floors.get("floors") else [
            f"expected floors in {FLOORS_PATH}, found none"])
        parts.append(line)
    return "\n".join(parts), notes, code
