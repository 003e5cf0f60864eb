"""Agreement between the two passes of the written postmortems' categories (corpus/written).

The first pass (``categories.jsonl``, annotator c1) labelled all 150 documents; the second
(``categories_second_pass.jsonl``, c2) labelled 20 of them blind. Run from the repository root:

    PYTHONPATH=src python eval/written_agreement.py
"""

from __future__ import annotations

import sys

from pmparse.rules.taxonomy import load_taxonomy
from pmparse.training.tags.written_cards import (
    CATEGORIES_FILE,
    SECOND_PASS_FILE,
    read_written_categories,
    written_agreement,
)


def main() -> int:
    taxonomy = load_taxonomy()
    found = written_agreement(read_written_categories(CATEGORIES_FILE, taxonomy),
                              read_written_categories(SECOND_PASS_FILE, taxonomy))
    print(f"documents both passes labelled: {found['documents']}")
    for group in ("root_cause_categories", "contributing_factor_categories"):
        scores = found[group]
        print(f"{group}: set F1 {scores['f1']:.3f}, macro F1 {scores['macro_f1']:.3f}, exact {scores['exact']:.3f}")
    print(f"same first root cause: {found['primary']:.3f}; first pass's first among the second's: "
          f"{found['primary_in_other']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
