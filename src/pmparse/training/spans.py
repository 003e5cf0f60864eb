"""Root-cause spans the team annotated on non-gold documents, as training data.

The field model learns root cause from headings (weak labels), and few reports have a root-cause
heading; ``corpus/root_cause_spans/*.jsonl`` holds root-cause spans that annotators marked by
reading non-gold documents (``eval/GUIDE.md``, "Root-cause training spans"). Both trainers read
them through this module: :func:`relabel_root_cause` turns them into unit labels for the field
model, and the tag model's trainer takes their text as a cleaner focus of a document's root cause.
They are never scored on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from pmparse.errors import LabelError
from pmparse.evaluation.corpus import REPO_ROOT, path_problem, referenced_paths, resolve_reference
from pmparse.util import newlines, text_sha256

SPANS_DIR = REPO_ROOT / "corpus" / "root_cause_spans"
#: Development sets: their documents never train, whatever a trainer is told to exclude.
DEV_DIR = REPO_ROOT / "eval" / "dev"

#: Least share of a unit's characters a span must cover for the unit to be a root cause.
COVER_SHARE = 0.5

ROOT_CAUSE = "root_cause"


class AnnotatedSpan(BaseModel):
    """One annotated stretch of a document."""

    model_config = ConfigDict(extra="forbid")

    field: Literal["root_cause"] = Field(description="The card field the stretch states (root cause only).")
    start: int = Field(ge=0, description="Offset of the first character, in the file read as text (line breaks as \\n).")
    end: int = Field(gt=0, description="Offset after the last character.")

    @model_validator(mode="after")
    def _ordered(self) -> "AnnotatedSpan":
        if self.end <= self.start:
            raise ValueError(f"expected start < end, found {self.start}-{self.end}")
        return self


class SpanLine(BaseModel):
    """One line of a root-cause span file: a document and every stretch stating its cause."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, description="'train/' and the path without its extension.")
    path: str = Field(min_length=1, description="Corpus path, or a '*' pattern naming one file.")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$",
                        description="sha256 of the file's text when annotated (line breaks as \\n).")
    annotated: list[Literal["root_cause"]] = Field(min_length=1, max_length=1,
                                                   description="The fields annotated in full: root cause.")
    spans: list[AnnotatedSpan] = Field(description="Root-cause stretches; empty when the cause is not stated.")
    annotator: str = Field(min_length=1, description="Who read the document.")

    @model_validator(mode="after")
    def _disjoint(self) -> "SpanLine":
        ordered = sorted(self.spans, key=lambda s: s.start)
        for before, after in zip(ordered, ordered[1:]):
            if after.start < before.end:
                raise ValueError(f"expected spans that do not overlap, found {before.start}-{before.end} "
                                 f"and {after.start}-{after.end}")
        return self


@dataclass
class TrainingSpans:
    """The usable lines of span files, by corpus path, and why the others were left out.

    Attributes:
        spans: Corpus path -> sorted ``(start, end)`` root-cause stretches (empty: no cause stated).
        shas: Corpus path -> sha256 of the file the offsets index.
        annotators: Corpus path -> who annotated it.
        skipped: One reason per line left out.
    """

    spans: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    shas: dict[str, str] = field(default_factory=dict)
    annotators: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)


def span_files(folder: Path = SPANS_DIR) -> list[Path]:
    """The span files of ``folder`` (``*.jsonl``), sorted; none when it does not exist."""
    return sorted(Path(folder).glob("*.jsonl")) if Path(folder).is_dir() else []


def development_paths(root: Path, folder: Path = DEV_DIR) -> set[str]:
    """Corpus paths of the development sets' documents (``eval/dev/*.jsonl``), patterns resolved."""
    return referenced_paths(folder, root)


