import json, sys
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from common import *
from collections import Counter
e, examples, units, probs = load()
cues = [set(c) for c in e["cues"]]
gi = [i for i, ex in enumerate(examples) if ex.source == "gold" and gold_of(ex)]
topk = Counter(); wrong = Counter(); multi = 0; srcw = Counter(); srcn = Counter()
for i in gi:
    p = probs[i]; g = gold_of(examples[i])
    order = sorted([k for k in p if k.startswith(RC)], key=lambda k: -p[k])
    for k in (1, 2, 3):
        topk[k] += any(o[len(RC):] in g for o in order[:k])
    s = decide(p, settings, cues[i])["root_cause_categories"]
    pr = primary_of(p, s)
    srcn[source_of(examples[i].group)] += 1
    if pr not in g:
        wrong[(pr, tuple(sorted(g)))] += 1
        srcw[source_of(examples[i].group)] += 1
    multi += len(g) > 1
n = len(gi)
print("n", n, "multi-gold", multi, {k: round(v / n, 3) for k, v in topk.items()})
for k, v in wrong.most_common(25): print(v, k)
print({s: f"{srcw[s]}/{srcn[s]}" for s in srcn})
