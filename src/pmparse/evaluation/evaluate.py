r"""Measure extraction accuracy against the gold eval set.

Text fields are scored at token level: tokens are ``\w+`` runs of the source text; a token is
gold for a field when it lies inside a gold span of that field, predicted when it lies inside an
evidence span of one of that field's items. Only a document's ``annotated`` fields are scored.

The same run scores the pipeline and two baselines (headings only, keywords), on the headed gold
documents and on their heading-stripped variants (``eval/stripped/``), with 95 % bootstrap
intervals over documents, a per-source table and the worst documents per field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from pmparse.card.schema import TEXT_FIELDS, Card
from pmparse.errors import GoldError, UsageError
from pmparse.evaluation.corpus import DEFAULT_MANIFEST, corpus_root, load_manifest, source_url
from pmparse.evaluation.facts import (
    card_agreement,
    card_with_text_only_organisation,
    gold_title,
    names_publisher,
    score_organisation,
)
from pmparse.evaluation.gold import GOLD_DIR, SECOND_PASS, GoldDoc, default_gold_files, gold_text, load_gold
from pmparse.evaluation.metrics import DocScore, agreement, card_spans, score_spans, scoring_view, summarise
from pmparse.ingest.read import ingest_bytes
from pmparse.nlp.pipeline import PipelineConfig, get


@dataclass
class System:
    """A named way to turn a text into a card."""

    name: str
    config: PipelineConfig


def predict_with_text_only(system: System, doc: GoldDoc, text: str,
                           url: str | None = None) -> tuple[Card, str | None, str | None]:
    """Run a system on a gold document's text (offsets index that same text).

    Args:
        system: The system.
        doc: The gold document.
        text: Its text.
        url: Its public address, as ``pmparse convert --url-base`` would record it, or None.

    Returns:
        ``(card, organisation, extracted)``: the card, the organisation the same analysis finds
        from the text alone (the address withheld; the location, a corpus path, is no address),
        and the text the card's evidence indexes when it is not ``text`` (an HTML page's), else None.
    """
    source = ingest_bytes(text.encode("utf-8"), doc.path or f"{doc.id}.md")
    card, organisation = card_with_text_only_organisation(get(system.config), source, url)
    return card, organisation, source.text if source.extracted else None


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
            named = [(g, v) for g, v in text_only if g.get("_names_publisher")]
            facts.update(score_organisation(named, "organisation_text_only_named"))
            facts.update(score_organisation([(g, v) for g, v in text_only if not g.get("_names_publisher")],
                                            "organisation_text_only_unnamed"))
            facts.update(score_organisation([(g, c.organisation) for g, c in pairs if not g.get("_names_publisher")],
                                            "organisation_unnamed"))
            report[system.name]["facts"] = facts
    return report


def public_addresses(gold: list[GoldDoc]) -> dict[str, str]:
    """Gold document id -> public address of its corpus file, where ``corpus/manifest.yaml`` knows one.

    The eval converts each document as a curator would convert a checkout of its source with
    ``--url-base``: the organisation may read the address (a wikitech page has none in the manifest).
    """
    if not DEFAULT_MANIFEST.is_file():
        return {}  # run outside the project's checkout, on a curator's own gold set: no address known
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
        card, organisation, extracted = predict_with_text_only(system, doc, text, (urls or {}).get(doc.id))
        scored_text, spans = scoring_view(doc, text, extracted)
        scores.append(score_spans(doc.id, doc.source, scored_text, doc.annotated, spans, card_spans(card)))
        gold_card = scored_card(doc, text)
        pairs.append((gold_card, card))
        text_only.append((gold_card, organisation))
    return scores, pairs, text_only


def scored_card(doc: GoldDoc, text: str) -> dict:
    """The gold card as the facts scorer reads it: ``title`` (the text at ``title_span``) and
    ``_names_publisher`` added. A heading-stripped variant's offsets index another text, so its
    title is not scored; an HTML file's span indexes the markup, not the card's extracted text, so
    only the title's words are compared."""
    card = dict(doc.card)
    span = card.pop("title_span", None)
    if span and not doc.deleted:
        html = (doc.path or "").endswith((".html", ".htm"))
        card["title"] = gold_title(text, span, html)
        card["title_span"] = None if html else span
    if card.get("organisation"):
        card["_names_publisher"] = names_publisher(text, str(card["organisation"]))
    return card


