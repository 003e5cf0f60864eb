"""What the tagger reads in a card: the focus spans, summary regions and cue strings its model rows are built from."""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter
from typing import Iterable

import numpy as np
from spacy.attrs import IDX, LENGTH
from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc

from pmparse.nlp.components.facts import SUMMARY_HEADINGS, section_regions
from pmparse.nlp.lines import doc_text
from pmparse.rules.cues import lowercase_pattern, word_start_skip
from pmparse.rules.taxonomy import Taxonomy

CATEGORY_GROUPS = ("root_cause_categories", "contributing_factor_categories")

#: Fields whose units feed the category model's focused text.
FOCUS_FIELDS = ("root_cause", "trigger", "contributing_factors")

#: Longest stretch of the whole text the category model reads.
WHOLE_LIMIT = 20000
#: Longest focused text the category model reads (far above any postmortem's: a hostile input
#: whose every line reads as a root cause would otherwise be tokenized a second time whole).
FOCUS_LIMIT = 200_000


def longest_first(matches: list[tuple]) -> list[tuple]:
    """spaCy's ``filter_spans`` over ``(key, start_token, end_token, ...)`` tuples.

    Overlapping matches keep the longest, then the first; the result is in token order. The same
    rule on tuples, because making a Span per match cost more than the matching itself.
    """
    ordered = sorted(matches, key=lambda m: (m[2] - m[1], -m[1]), reverse=True)
    kept, seen = [], set()
    for match in ordered:
        if match[1] not in seen and match[2] - 1 not in seen:
            kept.append(match)
            seen.update(range(match[1], match[2]))
    return sorted(kept, key=lambda m: m[1])


