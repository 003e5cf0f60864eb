"""What a curator's reviews teach (issue 36): macro F1 on the rest of a held-out source after
`pmparse train --library` learnt from its first k reviewed documents.

For each gold source with at least 12 gold or annotated documents (sorted by path): a field model
is trained without that source (leave one source out, annotated labels and the written
postmortems, as shipped); its first k documents are converted into a library with it and
"reviewed" by a simulated curator (each record's text fields replaced by the gold stretches as a
person's items, the card marked reviewed, every suggested field that differs rejected);
`train --library` adapts the fold model to that library; the source's documents 11 to 50 are
analysed with the adapted model and scored with the project's token F1 (as written). k = 0 is the
fold model itself. Gains are per source against k = 0, with 95 % bootstrap intervals over
sources. Run from the repository root (about 15 minutes on 2 shared cores; --weights 1+pool trains
a fold model again per source and k, about 20 more):

    PYTHONPATH=src python eval/adaptation.py [--sources a,b] [--weights 0.3,1,3,1+own] [--report FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from pmparse.batch.convert import convert
from pmparse.card.schema import TEXT_FIELDS, Card
from pmparse.evaluation.corpus import corpus_root
from pmparse.evaluation.gold import default_gold_files, gold_text, load_gold
from pmparse.evaluation.metrics import score_spans, scoring_view, summarise
from pmparse.ingest.read import ingest_bytes
from pmparse.library.records import card_data, dumps
from pmparse.library.store import Library
from pmparse.nlp.components.classifier import UnitModel
from pmparse.nlp.pipeline import DEFAULT_MODEL_DIR, PipelineConfig, analyse, build, pipeline_config
from pmparse.review.rejections import remember
from pmparse.training.adapt import train_library
from pmparse.training.curvature import CURVATURE_FILE, save_curvature
from pmparse.training.field_annotations import annotation_files
from pmparse.training.field_labels import structure_pipeline
from pmparse.training.fields import DEFAULT_SETTINGS, WRITTEN_WEIGHT, fit, gold_paths, save, training_examples
from pmparse.util import atomic_write

KS = (0, 3, 5, 10)
SCORED = slice(10, 50)


def source_docs(root: Path) -> dict[str, list]:
    """Gold (first pass, as written) and annotated documents per source, sorted by path, once each."""
    docs: dict[str, dict] = {}
    for g in load_gold(default_gold_files("headed"), root) + load_gold(annotation_files(), root):
        docs.setdefault(g.source, {}).setdefault(g.path or g.id, g)
    return {source: [found[k] for k in sorted(found)] for source, found in sorted(docs.items())}


def fold_model(examples, source: str, folder: Path) -> Path:
    """The shipped recipe trained without ``source``, with the shipped labeler and calibration."""
    kept = [e for e in examples if e.source != source]
    if not (folder / "meta.json").is_file():
        meta = json.loads((DEFAULT_MODEL_DIR / "meta.json").read_text(encoding="utf-8"))
        settings = DEFAULT_SETTINGS.replaced(threshold=meta["labeler"]["threshold"])
        save(fit(kept, 0, settings), folder, {"settings": settings.as_dict(), "calibration": meta["calibration"]})
    if not (folder / CURVATURE_FILE).is_file():
        save_curvature(folder, UnitModel.load(folder), kept)
    return folder


def flat(model: Path) -> Path:
    """The model without its curvature: adapted with one pull towards its weights for all."""
    folder = model.parent.parent / "flat" / model.name
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("weights.npz", "meta.json"):
        shutil.copy(model / name, folder / name)
    return folder


def pooled(examples, source: str, lib: Path, weight: float, folder: Path) -> Path:
    """Plain pooling, to compare: the fold model trained again on the corpus plus the library's
    rows (rejections left out: a pooled fit has no "not this field" label)."""
    from pmparse.training.field_labels import DocExamples
    from pmparse.training.library_rows import NOT, library_rows

    extra = [DocExamples(d.id, source, [r for r, label in zip(d.rows, d.labels) if not label.startswith(NOT)],
                         [(label, weight) for label in d.labels if not label.startswith(NOT)])
             for d in library_rows(lib).docs]
    meta = json.loads((DEFAULT_MODEL_DIR / "meta.json").read_text(encoding="utf-8"))
    settings = DEFAULT_SETTINGS.replaced(threshold=meta["labeler"]["threshold"])
    save(fit([e for e in examples if e.source != source] + extra, 0, settings), folder,
         {"settings": settings.as_dict(), "calibration": meta["calibration"]})
    return folder


def write_sources(root: Path, docs, folder: Path) -> list[Path]:
    """Each document's annotated text as a file (its extension kept, so HTML is read as HTML)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, g in enumerate(docs):
        path = folder / f"{i:03d}{Path(g.path or 'x.md').suffix or '.md'}"
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(gold_text(g, root))
        paths.append(path)
    return paths


