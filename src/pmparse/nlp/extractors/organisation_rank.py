"""The organisation as a choice among candidates: every name the document offers for its publisher,
described by where and how it is said, and ranked by a small logistic model trained on the
corpus's labelled organisations (issue 35).

Candidates come from the whole document: front matter, the source URL (a known or a guessed
owner), self-references and site lines ("At Acme, we", "© 2031 Acme Ltd"), a provider speaking of
its products' customers, the HTML page's site name, the table's organisations named in the text,
the subject a title names, a team named in the third person, names said after "our", names the
text repeats, and a brand that prefixes several product names ("Zorbq Portal", "Zorbq Speech").
The rule cascade's own choice (:func:`~pmparse.nlp.extractors.organisation.find_organisation`) is
one feature among the others. A value that is never an organisation
(:func:`~pmparse.nlp.extractors.organisation_words.refused`) is no candidate.

The model (``models/organisation/weights.npz``, read with ``allow_pickle=False``, and
``meta.json``) holds one weight per feature, the features' mean and scale, and the probability
below which no candidate is good enough (the card then names none). Training is
:mod:`pmparse.training.organisation`; without a model file the rules' choice stands.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from pmparse.errors import ModelError
from pmparse.locations import url_parts
from pmparse.nlp.extractors import organisation as rules
from pmparse.nlp.extractors.gazetteer import load_gazetteer
from pmparse.nlp.extractors.organisation_words import refused
from pmparse.nlp.extractors.publisher_cues import provider_speaks
from pmparse.nlp.extractors.report_voice import NOT_NAMES, speaks_as_publisher
from pmparse.nlp.extractors.url_owner import on_forge, slug_name

Fact = dict[str, Any]

#: The features of a candidate, in the model's column order.
FEATURES = (
    "none", "rule_pick", "rule_confidence", "front_matter", "front_author", "url_known", "url_guessed", "url_written",
    "self_reference", "owner_line",
    "product_speaks", "html_meta", "table_mentions", "title_subject", "named_team", "our_context", "repeated",
    "brand_prefix", "known", "provider", "in_title", "body_mentions", "first_position", "dependency_share",
    "subject_share", "speaks", "speaks_x_mentions", "several_words", "all_caps",
)
#: How far into the body candidates and their mentions are read.
_WINDOW = 60000
_CAPITALISED = re.compile(r"(?<![\w.@/-])([A-Z][\w&.+-]*[\w+](?:\s(?:of\s)?[A-Z][\w&.+-]*[\w+]){0,2})(?![\w-])")
_OUR = re.compile(r"\b[Oo]ur\s+([A-Z][\w&.+-]*[\w+](?:\s[A-Z][\w&.+-]*[\w+]){0,2})")
#: Words before a name that make it something the publisher used, not the publisher.
_DEPENDENCY = re.compile(r"(?:\b(?:on|using|via|from|with|through|by|to|into|at|upstream|provider|vendor|third[- ]party)"
                         r"\s+(?:the\s+|our\s+)?)$", re.IGNORECASE)
#: Words after a name that make it the subject of what happened.
_SUBJECT = re.compile(r"^(?:'s|’s|\s+(?:was|were|is|are|had|has|experienced|suffered|saw|went|team|users|customers"
                      r"|engineers|infrastructure|service|services|platform|site|status))\b")
# bounded runs: the pattern is searched in a few characters, but must stay linear on any text
_SENTENCE_START = re.compile(r"(?:^|[.!?:][ \t\n]{1,4}|\n[ \t]{0,4}(?:[-*+#>|]{1,3}[ \t]{0,2})?|\|[ \t]{0,2})$")


@dataclass
class Candidate:
    """One name a document offers for its publisher.

    Attributes:
        value: The name as the card would show it (the table's name when it knows it).
        evidence: Offsets where the document says it (none for a URL).
        features: Feature name to value (missing ones are 0).
        origin: The strongest rule that found it (``front_matter``, ``url``, ``self_reference`` ...).
        rule: The rule cascade's fact, on the candidate it chose.
    """

    value: str
    evidence: list[tuple[int, int]] = field(default_factory=list)
    features: dict[str, float] = field(default_factory=dict)
    origin: str = "text"
    rule: Fact | None = None

    def vector(self) -> list[float]:
        """The feature values in :data:`FEATURES` order."""
        return [self.features.get(name, 0.0) for name in FEATURES]


_ORIGIN_RANK = ("front_matter", "url", "self_reference", "product", "html_meta", "title_subject", "text")


def candidates(text: str, body_start: int = 0, location: str = "", title: tuple[str, list] | None = None,
               front: dict | None = None, front_region: tuple[int, int] | None = None,
               gazetteer_path: str | None = None, meta: dict | None = None) -> list[Candidate]:
    """Every candidate publisher of a document, with its features.

    Args:
        text: The source text.
        body_start: Where the body starts (after front matter).
        location: The source's path or URL.
        title: ``(title, evidence)`` of the document, when known.
        front: Front matter values.
        front_region: Where the front matter stands in the text.
        gazetteer_path: A replacement organisation table.
        meta: What the HTML extractor found (``sitename``).

    Returns:
        The candidates, strongest origin first.
    """
    gaz = load_gazetteer(gazetteer_path)
    front = front or {}
    found: dict[str, Candidate] = {}
    limit = min(len(text), body_start + _WINDOW)

    def add(value: str, feature: str, amount: float = 1.0, spans: Sequence[tuple[int, int]] = (),
            origin: str = "text") -> None:
        value = " ".join(str(value).split()).strip(" .,:;'\"`*_")
        if not value or len(value) > 60:
            return
        entry = gaz.by_alias.get(value.lower())
        name = entry.name if entry else value
        if refused(name, origin):
            return
        key = name.casefold()
        cand = found.get(key)
        if cand is None:
            cand = found[key] = Candidate(name, origin=origin)
        cand.features[feature] = cand.features.get(feature, 0.0) + amount
        cand.evidence.extend(s for s in spans if s not in cand.evidence)
        if _ORIGIN_RANK.index(origin) < _ORIGIN_RANK.index(cand.origin):
            cand.origin = origin

    rule = rules.find_organisation(text, body_start, location, title, front, front_region, gazetteer_path, meta)
    if rule is not None:
        add(rule["value"], "rule_pick", 1.0, rule["evidence"], _origin(rule["origin"]))
        add(rule["value"], "rule_confidence", float(rule["confidence"]), (), _origin(rule["origin"]))
        for cand in found.values():
            cand.rule = rule
    for key in rules.ORG_KEYS:
        if front.get(key) and not (rules.site_slug(key, str(front[key]))
                                   and gaz.by_alias.get(str(front[key]).lower()) is None):
            add(str(front[key]), "front_matter", 1.0, rules.locate(text, str(front[key]), front_region), "front_matter")
    for key in rules.AUTHOR_KEYS:
        value = str(front.get(key) or "").strip()
        if value and gaz.by_alias.get(value.lower()) is not None:
            add(value, "front_author", 1.0, rules.locate(text, value, front_region), "front_matter")
    _url_candidates(gaz, location, add)
    owner = rules.address_owner(gaz, text, body_start, location)
    if owner is not None:
        add(owner["value"], "url_written", math.log1p(owner.pop("written")), owner["evidence"], "url")
    window_end = min(len(text), body_start + 30000)
    for feature, patterns in (("self_reference", rules.SELF_PATTERNS), ("owner_line", rules.OWNER_LINES)):
        for pattern in patterns:
            for match in pattern.finditer(text, body_start, window_end):
                name = re.split(r"\.\s", match.group("n"), maxsplit=1)[0].rstrip(".")
                if name.split()[0] not in NOT_NAMES:
                    add(name, feature, 1.0, [(match.start("n"), match.start("n") + len(name))], "self_reference")
    spoken = provider_speaks(gaz, text, body_start, title)
    if spoken is not None:
        add(spoken["value"], "product_speaks", 1.0, spoken["evidence"], "product")
    site = (meta or {}).get("sitename")
    if site and re.fullmatch(r"[A-Z0-9][\w.&' -]{1,40}", site):
        add(site, "html_meta", 1.0, rules.locate(text, site, (body_start, len(text))), "html_meta")
    scores, evidence = rules.mentions(gaz, text, body_start, front_region, title, providers=True)
    for name, score in scores.items():
        add(name, "table_mentions", math.log1p(score), evidence[name][:3])
    if title and title[0]:
        subject = rules.title_subject(gaz, text, body_start, title)
        if subject is not None:
            add(subject["value"], "title_subject", 1.0, subject["evidence"], "title_subject")
    for match in rules.TEAM_PATTERN.finditer(text, body_start, window_end):
        add(match.group("n").rstrip("."), "named_team", 1.0, [match.span("n")])
    for match in _OUR.finditer(text, body_start, window_end):
        add(match.group(1), "our_context", 1.0, [match.span(1)])
    _repeated_names(text, body_start, limit, add)
    speaks = 1.0 if speaks_as_publisher(text[body_start:window_end]) else 0.0
    title_text = title[0] if title and title[0] else ""
    for cand in found.values():
        _describe(cand, gaz, text, body_start, limit, title_text, speaks)
    return sorted(found.values(), key=lambda c: (_ORIGIN_RANK.index(c.origin), -c.features.get("body_mentions", 0)))


def _origin(origin: str) -> str:
    return origin if origin in _ORIGIN_RANK else "text"


def _url_candidates(gaz, location: str, add) -> None:
    """The source URL's owner: a known organisation's domain or forge account, or a guessed name."""
    parts = url_parts(location)
    if parts is None:
        return
    host = (parts.hostname or "").lower()
    if on_forge(host):
        owner = next((p for p in parts.path.split("/") if p), None)
        if owner:
            known = gaz.by_alias.get(owner.lower()) is not None
            add(owner if known else (slug_name(location) or owner), "url_known" if known else "url_guessed", 1.0, (),
                "url")
        return
    name, entry = rules.host_guess(gaz, location, host)
    if entry is not None:
        add(entry.name, "url_known", 1.0, (), "url")
        return
    if name:
        add(name, "url_guessed", 1.0, (), "url")


def _repeated_names(text: str, body_start: int, limit: int, add) -> None:
    """Names the body writes capitalised inside sentences again and again, and brands that prefix
    several such names ("Zorbq Portal", "Zorbq Speech Service" give "Zorbq")."""
    counts: dict[str, list[tuple[int, int]]] = {}
    for match in _CAPITALISED.finditer(text, body_start, limit):
        if _SENTENCE_START.search(text, max(body_start, match.start() - 8), match.start()):
            continue
        counts.setdefault(match.group(1), []).append(match.span(1))
    ranked = sorted(counts.items(), key=lambda kv: (-len(kv[1]), kv[1][0][0]))
    for name, spans in ranked[:6]:
        if len(spans) >= 2:
            add(name, "repeated", math.log1p(len(spans)), spans[:3])
    heads: dict[str, set[str]] = {}
    for name in counts:
        words = name.split()
        if len(words) >= 2:
            heads.setdefault(words[0], set()).add(" ".join(words[1:]))
    for head, tails in heads.items():
        if len(tails) >= 2:
            add(head, "brand_prefix", math.log1p(len(tails)), counts.get(head, [])[:3])


def _describe(cand: Candidate, gaz, text: str, body_start: int, limit: int, title_text: str, speaks: float) -> None:
    """Where and how the document says ``cand``: mentions, first position, subject or dependency."""
    entry = gaz.by_alias.get(cand.value.lower())
    names = {cand.value, *(entry.aliases if entry else ())}
    pattern = re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                         + r")(?![\w-])")
    spans = [m.span() for m in pattern.finditer(text, body_start, limit)]
    f = cand.features
    f["known"] = 1.0 if entry is not None else 0.0
    f["provider"] = 1.0 if entry is not None and entry.provider else 0.0
    f["in_title"] = 1.0 if title_text and pattern.search(title_text) else 0.0
    f["body_mentions"] = math.log1p(len(spans))
    f["first_position"] = 1.0 / (1.0 + (spans[0][0] - body_start) / 1000.0) if spans else 0.0
    if spans:
        dependent = sum(1 for s, _ in spans if _DEPENDENCY.search(text, max(0, s - 30), s))
        subject = sum(1 for _, e in spans if _SUBJECT.search(text[e:e + 30]))
        f["dependency_share"] = dependent / len(spans)
        f["subject_share"] = subject / len(spans)
    f["speaks"] = speaks
    f["speaks_x_mentions"] = speaks * f["body_mentions"]
    f["several_words"] = 1.0 if len(cand.value.split()) > 1 else 0.0
    f["all_caps"] = 1.0 if cand.value.isupper() else 0.0
    if not cand.evidence and spans:
        cand.evidence = spans[:3]


# --- the model ------------------------------------------------------------------------------

#: Whether the facts component lists candidates even without a ranker (the evaluation and
#: training ask for them; a plain conversion without a shipped model need not pay for them).
_COLLECT: contextvars.ContextVar[bool] = contextvars.ContextVar("pmparse_collect_candidates", default=False)


@contextlib.contextmanager
def collecting():
    """Within this block the facts component keeps every document's candidates
    (``doc.user_data["pmparse_org_candidates"]``) whether or not a ranker is shipped."""
    token = _COLLECT.set(True)
    try:
        yield
    finally:
        _COLLECT.reset(token)


def wanted(ranker: "Ranker | None") -> bool:
    """Whether candidates are needed: a ranker chooses among them, or :func:`collecting` asks."""
    return ranker is not None or _COLLECT.get()



@dataclass(frozen=True)
class Ranker:
    """A choice model over one document's candidates and "none": each candidate scores
    ``((x - mean) / scale) . weights``, "none" scores the weight of the ``none`` feature (the
    only feature it has), and a softmax over all of them gives each one's probability.

    Attributes:
        weights: One weight per feature of :data:`FEATURES` (``none``'s is the score of naming none).
        mean: Feature offsets (zero: a softmax needs no centring, and "none" stays at the origin).
        scale: Feature scales (1 where a feature was constant).
        threshold: The probability below which no candidate is taken.
        features: The feature names, as trained (checked against :data:`FEATURES`).
    """

    weights: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    threshold: float
    features: tuple[str, ...] = FEATURES

    def scores(self, cands: Sequence[Candidate]) -> np.ndarray:
        """The probability that each candidate is the publisher (the rest is "none")."""
        if not cands:
            return np.zeros(0)
        x = (np.array([c.vector() for c in cands], dtype=float) - self.mean) / self.scale
        logits = np.concatenate([[self.weights[0]], x @ self.weights])
        logits -= logits.max()
        odds = np.exp(logits)
        return odds[1:] / odds.sum()

    def save(self, folder: Path, meta: dict) -> None:
        """Write ``weights.npz`` (numeric arrays) and ``meta.json`` (names, threshold, ``meta``)."""
        folder.mkdir(parents=True, exist_ok=True)
        np.savez(folder / "weights.npz", weights=self.weights, mean=self.mean, scale=self.scale)
        info = {"features": list(self.features), "threshold": self.threshold, **meta}
        (folder / "meta.json").write_text(json.dumps(info, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def load_ranker(folder: Path | str | None = None) -> Ranker | None:
    """The organisation ranker of ``folder`` (the packaged one when None); None when there is none.

    Raises:
        ModelError: the files are unreadable, or trained on other features than :data:`FEATURES`.
    """
    if folder is None:
        return _packaged()
    folder = Path(folder)
    if not (folder / "weights.npz").is_file():
        return None
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        with np.load(folder / "weights.npz", allow_pickle=False) as arrays:
            weights, mean, scale = arrays["weights"], arrays["mean"], arrays["scale"]
    except (OSError, ValueError, KeyError) as exc:
        raise ModelError(f"expected a readable organisation ranker, found {type(exc).__name__}: {exc}",
                         str(folder)) from exc
    if tuple(meta.get("features", ())) != FEATURES or weights.shape != (len(FEATURES),):
        raise ModelError("expected an organisation ranker trained on this version's features, found another",
                         str(folder))
    return Ranker(weights, mean, scale, float(meta["threshold"]))


@functools.lru_cache(maxsize=1)
def _packaged() -> Ranker | None:
    return load_ranker(Path(str(resources.files("pmparse.models").joinpath("organisation"))))


def choose(cands: Sequence[Candidate], ranker: Ranker | None) -> Fact | None:
    """The publisher among ``cands``: the ranker's most likely candidate when it reaches the
    threshold (None below it), or the rules' choice when there is no ranker."""
    if not cands:
        return None
    if ranker is None:
        picked = next((c for c in cands if c.features.get("rule_pick")), None)
        return None if picked is None else picked.rule
    probabilities = ranker.scores(cands)
    best = int(np.argmax(probabilities))
    if probabilities[best] < ranker.threshold:
        return None
    cand = cands[best]
    evidence = [] if cand.origin == "url" and not cand.features.get("body_mentions") else sorted(cand.evidence)[:3]
    return {"value": cand.value, "evidence": evidence, "confidence": round(float(probabilities[best]), 3),
            "origin": cand.origin}