class Matchers:
    """Phrase and regex matchers built from a taxonomy, for one vocabulary.

    Args:
        nlp: The pipeline whose tokenizer and vocabulary the matchers use.
        taxonomy: The taxonomy in use.
    """

    def __init__(self, nlp: Language, taxonomy: Taxonomy) -> None:
        self.nlp = nlp
        self.taxonomy = taxonomy
        # one phrase matcher for every group: a pass over a Doc's tokens serves all of them
        self._matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
        self._group_of: dict[int, str] = {}
        self.groups = set(taxonomy.groups)
        self.regexes: dict[str, list[tuple[str, re.Pattern, re.Pattern]]] = {}
        for group, taxa in taxonomy.groups.items():
            regexes = []
            for taxon in taxa:
                if taxon.synonyms:
                    self._matcher.add(taxon.key, [nlp.make_doc(s.lower()) for s in taxon.synonyms])
                    self._group_of[nlp.vocab.strings[taxon.key]] = group
                # kept twice: for lowercased text (case-sensitive, 2-3x faster in Python's re)
                # and as written, for the rare text whose lowercase changes its length
                regexes.extend((taxon.key, re.compile(word_start_skip(lowercase_pattern(p))), re.compile(p, re.IGNORECASE))
                               for p in taxon.patterns)
            self.regexes[group] = regexes
        self._last: tuple[Doc, dict[str, list[tuple[str, int, int, int, int]]]] | None = None
        # the last Doc's matches per (group, start, end)
        self._found: tuple[Doc | None, dict[tuple[str, int, int], list[tuple[str, int, int]]]] = (None, {})
        self._lower: tuple[str, str] | None = None

    def _phrase_matches(self, doc: Doc) -> dict[str, list[tuple[str, int, int, int, int]]]:
        """Phrase matches of every group in ``doc``: ``(key, start_token, end_token, start_char, end_char)``.

        The last Doc's matches are kept: the tagger asks for three groups of the same Doc.
        """
        if self._last is not None and self._last[0] is doc:
            return self._last[1]
        found: dict[str, list[tuple[str, int, int, int, int]]] = {}
        matched = self._matcher(doc)
        if matched:
            # character offsets from attribute arrays: a Span per match cost more than the matching
            idx, length = doc.to_array([IDX, LENGTH]).T.tolist()
            strings = self.nlp.vocab.strings
            for match_id, s, e in matched:
                found.setdefault(self._group_of[match_id], []).append(
                    (strings[match_id], s, e, idx[s], idx[e - 1] + length[e - 1]))
        self._last = (doc, found)
        return found

    def _lowered(self, text: str) -> str:
        """``text.lower()``, kept for the last text: the groups of one Doc ask for it in turn."""
        if self._lower is None or self._lower[0] is not text:
            self._lower = (text, text.lower())
        return self._lower[1]

    def matches(self, doc: Doc, group: str, start: int = 0, end: int | None = None) -> list[tuple[str, int, int]]:
        """``(group.id, start_char, end_char)`` of every match of ``group`` in ``doc``.

        Overlapping phrase matches keep the longest ("ingress controller" over "ingress").
        """
        text = doc_text(doc)
        end = len(text) if end is None else end
        phrases = self._phrase_matches(doc)  # a new Doc also empties the cache below
        if self._found[0] is not doc:
            self._found = (doc, {})
        known = self._found[1].get((group, start, end))
        if known is not None:
            # the tagger reads the whole text for its categories and again for their units' cues:
            # one scan when the text is shorter than the part the model reads
            return list(known)
        inside = [m for m in phrases.get(group, ()) if m[3] >= start and m[4] <= end]
        found = [(key, s, e) for key, _, _, s, e in longest_first(inside)]
        if self.regexes[group]:
            lowered = self._lowered(text)
            same_length = len(lowered) == len(text)  # offsets into the lowercase are offsets into the text
            for key, lower_pattern, pattern in self.regexes[group]:
                matches = lower_pattern.finditer(lowered, start, end) if same_length else pattern.finditer(text, start, end)
                found.extend((key, m.start(), m.end()) for m in matches if m.end() > m.start())
        found.sort(key=lambda f: f[1])
        self._found[1][(group, start, end)] = found
        return list(found)

    def make_doc(self, text: str) -> Doc:
        """``text`` tokenized, with its text kept for :func:`~pmparse.nlp.lines.doc_text` (training
        reads texts that are no pipeline's Doc)."""
        doc = self.nlp.make_doc(text)
        doc.user_data["pmparse_text"] = text
        return doc

    def cue_counts(self, text: str) -> Counter:
        """How often each category's cue phrases occur in ``text`` (``group.id`` -> count)."""
        return self.doc_cue_counts(self.make_doc(text))

    def doc_cue_counts(self, doc: Doc, end: int | None = None) -> Counter:
        """How often each category's cue phrases occur in ``doc`` (up to character ``end``)."""
        return self.region_cue_counts(doc, [(0, len(doc_text(doc)) if end is None else end)])

    def region_matches(self, doc: Doc, group: str, regions: list[tuple[int, int]]) -> list[tuple[str, int, int]]:
        """:meth:`matches` of ``group`` inside each of ``regions`` (character offsets of ``doc``)."""
        return [m for start, end in regions for m in self.matches(doc, group, start, end)]

    def region_cue_counts(self, doc: Doc, regions: list[tuple[int, int]]) -> Counter:
        """How often each category's cue phrases occur inside ``regions`` of ``doc``.

        The same counts as :meth:`cue_counts` of the regions' texts joined by line breaks (a
        phrase never spans a line break), read off the document's own tokens: the pipeline
        tokenizes each text once.
        """
        counts: Counter = Counter()
        for group in CATEGORY_GROUPS:
            if group in self.groups:
                counts.update(key for key, _, _ in self.region_matches(doc, group, regions))
        return counts


def cue_string(focus: Counter, whole: Counter, cap: int = 5) -> str:
    """Cue counts as pseudo-words the model reads: ``f__root_cause_categories.software_bug`` per focus hit."""
    words = []
    for prefix, counts in (("f__", focus), ("w__", whole)):
        for key, count in sorted(counts.items()):
            words.extend([prefix + key] * min(cap, count))
    return " ".join(words)


def cue_vocabulary(taxonomy: Taxonomy) -> list[str]:
    """Every cue pseudo-word of the category groups of ``taxonomy``."""
    keys = [t.key for g in CATEGORY_GROUPS for t in taxonomy.groups.get(g, ())]
    return [p + k for p in ("f__", "w__") for k in keys]


#: Least confidence of a field unit for the tag model to read it as the cause. The field model's
#: confidences are calibrated: below 0.5 a unit is more likely wrong than right about being the
#: cause. 0.4 let a notes text whose only "trigger" is a meeting moved to Tuesday (0.425 once the
#: written postmortems trained the field model) get a category.
FOCUS_MIN_CONFIDENCE = 0.5


