"""Unit-level category model with a 'none' class, applied to every unit of a held-out document:
each category finds its own supporting units (LOSO; scratch). Writes unit_scores_all*.json in the
format mix.py reads (units: [field, weight, probs over root-cause classes])."""
import json, sys, time, glob, random
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from common import *
from pmparse.evaluation.corpus import resolve_reference
from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer
from sklearn.pipeline import make_pipeline, make_union
from sklearn.linear_model import LogisticRegression

tag = sys.argv[1] if len(sys.argv) > 1 else "all"
NONE_W = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
DOCS = tag.endswith("_docs")
e, examples, units, _ = load()
root = Path(e["root"])
stretches = [s for s in json.loads((D / "stretches.json").read_text()) if s["text"].strip()]
CAUSAL = ("root_cause", "trigger", "contributing_factors")
# 'none' units: field-model units of fully annotated documents (gold, annotated cards) that overlap no causal span
full = [(r["path"], r["spans"]) for r in e["gold"]]
for f in sorted(glob.glob("corpus/field_spans/batch_*.jsonl")):
    for line in open(f):
        r = json.loads(line)
        rel = resolve_reference(root, r["path"])
        if rel and "root_cause" in r.get("annotated", []):
            full.append((rel, r["spans"]))
none = []
for path, spans in full:
    u = units.get(str(root / path))
    if not u: continue
    cs = [(x["start"], x["end"]) for x in spans if x["field"] in CAUSAL]
    for a, b, lab, sc in u["units"]:
        if b - a >= 15 and not any(a < y and x < b for x, y in cs):
            none.append({"text": u["text"][a:b], "cats": ["none"], "source": source_of(path), "path": path})
print("none units", len(none), flush=True)
gold_idx = [i for i, ex in enumerate(examples) if ex.source == "gold" and any(k.startswith(RC) for k in ex.labels)]
if DOCS:
    from pmparse.training.tags.fit import gold_folds
    gf = gold_folds(e["gold"], settings)
    fold_of_path = {r["path"]: gf[j] for j, r in enumerate(e["gold"])}
    key = lambda path, src: fold_of_path.get(path, -1)
    for x in stretches: x["source"] = key(x["path"], None)
    for x in none: x["source"] = key(x["path"], None)
    src_of_i = lambda i: fold_of_path[examples[i].group]
else:
    src_of_i = lambda i: source_of(examples[i].group)
sources = sorted({src_of_i(i) for i in gold_idx})

def feats():
    return make_union(
        make_pipeline(HashingVectorizer(n_features=2**15, ngram_range=(1, 2), alternate_sign=False, norm=None), TfidfTransformer(sublinear_tf=True)),
        make_pipeline(HashingVectorizer(n_features=2**15, analyzer="char_wb", ngram_range=(3, 5), alternate_sign=False, norm=None), TfidfTransformer(sublinear_tf=True)))

class OvR:
    def __init__(self, X, ys, ws):
        self.classes_ = sorted(set(ys)); ys = np.array(ys)
        self.m = [LogisticRegression(C=4.0, solver="liblinear", dual=True, max_iter=5000).fit(X, (ys == c).astype(int), sample_weight=ws) for c in self.classes_]
    def predict_proba(self, X):
        P = np.column_stack([m.predict_proba(X)[:, 1] for m in self.m])
        return P / P.sum(1, keepdims=True)

out = {}; t = time.time()
for s in sources:
    texts, ys, ws = [], [], []
    for x in stretches:
        if x["source"] == s: continue
        for c in x["cats"]:
            texts.append(x["text"]); ys.append(c); ws.append(1.0 / len(x["cats"]))
    for x in none:
        if x["source"] == s: continue
        texts.append(x["text"]); ys.append("none"); ws.append(NONE_W)
    f = feats(); X = f.fit_transform(texts)
    clf = OvR(X, ys, np.array(ws))
    ni = clf.classes_.index("none")
    keep = [j for j, c in enumerate(clf.classes_) if c != "none"]
    for i in [i for i in gold_idx if src_of_i(i) == s]:
        u = units[str(root / examples[i].group)]
        us_ = [(a, b, lab, sc) for a, b, lab, sc in u["units"] if b - a >= 15]
        if not us_:
            out[i] = {"units": [], "classes": [clf.classes_[j] for j in keep]}; continue
        P = clf.predict_proba(f.transform([u["text"][a:b] for a, b, _, _ in us_]))
        # a unit's weight: how causal the unit model finds it (1 - P(none)); its vector: the categories renormalised
        rows = []
        for j, (a, b, lab, sc) in enumerate(us_):
            w = 1 - P[j, ni]; q = P[j, keep] / max(1e-9, P[j, keep].sum())
            rows.append([lab, float(w), q.round(4).tolist()])
        out[i] = {"units": rows, "classes": [clf.classes_[j] for j in keep]}
    print(s, round(time.time() - t), flush=True)
(D / f"unit_scores_{tag}.json").write_text(json.dumps(out))
