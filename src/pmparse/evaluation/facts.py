"""Scores of card facts and tags against gold cards.

:func:`score_facts` takes ``(gold_card, predicted_card)`` pairs, where the gold card is the
``card`` object of a gold line (``eval/gold/*.jsonl``: keys optional, a missing key means the
annotator gave no value) and the prediction a :class:`~pmparse.card.schema.Card`, and returns plain
numbers ``pmparse eval`` can print and store:

- ``organisation``: exact match (case and surrounding space ignored) over documents whose gold
  card names one; ``year`` the same on the first four characters of ``date``; ``date`` on the
  whole date;
- ``duration``: share of documents with a gold duration whose predicted duration is within 10 %
  of it (a missing prediction counts as wrong); ``duration_spurious`` counts predictions where
  the gold card gives none;
- tags (``components``, ``root_cause``, ``contributing_factor``): set precision, recall and F1
  summed over documents whose gold card has the key (micro), and the macro F1 over the ids that
  occur in gold or predictions;
- ``root_cause_primary``: share of documents whose gold card names a root-cause category on which
  the card's primary one (its most confident) is among them;
- ``title``: share of documents with an author's title (a gold ``title``, the whitespace-normalised
  text at ``title_span``) whose card keeps it: the card's title is that text, or the title's
  evidence overlaps ``title_span`` (offsets comparable only when the gold card keeps the span);
- ``root_cause_confusion``: rows gold ids, columns predicted ids. A label in both sets counts on
  the diagonal; every gold label left unmatched pairs with every predicted label left unmatched
  in the same document (or with ``(none)`` when there is none), and every unmatched prediction of
  a document without unmatched gold labels counts in the ``(none)`` row.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from pathlib import Path
from typing import Iterable, Mapping

from pmparse.card.schema import Card
from pmparse.card.title import by_confidence
# the organisation comparisons live beside the held-out figures, which this module's measure uses
from pmparse.evaluation.facts_held_out import held_out_table, normalised, same_organisation, score_organisation
from pmparse.evaluation.metrics import prf

NONE = "(none)"
TAGS = {
    "components": "components",
    "root_cause": "root_cause_categories",
    "contributing_factor": "contributing_factor_categories",
}


def primary_category(card: Card) -> str | None:
    """The card's primary root-cause category: its most confident one (ties keep the card's order)."""
    ordered = by_confidence(card, "root_cause_categories", list(card.root_cause_categories))
    return ordered[0] if ordered else None


def title_kept(gold: Mapping, card: Card) -> bool:
    """Whether the card keeps the author's title: same text, or evidence overlapping ``title_span``."""
    if card.title and normalised(card.title) == normalised(gold["title"]):
        return True
    span = gold.get("title_span")
    support = card.support.get("title")
    if not span or support is None:
        return False
    return any(e.start < span[1] and span[0] < e.end for e in support.evidence if e.current)


def _ratio(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def duration_ok(gold: int | float, predicted: int | float | None, tolerance: float = 0.10) -> bool:
    """True when ``predicted`` is within ``tolerance`` (relative) of ``gold``."""
    if predicted is None:
        return False
    return abs(predicted - gold) <= tolerance * max(gold, 1)


def confusion(pairs: Iterable[tuple[set[str], set[str]]]) -> dict[str, dict[str, int]]:
    """A confusion table of label sets, rows gold and columns predicted (see the module doc)."""
    table: dict[str, Counter] = {}
    for gold, predicted in pairs:
        for label in gold & predicted:
            table.setdefault(label, Counter())[label] += 1
        missed, extra = gold - predicted, predicted - gold
        for label in missed:
            row = table.setdefault(label, Counter())
            if extra:
                for other in extra:
                    row[other] += 1
            else:
                row[NONE] += 1
        if not missed:
            for other in extra:
                table.setdefault(NONE, Counter())[other] += 1
    return {row: dict(sorted(counts.items())) for row, counts in sorted(table.items())}


def set_scores(pairs: list[tuple[set[str], set[str]]]) -> dict:
    """Micro P/R/F1 over documents and per-label F1 with their macro average."""
    tp = fp = fn = 0
    per: dict[str, list[int]] = {}
    for gold, predicted in pairs:
        tp += len(gold & predicted)
        fp += len(predicted - gold)
        fn += len(gold - predicted)
        for label in gold | predicted:
            counts = per.setdefault(label, [0, 0, 0])
            counts[0] += label in gold and label in predicted
            counts[1] += label in predicted and label not in gold
            counts[2] += label in gold and label not in predicted
    p, r, f = prf(tp, fp, fn)
    labels = {label: round(prf(*counts)[2], 4) for label, counts in sorted(per.items())}
    support = {label: counts[0] + counts[2] for label, counts in sorted(per.items())}
    gold_labels = [label for label in labels if support[label] > 0]
    macro = sum(labels[label] for label in gold_labels) / len(gold_labels) if gold_labels else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4), "macro_f1": round(macro, 4),
            "per_label_f1": labels, "support": support, "documents": len(pairs)}


