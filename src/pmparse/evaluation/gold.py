"""Gold documents of the field evaluation: their spans, their texts and where they are."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pmparse.card.schema import TEXT_FIELDS
from pmparse.errors import GoldError
from pmparse.evaluation.corpus import REPO_ROOT, resolve_reference
from pmparse.util import model_lines, sha256_text

GOLD_DIR = REPO_ROOT / "eval" / "gold"

STRIPPED_DIR = REPO_ROOT / "eval" / "stripped"

SECOND_PASS = "second_pass.jsonl"


class GoldSpan(BaseModel):
    """One annotated stretch."""

    model_config = ConfigDict(extra="forbid")
    field: str = Field(description="Card text field.")
    start: int = Field(ge=0, description="First character.")
    end: int = Field(gt=0, description="One past the last character.")


class GoldDoc(BaseModel):
    """One gold document (a line of ``eval/gold/*.jsonl``)."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(description="Stable document id, e.g. 'dfds/PM2022-006'.")
    path: str | None = Field(default=None, description="Path relative to the corpus root.")
    text: str | None = Field(default=None, description="Inline text, only for text the team wrote.")
    sha256: str = Field(description="sha256 of the UTF-8 text the offsets index.")
    annotated: list[str] = Field(description="Fields whose spans are complete.")
    spans: list[GoldSpan] = Field(default_factory=list, description="Annotated stretches.")
    card: dict = Field(default_factory=dict, description="Gold card facts and tags the text states.")
    annotator: str | None = Field(default=None, description="Who annotated it.")
    deleted: list[tuple[int, int]] | None = Field(
        default=None, description="Heading-stripped variants: ranges of the original removed from the text.")

    @model_validator(mode="after")
    def _check(self) -> GoldDoc:
        if (self.path is None) == (self.text is None):
            raise ValueError("expected exactly one of path and text")
        unknown = set(self.annotated) - set(TEXT_FIELDS) | {s.field for s in self.spans} - set(TEXT_FIELDS)
        if unknown:
            raise ValueError(f"expected card text fields, found {sorted(unknown)}")
        return self

    @property
    def source(self) -> str:
        """The corpus source of the document: the first component of its path (a development
        document's id starts with ``dev/``), or of its id when it has no path."""
        return (self.path or self.id).split("/", 1)[0]


def load_gold(files: Iterable[Path], root: Path | None = None) -> list[GoldDoc]:
    """Load gold documents.

    Args:
        files: Gold JSONL files.
        root: The corpus root; when given, a ``path`` pattern is replaced by the file it names
            (:func:`pmparse.evaluation.corpus.resolve_reference`).

    Raises:
        GoldError: a line is not valid JSON or not a valid gold document, or its path pattern
            names no single corpus file.
    """
    docs = []
    for path in files:
        for _, doc in model_lines(path, GoldDoc, GoldError, "gold document"):
            if root is not None and doc.path is not None:
                doc = doc.model_copy(update={"path": corpus_path(root, doc.path, doc.id)})
            docs.append(doc)
    return docs


def corpus_path(root: Path, ref: str, where: str) -> str:
    """The corpus path a gold line's ``path`` names (see :func:`pmparse.evaluation.corpus.resolve_reference`).

    Raises:
        GoldError: a pattern that names no single file.
    """
    rel = resolve_reference(root, ref)
    if rel is None:
        raise GoldError(f"expected one corpus file to match {ref!r}, found none or several", where)
    return rel


def default_gold_files(variant: str = "headed") -> list[Path]:
    """The gold files of a variant: ``headed`` (eval/gold) or ``stripped`` (eval/stripped)."""
    folder = GOLD_DIR if variant == "headed" else STRIPPED_DIR
    return sorted(p for p in folder.glob("*.jsonl") if p.name != SECOND_PASS)


def gold_text(doc: GoldDoc, root: Path | None) -> str:
    """The text a gold document's offsets index, checked against its sha256.

    Raises:
        GoldError: the source is missing or changed since it was annotated, or a span does not
            lie inside it.
    """
    if doc.text is not None:
        text = doc.text
    else:
        if root is None:
            raise GoldError("expected a corpus root for path-based gold documents", doc.id)
        try:
            # line breaks read as the pipeline reads them (pmparse.util.newlines: text mode)
            with open(root / corpus_path(root, doc.path, doc.id), encoding="utf-8") as handle:
                text = handle.read()
        except OSError as exc:
            raise GoldError(f"expected the source file, found {exc.strerror}", doc.path) from exc
    if doc.deleted:
        text = remove_ranges(text, doc.deleted)
    if sha256_text(text) != doc.sha256:
        raise GoldError("expected the annotated text, found a different sha256 (the source changed)", doc.id)
    for span in doc.spans:
        # a span past the text's end (or empty) was scored as what the slice happened to hold:
        # a curator's offset slip in a gold file of their own went unnoticed
        if not span.start < span.end <= len(text):
            raise GoldError(f"expected each span inside the text ({len(text)} characters) and ending after it "
                            f"starts, found {span.field} {span.start}-{span.end}", doc.id)
    return text


def remove_ranges(text: str, ranges: list[tuple[int, int]]) -> str:
    """``text`` without the given sorted, non-overlapping ranges."""
    out, cursor = [], 0
    for start, end in ranges:
        out.append(text[cursor:start])
        cursor = end
    out.append(text[cursor:])
    return "".join(out)
