"""Cue counts of each root-cause category in a gold document's root-cause, trigger and
contributing units (field model, confidence >= 0.5) and in the whole text (scratch)."""
import json, sys
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from common import *
from pmparse.nlp.tag_reading import Matchers, FOCUS_MIN_CONFIDENCE, WHOLE_LIMIT
from pmparse.training.tags.inputs import untagged_pipeline
e, examples, units, _ = load()
root = Path(e["root"])
m = Matchers(untagged_pipeline(None), tax)
out = {}
for i, ex in enumerate(examples):
    if ex.source != "gold":
        continue
    u = units[str(root / ex.group)]
    t = u["text"]
    r = {}
    for f in ("root_cause", "trigger", "contributing_factors"):
        sel = [t[a:b] for a, b, lab, sc in u["units"] if lab == f and sc >= FOCUS_MIN_CONFIDENCE]
        r[f] = dict(m.cue_counts("\n".join(sel))) if sel else {}
    r["whole"] = dict(m.cue_counts(t[:WHOLE_LIMIT]))
    out[i] = r
(D / "cue_regions.json").write_text(json.dumps(out))
print(len(out))
