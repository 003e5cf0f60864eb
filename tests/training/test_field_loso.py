"""What leave-one-source-out tuning maximises (pmparse.training.field_loso)."""

from pmparse.card.schema import TEXT_FIELDS
from pmparse.training.field_loso import _objective


def _f1(macro: float, **fields: float) -> dict:
    return {"macro_f1": macro, **{name: fields.get(name, 0.5) for name in TEXT_FIELDS}}


def test_macro_f1_is_not_traded_for_a_tiny_shortfall_against_headings():
    headings = {name: 0.5 for name in TEXT_FIELDS} | {"action_items": 0.78}
    low_threshold = _objective(_f1(0.46), _f1(0.48, action_items=0.765), headings)
    high_threshold = _objective(_f1(0.34), _f1(0.41, action_items=0.77), headings)
    assert low_threshold > high_threshold


def test_a_field_far_below_its_headings_costs_more_than_a_little_macro():
    headings = {name: 0.5 for name in TEXT_FIELDS} | {"lessons": 0.9}
    above = _objective(_f1(0.45), _f1(0.47, lessons=0.9), headings)
    below = _objective(_f1(0.45), _f1(0.48, lessons=0.3), headings)
    assert above > below
