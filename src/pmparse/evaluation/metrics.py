"""Token precision, recall and F1 of predicted spans against gold, with bootstrap intervals."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np

from pmparse.card.schema import TEXT_FIELDS, Card
from pmparse.evaluation.gold import GoldDoc, gold_text

_TOKEN = re.compile(r"\w+")


def token_bounds(text: str) -> np.ndarray:
    """``(n, 2)`` array of token start/end offsets."""
    return np.array([m.span() for m in _TOKEN.finditer(text)], dtype=np.int64).reshape(-1, 2)


def token_mask(tokens: np.ndarray, spans: Iterable[tuple[int, int]]) -> np.ndarray:
    """Boolean mask of tokens lying inside any of ``spans``."""
    mask = np.zeros(len(tokens), dtype=bool)
    if not len(tokens):
        return mask
    for start, end in spans:
        lo = np.searchsorted(tokens[:, 0], start, side="left")
        hi = np.searchsorted(tokens[:, 1], end, side="right")
        if hi > lo:
            mask[lo:hi] = True
    return mask


@dataclass
class DocScore:
    """Token counts of one document: ``counts[field] = (tp, fp, fn)`` for annotated fields."""

    id: str
    source: str
    counts: dict[str, tuple[int, int, int]] = field(default_factory=dict)


def score_spans(doc_id: str, source: str, text: str, annotated: Iterable[str],
                gold: dict[str, list[tuple[int, int]]], predicted: dict[str, list[tuple[int, int]]]) -> DocScore:
    """Token counts of one document's predicted spans against its gold spans."""
    tokens = token_bounds(text)
    score = DocScore(doc_id, source)
    for name in annotated:
        g = token_mask(tokens, gold.get(name, []))
        p = token_mask(tokens, predicted.get(name, []))
        score.counts[name] = (int((g & p).sum()), int((~g & p).sum()), int((g & ~p).sum()))
    return score


def card_spans(card: Card) -> dict[str, list[tuple[int, int]]]:
    """Evidence spans of each text field of a card."""
    return {name: [(ev.start, ev.end) for item in getattr(card, name) for ev in item.evidence] for name in TEXT_FIELDS}


