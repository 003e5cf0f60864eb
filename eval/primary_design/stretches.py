"""Category-labelled stretches for a unit-level category model (scratch)."""
import json, glob, sys
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from pathlib import Path
from common import *
from pmparse.training.tags.labels import read_team_labels, labelled_texts, LABELS_DIR
from pmparse.evaluation.corpus import resolve_reference

e, examples, units, probs = load()
root = Path(e["root"])
gold = e["gold"]
gold_paths = {r["path"] for r in gold}
gold_shas = {r["sha256"] for r in gold if r.get("sha256")}
out = []
read = read_team_labels(sorted(LABELS_DIR.glob("*.jsonl")), tax)
kept, _ = labelled_texts(root, read, gold_paths, gold_shas)
team_cats = {}
for label, text in kept:
    team_cats[label.path] = list(label.root_cause_categories)
    for ev in label.evidence:
        if ev.label.startswith(RC):
            out.append({"text": text[ev.start:ev.end], "cats": [ev.label[len(RC):]], "source": source_of(label.path),
                        "kind": "team_evidence", "path": label.path})
def doc_text_of(path):
    u = units.get(str(root / path))
    if u is not None:
        return u["text"]
    return open(root / path, encoding="utf-8", newline="").read()
for r in gold:
    cats = r.get("card", {}).get("root_cause_categories") or []
    if not cats:
        continue
    t = doc_text_of(r["path"])
    for s in r.get("spans", []):
        if s["field"] in ("root_cause", "trigger"):
            out.append({"text": t[s["start"]:s["end"]], "cats": cats, "source": source_of(r["path"]),
                        "kind": "gold_" + s["field"], "path": r["path"]})
n_fs = 0
for f in sorted(glob.glob("corpus/field_spans/batch_*.jsonl")):
    for line in open(f):
        r = json.loads(line)
        rel = resolve_reference(root, r["path"])
        if rel is None or rel in gold_paths:
            continue
        cats = r.get("card", {}).get("root_cause_categories") or []
        if not cats:
            continue
        try:
            t = open(root / rel, encoding="utf-8", newline="").read()
        except OSError:
            continue
        for s in r.get("spans", []):
            if s["field"] in ("root_cause", "trigger"):
                n_fs += 1
                out.append({"text": t[s["start"]:s["end"]], "cats": cats, "source": source_of(rel),
                            "kind": "card_" + s["field"], "path": rel})
for f in sorted(glob.glob("corpus/root_cause_spans/*.jsonl")):
    for line in open(f):
        r = json.loads(line)
        rel = resolve_reference(root, r["path"])
        if rel is None or rel not in team_cats:
            continue
        t = open(root / rel, encoding="utf-8", newline="").read()
        for s in r["spans"]:
            out.append({"text": t[s["start"]:s["end"]], "cats": team_cats[rel], "source": source_of(rel),
                        "kind": "team_rc_span", "path": rel})
(D / "stretches.json").write_text(json.dumps(out))
from collections import Counter
print(Counter(x["kind"] for x in out))
print(Counter(c for x in out for c in x["cats"]))
