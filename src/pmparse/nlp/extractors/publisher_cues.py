"""A report that shows whose it is without saying "At Acme, we" (issue 35): a brand its customers use.

A provider's report speaks of "customers using Zorbq Speech Service", "a subset of Zorbq
customers", "access the Zorbq Portal": the word that prefixes several of the product names the
text gives, and that customers are said to use, is the publisher, whether or not the table lists
its products.

Tried and left out: a provider named in the title or opening, five times or more and three times
as often as any other organisation, in a text speaking in the first person, as that provider's own
post. On the corpus it named GitHub or Amazon Web Services on seven reports of their users and
gave no publisher its own post.

A provider's report told by its products' names ("customers using Azure Functions", a title naming
"Compute Engine" beside an incident number, "Summary of the Amazon Kinesis ... Service Event") is
read here too.

Pure functions over strings; :func:`pmparse.nlp.extractors.organisation.find_organisation` calls them.
"""

from __future__ import annotations

import functools
import re

from pmparse.nlp.extractors.gazetteer import Fact, Gazetteer
from pmparse.nlp.extractors.report_voice import NOT_NAMES

#: A capitalised name of one to four words ("Zorbq Speech Service").
_PRODUCT = re.compile(r"(?<![\w.@/-])([A-Z][\w.+-]*[\w+](?:\s[A-Z][\w.+-]*[\w+]){1,3})(?![\w-])")
#: Fewest distinct product names a brand must prefix.
_BRAND_PRODUCTS = 2
#: The words one of :func:`_said`'s phrases holds, as its patterns write them.
_CUES = ("customer", "Portal", "Console")


@functools.lru_cache(maxsize=256)
def _said(brand: str) -> re.Pattern:
    """The phrases that say customers use ``brand`` (kept compiled: ``re``'s own cache of 512
    patterns is shared with the whole pipeline, and a brand's pattern was compiled again per text)."""
    name = re.escape(brand)
    return re.compile(r"\bcustomers?\s+(?:using|of|on|with|in)\s+(?:the\s+)?(" + name + r")\b"
                      r"|(?<![\w.])(" + name + r")\s+customers\b"
                      r"|\b(?:access|accessing|use|using|sign\s+in\s+to)\s+(?:the\s+)?(" + name + r")\s+(?:Portal|Console)\b")


def customers_brand(text: str, body_start: int, window: int = 20000) -> tuple[str, tuple[int, int]] | None:
    """The brand customers are said to use, when it prefixes several product names; with the
    offsets of the customers phrase's brand."""
    end = min(len(text), body_start + window)
    # every phrase :func:`_said` looks for holds one of these words as written (its patterns are
    # case-sensitive): a text holding none says no brand is used, and neither its product names
    # nor a pattern per brand need be made (most of the corpus never says "customer")
    if not any(text.find(cue, body_start, end) != -1 for cue in _CUES):
        return None
    heads: dict[str, set[str]] = {}
    for match in _PRODUCT.finditer(text, body_start, end):
        words = match.group(1).split()
        heads.setdefault(words[0], set()).add(" ".join(words[1:]))
    for brand, tails in sorted(heads.items(), key=lambda kv: -len(kv[1])):
        if len(tails) < _BRAND_PRODUCTS or len(brand) < 3 or not brand[0].isupper():
            continue
        match = _said(brand).search(text, body_start, end)
        if match is not None:
            group = next(i for i in (1, 2, 3) if match.group(i))
            return brand, match.span(group)
    return None


#: An incident number beside a product in a provider's title ("Incident 4821", "Tracking ID: XY-12").
_INCIDENT_NUMBER = re.compile(r"(?:\b(?:incident|tracking\s+id|issue|ref(?:erence)?)\s*(?:#|no\.?|number|id)?\s*:?\s*"
                              r"[A-Z0-9][A-Z0-9_-]{3,}\b)|#\d{3,}", re.IGNORECASE)
#: A title calling the text a provider's account of an event ("Summary of the Zorbq Queue Service
#: Event", "Post Incident Review", "Root Cause Analysis").
_EVENT_SUMMARY = re.compile(r"\b(?:summary\s+of\s+the|post[- ]event\s+summary|service\s+(?:event|disruption|interruption)"
                            r"|post[- ]incident\s+review|root\s+cause\s+analysis)\b", re.IGNORECASE)
#: A title in the first person is a customer's ("How the Zorbq outage took down our builds").
#: Case kept: "US" in "US-EAST-1" is a region, not "us".
_FIRST_PERSON = re.compile(r"\b(?:[Ww]e|W[Ee]|[Oo]ur|OUR|[Uu]s|[Mm]y|MY|I)\b(?!-)")


