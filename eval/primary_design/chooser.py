"""A second-stage chooser of the primary root cause among the document model's top-3 (scratch).
Fitted per held-out source on the other sources' gold documents (their LOSO probabilities)."""
import json, sys, math
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from common import *
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

feat_set = sys.argv[1] if len(sys.argv) > 1 else "all"
C = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
K = int(sys.argv[3]) if len(sys.argv) > 3 else 3
e, examples, units, probs = load()
cues = [set(c) for c in e["cues"]]
cr = {int(k): v for k, v in json.loads((D / "cue_regions.json").read_text()).items()}
us = {int(k): v for k, v in json.loads((D / "unit_scores_base.json").read_text()).items()}
gi = [i for i, ex in enumerate(examples) if ex.source == "gold" and any(k.startswith(RC) for k in ex.labels)]
src = {i: source_of(examples[i].group) for i in gi}
# label counts of the training rows (gold and team documents) by source, for priors
doc_rows = [ex for ex in examples if ex.source in ("gold", "team")]

def prior(s):
    rows = [ex for ex in doc_rows if source_of(ex.group) != s]
    cnt = Counter(c for ex in rows for c in gold_of(ex))
    return {c: math.log((cnt[c] + 1) / (len(rows) + 10)) for c in RC_IDS}

def unit_mean(i):
    u = us.get(i)
    if not u or not u["units"]:
        return None
    W = {"root_cause": 1.0, "trigger": 0.6, "contributing_factors": 0.4}
    P = np.array([x[2] for x in u["units"]]); w = np.array([x[1] * W[x[0]] for x in u["units"]])
    v = (w[:, None] * P).sum(0) / w.sum()
    return dict(zip(u["classes"], v))

def cands(i, pri):
    p = probs[i]
    order = sorted(RC_IDS, key=lambda c: -p[RC + c])[:K]
    s = decide(p, settings, cues[i])["root_cause_categories"]
    order += [c for c in sorted(s) if c not in order]
    top = p[RC + order[0]]
    r = cr[i]; um = unit_mean(i)
    rows = []
    for rank, c in enumerate(order):
        k = RC + c
        tot_rc = sum(v for kk, v in r["root_cause"].items() if kk.startswith(RC)) or 0
        f = [p[k], p[k] - top, rank == 0, rank == 1, c in s, c == primary_of(p, s), c == 'unknown' and c in s]
        if feat_set in ("all", "nounit", "ids", "idsunit"):
            f += [pri[c]]
            f += [math.log1p(r[g].get(k, 0)) for g in ("root_cause", "trigger", "contributing_factors", "whole")]
            f += [r["root_cause"].get(k, 0) / tot_rc if tot_rc else 0.0]
        if feat_set in ("all", "unit", "idsunit"):
            f += [um[c] if um else 0.0, um is not None]
        if feat_set in ("ids", "idsunit"):
            f += [c == x for x in RC_IDS]
        rows.append((c, [float(x) for x in f]))
    return rows, s

over = {}
for s_out in sorted(set(src.values())):
    pri = prior(s_out)
    X, y = [], []
    for i in gi:
        if src[i] == s_out: continue
        g = gold_of(examples[i])
        for c, f in cands(i, pri)[0]:
            X.append(f); y.append(int(c in g))
    sc = StandardScaler().fit(X)
    m = LogisticRegression(C=C, max_iter=2000).fit(sc.transform(X), y)
    for i in gi:
        if src[i] != s_out: continue
        rows, s = cands(i, pri)
        z = m.decision_function(sc.transform([f for _, f in rows]))
        best = rows[int(np.argmax(z))][0]
        s = set(s)
        if best not in s:
            s.discard("unknown")
            if len(s) >= settings.max_root_causes:
                s.discard(min(s, key=lambda c: probs[i][RC + c]))
            s.add(best)
        over[i] = (s, best)
print(feat_set, C, K, "baseline", score(examples, probs, cues), "chooser", score(examples, probs, cues, over))
