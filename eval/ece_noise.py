"""How large ECE is for a perfectly calibrated model on n units (field model card, "Limits").

Per-group calibration targets are read against this: a held-out source of 150 units shows an ECE
near 0.08 even when every confidence is right, from sampling alone. Confidences are drawn uniform
over 0.2-1.0 (where the labeler's items lie), outcomes true with that probability, ECE measured as
the training report measures it (:func:`pmparse.training.field_calibration.calibration_figures`).
Run from the repository root:

    PYTHONPATH=src python eval/ece_noise.py [--units 70,150,250,500,1000] [--trials 2000]
"""

from __future__ import annotations

import argparse

import numpy as np

from pmparse.training.field_calibration import calibration_figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--units", default="70,150,250,500,1000")
    parser.add_argument("--trials", type=int, default=2000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print("| units | median ECE, calibrated model | 90th percentile |\n|---:|---:|---:|")
    for n in (int(x) for x in args.units.split(",")):
        eces = []
        for _ in range(args.trials):
            confidences = rng.uniform(0.2, 1.0, n)
            eces.append(calibration_figures(confidences, rng.random(n) < confidences)["ece"])
        print(f"| {n} | {np.median(eces):.3f} | {np.percentile(eces, 90):.3f} |")


if __name__ == "__main__":
    main()
