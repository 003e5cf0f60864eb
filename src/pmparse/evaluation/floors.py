"""Floors of the evaluation figures (``eval/*floors*.json``, ``eval/baseline.json``): read, checked and raised."""

from __future__ import annotations

import json
import math
from pathlib import Path

from pmparse.card.schema import TEXT_FIELDS
from pmparse.evaluation.corpus import REPO_ROOT

FLOORS_PATH = REPO_ROOT / "eval" / "baseline.json"


def check_floors(results: dict[str, dict], floors: dict) -> list[str]:
    """Fields where the pipeline fell below its floor by more than the noise margin.

    Args:
        results: ``{variant: report}`` with ``report["pipeline"]``.
        floors: Contents of ``eval/baseline.json``.
    """
    margin = floors.get("margin", 0.02)
    failures = []
    for variant, fields in floors.get("floors", {}).items():
        if variant not in results:
            continue
        summary = results[variant]["pipeline"]
        for name, floor in fields.items():
            value = summary["macro_f1"] if name == "macro_f1" else summary["fields"][name]["f1"]
            if value < floor - margin:
                failures.append(f"{variant}: {name}: F1 {value:.3f} is below its floor {floor:.3f} - margin {margin}")
    return failures


def floor_figures(current: dict[str, float], previous: dict[str, float], allow_lower: bool,
                  label: str) -> tuple[dict[str, float], list[str]]:
    """Floors for ``current`` figures, each rounded down to 0.01; a floor of ``previous`` that would
    go down is kept unless ``allow_lower`` (lowering a floor is an explicit act).

    Returns:
        ``(floors, down)``; down names every floor that would go down (``label: name: old -> new``).
    """
    out, down = {}, []
    for name, value in current.items():
        value = math.floor(round(value * 100, 6)) / 100  # 0.58 * 100 is 57.99...: not a floor of 0.57
        if name in previous and value < previous[name]:
            down.append(f"{label}: {name}: {previous[name]:.2f} -> {value:.2f}")
            if not allow_lower:
                value = previous[name]
        out[name] = value
    return out, down


def new_floors(results: dict[str, dict], old: dict, allow_lower: bool) -> tuple[dict, list[str]]:
    """Floors set to the current figures (rounded down to 0.01).

    Returns:
        ``(floors, lowered)``, lowered naming each floor kept (or lowered, with ``allow_lower``), so
        the output says which floors an ``--allow-lower`` run took down.
    """
    floors = {"margin": old.get("margin", 0.02), "note": old.get("note", ""), "floors": {}}
    lowered = []
    for variant, report in results.items():
        summary = report["pipeline"]
        current = {name: summary["fields"][name]["f1"] for name in TEXT_FIELDS}
        current["macro_f1"] = summary["macro_f1"]
        floors["floors"][variant], down = floor_figures(current, old.get("floors", {}).get(variant, {}),
                                                        allow_lower, variant)
        lowered += down
    return floors, lowered


def read_floors(path: Path) -> dict:
    """A floors file's content, or ``{}`` when there is none."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def save_floors(path: Path, updated: dict, old: dict, lowered: list[str], allow_lower: bool,
                note: str = "") -> list[str]:
    """Write ``updated`` floors atomically, keeping ``old``'s note (else ``note``).

    Returns:
        The lines to print: where the floors went and which went down (``lowered``), or would have.
    """
    from pmparse.util import atomic_write

    updated["note"] = old.get("note") or note
    atomic_write(path, json.dumps(updated, indent=2) + "\n")
    lines = [f"floors written to {path}"]
    if lowered:
        lines.append(("lowered: " if allow_lower else "kept (would go down; pass --allow-lower to lower them): ")
                     + "; ".join(lowered))
    return lines


def floors_verdict(failures: list[str]) -> tuple[str, int]:
    """The line a floors check prints and its exit code (1 below a floor)."""
    return "floors: " + ("all met" if not failures else "BELOW FLOOR: " + "; ".join(failures)), 1 if failures else 0
