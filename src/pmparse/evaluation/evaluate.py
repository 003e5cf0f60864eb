"""Measure extraction accuracy against the gold eval set.

Text fields are scored at token level: tokens are ``\\w+`` runs of the source text; a token is
gold for a field when it lies inside a gold span of that field, predicted when it lies inside an
evidence span of one of that field's items. Only a document's ``annotated`` fields are scored.

The same run scores the pipeline and two baselines (headings only, keywords), on the headed gold
documents and on their heading-stripped variants (``eval/stripped/``), with 95 % bootstrap
intervals over documents, a per-source table and the worst documents per field.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from pmparse.evaluation.corpus import REPO_ROOT, corpus_root, load_manifest, resolve_reference, source_url
from pmparse.errors import GoldError, UsageError
from pmparse.ingest.read import ingest_bytes
from pmparse.nlp.pipeline import PipelineConfig, get
from pmparse.card.schema import TEXT_FIELDS, Card
from pmparse.evaluation.facts import (
    card_agreement,
    card_with_text_only_organisation,
    confusion_markdown,
    facts_table,
    score_organisation,
)

GOLD_DIR = REPO_ROOT / "eval" / "gold"
STRIPPED_DIR = REPO_ROOT / "eval" / "stripped"
FLOORS_PATH = REPO_ROOT / "eval" / "baseline.json"
SECOND_PASS = "second_pass.jsonl"
_TOKEN = re.compile(r"\w+")


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
        for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                doc = GoldDoc.model_validate_json(line)
            except ValidationError as exc:
                raise GoldError(f"line {number}: expected a gold document, found: {exc}", str(path)) from exc
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
        GoldError: the source is missing or changed since it was annotated.
    """
    if doc.text is not None:
        text = doc.text
    else:
        if root is None:
            raise GoldError("expected a corpus root for path-based gold documents", doc.id)
        try:
            with open(root / corpus_path(root, doc.path, doc.id), encoding="utf-8", newline="") as handle:
                text = handle.read()
        except OSError as exc:
            raise GoldError(f"expected the source file, found {exc.strerror}", doc.path) from exc
    if doc.deleted:
        text = remove_ranges(text, doc.deleted)
    if hashlib.sha256(text.encode("utf-8")).hexdigest() != doc.sha256:
        raise GoldError("expected the annotated text, found a different sha256 (the source changed)", doc.id)
    return text


def remove_ranges(text: str, ranges: list[tuple[int, int]]) -> str:
    """``text`` without the given sorted, non-overlapping ranges."""
    out, cursor = [], 0
    for start, end in ranges:
        out.append(text[cursor:start])
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


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
        fields[name] = {"precision": p, "recall": r, "f1": f, "gold_tokens": int(sums[j][0] + sums[j][2])}
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


@dataclass
class System:
    """A named way to turn a text into a card."""

    name: str
    config: PipelineConfig


def predict_with_text_only(system: System, doc: GoldDoc, text: str,
                           url: str | None = None) -> tuple[Card, str | None]:
    """Run a system on a gold document's text (offsets index that same text).

    Args:
        system: The system.
        doc: The gold document.
        text: Its text.
        url: Its public address, as ``pmparse convert --url-base`` would record it, or None.

    Returns:
        ``(card, organisation)``: the card, and the organisation the same analysis finds from the
        text alone (the address withheld; the location, a corpus path, is no address).
    """
    source = ingest_bytes(text.encode("utf-8"), doc.path or f"{doc.id}.md")
    return card_with_text_only_organisation(get(system.config), source, url)


def systems_for(model_dir: str | None) -> list[System]:
    """The pipeline (with the field model when given) and both baselines, in report order."""
    return [
        System("pipeline", PipelineConfig(model_dir=model_dir)),
        System("headings", PipelineConfig()),
        System("keywords", PipelineConfig(labeler="keywords")),
    ]


