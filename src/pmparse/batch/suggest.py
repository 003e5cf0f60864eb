"""Making suggestions: one ingested source analysed into suggested cards, with the warnings a
curator should see. The orchestrating stage (:mod:`pmparse.batch`, the API) calls it; the
records layer (:mod:`pmparse.library`) only stores what it returns."""

from __future__ import annotations

from typing import BinaryIO

from pmparse.card.build import MAX_ITEMS, build_card
from pmparse.card.schema import Card
from pmparse.ingest.read import DEFAULT_MAX_BYTES, Ingested, ingest
from pmparse.nlp.components.units import MAX_UNIT_CHARS
from pmparse.nlp.pipeline import PipelineConfig, analyse, get, version_info
from pmparse.nlp.tokenizer import MAX_LINE


def doc_warnings(doc) -> list[str]:
    """What the analysis found that a curator should know and the card cannot say (several
    incidents, a front matter date that is no calendar date)."""
    from pmparse.nlp.components.sectionizer import several_incidents_warning

    message = several_incidents_warning(doc)
    facts = doc.user_data.get("pmparse_facts", {})
    warnings = ([message] if message else []) + [fact["warning"] for fact in facts.values() if fact.get("warning")]
    if doc.user_data.get("pmparse_coarse"):
        warnings.append(f"lines over {MAX_LINE:,} characters (no line breaks: minified data, or text not "
                        f"meant to be read) were read in pieces: their sentences are cut at {MAX_UNIT_CHARS:,} "
                        "characters and their tags are not read")
    for name, count in sorted(doc.user_data.get("pmparse_items_left_out", {}).items()):
        warnings.append(f"{name}: {count} more item(s) than the {MAX_ITEMS} a field keeps were left out")
    return warnings


def suggest_cards(nlp, source: Ingested, info: dict[str, str | None]) -> list[tuple[Card, list[str]]]:
    """The suggested cards of one ingested source, with their warnings: one card, or one per entry
    of a file holding many incidents (:func:`pmparse.nlp.entries.split_entries`), each indexing the
    whole text and located at ``path#entry-KEY``. Standard input is never split: it has no name to
    key the entries by."""
    from pmparse.card.build import place_entry
    from pmparse.nlp.entries import entry_source, split_entries

    entries = split_entries(source.text, source.masked) if source.location != "-" else []
    if not entries:
        doc = analyse(nlp, source)
        return [(build_card(doc, source, "IL-0000", info), list(source.warnings) + doc_warnings(doc))]
    cards = []
    for entry in entries:
        part = entry_source(source, entry)
        doc = analyse(nlp, part)
        card = place_entry(build_card(doc, part, "IL-0000", info), source, entry.key, entry.heading,
                           entry.start, entry.end)
        cards.append((card, list(source.warnings) + doc_warnings(doc)))
    return cards


def suggest(location: str, config: PipelineConfig = PipelineConfig(), max_bytes: int = DEFAULT_MAX_BYTES,
            stdin: BinaryIO | None = None, card_id: str = "IL-0000") -> tuple[Card, list[str]]:
    """Analyse one source into a suggested card (not yet in a library).

    Returns:
        ``(card, warnings)``.

    Raises:
        InputError: the source cannot be read as text.
    """
    source = ingest(location, max_bytes=max_bytes, stdin=stdin)
    nlp = get(config)
    doc = analyse(nlp, source)
    return build_card(doc, source, card_id, version_info(nlp)), list(source.warnings) + doc_warnings(doc)