def simulate_review(root: Path, docs, paths: list[Path], lib: Path, model: Path) -> None:
    """Convert ``paths`` into ``lib`` with ``model``, then review every record as the curator whose
    work the gold is: text fields become the gold stretches (``origin: person``), the card is marked
    reviewed, and each suggested field that differs is rejected (as ``review``'s n would)."""
    convert([str(p) for p in paths], lib, config=PipelineConfig(model_dir=str(model)), jobs=1)
    library = Library.open(lib)
    at = dt.datetime(2026, 12, 6, tzinfo=dt.timezone.utc).isoformat()
    for g, path in zip(docs, paths):
        entry = library.entries[library.by_location[str(path)]]
        card = entry.card
        text = gold_text(g, root)
        ingested = ingest_bytes(text.encode("utf-8"), str(path))
        scored, spans = scoring_view(g, text, ingested.text if ingested.extracted else None)
        data = card_data(card)
        for name in TEXT_FIELDS:
            if name not in g.annotated:
                continue
            items = [{"text": " ".join(scored[a:b].split()), "evidence": [{"start": a, "end": b}], "confidence": 1.0,
                      "origin": "person"} for a, b in sorted(spans.get(name, [])) if scored[a:b].strip()]
            if items != data[name]:
                if data[name]:
                    remember(library, card, name, "rejected", "simulated curator", at)
                data[name] = items
        data.update(status="reviewed", reviewed={"by": "simulated curator", "at": at})
        atomic_write(entry.path, dumps(Card.model_validate(data), "yaml"))


def score(root: Path, docs, model: Path) -> float:
    """Macro token F1 of ``model`` on ``docs`` (as written), counts summed over the documents."""
    nlp = build(dataclasses.replace(pipeline_config(model_dir=str(model)), tagger=False))
    scores = []
    for g in docs:
        text = gold_text(g, root)
        ingested = ingest_bytes(text.encode("utf-8"), g.path or f"{g.id}.md")
        doc = analyse(nlp, ingested)
        predicted: dict[str, list] = {}
        for span in doc.spans.get("fields", []):
            predicted.setdefault(span.label_, []).append((span.start_char, span.end_char))
        scored, spans = scoring_view(g, text, ingested.text if ingested.extracted else None)
        scores.append(score_spans(g.id, g.source, scored, list(g.annotated), spans, predicted))
    return summarise(scores, rounds=10)["macro_f1"]