def score_facts(pairs: list[tuple[Mapping, Card]]) -> dict:
    """Score predicted card facts and tags against gold cards.

    Args:
        pairs: ``(gold_card, predicted_card)``; the gold card is a gold line's ``card`` dict.

    Returns:
        A dict of plain numbers at the top level (``organisation``, ``year``, ``date``,
        ``duration``, ``components_f1``, ``root_cause_f1``, ``root_cause_macro_f1``,
        ``contributing_factor_f1`` ...; None when no gold document states the fact), the counts
        behind them in ``counts``, per-tag details in ``tags`` and the root-cause confusion table in
        ``root_cause_confusion``.
    """
    hits: Counter = Counter()
    totals: Counter = Counter()
    spurious = 0
    tag_pairs: dict[str, list[tuple[set[str], set[str]]]] = {name: [] for name in TAGS}
    for gold, card in pairs:
        if gold.get("organisation"):
            totals["organisation"] += 1
            hits["organisation"] += same_organisation(gold["organisation"], card.organisation)
        if gold.get("date"):
            totals["year"] += 1
            totals["date"] += 1
            predicted = card.date or ""
            hits["year"] += predicted[:4] == str(gold["date"])[:4]
            hits["date"] += predicted == str(gold["date"])
        if gold.get("root_cause_categories"):
            totals["root_cause_primary"] += 1
            hits["root_cause_primary"] += primary_category(card) in set(gold["root_cause_categories"])
        if gold.get("title"):
            totals["title"] += 1
            hits["title"] += title_kept(gold, card)
        if gold.get("duration_minutes") is not None:
            totals["duration"] += 1
            hits["duration"] += duration_ok(gold["duration_minutes"], card.duration_minutes)
        elif card.duration_minutes is not None:
            spurious += 1
        for name, field in TAGS.items():
            if field in gold:
                tag_pairs[name].append((set(gold[field] or []), set(getattr(card, field))))
    result: dict = {name: _ratio(hits[name], totals[name])
                    for name in ("organisation", "year", "date", "duration", "root_cause_primary", "title")}
    result["duration_spurious"] = spurious
    tags = {name: set_scores(found) for name, found in tag_pairs.items()}
    for name, scores in tags.items():
        result[f"{name}_precision"] = scores["precision"] if scores["documents"] else None
        result[f"{name}_recall"] = scores["recall"] if scores["documents"] else None
        result[f"{name}_f1"] = scores["f1"] if scores["documents"] else None
        result[f"{name}_macro_f1"] = scores["macro_f1"] if scores["documents"] else None
    result["documents"] = len(pairs)
    result["counts"] = {"hits": dict(hits), "totals": dict(totals)}
    result["tags"] = tags
    result["root_cause_confusion"] = confusion(tag_pairs["root_cause"])
    return result


def card_agreement(pairs: Iterable[tuple[Mapping, Mapping]]) -> dict:
    """How two annotation passes agree on card facts and tags: :func:`score_facts` with the first
    pass as reference, on the keys both passes state.

    A key only one pass states (absent or null) is left out on both sides (a pass that left
    ``duration_minutes`` out read the text as not stating one; the other pass's value is not a
    miss of a model). An empty tag list is a statement: no tag applies.

    Args:
        pairs: ``(first_card, second_card)`` dicts of the same documents.
    """
    from types import SimpleNamespace

    scored = []
    for first, second in pairs:
        shared = {k for k, v in first.items() if v is not None and second.get(k) is not None}
        reference = {k: v for k, v in first.items() if k in shared}
        other = SimpleNamespace(title=None, support={}, organisation=second.get("organisation") if "organisation" in shared else None,
                                date=str(second["date"]) if "date" in shared and second.get("date") else None,
                                duration_minutes=second.get("duration_minutes") if "duration_minutes" in shared else None,
                                **{field: list(second.get(field) or []) for field in TAGS.values()})
        scored.append((reference, other))
    return score_facts(scored)


