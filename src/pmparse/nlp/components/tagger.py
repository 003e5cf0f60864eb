"""Tagger: components, root-cause categories and contributing-factor categories of a card.

**Components** are found by the taxonomy's synonyms and patterns (a spaCy ``PhraseMatcher`` on
lower-cased tokens, plus regexes) and kept only where the text says the component was involved.
Where a mention stands decides: the title, the summary, or a unit the field labeler put in
symptoms, trigger, root cause, contributing factors, remediation or detection. A component named
only in an unrelated sentence (a lesson, an action item, a timeline line) is not a tag. With the
trained tag model, a logistic regression over those per-region counts decides
(:func:`component_candidates`); without it, or for ids it does not know, the region weights of
:data:`REGION_WEIGHTS` are added up against ``component_threshold`` (:func:`score_components`).

**Categories** come from the same model (:class:`CategoryModel`, trained by
:mod:`pmparse.training.tags.train`): word and character n-grams over the root-cause, trigger and
contributing-factor units plus the summary, word n-grams over the whole text, and counts of each
category's cue phrases, into one calibrated logistic regression per category (one-vs-rest). A
category is a tag when its probability reaches the model's threshold, or a lower gate when one
of its cue phrases occurs in the focused text; when no root-cause category is tagged, the most
likely one is kept if it reaches ``fallback_threshold``, else the card says nothing (it
abstains). Category ids the model does not know (added with ``--taxonomy``), and every category
when there is no model, are tagged from their synonyms in the focused text, with a low confidence.
A text with no unit labelled root cause, trigger or contributing factor and not one cue phrase of
any category gets no disclosed category (:func:`nothing_to_read`): the model's probabilities for
such a text are its priors, and a card that invents a cause is worse than one that says nothing.
It may still say the cause is ``unknown`` (not disclosed), as any card whose causes all fall short.

Writes ``doc.cats`` (``group.id`` -> probability, categories only) and
``doc.user_data["pmparse_tags"]``: ``{"components.database": {"value": True, "evidence":
[(start, end)], "confidence": 0.8, "origin": "model:tags-..."}}``, which the card reads, plus
``doc.user_data["pmparse_tag_names"]`` and ``["pmparse_tag_phrases"]`` (``group.id`` -> display
name / title phrase) for titles.
"""

from __future__ import annotations

import bisect
import json
import logging
import math
from importlib import resources
from pathlib import Path
from collections import Counter
from typing import Any, Iterable

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc

from pmparse.errors import ModelError
from pmparse.nlp.component_candidates import (
    candidate_rows,
    component_candidates,
    component_regions,
    keep_components,
    score_components,
)
from pmparse.nlp.linear import CalibratedBinaries, Features, Logistic, features_from_arrays, features_to_arrays
from pmparse.nlp.lines import doc_text
from pmparse.nlp.model_files import load_arrays, read_json, save_arrays
from pmparse.nlp.tag_reading import (CATEGORY_GROUPS, WHOLE_LIMIT, Matchers, category_regions, cue_string, focus_spans,
                                     focus_text, nothing_to_read, summary_regions)
from pmparse.rules.taxonomy import Taxonomy, load_taxonomy
from pmparse.util import atomic_write

log = logging.getLogger(__name__)

#: File name of the category model inside its folder.
MODEL_FILE = "weights.npz"

META_FILE = "meta.json"

#: Where ``pmparse train-categories`` writes and the tagger looks for the model by default.
DEFAULT_MODEL_DIR = Path(str(resources.files("pmparse") / "models" / "categories"))  # package data

#: Format version of the saved model dict; bumped when its layout changes.
MODEL_FORMAT = 2


