"""Mix the unit-level model's document scores into the document model's LOSO probabilities (scratch)."""
import json, sys, os
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from common import *

variant = sys.argv[1] if len(sys.argv) > 1 else "base"
e, examples, units, probs = load()
if os.environ.get("DOCS"):
    probs = json.loads((D / "doc_probs.json").read_text())
cues = [set(c) for c in e["cues"]]
us = {int(k): v for k, v in json.loads((D / f"unit_scores_{variant}.json").read_text()).items()}
base = score(examples, probs, cues)
print("baseline", base)
W = {"root_cause": 1.0, "trigger": 0.6, "contributing_factors": 0.4}
ALL = variant.startswith("all")
if ALL: W = {k: 1.0 for k in ("root_cause","trigger","contributing_factors","symptoms","remediation","detection","lessons","action_items")}

import os
PRIOR = os.environ.get("PRIOR")
if PRIOR:
    _st = json.loads((D / "stretches.json").read_text())
    _c = Counter(c for x in _st for c in x["cats"]); _n = sum(_c.values())
    PRIOR_V = {RC + c: _c[c] / _n for c in RC_IDS}
def agg(entry, how):
    if not entry["units"]:
        return None
    if PRIOR:
        return PRIOR_V
    cls = entry["classes"]
    P = np.array([u[2] for u in entry["units"]])
    w = np.array([u[1] * W[u[0]] for u in entry["units"]])
    if how == "mean":
        v = (w[:, None] * P).sum(0) / w.sum()
    elif how == "max":
        v = P.max(0) if not ALL else P[np.argsort(-w)[:3]].mean(0)
    elif how == "noisyor":
        v = 1 - np.prod(1 - P * w[:, None] / w.max(), axis=0)
    elif how == "rc_mean":
        rc = np.array([u[0] == "root_cause" for u in entry["units"]])
        sel = rc if rc.any() else np.ones(len(P), bool)
        v = P[sel].mean(0)
    return {RC + c: float(x) for c, x in zip(cls, v)}

def mixed(p, u, a, mode):
    if u is None or a == 0:
        return p
    q = dict(p)
    for k, x in u.items():
        if k in q:
            q[k] = (1 - a) * p[k] + a * x
    return q

def run(how, a, mode, only=None):
    """mode 'decide': re-decide the set on mixed probs; 'reorder': set from doc probs, primary by mixed;
    'top3': primary = argmax mixed among doc top-3, swapped into the set."""
    over = {}
    for i, u in us.items():
        if only is not None and i not in only:
            continue
        p = probs[i]
        ua = agg(u, how)
        q = mixed(p, ua, a, mode)
        if mode == "decide":
            s = decide(q, settings, cues[i])["root_cause_categories"]
            over[i] = (s, primary_of(q, s))
        else:
            s = set(decide(p, settings, cues[i])["root_cause_categories"])
            if mode == "reorder":
                over[i] = (s, primary_of(q, s))
            else:
                top = sorted([k for k in p if k.startswith(RC)], key=lambda k: -p[k])[:3]
                top += [RC + c for c in s if RC + c not in top]
                if s == {"unknown"}:
                    over[i] = (s, "unknown"); continue
                best = max(top, key=lambda k: q[k])[len(RC):]
                if best not in s:
                    s = set(s) - {"unknown"}
                    if len(s) >= settings.max_root_causes:
                        s.discard(min(s, key=lambda c: q[RC + c]))
                    s.add(best)
                over[i] = (s, best)
    return over

def sub(over, idx):
    return {i: over[i] for i in idx if i in over}

gold_i = sorted(us)
by_src = {}
for i in gold_i:
    by_src.setdefault(source_of(examples[i].group), []).append(i)
ex_gold = [examples[i] for i in gold_i]
def score_on(idx, over):
    ex = [examples[i] for i in idx]; pr = [probs[i] for i in idx]; cu = [cues[i] for i in idx]
    return score(ex, pr, cu, {j: over[i] for j, i in enumerate(idx) if i in over})

print("unit alone (argmax agg):")
for how in ("mean", "max", "noisyor", "rc_mean"):
    hits = tot = 0
    for i in gold_i:
        g = gold_of(examples[i])
        if not g: continue
        ua = agg(us[i], how)
        if ua is None:
            s = decide(probs[i], settings, cues[i])["root_cause_categories"]; pr = primary_of(probs[i], s)
        else:
            pr = max(ua, key=ua.get)[len(RC):]
        tot += 1; hits += pr in g
    print(" ", how, round(hits / tot, 4))
MODES = sys.argv[2].split(",") if len(sys.argv) > 2 else ("decide", "reorder", "top3")
A = [0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8]
for mode in MODES:
    for how in ("mean", "max", "noisyor", "rc_mean"):
        row = []
        cache = {a: run(how, a, mode) for a in A}
        for a in A:
            r = score(examples, probs, cues, cache[a])
            row.append(f"{a}:{r['primary']:.3f}/{r['macro']:.3f}")
        # nested choice of a: best primary on the other sources
        over = {}
        for s, idx in by_src.items():
            others = [i for i in gold_i if source_of(examples[i].group) != s]
            best = max(A, key=lambda a: (score_on(others, cache[a])["primary"], -a))
            over.update(sub(cache[best], idx))
        r = score(examples, probs, cues, over)
        print(mode, how, " ".join(row), "| nested", r)

if len(sys.argv) > 3:
    how, a, mode = sys.argv[3], float(sys.argv[4]), sys.argv[2]
    over = run(how, a, mode)
    for i in gold_i:
        g = gold_of(examples[i])
        s0 = decide(probs[i], settings, cues[i])["root_cause_categories"]; p0 = primary_of(probs[i], s0)
        s1, p1 = over[i]
        if p0 != p1:
            print(source_of(examples[i].group)[:14], "gold", sorted(g), p0, "->", p1, "OK" if p1 in g else ("lost" if p0 in g else "-"))