def gold_spans(doc: GoldDoc) -> dict[str, list[tuple[int, int]]]:
    """Gold spans of each field."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for span in doc.spans:
        spans.setdefault(span.field, []).append((span.start, span.end))
    return spans


def scoring_view(doc: GoldDoc, raw: str, extracted: str | None) -> tuple[str, dict[str, list[tuple[int, int]]]]:
    """The text a document is scored on and its gold spans in that text's offsets.

    Args:
        doc: The gold document.
        raw: The text its offsets index (:func:`~pmparse.evaluation.gold.gold_text`).
        extracted: The text the pipeline read when it is not ``raw`` (an HTML page's extracted
            text), else None.

    Returns:
        ``(raw, gold spans)`` for a file read as it is; for an extracted page, the extracted text
        and the spans carried over to it word by word (:mod:`pmparse.ingest.align`), because the
        pipeline's evidence indexes that text.
    """
    spans = gold_spans(doc)
    if extracted is None or extracted == raw:
        return raw, spans
    from pmparse.ingest.align import project_spans

    return extracted, project_spans(raw, extracted, spans)


def prf(tp: float, fp: float, fn: float) -> tuple[float, float, float]:
    """Precision, recall, F1 (0 where undefined)."""
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def _array(scores: list[DocScore]) -> np.ndarray:
    """``(docs, fields, 3)`` counts; -1 marks fields a document does not annotate."""
    arr = np.full((len(scores), len(TEXT_FIELDS), 3), -1, dtype=np.int64)
    for i, score in enumerate(scores):
        for j, name in enumerate(TEXT_FIELDS):
            if name in score.counts:
                arr[i, j] = score.counts[name]
    return arr


def _summary(arr: np.ndarray) -> dict:
    valid = arr[:, :, 0] >= 0
    sums = np.where(valid[:, :, None], arr, 0).sum(axis=0)
    fields = {}
    for j, name in enumerate(TEXT_FIELDS):
        p, r, f = prf(*sums[j])
        fields[name] = {"precision": p, "recall": r, "f1": f, "gold_tokens": int(sums[j][0] + sums[j][2]),
                        "documents": int(valid[:, j].sum())}  # those that annotate the field
    micro = prf(*sums.sum(axis=0))
    # the macro average is over the fields some document annotates (a development file may
    # annotate one field alone; the gold set annotates all eight)
    annotated = [n for j, n in enumerate(TEXT_FIELDS) if valid[:, j].any()] or list(TEXT_FIELDS)
    return {"fields": fields, "micro": {"precision": micro[0], "recall": micro[1], "f1": micro[2]},
            "macro_f1": float(np.mean([fields[n]["f1"] for n in annotated]))}


def _f1s(arr: np.ndarray) -> np.ndarray:
    """Per-field F1 and macro for a counts array, vectorised: returns ``(fields + 1,)``."""
    sums = np.where(arr[:, :, 0:1] >= 0, arr, 0).sum(axis=0).astype(float)
    tp, fp, fn = sums[:, 0], sums[:, 1], sums[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        f1 = np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), 0.0)
    annotated = (arr[:, :, 0] >= 0).any(axis=0)
    return np.append(f1, f1[annotated].mean() if annotated.any() else f1.mean())


def bootstrap(scores: list[DocScore], rounds: int = 1000, seed: int = 0) -> dict:
    """95 % intervals of per-field F1 and macro F1, resampling documents."""
    arr = _array(scores)
    rng = np.random.default_rng(seed)
    samples = np.stack([_f1s(arr[rng.integers(0, len(arr), len(arr))]) for _ in range(rounds)]) if len(arr) else np.zeros((1, len(TEXT_FIELDS) + 1))
    low, high = np.percentile(samples, [2.5, 97.5], axis=0)
    names = list(TEXT_FIELDS) + ["macro_f1"]
    return {name: [float(low[i]), float(high[i])] for i, name in enumerate(names)}


def summarise(scores: list[DocScore], rounds: int = 1000) -> dict:
    """Per-field P/R/F1, micro, macro, intervals, per-source macro F1 and worst documents."""
    result = _summary(_array(scores))
    result["documents"] = len(scores)
    result["interval95"] = bootstrap(scores, rounds)
    result["per_source"] = {}
    for source in sorted({s.source for s in scores}):
        subset = [s for s in scores if s.source == source]
        summary = _summary(_array(subset))
        result["per_source"][source] = {"documents": len(subset), "macro_f1": summary["macro_f1"],
                                        "fields": {n: summary["fields"][n]["f1"] for n in TEXT_FIELDS}}
    worst = {}
    for name in TEXT_FIELDS:
        ranked = []
        for s in scores:
            if name in s.counts and (s.counts[name][0] + s.counts[name][1] + s.counts[name][2]) > 0:
                ranked.append((prf(*s.counts[name])[2], s.id))
        worst[name] = [{"id": doc_id, "f1": f1} for f1, doc_id in sorted(ranked)[:3]]
    result["worst"] = worst
    return result


def agreement(first: list[GoldDoc], second: list[GoldDoc], root: Path | None) -> dict:
    """Token F1 per field between two annotation passes of the same documents (the ceiling)."""
    by_id = {doc.id: doc for doc in first}
    scores = []
    for doc in second:
        other = by_id.get(doc.id)
        if other is None:
            continue
        text = gold_text(doc, root)
        annotated = sorted(set(doc.annotated) & set(other.annotated))
        scores.append(score_spans(doc.id, doc.source, text, annotated, gold_spans(other), gold_spans(doc)))
    return summarise(scores, rounds=200)


def markdown_table(report: dict, title: str) -> str:
    """A per-field F1 table of every system in ``report``."""
    names = [n for n in report if isinstance(report[n], dict) and "fields" in report[n]]
    lines = [f"### {title}", "", "| field | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for name in TEXT_FIELDS:
        # a field no document annotates (a development file of one field) has no figure: its 0.000
        # read as a measured miss
        lines.append(f"| {name} | " + " | ".join(
            "-" if report[s]["fields"][name].get("documents") == 0 else f"{report[s]['fields'][name]['f1']:.3f}"
            for s in names) + " |")
    lines.append("| **macro F1** | " + " | ".join(
        f"**{report[s]['macro_f1']:.3f}** [{report[s]['interval95']['macro_f1'][0]:.2f}-{report[s]['interval95']['macro_f1'][1]:.2f}]"
        for s in names) + " |")
    lines.append("| micro F1 | " + " | ".join(f"{report[s]['micro']['f1']:.3f}" for s in names) + " |")
    if "pipeline" in report:
        lines += ["", "Per source (pipeline, macro F1): " + ", ".join(
            f"{src} {v['macro_f1']:.2f} ({v['documents']})" for src, v in report["pipeline"]["per_source"].items())]
        worst = report["pipeline"]["worst"]
        lines += ["", "Worst documents (pipeline): " + "; ".join(
            f"{name}: " + ", ".join(f"{w['id']} {w['f1']:.2f}" for w in worst[name][:2])
            for name in TEXT_FIELDS if worst[name])]
    return "\n".join(lines)
