"""Shared loading for the s12 experiments (scratch, not committed)."""
import json, glob, math
from collections import Counter, defaultdict
from pathlib import Path
import numpy as np
from pmparse.evaluation.corpus import source_of
from pmparse.evaluation.gold_cards import Example
from pmparse.rules.taxonomy import load_taxonomy
from pmparse.training.tags.inputs import TagSettings
from pmparse.training.tags.fit import decide, primary_of, cv_report
from pmparse.evaluation.facts import set_scores

D = Path(__import__("os").environ.get("PRIMARY_DESIGN_DIR", "/tmp/primary_design"))
RC = "root_cause_categories."
tax = load_taxonomy(None)
RC_IDS = [t.id if hasattr(t, "id") else t.key.split(".", 1)[1] for t in tax.groups["root_cause_categories"]]
settings = TagSettings()

def load():
    e = json.loads((D / "examples.json").read_text())
    examples = [Example(**x) for x in e["examples"]]
    units = json.loads((D / "units.json").read_text())
    p = D / "loso_probs.json"
    probs = json.loads(p.read_text()) if p.exists() else None
    return e, examples, units, probs

def gold_of(ex):
    return {k[len(RC):] for k, v in ex.labels.items() if v and k.startswith(RC)}

def score(examples, probs, cues, override=None):
    """Set F1/macro and primary. override: i -> (set, primary) for gold rows."""
    pairs, hits, tot = [], 0, 0
    for i, (ex, p) in enumerate(zip(examples, probs)):
        if ex.source != "gold" or not any(k.startswith(RC) for k in ex.labels):
            continue
        g = gold_of(ex)
        if override and i in override:
            s, prim = override[i]
        else:
            s = decide(p, settings, cues[i])["root_cause_categories"]
            prim = primary_of(p, s)
        pairs.append((g, s))
        if g:
            tot += 1
            hits += prim in g
    sc = set_scores(pairs)
    return {"primary": round(hits / tot, 4), "n": tot, "macro": round(sc["macro_f1"], 4), "f1": round(sc["f1"], 4)}
