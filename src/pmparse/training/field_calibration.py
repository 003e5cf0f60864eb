"""Confidences that mean what they say: the field labeler's scores calibrated on held-out sources.

A unit's score (the model's probability weighed with its heading) is not the chance that the
unit is in the right field. On the leave-one-source-out folds every held-out unit given a field
is a ``(score, right or wrong)`` pair; an isotonic regression of right on score is the
calibration. Its figures are cross-fitted by source: the units of each held-out source are
calibrated by a regression fitted on the other sources' units alone, so expected calibration error
and precision at high confidence are measured on sources that neither the model nor the
calibration saw. The calibration shipped with a model is fitted on all held-out units.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

import numpy as np

from pmparse.errors import UsageError

#: At most this many knots are kept (an isotonic fit has one per step).
MAX_KNOTS = 64

#: Confidence bands of the expected calibration error.
BANDS = 10


def fit_calibration(scores: Iterable[float], right: Iterable[bool]) -> tuple[list[float], list[float]]:
    """Isotonic calibration knots ``(scores, probabilities)`` from held-out ``(score, right)`` pairs.

    Raises:
        ValueError: fewer than two pairs.
    """
    from sklearn.isotonic import IsotonicRegression

    x = np.asarray(list(scores), dtype=float)
    y = np.asarray(list(right), dtype=float)
    if len(x) < 2:
        raise ValueError(f"expected at least two held-out units to calibrate on, found {len(x)}")
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(x, y)
    knots_x, knots_y = iso.X_thresholds_, iso.y_thresholds_
    if len(knots_x) > MAX_KNOTS:
        keep = np.unique(np.linspace(0, len(knots_x) - 1, MAX_KNOTS).round().astype(int))
        knots_x, knots_y = knots_x[keep], knots_y[keep]
    return [round(float(v), 6) for v in knots_x], [round(float(v), 6) for v in knots_y]


def apply(knots: tuple[list[float], list[float]], scores: np.ndarray) -> np.ndarray:
    """Calibrated probabilities of ``scores``."""
    return np.interp(scores, knots[0], knots[1])


def calibration_figures(confidences: np.ndarray, right: np.ndarray, high: float = 0.8) -> dict:
    """Expected calibration error (equal-width bands, weighted by units), reliability per band,
    and precision of the units at confidence ``high`` or more."""
    confidences = np.asarray(confidences, dtype=float)
    right = np.asarray(right, dtype=float)
    bands = []
    ece = 0.0
    edges = np.linspace(0.0, 1.0, BANDS + 1)
    for i in range(BANDS):
        inside = (confidences >= edges[i]) & ((confidences < edges[i + 1]) if i < BANDS - 1 else (confidences <= 1.0))
        n = int(inside.sum())
        if not n:
            continue
        mean_conf, share = float(confidences[inside].mean()), float(right[inside].mean())
        ece += n / len(confidences) * abs(mean_conf - share)
        bands.append({"band": f"{edges[i]:.1f}-{edges[i + 1]:.1f}", "units": n, "confidence": round(mean_conf, 3),
                      "right": round(share, 3)})
    top = confidences >= high
    return {"units": int(len(confidences)), "ece": round(float(ece), 4),
            f"precision_at_{high}": round(float(right[top].mean()), 4) if top.any() else None,
            f"units_at_{high}": int(top.sum()), "bands": bands}


def knots_by_source(sources: list[str], scores: np.ndarray, right: np.ndarray) -> dict[str, tuple[list[float], list[float]]]:
    """For each source, the calibration fitted on the other sources' units only."""
    sources_arr = np.asarray(sources)
    return {source: fit_calibration(scores[sources_arr != source], right[sources_arr != source])
            for source in sorted(set(sources))}


def cross_fitted(sources: list[str], scores: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Each unit's confidence from a calibration fitted on the other sources' units only."""
    sources_arr = np.asarray(sources)
    out = np.zeros(len(scores))
    for source, knots in knots_by_source(sources, scores, right).items():
        mine = sources_arr == source
        out[mine] = apply(knots, scores[mine])
    return out


def read_calibration(path: Path) -> dict:
    """The ``calibration`` of a ``pmparse train --loso --report`` file (knots and threshold).

    Raises:
        UsageError: the file is not such a report, or it was made without calibration.
    """
    try:
        found = json.loads(Path(path).read_text(encoding="utf-8")).get("calibration")
    except (OSError, ValueError, AttributeError) as exc:
        raise UsageError(f"expected a --loso report as JSON, found: {exc}", str(path)) from exc
    if not isinstance(found, dict) or "knots" not in found or "threshold" not in found:
        raise UsageError("expected a --loso report with a calibration (knots and threshold), found none", str(path))
    return {"knots": found["knots"], "threshold": float(found["threshold"]), "figures": found.get("figures", {})}


def calibration_markdown(calibration: dict) -> str:
    """The calibration figures of a leave-one-source-out report as Markdown."""
    lines = [f"Confidences calibrated on held-out sources (cross-fitted); threshold {calibration['threshold']}:", "",
             "| variant | items | ECE | precision at 0.8 | items at 0.8 |", "|---|---:|---:|---:|---:|"]
    for variant, f in calibration["figures"].items():
        precision = f.get("precision_at_0.8")
        lines.append(f"| {variant} | {f['units']} | {f['ece']:.3f} | "
                     f"{'-' if precision is None else f'{precision:.3f}'} | {f.get('units_at_0.8', 0)} |")
    return "\n".join(lines)
