"""Other ways for a library to teach the field model, measured beside the adaptation of
`pmparse train --library` by ``eval/adaptation.py --designs`` (docs/review.md, "Teach it your
publishers"), and the measurements of what limits them (``--limits``).

Each design re-weighs the fold model's unit probabilities of the scored documents with what the
library's reviewed units say; the field labeler then runs as shipped (headings, sequence
decoding, calibration, threshold). They are computed in this process, not written as a library
model: none gained enough to be wired into ``train --library`` (docs/review.md).

* ``memory``: an exemplar memory. The library's reviewed units (their field or ``none``; a
  rejected suggestion as a negative of its field) as the unit model's own hashed tf-idf vectors;
  a new unit's five nearest reviewed units by cosine over its own words (word and character
  n-gram blocks) give a field distribution ``q`` (neighbours weighted by similarity squared),
  blended as ``(1 - s^2) p + s^2 q`` where ``s`` is the best similarity; a rejected unit as
  similar as ``s`` multiplies its field's probability by ``1 - s``.
* ``memory+adapted``: the same memory over the adapted model's probabilities.
* ``stack``: a library-local second stage: ``softmax(log p + F W)``, ``W`` a logistic regression
  fitted on the reviewed units alone (L2 30, classes balanced) over the memory's distribution
  (cross-fitted: each record's units see the other records only), its best similarity and
  rejections, the unit's position in the document (fifths) and the words of its nearest heading
  (those in two reviewed records or more).
* ``priors``: per-publisher field priors: a log-offset per label (a grid from -2 to 2, coordinate
  ascent) chosen to maximise the reviewed units' macro F1 through the labeler, shrunk by
  ``n / (n + 3)`` for ``n`` reviewed records.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from pmparse.card.schema import TEXT_FIELDS
from pmparse.nlp.components.classifier import UnitModel, heading_context, unit_rows
from pmparse.nlp.components.fields import label_fields
from pmparse.training.library_rows import NOT, LibraryDoc, LibraryRows, unit_targets

DESIGNS = ("memory", "memory+adapted", "stack", "priors")

#: Nearest reviewed units a memory reads, and the power of their similarity as their weight.
NEIGHBOURS = 5
POWER = 2.0
#: L2 penalty of the stacked second stage, classes balanced: chosen on chia and berkeley-datahub
#: among 0.3, 1, 10, 30 and 100 (below 30 the stage lost 0.03 to 0.07 at some k on each; 30 with
#: balanced classes was the one within 0.02 of the fold model at every k on both).
STACK_L2 = 30.0
#: Log-offsets the field priors are chosen from, and the records their shrinkage counts as.
PRIOR_GRID = (-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0)
PRIOR_SHRINK = 3.0


def _csr(x):
    from scipy.sparse import csr_matrix

    return csr_matrix((x.data, x.indices, x.indptr), shape=x.shape)


def text_columns(model: UnitModel) -> np.ndarray:
    """Indices of the feature columns read from a unit's own text (not its context column)."""
    out, offset = [], 0
    for column, block in model.estimator.features.blocks:
        width = block.n_features if hasattr(block, "n_features") else len(block.vocabulary)
        if column == 0:
            out.append(np.arange(offset, offset + width))
        offset += width
    return np.concatenate(out)