def run_eval(gold_files: list[Path] | None, corpus: str | None, model_dir: str | None, variants: list[str],
             rounds: int = 1000, with_facts: bool = True, progress: Callable[[str], None] | None = None) -> dict:
    """Everything ``pmparse eval`` reports, for each variant (``headed``, ``stripped``).

    With ``gold_files``, ``headed`` scores those files and ``stripped`` the heading-stripped
    variants (``eval/stripped/``) of their documents, matched by id; a variant with none of them
    is left out of the result. ``progress`` is told what is being scored before each variant: the
    two take about a minute on a laptop, and a command silent that long looks hung.

    Raises:
        GoldError: no variant asked for holds a document of ``gold_files``.
    """
    root = _corpus_for(corpus, gold_files)
    facts_scorer = None
    if with_facts:
        from pmparse.evaluation.facts import score_facts as facts_scorer
    results = {}
    given = load_gold(gold_files, root) if gold_files else None
    chosen = {doc.id for doc in given} if given is not None else None
    for variant in variants:
        if given is None:
            gold = load_gold(default_gold_files(variant), root)
        elif variant == "headed":
            gold = given
        else:
            # the heading-stripped variants of the chosen documents alone: the whole stripped set
            # was scored beside one gold file, and a curator's own file has none
            gold = [doc for doc in load_gold(default_gold_files(variant), root) if doc.id in chosen]
            if not gold:
                if progress is not None:
                    progress(f"{variant}: skipped, eval/stripped holds no variant of the given gold documents "
                             "(python eval/make_stripped.py makes them for eval/gold files)")
                continue
        if progress is not None:
            progress(f"{variant}: scoring {len(gold)} gold document{'s' if len(gold) != 1 else ''} "
                     "(pipeline, headings, keywords)")
        results[variant] = evaluate(gold, root, systems_for(model_dir), rounds, facts_scorer)
    if not results:
        raise GoldError(f"expected documents of the given gold files in the {' and '.join(variants)} variant, "
                        "found none (--variant headed scores a gold file as written)",
                        ", ".join(str(f) for f in gold_files or []))
    return results


def _corpus_for(corpus: str | None, gold_files: list[Path] | None) -> Path | None:
    """The corpus root, or None for gold files whose every document carries its text (a curator's
    own gold set needs no corpus; it was refused for want of one)."""
    try:
        return corpus_root(corpus)
    except UsageError:
        if corpus is None and gold_files and all(doc.text is not None for doc in load_gold(gold_files)):
            return None
        raise


def second_pass_agreement(corpus: str | None, second_files: list[Path] | None = None) -> dict:
    """Inter-annotator agreement of a second pass (``eval/gold/second_pass.jsonl``, or
    ``second_files``) with the first-pass gold documents of the same ids.

    Returns:
        ``{"spans": agreement, "fields": [names both passes annotate], "cards": facts agreement or
        None}``.

    Raises:
        GoldError: no second-pass document has the id of a first-pass one.
    """
    root = corpus_root(corpus)
    first = load_gold(default_gold_files("headed"), root)
    files = second_files or [GOLD_DIR / SECOND_PASS]
    by_id = {doc.id: doc for doc in first}
    matched = [doc for doc in load_gold(files, root) if doc.id in by_id]
    if not matched:
        raise GoldError("expected second-pass documents with the ids of first-pass gold documents, found none",
                        ", ".join(str(f) for f in files))
    shown = [n for n in TEXT_FIELDS if any(n in doc.annotated and n in by_id[doc.id].annotated for doc in matched)]
    cards = [(by_id[doc.id].card, doc.card) for doc in matched if doc.card]
    return {"spans": agreement(first, matched, root), "fields": shown,
            "cards": {"documents": len(cards), "facts": card_agreement(cards)} if cards else None}