class CategoryModel:
    """Calibrated one-vs-rest category classifiers over shared text features.

    Args:
        features: Features of the ``(n, 3)`` input of :func:`model_rows`.
        classifiers: The calibrated binary classifier of every ``group.id`` key.
        meta: Name, taxonomy version, training data summary and thresholds.
        components: The component model (dense candidate rows, see :func:`candidate_rows`), or None.
    """

    def __init__(self, features: Features, classifiers: CalibratedBinaries, meta: dict[str, Any],
                 components: Logistic | None = None) -> None:
        self.features = features
        self.classifiers = classifiers
        self.meta = meta
        self.components = components

    def predict_components(self, candidates: dict[str, tuple[np.ndarray, list]]) -> dict[str, float]:
        """Probability that each candidate component was involved (empty without a component model)."""
        if self.components is None or not candidates:
            return {}
        # models trained before ``component_first_mention`` read rows without it
        keys, rows = candidate_rows(candidates, list(self.meta.get("component_ids", [])),
                                    bool(self.meta.get("component_first_mention", False)))
        return {k: float(p) for k, p in zip(keys, self.components.predict_proba(rows))}

    @property
    def name(self) -> str:
        """Model name and version, for records."""
        return str(self.meta.get("name", "categories"))

    @property
    def keys(self) -> list[str]:
        """The ``group.id`` keys the model can tag."""
        return list(self.classifiers.keys)

    def predict_rows(self, rows) -> list[dict[str, float]]:
        """Probability of every known category for each input row."""
        return [dict(zip(self.classifiers.keys, row)) for row in self.predict_matrix(rows).tolist()]

    def predict_matrix(self, rows) -> np.ndarray:
        """``(rows, keys)`` probabilities of every known category (columns in :attr:`keys` order)."""
        rows = [list(r) for r in rows]
        if not rows:
            return np.zeros((0, len(self.classifiers.keys)))
        return self.classifiers.predict_proba(self.features.transform(rows))

    def save(self, folder: Path) -> Path:
        """Write ``weights.npz`` and ``meta.json`` into ``folder`` (numeric arrays and JSON, never pickle).

        The weights are written first: new weights beside an old ``meta.json`` fail its sha256
        check at load instead of loading silently.
        """
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        specs, arrays = features_to_arrays(self.features, "features")
        arrays.update({"categories.coef": self.classifiers.coef_t.T, "categories.intercept": self.classifiers.intercept,
                       "categories.a": self.classifiers.a, "categories.b": self.classifiers.b})
        if self.components is not None:
            arrays.update({"components.coef": self.components.coef,
                           "components.intercept": np.array([self.components.intercept])})
        path = folder / MODEL_FILE
        tmp = folder / (MODEL_FILE + ".tmp")
        digest = save_arrays(tmp, arrays)
        tmp.replace(path)
        meta = {**self.meta, "format": MODEL_FORMAT, "features": specs, "category_keys": self.classifiers.keys,
                "has_components": self.components is not None, "weights_sha256": digest}
        atomic_write(folder / META_FILE, json.dumps(meta, indent=2, sort_keys=True) + "\n")
        return path

    @classmethod
    def load(cls, folder: Path | str) -> CategoryModel:
        """Load a model saved by :meth:`save`.

        Raises:
            ModelError: the files are missing, unreadable, of another format or do not fit together.
        """
        folder = Path(folder)
        if not (folder / MODEL_FILE).is_file():
            raise ModelError(f"expected a category model ({MODEL_FILE}), found none", str(folder))
        meta = read_json(folder / META_FILE)
        if meta.get("format") != MODEL_FORMAT:
            raise ModelError(f"expected category model format {MODEL_FORMAT}, found {meta.get('format')}",
                             str(folder / META_FILE))
        arrays = load_arrays(folder / MODEL_FILE, meta.get("weights_sha256"))
        try:
            features = features_from_arrays(meta["features"], arrays, "features")
            keys = list(meta["category_keys"])
            classifiers = CalibratedBinaries(keys, arrays["categories.coef"], arrays["categories.intercept"],
                                             arrays["categories.a"], arrays["categories.b"])
            components = None
            if meta.get("has_components"):
                components = Logistic(arrays["components.coef"], float(arrays["components.intercept"][0]))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ModelError(f"expected a category model, found an inconsistent one: {exc!r}", str(folder)) from exc
        if classifiers.coef_t.shape != (features.width, len(keys)):
            raise ModelError(f"expected weights for {features.width} features and {len(keys)} keys, found "
                             f"{classifiers.coef_t.shape}", str(folder))
        return cls(features, classifiers, meta, components)


