"""Do the written postmortems help the tag model only by imitating a held-out source's template?

A diagnostic for issue 23, not a gate. Some of the team's written postmortems imitate the layout
of a corpus source (:data:`LOOKALIKE`), and written rows train in every fold of the
source-held-out cross-validation. This reruns that cross-validation twice with the shipped
settings and rows (one repeat): as shipped, and with the imitating files' rows held out together
with the source they imitate, and prints the root-cause and contributing-factor figures of both.
Run from the repository root with the shared corpus beside it (about 8 minutes)::

    python eval/written_lookalikes.py
"""

from __future__ import annotations

import json

#: Written style file -> the corpus source whose layout it imitates.
LOOKALIKE = {"catalogue": "cncf-supply-chain-compromises", "status-notes": "jenkins-status",
             "wiki": "wikitech", "wiki-2": "wikitech"}


def lookalike_folds(groups, folds: dict[str, int], sources: dict[str, int]) -> dict[str, int]:
    """``folds`` plus each imitating written document's group mapped to its source's fold."""
    moved = dict(folds)
    for group in groups:
        parts = group.split("/")
        if len(parts) > 2 and parts[0] == "written" and LOOKALIKE.get(parts[1]) in sources:
            moved[group] = sources[LOOKALIKE[parts[1]]]
    return moved


def main() -> None:  # pragma: no cover - needs the shared corpus and minutes of training
    from pmparse.evaluation.corpus import corpus_root
    from pmparse.nlp.tag_reading import Matchers, model_rows
    from pmparse.rules.taxonomy import load_taxonomy
    from pmparse.training import tags as tc
    from pmparse.training.tag_fit import cross_validate, cv_report, row_folds, source_folds
    from pmparse.training.tag_inputs import TagSettings

    settings, root, taxonomy = TagSettings(repeats=1), corpus_root(None), load_taxonomy(None)
    gold = tc.read_gold(None, root)
    docs = tc.analysed_docs([root / row["path"] for row in gold])
    examples, _ = tc.build_examples(root, taxonomy, settings, gold, docs)
    matchers = Matchers(tc.untagged_pipeline(), taxonomy)
    rows = model_rows(matchers, [(ex.focus, ex.whole) for ex in examples])
    cues = [set(matchers.cue_counts(ex.focus)) for ex in examples]
    shipped = row_folds(examples, gold)
    moved = lookalike_folds([ex.group for ex in examples], shipped, source_folds(gold))
    runs = (("every written row in every fold", shipped), ("look-alikes held out with their source", moved))
    for name, folds in runs:
        report = cv_report(examples, cross_validate(examples, rows, taxonomy, settings, folds), settings, cues)
        print(json.dumps({"run": name, "written_documents_held_out_with_a_source": len(folds) - len(shipped),
                          "root_cause_macro_f1": round(report["root_cause_categories"]["macro_f1"], 3),
                          "root_cause_f1": round(report["root_cause_categories"]["f1"], 3),
                          "primary": round(report["root_cause_primary"]["share"], 3),
                          "contributing_factor_macro_f1": round(report["contributing_factor_categories"]["macro_f1"], 3)}))


if __name__ == "__main__":
    main()