@dataclass
class Units:
    """The units of some documents as one model reads them, with what a person said of them.

    Attributes:
        rows: Model input per row (a unit with two fields is two rows).
        doc: Index of each row's document.
        unit: Index of each row's unit in its document.
        position: The unit's relative position in its document (0 to 1).
        heads: Pseudo-words of the unit's nearest heading (:func:`heading_context`).
        label: Label index per row, -1 for a rejection or an unlabelled unit.
        rejected: Label index a row was rejected as, else -1.
        x: Feature rows (scipy CSR), restricted to the unit's text columns and l2-normalised.
        raw: The model's probabilities per row, before decoding.
    """

    rows: list = field(default_factory=list)
    doc: np.ndarray = None
    unit: np.ndarray = None
    position: np.ndarray = None
    heads: list = field(default_factory=list)
    label: np.ndarray = None
    rejected: np.ndarray = None
    x: object = None
    raw: np.ndarray = None

    @classmethod
    def read(cls, model: UnitModel, docs: list, labels: list[list[tuple[int, str]]] | None = None) -> "Units":
        """The units of ``docs`` (spaCy Docs with units and sections).

        Args:
            model: The unit model whose features and probabilities are read.
            docs: The documents.
            labels: Per document, ``(unit, label)`` pairs (a field, ``none`` or ``not:FIELD``);
                None: every unit once, unlabelled.
        """
        index = {name: i for i, name in enumerate(model.labels)}
        found = cls()
        doc_of, unit_of, position, label, rejected = [], [], [], [], []
        for d, doc in enumerate(docs):
            rows = unit_rows(doc, features=model.features)
            heads = heading_context(doc)
            pairs = labels[d] if labels is not None else [(u, "") for u in range(len(rows))]
            for u, name in pairs:
                found.rows.append(rows[u])
                found.heads.append(heads[u])
                doc_of.append(d)
                unit_of.append(u)
                position.append(u / max(1, len(rows)))
                label.append(index[name] if name in index else -1)
                rejected.append(index[name[len(NOT):]] if name.startswith(NOT) else -1)
        found.doc, found.unit = np.array(doc_of, dtype=int), np.array(unit_of, dtype=int)
        found.position = np.array(position)
        found.label, found.rejected = np.array(label, dtype=int), np.array(rejected, dtype=int)
        if found.rows:
            x = _csr(model.estimator.features.transform(found.rows))[:, text_columns(model)]
            norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
            found.x = _csr_scale(x, 1.0 / np.clip(norms, 1e-12, None))
            found.raw = model.estimator.predict_proba(found.rows)
        else:
            found.raw = np.zeros((0, len(model.labels)))
        return found

    @classmethod
    def from_library(cls, model: UnitModel, library: LibraryRows) -> "Units":
        """The reviewed units of a library, labelled as ``train --library`` reads them."""
        return cls.read(model, [d.doc for d in library.docs],
                        [list(zip(d.units, d.labels)) for d in library.docs])


def _csr_scale(x, scale: np.ndarray):
    from scipy.sparse import diags

    return (diags(scale) @ x).tocsr()


