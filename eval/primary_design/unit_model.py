"""LOSO unit-level category model: trained on category-labelled stretches of the other sources,
applied to a gold document's focus units. Writes unit_scores.json: gold example index -> per-unit
probability vectors (scratch)."""
import json, sys, time
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from common import *
from pmparse.nlp.tag_reading import FOCUS_FIELDS, FOCUS_MIN_CONFIDENCE
from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer
from sklearn.pipeline import make_pipeline, make_union
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier

variant = sys.argv[1] if len(sys.argv) > 1 else "base"
ORACLE = variant.endswith("_oracle"); variant = variant.replace("_oracle", "")
BAL = variant.endswith("_bal"); variant = variant.replace("_bal", "")
KINDS = {"base": None, "evidence_only": {"team_evidence"}, "no_trigger": {"team_evidence", "gold_root_cause", "card_root_cause", "team_rc_span"}}[variant]
CW = 'balanced' if BAL else None
e, examples, units, _ = load()
root = Path(e["root"])
gold_rows = {r['path']: r for r in e['gold']}
stretches = [s for s in json.loads((D / "stretches.json").read_text()) if s["text"].strip() and (KINDS is None or s["kind"] in KINDS)]
gold_idx = [i for i, ex in enumerate(examples) if ex.source == "gold" and any(k.startswith(RC) for k in ex.labels)]
sources = sorted({source_of(examples[i].group) for i in gold_idx})

def feats():
    return make_union(
        make_pipeline(HashingVectorizer(n_features=2**15, ngram_range=(1, 2), alternate_sign=False, norm=None), TfidfTransformer(sublinear_tf=True)),
        make_pipeline(HashingVectorizer(n_features=2**15, analyzer="char_wb", ngram_range=(3, 5), alternate_sign=False, norm=None), TfidfTransformer(sublinear_tf=True)))

class OvR:
    """One liblinear logistic regression per class; probabilities normalised to sum 1."""
    def __init__(self, X, ys, ws):
        self.classes_ = sorted(set(ys))
        ys = np.array(ys)
        self.m = [LogisticRegression(C=4.0, solver="liblinear", dual=True, max_iter=5000, class_weight=CW).fit(X, (ys == c).astype(int), sample_weight=ws) for c in self.classes_]
    def predict_proba(self, X):
        P = np.column_stack([m.predict_proba(X)[:, 1] for m in self.m])
        return P / P.sum(1, keepdims=True)

out = {}
t = time.time()
for s in sources:
    tr = [x for x in stretches if x["source"] != s]
    texts, ys, ws = [], [], []
    for x in tr:
        for c in x["cats"]:
            texts.append(x["text"]); ys.append(c); ws.append(1.0 / len(x["cats"]))
    f = feats()
    X = f.fit_transform(texts)
    clf = OvR(X, ys, np.array(ws))
    for i in [i for i in gold_idx if source_of(examples[i].group) == s]:
        u = units[str(root / examples[i].group)]
        focus = [(a, b, lab, sc) for a, b, lab, sc in u["units"] if lab in FOCUS_FIELDS and sc >= FOCUS_MIN_CONFIDENCE]
        if ORACLE:
            row = gold_rows[examples[i].group]
            focus = [(x["start"], x["end"], x["field"], 1.0) for x in row.get("spans", []) if x["field"] in FOCUS_FIELDS]
        if not focus:
            out[i] = {"units": [], "classes": list(clf.classes_)}
            continue
        P = clf.predict_proba(f.transform([u["text"][a:b] for a, b, _, _ in focus]))
        out[i] = {"units": [[lab, sc, P[j].round(4).tolist()] for j, (a, b, lab, sc) in enumerate(focus)],
                  "classes": list(clf.classes_)}
    print(s, len(tr), round(time.time() - t), flush=True)
(D / f"unit_scores_{sys.argv[1]}.json").write_text(json.dumps(out))