def focus_spans(doc: Doc, least: float = FOCUS_MIN_CONFIDENCE) -> list[tuple[int, int]]:
    """Offsets of the units labelled root cause, trigger or contributing factors with a
    confidence of at least ``least``."""
    if "fields" not in doc.spans:
        return []
    group = doc.spans["fields"]
    scores = group.attrs.get("scores") or [1.0] * len(group)
    return sorted((s.start_char, s.end_char) for s, score in zip(group, scores)
                  if s.label_ in FOCUS_FIELDS and score >= least)


def summary_regions(doc: Doc, limit: int = 2500) -> list[tuple[int, int]]:
    """The overview of ``doc``: summary-like sections, else the start of the body (each cut to ``limit`` chars)."""
    regions = section_regions(doc)
    found = [(s, min(e, s + limit)) for s, e, h in regions if h in SUMMARY_HEADINGS]
    if not found:
        masked = doc.user_data.get("pmparse_masked", [])
        body = max((e for s, e in masked if s == 0), default=0)
        found = [(body, min(len(doc_text(doc)), body + limit // 2))]
    return found


def _overlapping_none(regions: list[tuple[int, int]], spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The regions that overlap none of ``spans`` (sorted by start): a binary search each, not a scan."""
    starts = [start for start, _ in spans]
    reach = list(itertools.accumulate((end for _, end in spans), max))  # furthest end of the first k spans
    kept = []
    for region in regions:
        k = bisect.bisect_left(starts, region[1])  # the spans that start before the region ends
        if not (k and reach[k - 1] > region[0]):
            kept.append(region)
    return kept


def category_texts(doc: Doc, spans: list[tuple[int, int]] | None = None) -> tuple[str, str, list[tuple[int, int]]]:
    """The category model's two texts for ``doc``: focused units plus the summary, and the whole text.

    Args:
        doc: An analysed Doc.
        spans: Sorted offsets of the focused units; the field labeler's root-cause, trigger and
            contributing-factor units when None (other spans measure what better units would give).

    Returns:
        ``(focus, whole, focus_evidence)``; the evidence is the focused units (the summary when
        there are none).
    """
    regions, evidence = category_regions(doc, spans)
    text = doc_text(doc)
    return focus_text(text, regions), text[:WHOLE_LIMIT], evidence


def category_regions(doc: Doc, spans: list[tuple[int, int]] | None = None
                     ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """``(regions, evidence)``: the stretches of ``doc`` the focused text joins
    (:func:`focus_regions`) and the evidence of :func:`category_texts`."""
    spans = focus_spans(doc) if spans is None else spans
    summary = summary_regions(doc)  # read once: it walks the document's sections
    return focus_regions(spans, summary), spans or summary


def focus_text(text: str, regions: list[tuple[int, int]]) -> str:
    """The focused text: the regions of ``text`` joined by line breaks."""
    return "\n".join(text[s:e] for s, e in regions)


def focus_regions(spans: list[tuple[int, int]], summary: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The stretches the focused text joins (with a line break between two): the focused units
    and the ``summary`` regions that overlap none of them, in order, cut so that the joined text
    stays within ``FOCUS_LIMIT`` characters."""
    regions, used = [], 0
    for start, end in sorted(spans + _overlapping_none(summary, spans)):
        room = FOCUS_LIMIT - used - (1 if regions else 0)
        if room <= 0:
            break
        regions.append((start, min(end, start + room)))
        used += (1 if len(regions) > 1 else 0) + regions[-1][1] - start
    return regions


def nothing_to_read(focus: list[tuple[int, int]], whole_cues: Counter) -> bool:
    """True when a text offers nothing to read a category from: no focused unit, no cue phrase.

    Measured on the shared corpus on 2026-11-30: 2 of 506 reports have no cue phrase anywhere;
    one is a blank template (no focused unit either), the other a real report whose field labels
    find six focused units, so only the template is affected.
    """
    return not focus and not any(whole_cues.values())


def model_rows(matchers: Matchers, texts: Iterable[tuple[str, str]]) -> np.ndarray:
    """The ``(n, 3)`` model input for ``(focus, whole)`` text pairs: focus, whole, cue pseudo-words."""
    rows = []
    for focus, whole in texts:
        cues = cue_string(matchers.cue_counts(focus), matchers.cue_counts(whole[:WHOLE_LIMIT]))
        rows.append((focus, whole[:WHOLE_LIMIT], cues))
    return np.array(rows, dtype=object).reshape(-1, 3)
