"""Gold documents of the tag model: the cards and spans of ``eval/gold``, read and checked."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from pmparse.errors import GoldError
from pmparse.evaluation.gold import GOLD_DIR, SECOND_PASS, corpus_path
from pmparse.nlp.tag_reading import CATEGORY_GROUPS
from pmparse.rules.taxonomy import Taxonomy


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
