"""The pure helpers of eval/encoder_primary.py: chunking, pooling and the source-held-out choices."""

import importlib.util
import sys

import numpy as np
import pytest

from pmparse.evaluation.corpus import REPO_ROOT


@pytest.fixture(scope="module")
def ep():
    spec = importlib.util.spec_from_file_location("encoder_primary", REPO_ROOT / "eval" / "encoder_primary.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)
        sys.modules.pop("primary_category", None)


def case(ep, source, gold, chosen, ovr, soft=None):
    return ep.pc.Case(source, set(gold), sorted(chosen), ovr, soft or {})


def test_chunk_spans_cut_at_piece_boundaries(ep):
    offsets = [(0, 3), (4, 7), (8, 9), (10, 14), (15, 20)]
    assert ep.chunk_spans(offsets, 2) == [(0, 7), (8, 14), (15, 20)]
    assert ep.chunk_spans(offsets, 5) == [(0, 20)]
    assert ep.chunk_spans([], 2) == [(0, 0)]


def test_mean_normalised_pools_each_texts_rows(ep):
    vectors = np.array([[1.0, 0.0], [0.0, 1.0], [3.0, 4.0]])
    out = ep.mean_normalised(vectors, [2, 1])
    assert out.shape == (2, 2)
    assert out[0] == pytest.approx([2 ** -0.5, 2 ** -0.5])
    assert out[1] == pytest.approx([0.6, 0.8])


def test_averaged_counts_a_missing_category_as_zero(ep):
    assert ep.averaged([{"a": 0.8, "b": 0.2}], [{"a": 0.4, "c": 0.6}]) == [pytest.approx({"a": 0.6, "b": 0.1, "c": 0.3})]


def test_loso_probs_never_train_on_the_held_out_fold(ep):
    # fold 0 teaches a -> x, fold 1 teaches a -> y; rows without a fold train everywhere
    train_x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    labels = [["x"], ["y"], ["y"], ["x"], ["x", "y"]]
    folds = [0, 0, 1, 1, None]
    probs = ep.loso_probs(train_x, labels, folds, np.array([[1.0, 0.0], [1.0, 0.0]]), [0, 1], c=10.0)
    assert probs[0]["y"] > probs[0]["x"]  # predicted from fold 1's rows
    assert probs[1]["x"] > probs[1]["y"]  # predicted from fold 0's rows


def test_alone_and_mixed_shares(ep):
    cases = [case(ep, "s", ["b"], ["a", "b"], {"a": 0.9, "b": 0.6}, {"a": 0.1, "b": 0.8, "c": 0.1}),
             case(ep, "t", ["c"], ["a"], {"a": 0.9, "c": 0.1}, {"a": 0.2, "c": 0.8})]
    assert ep.alone_share(cases) == 1.0
    assert ep.mixed_share(cases, 0.0) == 0.0
    assert ep.mixed_share(cases, 1.0) == 0.5  # c is not kept on the second


def test_nested_share_chooses_on_the_other_sources_only(ep):
    # option "good" is right on sources s and t, "bad" only on u; u's choice is made on s and t
    def cases(right):
        return [case(ep, src, ["b"], ["a", "b"], {"a": 0.6, "b": 0.4},
                     {"a": 0.1, "b": 0.9} if src in right else {"a": 0.9, "b": 0.1}) for src in "stu"]

    options = {"bad": cases("u"), "good": cases("st")}
    share, choices = ep.nested_share(options, None)
    # s: chosen on t, u: tie -> the earlier option "bad" (wrong on s); t likewise; u: "good" (wrong on u)
    assert choices == [("bad", None), ("bad", None), ("good", None)]
    assert share == 0.0
    share, choices = ep.nested_share(options, (0.0, 1.0))
    # the one-vs-rest scores (weight 0) are wrong everywhere; s and t: (bad, 1) and (good, 1) tie on
    # one hit each, the earlier option wins; u: (good, 1) has two
    assert choices == [("bad", 1.0), ("bad", 1.0), ("good", 1.0)]
    assert share == 0.0
    three = {"good": cases("stu")}
    assert ep.nested_share(three, (0.0, 1.0)) == (1.0, [("good", 1.0)] * 3)


def test_document_folds_are_balanced_and_repeatable(ep):
    groups = [f"d{i}" for i in range(11)] + ["d0"]
    folds = ep.document_folds(groups, 5, seed=0)
    assert sorted(folds) == sorted(set(groups))
    assert sorted(np.bincount(list(folds.values()))) == [2, 2, 2, 2, 3]
    assert folds == ep.document_folds(groups, 5, seed=0)
