"""What ``pmparse train`` prints and exits with: the field trainer's runs formatted for the terminal."""

from __future__ import annotations

import json
import time
from pathlib import Path

from pmparse.util import shown
from pmparse.errors import UsageError
from pmparse.evaluation.corpus import corpus_root
from pmparse.nlp.components.classifier import MODEL_FILE
from pmparse.nlp.pipeline import DEFAULT_MODEL_DIR
from pmparse.training.field_calibration import calibration_markdown, read_calibration
from pmparse.training.field_loso import LOSO_FLOORS_PATH, leave_one_source_out, loso_markdown
from pmparse.training.fields import (
    DEFAULT_SETTINGS,
    GOLD_DIR,
    TUNING_GRID,
    VARIANTS,
    gold_paths,
    held_out_paths,
    train,
    write_boilerplate,
)


def _elsewhere(out: str | None) -> bool:
    """Whether ``out`` names a model folder other than the shipped one."""
    return bool(out) and Path(out).resolve() != Path(DEFAULT_MODEL_DIR).resolve()


def run_train_command(corpus: str | None, out: str | None, seed: int, loso: bool, tune_settings: bool,
                      report_path: str | None, check: bool, update: bool, allow_lower: bool,
                      rounds: int = 1000, progress=None, dataset: str | None = None,
                      boilerplate: bool = False, holdout: list[str] | None = None,
                      use_spans: bool = False, warn=None, dev: list[str] | None = None, labels: str = "annotated",
                      calibrate: bool = True, calibration_path: str | None = None,
                      written: float = 0.0, heading_model: bool = False,
                      heading_context: bool = False, document_context: bool = False) -> tuple[str, int]:
    """What ``pmparse train`` prints and its exit code (``boilerplate``: only rewrite the
    boilerplate list from the corpus, see :func:`write_boilerplate`; ``use_spans``: train on the
    team's root-cause spans, each line left out reported to ``warn``; ``dev``: with ``loso``, score
    these development files instead of the gold set; ``written``: above 0, also train on the team's
    written postmortems, rows weighted this much; ``heading_model``: also fit the heading model,
    per fold with ``loso``; ``heading_context``, ``document_context``: the unit model reads each
    unit's heading, or its wider place in the document, too).

    Raises:
        UsageError: a LOSO-only option without ``--loso``, ``--dataset`` with it, ``--holdout`` with
            it or without an ``--out`` folder other than the shipped model's, an unusable holdout
            file, or no corpus.
    """
    from pmparse.evaluation.floors import check_floors, floors_verdict, new_floors, read_floors, save_floors
    from pmparse.util import atomic_write, write_errors

    if (tune_settings or check or update or allow_lower or report_path) and not loso:
        raise UsageError("expected --loso with --tune, --report, --check-floors, --update-floors or --allow-lower, "
                         "found it missing")
    if dataset is not None and not dataset.strip():
        raise UsageError("expected a file name after --dataset, found an empty one")
    if dataset is not None and loso:
        raise UsageError("expected --dataset without --loso (each fold has its own dataset), found both")
    if boilerplate and (loso or dataset is not None or out is not None or holdout):
        raise UsageError("expected --write-boilerplate alone (with --corpus), found it with other options")
    if holdout and loso:
        raise UsageError("expected --holdout without --loso (each fold holds out a whole source), found --loso")
    if dev and not loso:
        raise UsageError("expected --dev with --loso, found it without")
    if calibration_path and loso:
        raise UsageError("expected --calibration without --loso (a --loso run fits its own), found both")
    if written < 0:
        raise UsageError(f"expected a written weight of 0 or more, found {written:g}")
    if dev and (tune_settings or check or update):
        raise UsageError("expected --dev without --tune, --check-floors or --update-floors (they are for the gold "
                         "set), found them together")
    if use_spans and (tune_settings or update):
        raise UsageError("expected --spans without --tune or --update-floors (the shipped model is trained without "
                         "them), found them together")
    if use_spans and not loso and not _elsewhere(out):
        raise UsageError("expected --spans with an --out folder other than the shipped model's (the shipped model "
                         "is trained without them), found " + ("no --out" if not out else f"--out {out}"))
    if (dev or use_spans) and report_path and Path(report_path).resolve() == (DEFAULT_MODEL_DIR / "loso.json").resolve():
        raise UsageError("expected another --report file with --dev or --spans (src/pmparse/models/fields/loso.json describes "
                         "the shipped model), found it")
    if holdout and not _elsewhere(out):
        raise UsageError("expected --holdout with an --out folder other than the shipped model's (a development "
                         "model), found " + ("no --out" if not out else f"--out {out}"))
    root = corpus_root(corpus)
    settings = DEFAULT_SETTINGS.replaced(heading_context=heading_context, document_context=document_context)
    if boilerplate:
        from pmparse.nlp.boilerplate import PACKAGED_PATH

        count = write_boilerplate(root)
        return f"wrote {count} boilerplate line digests to {PACKAGED_PATH}; retrain the field model", 0
    if not loso:
        target = Path(out) if out else DEFAULT_MODEL_DIR
        started = time.time()
        held = held_out_paths([Path(h) for h in holdout or []], root) - gold_paths(GOLD_DIR, root)
        calibration = read_calibration(Path(calibration_path)) if calibration_path else None
        result = train(root, target, GOLD_DIR, seed, settings, dataset=Path(dataset) if dataset is not None else None,
                       holdout=held, use_spans=use_spans, warn=warn, labels=labels, calibration=calibration,
                       written=written, heading_model=heading_model)
        size = (target / MODEL_FILE).stat().st_size
        counts = ", ".join(f"{k} {v}" for k, v in result.label_counts.items())
        return (f"trained {result.model.name} on {result.documents} documents from {len(result.sources)} sources "
                f"({counts}) in {time.time() - started:.0f} s; wrote {target} ({size / 1e6:.1f} MB)"
                + (f" and the dataset {dataset}" if dataset is not None else "")
                + (f"; held out {len(held)} more documents" if held else "")), 0
    report = leave_one_source_out(root, GOLD_DIR, seed, settings, rounds,
                                  TUNING_GRID if tune_settings else None, progress, use_spans,
                                  [Path(d) for d in dev] if dev else None, warn, labels=labels, calibrate=calibrate,
                                  written=written, heading_model=heading_model)
    scored = "development documents (" + ", ".join(dev) + ")" if dev else "gold documents"
    parts = [f"### Leave one source out: token F1 on held-out {scored} (seed {seed}, {labels} labels)", "",
             loso_markdown(report), "", "settings: " + ", ".join(f"{k} {v}" for k, v in report["settings"].items())]
    if "calibration" in report:
        parts.append(calibration_markdown(report["calibration"]))
    if "breakdown" in report:
        from pmparse.training.field_breakdown import breakdown_markdown

        parts += ["", breakdown_markdown(report["breakdown"])]
    if tune_settings:
        parts.append("tuned on these folds (set DEFAULT_SETTINGS in pmparse/train.py to adopt them)")
    code = 0
    if report_path:
        with write_errors(report_path, "the report"):
            atomic_write(Path(report_path), json.dumps(report, indent=2) + "\n")
    floors = read_floors(LOSO_FLOORS_PATH)
    if update:
        updated, lowered = new_floors({v: report[v] for v in VARIANTS}, floors, allow_lower)
        parts += save_floors(LOSO_FLOORS_PATH, updated, floors, lowered, allow_lower, note=(
            "Per-field token F1 floors of the field model under leave-one-source-out (pmparse train --loso), "
            "on heading-stripped and headed held-out gold documents. Checked by `pmparse train --loso "
            "--check-floors` and, against the committed report src/pmparse/models/fields/loso.json, by tests/test_train.py."))
    if check:
        line, code = floors_verdict(check_floors({v: report[v] for v in VARIANTS}, floors))
        parts.append(line)
    return "\n".join(parts), code


