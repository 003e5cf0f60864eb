"""Run the shipped LOSO measurement for several FieldSettings variants, training examples built once."""
import json, sys, time
from pathlib import Path
import pmparse.training.field_loso as fl
from pmparse.training.fields import DEFAULT_SETTINGS, WRITTEN_WEIGHT
from pmparse.evaluation.corpus import corpus_root
from pmparse.evaluation.gold import GOLD_DIR

cache = {}
orig = fl.training_examples
def cached(*a, **k):
    key = "x"
    if key not in cache:
        cache[key] = orig(*a, **k)
    return cache[key]
fl.training_examples = cached

variants = json.loads(sys.argv[1])
out = Path(sys.argv[2]); out.mkdir(exist_ok=True)
for name, changes in variants.items():
    t = time.time()
    settings = DEFAULT_SETTINGS.replaced(**changes)
    r = fl.leave_one_source_out(corpus_root(None), GOLD_DIR, 0, settings, 200, labels="annotated",
                                calibrate=True, written=WRITTEN_WEIGHT, heading_model=True)
    (out / f"{name}.json").write_text(json.dumps(r, indent=1))
    b = r["breakdown"]
    print(name, changes, "stripped %.3f headed %.3f" % (r["stripped"]["pipeline"]["macro_f1"], r["headed"]["pipeline"]["macro_f1"]),
          "%.0fs" % (time.time() - t), flush=True)