def interval(values: list[float], rounds: int = 1000) -> tuple[float, float]:
    """95 % percentile bootstrap interval of the mean over sources."""
    rng = np.random.default_rng(0)
    means = [float(np.mean(rng.choice(values, len(values)))) for _ in range(rounds)]
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=None, help="Corpus root [default: $PMPARSE_CORPUS or ../shared/corpus].")
    parser.add_argument("--sources", default="", help="Only these sources (comma-separated).")
    parser.add_argument("--weights", default="1,3,1+own",
                        help="Weights of a curator's row to compare (comma-separated; W+own: with the library's own "
                             "calibration, else the base model's; W+flat: without the curvature; W+pool: the fold "
                             "model trained again with the library's rows instead).")
    parser.add_argument("--workdir", type=Path, default=None, help="Keep fold models here (reused by a rerun).")
    parser.add_argument("--timing", type=int, default=50, help="Also time train --library on this many cards (0: no).")
    parser.add_argument("--report", type=Path, default=None, help="Write the figures as JSON.")
    args = parser.parse_args(argv)
    root = corpus_root(args.corpus)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="adaptation."))
    weights = args.weights.split(",")
    by_source = {s: d for s, d in source_docs(root).items() if len(d) >= 12
                 and (not args.sources or s in args.sources.split(","))}
    examples = training_examples(root, gold_paths(root=root), structure_pipeline(), labels="annotated",
                                 written=WRITTEN_WEIGHT)
    rows: dict[str, dict] = {}
    for source, docs in by_source.items():
        model = fold_model(examples, source, work / "folds" / source)
        paths = write_sources(root, docs[:10], work / "sources" / source)
        found = {"documents": len(docs), "scored": len(docs[SCORED]), "k0": score(root, docs[SCORED], model)}
        for k in KS[1:]:
            lib = work / "libraries" / f"{source}-{k}"
            if not lib.is_dir():
                simulate_review(root, docs[:k], paths[:k], lib, model)
            for w in weights:
                started = time.perf_counter()
                weight, _, how = w.partition("+")
                if how == "pool":
                    out = pooled(examples, source, lib, float(weight), work / "pooled" / f"{source}-{k}-{weight}")
                else:
                    done = train_library(lib, weight=float(weight), base_dir=flat(model) if how == "flat" else model,
                                         own_calibration=how == "own", min_calibration_pairs=0)
                    out = done.folder if done.adapted else model
                found[f"seconds_k{k}_w{w}"] = round(time.perf_counter() - started, 1)
                found[f"k{k}_w{w}"] = score(root, docs[SCORED], out)
        rows[source] = found
        print(source, json.dumps(found), flush=True)
    table = ["| after k reviewed | weight | mean macro F1 | mean gain [95 % interval] | worst source | "
             "train --library (median s) |", "|---:|---:|---:|---:|---:|---:|",
             f"| 0 | - | {statistics.mean(r['k0'] for r in rows.values()):.3f} | - | - | - |"]
    for k in KS[1:]:
        for w in weights:
            gains = [r[f"k{k}_w{w}"] - r["k0"] for r in rows.values()]
            low, high = interval(gains)
            table.append(f"| {k} | {w} | {statistics.mean(r[f'k{k}_w{w}'] for r in rows.values()):.3f} | "
                         f"{statistics.mean(gains):+.3f} [{low:+.3f}, {high:+.3f}] | {min(gains):+.3f} | "
                         f"{statistics.median(r[f'seconds_k{k}_w{w}'] for r in rows.values()):.0f} |")
    report = {"sources": rows, "table": table}
    if args.timing:
        # the largest source's first N documents, reviewed as above, with the shipped model
        source, docs = max(source_docs(root).items(), key=lambda kv: len(kv[1]))
        docs = docs[:args.timing]
        lib = work / "libraries" / f"timing-{source}-{len(docs)}"
        if not lib.is_dir():
            simulate_review(root, docs, write_sources(root, docs, work / "sources" / f"timing-{source}"), lib,
                            DEFAULT_MODEL_DIR)
        started = time.perf_counter()
        done = train_library(lib, weight=float(weights[0].split("+")[0]))
        report["timing"] = {"source": source, "cards": len(docs), "seconds": round(time.perf_counter() - started, 1),
                            "model_bytes": done.size}
        table.append(f"\ntrain --library on {len(docs)} reviewed cards ({source}): {report['timing']['seconds']:.0f} s, "
                     f"model {done.size / 1e6:.1f} MB")
    print("\n".join(table))
    if args.report:
        args.report.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
