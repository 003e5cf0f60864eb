"""The tag taxonomy and the organisation gazetteer: versioned data, validated on load.

``resources/taxonomy.yaml`` holds the ids a card's tags may take (root-cause categories,
contributing-factor categories, components), their display names, descriptions, synonyms and
patterns, and how the corpus's own labels map onto them. ``--taxonomy FILE`` extends or replaces
it (a top-level ``mode: extend|replace``). ``resources/organisations.yaml`` lists organisations
with the names, hostnames and site names by which a text may name them.

Both are read with :mod:`importlib.resources` and validated with pydantic; a broken file raises
:class:`~pmparse.errors.RulesError` naming the file and the entry at fault.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pmparse.card.schema import TAG_FIELDS
from pmparse.errors import RulesError
from pmparse.rules.headings import check_regexes, load_yaml
from pmparse.yaml_problems import validation_summary

_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_KEY = re.compile(r"^(root_cause_categories|contributing_factor_categories|components)\.[a-z][a-z0-9_]*$")

Group = Literal["root_cause_categories", "contributing_factor_categories", "components"]


class TaxonEntry(BaseModel):
    """One taxonomy entry as written in a taxonomy file."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(description="Stable lower_snake_case id, unique in its group.")
    name: str | None = Field(default=None, min_length=1, description="Display name as the library shows it.")
    description: str | None = Field(default=None, min_length=1, description="What the tag means.")
    phrase: str | None = Field(default=None, min_length=1, description="How a title says it ('a hardware failure').")
    synonyms: list[str] = Field(default_factory=list, description="Phrases matched case-insensitively on tokens.")
    patterns: list[str] = Field(default_factory=list, description="Python regexes, searched case-insensitively.")

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError(f"expected a lower_snake_case id, found {value!r}")
        return value

    @field_validator("synonyms")
    @classmethod
    def _synonyms(cls, values: list[str]) -> list[str]:
        for value in values:
            if not value.strip():
                raise ValueError("expected non-empty synonyms, found an empty one")
        return values

    @field_validator("patterns")
    @classmethod
    def _patterns(cls, values: list[str]) -> list[str]:
        return check_regexes(values)


class TaxonomyFile(BaseModel):
    """A taxonomy file: the packaged one, or one given with ``--taxonomy``."""

    model_config = ConfigDict(extra="forbid")
    version: int = Field(ge=1, description="Bumped on every change of the file.")
    mode: Literal["extend", "replace"] = Field(
        default="extend", description="extend: add to / amend the packaged taxonomy; replace: be the whole taxonomy."
    )
    groups: dict[Group, list[TaxonEntry]] = Field(default_factory=dict, description="Entries per tag group.")
    label_maps: dict[str, dict[str, list[str]]] = Field(
        default_factory=dict, description="Corpus label -> list of 'group.id' keys, per label source."
    )

    @field_validator("groups")
    @classmethod
    def _unique(cls, value: dict[str, list[TaxonEntry]]) -> dict[str, list[TaxonEntry]]:
        for group, entries in value.items():
            seen: set[str] = set()
            for entry in entries:
                if entry.id in seen:
                    raise ValueError(f"id {entry.id!r} appears twice in {group}")
                seen.add(entry.id)
        return value

    @field_validator("label_maps")
    @classmethod
    def _keys(cls, value: dict[str, dict[str, list[str]]]) -> dict[str, dict[str, list[str]]]:
        for source, mapping in value.items():
            for label, keys in mapping.items():
                for key in keys:
                    if not _KEY.match(key):
                        raise ValueError(f"{source}: {label!r} maps to {key!r}, expected 'group.id'")
        return value


@dataclass(frozen=True)
class Taxon:
    """A validated taxonomy entry."""

    group: str
    id: str
    name: str
    description: str
    phrase: str | None = None
    synonyms: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """``group.id``, as cards key their support."""
        return f"{self.group}.{self.id}"


