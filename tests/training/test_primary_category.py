"""The pure helpers of eval/primary_category.py: how the primary root-cause category experiments choose and score."""

import importlib.util
import sys

import numpy as np
import pytest

from pmparse.evaluation.corpus import REPO_ROOT


@pytest.fixture(scope="module")
def pc():
    spec = importlib.util.spec_from_file_location("primary_category", REPO_ROOT / "eval" / "primary_category.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(spec.name, None)


def case(pc, source, gold, chosen, ovr, soft=None, focus_cues=None, unit_cues=None):
    return pc.Case(source, set(gold), sorted(chosen), ovr, soft or {}, focus_cues or {}, unit_cues or {})


def test_root_cause_ids_keep_positive_root_causes_only(pc):
    labels = {"root_cause_categories.software_bug": 1, "root_cause_categories.unknown": 0,
              "contributing_factor_categories.design": 1, "root_cause_categories.capacity_exhaustion": 1}
    assert pc.root_cause_ids(labels) == ["capacity_exhaustion", "software_bug"]


def test_spread_gives_each_document_a_total_weight_of_one(pc):
    index, labels, weights = pc.spread([["a", "b"], [], ["c"]])
    assert index == [0, 0, 2]
    assert labels == ["a", "b", "c"]
    assert weights == [0.5, 0.5, 1.0]


def test_balanced_weights_give_every_label_the_same_total(pc):
    w = pc.balanced(["a", "a", "a", "b"], [1.0, 1.0, 1.0, 1.0])
    assert w[:3].sum() == pytest.approx(w[3])
    assert w.mean() == pytest.approx(1.0)


def test_mixed_primary_moves_from_one_vs_rest_to_softmax_with_alpha(pc):
    c = case(pc, "s", ["b"], ["a", "b"], {"a": 0.9, "b": 0.6}, soft={"a": 0.1, "b": 0.8})
    assert pc.mixed_primary(c, 0.0) == "a"
    assert pc.mixed_primary(c, 1.0) == "b"
    assert pc.mixed_primary(c, 0.5) == "b"  # 0.5 against 0.7
    # a category the decision rules did not keep is never the primary
    c2 = case(pc, "s", ["z"], ["a"], {"a": 0.2, "z": 0.9}, soft={"z": 1.0})
    assert pc.mixed_primary(c2, 1.0) == "a"
    assert pc.mixed_primary(case(pc, "s", ["a"], [], {"a": 0.9}), 0.5) is None


def test_fit_weights_changes_a_weight_only_when_it_gains_a_hit(pc):
    cases = [case(pc, "s", ["b"], ["a", "b"], {"a": 0.6, "b": 0.5}),
             case(pc, "s", ["a"], ["a"], {"a": 0.4, "b": 0.1})]
    weights = pc.fit_weights(cases, ["a", "b"])
    assert all(pc.weighted_primary(c, weights) in c.gold for c in cases)
    # nothing to gain: every weight stays 1
    assert pc.fit_weights(cases[1:], ["a", "b"]) == {"a": 1.0, "b": 1.0}
    # any category: the best weighted one overall, kept or not
    assert pc.weighted_primary(cases[1], {"b": 5.0}, kept_only=False) == "b"


def test_cue_rules_promote_and_demote_by_their_scope(pc):
    c = case(pc, "s", ["b"], ["a", "b"], {"a": 0.9, "b": 0.5}, focus_cues={"b": 2}, unit_cues={"a": 1})
    assert pc.cue_primary(c, []) == "a"
    assert pc.cue_primary(c, [("b", "promote", "focus", 2)]) == "b"
    assert pc.cue_primary(c, [("b", "promote", "units", 1)]) == "a"
    assert pc.cue_primary(c, [("a", "demote", "units", 2)]) == "b"
    assert pc.cue_primary(c, [("z", "promote", "focus", 1)]) == "a"  # a category not kept changes nothing


def test_greedy_rules_need_the_least_gain(pc):
    cases = [case(pc, "s", ["b"], ["a", "b"], {"a": 0.9, "b": 0.5}, focus_cues={"b": 1}) for _ in range(2)]
    rules = pc.candidate_rules(["b"])
    assert pc.greedy_rules(cases, rules) == [("b", "promote", "focus", 1)]
    assert pc.greedy_rules(cases, rules, min_gain=3) == []


def test_held_out_by_source_never_fits_on_the_scored_source(pc):
    cases = [case(pc, "x", ["a"], ["a"], {"a": 1.0}), case(pc, "y", ["b"], ["b"], {"b": 1.0}),
             case(pc, "y", ["b"], ["b"], {"b": 1.0})]
    seen = []

    def fit(train):
        seen.append({c.source for c in train})
        return {c.source for c in train}

    # the pick is right only when the held-out source was not among the fitted ones
    share = pc.held_out_by_source(cases, fit, lambda c, fitted: c.chosen[0] if c.source not in fitted else None)
    assert share == 1.0
    assert seen == [{"y"}, {"x"}]
    assert pc.held_out_by_source([], fit, lambda c, f: None) == 0.0
    assert np.isclose(pc.held_out_by_source(cases, lambda t: None, lambda c, f: "a"), 1 / 3)