def decide_categories(probs: dict[str, float], group: str, threshold: float, fallback: float | None,
                      cues: Iterable[str] = (), gate: float | None = None, unsure_unknown: bool = False,
                      max_keys: int | None = None, cue_needs_fallback: bool = False) -> list[str]:
    """The ``group.id`` keys of ``group`` to tag, from category probabilities and cue phrases.

    Args:
        probs: ``group.id`` -> probability.
        group: ``root_cause_categories`` or ``contributing_factor_categories``.
        threshold: Least probability of a tag.
        fallback: When no key reaches ``threshold``, the most likely key is kept if it reaches
            this; None to abstain instead.
        cues: Keys whose cue phrases occur in the focused text.
        gate: A key with a cue is also tagged when its probability reaches this (None: cues are
            not used).
        unsure_unknown: When even the most likely key misses ``fallback``, tag ``group.unknown``
            instead of nothing. ``unknown`` means the report does not say what caused the
            incident, and a report that states a cause gives the model something to find: no
            disclosed cause reaching even the fallback is what an undisclosed one looks like.
            The ``unknown`` classifier alone cannot learn this (a handful of positives, and the
            absence of a cause has no words of its own).
        max_keys: Keep at most this many keys, the most likely first (None or 0: no limit). A
            postmortem names one or two root causes; a third tag is almost always a wrong one.
        cue_needs_fallback: When no key reaches ``threshold``, cue-gated keys count only if the
            most likely key reaches ``fallback``: a cue phrase at a low probability does not
            outweigh the reading that the report discloses no cause (with ``unsure_unknown``,
            the key is then ``unknown``; without it, nothing).
    """
    mine = {k: p for k, p in probs.items() if k.startswith(group + ".")}
    chosen = sorted((k for k, p in mine.items() if p >= threshold), key=lambda k: -mine[k])
    unsure = not chosen and fallback is not None and bool(mine) and max(mine.values()) < fallback
    if gate is not None and not (cue_needs_fallback and unsure):
        chosen += sorted((k for k in set(cues) if k in mine and k not in chosen and mine[k] >= gate),
                         key=lambda k: -mine[k])
    if not chosen and fallback is not None and mine:
        best = max(mine, key=mine.get)
        if mine[best] >= fallback:
            chosen = [best]
        elif unsure_unknown:
            chosen = [f"{group}.unknown"]
    unknown = f"{group}.unknown"
    if unknown in chosen and len(chosen) > 1:
        # "not disclosed" contradicts any disclosed cause
        chosen.remove(unknown)
    if max_keys:
        # ``chosen`` is most likely first: the keys over the threshold, then the cue-gated ones (all below it)
        chosen = chosen[:max_keys]
    return chosen