def run_library_command(library: str) -> tuple[str, int]:
    """What ``pmparse train --library`` prints and its exit code (1: too few reviewed items, nothing
    written).

    Raises:
        UsageError: not a library folder, or another process writing it.
        ModelError: the shipped model cannot be read.
    """
    from pmparse.training.adapt import MIN_FIELD_ROWS, train_library

    done = train_library(library)
    rows = done.rows
    # a note names a record's source, one line each however the record spells it
    lines = [shown(note, one_line=True) for note in rows.notes]
    taught = (f"{len(rows.docs)} reviewed record(s): {rows.count('field')} field units, {rows.count('none')} "
              f"units of no field, {rows.count('negative')} rejected")
    if done.adapted is None:
        lines.append(f"{taught}; expected at least {MIN_FIELD_ROWS} field units a person accepted, edited or "
                     "marked reviewed, found too few: no model written, convert keeps the model it uses "
                     "(review more records, then run this again)")
        return "\n".join(lines), 1
    adapted = done.adapted
    lines.append(f"{taught}; adapted {adapted.model.name} in {adapted.seconds:.0f} s, calibrated on "
                 + ("the library's own units" if adapted.calibration == "library"
                    else "the shipped model's held-out sources (too few of the library's units yet)")
                 + (f"; learnt headings: {', '.join(f'{h!r} -> {f}' for h, f in adapted.headings.items())}"
                    if adapted.headings else "")
                 + f"; wrote {done.folder} ({done.size / 1e6:.1f} MB): convert into this library uses it "
                 "(--base-model: the shipped one)")
    return "\n".join(lines), 0
