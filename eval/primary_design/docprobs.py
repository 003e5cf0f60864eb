"""Documents-held-out probabilities of the shipped design (seed 0, 5 folds), from the cached rows (scratch)."""
import json, sys
sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
from common import *
from pmparse.nlp.tag_reading import Matchers, model_rows
from pmparse.training.tags.fit import cross_validate, row_folds, gold_folds
e, examples, units, _ = load()
rows = np.array([(ex.focus, ex.whole[:20000], c) for ex, c in zip(examples, e["cues_str"])], dtype=object).reshape(-1, 3)
probs = cross_validate(examples, rows, tax, settings, row_folds(examples, e["gold"], gold_folds(e["gold"], settings)), jobs=1)
(D / "doc_probs.json").write_text(json.dumps(probs))
cues = [set(c) for c in e["cues"]]
print(score(examples, probs, cues))