class Tagger:
    """The ``pmparse_tagger`` component.

    Args:
        nlp: The pipeline.
        taxonomy: The taxonomy in use.
        model: The category model, or None for synonym rules only.
        component_threshold: Least summed region weight of a component tag.
        category_threshold: Least probability of a category tag.
        fallback_threshold: Least probability of the best root-cause category when none reaches
            ``category_threshold``.
        component_relative: Least share of the best component's score a component needs.
    """

    def __init__(self, nlp: Language, taxonomy: Taxonomy, model: CategoryModel | None,
                 component_threshold: float, category_threshold: float, fallback_threshold: float,
                 component_relative: float = 0.0) -> None:
        self.matchers = Matchers(nlp, taxonomy)
        self.taxonomy = taxonomy
        self.model = model
        self.component_threshold = component_threshold
        self.component_relative = component_relative
        self.category_threshold = category_threshold
        self.fallback_threshold = fallback_threshold
        self.model_name = model.name if model is not None else None
        known = set(model.keys) if model is not None else set()
        self.rule_keys = {t.key for g in CATEGORY_GROUPS for t in taxonomy.groups.get(g, ()) if t.key not in known}
        self.valid = {t.key for taxa in taxonomy.groups.values() for t in taxa}

    def components(self, doc: Doc) -> dict[str, dict]:
        """Component tags of ``doc``.

        With a component model, a candidate is a tag when its probability reaches the model's
        threshold, and when none does, the most likely one is (``component_keep_best``: every
        incident involves some component, so a document naming any gets one); ids the model does
        not know, and every id without a model, are decided by the region weights
        (:func:`score_components`).
        """
        tags = {}
        model_ids = set(self.model.meta.get("component_ids", [])) if self.model and self.model.components else set()
        matches = self.matchers.matches(doc, "components") if "components" in self.matchers.groups else []
        regions = component_regions(doc)
        if model_ids:
            candidates = component_candidates(doc, self.matchers, matches, regions)
            probs = self.model.predict_components(
                {k: v for k, v in candidates.items() if k.split(".", 1)[1] in model_ids})
            threshold = float(self.model.meta.get("component_threshold", 0.5))
            valid = {k: p for k, p in probs.items() if k in self.valid}
            kept = [k for k, p in valid.items() if p >= threshold]
            if not kept and valid and self.model.meta.get("component_keep_best", False):
                kept = [max(sorted(valid), key=valid.get)]
            for key in kept:
                evidence = candidates[key][1]
                if not evidence:  # named outside every region: its first mention
                    evidence = [min((s, e) for k, s, e in matches if k == key)]
                tags[key] = {"value": True, "evidence": sorted(set(evidence))[:5], "confidence": round(valid[key], 3),
                             "origin": f"model:{self.model_name}"}
        matches = [m for m in matches if m[0].split(".", 1)[1] not in model_ids]
        scores = score_components(matches, regions)
        for key in keep_components(scores, self.component_threshold, self.component_relative):
            score, evidence = scores[key]
            if key in self.valid:
                confidence = round(min(0.95, 1.0 - math.exp(-score / 2.0)), 3)
                tags[key] = {"value": True, "evidence": sorted(set(evidence))[:5], "confidence": confidence,
                             "origin": "taxonomy"}
        return tags

    def categories(self, doc: Doc) -> tuple[dict[str, float], dict[str, dict]]:
        """Category probabilities and tags of ``doc``."""
        regions, spans = category_regions(doc)
        text = doc_text(doc)
        focus, whole = focus_text(text, regions), text[:WHOLE_LIMIT]
        evidence = spans[:3]
        probs: dict[str, float] = {}
        tags: dict[str, dict] = {}
        max_causes = None
        if self.model is not None:
            # the focused text is stretches of the document: its cues (and the rules below) are
            # read off the document's own tokens, so each text is tokenized once
            focus_cues = self.matchers.region_cue_counts(doc, regions)
            # the whole text is the document's own prefix: its tokens are already there (training
            # tokenizes the prefix alone; the two differ only at a token cut by the limit)
            whole_cues = self.matchers.doc_cue_counts(doc, len(whole))
            # the document's row and its units' rows (read when a category cites its units)
            # are scored in one matrix: one pass over the feature blocks instead of two, and
            # the rows are scored independently, so each row's probabilities are the same
            unit_inputs = self._unit_inputs(doc)
            rows = [(focus, whole, cue_string(focus_cues, whole_cues))] + (unit_inputs[2] if unit_inputs else [])
            matrix = self.model.predict_matrix(rows)
            unit_probs = matrix[1:]
            probs = {k: p for k, p in zip(self.model.keys, matrix[0].tolist()) if k in self.valid}
            decided = probs
            if nothing_to_read(focus_spans(doc), whole_cues):
                # such a text's probabilities are the model's priors: no disclosed cause is read
                # from them, though the card may still say that none is disclosed
                decided = {k: (p if k.endswith(".unknown") else 0.0) for k, p in probs.items()}
            settings = self.model.meta.get("settings", {})
            gate = settings.get("cue_gate")
            unsure = bool(settings.get("unsure_unknown", False))  # models trained before it: abstain
            # models trained before these settings: no limit, cue-gated keys as before
            max_causes = settings.get("max_root_causes")
            cue_needs_fallback = bool(settings.get("cue_needs_fallback", False))
            for group in CATEGORY_GROUPS:
                root = group == "root_cause_categories"
                fallback = self.fallback_threshold if root else None
                for key in decide_categories(decided, group, self.category_threshold, fallback, set(focus_cues), gate,
                                             unsure, max_causes if root else None, cue_needs_fallback and root):
                    if key not in self.valid:
                        continue
                    confidence = probs.get(key, 0.0)
                    if key.endswith(".unknown") and confidence < self.category_threshold:
                        # tagged because no disclosed cause was likely: as sure as the best one was not
                        confidence = 1.0 - max(p for k, p in probs.items() if k.startswith(group + "."))
                    tags[key] = {"value": True, "evidence": evidence, "confidence": round(confidence, 3),
                                 "origin": f"model:{self.model_name}"}
        if self.rule_keys and spans:
            for group in CATEGORY_GROUPS:
                for key, _, _ in self.matchers.region_matches(doc, group, regions):
                    if key in self.rule_keys and key not in tags:
                        tags[key] = {"value": True, "evidence": evidence, "confidence": 0.4, "origin": "taxonomy"}
                        probs.setdefault(key, 0.4)
        for group in CATEGORY_GROUPS:
            unknown = f"{group}.unknown"
            if unknown in tags and any(k.startswith(group + ".") and k != unknown for k in tags):
                # a cause found by a rule (an id the model does not know) is a disclosed cause
                del tags[unknown]
        if self.model is not None:
            self._cite_supporting_units(doc, tags, unit_inputs, unit_probs)
        causes = sorted((k for k in tags if k.startswith("root_cause_categories.")),
                        key=lambda k: (-tags[k]["confidence"], k))
        for key in causes[max_causes or len(causes):]:
            # a rule's cause counts against the model's limit too: the most confident are kept
            del tags[key]
        return probs, tags

    def _unit_inputs(self, doc: Doc) -> tuple[list[tuple[int, int]], list[Counter], list[tuple]] | None:
        """The units a category may cite, each one's cue counts, and the tag model's row for it
        (the unit's text as both texts); None when the document has no units."""
        units = _units(doc)
        if not units:
            return None
        text = doc_text(doc)
        # the document's cue matches once, then each unit's (a scan per unit cost a fifth of the pipeline)
        found = sorted((m for group in CATEGORY_GROUPS if group in self.matchers.groups
                        for m in self.matchers.matches(doc, group)), key=lambda m: (m[1], m[2]))
        starts = [start for _, start, _ in found]
        cues = []
        for s, e in units:
            lo, hi = bisect.bisect_left(starts, s), bisect.bisect_left(starts, e)
            cues.append(Counter(key for key, start, end in found[lo:hi] if end <= e))
        # a unit's white space made one space: the same words and character n-grams (both split
        # on white space), and the same text the unit classifier read, so its hashes are reused
        texts = [" ".join(text[s:e].split()) for s, e in units]
        return units, cues, [(t, t, cue_string(c, c)) for t, c in zip(texts, cues)]

    def _cite_supporting_units(self, doc: Doc, tags: dict[str, dict],
                               inputs: tuple[list[tuple[int, int]], list[Counter], list[tuple]] | None,
                               probs: np.ndarray) -> None:
        """Each category cites the units that support it, and a category no unit supports is
        dropped (issue 35: every tag of a card cited the same few sentences).

        A unit (a sentence the field labeler placed) supports a category when it says one of the
        category's cue phrases, or when the tag model, reading the unit alone, finds that category
        the likeliest of its group there. ``unknown`` (nothing disclosed) cites nothing.

        Args:
            doc: The document.
            tags: The tags so far; changed in place.
            inputs: :meth:`_unit_inputs` of ``doc``.
            probs: The tag model's ``(units, keys)`` probabilities of the units' rows.
        """
        if inputs is None:
            return
        units, cues, _ = inputs
        for key in tags:
            if key.endswith(".unknown"):
                tags[key]["evidence"] = []
        if not any(key.split(".", 1)[0] in CATEGORY_GROUPS and not key.endswith(".unknown") for key in tags):
            return  # nothing to cite
        keys = self.model.keys
        column = {key: j for j, key in enumerate(keys)}
        voted_for: dict[str, list[str | None]] = {}  # per group, the key each unit finds likeliest
        for key in list(tags):
            group = key.split(".", 1)[0]
            if group not in CATEGORY_GROUPS or key.endswith(".unknown"):
                continue
            if group not in voted_for:
                # the group's disclosed causes, in the model's key order: argmax keeps the first
                # of equal probabilities, as max() over them did
                mine = [j for j, k in enumerate(keys) if k.startswith(group + ".") and not k.endswith(".unknown")]
                best = np.argmax(probs[:, mine], axis=1) if mine else np.zeros(len(units), dtype=np.int64)
                voted_for[group] = [keys[mine[b]] for b in best.tolist()] if mine else [None] * len(units)
            own = probs[:, column[key]].tolist() if key in column else [0.0] * len(units)
            support = []
            for unit, found, voted, p in zip(units, cues, voted_for[group], own):
                if found.get(key) or voted == key:
                    support.append((found.get(key, 0), p, unit))
            if not support:
                del tags[key]
                continue
            best_units = sorted(support, key=lambda x: (-x[0], -x[1]))[:UNIT_EVIDENCE]
            tags[key]["evidence"] = sorted(unit for _, _, unit in best_units)

    def __call__(self, doc: Doc) -> Doc:
        tags = self.components(doc)
        probs, category_tags = self.categories(doc)
        tags.update(category_tags)
        doc.cats = {key: round(p, 4) for key, p in sorted(probs.items())}
        doc.user_data["pmparse_tags"] = dict(sorted(tags.items()))
        doc.user_data["pmparse_tag_names"] = self.taxonomy.names()
        doc.user_data["pmparse_tag_phrases"] = self.taxonomy.phrases()
        return doc