def provider_speaks(gaz: Gazetteer, text: str, body_start: int, title: tuple[str, list] | None) -> Fact | None:
    """The organisation whose own report this is by its products: the text speaks of customers
    using one ("customers using Azure Functions may have seen errors"), or the title names one
    beside an incident number ("Compute Engine - incident 4821")."""
    window = text[body_start:body_start + 20000]
    summary = event_summary(gaz, text, body_start, title)
    if summary is not None:
        return summary
    if title and title[0] and _INCIDENT_NUMBER.search(title[0]):
        for product, entry in gaz.products:
            where = title[0].find(product)
            # matched at its place in the title, not on a slice, so the look-behind sees the word before
            if where >= 0 and re.compile(r"(?<!\w)" + re.escape(product) + r"(?!\w)").match(title[0], where):
                evidence = [(title[1][0][0] + where, title[1][0][0] + where + len(product))] if title[1] else []
                return {"value": entry.name, "evidence": evidence, "confidence": 0.75, "origin": "product"}
    for product, entry in gaz.products:
        if product not in window:
            continue
        name = re.escape(product)
        pattern = re.compile(r"\bcustomers?\s+(?:using|of|on|with|in)\s+(?:the\s+)?(" + name + r")(?!\w)"
                             r"|(?<![\w.])(" + name + r")\s+customers\b")
        match = pattern.search(text, body_start, body_start + 20000)
        if match is not None:
            span = match.span(1) if match.group(1) else match.span(2)
            return {"value": entry.name, "evidence": [span], "confidence": 0.75, "origin": "product"}
    return None


#: Customers named as an organisation's ("Brindlewick customers", "customers of Brindlewick").
_WHOSE_CUSTOMERS = re.compile(r"(?<![\w.-])([A-Z][\w.&'-]*(?:\s[A-Z][\w.&'-]*){0,2})\s+customers\b"
                              r"|\bcustomers\s+of\s+([A-Z][\w.&'-]*(?:\s[A-Z][\w.&'-]*){0,2})")
#: Capitalised words before "customers" that name no organisation (a sentence's first word).
_NOT_WHOSE = {"affected", "impacted", "many", "most", "few", "several", "other", "these", "those", "such", "your",
              "their", "any", "new", "existing", "enterprise", "business", "premium", "free", "paying", "paid",
              "retail", "individual", "corporate", "government", "end", "internal", "external", "downstream"}
#: A writer's own system said to run on another's ("our checkout API runs on ..."), the subject not
#: the writer's customers (a provider writes "our customers who rely on ...").
_OWN_USE = (r"\b(?:[Oo]ur|[Ww]e)\b(?:(?!customer)[^.\n]){0,60}?\b(?:runs?|running|ran|hosted|hosts?|built|"
            r"depends?|depended|relies|rely|relied)\s+(?:on|in|with)\s+(?:the\s+)?")


def _customer_of(window: str, names: list[str]) -> bool:
    """True when a body that names a provider's products reads as one of its customers' reports:
    the customers it speaks of are another organisation's ("Brindlewick customers could not log
    in"), or the writer's own system runs on the provider ("our checkout API runs on Amazon EC2").
    A provider's title alone ("Root Cause Analysis: ... Service Disruption") does not tell the two
    apart."""
    own = {name.lower() for name in names}
    for match in _WHOSE_CUSTOMERS.finditer(window):
        whose = match.group(1) or match.group(2)
        first, lowered = whose.split()[0], whose.lower()
        # "Amazon EC2 customers" and "affected AWS Lambda customers" are the provider's; "Some
        # customers", "Enterprise customers" and "US-EAST-1 customers" name nobody
        if (first in NOT_NAMES or first.lower() in _NOT_WHOSE or any(c.isdigit() for c in whose)
                or any(name in lowered or lowered in name for name in own)):
            continue
        return True
    used = "|".join(re.escape(name) for name in names)
    return re.search(_OWN_USE + r"(?:" + used + r")(?!\w)", window) is not None


def event_summary(gaz: Gazetteer, text: str, body_start: int, title: tuple[str, list] | None) -> Fact | None:
    """The provider whose account of an event this is: a title calling the text a summary of a
    service event and naming a product or name of one provider of the table, the title not in the
    first person (a customer's title says "our"), and a body that speaks to customers ("customers",
    "you") and names that provider's products or names twice or more.

    "Summary of the Zorbq Queue Service Event in the Western Region" is Zorbq's; "How the Zorbq
    Queue event took down our builds" is not.
    """
    if not title or not title[0] or not _EVENT_SUMMARY.search(title[0]) or _FIRST_PERSON.search(title[0]):
        return None
    window = text[body_start:body_start + 20000]
    if not re.search(r"\b(?:customers?|you)\b", window, re.IGNORECASE):
        return None
    heading, spans = title
    for entry in gaz.entries:
        if not entry.provider:
            continue
        names = sorted({entry.name, *entry.aliases, *entry.products}, key=len, reverse=True)
        found = None
        for name in names:
            match = re.search(r"(?<![\w.-])" + re.escape(name) + r"(?!\w)", heading)
            if match is not None:
                found = match
                break
        if found is None:
            continue
        said = re.compile(r"(?<![\w.-])(?:" + "|".join(re.escape(n) for n in names) + r")(?!\w)")
        if len(said.findall(window)) < 2 or _customer_of(window, names):
            continue
        evidence = [(spans[0][0] + found.start(), spans[0][0] + found.end())] if spans else []
        return {"value": entry.name, "evidence": evidence, "confidence": 0.75, "origin": "product"}
    return None