@dataclass(frozen=True)
class Taxonomy:
    """The taxonomy in use: entries per group, in file order, and the corpus label maps.

    Attributes:
        version: ``"1"`` for the packaged taxonomy, ``"1+custom.2"`` when a file extended it,
            ``"custom.2"`` when a file replaced it.
        groups: Group name -> entries.
        label_maps: Label source -> corpus label -> ``group.id`` keys.
    """

    version: str
    groups: dict[str, tuple[Taxon, ...]]
    label_maps: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)

    def ids(self, group: str) -> list[str]:
        """The ids of one group, in file order."""
        return [taxon.id for taxon in self.groups.get(group, ())]

    def get(self, group: str, taxon_id: str) -> Taxon | None:
        """The entry of ``group`` with ``taxon_id``, or None."""
        for taxon in self.groups.get(group, ()):
            if taxon.id == taxon_id:
                return taxon
        return None

    def names(self) -> dict[str, str]:
        """Display name of every entry, keyed ``group.id``."""
        return {taxon.key: taxon.name for entries in self.groups.values() for taxon in entries}

    def phrases(self) -> dict[str, str]:
        """Title phrase of every entry, keyed ``group.id`` (the lower-cased name when none is given)."""
        return {taxon.key: taxon.phrase or taxon.name.lower() for entries in self.groups.values() for taxon in entries}

    def map_label(self, source: str, label: str) -> tuple[str, ...] | None:
        """Our ``group.id`` keys for a corpus label; None when the label source does not know it."""
        mapping = self.label_maps.get(source, {})
        return mapping.get(label)


def _merge(base: TaxonomyFile | None, extra: TaxonomyFile) -> tuple[dict[str, list[TaxonEntry]], dict]:
    groups: dict[str, list[TaxonEntry]] = {g: [] for g in TAG_FIELDS}
    maps: dict[str, dict[str, list[str]]] = {}
    if base is not None and extra.mode == "extend":
        for group, entries in base.groups.items():
            groups[group] = [e.model_copy(deep=True) for e in entries]
        maps = {source: dict(mapping) for source, mapping in base.label_maps.items()}
    for group, entries in extra.groups.items():
        for entry in entries:
            existing = next((e for e in groups[group] if e.id == entry.id), None)
            if existing is None:
                groups[group].append(entry)
                continue
            for name in ("name", "description", "phrase"):
                if getattr(entry, name) is not None:
                    setattr(existing, name, getattr(entry, name))
            existing.synonyms = existing.synonyms + [s for s in entry.synonyms if s not in existing.synonyms]
            existing.patterns = existing.patterns + [p for p in entry.patterns if p not in existing.patterns]
    for source, mapping in extra.label_maps.items():
        maps.setdefault(source, {}).update(mapping)
    return groups, maps


def _read(path: Path | None, where_name: str = "taxonomy.yaml") -> tuple[str, TaxonomyFile]:
    where, data, text = load_yaml(where_name, path)
    if not isinstance(data, dict):
        raise RulesError(f"expected a mapping with version and groups, found {type(data).__name__}", where)
    try:
        return where, TaxonomyFile.model_validate(data)
    except ValidationError as exc:
        raise RulesError(f"invalid taxonomy: {validation_summary(exc, text)}", where) from exc


@functools.lru_cache(maxsize=8)
def load_taxonomy(path: Path | str | None = None) -> Taxonomy:
    """Load and validate the taxonomy, extended or replaced by ``path``.

    Args:
        path: A taxonomy file given with ``--taxonomy``; None for the packaged one alone. Its
            ``mode`` says whether it extends the packaged taxonomy or replaces it.

    Raises:
        RulesError: a file is unreadable or invalid, or an entry lacks a name or description
            after merging.
    """
    _, packaged = _read(None)
    if path is None:
        extra, where, version = packaged, "pmparse/resources/taxonomy.yaml", str(packaged.version)
        packaged_base = None
        extra = extra.model_copy(update={"mode": "replace"})
    else:
        where, extra = _read(Path(path))
        packaged_base = packaged
        version = (f"{packaged.version}+custom.{extra.version}" if extra.mode == "extend"
                   else f"custom.{extra.version}")
    groups, maps = _merge(packaged_base, extra)
    if not any(groups.values()):
        raise RulesError("expected at least one taxonomy entry, found none", where)
    built: dict[str, tuple[Taxon, ...]] = {}
    for group, entries in groups.items():
        taxa = []
        for entry in entries:
            if entry.name is None or entry.description is None:
                raise RulesError(f"{group}.{entry.id}: expected a name and a description, found "
                                 f"{'no name' if entry.name is None else 'no description'}", where)
            taxa.append(Taxon(group=group, id=entry.id, name=entry.name, description=entry.description,
                              phrase=entry.phrase, synonyms=tuple(entry.synonyms), patterns=tuple(entry.patterns)))
        built[group] = tuple(taxa)
    known = {f"{g}.{t.id}" for g, taxa in built.items() for t in taxa}
    for source, mapping in maps.items():
        for label, keys in mapping.items():
            missing = [k for k in keys if k not in known]
            if missing:
                raise RulesError(f"label map {source}: {label!r} maps to unknown ids {missing}", where)
    return Taxonomy(version=version, groups=built,
                    label_maps={s: {label: tuple(keys) for label, keys in m.items()} for s, m in maps.items()})


