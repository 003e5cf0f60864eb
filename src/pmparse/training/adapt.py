"""A library's own field model: the shipped model adapted to the rows a curator's reviews give.

Retraining on the whole corpus plus the library's rows would need the corpus, which a curator
does not have, and minutes per run. Instead the shipped model is the prior: its softmax weights
``W0`` (which hold what its training data taught) are moved to ``W`` minimising

    0.5 * sum (1 + C * H) * (W - W0)^2 + C * weight * sum_i class_weight_i * loss_i

over the library's rows, where ``H`` is the diagonal curvature of the training data's loss kept
beside the shipped model (:mod:`pmparse.training.curvature`): a weight the corpus holds firmly
moves little, one it never saw moves freely, so the result approximates training again on the
corpus plus the curator's rows, each weighted ``weight`` (Chelba and Acero's adaptation of a
maximum-entropy model, with a Laplace approximation of the old data). Without a curvature file
``H`` is 0: a plain pull towards ``W0``. ``C`` and the class weights are those the shipped model
was trained with (balanced over its label counts); ``weight`` was chosen by
``eval/adaptation.py`` (docs/review.md, "Teach it your publishers"). A field row's loss is the
usual ``-log p(field)``; a rejected suggestion's (``not:FIELD``) is ``-log (1 - p(FIELD))``: it
says what the unit is not, never what it is. Only the weights of features the rows hold can move
(elsewhere the gradient is the regulariser's alone), so the fit runs over those columns only.

The adapted model keeps the shipped features (hashing, idf), labels, transitions and labeler
settings; its confidences are calibrated on the library's own units, cross-fitted by record
(each record's units scored by a model adapted without it), once there are enough of them;
until then it keeps the shipped calibration.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pmparse.card.schema import TEXT_FIELDS
from pmparse.nlp.components.classifier import META_FILE, MODEL_FILE, NONE, UnitModel
from pmparse.nlp.components.fields import label_fields
from pmparse.nlp.linear import Softmax, TextClassifier
from pmparse.nlp.model_files import read_json
from pmparse.nlp.pipeline import MODEL_HEADINGS
from pmparse.training.curvature import load_curvature
from pmparse.training.library_rows import NOT, LibraryDoc, LibraryRows, learned_headings

#: Least number of field rows (units a person put in a field) a library needs to train on.
MIN_FIELD_ROWS = 10

#: How much one of the curator's rows counts against one of the shipped training rows; measured
#: with ``eval/adaptation.py`` (docs/review.md, "Teach it your publishers").
DEFAULT_WEIGHT = 1.0

#: Least number of cross-fitted ``(confidence, right)`` pairs for a library's own calibration. At
#: ten reviewed documents (300 to 600 pairs) the library's own calibration was no better than the
#: shipped one (eval/adaptation.py, "1+own"), so a library keeps the shipped calibration until it
#: has about three times that many; a size the measurement does not reach.
MIN_CALIBRATION_PAIRS = 1000

#: Records' folds of the cross-fitted calibration.
CALIBRATION_FOLDS = 5

#: Inverse regularisation strength the shipped model was trained with (``FieldSettings.c``).
SHIPPED_C = 0.5


@dataclass
class Adapted:
    """An adapted model with what it learnt from."""

    model: UnitModel
    rows: dict[str, int]
    documents: int
    calibration: str
    knots: tuple[list[float], list[float]] | None
    seconds: float = 0.0
    headings: dict[str, str] = field(default_factory=dict)


def _sparse(x):
    """A :class:`~pmparse.nlp.linear.Sparse` as a scipy CSR matrix."""
    from scipy.sparse import csr_matrix

    return csr_matrix((x.data, x.indices, x.indptr), shape=x.shape)


def class_weights(model_dir: Path, labels: list[str]) -> np.ndarray:
    """Balanced class weights of the shipped training data (``n / (k * n_label)``), from its meta;
    all 1 when the meta has no label counts."""
    counts = read_json(Path(model_dir) / META_FILE).get("label_counts") or {}
    n = np.array([float(counts.get(label, 0)) for label in labels])
    if not n.all():
        return np.ones(len(labels))
    return n.sum() / (len(labels) * n)


def fit_head(base: UnitModel, rows: list[tuple[str, str]], labels: list[str], weights: np.ndarray,
             weight: float = DEFAULT_WEIGHT, c: float = SHIPPED_C, max_iter: int = 200,
             precision: tuple[np.ndarray, np.ndarray] | None = None) -> UnitModel:
    """``base`` with its softmax head moved towards ``rows`` (see the module docstring).

    Args:
        base: The model adapted (its features and labels are kept).
        rows: Model input of each row.
        labels: A label of ``base`` per row, or ``not:LABEL``.
        weights: Class weight per label of ``base``.
        weight: How much a row counts against a shipped training row.
        c: The shipped model's inverse regularisation strength.
        max_iter: L-BFGS iterations.
        precision: The training data's curvature ``(per label and feature, per label intercept)``
            (:func:`~pmparse.training.curvature.load_curvature`); None: none.
    """
    from scipy.optimize import minimize

    estimator = base.estimator
    head = estimator.head
    classes = head.classes
    index = {label: i for i, label in enumerate(classes)}
    x = _sparse(estimator.features.transform(rows))
    columns = np.unique(x.indices)
    xs = x[:, columns]
    w0 = head.coef_t[columns].T.astype(np.float64)  # (classes, columns)
    z0 = x @ head.coef_t.astype(np.float64) + head.intercept
    allowed = np.zeros((len(rows), len(classes)))
    scale = np.zeros(len(rows))
    for i, label in enumerate(labels):
        if label.startswith(NOT):
            j = index[label[len(NOT):]]
            allowed[i] = 1.0
            allowed[i, j] = 0.0
        else:
            j = index[label]
            allowed[i, j] = 1.0
        scale[i] = weights[j] * weight * c
    k, m = len(classes), len(columns)
    if precision is None:
        prior = np.ones(k * m + k)
    else:
        prior = 1.0 + c * np.concatenate([precision[0][:, columns].astype(np.float64).ravel(), precision[1]])

    # solved for u = sqrt(prior) * theta: the prior's scales span orders of magnitude, and L-BFGS
    # on the raw weights crawled along the stiff ones (a well-conditioned problem converges in tens
    # of iterations)
    root = np.sqrt(prior)

    def objective(u: np.ndarray) -> tuple[float, np.ndarray]:
        theta = u / root
        dw, db = theta[:k * m].reshape(k, m), theta[k * m:]
        z = z0 + xs @ dw.T + db
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        kept = (p * allowed).sum(axis=1)
        pulled = prior * theta
        loss = float(-(scale * np.log(np.clip(kept, 1e-12, None))).sum()) + 0.5 * float(theta @ pulled)
        # d(-log sum_allowed p)/dz = p - (p restricted to the allowed labels, renormalised)
        g = scale[:, None] * (p - p * allowed / np.clip(kept, 1e-12, None)[:, None])
        grad = np.concatenate([(xs.T @ g).T.ravel(), g.sum(axis=0)]) + pulled
        return loss, grad / root

    found = minimize(objective, np.zeros(k * m + k), jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
    theta = found.x / root
    dw, db = theta[:k * m].reshape(k, m), theta[k * m:]
    coef = head.coef_t.T.astype(np.float32)  # a copy: (classes, features)
    coef[:, columns] = (w0 + dw).astype(np.float32)
    adapted = TextClassifier(estimator.features, Softmax(coef, head.intercept + db, classes))
    return UnitModel(adapted, base.labels, base.transitions, base.sequence_weight, base.name, base.priors,
                     base.cues_version, base.labeler)


def _flatten(docs: list[LibraryDoc]) -> tuple[list[tuple[str, str]], list[str]]:
    return [row for d in docs for row in d.rows], [label for d in docs for label in d.labels]


def held_out_pairs(model: UnitModel, doc: LibraryDoc, labeler: dict) -> list[tuple[float, bool]]:
    """``(score, right)`` of each unit of a library record the labeler gives a field with no
    threshold and no calibration, where the curator said what the unit is (right: the curator's
    field; a rejected field is wrong, another field of a unit only rejected is unknown)."""
    said: dict[int, set[str]] = {}
    for unit, label in zip(doc.units, doc.labels):
        said.setdefault(unit, set()).add(label)
    units = doc.doc.spans["units"]
    units.attrs["probs"] = model.predict_doc(doc.doc)
    label_fields(doc.doc, **{**labeler, "threshold": 0.0})
    starts = {u.start_char: i for i, u in enumerate(units)}
    pairs = []
    for span, score in zip(doc.doc.spans["fields"], doc.doc.spans["fields"].attrs["scores"]):
        labels = said.get(starts.get(span.start_char, -1))
        if not labels:
            continue
        if span.label_ in labels:
            pairs.append((float(score), True))
        elif NOT + span.label_ in labels or any(label in TEXT_FIELDS or label == NONE for label in labels):
            pairs.append((float(score), False))
    return pairs


def calibrate(base: UnitModel, docs: list[LibraryDoc], weights: np.ndarray, weight: float,
              labeler: dict, precision=None, min_pairs: int | None = None) -> tuple[list[float], list[float]] | None:
    """Calibration knots from the library's own units, cross-fitted by record; None when there
    are fewer than ``min_pairs`` (:data:`MIN_CALIBRATION_PAIRS`) pairs or only right or only
    wrong ones."""
    from pmparse.training.field_calibration import fit_calibration

    folds = min(CALIBRATION_FOLDS, len(docs))
    if folds < 2:
        return None
    pairs: list[tuple[float, bool]] = []
    for fold in range(folds):
        train = [d for i, d in enumerate(docs) if i % folds != fold]
        rows, labels = _flatten(train)
        if not any(label in TEXT_FIELDS for label in labels):
            continue
        model = fit_head(base, rows, labels, weights, weight, precision=precision)
        for i, doc in enumerate(docs):
            if i % folds == fold:
                pairs += held_out_pairs(model, doc, labeler)
    right = [p[1] for p in pairs]
    least = MIN_CALIBRATION_PAIRS if min_pairs is None else min_pairs
    if len(pairs) < max(2, least) or all(right) or not any(right):
        return None
    return fit_calibration([p[0] for p in pairs], right)


def adapt(base_dir: Path, found: LibraryRows, weight: float = DEFAULT_WEIGHT, own_calibration: bool = True,
          min_calibration_pairs: int | None = None) -> Adapted:
    """Adapt the model in ``base_dir`` to a library's rows and calibrate it.

    Raises:
        ModelError: the base model cannot be read.
    """
    from pmparse.nlp.components.classifier import labeler_settings

    started = time.perf_counter()
    base = UnitModel.load(Path(base_dir))
    weights = class_weights(Path(base_dir), base.labels)
    settings = labeler_settings(base_dir)
    shipped = settings.pop("calibration", None)
    precision = load_curvature(Path(base_dir))
    rows, labels = _flatten(found.docs)
    model = fit_head(base, rows, labels, weights, weight, precision=precision)
    knots = (calibrate(base, found.docs, weights, weight, settings, precision, min_calibration_pairs)
             if own_calibration else None)
    counts = {"field": found.count("field"), "none": found.count("none"), "negative": found.count("negative")}
    digest = hashlib.sha256(json.dumps([rows, labels, weight]).encode("utf-8")).hexdigest()[:8]
    # the base name stays in front: a rejection made against the shipped model holds for this one
    model.name = f"{base.name}+lib.{digest}"
    return Adapted(model, counts, len(found.docs), "library" if knots else "shipped", knots or shipped,
                   time.perf_counter() - started, headings=learned_headings(found.docs))


def save_adapted(adapted: Adapted, folder: Path, base_dir: Path, weight: float) -> int:
    """Write the adapted model (``weights.npz`` read with ``allow_pickle=False``, ``meta.json``)
    into ``folder``, atomically; returns the size of its weights in bytes."""
    from pmparse.training.fields import TrainResult, save

    meta = read_json(Path(base_dir) / META_FILE)
    extra = {"settings": meta.get("settings"), "seed": meta.get("seed"),
             "training": f"{meta.get('name')} adapted to {adapted.documents} reviewed records of this library "
                         f"(pmparse train --library), each row weighted {weight:g}",
             "base_model": {"name": meta.get("name"), "weights_sha256": meta.get("weights_sha256")},
             "library_rows": adapted.rows, "calibration_source": adapted.calibration}
    if adapted.knots:
        extra["calibration"] = [list(adapted.knots[0]), list(adapted.knots[1])]
    extra["learned_headings"] = adapted.headings
    result = TrainResult(adapted.model, dict(meta.get("label_counts") or {}), adapted.documents, ["library"])
    save(result, Path(folder), extra)
    write_headings(Path(folder) / MODEL_HEADINGS, adapted.headings)
    return (Path(folder) / MODEL_FILE).stat().st_size


def write_headings(path: Path, learned: dict[str, str]) -> None:
    """The packaged heading table plus ``learned`` synonyms, written to ``path`` (removed when
    nothing was learnt, so the packaged table applies)."""
    import yaml
    from importlib import resources

    from pmparse.rules.headings import HeadingRules
    from pmparse.util import atomic_write

    if not learned:
        path.unlink(missing_ok=True)
        return
    data = yaml.safe_load(resources.files("pmparse.resources").joinpath("headings.yaml").read_text(encoding="utf-8"))
    known = {name for names in data["synonyms"].values() for name in names}
    for heading, name in sorted(learned.items()):
        if heading not in known:
            data["synonyms"].setdefault(name, []).append(heading)
    HeadingRules.model_validate(data)  # a learnt heading is in normal form and new: this only guards
    atomic_write(path, "# The packaged heading table plus the headings this library's reviewed cards taught "
                       "(pmparse train --library rewrites it)\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


@dataclass
class LibraryTraining:
    """What ``pmparse train --library`` did.

    Attributes:
        rows: What the library's records teach.
        adapted: The adapted model, or None when there were too few rows (nothing written).
        folder: Where the library's model is (or would be) kept.
        size: Bytes of its weights file, when written.
    """

    rows: LibraryRows
    adapted: Adapted | None
    folder: Path
    size: int = 0


def train_library(library_dir: str | Path, weight: float = DEFAULT_WEIGHT, base_dir: Path | None = None,
                  own_calibration: bool = True, min_calibration_pairs: int | None = None) -> LibraryTraining:
    """``pmparse train --library``: adapt the shipped field model (or ``base_dir``'s) to the records
    a person reviewed in a library and keep it in ``LIBRARY/.pmparse/model``, which ``convert``
    into that library then uses. With fewer than :data:`MIN_FIELD_ROWS` field rows nothing is
    written (the model convert uses stays as it was). ``min_calibration_pairs``: see :func:`calibrate`.

    Raises:
        UsageError: not a library folder, another pmparse process writing it, a record or state
            file holding git's conflict markers (the record would be left out, the model lacking
            its decisions) or an id held by two record files (the library reads one of them: the
            model would learn from one curator's record and leave the other's out without a word).
        ModelError: the base model cannot be read.
    """
    from pmparse.library.lock import write_lock
    from pmparse.library.folder import library_root
    from pmparse.library.shared import refuse_ids_held_twice, refuse_unfinished_merge
    from pmparse.library.store import Library
    from pmparse.nlp.pipeline import DEFAULT_MODEL_DIR
    from pmparse.paths import inside, local_model_dir
    from pmparse.training.library_rows import library_rows

    root = library_root(library_dir)
    refuse_ids_held_twice(root)  # first: found without a scan, which refreshes the scan cache
    library = Library.open(root)  # every record read once, for the check and the rows
    # a record with markers as convert and review refuse it: left out, the model lacked its decisions
    refuse_unfinished_merge(library)
    base_dir = Path(base_dir or DEFAULT_MODEL_DIR)
    found = library_rows(library)
    # a library from someone else may hold .pmparse/model -> elsewhere: the model's files are
    # replaced (and a headings table removed) in that folder, so no part of it may be a link
    folder = inside(root, local_model_dir(root).relative_to(root).as_posix())
    if found.count("field") < MIN_FIELD_ROWS:
        return LibraryTraining(found, None, folder)
    adapted = adapt(base_dir, found, weight, own_calibration, min_calibration_pairs)
    with write_lock(root):  # not while a convert reads the model it replaces
        inside(root, folder.relative_to(root).as_posix())  # checked again just before the write
        size = save_adapted(adapted, folder, base_dir, weight)
    return LibraryTraining(found, adapted, folder, size)
