"""The heading model: what a heading the table does not know says its section is, with a confidence.

The heading table (``resources/headings.yaml``) knows the headings of templates; free-form
reports write their own ("How we fixed it", "Why did this happen?", "Next steps"), and half the
annotated words of free-form reports sit under such headings (issue 34). The author is telling the
reader what the section is: this model reads it. It is a softmax over hashed word 1-2-grams and
character 2-5-grams of the normalised heading (:func:`~pmparse.rules.headings.normalise_heading`),
fitted by :mod:`pmparse.training.heading_model` on the headings of annotated training documents
and the fields annotated under them (gold documents never). The table stays the rule and wins
where it knows a heading; the model is asked only about the others, and answers only when its
likeliest label is a field at ``min_confidence`` or more.

Stored beside the field model as ``headings.npz`` (numeric arrays, read with
``allow_pickle=False``) and ``headings.json`` (feature settings, classes, threshold, sha256 of
the arrays).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

from pmparse.card.schema import TEXT_FIELDS
from pmparse.errors import ModelError
from pmparse.nlp.linear import TextClassifier
from pmparse.nlp.model_files import load_arrays, read_json, save_arrays
from pmparse.rules.headings import normalise_heading

WEIGHTS_FILE = "headings.npz"
META_FILE = "headings.json"


class HeadingModel:
    """A heading classifier over the eight fields and ``none``.

    Args:
        classifier: Probabilities per class for rows of one column, the normalised heading.
        min_confidence: Least probability of the likeliest field for :meth:`field` to answer.
        about: What it was trained on (kept in ``headings.json``).

    ``field(heading)`` is :meth:`_field` with a cache of the last 4,096 headings asked.
    """

    def __init__(self, classifier: TextClassifier, min_confidence: float = 0.5, about: dict | None = None) -> None:
        self.classifier = classifier
        self.min_confidence = float(min_confidence)
        self.about = dict(about or {})
        # templates and logs repeat their headings; the cache is the instance's own (a cache on the
        # method would keep every model it ever answered for alive, one per training fold)
        self.field = functools.lru_cache(maxsize=4096)(self._field)

    @property
    def classes(self) -> list[str]:
        return list(self.classifier.head.classes)

    def probabilities(self, headings: list[str]) -> np.ndarray:
        """``(headings, classes)`` probabilities of headings as written."""
        return self.classifier.predict_proba([(normalise_heading(h),) for h in headings])

    def _field(self, heading: str) -> tuple[str, float] | None:
        """The field a heading names and the model's probability, or None when its likeliest label
        is ``none``, it is below ``min_confidence``, or the heading has no words."""
        if not normalise_heading(heading):
            return None
        probs = self.probabilities([heading])[0]
        best = int(np.argmax(probs))
        label = self.classes[best]
        if label not in TEXT_FIELDS or probs[best] < self.min_confidence:
            return None
        return label, float(probs[best])

    def save(self, folder: Path) -> None:
        """Write ``headings.npz`` and ``headings.json`` into ``folder``."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        spec, arrays = self.classifier.to_arrays()
        digest = save_arrays(folder / WEIGHTS_FILE, arrays)
        meta = {"weights": spec, "weights_sha256": digest, "min_confidence": self.min_confidence, **self.about}
        (folder / META_FILE).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, folder: Path, min_confidence: float | None = None) -> HeadingModel:
        """Load a model saved by :meth:`save` (``min_confidence`` replaces the saved one when given).

        Raises:
            ModelError: missing, unreadable or inconsistent files.
        """
        folder = Path(folder)
        meta = read_json(folder / META_FILE)
        try:
            classifier = TextClassifier.from_arrays(meta["weights"],
                                                    load_arrays(folder / WEIGHTS_FILE, meta.get("weights_sha256")))
            threshold = float(meta["min_confidence"] if min_confidence is None else min_confidence)
        except ModelError as exc:
            raise ModelError(exc.message, exc.path or str(folder)) from exc
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"expected a heading model, found an unreadable one: {exc!r}", str(folder)) from exc
        unknown = [c for c in classifier.head.classes if c not in TEXT_FIELDS and c != "none"]
        if unknown:
            raise ModelError(f"expected heading classes among the fields and none, found {unknown}", str(folder))
        about = {k: v for k, v in meta.items() if k not in ("weights", "weights_sha256", "min_confidence")}
        return cls(classifier, threshold, about)


def has_heading_model(folder: str | Path | None) -> bool:
    """Whether ``folder`` (a field model folder) holds a heading model."""
    return bool(folder) and (Path(folder) / META_FILE).is_file() and (Path(folder) / WEIGHTS_FILE).is_file()
