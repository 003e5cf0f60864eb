"""Unit classifier: reads the units themselves, so text without usable headings still gets fields.

A scikit-learn model (TF-IDF over the unit's words and characters, over its neighbours and over
shape features such as list item, timestamp, modality and position, into a multinomial logistic
regression) gives each unit a probability per field plus ``none``. The probabilities of a
document's units are then smoothed over the sequence with a transition matrix learned from
training documents (forward-backward), so fields come in coherent runs instead of single units
flipping between fields.

The model is stored with skops (never pickle) in ``MODEL_DIR/model.skops`` with its labels and
transitions in ``MODEL_DIR/meta.json``. Writes ``doc.spans["units"].attrs["probs"]``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc

from ..errors import ModelError

MODEL_FILE = "model.skops"
META_FILE = "meta.json"
NONE = "none"

_MODAL = re.compile(r"\b(will|should|need to|needs to|must|plan to|going to|todo|to do|consider)\b", re.IGNORECASE)
_DONE = re.compile(r"\b(was|were|had|did|went|became|caused|happened)\b|\b\w{3,}ed\b", re.IGNORECASE)
_WE = re.compile(r"\b(we|our|us)\b", re.IGNORECASE)
_TIME = re.compile(r"^\W{0,4}(\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2})")
_IMPERATIVE = re.compile(r"^\W{0,4}(add|fix|make|create|update|improve|ensure|document|investigate|implement|remove|set ?up|move|write|review|monitor|alert|automate|upgrade|test|check|use|enable|migrate|define|build)\b", re.IGNORECASE)
_TICKET = re.compile(r"\b(T\d{4,}|[A-Z]{2,}-\d+|#\d+|bug \d+)\b")
_WORDS = re.compile(r"[^\W\d_]{2,}")


def unit_shape(text: str, kind: str, position: float, first: bool) -> list[str]:
    """Shape features of a unit as pseudo-words (``__list``, ``__modal``, ``__pos2`` ...)."""
    flags = [f"__kind_{kind}", f"__pos{min(4, int(position * 5))}"]
    if first:
        flags.append("__first")
    if _MODAL.search(text):
        flags.append("__modal")
    if _DONE.search(text):
        flags.append("__past")
    if _WE.search(text):
        flags.append("__we")
    if _TIME.match(text):
        flags.append("__time")
    if _IMPERATIVE.match(text):
        flags.append("__imperative")
    if _TICKET.search(text):
        flags.append("__ticket")
    words = len(_WORDS.findall(text))
    flags.append("__short" if words < 6 else "__long" if words > 30 else "__mid")
    return flags


def _neighbour(text: str, prefix: str, limit: int = 12) -> str:
    return " ".join(f"{prefix}{w.lower()}" for w in _WORDS.findall(text)[:limit])


def unit_rows(doc: Doc) -> list[tuple[str, str]]:
    """Model input for each unit of ``doc``: ``(unit text, context and shape pseudo-text)``.

    Deliberately leaves out heading text: training labels come from headings, so a model that saw
    them would learn the headings and nothing about the sentences.
    """
    units = list(doc.spans.get("units", []))
    n = max(1, len(doc.text))
    rows = []
    for i, unit in enumerate(units):
        text = unit.text
        previous = units[i - 1].text if i else ""
        following = units[i + 1].text if i + 1 < len(units) else ""
        first = i == 0 or units[i - 1].label_ != unit.label_
        context = " ".join(unit_shape(text, unit.label_, unit.start_char / n, first))
        context += " " + _neighbour(previous, "p_") + " " + _neighbour(following, "n_")
        rows.append((" ".join(text.split()), context))
    return rows


def smooth(probs: np.ndarray, transitions: np.ndarray, weight: float) -> np.ndarray:
    """Posterior label marginals of a unit sequence (forward-backward).

    Args:
        probs: ``(units, labels)`` classifier probabilities (emissions).
        transitions: ``(labels, labels)`` row-stochastic transition matrix.
        weight: 0 ignores the sequence, 1 uses the transitions as learned.
    """
    if len(probs) == 0 or weight <= 0:
        return probs
    trans = transitions ** weight
    trans = trans / trans.sum(axis=1, keepdims=True)
    n, k = probs.shape
    alpha = np.zeros((n, k))
    beta = np.ones((n, k))
    alpha[0] = probs[0] / probs[0].sum()
    for t in range(1, n):
        a = (alpha[t - 1] @ trans) * probs[t]
        alpha[t] = a / a.sum()
    for t in range(n - 2, -1, -1):
        b = trans @ (probs[t + 1] * beta[t + 1])
        beta[t] = b / b.sum()
    post = alpha * beta
    return post / post.sum(axis=1, keepdims=True)


class UnitModel:
    """A trained unit classifier with its sequence smoothing.

    Args:
        estimator: A fitted scikit-learn pipeline taking an ``(n, 2)`` array of strings.
        labels: Class labels in the estimator's order.
        transitions: Transition matrix over ``labels``.
        sequence_weight: Weight of the transitions in smoothing.
        name: Model name and version for records.
    """

    def __init__(self, estimator, labels: list[str], transitions: np.ndarray, sequence_weight: float, name: str) -> None:
        self.estimator = estimator
        self.labels = labels
        self.transitions = transitions
        self.sequence_weight = sequence_weight
        self.name = name

    def predict_doc(self, doc: Doc) -> list[dict[str, float]]:
        """Smoothed probabilities per label for every unit of ``doc``."""
        rows = unit_rows(doc)
        if not rows:
            return []
        probs = self.estimator.predict_proba(np.array(rows, dtype=object))
        probs = smooth(np.clip(probs, 1e-6, 1.0), self.transitions, self.sequence_weight)
        return [{label: float(p[j]) for j, label in enumerate(self.labels)} for p in probs]

    def save(self, folder: Path, extra_meta: dict | None = None) -> None:
        """Write ``model.skops`` and ``meta.json`` into ``folder``."""
        import zipfile

        import skops.io as sio

        folder.mkdir(parents=True, exist_ok=True)
        sio.dump(self.estimator, folder / MODEL_FILE, compression=zipfile.ZIP_DEFLATED, compresslevel=9)
        meta = {"name": self.name, "labels": self.labels, "transitions": self.transitions.round(6).tolist(),
                "sequence_weight": self.sequence_weight, **(extra_meta or {})}
        (folder / META_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, folder: Path) -> UnitModel:
        """Load a model saved by :meth:`save`, trusting only the types it was trained with.

        Raises:
            ModelError: missing, unreadable or holding unexpected types.
        """
        import skops.io as sio

        folder = Path(folder)
        try:
            meta = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
            path = folder / MODEL_FILE
            untrusted = sio.get_untrusted_types(file=path)
            allowed = set(meta.get("trusted_types", []))
            unexpected = [t for t in untrusted if t not in allowed]
            if unexpected:
                raise ModelError(f"expected only known scikit-learn types, found {unexpected}", str(path))
            estimator = sio.load(path, trusted=untrusted)
        except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
            raise ModelError(f"expected a unit classifier, found an unreadable model: {exc}", str(folder)) from exc
        return cls(estimator, meta["labels"], np.array(meta["transitions"]), float(meta["sequence_weight"]), meta["name"])


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