def evaluate(
    gold: list[GoldDoc],
    root: Path | None,
    systems: list[System],
    rounds: int = 1000,
    facts_scorer: Callable[[list[tuple[dict, Card]]], dict] | None = None,
) -> dict:
    """Score every system on the gold documents.

    Returns:
        ``{system: summary}``; with ``facts_scorer``, each summary also has ``facts``.
    """
    report: dict = {}
    texts = {doc.id: gold_text(doc, root) for doc in gold}
    urls = public_addresses(gold)
    for system in systems:
        scores, pairs, text_only = score_system(system, gold, texts, urls)
        report[system.name] = summarise(scores, rounds)
        if facts_scorer is not None:
            facts = facts_scorer(pairs)
            facts.update(score_organisation(text_only, "organisation_text_only"))
            report[system.name]["facts"] = facts
    return report


def public_addresses(gold: list[GoldDoc]) -> dict[str, str]:
    """Gold document id -> public address of its corpus file, where ``corpus/manifest.yaml`` knows one.

    The eval converts each document as a curator would convert a checkout of its source with
    ``--url-base``: the organisation may read the address (a wikitech page has none in the manifest).
    """
    manifest = load_manifest()
    urls = {}
    for doc in gold:
        url = source_url(doc.path, manifest) if doc.path else None
        if url:
            urls[doc.id] = url
    return urls


def score_system(system: System, gold: list[GoldDoc], texts: dict[str, str], urls: dict[str, str] | None = None,
                 ) -> tuple[list[DocScore], list[tuple[dict, Card]], list[tuple[dict, str | None]]]:
    """Token counts of one system on every gold document, (gold card, predicted card) pairs, and
    (gold card, organisation found from the text alone) pairs."""
    scores, pairs, text_only = [], [], []
    for doc in gold:
        text = texts[doc.id]
        card, organisation = predict_with_text_only(system, doc, text, (urls or {}).get(doc.id))
        scores.append(score_spans(doc.id, doc.source, text, doc.annotated, gold_spans(doc), card_spans(card)))
        pairs.append((doc.card, card))
        text_only.append((doc.card, organisation))
    return scores, pairs, text_only


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
        lines.append(f"| {name} | " + " | ".join(f"{report[s]['fields'][name]['f1']:.3f}" for s in names) + " |")
    lines.append("| **macro F1** | " + " | ".join(
        f"**{report[s]['macro_f1']:.3f}** [{report[s]['interval95']['macro_f1'][0]:.2f}-{report[s]['interval95']['macro_f1'][1]:.2f}]"
        for s in names) + " |")
    lines.append("| micro F1 | " + " | ".join(f"{report[s]['micro']['f1']:.3f}" for s in names) + " |")
    if "pipeline" in report:
        lines += ["", "Per source (pipeline, macro F1): " + ", ".join(
            f"{src} {v['macro_f1']:.2f} ({v['documents']})" for src, v in report["pipeline"]["per_source"].items())]
        worst = report["pipeline"]["worst"]
        lines += ["", "Worst documents (pipeline): " + "; ".join(
            f"{name}: " + ", ".join(f"{w['id']} {w['f1']:.2f}" for w in worst[name][:2]) for name in TEXT_FIELDS)]
    return "\n".join(lines)


def check_floors(results: dict[str, dict], floors: dict) -> list[str]:
    """Fields where the pipeline fell below its floor by more than the noise margin.

    Args:
        results: ``{variant: report}`` with ``report["pipeline"]``.
        floors: Contents of ``eval/baseline.json``.
    """
    margin = floors.get("margin", 0.02)
    failures = []
    for variant, fields in floors.get("floors", {}).items():
        if variant not in results:
            continue
        summary = results[variant]["pipeline"]
        for name, floor in fields.items():
            value = summary["macro_f1"] if name == "macro_f1" else summary["fields"][name]["f1"]
            if value < floor - margin:
                failures.append(f"{variant}: {name}: F1 {value:.3f} is below its floor {floor:.3f} - margin {margin}")
    return failures


