"""Unit classifier: reads the units themselves, so text without usable headings still gets fields.

A scikit-learn model gives each unit a probability per field plus ``none``. Its input is two
text columns per unit: the unit's words (TF-IDF over word 1-2-grams and character 3-5-grams) and
a context column of pseudo-words: shape (list item, timeline entry, table row, timestamp,
length), position in the document, whether it opens a run of same-kind units, tense and modality ("we
will", past tense, imperative start), ticket references, the field cues of
``resources/cues.yaml`` firing in the unit and in its neighbours, and the neighbours' words.
Heading text was left out while training labels came from headings (a model that saw them
would learn the headings and nothing about the sentences). With annotated labels a model may read
them: one trained with ``heading_context`` (issue 34) also sees the words of the unit's nearest
heading and the role the heading table gives its section (:func:`heading_context`); it is trained
with half of its documents' headings hidden, so heading-less text is not a stranger to it.

The probabilities of a document's units are then decoded over the sequence (forward-backward
with a transition matrix learned from training documents, the classifier's posteriors divided by
the label priors to act as emissions), so fields come in coherent runs instead of single units
flipping between fields. ``sequence_weight`` 0 turns the decoding off.

The model is stored as numeric arrays in ``MODEL_DIR/weights.npz`` (read with
``allow_pickle=False``; see :mod:`pmparse.nlp.linear`); the feature settings, labels, priors,
transitions, the cue table version and the field labeler settings tuned with it are in
``MODEL_DIR/meta.json``. Writes ``doc.spans["units"].attrs["probs"]`` (one dict per unit).
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc

from pmparse.errors import ModelError
from pmparse.nlp.linear import TextClassifier
from pmparse.nlp.model_files import load_arrays, read_json, save_arrays
from pmparse.nlp.lines import doc_text
from pmparse.rules.cues import Cues, load_cues

MODEL_FILE = "weights.npz"
META_FILE = "meta.json"
NONE = "none"

# these four run on the lowercased unit (case-sensitive matching is 2-3x faster in Python's re)
_MODAL = re.compile(r"\b(will|should|need to|needs to|must|plan to|going to|todo|to do|consider)\b")
_DONE = re.compile(r"\b(was|were|had|did|went|became|caused|happened)\b|\b\w{3,}ed\b")
_WE = re.compile(r"\b(we|our|us)\b")
_TIME = re.compile(r"^\W{0,4}(\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2})")
_IMPERATIVE = re.compile(r"^\W{0,4}(add|fix|make|create|update|improve|ensure|document|investigate|implement|remove|set ?up|move|write|review|monitor|alert|automate|upgrade|test|check|use|enable|migrate|define|build)\b")
_TICKET = re.compile(r"\b(T\d{4,}|[A-Z]{2,}-\d+|#\d+|bug \d+)\b")
_WORDS = re.compile(r"[^\W\d_]{2,}")


@dataclass(frozen=True)
class UnitText:
    """What the model reads of one unit.

    Attributes:
        text: The unit's text.
        kind: ``sentence``, ``list_item``, ``table_row`` or ``timeline``.
        start: Character offset of the unit in the document.
    """

    text: str
    kind: str
    start: int


def unit_shape(text: str, kind: str, position: float, first: bool, words: list[str] | None = None) -> list[str]:
    """Shape features of a unit as pseudo-words (``__list``, ``__modal``, ``__pos2`` ...).

    ``words`` are the unit's words (``_WORDS``), when the caller has them already.
    """
    flags = [f"__kind_{kind}", f"__pos{min(4, int(position * 5))}"]
    if first:
        flags.append("__first")
    low = text.lower()
    if _MODAL.search(low):
        flags.append("__modal")
    if _DONE.search(low):
        flags.append("__past")
    if _WE.search(low):
        flags.append("__we")
    if _TIME.match(text):
        flags.append("__time")
    if _IMPERATIVE.match(low):
        flags.append("__imperative")
    if _TICKET.search(text):
        flags.append("__ticket")
    words = len(_WORDS.findall(text) if words is None else words)
    flags.append("__short" if words < 6 else "__long" if words > 30 else "__mid")
    return flags


def rows_for(units: list[UnitText], length: int, cues: Cues | None = None,
             context: list[list[str]] | None = None) -> list[tuple[str, str]]:
    """Model input for a document's units: ``(unit text, context and shape pseudo-text)`` each.

    Args:
        units: The document's units in order.
        length: Length of the document text (for relative positions).
        cues: The cue table; the packaged one when None.
        context: More pseudo-words per unit (:func:`heading_context`), or None.
    """
    cues = cues or load_cues()
    n = max(1, length)
    hits = [cues.hits(u.text) for u in units]
    # each unit is the neighbour of two others: its words are read once. Only the first 31 are
    # kept: the shape flags need to know whether there are over 30, the context the first 12
    # (a huge document's words would otherwise all be held at once)
    all_words = [_WORDS.findall(u.text)[:31] for u in units]
    words_of = [[w.lower() for w in found[:12]] for found in all_words]
    rows = []
    for i, unit in enumerate(units):
        first = i == 0 or units[i - 1].kind != unit.kind
        words = unit_shape(unit.text, unit.kind, unit.start / n, first, all_words[i])
        words += [f"lf_{name}" for name in hits[i]]
        if i:
            words += [f"p_lf_{name}" for name in hits[i - 1]]
        if i + 1 < len(units):
            words += [f"n_lf_{name}" for name in hits[i + 1]]
        previous = " ".join("p_" + w for w in words_of[i - 1]) if i else ""
        following = " ".join("n_" + w for w in words_of[i + 1]) if i + 1 < len(units) else ""
        if context is not None:
            words += context[i]
        row_context = " ".join(words) + " " + previous + " " + following
        rows.append((" ".join(unit.text.split()), row_context))
    return rows


_CLOCK = re.compile(r"\d{1,2}:\d{2}|\d{4}-\d{2}-\d{2}")


def heading_context(doc: Doc) -> list[list[str]]:
    """Per unit of ``doc``, pseudo-words of the heading it stands under: up to six words of its
    nearest heading (``h_root``, ``h_cause``), ``__h_clock`` when that heading holds a time or
    date (timeline entries), and its section's role as the heading table reads it
    (``__sec_root_cause``, ``__sec_none``, ``__sec_unknown``, ``__sec_preamble``). A section the
    heading model mapped counts as unknown here: the model is trained on documents read with the
    table alone, so it sees the same roles at run time."""
    from pmparse.nlp.components.fields import unit_sections
    from pmparse.rules.headings import normalise_heading

    headings = sorted((span.start_char, span.text) for span in doc.spans.get("headings", []))
    starts = [start for start, _ in headings]
    learned = doc.user_data.get("pmparse_learned_sections", [])
    out = []
    for unit, (label, _) in zip(doc.spans.get("units", []), unit_sections(doc)):
        i = bisect.bisect_right(starts, unit.start_char) - 1
        words = []
        if i >= 0:
            text = headings[i][1]
            words = ["h_" + w.lower() for w in _WORDS.findall(normalise_heading(text))[:6]]
            if _CLOCK.search(text):
                words.append("__h_clock")
        if any(a <= unit.start_char < b for a, b in learned):
            label = "unknown"
        out.append(words + [f"__sec_{label}"])
    return out


def doc_units(doc: Doc) -> list[UnitText]:
    """The units of ``doc.spans["units"]`` as :class:`UnitText`."""
    text = doc_text(doc)
    return [UnitText(text[span.start_char:span.end_char], span.label_, span.start_char)
            for span in doc.spans.get("units", [])]


#: Optional row features a unit model may be trained with: ``headings`` (:func:`heading_context`)
#: and ``document`` (:func:`document_context`).
ROW_FEATURES = ("headings", "document")


def unit_rows(doc: Doc, cues: Cues | None = None, features: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """Model input for each unit of ``doc`` (see :func:`rows_for`), with the pseudo-words of the
    optional ``features`` (:data:`ROW_FEATURES`) too."""
    units = doc_units(doc)
    extra = None
    if "headings" in features or "document" in features:
        extra = [[] for _ in units]
        if "headings" in features:
            for words, more in zip(extra, heading_context(doc)):
                words += more
        if "document" in features:
            for words, more in zip(extra, document_context(units, cues)):
                words += more
    return rows_for(units, len(doc_text(doc)), cues, extra)


_CAUSAL = re.compile(r"\b(because|due to|caused by|as a result|led to|leading to|resulted in|result of|"
                     r"root cause|triggered|since the|which meant|so that|therefore)\b")


def document_context(units: list[UnitText], cues: Cues | None = None, window: int = 3) -> list[list[str]]:
    """Per unit, pseudo-words of where it stands in its document beyond its two neighbours: the
    field cues firing within ``window`` units before (``b_lf_x``) and after (``a_lf_x``) it, a
    causal connective in it (``__causal``), and the document's own voice -- whether most of its
    units are past tense (``__doc_past``), written in the first person (``__doc_we``) or list items
    (``__doc_list``) -- so a sentence reads differently in a narrative than in a checklist."""
    cues = cues or load_cues()
    hits = [cues.hits(u.text) for u in units]
    lows = [u.text.lower() for u in units]
    n = max(1, len(units))
    voice = []
    if sum(bool(_DONE.search(t)) for t in lows) / n > 0.5:
        voice.append("__doc_past")
    if sum(bool(_WE.search(t)) for t in lows) / n > 0.3:
        voice.append("__doc_we")
    if sum(u.kind == "list_item" for u in units) / n > 0.5:
        voice.append("__doc_list")
    out = []
    for i, low in enumerate(lows):
        words = set()
        for j in range(max(0, i - window), i - 1):
            words.update(f"b_lf_{name}" for name in hits[j])
        for j in range(i + 2, min(len(units), i + window + 1)):
            words.update(f"a_lf_{name}" for name in hits[j])
        found = sorted(words) + voice
        if _CAUSAL.search(low):
            found.append("__causal")
        out.append(found)
    return out


def smooth(probs: np.ndarray, transitions: np.ndarray, weight: float, priors: np.ndarray | None = None) -> np.ndarray:
    """Posterior label marginals of a unit sequence (forward-backward).

    Args:
        probs: ``(units, labels)`` classifier probabilities.
        transitions: ``(labels, labels)`` row-stochastic transition matrix.
        weight: 0 returns ``probs`` unchanged; 1 uses the transitions as learned.
        priors: Label frequencies of the training data. The classifier gives posteriors; divided
            by the priors (raised to ``weight``) they act as emission likelihoods, so the priors
            the transitions bring back are not counted twice.
    """
    if len(probs) == 0 or weight <= 0:
        return probs
    emissions = np.clip(probs, 1e-6, 1.0)
    if priors is not None:
        # tempered like the transitions, so a small weight changes the probabilities a little
        emissions = emissions / np.clip(priors, 1e-6, None) ** weight
    emissions = emissions / emissions.sum(axis=1, keepdims=True)
    trans = transitions ** weight
    trans = trans / trans.sum(axis=1, keepdims=True)
    n, k = emissions.shape
    alpha = np.zeros((n, k))
    beta = np.ones((n, k))
    alpha[0] = emissions[0] / emissions[0].sum()
    for t in range(1, n):
        a = (alpha[t - 1] @ trans) * emissions[t]
        alpha[t] = a / a.sum()
    for t in range(n - 2, -1, -1):
        b = trans @ (emissions[t + 1] * beta[t + 1])
        beta[t] = b / b.sum()
    post = alpha * beta
    return post / post.sum(axis=1, keepdims=True)


#: Most units, and about most characters, scored at a time: a huge document's units would
#: otherwise hold all their character n-grams at once (about 100 bytes per character).
PREDICT_BATCH = 512
PREDICT_CHARS = 500_000


class UnitModel:
    """A trained unit classifier with its sequence decoding.

    Args:
        estimator: Gives ``(n, labels)`` probabilities for ``n`` rows of :func:`rows_for`
            (training exports its scikit-learn pipeline to this form at once).
        labels: Class labels in the estimator's order.
        transitions: Transition matrix over ``labels``.
        sequence_weight: Weight of the transitions in decoding.
        name: Model name and version for records.
        priors: Label frequencies of the training data (uniform when None).
        cues_version: Version of the cue table the features were computed with.
        labeler: Field labeler settings tuned with this model (``heading_weight``, ``threshold``,
            ``followup_weight``, ``followup_opening``, ``root_cause_floor``).
        features: The optional row features it was trained with (:data:`ROW_FEATURES`).
    """

    def __init__(self, estimator, labels: list[str], transitions: np.ndarray, sequence_weight: float, name: str,
                 priors: np.ndarray | None = None, cues_version: int | None = None,
                 labeler: dict[str, float] | None = None, features: tuple[str, ...] = ()) -> None:
        self.features = tuple(features)
        self.estimator = estimator
        self.labels = labels
        self.transitions = transitions
        self.sequence_weight = sequence_weight
        self.name = name
        self.priors = np.full(len(labels), 1.0 / len(labels)) if priors is None else np.asarray(priors, dtype=float)
        self.cues_version = load_cues().version if cues_version is None else cues_version
        self.labeler = dict(labeler or {})

    def raw_probs(self, doc: Doc) -> np.ndarray:
        """``(units, labels)`` classifier probabilities of ``doc``'s units, before decoding."""
        rows = unit_rows(doc, features=self.features)
        if not rows:
            return np.zeros((0, len(self.labels)))
        # rows are scored independently: batches bound the feature matrices of a huge document
        batches, start, size = [], 0, 0
        for i, (unit, context) in enumerate(rows):
            if i > start and (i - start >= PREDICT_BATCH or size + len(unit) + len(context) > PREDICT_CHARS):
                batches.append((start, i))
                start, size = i, 0
            size += len(unit) + len(context)
        batches.append((start, len(rows)))
        if len(batches) == 1:
            return self.estimator.predict_proba(rows)
        return np.vstack([self.estimator.predict_proba(rows[a:b]) for a, b in batches])

    def decode(self, probs: np.ndarray, sequence_weight: float | None = None) -> list[dict[str, float]]:
        """Sequence-decoded probabilities per label, one dict per unit."""
        weight = self.sequence_weight if sequence_weight is None else sequence_weight
        post = smooth(probs, self.transitions, weight, self.priors)
        return [dict(zip(self.labels, row)) for row in post.tolist()]

    def predict_doc(self, doc: Doc) -> list[dict[str, float]]:
        """Decoded probabilities per label for every unit of ``doc``."""
        return self.decode(self.raw_probs(doc))

    def meta(self) -> dict:
        """What ``meta.json`` holds about the model itself."""
        return {"name": self.name, "labels": self.labels, "priors": self.priors.round(6).tolist(),
                "transitions": self.transitions.round(6).tolist(), "sequence_weight": self.sequence_weight,
                "cues_version": self.cues_version, "labeler": self.labeler, "row_features": list(self.features)}

    def save(self, folder: Path, extra_meta: dict | None = None) -> None:
        """Write ``weights.npz`` and ``meta.json`` into ``folder``.

        Raises:
            ModelError: the estimator is not a :class:`~pmparse.nlp.linear.TextClassifier`.
        """
        if not isinstance(self.estimator, TextClassifier):
            raise ModelError(f"expected an exported TextClassifier to save, found {type(self.estimator).__name__}")
        folder.mkdir(parents=True, exist_ok=True)
        spec, arrays = self.estimator.to_arrays()
        digest = save_arrays(folder / MODEL_FILE, arrays)
        meta = {**self.meta(), "weights": spec, "weights_sha256": digest, **(extra_meta or {})}
        (folder / META_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> UnitModel:
        """Load a model saved by :meth:`save`.

        Raises:
            ModelError: missing, unreadable, inconsistent, or trained with another cue table.
        """
        folder = Path(folder)
        meta = read_json(folder / META_FILE)
        try:
            estimator = TextClassifier.from_arrays(meta["weights"],
                                                  load_arrays(folder / MODEL_FILE, meta.get("weights_sha256")))
            labels = list(meta["labels"])
            transitions = np.array(meta["transitions"], dtype=float)
            priors = np.array(meta["priors"], dtype=float) if "priors" in meta else None
            cues_version = meta.get("cues_version")
            sequence_weight = float(meta["sequence_weight"])
            name = str(meta["name"])
        except ModelError as exc:
            raise ModelError(exc.message, exc.path or str(folder)) from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise ModelError(f"expected a unit classifier, found an unreadable model: {exc!r}", str(folder)) from exc
        if labels != estimator.head.classes or transitions.shape != (len(labels), len(labels)):
            raise ModelError(f"expected weights for labels {labels}, found {estimator.head.classes}", str(folder))
        current = load_cues().version
        if cues_version is not None and cues_version != current:
            raise ModelError(f"expected a model trained with cue table v{current}, found v{cues_version} "
                             "(retrain with 'pmparse train')", str(folder))
        features = tuple(meta.get("row_features", []))
        if any(name not in ROW_FEATURES for name in features):
            raise ModelError(f"expected row features among {ROW_FEATURES}, found {features}", str(folder))
        return cls(estimator, labels, transitions, sequence_weight, name, priors, cues_version, meta.get("labeler"),
                   features)


#: The field labeler settings a model's ``meta.json`` may carry (an older model lacks the last two).
LABELER_KEYS = ("heading_weight", "threshold", "followup_weight", "followup_opening", "root_cause_floor")


def labeler_settings(folder: str | Path | None) -> dict:
    """Field labeler settings tuned with the model in ``folder`` (empty when none are recorded),
    with the confidence calibration fitted with it (``calibration``) when the model has one.

    Raises:
        ModelError: the folder's ``meta.json`` is unreadable, or its settings or knots are not numbers.
    """
    if not folder:
        return {}
    where = Path(folder) / META_FILE
    meta = read_json(where)
    # a library's own model may come from someone else: a setting that is text, or knots that
    # are not numbers, ended in an error of spaCy's or the labeler's naming no file
    try:
        labeler = meta.get("labeler") or {}
        settings: dict = {k: float(v) for k, v in labeler.items() if k in LABELER_KEYS}
        calibration = meta.get("calibration")
        if calibration:
            scores, probabilities = ([float(x) for x in row] for row in calibration) if len(calibration) == 2 else ([], [1])
            if (len(scores) != len(probabilities) or not scores or any(b < a for a, b in zip(scores, scores[1:]))
                    or any(not 0.0 <= p <= 1.0 for p in probabilities)):
                raise ModelError("expected calibration knots [[increasing scores], [probabilities 0-1]] of one "
                                 "length, found another shape", str(where))
            settings["calibration"] = calibration
    except (AttributeError, TypeError, ValueError) as exc:
        raise ModelError(f"expected numeric labeler settings and calibration knots, found {exc}", str(where)) from exc
    return settings


@Language.factory("pmparse_unit_classifier", default_config={"model_dir": None}, assigns=["doc.spans"])
def make_unit_classifier(nlp: Language, name: str, model_dir: str | None):
    """Create the unit classifier component from a model folder."""
    if not model_dir:
        raise ModelError("expected a model folder for pmparse_unit_classifier, found none")
    return UnitClassifier(UnitModel.load(Path(model_dir)))


class UnitClassifier:
    """The spaCy component wrapping a :class:`UnitModel`."""

    def __init__(self, model: UnitModel) -> None:
        self.model = model
        self.model_name = model.name

    def __call__(self, doc: Doc) -> Doc:
        if "units" in doc.spans:
            doc.spans["units"].attrs["probs"] = self.model.predict_doc(doc)
        return doc