def load_model(model_dir: str | None) -> CategoryModel | None:
    """The category model in ``model_dir``, or the bundled one; None when there is none.

    Raises:
        ModelError: ``model_dir`` was given and holds no readable model.
    """
    if model_dir:
        return CategoryModel.load(model_dir)
    if (DEFAULT_MODEL_DIR / MODEL_FILE).is_file():
        return CategoryModel.load(DEFAULT_MODEL_DIR)
    log.warning("no category model at %s; categories come from taxonomy synonyms only", DEFAULT_MODEL_DIR)
    return None


@Language.factory(
    "pmparse_tagger",
    default_config={"taxonomy_path": None, "model_dir": None, "use_model": True, "component_threshold": 1.0,
                    "component_relative": 0.0, "category_threshold": None, "fallback_threshold": None},
    assigns=["doc.cats", "doc.user_data"],
)
def make_tagger(nlp: Language, name: str, taxonomy_path: str | None, model_dir: str | None, use_model: bool,
                component_threshold: float, component_relative: float, category_threshold: float | None,
                fallback_threshold: float | None):
    """Create the tagger.

    Args:
        nlp: The pipeline.
        name: Component name.
        taxonomy_path: A taxonomy file extending or replacing the packaged one.
        model_dir: A category model folder; the bundled one when None.
        use_model: False to tag categories from taxonomy synonyms only.
        component_threshold: Least summed region weight of a component tag.
        component_relative: Least share of the best component's score a component needs.
        category_threshold: Least probability of a category tag; None for the model's own
            (chosen at training), 0.5 without a model.
        fallback_threshold: Least probability of the best root-cause category when none reaches
            ``category_threshold``; None for the model's own.
    """
    taxonomy = load_taxonomy(taxonomy_path)
    model = load_model(model_dir) if use_model else None
    settings = model.meta.get("settings", {}) if model is not None else {}
    if category_threshold is None:
        category_threshold = float(settings.get("threshold", 0.5))
    if fallback_threshold is None:
        fallback_threshold = float(settings.get("fallback", 0.25))
    return Tagger(nlp, taxonomy, model, component_threshold, category_threshold, fallback_threshold,
                  component_relative)


#: Units a category cites at most.
UNIT_EVIDENCE = 3
#: Units of a document read for the categories' evidence at most (in text order).
MAX_EVIDENCE_UNITS = 80


def _units(doc: Doc) -> list[tuple[int, int]]:
    """The units the field labeler placed (any field), in text order, else the summary regions."""
    if "fields" in doc.spans and len(doc.spans["fields"]):
        return sorted((s.start_char, s.end_char) for s in doc.spans["fields"])[:MAX_EVIDENCE_UNITS]
    return summary_regions(doc)
