"""Capture held-out units (raw labeler score, right, field, doc features) from the shipped LOSO recipe."""
import json, sys
import numpy as np
import pmparse.training.field_loso as fl
from pmparse.training.fields import DEFAULT_SETTINGS, WRITTEN_WEIGHT
from pmparse.evaluation.corpus import corpus_root
from pmparse.evaluation.gold import GOLD_DIR
from pmparse.nlp.components.fields import unit_sections
from pmparse.card.schema import TEXT_FIELDS

rows = []
def hook(held):
    settings = DEFAULT_SETTINGS.replaced(threshold=0.0)
    for variant, items in held.items():
        for item in items:
            item.calibration = None
            fl._predict(item, "pipeline", settings)
            secs = unit_sections(item.doc)
            known = float(np.mean([lab in TEXT_FIELDS or lab == "none" for lab, _ in secs])) if secs else 0.0
            raw = item.raw
            certainty = float(raw.max(axis=1).mean()) if len(raw) else 0.0
            ent = float((-(np.clip(raw, 1e-9, 1) * np.log(np.clip(raw, 1e-9, 1))).sum(axis=1)).mean()) if len(raw) else 0.0
            group = item.doc.spans["fields"]
            for span, score in zip(group, group.attrs["scores"]):
                rows.append({"variant": variant, "group": item.group, "doc": item.id, "field": span.label_,
                             "score": float(score), "right": bool(fl.unit_right(item, span.start_char, span.end_char, span.label_)),
                             "known": known, "certainty": certainty, "entropy": ent, "units": len(raw)})
    json.dump(rows, open(sys.argv[1], "w"))
    print("captured", len(rows), flush=True)

fl.leave_one_source_out(corpus_root(None), GOLD_DIR, 0, DEFAULT_SETTINGS, 100, labels="annotated",
                        calibrate=True, written=WRITTEN_WEIGHT, heading_model=True, on_held_out=hook)
