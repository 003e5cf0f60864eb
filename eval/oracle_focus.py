"""How much would a perfect field model lift the category figures? A diagnostic, not a gate.

The tag model reads the root-cause, trigger and contributing-factor units the field model finds
(the *focus*). This script reruns the leave-one-source-out cross-validation of
``pmparse train-categories`` twice: once as shipped, and once with each held-out gold document's
focus replaced by its annotated root-cause, trigger and contributing-factor spans (the training
rows are unchanged). The gap between the two is the most a better field model could give the
categories through the focus.

Run from the repository root with the shared corpus beside it::

    python eval/oracle_focus.py
"""

from __future__ import annotations

import dataclasses

from pmparse import train_categories as tc
from pmparse.components.tagger import Matchers, model_rows
from pmparse.corpus import corpus_root
from pmparse.taxonomy import load_taxonomy


def source_held_out(examples: list[tc.Example], gold: list[dict], matchers: Matchers, taxonomy,
                    settings: tc.Settings) -> dict:
    """Leave-one-source-out category scores of ``examples`` (as ``pmparse train-categories``)."""
    rows = model_rows(matchers, [(ex.focus, ex.whole) for ex in examples])
    cues = [set(matchers.cue_counts(ex.focus)) for ex in examples]
    probs = tc.cross_validate(examples, rows, taxonomy, settings, tc.row_folds(examples, gold))
    return tc.cv_report(examples, probs, settings, cues)


def main() -> None:
    settings, root, taxonomy = tc.Settings(), corpus_root(None), load_taxonomy(None)
    gold = tc.read_gold(None)
    docs = tc.analysed_docs([root / row["path"] for row in gold])
    examples, _ = tc.build_examples(root, taxonomy, settings, gold, docs)
    matchers = Matchers(tc.untagged_pipeline(), taxonomy)
    # the annotated spans of each gold document, as gold_examples joins them for its training row
    annotated = {ex.group: ex.focus for ex in examples if ex.source == "gold_spans"}
    oracle = [dataclasses.replace(ex, focus=annotated.get(ex.group, ex.focus)) if ex.source == "gold" else ex
              for ex in examples]
    print("| focus of the held-out gold documents | root-cause macro F1 | contributing-factor macro F1 |")
    print("|---|---|---|")
    for name, rows in (("field model (as shipped)", examples), ("annotated spans (a perfect field model)", oracle)):
        report = source_held_out(rows, gold, matchers, taxonomy, settings)
        print(f"| {name} | {report['root_cause_categories']['macro_f1']:.3f} | "
              f"{report['contributing_factor_categories']['macro_f1']:.3f} |")


if __name__ == "__main__":
    main()
