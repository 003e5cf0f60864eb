"""The site's pages as HTML text: the index, the groupings, one page per card, and the search index.

Rows and groupings are rendered from card summaries (:func:`pmparse.site.view.summary`) alone, so
a rebuild renders them without parsing unchanged records again. Everything here is a pure function
of its arguments, sorted, without timestamps: the same library gives the same bytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pmparse.card.schema import FACT_FIELDS, TAG_FIELDS, TEXT_FIELDS, Card
from pmparse.site.highlight import highlight
from pmparse.site.html import FIELD_LABELS, FILLABLE, MARKED_FIELDS, cases, confidence, esc, page, safe_url
from pmparse.site.view import Anchors, FieldView, Shown, tag_name
from pmparse.util import sha256_text

#: Scripts of the pages that list cards: the search index, then the script that reads it.
LIST_SCRIPTS = ("search-index.js", "assets/site.js")


@dataclass(frozen=True)
class Facet:
    """A way to browse the library.

    Attributes:
        key: The folder of its pages under ``by/``.
        label: How pages name it ("component").
        field: The summary key it groups by.
        plural: What its values are called ("components").
    """

    key: str
    label: str
    field: str
    plural: str


FACETS: tuple[Facet, ...] = (
    Facet("root-cause", "Root cause", "root_cause_categories", "categories"),
    Facet("component", "Component", "components", "components"),
    Facet("contributing-factor", "Contributing factor", "contributing_factor_categories", "categories"),
    Facet("organisation", "Organisation", "organisation", "organisations"),
    Facet("year", "Year", "year", "years"),
)

#: The group of cards without a value for the facet (ids are lower_snake_case and cannot clash).
NONE = "_none"


def _none_label(facet: Facet) -> str:
    return {"root_cause_categories": "No root-cause category", "components": "No component",
            "contributing_factor_categories": "No contributing-factor category",
            "organisation": "Organisation unknown", "year": "Year unknown"}[facet.field]


def slug(text: str) -> str:
    """A file-name-safe form of a name (ASCII letters, digits, hyphens), possibly empty."""
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")[:60]


@dataclass
class Group:
    """The cards that share one value of a facet.

    Attributes:
        value: The value (a taxonomy id, an organisation, a year) or :data:`NONE`.
        label: How pages name it.
        file: The group page's file name in ``by/<facet>/``.
        ids: The card ids, newest id first.
    """

    value: str
    label: str
    file: str
    ids: list[str]


def groups(facet: Facet, summaries: dict[str, dict], names: dict[str, str]) -> list[Group]:
    """The groups of one facet: the most cases first, then by name; the cards without a value last."""
    members: dict[str, list[str]] = {}
    for card_id in sorted(summaries, reverse=True):
        row = summaries[card_id]
        if row["error"] is not None:
            continue
        value = row[facet.field]
        values = value if isinstance(value, list) else [value]
        for v in values or [None]:
            members.setdefault(NONE if v is None else v, []).append(card_id)
    labels = {}
    for value in members:
        if value == NONE:
            labels[value] = _none_label(facet)
        elif facet.field in TAG_FIELDS:
            labels[value] = tag_name(names, facet.field, value)
        else:
            labels[value] = value
    files = _file_names(facet, sorted(v for v in members if v != NONE))
    found = [Group(v, labels[v], files.get(v, f"{NONE}.html"), ids) for v, ids in members.items()]
    found.sort(key=lambda g: (g.value == NONE, -len(g.ids), g.label.casefold(), g.value))
    return found


def _file_names(facet: Facet, values: list[str]) -> dict[str, str]:
    """A file per value: the id itself for tags and years; a slug for organisations, with a digest
    when two names (or none) would share it."""
    if facet.field != "organisation" and all(re.fullmatch(r"[a-z0-9_]+", v) for v in values):
        return {v: f"{v}.html" for v in values}
    slugs = {v: slug(v) for v in values}
    taken: dict[str, int] = {}
    for s in slugs.values():
        taken[s] = taken.get(s, 0) + 1
    files = {}
    for v, s in slugs.items():
        if not s or taken[s] > 1:
            s = f"{s}-{sha256_text(v)[:8]}".lstrip("-")
        files[v] = f"{s}.html"
    return files


# --- rows ------------------------------------------------------------------------------------------

def row(summary: dict, up: str) -> str:
    """One table row of a card: id, title, organisation, year, status, fields filled."""
    card_id = esc(summary["id"])
    href = f"{up}cards/{card_id}.html"
    if summary["error"] is not None:
        title = f'<span class="invalid">invalid record: {esc(summary["error"])}</span>'
    else:
        title = esc(summary["title"] or "(untitled)")
    status = f'<span class="status s-{esc(summary["status"])}">{esc(summary["status"])}</span>'
    if summary["pending"]:
        status += ' <span class="status s-pending" title="a newer suggestion waits for review">pending</span>'
    return (f'<tr data-id="{card_id}"><td class="id"><a href="{href}">{card_id}</a></td>'
            f'<td class="title"><a href="{href}">{title}</a></td>'
            f'<td class="org">{esc(summary["organisation"] or "")}</td><td class="year">{esc(summary["year"] or "")}</td>'
            f'<td class="state">{status}</td><td class="filled">{summary["filled"]}/{len(FILLABLE)}</td>'
            "</tr>\n")


_HEAD = ('<thead><tr><th>Id</th><th>Title</th><th>Organisation</th><th>Year</th><th>Status</th>'
         '<th title="fields filled of 15">Fields</th></tr></thead>\n')


def table(ids: list[str], summaries: dict[str, dict], up: str) -> str:
    """A table of cards."""
    return f'<table class="cases">\n{_HEAD}<tbody>\n' + "".join(row(summaries[i], up) for i in ids) + "</tbody></table>\n"


def _search_box(total: int) -> str:
    return ('<div class="search"><label for="search">Search titles and fields</label> '
            '<input type="search" id="search" autocomplete="off" spellcheck="false" '
            'placeholder="e.g. dns timeout"> '
            f'<span id="matches" aria-live="polite">{esc(cases(total))}</span></div>\n')


def _group_section(group: Group, summaries: dict[str, dict], up: str, anchor: str) -> str:
    return (f'<section class="group" id="{esc(anchor)}"><h3>{esc(group.label)} '
            f'<span class="count" data-total="{len(group.ids)}">{esc(cases(len(group.ids)))}</span></h3>\n'
            + table(group.ids, summaries, up) + "</section>\n")


def all_groups(summaries: dict[str, dict], names: dict[str, str]) -> dict[str, list[Group]]:
    """The groups of every facet, by facet key: computed once per build, read by every page."""
    return {facet.key: groups(facet, summaries, names) for facet in FACETS}


def index_page(summaries: dict[str, dict], names: dict[str, str],
               grouped: dict[str, list[Group]] | None = None) -> str:
    """The index: every card, grouped by root-cause category with counts, the browse links and the
    search box.

    Args:
        summaries: The card summaries by id.
        names: Tag display names.
        grouped: :func:`all_groups` of the same summaries, when the caller has them already.
    """
    grouped = all_groups(summaries, names) if grouped is None else grouped
    ids = sorted(summaries, reverse=True)
    by_cause = grouped[FACETS[0].key]
    invalid = [i for i in ids if summaries[i]["error"] is not None]
    browse = "".join(f'<li><a href="by/{f.key}.html">By {esc(f.label.lower())}</a> '
                     f'<span class="count">{len(grouped[f.key])} {f.plural}</span></li>'
                     for f in FACETS)
    causes = "".join(f'<li><a href="#rc-{esc(g.value)}">{esc(g.label)}</a> '
                     f'<span class="count">{esc(cases(len(g.ids)))}</span></li>' for g in by_cause)
    body = [f'<h1>Incident library <span class="count">{esc(cases(len(ids)))}</span></h1>\n',
            _search_box(len(ids)),
            f'<nav class="browse"><h2>Browse</h2><ul>{browse}</ul>\n'
            f'<h2>By root cause</h2><ul class="causes">{causes}</ul></nav>\n',
            '<div class="listing">\n<h2>By root cause</h2>\n']
    body += [_group_section(g, summaries, "", f"rc-{g.value}") for g in by_cause]
    if invalid:
        body.append(_group_section(Group("_invalid", "Invalid records", "", invalid), summaries, "", "invalid"))
    body.append("</div>\n")
    return page("Incident library", "".join(body), 0, LIST_SCRIPTS)


def facet_index_page(facet: Facet, summaries: dict[str, dict], names: dict[str, str],
                     found: list[Group] | None = None) -> str:
    """The values of one facet with their counts, each linking to its group page (``found``: the
    facet's :func:`groups`, when the caller has them already)."""
    found = groups(facet, summaries, names) if found is None else found
    items = "".join(f'<li><a href="{esc(facet.key)}/{esc(g.file)}">{esc(g.label)}</a> <span class="count">{esc(cases(len(g.ids)))}'
                    "</span></li>\n" for g in found)
    body = (f'<p class="crumbs"><a href="../index.html">Library</a></p>\n'
            f'<h1>By {esc(facet.label.lower())} <span class="count">{len(found)} {facet.plural}</span></h1>\n'
            f'<ul class="facet">\n{items}</ul>\n')
    return page(f"By {facet.label.lower()}", body, 1)


def group_page(facet: Facet, group: Group, summaries: dict[str, dict]) -> str:
    """The cards of one group, searchable."""
    body = (f'<p class="crumbs"><a href="../../index.html">Library</a> / '
            f'<a href="../{esc(facet.key)}.html">By {esc(facet.label.lower())}</a></p>\n'
            f'<h1>{esc(facet.label)}: {esc(group.label)}</h1>\n' + _search_box(len(group.ids))
            + '<div class="listing">\n' + _group_section(group, summaries, "../../", "cases") + "</div>\n")
    return page(f"{facet.label}: {group.label}", body, 2, LIST_SCRIPTS)


def search_index(summaries: dict[str, dict]) -> str:
    """The search index as a script (pages load it with a script tag: ``fetch`` is refused on
    ``file://``). Its JSON escapes ``<``, ``>`` and ``&`` too, so no text in it can end a script
    element or read as markup wherever the file is embedded."""
    data = {i: summaries[i]["words"] for i in sorted(summaries)}
    text = json.dumps(data, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f"window.PMPARSE_SEARCH = {text};\n"


# --- card pages ------------------------------------------------------------------------------------

def _links(shown: Shown) -> str:
    parts = []
    for n, link in enumerate(shown.links, 1):
        where = f"{link.start}\u2013{link.end}"
        if link.anchor is not None:
            parts.append(f'<a class="ev" href="#{esc(link.anchor)}" title="characters {where}">evidence'
                         f'{" " + str(n) if len(shown.links) > 1 else ""}</a>')
        else:
            parts.append(f'<span class="ev none" title="{esc(link.note or "")}">characters {where} '
                         f'({esc(link.note or "")})</span>')
    return " ".join(parts)


def _value(shown: Shown, name: str) -> str:
    conf = "" if shown.confidence is None else \
        f' <span class="conf" title="confidence">{confidence(shown.confidence)}</span>'
    detail = f' <span class="detail">{esc(shown.detail)}</span>' if shown.detail else ""
    return (f'<li><span class="sw f-{name}"></span><span class="text">{esc(shown.text)}</span>'
            f"{conf} {_links(shown)}{detail}</li>\n")


def _field(view: FieldView) -> str:
    label = FIELD_LABELS.get(view.name, view.name)
    values = "".join(_value(s, view.name) for s in view.values) or \
        '<li class="empty">not found in the text</li>\n'
    out = f'<section class="field" id="field-{view.name}"><h3>{esc(label)}</h3>\n<ul>\n{values}</ul>\n'
    if view.pending is not None:
        suggested = "".join(_value(s, view.name) for s in view.pending) or \
            '<li class="empty">nothing (the suggestion empties this field)</li>\n'
        out += (f'<div class="pending"><p><span class="status s-pending">pending suggestion</span> '
                f'<span class="kind">{esc(view.kind or "")}</span>: not reviewed yet '
                f"(<code>pmparse review</code> decides)</p>\n<ul>\n{suggested}</ul></div>\n")
    return out + "</section>\n"


def _legend(names: list[str], pending: bool) -> str:
    items = "".join(f'<li><mark class="f-{n}">{esc(FIELD_LABELS.get(n, n))}</mark></li>' for n in names)
    if pending:
        items += '<li><mark class="f-symptoms pending">pending suggestion</mark></li>'
    return f'<ul class="legend">{items}</ul>\n'


def _facts(card: Card) -> str:
    rows = [("Status", esc(card.status) + (f" by {esc(card.reviewed.by)} at {esc(card.reviewed.at)}"
                                            if card.reviewed else ""))]
    url = safe_url(card.source.url) or safe_url(card.source.location)
    rows.append(("Source", esc(card.source.location)))
    if card.source.url:
        rows.append(("Address", f'<a href="{esc(url)}" rel="noreferrer nofollow">{esc(card.source.url)}</a>'
                     if url else esc(card.source.url)))
    rows.append(("Read as", esc(card.source.format)))
    rows.append(("Made by", esc(f"pmparse {card.pipeline.version}, model {card.pipeline.model or 'rules only'}")))
    return '<dl class="meta">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows) + "</dl>\n"


def card_page(card: Card, text: str | None, views: list[FieldView], anchors: Anchors,
              pending_note: str | None) -> str:
    """A card's page: facts, fields and tags with confidence and evidence links, pending
    suggestions beside the record's values, and the source text with the evidence marked."""
    title = card.title or "(untitled)"
    parts = [f'<p class="crumbs"><a href="../index.html">Library</a> / {esc(card.id)}</p>\n',
             f'<h1><span class="cid">{esc(card.id)}</span> {esc(title)}</h1>\n', _facts(card)]
    if pending_note:
        parts.append(f'<p class="notice">{esc(pending_note)}</p>\n')
    by_name = {v.name: v for v in views}
    parts.append('<div class="card-body">\n<div class="fields">\n')
    for heading, fields in (("Facts", FACT_FIELDS), ("Fields", TEXT_FIELDS), ("Tags", TAG_FIELDS)):
        parts.append(f"<h2>{heading}</h2>\n" + "".join(_field(by_name[f]) for f in fields))
    parts.append('</div>\n<div class="source">\n<h2>Source text</h2>\n')
    if text is None:
        parts.append(f'<p class="notice">The source text cannot be read: {esc(card.source.location)} is missing '
                     "or no longer the text this card was made from (its sha256 differs).</p>\n")
    else:
        used = sorted({s.field for s in anchors.spans},
                      key=lambda f: MARKED_FIELDS.index(f) if f in MARKED_FIELDS else len(MARKED_FIELDS))
        parts.append(_legend(used, any(s.pending for s in anchors.spans)))
        parts.append(f'<pre class="text">{highlight(text, anchors.spans)}</pre>\n')
    parts.append("</div>\n</div>\n")
    return page(f"{card.id} {title}", "".join(parts), 1)


def invalid_page(card_id: str, error: str) -> str:
    """The page of a record that does not parse or validate."""
    body = (f'<p class="crumbs"><a href="../index.html">Library</a> / {esc(card_id)}</p>\n'
            f'<h1><span class="cid">{esc(card_id)}</span> invalid record</h1>\n'
            f'<p class="notice">{esc(error)}</p>\n<p>Fix the record (<code>pmparse validate</code> lists its problems) '
            "and build the site again.</p>\n")
    return page(f"{card_id} (invalid)", body, 1)