def read_training_spans(root: Path, files: Iterable[Path] | None = None,
                        exclude: set[str] | frozenset[str] = frozenset(),
                        exclude_shas: set[str] | frozenset[str] = frozenset(),
                        dev_folder: Path = DEV_DIR, warn: Callable[[str], None] | None = None) -> TrainingSpans:
    """Read and check root-cause span files against the corpus.

    Left out, with a reason: a path in ``exclude`` or a text whose sha256 is in ``exclude_shas``
    (gold documents, also under another name), a development document (``dev_folder``), a
    pattern naming no single file, a missing or undecodable file, a file whose sha256 differs
    from the annotated one (the offsets were read on another text), a second line for a document.

    Args:
        root: The corpus root.
        files: Span files; those of ``corpus/root_cause_spans`` when None.
        exclude: Corpus paths that must not train (gold, held-out documents).
        exclude_shas: sha256 of texts that must not train.
        dev_folder: Development sets whose documents never train.
        warn: Called with ``"root-cause spans: skipped <reason>"`` for each line left out.

    Raises:
        LabelError: a line is not JSON or not a valid span line, its path is not a plain path
            inside the corpus, or a span ends beyond its (unchanged) text; the error names the
            file and line.
    """
    found = TrainingSpans()
    exclude = set(exclude) | development_paths(root, dev_folder)
    for file in span_files() if files is None else sorted(files):
        try:
            lines = Path(file).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise LabelError(f"expected a readable UTF-8 span file, found {exc}", str(file)) from exc
        for number, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            try:
                line = SpanLine.model_validate(json.loads(raw))
            except json.JSONDecodeError as exc:
                raise LabelError(f"line {number}: expected JSON, found {exc.msg}", str(file)) from exc
            except ValidationError as exc:
                problem = exc.errors()[0]
                where = ".".join(str(p) for p in problem["loc"]) or "line"
                raise LabelError(f"line {number}: expected a root-cause span line, found {where}: {problem['msg']}",
                                 str(file)) from exc
            problem = path_problem(line.path)
            if problem:
                raise LabelError(f"line {number}: {problem}", str(file))
            rel, text, reason = _usable(root, line, exclude, exclude_shas, found)
            if reason is not None:
                found.skipped.append(f"{Path(file).name} line {number}: {reason}")
                if warn is not None:
                    warn(f"root-cause spans: skipped {found.skipped[-1]}")
                continue
            spans = sorted((s.start, s.end) for s in line.spans)
            if spans and spans[-1][1] > len(text):
                raise LabelError(f"line {number}: expected spans inside the text of {line.path} ({len(text)} "
                                 f"characters), found one ending at {spans[-1][1]}", str(file))
            found.spans[rel] = spans
            found.shas[rel] = line.sha256
            found.annotators[rel] = line.annotator
    return found


def _usable(root: Path, line: SpanLine, exclude, exclude_shas, found: TrainingSpans) -> tuple[str, str, str | None]:
    """``(corpus path, text, why the valid line cannot train)``; the reason is None when it can."""
    rel = resolve_reference(root, line.path)
    if rel is None:
        return line.path, "", f"{line.path}: expected one corpus file to match, found none or several"
    if rel in exclude or line.sha256 in exclude_shas:
        return rel, "", f"{rel}: a gold, development or held-out document; it never trains"
    if rel in found.spans:
        return rel, "", f"{rel}: a second line for the document; the first is used"
    try:
        data = (Path(root) / rel).read_bytes()
        # the offsets index the text as ingest reads it: UTF-8, each line break a "\n"
        text = newlines(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return rel, "", f"{rel}: expected the annotated file, found {getattr(exc, 'strerror', None) or exc}"
    if text_sha256(data) != line.sha256:
        return rel, "", f"{rel}: expected the annotated text, found a different sha256 (the source changed)"
    return rel, text, None


def covered(offsets: list[tuple[int, int]], spans: list[tuple[int, int]], share: float = COVER_SHARE) -> list[bool]:
    """Whether annotated ``spans`` cover at least ``share`` of each unit's characters."""
    flags = []
    for start, end in offsets:
        inside = sum(max(0, min(end, b) - max(start, a)) for a, b in spans)
        flags.append(end > start and inside >= share * (end - start))
    return flags


def relabel_root_cause(labels: list, offsets: list[tuple[int, int]], spans: list[tuple[int, int]]) -> list:
    """Unit labels of an annotated document: covered units are root cause at full weight, and a
    unit the heading rules called root cause that no span covers loses its label (the annotator
    read it and did not call it the cause); other labels stay.

    Args:
        labels: Weak label of each unit (``(field, weight)`` or None).
        offsets: ``(start, end)`` of each unit in the document's text.
        spans: The annotated root-cause stretches.
    """
    out = []
    for label, inside in zip(labels, covered(offsets, spans)):
        if inside:
            out.append((ROOT_CAUSE, 1.0))
        elif label is not None and label[0] == ROOT_CAUSE:
            out.append(None)
        else:
            out.append(label)
    return out
