"""Train the unit classifier from the corpus's own headings (weak supervision).

Mapping from the corpus to training examples:

* a unit under a heading the synonym table maps to a field is an example of that field;
* a unit under a heading that holds no incident content (Stats, Attendees, Thanks, Links,
  Status, Category, Logs, References ...) is an example of ``none``;
* units under Summary, Timeline, Context, Background, in the preamble or under headings the table
  does not know are **unlabelled**, not negatives: they hold every field;
* no heading in the corpus says "Trigger", so a labelling function marks as ``trigger`` the units
  of Summary / Root cause / Background sections that say a change set things off (a deploy,
  upgrade, migration or config change near "after", "when" or "following");
* documents of the gold eval set never enter the training data.

Noise handling: class weights balance the skewed label counts (Wikimedia's conclusions and
actionables dominate), units shorter than two words are dropped by the unit splitter, and
duplicate unit texts are kept once per label.
"""

from __future__ import annotations

import json
import random
import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .components.classifier import NONE, UnitModel, unit_rows
from .components.fields import unit_sections
from .corpus import incident_files, load_manifest
from .ingest import ingest
from .pipeline import PipelineConfig, analyse, build
from .schema import TEXT_FIELDS

MODEL_NAME = "pmparse-units"
MODEL_VERSION = 1

_NONE_HEADINGS = re.compile(
    r"^(stats|statistics|attendees|participants|thanks|acknowledgements|links|links to relevant documentation|"
    r"references|status|document status|category|logs|metadata|notes to the owner|glossary|appendix|authors?|owner)\b"
)
_TRIGGER = re.compile(
    r"\b(after|when|following|once)\b[^.]{0,80}\b(deploy\w*|upgrad\w*|migrat\w*|roll(ed)? ?out|releas\w*|merg\w*|"
    r"config\w* change|change[sd]?|renam\w*|switch\w*|restart\w*|expir\w*)\b|"
    r"\b(was|were|got|been) (deployed|upgraded|migrated|rolled out|released|merged|changed|renamed|switched|applied|pushed)\b",
    re.IGNORECASE,
)
_TRIGGER_SECTIONS = {"root_cause", "none", "preamble", "unknown"}


@dataclass
class DocExamples:
    """The units of one training document with their weak labels (None = unlabelled)."""

    path: str
    source: str
    rows: list[tuple[str, str]]
    labels: list[str | None]


def weak_labels(doc) -> list[str | None]:
    """Weak label of each unit of an analysed Doc (see the module docstring)."""
    headings = {(h.start_char, h.end_char): h.text for h in doc.spans.get("headings", [])}
    sections = doc.user_data.get("pmparse_sections", [])
    heading_text = {}
    for start, end, label, _ in sections:
        heading_text[(start, end)] = label
    labels: list[str | None] = []
    for unit, (label, _) in zip(doc.spans["units"], unit_sections(doc)):
        text = unit.text
        if label in TEXT_FIELDS:
            labels.append(label)
        elif label == "none" and _NONE_HEADINGS.match(_heading_of(doc, unit.start_char, headings)):
            labels.append(NONE)
        elif label in _TRIGGER_SECTIONS and _TRIGGER.search(text) and len(text) < 400:
            labels.append("trigger")
        else:
            labels.append(None)
    return labels


def _heading_of(doc, offset: int, headings: dict[tuple[int, int], str]) -> str:
    """Normalised text of the nearest heading before ``offset``."""
    from .rules import normalise_heading

    best = None
    for (start, end), text in headings.items():
        if start <= offset and (best is None or start > best[0]):
            best = (start, text)
    return normalise_heading(best[1]) if best else ""


def build_dataset(root: Path, exclude: set[str], nlp=None) -> list[DocExamples]:
    """Weakly labelled units of every corpus incident file not in ``exclude`` (gold paths)."""
    nlp = nlp or build(PipelineConfig())
    examples = []
    for source, rel in incident_files(root, load_manifest()):
        if rel in exclude:
            continue
        doc = analyse(nlp, ingest(str(root / rel)))
        if "units" not in doc.spans or not len(doc.spans["units"]):
            continue
        examples.append(DocExamples(rel, source, unit_rows(doc), weak_labels(doc)))
    return examples


def _estimator(seed: int, c: float):
    """Hashed n-gram features (no vocabulary to store, so the model loads fast) into a logistic regression."""
    from sklearn.compose import ColumnTransformer
    from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import Pipeline

    def hashed(**options):
        return Pipeline([("hash", HashingVectorizer(alternate_sign=False, norm=None, dtype=np.float32, **options)),
                         ("tfidf", TfidfTransformer(sublinear_tf=True))])

    features = ColumnTransformer([
        ("words", hashed(ngram_range=(1, 2), n_features=2**16), 0),
        ("chars", hashed(analyzer="char_wb", ngram_range=(3, 5), n_features=2**16), 0),
        ("context", hashed(token_pattern=r"\S+", lowercase=False, n_features=2**12), 1),
    ])
    classifier = LogisticRegression(C=c, max_iter=3000, class_weight="balanced", random_state=seed)
    return Pipeline([("features", features), ("classifier", classifier)])


