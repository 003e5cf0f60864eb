"""Training the organisation ranker on the corpus's labelled organisations (issue 35).

Every labelled line counts: the first-pass gold cards (``eval/gold/*.jsonl``) and the all-field
training cards (``corpus/field_spans/batch_*.jsonl``), whatever source they come from, so new
batches join when they land. Each document gives two sets of candidates, with its public address
(as ``pmparse convert --url-base`` converts a checkout) and from the text alone (as a file handed
over without one), and a candidate is positive when its name is the labelled organisation
(case and spacing ignored). A document labelled with no organisation teaches the ranker to name
none.

The model is a logistic regression over :data:`~pmparse.nlp.extractors.organisation_rank.FEATURES`
fitted here (a softmax over each document's candidates and "none", L2 penalty, L-BFGS from
scipy); the threshold under which no candidate is taken
is chosen on the training rows, a wrong organisation costing twice what a missing one does.
``python -m pmparse.training.organisation_main`` measures it with whole sources held out (sources of one
author share a ``group`` in ``corpus/manifest.yaml``), then fits it on every line and writes
``models/organisation/``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from pmparse.nlp.extractors.organisation_rank import FEATURES, Candidate, Ranker

#: L2 penalty of the fit (on standardised features).
PENALTY = 1.0
#: What a wrong organisation costs, against 1 for a right one, when the threshold is chosen.
WRONG_COST = 0.5
_THRESHOLDS = tuple(round(0.05 * k, 2) for k in range(0, 18))

#: ``(candidates, labelled organisation or None, hold-out group)`` of one document view.
Row = tuple[list[Candidate], "str | None", str]


def same_name(a: object, b: object) -> bool:
    """Whether two organisation names are the same (case and spacing ignored)."""
    return a is not None and b is not None and " ".join(str(a).split()).casefold() == " ".join(str(b).split()).casefold()


def fit(rows: Sequence[Row], penalty: float = PENALTY) -> Ranker:
    """A ranker fitted on ``rows``, its threshold chosen on them.

    The choice model of :class:`~pmparse.nlp.extractors.organisation_rank.Ranker`: a softmax over
    each document's candidates and "none", whose log-likelihood is maximised with an L2 penalty
    (L-BFGS); "none" is the right choice where the labelled organisation is no candidate or the
    document is labelled with none.

    Args:
        rows: Labelled document views.
        penalty: L2 penalty on the weights of the scaled features.
    """
    from scipy.optimize import minimize

    blocks, targets = [], []
    for cands, gold, _ in rows:
        if not cands:
            continue
        blocks.append(np.array([c.vector() for c in cands], dtype=float))
        hit = [i for i, c in enumerate(cands) if same_name(c.value, gold)]
        targets.append(hit[0] + 1 if hit else 0)
    width = len(FEATURES)
    stacked = np.vstack(blocks) if blocks else np.zeros((0, width))
    scale = stacked.std(axis=0) if len(stacked) else np.ones(width)
    scale[scale < 1e-9] = 1.0
    scale[0] = 1.0
    mean = np.zeros(width)
    scaled = [b / scale for b in blocks]
    sizes = [len(b) for b in scaled]
    z = np.vstack(scaled) if scaled else np.zeros((0, width))
    starts = np.cumsum([0, *sizes])

    doc = np.repeat(np.arange(len(sizes)), sizes)
    chosen = np.array(targets)
    rows_of_targets = np.array([starts[k] + t - 1 for k, t in enumerate(targets) if t > 0], dtype=int)
    named = chosen > 0

    def loss(weights: np.ndarray) -> tuple[float, np.ndarray]:
        # a softmax per document over "none" (score weights[0]) and its candidates, in segments
        logits = z @ weights
        top = np.maximum(np.maximum.reduceat(logits, starts[:-1]), weights[0])
        odds = np.exp(logits - top[doc])
        none = np.exp(weights[0] - top)
        norm = none + np.add.reduceat(odds, starts[:-1])
        picked = np.where(named, 0.0, weights[0] - top)
        picked[named] = logits[rows_of_targets] - top[named]
        total = -float((picked - np.log(norm)).sum()) + 0.5 * penalty * float(weights[1:] @ weights[1:])
        p = odds / norm[doc]
        gradient = p @ z - z[rows_of_targets].sum(axis=0)
        gradient[0] += float((none / norm).sum()) - float((~named).sum())
        gradient[1:] += penalty * weights[1:]
        return total, gradient

    found = minimize(loss, np.zeros(width), jac=True, method="L-BFGS-B", options={"maxiter": 500})
    weights = found.x
    best = max(_THRESHOLDS, key=lambda t: (_utility(rows, Ranker(weights, mean, scale, t)), -t))
    return Ranker(weights, mean, scale, best)


def _utility(rows: Sequence[Row], ranker: Ranker) -> float:
    total = 0.0
    for cands, gold, _ in rows:
        picked = pick(cands, ranker)
        if picked is None:
            continue
        total += 1.0 if same_name(picked, gold) else -WRONG_COST
    return total


def pick(cands: Sequence[Candidate], ranker: Ranker) -> str | None:
    """The name the ranker takes among ``cands`` (None below its threshold)."""
    if not cands:
        return None
    probabilities = ranker.scores(cands)
    best = int(np.argmax(probabilities))
    return cands[best].value if probabilities[best] >= ranker.threshold else None


def training_rows(golds: Sequence[dict]) -> list[Row]:
    """Both views of every labelled document as training rows: candidates with the address and
    from the text alone."""
    rows: list[Row] = []
    for gold in golds:
        for key in ("_candidates", "_candidates_text"):
            if gold.get(key):
                rows.append((gold[key], gold.get("organisation"), gold["_group"]))
    return rows


def rule_choice(cands: Sequence[Candidate]) -> str | None:
    """The name the rule cascade chose among ``cands`` (None when it chose none)."""
    return next((c.value for c in cands if c.features.get("rule_pick")), None)


def held_out(rows: Sequence[Row], train: Sequence[Row] | None = None) -> list[str | None]:
    """Each row's pick by a ranker fitted on ``train`` (``rows`` when None) without the rows of its
    hold-out group."""
    train = rows if train is None else train
    picks: list[str | None] = [None] * len(rows)
    for group in sorted({g for _, _, g in rows}):
        ranker = fit([r for r in train if r[2] != group])
        for i, row in enumerate(rows):
            if row[2] == group:
                picks[i] = pick(row[0], ranker)
    return picks