# --- organisations ---------------------------------------------------------------------------


class OrganisationEntry(BaseModel):
    """One organisation of the gazetteer."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, description="The name as the library displays it.")
    aliases: list[str] = Field(default_factory=list, description="Names as texts write them (matched on word bounds).")
    domains: list[str] = Field(default_factory=list, description="Host names; a host ending in one names the organisation.")
    sites: list[str] = Field(default_factory=list, description="Site names (a wiki's or a product's name) that name it.")
    products: list[str] = Field(default_factory=list, description="Names of its own products ('Azure Functions'): "
                                                                  "customers of one, or one heading an incident "
                                                                  "number, mark the organisation's own report.")
    provider: bool = Field(default=False, description="A vendor many reports mention as a dependency: "
                                                      "a mention alone is weak evidence that it wrote the report.")
    reference_domains: list[str] = Field(default_factory=list, description="Hosts of reference pages other "
                                         "reports link to ('wikipedia.org'): a markdown link there whose words "
                                         "name something else cites a page, it does not name the organisation.")

    @field_validator("domains", "reference_domains")
    @classmethod
    def _domains(cls, values: list[str]) -> list[str]:
        for value in values:
            if not re.fullmatch(r"[a-z0-9-]+(\.[a-z0-9-]+)+", value):
                raise ValueError(f"expected a lower-case host name, found {value!r}")
        return values


class OrganisationsFile(BaseModel):
    """The organisation gazetteer (``resources/organisations.yaml``)."""

    model_config = ConfigDict(extra="forbid")
    version: int = Field(ge=1, description="Bumped on every change of the file.")
    organisations: list[OrganisationEntry] = Field(description="Known organisations.")

    @field_validator("organisations")
    @classmethod
    def _unique(cls, values: list[OrganisationEntry]) -> list[OrganisationEntry]:
        domains: dict[str, str] = {}
        names: dict[str, str] = {}
        for entry in values:
            for domain in entry.domains:
                if domain in domains and domains[domain] != entry.name:
                    raise ValueError(f"domain {domain!r} names both {domains[domain]} and {entry.name}")
                domains[domain] = entry.name
            for name in {entry.name, *entry.aliases, *entry.products}:
                if not name.strip():
                    raise ValueError(f"{entry.name}: expected names, found an empty one")
                if name in names and names[name] != entry.name:
                    raise ValueError(f"name {name!r} names both {names[name]} and {entry.name}")
                names[name] = entry.name
        return values


@functools.lru_cache(maxsize=4)
def load_organisations(path: Path | str | None = None) -> OrganisationsFile:
    """Load and validate the organisation gazetteer.

    Args:
        path: A replacement gazetteer; the packaged one when None.

    Raises:
        RulesError: the file is unreadable or invalid.
    """
    where, data, text = load_yaml("organisations.yaml", Path(path) if path else None)
    try:
        return OrganisationsFile.model_validate(data)
    except ValidationError as exc:
        raise RulesError(f"invalid organisation gazetteer: {validation_summary(exc, text)}", where) from exc


class NotOrganisationsFile(BaseModel):
    """Words that are never an organisation (``resources/not_organisations.yaml``)."""

    model_config = ConfigDict(extra="forbid")
    version: int = Field(ge=1, description="Bumped on every change of the file.")
    weekdays: list[str] = Field(description="Weekday names and their short forms.")
    months: list[str] = Field(description="Month names and their short forms.")
    roles: list[str] = Field(description="Job titles and team functions ('SRE', 'on-call').")
    heading_words: list[str] = Field(description="Words that open a heading or a label ('Security', 'All').")
    tools: list[str] = Field(description="Chat, paging and monitoring tools: an organisation only from front "
                                         "matter, the source URL or a first-person self-reference.")

    @field_validator("weekdays", "months", "roles", "heading_words", "tools")
    @classmethod
    def _words(cls, values: list) -> list[str]:
        for value in values:
            # YAML reads a bare No, On or Yes as a boolean: the file must quote them
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"expected a non-empty word, found {value!r} (quote No, On, Yes)")
        return values


@functools.lru_cache(maxsize=1)
def load_not_organisations() -> NotOrganisationsFile:
    """Load and validate the packaged list of words that are never an organisation.

    Raises:
        RulesError: the file is unreadable or invalid.
    """
    where, data, text = load_yaml("not_organisations.yaml", None)
    try:
        return NotOrganisationsFile.model_validate(data)
    except ValidationError as exc:
        raise RulesError(f"invalid list of words that are not organisations: {validation_summary(exc, text)}",
                         where) from exc
