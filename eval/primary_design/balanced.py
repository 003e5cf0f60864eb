"""LOSO of the shipped design with source-balanced row weights (scratch): weight *= (median/count)^power,
count = a source's document rows."""
import json, sys, time, dataclasses
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from common import *
from pmparse.training.tags.fit import cross_validate, row_folds
power = float(sys.argv[1])
e, examples, units, _ = load()
rows = np.array([(ex.focus, ex.whole[:20000], c) for ex, c in zip(examples, e["cues_str"])], dtype=object).reshape(-1, 3)
cnt = Counter(source_of(ex.group) for ex in examples if ex.source not in ("gold_spans", "team_spans", "field_card_spans", "written_card_spans"))
med = float(np.median(list(cnt.values())))
ex2 = [dataclasses.replace(ex, weight=ex.weight * min(4.0, (med / cnt[source_of(ex.group)]) ** power) if cnt[source_of(ex.group)] else ex.weight) for ex in examples]
print(sorted(cnt.items(), key=lambda x: -x[1])[:8], med, flush=True)
t = time.time()
probs = cross_validate(ex2, rows, tax, settings, row_folds(ex2, e["gold"]), jobs=1)
(D / f"loso_probs_bal{power}.json").write_text(json.dumps(probs))
cues = [set(c) for c in e["cues"]]
print(power, score(examples, probs, cues), round(time.time() - t), flush=True)