def transitions(examples: list[DocExamples], labels: list[str], smoothing: float = 1.0) -> np.ndarray:
    """Row-stochastic transition matrix from consecutive labelled units of the same document."""
    index = {label: i for i, label in enumerate(labels)}
    counts = np.full((len(labels), len(labels)), smoothing)
    for example in examples:
        for a, b in zip(example.labels, example.labels[1:]):
            if a is not None and b is not None:
                counts[index[a], index[b]] += 1
    return counts / counts.sum(axis=1, keepdims=True)


@dataclass
class TrainResult:
    """A trained model with what it was trained on."""

    model: UnitModel
    label_counts: dict[str, int]
    documents: int
    sources: list[str] = field(default_factory=list)


def fit(examples: list[DocExamples], seed: int = 0, c: float = 2.0, sequence_weight: float = 0.5) -> TrainResult:
    """Fit a unit model on weakly labelled examples (deterministic for a seed)."""
    rows, labels, seen = [], [], set()
    for example in examples:
        for row, label in zip(example.rows, example.labels):
            if label is None or (row[0], label) in seen:
                continue
            seen.add((row[0], label))
            rows.append(row)
            labels.append(label)
    estimator = _estimator(seed, c)
    estimator.fit(np.array(rows, dtype=object), np.array(labels))
    # float32 weights halve the model on disk; predictions are unchanged to the 6th decimal
    head = estimator.named_steps["classifier"]
    head.coef_ = head.coef_.astype(np.float32)
    head.intercept_ = head.intercept_.astype(np.float32)
    classes = [str(c) for c in estimator.classes_]
    model = UnitModel(estimator, classes, transitions(examples, classes), sequence_weight,
                      f"{MODEL_NAME}-v{MODEL_VERSION}")
    return TrainResult(model, dict(sorted(Counter(labels).items())), len(examples),
                       sorted({e.source for e in examples}))


def gold_paths(gold_dir: Path) -> set[str]:
    """Corpus paths of every gold document (first and second pass)."""
    paths = set()
    for path in gold_dir.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                value = json.loads(line).get("path")
                if value:
                    paths.add(value)
    return paths


def trusted_types(folder: Path) -> list[str]:
    """The types skops reports for a model just saved (recorded so loading can check them)."""
    import skops.io as sio

    return sorted(sio.get_untrusted_types(file=folder / "model.skops"))


def save(result: TrainResult, folder: Path, extra: dict) -> None:
    """Save a trained model with its metadata."""
    result.model.save(folder, extra)
    meta_path = folder / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["trusted_types"] = trusted_types(folder)
    meta["label_counts"] = result.label_counts
    meta["documents"] = result.documents
    meta["sources"] = result.sources
    meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def train(root: Path, out: Path, gold_dir: Path, seed: int = 0, c: float = 2.0, sequence_weight: float = 0.5) -> TrainResult:
    """``pmparse train``: build the dataset, fit, save to ``out``."""
    random.seed(seed)
    np.random.seed(seed)
    examples = build_dataset(root, gold_paths(gold_dir))
    result = fit(examples, seed, c, sequence_weight)
    save(result, out, {"seed": seed, "c": c, "training": "weak labels from headings of ../shared/corpus, gold excluded"})
    return result


def leave_one_source_out(root: Path, gold_dir: Path, seed: int = 0, c: float = 2.0, sequence_weight: float = 0.5,
                         variants: tuple[str, ...] = ("stripped", "headed"), rounds: int = 500) -> dict:
    """Train on every source but one, score the gold documents of the held-out source; every source in turn.

    Returns:
        ``{variant: {system: summary}}`` over all held-out documents, systems ``pipeline``,
        ``headings`` and ``keywords``.
    """
    from .evaluate import System, default_gold_files, gold_text, load_gold, score_system, summarise

    examples = build_dataset(root, gold_paths(gold_dir))
    sources = sorted({e.source for e in examples})
    gold = {variant: load_gold(default_gold_files(variant)) for variant in variants}
    texts = {variant: {d.id: gold_text(d, root) for d in docs} for variant, docs in gold.items()}
    scores: dict[str, dict[str, list]] = {v: {"pipeline": [], "headings": [], "keywords": []} for v in variants}
    with tempfile.TemporaryDirectory() as tmp:
        for source in sources:
            held = [e for e in examples if e.source != source]
            folder = Path(tmp) / source
            save(fit(held, seed, c, sequence_weight), folder, {"held_out": source})
            systems = [System("pipeline", PipelineConfig(model_dir=str(folder))),
                       System("headings", PipelineConfig()),
                       System("keywords", PipelineConfig(labeler="keywords"))]
            for variant in variants:
                docs = [d for d in gold[variant] if d.source == source]
                for system in systems:
                    scores[variant][system.name].extend(score_system(system, docs, texts[variant])[0])
    return {variant: {name: summarise(s, rounds) for name, s in by_system.items()} for variant, by_system in scores.items()}


def source_counts(examples: list[DocExamples]) -> dict[str, dict[str, int]]:
    """Labelled units per source and label (for the model card)."""
    counts: dict[str, Counter] = {}
    for example in examples:
        counter = counts.setdefault(example.source, Counter())
        counter.update(label for label in example.labels if label is not None)
    return {source: dict(sorted(c.items())) for source, c in sorted(counts.items())}

