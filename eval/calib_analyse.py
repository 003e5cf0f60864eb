"""Per-group ECE / precision@0.8 of held-out items: pooled isotonic (shipped) vs a familiarity-aware
logistic calibration, both fitted on the other groups only (nested by hold-out group)."""
import json, sys
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.isotonic import IsotonicRegression
sys.path.insert(0, "/work/main/src")
from pmparse.training.field_calibration import calibration_figures
rows = json.load(open(sys.argv[1]))
thr = float(sys.argv[2]) if len(sys.argv) > 2 else 0.3
fields = sorted({r["field"] for r in rows})
def X(rs, kind):
    s = np.array([r["score"] for r in rs]); lg = np.log(np.clip(s, 1e-4, 1 - 1e-4) / (1 - np.clip(s, 1e-4, 1 - 1e-4)))
    cols = [lg]
    if kind in ("fam", "fam_field"):
        cols += [np.array([r["known"] for r in rs]), np.array([r["certainty"] for r in rs]), np.array([r["entropy"] for r in rs]),
                 lg * np.array([r["known"] for r in rs]), lg * np.array([r["certainty"] for r in rs])]
    if kind == "fam_field":
        cols += [np.array([r["field"] == f for r in rs], dtype=float) for f in fields]
    return np.column_stack(cols)
for variant in ("stripped", "headed"):
    vr = [r for r in rows if r["variant"] == variant]
    groups = sorted({r["group"] for r in vr})
    out = {}
    for kind in ("iso", "logit", "fam", "fam_field"):
        conf = {}
        for g in groups:
            tr = [r for r in rows if r["group"] != g]   # both variants of the other groups, as shipped
            te = [r for r in vr if r["group"] == g]
            y = np.array([r["right"] for r in tr], dtype=float)
            if kind == "iso":
                m = IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip").fit([r["score"] for r in tr], y)
                conf[g] = m.predict([r["score"] for r in te])
            else:
                m = LogisticRegression(C=1.0, max_iter=2000).fit(X(tr, kind), y)
                conf[g] = m.predict_proba(X(te, kind))[:, 1]
        per, allc, allr = {}, [], []
        for g in groups:
            te = [r for r in vr if r["group"] == g]
            c = conf[g]; right = np.array([r["right"] for r in te], dtype=float)
            keep = c >= thr
            docs = len({r["doc"] for r in te})
            f = calibration_figures(c[keep], right[keep])
            per[g] = (docs, int(keep.sum()), f["ece"], f.get("precision_at_0.8"))
            allc += list(c[keep]); allr += list(right[keep])
        pooled = calibration_figures(np.array(allc), np.array(allr))
        print(variant, kind, "pooled ece %.3f p@0.8 %s n %d" % (pooled["ece"], pooled.get("precision_at_0.8"), len(allc)))
        for g, v in per.items():
            if v[0] >= 5:
                print("   %-32s docs %3d units %4d ece %.3f p@0.8 %s" % (g, *v))