def floor_figures(current: dict[str, float], previous: dict[str, float], allow_lower: bool,
                  label: str) -> tuple[dict[str, float], list[str]]:
    """Floors for ``current`` figures, each rounded down to 0.01; a floor of ``previous`` that would
    go down is kept unless ``allow_lower`` (lowering a floor is an explicit act).

    Returns:
        ``(floors, down)``; down names every floor that would go down (``label: name: old -> new``).
    """
    out, down = {}, []
    for name, value in current.items():
        value = math.floor(round(value * 100, 6)) / 100  # 0.58 * 100 is 57.99...: not a floor of 0.57
        if name in previous and value < previous[name]:
            down.append(f"{label}: {name}: {previous[name]:.2f} -> {value:.2f}")
            if not allow_lower:
                value = previous[name]
        out[name] = value
    return out, down


def new_floors(results: dict[str, dict], old: dict, allow_lower: bool) -> tuple[dict, list[str]]:
    """Floors set to the current figures (rounded down to 0.01).

    Returns:
        ``(floors, lowered)``, lowered naming each floor kept (or lowered, with ``allow_lower``), so
        the output says which floors an ``--allow-lower`` run took down.
    """
    floors = {"margin": old.get("margin", 0.02), "note": old.get("note", ""), "floors": {}}
    lowered = []
    for variant, report in results.items():
        summary = report["pipeline"]
        current = {name: summary["fields"][name]["f1"] for name in TEXT_FIELDS}
        current["macro_f1"] = summary["macro_f1"]
        floors["floors"][variant], down = floor_figures(current, old.get("floors", {}).get(variant, {}),
                                                        allow_lower, variant)
        lowered += down
    return floors, lowered


