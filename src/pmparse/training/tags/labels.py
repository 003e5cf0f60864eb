"""The team's category and component labels of corpus documents, read and checked, and the training examples they give."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from pydantic import BaseModel, ConfigDict, Field

from pmparse.errors import LabelError
from pmparse.evaluation.corpus import REPO_ROOT, path_problem, resolve_reference
from pmparse.evaluation.gold_cards import Example, gold_labels
from pmparse.nlp.tag_reading import CATEGORY_GROUPS, category_texts
from pmparse.rules.taxonomy import Taxonomy
from pmparse.training.tags.inputs import analysed_docs
from pmparse.util import model_lines, sha256_text

#: Category labels the team wrote for non-gold corpus documents (offsets only, no corpus text).
LABELS_DIR = REPO_ROOT / "corpus" / "category_labels"

#: Component labels the team wrote for non-gold corpus documents (offsets only, no corpus text).
COMPONENT_LABELS_DIR = REPO_ROOT / "corpus" / "component_labels"

ICCO = Path("labels") / "icco-postmortems.jsonl"

# blanks, not \s: with MULTILINE a leading \s* would run across blank lines (quadratic)
_DFDS_CATEGORY = re.compile(r"^[ \t]*[-*][ \t]*Category:[ \t]*(?P<label>[^\n]+?)[ \t]*$", re.MULTILINE | re.IGNORECASE)


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


def category_problem(ids: dict[str, list[str]], taxonomy: Taxonomy) -> str | None:
    """What is wrong with the category ids of a label line or an annotated card (category group ->
    ids; a group may be missing), or None."""
    for group in CATEGORY_GROUPS:
        wrong = sorted(set(ids.get(group) or []) - set(taxonomy.ids(group)))
        if wrong:
            return f"expected {group} ids of the taxonomy, found unknown ids {wrong}"
    causes = set(ids.get("root_cause_categories") or [])
    if "unknown" in causes and len(causes) > 1:
        return "expected `unknown` alone (the report does not say the cause), found it with other root causes"
    return None


def _check_label(label: TeamLabel, taxonomy: Taxonomy) -> str | None:
    """What is wrong with a parsed label line, or None."""
    ids = {group: getattr(label, group) for group in CATEGORY_GROUPS}
    problem = path_problem(label.path) or category_problem(ids, taxonomy)
    if problem:
        return problem
    return _evidence_problem(label, {f"{group}.{i}" for group, found in ids.items() for i in found})


def _read_label_files(files: Iterable[Path], model, check: Callable, taxonomy: Taxonomy, kind: str) -> TeamLabels:
    """Read label lines of ``model`` from ``files``, each checked by ``check``; see :func:`read_team_labels`."""
    out = TeamLabels()
    seen: dict[str, str] = {}
    for path in sorted(files):
        for number, label in model_lines(path, model, LabelError, f"{kind} label line"):
            where = f"{Path(path).name}:{number}"
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
            with open(source, encoding="utf-8") as handle:  # line breaks as the pipeline reads them
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            skipped.append(f"{label.path}: expected the labelled file, found {getattr(exc, 'strerror', None) or exc}")
            continue
        if sha256_text(text) != label.sha256:
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
    inputs a gold document does (:func:`pmparse.nlp.tag_reading.category_texts`). Left out,
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
        row = cause_row(label.path, text, (spans or {}).get(label.path), whole, labels, weight, "team_spans")
        if row is not None:
            examples.append(row)
    return examples, skipped


def cause_row(path: str, text: str, causes: list[tuple[int, int]] | None, whole: str, labels: dict[str, int],
              weight: float, source: str) -> Example | None:
    """A row whose focus is a document's annotated root-cause stretches, labelled with its
    root-cause categories only; None without stretches or root-cause labels.

    The annotated cause is a cleaner focus than the field model's units; the contributing-factor
    labels stay off this row (that focus does not hold them).
    """
    root_cause = {k: v for k, v in labels.items() if k.startswith("root_cause_categories.")}
    if not causes or not root_cause:
        return None
    return Example(path, "\n".join(text[a:b] for a, b in causes), whole, root_cause, weight, source)
