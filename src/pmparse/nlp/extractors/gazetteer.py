"""The table of known organisations (`resources/organisations.yaml`) compiled for lookups: names,
aliases, products, sites and domains.
"""

from __future__ import annotations

import re
from typing import Any

from pmparse.rules.taxonomy import OrganisationsFile, load_organisations

#: An organisation as a rule finds it: ``value``, ``evidence``, ``confidence``, ``origin``.
Fact = dict[str, Any]


class Gazetteer:
    """Lookups over the organisation gazetteer."""

    def __init__(self, data: OrganisationsFile) -> None:
        self.entries = data.organisations
        self.by_domain = {d: e for e in self.entries for d in e.domains}
        self.by_alias = {a.lower(): e for e in self.entries for a in [*e.products, e.name, *e.aliases]}
        self.products = sorted(((p, e) for e in self.entries for p in e.products), key=lambda pe: -len(pe[0]))
        alias_parts = []
        for entry in self.entries:
            for alias in sorted({entry.name, *entry.aliases, *entry.sites, *entry.products}, key=len, reverse=True):
                flags = "(?i:" if alias.islower() else "(?:"
                alias_parts.append((alias, entry, re.compile(r"(?<![\w.-])" + flags + re.escape(alias) + r")(?!\w)")))
        self.aliases = alias_parts
        # per alias: whether it is looked up in the lowercased text, and a shorter alias it holds
        names = [alias for alias, _, _ in alias_parts]
        self.alias_checks = [(alias.islower(), inner_alias(alias, names)) for alias in names]

    def domain(self, host: str):
        host = host.lower().rstrip(".")
        parts = host.split(".")
        for i in range(len(parts) - 1):
            entry = self.by_domain.get(".".join(parts[i:]))
            if entry is not None:
                return entry
        return None


def inner_alias(alias: str, aliases: list[str]) -> str | None:
    """The shortest other alias of ``aliases`` inside ``alias`` and looked up the same way (both
    lowercase, or both not), or None: where it is absent from a text, ``alias`` is absent too."""
    inside = [other for other in aliases
              if other != alias and other.islower() == alias.islower() and other in alias]
    return min(inside, key=len) if inside else None


def clear_gazetteers() -> None:
    """Forget the compiled organisation gazetteers: their files are read again when next needed."""
    GAZETTEERS.clear()


def load_gazetteer(path: str | None = None) -> Gazetteer:
    """The organisation table at ``path`` (the packaged one when None), compiled once per process."""
    key = path or ""
    if key not in GAZETTEERS:
        GAZETTEERS[key] = Gazetteer(load_organisations(path))
    return GAZETTEERS[key]


GAZETTEERS: dict[str, Gazetteer] = {}
