"""How much would a perfect field model lift the category figures? A diagnostic, not a gate.

The tag model reads a *focus*: the root-cause, trigger and contributing-factor units the field
model finds, plus the document's summary regions that overlap none of them
(:func:`pmparse.nlp.tag_reading.category_texts`). This script reruns the leave-one-source-out
cross-validation of ``pmparse train-categories`` twice with the same training rows and the same
models: once predicting each held-out gold document from its focus as shipped, and once from the
focus a perfect field model would give (its annotated root-cause, trigger and contributing-factor
spans, plus the summary regions that overlap none of them). The gap is the most a better field
model could give the categories through the focus.

Run from the repository root with the shared corpus beside it (about 3 minutes)::

    python eval/oracle_focus.py
"""

from __future__ import annotations

from pmparse.evaluation.corpus import corpus_root
from pmparse.nlp.tag_reading import FOCUS_FIELDS, Matchers, category_texts, model_rows
from pmparse.rules.taxonomy import load_taxonomy
from pmparse.training import tags as tc
from pmparse.training.tag_inputs import TagSettings


def oracle_focus(doc, row: dict) -> str:
    """The focus of ``doc`` with its gold row's annotated spans in place of the field model's units."""
    spans = sorted((s["start"], s["end"]) for s in row.get("spans", []) if s.get("field") in FOCUS_FIELDS)
    return category_texts(doc, spans)[0]


def main() -> None:
    settings, root, taxonomy = TagSettings(), corpus_root(None), load_taxonomy(None)
    gold = tc.read_gold(None, root)
    docs = tc.analysed_docs([root / row["path"] for row in gold])
    examples, _ = tc.build_examples(root, taxonomy, settings, gold, docs)
    matchers = Matchers(tc.untagged_pipeline(), taxonomy)
    rows = model_rows(matchers, [(ex.focus, ex.whole) for ex in examples])
    perfect = {row["path"]: oracle_focus(doc, row) for row, doc in zip(gold, docs)}
    # only the held-out gold rows change; training rows stay as shipped
    focus = [perfect[ex.group] if ex.source == "gold" else ex.focus for ex in examples]
    test_rows = model_rows(matchers, [(f, ex.whole) for f, ex in zip(focus, examples)])
    folds = tc.row_folds(examples, gold)
    print("| focus the held-out gold documents are predicted from | root-cause macro F1 | "
          "contributing-factor macro F1 |")
    print("|---|---|---|")
    for name, texts, test in (("field model (as shipped)", [ex.focus for ex in examples], None),
                              ("annotated spans (a perfect field model)", focus, test_rows)):
        probs = tc.cross_validate(examples, rows, taxonomy, settings, folds, test)
        report = tc.cv_report(examples, probs, settings, [set(matchers.cue_counts(t)) for t in texts])
        print(f"| {name} | {report['root_cause_categories']['macro_f1']:.3f} | "
              f"{report['contributing_factor_categories']['macro_f1']:.3f} |")


if __name__ == "__main__":
    main()
