"""HTML building blocks every page shares: escaping, the page shell, field names and colours.

Every string that comes from a record (a postmortem's words, a title, a source location) goes
through :func:`esc` before it reaches a page, so a report holding ``<script>`` or an ``onerror=``
attribute shows them as text. Pages also carry a Content-Security-Policy that allows scripts and
styles from the site's own files only: an inline script could not run even if escaping failed.
"""

from __future__ import annotations

import html
import re

from pmparse.card.schema import FACT_FIELDS, TAG_FIELDS, TEXT_FIELDS
from pmparse.util import BIDI_CONTROLS, escape

#: How pages name each card field.
FIELD_LABELS: dict[str, str] = {
    "title": "Title",
    "organisation": "Organisation",
    "date": "Date",
    "duration_minutes": "Duration",
    "symptoms": "Symptoms",
    "trigger": "Trigger",
    "root_cause": "Root cause",
    "contributing_factors": "Contributing factors",
    "detection": "Detection",
    "remediation": "Remediation",
    "action_items": "Action items",
    "lessons": "Lessons",
    "components": "Components",
    "root_cause_categories": "Root-cause categories",
    "contributing_factor_categories": "Contributing-factor categories",
}

#: Fields whose evidence is marked in the source text, in the order a mark's colour is chosen:
#: an item of a text field wins over the facts and tags that cite the same words.
MARKED_FIELDS: tuple[str, ...] = TEXT_FIELDS + tuple(f for f in FACT_FIELDS if f != "title") + TAG_FIELDS

#: The review fields a card can fill (the "fields filled" of the index counts these).
FILLABLE: tuple[str, ...] = FACT_FIELDS + TEXT_FIELDS + TAG_FIELDS

# A Content-Security-Policy for every page: the site's own scripts and styles, nothing else (no
# network, no inline script, no plugin, no form posting anywhere; frame-ancestors is ignored in a
# <meta> element and would only log an error)
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; base-uri 'none'; "
       "form-action 'none'")


def esc(value: object) -> str:
    """``value`` as HTML text, safe inside an element or a quoted attribute; a bidirectional
    control character is written as its escape (``\\u202e``), as :func:`pmparse.util.shown` does."""
    # a title holding U+202E showed the rest of its line, the count or status beside it
    # included, reversed (the command line escapes them too)
    return BIDI_CONTROLS.sub(escape, html.escape(str(value), quote=True))


def safe_url(url: str | None) -> str | None:
    """``url`` when it is an http(s) address a link may point to, else None (no ``javascript:``)."""
    if url and re.match(r"^https?://[^\s\"'<>]+$", url, re.IGNORECASE):
        return url
    return None


def humanise(taxon_id: str) -> str:
    """A display name for a taxonomy id the taxonomy does not name: ``dns_resolver`` -> ``Dns resolver``."""
    words = taxon_id.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def cases(n: int) -> str:
    """``1 case``, ``3 cases``."""
    return f"{n} case" if n == 1 else f"{n} cases"


def confidence(value: float) -> str:
    """A confidence as pages show it (two decimals)."""
    return f"{value:.2f}"


def page(title: str, body: str, depth: int, scripts: tuple[str, ...] = ()) -> str:
    """A whole HTML page.

    Args:
        title: The page title (plain text; escaped here).
        body: The page's HTML (already escaped).
        depth: How many folders below the site root the page is, so links stay relative (the site
            works from ``file://`` and under any path of any static server).
        scripts: Site files to load (paths from the site root), deferred.
    """
    up = "../" * depth
    tags = "".join(f'<script defer src="{up}{esc(src)}"></script>\n' for src in scripts)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{esc(title)}</title>\n"
        f'<link rel="icon" href="{up}assets/favicon.svg" type="image/svg+xml">\n'
        f'<link rel="stylesheet" href="{up}assets/site.css">\n'
        f"{tags}</head>\n<body>\n"
        f'<header class="top"><a href="{up}index.html">Incident library</a></header>\n'
        f"<main>\n{body}</main>\n</body>\n</html>\n"
    )
