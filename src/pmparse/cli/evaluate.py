"""What ``pmparse eval`` prints and exits with: the evaluator's figures as Markdown, floors, a plot."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from pmparse.card.schema import TEXT_FIELDS
from pmparse.errors import UsageError
from pmparse.evaluation.evaluate import run_eval, second_pass_agreement
from pmparse.evaluation.facts import confusion_markdown, facts_table
from pmparse.evaluation.floors import FLOORS_PATH, check_floors, floors_verdict, new_floors, read_floors, save_floors
from pmparse.evaluation.metrics import markdown_table
from pmparse.util import atomic_write, write_errors


def agreement_text(corpus: str | None, second_files: list[Path] | None = None) -> tuple[str, int]:
    """``pmparse eval --agreement``: the second pass against the first, as Markdown, and exit code 0."""
    found = second_pass_agreement(corpus, second_files)
    result = found["spans"]
    lines = [f"### Inter-annotator agreement ({result['documents']} documents, token F1)", "",
             "| field | F1 | precision | recall |", "|---|---:|---:|---:|"]
    for name in found["fields"]:
        f = result["fields"][name]
        lines.append(f"| {name} | {f['f1']:.3f} | {f['precision']:.3f} | {f['recall']:.3f} |")
    lines.append(f"| **macro F1** | **{result['macro_f1']:.3f}** | | |")
    if found["cards"]:
        lines += ["", f"### Card facts and tags, the same {found['cards']['documents']} documents (first pass as "
                  "reference, keys both passes state)", "", facts_table(found["cards"]["facts"], skip_empty=True)]
    return "\n".join(lines), 0


def eval_text(gold_files, corpus, model_dir, variants, rounds, report_path, plot_path,
                     check, update, allow_lower, progress=None) -> tuple[str, int]:
    """What ``pmparse eval`` prints and its exit code (``progress`` is told each step, as run_eval does)."""
    results = run_eval(gold_files, corpus, model_dir, variants, rounds, progress=progress)
    parts = []
    for variant, report in results.items():
        docs = report["pipeline"]["documents"]
        parts.append(markdown_table(report, f"{variant} gold documents ({docs}), token F1"))
        facts = report["pipeline"].get("facts")
        if facts:
            parts.append(f"### {variant} gold documents: card facts and tags (pipeline)\n\n"
                         "Each document is converted with its public address from corpus/manifest.yaml where known "
                         "(as `pmparse convert --url-base` would). Tag figures are in-sample: the tag model trains "
                         "on the gold cards; its cross-validated figures are in src/pmparse/models/categories/README.md.\n\n"
                         + facts_table(facts))
            if facts.get("root_cause_confusion"):
                parts.append("Root-cause categories, rows gold, columns predicted (in-sample):\n\n"
                             + confusion_markdown(facts["root_cause_confusion"]))
    code = 0
    floors = read_floors(FLOORS_PATH)
    if update:
        updated, lowered = new_floors(results, floors, allow_lower)
        parts += save_floors(FLOORS_PATH, updated, floors, lowered, allow_lower)
    if check:
        line, code = floors_verdict(check_floors(results, floors))
        parts.append(line)
    # a folder missing or not writable ended minutes of scoring on a traceback: a WriteError
    # (one line, exit 1) instead, the report's folder made as every other written file's is
    if report_path:
        with write_errors(report_path, "the report"):
            atomic_write(Path(report_path), json.dumps(results, indent=2) + "\n")
    if plot_path:
        with write_errors(plot_path, "the plot"):
            Path(plot_path).parent.mkdir(parents=True, exist_ok=True)
            plot_report(results, plot_path)
    return "\n\n".join(parts), code


def plot_report(results: dict[str, dict], path: str) -> None:
    """A per-field F1 bar chart of every system and variant."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise UsageError("expected matplotlib for --plot, found it missing (pip install 'pmparse[plot]')") from exc
    fig, axes = plt.subplots(len(results), 1, figsize=(10, 3.2 * len(results)), squeeze=False)
    for ax, (variant, report) in zip(axes[:, 0], results.items()):
        names = [n for n in report if "fields" in report[n]]
        width = 0.8 / len(names)
        for k, name in enumerate(names):
            values = [report[name]["fields"][f]["f1"] for f in TEXT_FIELDS]
            ax.bar(np.arange(len(TEXT_FIELDS)) + k * width, values, width, label=name)
        ax.set_xticks(np.arange(len(TEXT_FIELDS)) + width * (len(names) - 1) / 2, TEXT_FIELDS, rotation=20, fontsize=8)
        ax.set_ylim(0, 1)
        ax.set_title(f"token F1 per field ({variant})")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
