"""The field model's learning curve with sources held out (model card, "Learning curve").

Runs the leave-one-source-out measurement of ``pmparse train --loso --labels annotated`` with
each fold trained on a fixed share of its training documents (chosen by a hash of the document's
path, so the shares nest: the half holds the quarter), and prints stripped and headed macro F1.

    PYTHONPATH=src python eval/learning_curve.py 0.5 [--heading-model] [--heading-context] [--document-context]
"""

from __future__ import annotations

import hashlib
import sys

import pmparse.training.field_loso as field_loso
from pmparse.evaluation.corpus import corpus_root
from pmparse.training.fields import DEFAULT_SETTINGS, WRITTEN_WEIGHT


def kept(path: str, share: float) -> bool:
    """Whether a training document is in the first ``share`` of documents by the hash of its path."""
    return int.from_bytes(hashlib.sha256(path.encode("utf-8")).digest()[:4], "big") / 2**32 < share


def main(argv: list[str]) -> None:
    share = float(argv[0])
    fit = field_loso.fit
    headings = field_loso.examples_headings
    field_loso.fit = lambda examples, seed, settings: fit([e for e in examples if kept(e.path, share)], seed, settings)
    # the heading model learns from the same share
    field_loso.examples_headings = lambda examples: headings([e for e in examples if kept(e.path, share)])
    settings = DEFAULT_SETTINGS.replaced(heading_context="--heading-context" in argv,
                                         document_context="--document-context" in argv)
    report = field_loso.leave_one_source_out(corpus_root(), seed=0, settings=settings, rounds=100, labels="annotated",
                                             calibrate=True, written=WRITTEN_WEIGHT,
                                             heading_model="--heading-model" in argv)
    documents = [fold["train_documents"] for fold in report["folds"].values()]
    print(f"share {share}: {min(documents)}-{max(documents)} training documents per fold; macro F1 stripped "
          f"{report['stripped']['pipeline']['macro_f1']:.3f}, headed {report['headed']['pipeline']['macro_f1']:.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