def confusion_markdown(table: dict[str, dict[str, int]]) -> str:
    """The confusion table as a markdown table (rows gold, columns predicted)."""
    columns = sorted({c for row in table.values() for c in row} | {r for r in table if r != NONE}, key=lambda c: (c == NONE, c))
    if NONE in {c for row in table.values() for c in row} and NONE not in columns:
        columns.append(NONE)
    lines = ["| gold \\ predicted | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for row in sorted(table, key=lambda r: (r == NONE, r)):
        lines.append(f"| {row} | " + " | ".join(str(table[row].get(c, "")) for c in columns) + " |")
    return "\n".join(lines)


def card_with_text_only_organisation(nlp, source, url: str | None = None) -> tuple[Card, str | None]:
    """The card of ``source`` converted with its public address ``url`` (as ``pmparse convert
    --url-base`` does), and the organisation the same analysis finds from the text alone.

    "Text alone" withholds ``url``; a source whose location is itself a URL still reads it.

    Args:
        nlp: The pipeline.
        source: The ingested source.
        url: Its public address, or None (then both organisations are the same).
    """
    card, organisation, *_ = convert_views(nlp, source, url)
    return card, organisation


def convert_views(nlp, source, url: str | None = None, without: str | None = None) -> tuple:
    """:func:`card_with_text_only_organisation` and the organisation candidates of both views
    (with the address, and from the text alone), for the ranker's training and held-out scores.

    Args:
        nlp: The pipeline.
        source: The ingested source.
        url: Its public address, or None.
        without: A replacement organisation table (the packaged one less the source's own
            publisher): when given, two more lists follow, the candidates of both views found
            with it (:func:`pmparse.evaluation.facts_held_out.publisher_free_tables`).
    """
    from pmparse.card.build import build_card
    from pmparse.nlp.components.facts import extract_facts
    from pmparse.nlp.pipeline import analyse, version_info

    if url:
        source = dataclasses.replace(source, url=url)
    doc = analyse(nlp, source)
    card = build_card(doc, source, "IL-0000", version_info(nlp))
    cands = doc.user_data.get("pmparse_org_candidates", [])
    views = [card, card.organisation, cands, cands]
    if url:
        doc.user_data["pmparse_url"] = None
        views[1] = (extract_facts(doc).get("organisation") or {}).get("value")
        views[3] = doc.user_data.get("pmparse_org_candidates", [])
    if without is None:
        return tuple(views)
    for address in (url, None):
        doc.user_data["pmparse_url"] = address
        extract_facts(doc, without)
        views.append(doc.user_data.get("pmparse_org_candidates", []))
    return tuple(views)


def gold_title(raw: str, span: list[int] | tuple[int, int], html: bool) -> str:
    """The author's title a gold ``title_span`` marks in the file's raw text, whitespace-normalised
    (in HTML, tags dropped and entities read; a heading's markup, "# " or "== ... ==", dropped)."""
    import html as _html

    text = raw[span[0]:span[1]]
    if html:
        text = _html.unescape(re.sub(r"<[^>]*>", " ", text))
    text = re.sub(r"^(?:#{1,6}|=+)", "", text.strip()).rstrip("=")
    return " ".join(text.split())


def names_publisher(text: str, organisation: str, gazetteer_path: str | None = None) -> bool:
    """Whether ``text`` names ``organisation`` (its name, or a name the gazetteer gives it)."""
    from pmparse.rules.taxonomy import load_organisations

    folded = text.casefold()
    names = {organisation}
    for entry in load_organisations(gazetteer_path).organisations:
        if normalised(entry.name) == normalised(organisation):
            names.update(entry.aliases)
            names.update(entry.domains)
            names.update(entry.sites)
            names.update(getattr(entry, "products", []) or [])
    return any(name.casefold() in folded for name in names if len(name) > 1)


def labelled_files(repo: Path | None = None) -> list[Path]:
    """Every file of labelled cards: the first-pass gold files (``eval/gold/*.jsonl``, the second
    pass left out) and the all-field training cards (``corpus/field_spans/batch_*.jsonl``), so
    batches annotated later join when they land."""
    from pmparse.evaluation.corpus import REPO_ROOT
    from pmparse.evaluation.gold import SECOND_PASS

    repo = repo or REPO_ROOT
    gold = sorted(p for p in (repo / "eval" / "gold").glob("*.jsonl") if p.name != SECOND_PASS)
    return gold + sorted((repo / "corpus" / "field_spans").glob("batch_*.jsonl"))


def measure(gold_files=None, corpus: str | None = None, config=None,
            held_out: bool = False, views: dict | None = None) -> tuple[dict, list[tuple[dict, Card]]]:
    """Convert every first-pass gold document with the pipeline and score its card.

    Each document is converted with its public address from ``corpus/manifest.yaml`` where the
    manifest knows one, as a curator converting a checkout of its source with ``--url-base``
    would; ``organisation_text_only`` scores the organisation found without it, and
    ``organisation_text_only_named`` the same on the documents whose text names their
    organisation (``organisation_unnamed`` and ``organisation_text_only_unnamed`` on the others).
    A gold card's ``title_span`` becomes its ``title`` (the text it marks) for the title figure.
    ``per_source`` holds the same figures for each corpus source. With ``held_out`` nothing known
    of a document's own source helps find its organisation: its candidates are found with the
    organisation table less the source's own publisher (:func:`pmparse.evaluation.facts_held_out.publisher_free_tables`; the groups
    whose entry was dropped are in ``tables_dropped``), and the organisation (both views) is the
    pick of a ranker fitted without the document's source group
    (:func:`pmparse.training.organisation.held_out`); the rules' choice among the same candidates
    is scored in ``rules_held_out`` (its ``per_source`` too).

    Args:
        gold_files: Gold JSONL files; ``eval/gold/*.jsonl`` without the second pass when None.
        corpus: Corpus root; ``$PMPARSE_CORPUS`` or ``../shared/corpus`` when None.
        config: The pipeline configuration (:func:`pmparse.nlp.pipeline.pipeline_config` when None).
        views: Conversions shared between calls (an empty dict at first): each document's
            conversion with and without its address, kept by corpus path, address and pipeline
            configuration and reused by the next call that converts it the same way (sets of
            labelled cards overlap: the gold set, the development set, every labelled card).
            A held-out conversion with a table less a publisher is made anew and keeps its
            plain views here.

    Returns:
        ``(scores, pairs)``; each pair's gold card is a copy with ``title``, ``_source``, ``_group``,
        ``_organisation_text_only``, ``_names_publisher`` and the organisation candidates of both
        views (``_candidates``, ``_candidates_text``) added.
    """
    from pmparse.evaluation.corpus import corpus_root, load_manifest, source_url
    from pmparse.evaluation.facts_held_out import (
        held_out_organisations,
        organisation_scores,
        publisher_free_tables,
        source_publishers,
    )
    from pmparse.evaluation.gold_cards import read_gold
    from pmparse.nlp.extractors.organisation_rank import collecting
    from pmparse.nlp.pipeline import get, pipeline_config

    import tempfile

    root = corpus_root(corpus)
    config = config or pipeline_config()
    nlp = get(config)
    manifest = load_manifest()
    groups = {name: rule.group or name for name, rule in manifest.sources.items()}
    rows = read_gold(gold_files, root)
    pairs = []
    text_only: list[tuple[dict, str | None, bool]] = []

    def group_of(row: dict) -> str:
        source = row["path"].split("/", 1)[0]
        return groups.get(source, source)

    with tempfile.TemporaryDirectory() as folder, collecting():
        tables = publisher_free_tables(source_publishers(rows, groups), Path(folder)) if held_out else {}
        converted = [_converted(nlp, root, row, manifest, tables.get(group_of(row)) if held_out else None,
                                views, config) for row in rows]
    for row, (source, card, organisation, cands, cands_text, *free) in zip(rows, converted):
        group = group_of(row)
        gold = dict(row.get("card", {}))
        gold["_source"] = row["path"].split("/", 1)[0]
        gold["_path"] = row["path"]
        gold["_url"] = source_url(row["path"], manifest)
        gold["_group"] = group
        gold["_candidates"], gold["_candidates_text"] = cands, cands_text
        gold["_candidates_free"], gold["_candidates_text_free"] = free if free else (cands, cands_text)
        gold["_table_dropped"] = group in tables
        if gold.get("title_span"):
            with open(root / row["path"], encoding="utf-8") as handle:  # line breaks as ingest reads them
                raw = handle.read()
            gold["title"] = gold_title(raw, gold["title_span"], source.extracted)
            if source.extracted:  # the span indexes the HTML, the card's evidence the extracted text
                gold["title_span"] = None
        named = bool(gold.get("organisation")) and names_publisher(source.text, str(gold["organisation"]))
        gold["_organisation_text_only"], gold["_names_publisher"] = organisation, named
        pairs.append((gold, card))
        text_only.append((gold, organisation, named))
    by_source: dict[str, list[int]] = {}
    for i, (gold, _) in enumerate(pairs):
        by_source.setdefault(gold["_source"], []).append(i)
    rules_held_out = None
    if held_out:
        rule_pairs, rule_text = held_out_organisations(pairs, text_only, "rules")
        rules_held_out = organisation_scores(rule_pairs, rule_text)
        rules_held_out["per_source"] = {name: organisation_scores([rule_pairs[i] for i in rows],
                                                                   [rule_text[i] for i in rows])
                                        for name, rows in sorted(by_source.items())}
        pairs, text_only = held_out_organisations(pairs, text_only, "ranker")
    scores = _scores(pairs, text_only)
    scores["per_source"] = {name: _scores([pairs[i] for i in rows], [text_only[i] for i in rows])
                            for name, rows in sorted(by_source.items())}
    if rules_held_out is not None:
        # the ranker's wrong names, to set beside the rules' (a wrong publisher is worse than none)
        wrong = ("organisation_wrong", "organisation_text_only_wrong")
        for figures, rows in [(scores, range(len(pairs)))] + [(scores["per_source"][name], rows)
                                                              for name, rows in sorted(by_source.items())]:
            found = organisation_scores([pairs[i] for i in rows], [text_only[i] for i in rows])
            figures.update({key: found[key] for key in wrong})
        scores["rules_held_out"] = rules_held_out
        scores["tables_dropped"] = sorted({gold["_group"] for gold, _ in pairs if gold["_table_dropped"]})
    return scores, pairs


def _converted(nlp, root, row: dict, manifest, without: str | None = None, views: dict | None = None,
               config=None) -> tuple:
    """``(source, card, organisation from the text alone, candidates, candidates text alone)`` of a
    line, and the candidates of both views found with the table ``without`` when given
    (:func:`convert_views`); taken from ``views`` (:func:`measure`) when it holds them."""
    from pmparse.evaluation.corpus import source_url
    from pmparse.ingest.read import ingest

    url = source_url(row["path"], manifest)
    key = (str(root / row["path"]), url, config)
    if without is None and views is not None and key in views:
        return views[key]
    source = ingest(str(root / row["path"]))
    found = (source, *convert_views(nlp, source, url, without))
    if views is not None:
        views[key] = found[:5]
    return found


def _scores(pairs: list[tuple[dict, Card]], text_only: list[tuple[dict, str | None, bool]]) -> dict:
    scores = score_facts(pairs)
    scores.update(score_organisation([(g, v) for g, v, _ in text_only], "organisation_text_only"))
    scores.update(score_organisation([(g, v) for g, v, named in text_only if named], "organisation_text_only_named"))
    scores.update(score_organisation([(g, v) for g, v, named in text_only if not named],
                                     "organisation_text_only_unnamed"))
    scores.update(score_organisation([(g, c.organisation) for (g, c), (_, _, named) in zip(pairs, text_only)
                                      if not named], "organisation_unnamed"))
    return scores


def facts_table(scores: dict, skip_empty: bool = False) -> str:
    """Headline fact and tag figures as a markdown table; ``skip_empty`` leaves out the rows no
    gold document states (a file annotated for one fact alone)."""
    rows = [("organisation (exact)", "organisation", "organisation"), ("year (exact)", "year", "year"),
            ("date (exact)", "date", "date"), ("duration (within 10 %)", "duration", "duration"),
            ("root-cause primary category (among gold's)", "root_cause_primary", "root_cause_primary"),
            ("the author's title kept", "title", "title")]
    totals = scores.get("counts", {}).get("totals", {})
    lines = ["| fact or tag | figure | documents |", "|---|---|---|"]
    for label, key, count in rows:
        value = scores.get(key)
        if skip_empty and not totals.get(count):
            continue
        lines.append(f"| {label} | {'-' if value is None else f'{value:.3f}'} | {totals.get(count, 0)} |")
        if key == "organisation" and scores.get("organisation_text_only") is not None:
            value = scores["organisation_text_only"]
            lines.append(f"| organisation, text alone without the source URL (exact) | {value:.3f} | "
                         f"{scores.get('organisation_text_only_documents', 0)} |")
            for name, label in (("organisation_text_only_named", "text alone, on texts naming their publisher"),
                                ("organisation_text_only_unnamed", "text alone, on texts never naming it"),
                                ("organisation_unnamed", "with the URL, on texts never naming it")):
                if scores.get(f"{name}_documents"):
                    lines.append(f"| organisation, {label} (exact) | {scores[name]:.3f} | "
                                 f"{scores[f'{name}_documents']} |")
    for label, name in (("components (set F1)", "components"), ("root-cause categories (set F1)", "root_cause"),
                        ("root-cause categories (macro F1)", "root_cause"),
                        ("contributing-factor categories (set F1)", "contributing_factor")):
        key = f"{name}_macro_f1" if "macro" in label else f"{name}_f1"
        value = scores.get(key)
        documents = scores.get("tags", {}).get(name, {}).get("documents", 0)
        if skip_empty and not documents:
            continue
        lines.append(f"| {label} | {'-' if value is None else f'{value:.3f}'} | {documents} |")
    return "\n".join(lines)


def duration_misses(pairs: list[tuple[Mapping, Card]]) -> list[dict]:
    """The documents whose duration is wrong, missing or given where gold states none.

    Args:
        pairs: ``(gold_card, predicted_card)`` as :func:`measure` returns them.

    Returns:
        One dict per miss, in the order of ``pairs``: ``path`` (the source's location), ``gold``,
        ``predicted``, ``confidence``, ``origin`` (the rule that read it) and ``evidence`` (the
        predicted duration's offsets).
    """
    misses = []
    for gold, card in pairs:
        expected, predicted = gold.get("duration_minutes"), card.duration_minutes
        if expected is None and predicted is None:
            continue
        if expected is not None and duration_ok(expected, predicted):
            continue
        support = card.support.get("duration_minutes")
        misses.append({"path": card.source.location, "gold": expected, "predicted": predicted,
                       "confidence": support.confidence if support else None,
                       "origin": support.origin if support else None,
                       "evidence": [(e.start, e.end) for e in support.evidence] if support else []})
    return misses


#: The development set of organisation, title, date and category rules (not gold: tune here).
DEV_FILES = tuple(f"corpus/field_spans/batch_f{n}.jsonl" for n in range(1, 7))

#: Per-source columns: (heading, score key).
_SOURCE_COLUMNS = (("docs", "documents"), ("organisation", "organisation"), ("text alone", "organisation_text_only"),
                   ("text alone, named", "organisation_text_only_named"), ("year", "year"), ("date", "date"),
                   ("duration", "duration"), ("primary cause", "root_cause_primary"), ("title kept", "title"))


def source_table(scores: dict, unlabelled: bool = False) -> str:
    """The headline figures of each corpus source as a markdown table; with ``unlabelled``, a row
    for each manifest source no labelled card comes from yet."""
    lines = ["| source | " + " | ".join(h for h, _ in _SOURCE_COLUMNS) + " |",
             "|---" * (len(_SOURCE_COLUMNS) + 1) + "|"]

    for name, figures in scores.get("per_source", {}).items():
        cells = []
        for _, key in _SOURCE_COLUMNS:
            value = figures.get(key)
            cells.append("-" if value is None else (str(value) if isinstance(value, int) else f"{value:.2f}"))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    if unlabelled:
        from pmparse.evaluation.corpus import load_manifest

        for name in sorted(set(load_manifest().sources) - set(scores.get("per_source", {}))):
            lines.append(f"| {name} (not labelled yet) | 0 | " + " | ".join("-" for _ in _SOURCE_COLUMNS[1:]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:  # pragma: no cover - a measuring script
    """``python -m pmparse.evaluation.facts [--gold FILE]... [--dev] [--all [--held-out]] [--misses]``:
    convert the gold documents and print the figures; ``--gold eval/dev/durations.jsonl`` scores
    the duration development set, ``--dev`` the organisation, title, date and category development
    set (corpus/field_spans/batch_f*.jsonl), ``--all`` every labelled card (gold and every
    field_spans batch, the sources not labelled yet listed), ``--held-out`` the organisation with
    nothing of the scored document's source helping (its own publisher dropped from the table, the
    ranker fitted without its source; the rules' choice printed beside, and the share of documents
    whose organisation is among the candidates)."""
    import argparse

    from pmparse.evaluation.corpus import REPO_ROOT
    from pmparse.evaluation.facts_held_out import REVIEWED, after_review, after_review_table

    parser = argparse.ArgumentParser(prog="python -m pmparse.evaluation.facts", description=main.__doc__)
    parser.add_argument("--gold", action="append", help="gold JSONL file (repeatable); eval/gold/*.jsonl when left out")
    parser.add_argument("--dev", action="store_true", help="the development set: corpus/field_spans/batch_f*.jsonl")
    parser.add_argument("--all", action="store_true", help="every labelled card: eval/gold/*.jsonl (first pass) "
                                                           "and corpus/field_spans/batch_*.jsonl")
    parser.add_argument("--held-out", action="store_true",
                        help="nothing of the scored source helps: its candidates found with the organisation "
                             "table less its own publisher, chosen by the ranker fitted without its source "
                             "(group); the rules' choice among them is printed beside, and the share of documents "
                             "whose organisation is among those candidates (no choice can score more)")
    parser.add_argument("--misses", action="store_true", help="list the duration misses with their evidence")
    args = parser.parse_args(argv)
    files = (args.gold or []) + ([str(REPO_ROOT / f) for f in DEV_FILES] if args.dev else [])
    files += [str(f) for f in labelled_files()] if args.all else []
    scores, pairs = measure(files or None, held_out=args.held_out)
    print("Each gold document converted with its public address from corpus/manifest.yaml where known "
          "(as `pmparse convert --url-base` would); tag figures are in-sample; a figure no document "
          "states is left out." + (" Organisation: the candidate ranker fitted without the document's "
                                   "source, candidates found with the table less the source's own publisher."
                                   if args.held_out else "") + "\n")
    print(facts_table(scores, skip_empty=True))
    print(f"\nduration predicted where gold states none: {scores['duration_spurious']}\n")
    print(source_table(scores, unlabelled=args.all))
    if args.held_out:
        print("\nOrganisation with the table less the scored source's own publisher (dropped for: "
              + ", ".join(scores["tables_dropped"]) + "), with the address / text alone (wrong ones):\n")
        print(held_out_table(scores))
        print("\nThe rules' organisation, own publisher dropped, with the address, before and after a curator reviewed "
              "each source's first documents in convert's order, then converted the others as one batch (the "
              "folder's reviewed cards' publisher, then the batch's consensus); every column scored on each source's documents past its first "
              f"{max(REVIEWED)} (wrong ones):\n")
        print(after_review_table(after_review(pairs)))
    if args.misses:
        print("\n| source | gold | predicted | confidence | origin | evidence |\n|---|---|---|---|---|---|")
        for miss in duration_misses(pairs):
            cells = [miss["path"].replace("|", "\\|"), miss["gold"], miss["predicted"], miss["confidence"],
                     miss["origin"], miss["evidence"]]
            print("| " + " | ".join(str(cell) for cell in cells) + " |")


if __name__ == "__main__":  # pragma: no cover
    main()
