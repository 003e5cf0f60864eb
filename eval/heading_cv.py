"""Grouped cross-validation of the heading model on the training documents' headings (field
model card, "Limits"; ``heading_cv`` in :mod:`pmparse.training.heading_model`). No gold document
is read. Prints one JSON line per (C, threshold).

    PYTHONPATH=src python eval/heading_cv.py
"""

from __future__ import annotations

import json

from pmparse.evaluation.corpus import corpus_root, hold_out_groups
from pmparse.training.fields import WRITTEN_WEIGHT, gold_paths, training_examples
from pmparse.training.heading_model import heading_cv


def main() -> None:
    root = corpus_root()
    examples = training_examples(root, gold_paths(root=root), labels="annotated", written=WRITTEN_WEIGHT)
    for row in heading_cv(examples, hold_out_groups()):
        print(json.dumps(row))


if __name__ == "__main__":
    main()