def read_floors(path: Path) -> dict:
    """A floors file's content, or ``{}`` when there is none."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def save_floors(path: Path, updated: dict, old: dict, lowered: list[str], allow_lower: bool,
                note: str = "") -> list[str]:
    """Write ``updated`` floors atomically, keeping ``old``'s note (else ``note``).

    Returns:
        The lines to print: where the floors went and which went down (``lowered``), or would have.
    """
    from pmparse.library.store import atomic_write

    updated["note"] = old.get("note") or note
    atomic_write(path, json.dumps(updated, indent=2) + "\n")
    lines = [f"floors written to {path}"]
    if lowered:
        lines.append(("lowered: " if allow_lower else "kept (would go down; pass --allow-lower to lower them): ")
                     + "; ".join(lowered))
    return lines


def floors_verdict(failures: list[str]) -> tuple[str, int]:
    """The line a floors check prints and its exit code (1 below a floor)."""
    return "floors: " + ("all met" if not failures else "BELOW FLOOR: " + "; ".join(failures)), 1 if failures else 0


def run_eval(gold_files: list[Path] | None, corpus: str | None, model_dir: str | None, variants: list[str],
             rounds: int = 1000, with_facts: bool = True) -> dict:
    """Everything ``pmparse eval`` reports, for each variant (``headed``, ``stripped``)."""
    root = corpus_root(corpus)
    facts_scorer = None
    if with_facts:
        from pmparse.evaluation.facts import score_facts as facts_scorer
    results = {}
    for variant in variants:
        files = gold_files if (gold_files and variant == "headed") else default_gold_files(variant)
        gold = load_gold(files, root)
        results[variant] = evaluate(gold, root, systems_for(model_dir), rounds, facts_scorer)
    return results



def run_agreement(corpus: str | None, second_files: list[Path] | None = None) -> tuple[str, int]:
    """Inter-annotator agreement of a second pass (``eval/gold/second_pass.jsonl``, or
    ``second_files``) with the first-pass gold documents of the same ids: markdown and exit code.
    Only the fields both passes annotate are scored and shown."""
    root = corpus_root(corpus)
    first = load_gold(default_gold_files("headed"), root)
    files = second_files or [GOLD_DIR / SECOND_PASS]
    by_id = {doc.id: doc for doc in first}
    matched = [doc for doc in load_gold(files, root) if doc.id in by_id]
    if not matched:
        raise GoldError("expected second-pass documents with the ids of first-pass gold documents, found none",
                        ", ".join(str(f) for f in files))
    result = agreement(first, matched, root)
    shown = [n for n in TEXT_FIELDS if any(n in doc.annotated and n in by_id[doc.id].annotated for doc in matched)]
    lines = [f"### Inter-annotator agreement ({result['documents']} documents, token F1)", "",
             "| field | F1 | precision | recall |", "|---|---:|---:|---:|"]
    for name in shown:
        f = result["fields"][name]
        lines.append(f"| {name} | {f['f1']:.3f} | {f['precision']:.3f} | {f['recall']:.3f} |")
    lines.append(f"| **macro F1** | **{result['macro_f1']:.3f}** | | |")
    cards = [(by_id[doc.id].card, doc.card) for doc in matched if doc.card]
    if cards:
        lines += ["", f"### Card facts and tags, the same {len(cards)} documents (first pass as reference, keys "
                  "both passes state)", "", facts_table(card_agreement(cards), skip_empty=True)]
    return "\n".join(lines), 0


def plot_report(results: dict[str, dict], path: str) -> None:
    """A per-field F1 bar chart of every system and variant."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise UsageError("expected matplotlib for --plot, found it missing (pip install 'pmparse[plot]')") from exc
    fig, axes = plt.subplots(len(results), 1, figsize=(10, 3.2 * len(results)), squeeze=False)
    for ax, (variant, report) in zip(axes[:, 0], results.items()):
        names = [n for n in report if "fields" in report[n]]
        width = 0.8 / len(names)
        for k, name in enumerate(names):
            values = [report[name]["fields"][f]["f1"] for f in TEXT_FIELDS]
            ax.bar(np.arange(len(TEXT_FIELDS)) + k * width, values, width, label=name)
        ax.set_xticks(np.arange(len(TEXT_FIELDS)) + width * (len(names) - 1) / 2, TEXT_FIELDS, rotation=20, fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_title(f"token F1 per field ({variant})")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run_eval_command(gold_files, corpus, model_dir, variants, rounds, report_path, plot_path,
                     check, update, allow_lower) -> tuple[str, int]:
    """What ``pmparse eval`` prints and its exit code."""
    results = run_eval(gold_files, corpus, model_dir, variants, rounds)
    parts = []
    for variant, report in results.items():
        docs = report["pipeline"]["documents"]
        parts.append(markdown_table(report, f"{variant} gold documents ({docs}), token F1"))
        facts = report["pipeline"].get("facts")
        if facts:
            parts.append(f"### {variant} gold documents: card facts and tags (pipeline)\n\n"
                         "Each document is converted with its public address from corpus/manifest.yaml where known "
                         "(as `pmparse convert --url-base` would). Tag figures are in-sample: the tag model trains "
                         "on the gold cards; its cross-validated figures are in models/categories/README.md.\n\n"
                         + facts_table(facts))
            if facts.get("root_cause_confusion"):
                parts.append("Root-cause categories, rows gold, columns predicted (in-sample):\n\n"
                             + confusion_markdown(facts["root_cause_confusion"]))
    code = 0
    floors = read_floors(FLOORS_PATH)
    if update:
        updated, lowered = new_floors(results, floors, allow_lower)
        parts += save_floors(FLOORS_PATH, updated, floors, lowered, allow_lower)
    if check:
        line, code = floors_verdict(check_floors(results, floors))
        parts.append(line)
    if report_path:
        Path(report_path).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if plot_path:
        plot_report(results, plot_path)
    return "\n\n".join(parts), code
