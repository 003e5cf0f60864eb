"""Calibration of the field labeler's confidences on held-out units."""

from __future__ import annotations

import numpy as np
import pytest

from pmparse.training.field_calibration import apply, calibration_figures, cross_fitted, fit_calibration


def test_isotonic_knots_map_scores_to_the_share_right():
    scores = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9]
    right = [0, 0, 0, 1, 0, 1, 1, 1]
    xs, ys = fit_calibration(scores, right)
    assert xs == sorted(xs) and ys == sorted(ys) and all(0 <= y <= 1 for y in ys)
    out = apply((xs, ys), np.array([0.05, 0.95]))
    assert out[0] == pytest.approx(0.0) and out[1] == pytest.approx(1.0)
    with pytest.raises(ValueError):
        fit_calibration([0.5], [1])


def test_figures_give_zero_error_for_perfect_confidences_and_the_error_otherwise():
    conf = np.array([0.9] * 10 + [0.2] * 10)
    right = np.array([1] * 9 + [0] + [1] * 2 + [0] * 8)
    good = calibration_figures(conf, right)
    assert good["ece"] == pytest.approx(0.0) and good["precision_at_0.8"] == pytest.approx(0.9)
    bad = calibration_figures(np.full(20, 0.9), right)
    assert bad["ece"] == pytest.approx(abs(0.9 - 11 / 20), abs=1e-4)


def test_cross_fitting_never_uses_a_sources_own_units():
    # source a is always right at high scores, source b never: a's confidences come from b alone
    scores = np.array([0.9, 0.9, 0.9, 0.9])
    right = np.array([1, 1, 0, 0])
    out = cross_fitted(["a", "a", "b", "b"], scores, right)
    assert out[:2] == pytest.approx([0.0, 0.0]) and out[2:] == pytest.approx([1.0, 1.0])