def neighbours(sim: np.ndarray, memory: Units, labels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What a unit's nearest reviewed units say: ``(q, best, against)``.

    Args:
        sim: ``(units, reviewed units)`` cosine similarities (-1 where a pair must not count).
        memory: The reviewed units.
        labels: Number of labels.

    Returns:
        ``q`` the field distribution of the :data:`NEIGHBOURS` nearest labelled reviewed units
        (weighted by similarity to the power :data:`POWER`), ``best`` their best similarity, and
        ``against`` per label the similarity of the nearest unit rejected as that label.
    """
    n = sim.shape[0]
    q, best, against = np.zeros((n, labels)), np.zeros(n), np.zeros((n, labels))
    if n == 0:
        return q, best, against
    labelled = memory.label >= 0
    if labelled.any():
        s = np.where(labelled[None, :], sim, -1.0)
        k = min(NEIGHBOURS, int(labelled.sum()))
        top = np.argpartition(-s, k - 1, axis=1)[:, :k]
        near = np.take_along_axis(s, top, axis=1).clip(0, None)
        weight = near ** POWER + 1e-12
        for j in range(k):
            q[np.arange(n), memory.label[top[:, j]]] += weight[:, j]
        q /= q.sum(axis=1, keepdims=True)
        best = near.max(axis=1)
    for c in range(labels):
        cols = memory.rejected == c
        if cols.any():
            against[:, c] = sim[:, cols].clip(0, None).max(axis=1)
    return q, best, against


def memory_probs(raw: np.ndarray, units: Units, memory: Units) -> np.ndarray:
    """``raw`` blended with the exemplar memory (module docstring, ``memory``)."""
    if not len(raw) or memory.x is None:
        return raw
    q, best, against = neighbours((units.x @ memory.x.T).toarray(), memory, raw.shape[1])
    share = (best ** 2)[:, None]
    p = ((1 - share) * raw + share * q) * (1 - against).clip(0.05, 1)
    return p / p.sum(axis=1, keepdims=True)


def _stack_features(units: Units, q, best, against, vocabulary: dict[str, int]) -> np.ndarray:
    n = len(units.rows)
    fifths = np.zeros((n, 5))
    fifths[np.arange(n), np.minimum((units.position * 5).astype(int), 4)] = 1
    heads = np.zeros((n, len(vocabulary)))
    for i, words in enumerate(units.heads):
        for w in words:
            if w in vocabulary:
                heads[i, vocabulary[w]] = 1
    return np.hstack([q * best[:, None], best[:, None], against, fifths, heads, np.ones((n, 1))])


def _fit_offsets(features: np.ndarray, base: np.ndarray, memory: Units, l2: float, scale: np.ndarray) -> np.ndarray:
    """``W`` minimising the weighted log-loss of ``softmax(base + features W)`` on the reviewed
    units (a rejection's loss is ``-log (1 - p(label))``) plus ``l2 / 2 |W|^2``."""
    from scipy.optimize import minimize

    n, d = features.shape
    k = base.shape[1]
    allowed = np.zeros((n, k))
    labelled = memory.label >= 0
    allowed[labelled, memory.label[labelled]] = 1
    allowed[~labelled] = 1
    allowed[~labelled, memory.rejected[~labelled]] = 0

    def objective(w):
        z = base + features @ w.reshape(d, k)
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        kept = (p * allowed).sum(axis=1).clip(1e-12)
        g = scale[:, None] * (p - p * allowed / kept[:, None])
        return -(scale * np.log(kept)).sum() + 0.5 * l2 * (w @ w), (features.T @ g).ravel() + l2 * w

    return minimize(objective, np.zeros(d * k), jac=True, method="L-BFGS-B", options={"maxiter": 300}).x.reshape(d, k)


def stack_probs(raw: np.ndarray, units: Units, memory: Units) -> np.ndarray:
    """``raw`` re-weighed by a second stage fitted on the reviewed units (module docstring, ``stack``)."""
    k = raw.shape[1]
    if memory.x is None or not len(raw):
        return raw
    # the reviewed units' memory features come from the other records only, as a new document's do
    sim = (memory.x @ memory.x.T).toarray()
    sim[memory.doc[:, None] == memory.doc[None, :]] = -1.0
    seen: dict[str, set[int]] = {}
    for d, words in zip(memory.doc, memory.heads):
        for w in words:
            seen.setdefault(w, set()).add(int(d))
    vocabulary = {w: i for i, w in enumerate(sorted(w for w, docs in seen.items() if len(docs) >= 2))}
    features = _stack_features(memory, *neighbours(sim, memory, k), vocabulary)
    said = np.where(memory.label >= 0, memory.label, memory.rejected)
    counts = np.bincount(said, minlength=k).astype(float) + 1
    weights = counts.sum() / (k * counts)
    w = _fit_offsets(features, np.log(memory.raw.clip(1e-9)), memory, STACK_L2, weights[said])
    test = _stack_features(units, *neighbours((units.x @ memory.x.T).toarray(), memory, k), vocabulary)
    z = np.log(raw.clip(1e-9)) + test @ w
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def unit_f1(model: UnitModel, library: LibraryRows, settings: dict, offsets: np.ndarray,
            raws: list[np.ndarray]) -> float:
    """Macro F1 over the eight fields of the labeler's fields on a library's reviewed units
    (characters of units, as the curator labelled them), the model's probabilities shifted by
    ``offsets`` in log space."""
    counts = {name: [0, 0, 0] for name in TEXT_FIELDS}
    for doc, raw in zip(library.docs, raws):
        p = raw * np.exp(offsets)
        doc.doc.spans["units"].attrs["probs"] = model.decode(p / p.sum(axis=1, keepdims=True))
        label_fields(doc.doc, **settings)
        chosen = {span.start_char: span.label_ for span in doc.doc.spans["fields"]}
        said: dict[int, set[str]] = {}
        for unit, label in zip(doc.units, doc.labels):
            said.setdefault(unit, set()).add(label)
        for i, unit in enumerate(doc.doc.spans["units"]):
            labels = said.get(i)
            if labels is None:
                continue
            picked, size = chosen.get(unit.start_char), unit.end_char - unit.start_char
            known = any(not label.startswith(NOT) for label in labels)
            for name in TEXT_FIELDS:
                if name in labels and picked == name:
                    counts[name][0] += size
                elif picked == name and (known or NOT + name in labels):
                    counts[name][1] += size
                elif name in labels:
                    counts[name][2] += size
    return float(np.mean([2 * tp / (2 * tp + fp + fn) if tp else 0.0 for tp, fp, fn in counts.values()]))


def prior_offsets(model: UnitModel, library: LibraryRows, settings: dict) -> np.ndarray:
    """Per-label log-offsets chosen on the library's reviewed units (module docstring, ``priors``)."""
    raws = [model.raw_probs(d.doc) for d in library.docs]
    offsets = np.zeros(len(model.labels))
    best = unit_f1(model, library, settings, offsets, raws)
    for _ in range(2):
        moved = False
        for c, name in enumerate(model.labels):
            if name not in TEXT_FIELDS:
                continue
            for value in PRIOR_GRID:
                trial = offsets.copy()
                trial[c] = value
                if value != offsets[c] and (f1 := unit_f1(model, library, settings, trial, raws)) > best + 1e-4:
                    best, offsets, moved = f1, trial, True
        if not moved:
            break
    return offsets * len(library.docs) / (len(library.docs) + PRIOR_SHRINK)


def gold_library(analysed: list) -> LibraryRows:
    """Documents' gold as a library reviewed as a whole: ``analysed`` holds ``(gold doc, Doc,
    (scored text, gold spans))``; used to measure ceilings (``--limits``)."""
    found = LibraryRows()
    for g, doc, (_, spans) in analysed:
        units = list(doc.spans["units"])
        rows = unit_rows(doc)
        example = LibraryDoc(g.id, doc, whole=True)
        for i, labels in enumerate(unit_targets([(u.start_char, u.end_char) for u in units], spans, {}, True)):
            for label in labels:
                example.rows.append(rows[i])
                example.labels.append(label)
                example.units.append(i)
        found.docs.append(example)
    return found


def reuse(model: UnitModel, adapted: UnitModel, analysed: list, library: LibraryRows, settings: dict) -> dict:
    """How much of a source's later documents its reviewed documents cover, unit by unit.

    Returns:
        ``near_0.3`` / ``near_0.5``: share of the scored units with a reviewed unit at least that
        similar (cosine over the units' own words); on those at 0.5 or more, ``neighbour_right``
        (the nearest reviewed unit's field is the unit's gold) and ``adapted_right`` (the field
        the labeler gives it with the adapted model); ``heading_covered``: share of the scored
        units under a heading whose reviewed units (3 or more) agree on one field at 70 % or
        more, with ``heading_right`` (that field is right) and ``heading_adapted_right``.
    """
    gold = Units.from_library(model, gold_library(analysed))
    memory = Units.from_library(model, library)
    final = {}
    for d, (_, doc, _) in enumerate(analysed):
        doc.spans["units"].attrs["probs"] = adapted.predict_doc(doc)
        label_fields(doc, **settings)
        chosen = {span.start_char: span.label_ for span in doc.spans["fields"]}
        for i, unit in enumerate(doc.spans["units"]):
            final[(d, i)] = model.labels.index(chosen.get(unit.start_char, "none"))
    labelled = gold.label >= 0
    sim = np.where((memory.label >= 0)[None, :], (gold.x @ memory.x.T).toarray(), -1.0)
    best, nearest = sim.max(axis=1), memory.label[sim.argmax(axis=1)]
    adapted_label = np.array([final[(d, u)] for d, u in zip(gold.doc, gold.unit)])
    near = labelled & (best >= 0.5)
    votes: dict[str, Counter] = {}
    for words, label in zip(memory.heads, memory.label):
        key = " ".join(w for w in words if w.startswith("h_"))
        if key and label >= 0:
            votes.setdefault(key, Counter())[label] += 1
    voted = np.full(len(gold.rows), -1)
    for i, words in enumerate(gold.heads):
        counter = votes.get(" ".join(w for w in words if w.startswith("h_")))
        if counter and sum(counter.values()) >= 3:
            label, n = counter.most_common(1)[0]
            if n >= 0.7 * sum(counter.values()):
                voted[i] = label
    headed = labelled & (voted >= 0)
    share = lambda mask: float(mask.sum() / max(1, labelled.sum()))  # noqa: E731
    right = lambda a, mask: float((a[mask] == gold.label[mask]).mean()) if mask.any() else None  # noqa: E731
    return {"units": int(labelled.sum()), "near_0.3": share(labelled & (best >= 0.3)), "near_0.5": share(near),
            "neighbour_right": right(nearest, near), "adapted_right": right(adapted_label, near),
            "heading_covered": share(headed), "heading_right": right(voted, headed),
            "heading_adapted_right": right(adapted_label, headed)}
