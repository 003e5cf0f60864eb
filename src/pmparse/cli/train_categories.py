"""What ``pmparse train-categories`` prints and exits with: the tag trainer's figures, floors, agreement."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Callable

from pmparse.errors import UsageError
from pmparse.evaluation.floors import floors_verdict, read_floors, save_floors
from pmparse.training.tags.agreement import agreement_markdown, component_agreement_markdown, pass_agreement
from pmparse.training.tags.card import (
    FLOORS_PATH,
    check_category_floors,
    cv_figures,
    figures_markdown,
    new_category_floors,
)
from pmparse.training.tags.inputs import TagSettings
from pmparse.training.tags.train import train


def agreement_text(second_pass: Path, label_files: list[Path] | None, taxonomy_path: str | None,
                   components: bool = False) -> str:
    """``pmparse train-categories --agreement`` (or ``--component-agreement``) as Markdown."""
    agreement = pass_agreement(second_pass, label_files, taxonomy_path, components)
    return component_agreement_markdown(agreement) if components else agreement_markdown(agreement)


def train_categories_text(output: str | None, corpus: str | None, gold_files: list[Path] | None, seed: int,
                         taxonomy_path: str | None, evaluate: bool, label_files: list[Path] | None,
                         check: bool = False, update: bool = False, allow_lower: bool = False,
                         warn: Callable[[str], None] | None = None,
                         component_label_files: list[Path] | None = None,
                         spans: bool = True, cards: bool = True,
                         written: bool = True, jobs: int | None = None) -> tuple[str, list[str], int]:
    """What ``pmparse train-categories`` prints, its notes for standard error, and its exit code
    (``spans``: train on the team's root-cause spans too, ``TagSettings.team_spans``; ``cards``: on
    the annotated cards' categories too, ``TagSettings.field_cards``; ``written``: on the category
    facts of the team's written postmortems, ``TagSettings.written_cards``; ``jobs``: folds fitted
    at once, the cores this process may use when None).

    With ``check`` and no ``output`` the model is written to a temporary folder, so a check (CI)
    leaves the committed model alone.

    Raises:
        UsageError: floors asked for without the cross-validation, ``allow_lower`` without
            ``update``, or the errors of :func:`train`.
    """
    if (check or update) and not evaluate:
        raise UsageError("expected the cross-validation for --check-floors or --update-floors, found --no-eval")
    if allow_lower and not update:
        raise UsageError("expected --update-floors with --allow-lower, found it missing")
    scratch = tempfile.TemporaryDirectory(prefix="pmparse-tags-") if check and output is None else None
    try:
        settings = TagSettings(seed=seed, team_spans=spans, field_cards=cards, written_cards=written)
        summary = train(scratch.name if scratch else output, corpus, gold_files, settings, taxonomy_path,
                        evaluate=evaluate, label_files=label_files, warn=warn,
                        component_label_files=component_label_files, jobs=jobs)
    finally:
        if scratch is not None:
            scratch.cleanup()
    parts, notes, code = [figures_markdown(summary)], [], 0
    if scratch is None:
        notes.append(f"model written to {summary['model']}")
    floors = read_floors(FLOORS_PATH)
    if update:
        updated, lowered = new_category_floors(cv_figures(summary), floors, allow_lower)
        parts += save_floors(FLOORS_PATH, updated, floors, lowered, allow_lower, note=(
            "Floors of the tag model's cross-validated figures (sources held out: leave one source out; documents "
            "held out: mean of the repeated grouped folds), in-sample figures are in eval/facts_floors.json. "
            "Checked in CI by `pmparse train-categories --check-floors`; lowering one takes "
            "--update-floors --allow-lower."))
        floors = updated
    if check:
        # no floors is a failed check, not a passed one (a renamed file, an install without eval/)
        line, code = floors_verdict(check_category_floors(cv_figures(summary), floors) if floors.get("floors") else [
            f"expected floors in {FLOORS_PATH}, found none"])
        parts.append(line)
    return "\n".join(parts), notes, code
