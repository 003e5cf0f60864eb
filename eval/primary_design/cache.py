"""Build the tag model's training rows once, capture each analysed doc's field units, run the LOSO
cross-validation of the shipped design, and save everything as JSON (no pickles)."""
import json, sys, time
from pathlib import Path
import numpy as np
import pmparse.training.tags.inputs as inputs
import pmparse.training.tags.labels as labels
import pmparse.training.tags.field_cards as field_cards
import pmparse.training.tags.train as train
from pmparse.nlp.lines import doc_text
from pmparse.evaluation.corpus import corpus_root
from pmparse.evaluation.gold_cards import read_gold
from pmparse.rules.taxonomy import load_taxonomy
from pmparse.nlp.tag_reading import Matchers, model_rows
from pmparse.training.tags.fit import cross_validate, cv_report, row_folds

OUT = Path(__import__("os").environ.get("PRIMARY_DESIGN_DIR", "/tmp/primary_design"))
UNITS = {}
orig = inputs.analysed_docs
def capture(paths, config=None):
    docs = orig(paths, config)
    for p, d in zip(paths, docs):
        g = d.spans.get("fields") if "fields" in d.spans else None
        units = []
        if g is not None:
            scores = g.attrs.get("scores") or [1.0] * len(g)
            units = [(s.start_char, s.end_char, s.label_, float(sc)) for s, sc in zip(g, scores)]
        UNITS[str(p)] = {"text": doc_text(d), "units": units}
    return docs
for m in (inputs, labels, field_cards, train):
    m.analysed_docs = capture

t = time.time()
settings = inputs.TagSettings()
root = corpus_root(None)
tax = load_taxonomy(None)
gold = read_gold(None, root)
docs = capture([root / r["path"] for r in gold])
examples, skipped = train.build_examples(root, tax, settings, gold, docs)
print("rows", len(examples), time.time() - t, flush=True)
matchers = Matchers(inputs.untagged_pipeline(None), tax)
rows = model_rows(matchers, [(ex.focus, ex.whole) for ex in examples])
cues = [sorted(matchers.cue_counts(ex.focus)) for ex in examples]
(OUT / "examples.json").write_text(json.dumps({
    "examples": [ex.__dict__ for ex in examples], "cues_str": [r[2] for r in rows.tolist()], "cues": cues,
    "gold": gold, "root": str(root)}))
(OUT / "units.json").write_text(json.dumps(UNITS))
print("cached", time.time() - t, flush=True)
probs = cross_validate(examples, rows, tax, settings, row_folds(examples, gold), jobs=1)
(OUT / "loso_probs.json").write_text(json.dumps(probs))
rep = cv_report(examples, probs, settings, [set(c) for c in cues])
print("primary", rep["root_cause_primary"], "macro", rep["root_cause_categories"]["macro_f1"], time.time() - t, flush=True)
