"""Organisation figures with nothing of the scored source helping (issue 35).

The organisation table lists the corpus's first publishers, and their labels are the table's
names: a figure with the table as shipped is not held out for them, however a ranker is trained.
:func:`publisher_free_tables` writes, for each hold-out group, a copy of the table less the
group's own publisher (:func:`source_publishers`); :func:`pmparse.evaluation.facts.measure` with
``held_out`` finds each document's candidates with its group's copy, and
:func:`held_out_organisations` chooses among them by the rules or by a ranker fitted without the
group.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from pmparse.card.schema import Card


def normalised(value: object) -> str:
    """A name or title as compared: white space made single spaces, case folded."""
    return " ".join(str(value).split()).casefold()


def same_organisation(gold: object, predicted: str | None) -> bool:
    """Whether ``predicted`` names the gold organisation (:func:`normalised` forms equal)."""
    return bool(predicted) and normalised(predicted) == normalised(gold)


def score_organisation(pairs: list[tuple[dict, str | None]], name: str) -> dict:
    """Exact-match organisation figure ``name`` (and its document count) of ``(gold card, predicted)`` pairs."""
    scored = [(gold, value) for gold, value in pairs if gold.get("organisation")]
    hits = sum(same_organisation(gold["organisation"], value) for gold, value in scored)
    return {name: round(hits / len(scored), 4) if scored else None, f"{name}_documents": len(scored)}


def source_publishers(rows: list[dict], groups: dict[str, str], share: float = 0.25) -> dict[str, set[str]]:
    """Each hold-out group's own publishers: the organisations labelled on at least ``share`` of its
    labelled documents (a catalogue of others' incidents has none), case-folded."""
    labels: dict[str, list[str]] = {}
    for row in rows:
        source = row["path"].split("/", 1)[0]
        value = (row.get("card") or {}).get("organisation")
        labels.setdefault(groups.get(source, source), []).append(normalised(value) if value else "")
    found = {}
    for group, values in labels.items():
        counts = Counter(v for v in values if v)
        found[group] = {v for v, n in counts.items() if n >= share * len(values)}
    return found


def publisher_free_tables(publishers: dict[str, set[str]], folder: Path) -> dict[str, str]:
    """For each group whose publisher the packaged organisation table lists (by name or alias), a
    copy of the table without that entry written under ``folder``; ``{group: path}``. Scoring a
    source with its copy keeps what the table knows of that source out of its figure."""
    import yaml

    from pmparse.rules.taxonomy import load_organisations

    table = load_organisations()
    paths = {}
    for group, names in sorted(publishers.items()):
        kept = [e for e in table.organisations
                if not ({normalised(e.name), *(normalised(a) for a in e.aliases)} & names)]
        if len(kept) == len(table.organisations):
            continue
        path = folder / ("organisations-" + re.sub(r"[^\w-]", "_", group) + ".yaml")
        data = {"version": table.version, "organisations": [e.model_dump(exclude_defaults=True) for e in kept]}
        path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
        paths[group] = str(path)
    return paths


#: Which organisation ``--held-out`` scores: the rules' choice or the ranker's, both with the table less the
#: scored source's own publisher.
HELD_OUT_CHOICES = ("rules", "ranker")


def held_out_organisations(pairs: list[tuple[dict, Card]], text_only: list[tuple[dict, str | None, bool]],
                            choice: str = "ranker"):
    """The pairs with each organisation chosen among the candidates found with the table less the
    document's own publisher (the packaged table when it does not list it): by the rules
    (``choice="rules"``), or by a ranker fitted without the document's group on the other groups'
    candidates found the same way."""
    from pmparse.training.organisation import held_out, rule_choice

    rows = []
    for gold, _ in pairs:
        for key in ("_candidates_free", "_candidates_text_free"):
            rows.append((gold[key], gold.get("organisation"), gold["_group"]))
    if choice == "rules":
        picks = [rule_choice(cands) for cands, _, _ in rows]
    else:
        picks = held_out(rows, [row for row in rows if row[0]])
    pairs = [(gold, card.model_copy(update={"organisation": picks[2 * i]})) for i, (gold, card) in enumerate(pairs)]
    text_only = [(gold, picks[2 * i + 1], named) for i, (gold, _, named) in enumerate(text_only)]
    return pairs, text_only


def organisation_scores(pairs: list[tuple[dict, Card]], text_only: list[tuple[dict, str | None, bool]]) -> dict:
    """The organisation figures alone (with the address, text alone), and how many are wrong."""
    scored = [(g, c.organisation) for g, c in pairs if g.get("organisation")]
    alone = [(g, v) for g, v, _ in text_only if g.get("organisation")]
    result = score_organisation(scored, "organisation")
    result.update(score_organisation(alone, "organisation_text_only"))
    result["organisation_wrong"] = sum(1 for g, v in scored if v and not same_organisation(g["organisation"], v))
    result["organisation_text_only_wrong"] = sum(1 for g, v in alone if v and not same_organisation(g["organisation"], v))
    result.update(candidate_ceiling([g for g, _ in scored]))
    return result


def among_candidates(gold: dict, key: str) -> bool:
    """Whether ``gold``'s organisation is one of its candidates ``gold[key]`` (:func:`normalised` names)."""
    wanted = normalised(gold["organisation"])
    return any(normalised(c.value) == wanted for c in gold.get(key) or ())


def candidate_ceiling(golds: list[dict]) -> dict:
    """The share of labelled documents whose organisation is among their candidates found with the
    table less their own publisher (``_candidates_free``; ``_candidates_text_free`` from the text
    alone): no choice among those candidates, by the rules or a ranker, can score more."""
    labelled = [g for g in golds if g.get("organisation") and "_candidates_free" in g]
    if not labelled:
        return {}
    share = {}
    for key, name in (("_candidates_free", "organisation_among_candidates"),
                      ("_candidates_text_free", "organisation_text_only_among_candidates")):
        share[name] = round(sum(among_candidates(g, key) for g in labelled) / len(labelled), 4)
    return share


def held_out_table(scores: dict) -> str:
    """The rules' and the ranker's organisation figures with sources held out (wrong names in brackets),
    overall and per source, and beside them the ceiling of any choice: the share of documents whose
    organisation is among the candidates (:func:`candidate_ceiling`)."""
    rules = scores["rules_held_out"]

    def cell(figures: dict, key: str, wrong: int | None = None) -> str:
        value = figures.get(key)
        text = "-" if value is None else f"{value:.3f}"
        return text if wrong is None else f"{text} ({wrong})"

    lines = ["| source | docs | rules | rules, text alone | ranker | ranker, text alone | among candidates "
             "| among candidates, text alone |", "|---|---|---|---|---|---|---|---|"]
    rows = [("all", scores, rules)] + [(name, figures, rules["per_source"][name])
                                       for name, figures in scores["per_source"].items()]
    for name, ranker, rule in rows:
        lines.append(f"| {name} | {rule.get('organisation_documents', 0)} | "
                     f"{cell(rule, 'organisation', rule['organisation_wrong'])} | "
                     f"{cell(rule, 'organisation_text_only', rule['organisation_text_only_wrong'])} | "
                     f"{cell(ranker, 'organisation', ranker.get('organisation_wrong'))} | "
                     f"{cell(ranker, 'organisation_text_only', ranker.get('organisation_text_only_wrong'))} | "
                     f"{cell(rule, 'organisation_among_candidates')} | "
                     f"{cell(rule, 'organisation_text_only_among_candidates')} |")
    return "\n".join(lines)


#: How many of a source's first documents a curator reviews in :func:`after_review`'s figures.
REVIEWED = (1, 3)


def convert_order(path: str) -> tuple:
    """The place of ``path`` in the order ``pmparse convert`` reads a folder: each folder's files
    (sorted) before its subfolders (sorted), as ``os.walk`` goes top down. A plain sort of the
    paths put a source's ``chia/2021-05/...`` before its own top files."""
    *folders, name = path.split("/")
    return tuple((1, folder) for folder in folders) + ((0, name),)


def _one_batch(golds: list[dict], current: list[str | None], reviewed=None) -> list[str | None]:
    """The publisher each of ``golds`` (one source, in convert's order) gets when they are
    converted as one batch, as :class:`pmparse.batch.publishing.BatchPublishers` does it: the
    reviewed cards' choice first (``reviewed``: a :class:`pmparse.batch.publisher.Reviewed`, or
    None), then, for a card still naming none, its folder's consensus of the cards stored before it;
    each card then counts towards that consensus with the publisher and confidence it was stored
    with (a reviewed cards' publisher at ``REVIEWED_CONFIDENCE``, an offered one at
    ``OFFERED_CONFIDENCE``), and towards its archive's :class:`pmparse.batch.publisher.Archive`
    with the publisher it names by its own word (the library holds only the reviewed cards)."""
    from pmparse.batch.publisher import OFFERED_CONFIDENCE, REVIEWED_CONFIDENCE, Archive, Consensus, folder_of

    consensus, archives, out = Consensus(), {}, []
    for i, gold in enumerate(golds):
        pick, confidence = current[i], _rule_confidence(gold["_candidates_free"])
        archive = archives.setdefault(folder_of(gold["_path"]), Archive())
        choice = reviewed.choice(gold["_path"], pick, archive=archive,
                                 from_address=_address_given(gold)) if reviewed is not None else None
        if choice is not None:
            pick, confidence = choice[0], REVIEWED_CONFIDENCE
        if pick is None:
            offer = consensus.offer(gold["_path"])
            if offer is not None:
                pick, confidence = offer[0], OFFERED_CONFIDENCE
        out.append(pick)
        consensus.add(gold["_path"], pick, confidence, str(i))
        archive.set(str(i), current[i])
    return out


def after_review(pairs: list[tuple[dict, Card]], reviewed: tuple[int, ...] = REVIEWED) -> dict:
    """The rules' organisation with each source's own publisher dropped from the table (with the
    address), before and after a curator reviewed the source's first documents.

    A source's documents are taken in the order ``pmparse convert`` reads its folder
    (:func:`convert_order`). ``after_<k>`` is the curator's workflow the reviewed cards serve:
    convert the first ``k`` documents, review them (each reviewed card names the gold publisher;
    what pmparse had suggested, the rules' pick, is the base the curator corrected), then convert
    the source's other documents as one batch, which gives them what ``convert`` gives: the
    publisher most of their folder's reviewed cards name (:class:`pmparse.batch.publisher.Reviewed`,
    over none or over the one the curator corrected away), else, to a card still naming none, the
    consensus of its folder's cards stored before it in that batch. A record converted before the
    review is not read again by the next ``convert`` (it is up to date) unless with ``--force``: the
    figure is that of reports converted after the review.

    ``batch`` is the whole source converted as one batch with nothing reviewed. Every figure is
    scored on the same documents: each source's labelled documents past its first
    ``max(reviewed)``, so the sources with no more than that many have none scored. The labelled
    documents stand for the source's folder: its files that are not labelled are not converted
    here, so a consensus counts fewer cards than the folder's.

    Returns:
        ``{"all": row, "per_source": {source: row}}``, a row holding ``documents``, ``before``,
        ``batch`` and ``after_<k>`` (share right) and ``wrong_`` of each.
    """
    from pmparse.batch.publisher import Reviewed, address_of
    from pmparse.training.organisation import rule_choice

    by_source: dict[str, list[dict]] = {}
    for gold, _ in pairs:
        by_source.setdefault(gold["_source"], []).append(gold)
    first = max(reviewed)
    picks: dict[str, list[tuple[str, str | None, list[str | None]]]] = {}
    for source, golds in sorted(by_source.items()):
        golds = sorted(golds, key=lambda g: convert_order(g["_path"]))
        current = [rule_choice(g["_candidates_free"]) for g in golds]
        views = [_one_batch(golds, current)]
        for k in reviewed:
            k = min(k, len(golds))
            found = Reviewed()
            for j in range(k):
                found.add(golds[j]["_path"], golds[j].get("organisation"), current[j], str(j),
                          address_of(golds[j].get("_url")))
            views.append([None] * k + _one_batch(golds[k:], current[k:], found))
        picks[source] = [(gold["organisation"], current[i], [view[i] for view in views])
                         for i, gold in enumerate(golds) if i >= first and gold.get("organisation")]

    def row(items: list[tuple[str, str | None, list[str | None]]]) -> dict:
        out: dict = {"documents": len(items)}
        views = [("before", [p for _, p, _ in items]), ("batch", [a[0] for _, _, a in items])] + [
            (f"after_{k}", [a[n + 1] for _, _, a in items]) for n, k in enumerate(reviewed)]
        for name, values in views:
            right = sum(same_organisation(g, v) for (g, _, _), v in zip(items, values))
            out[name] = round(right / len(items), 4) if items else None
            out["wrong_" + name] = sum(1 for (g, _, _), v in zip(items, values) if v and not same_organisation(g, v))
        return out

    return {"all": row([r for rows in picks.values() for r in rows]),
            "per_source": {source: row(rows) for source, rows in picks.items()}}


def _address_given(gold: dict) -> str | None:
    """Whose address the document has, when the rules' publisher for it is what the address gave
    (as :func:`pmparse.batch.publisher.address_given` reads a stored card)."""
    from pmparse.batch.publisher import address_of

    picked = _picked(gold["_candidates_free"])
    rule = picked.rule if picked is not None else None
    return address_of(gold.get("_url")) if rule is not None and rule.get("origin") == "url" else None


def _rule_confidence(cands) -> float:
    """The confidence the rule cascade gave its choice among ``cands`` (0 when it chose none)."""
    picked = _picked(cands)
    return picked.features.get("rule_confidence", 0.0) if picked is not None else 0.0


def _picked(cands):
    """The candidate the rule cascade chose among ``cands``, or None."""
    return next((c for c in cands if c.features.get("rule_pick")), None)


def after_review_table(result: dict, reviewed: tuple[int, ...] = REVIEWED) -> str:
    """:func:`after_review`'s figures as a table, overall and per source (wrong names in brackets)."""
    heads = ["each alone", "one batch"] + [f"after {k} reviewed" for k in reviewed]
    lines = ["| source | docs scored | " + " | ".join(heads) + " |", "|---|---|" + "---|" * len(heads)]
    for name, figures in [("all", result["all"]), *result["per_source"].items()]:
        cells = []
        for key in ["before", "batch"] + [f"after_{k}" for k in reviewed]:
            value = figures[key]
            cells.append("-" if value is None else f"{value:.3f} ({figures['wrong_' + key]})")
        lines.append(f"| {name} | {figures['documents']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
