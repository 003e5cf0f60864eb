"""A report that shows whose it is without saying "At Acme, we" (issue 35): a brand its customers use.

A provider's report speaks of "customers using Zorbq Speech Service", "a subset of Zorbq
customers", "access the Zorbq Portal": the word that prefixes several of the product names the
text gives, and that customers are said to use, is the publisher, whether or not the table lists
its products.

Tried and left out: a provider named in the title or opening, five times or more and three times
as often as any other organisation, in a text speaking in the first person, as that provider's own
post. On the corpus it named GitHub or Amazon Web Services on seven reports of their users and
gave no publisher its own post.

Pure functions over strings; :func:`pmparse.nlp.extractors.organisation.find_organisation` calls them.
"""

from __future__ import annotations

import functools
import re

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
