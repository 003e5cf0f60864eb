from __future__ import annotations

from pmparse.rules.headings import load_headings

TABLE = load_headings()


def test_a_heading_written_with_a_contraction_maps_as_written_out():
    # "What we're doing to fix this" was no heading of the table, which knows "what we are doing
    # about it": the action items under it went to no field in a report with field headings
    for heading in ("What we're doing to fix this", "What we’re doing differently", "### What We're Doing About It",
                    "What we'll change", "What we’ve changed since"):
        assert TABLE.lookup(heading) == TABLE.lookup(heading.replace("’", "'").replace("'re", " are")
                                                     .replace("'ll", " will").replace("'ve", " have")), heading
        assert TABLE.lookup(heading) is not None and TABLE.lookup(heading)[0] == "action_items", heading
    assert TABLE.is_known("What we're doing about it")
    # an apostrophe of a name or a negation is left as it is
    assert TABLE.lookup("What didn't go well") == ("lessons", 0.9)
    assert TABLE.lookup("Zorbq's response") is None


def test_things_that_went_well_or_poorly_are_lessons():
    # "### Things that went poorly" under "# Root cause" passed the root cause on to a list of what
    # the responders did well and badly
    for heading in ("Things that went well", "### Things that went poorly", "The things that went wrong",
                    "Things that could have gone better"):
        assert TABLE.lookup(heading) == ("lessons", 0.75), heading
    assert TABLE.lookup("Things that changed") is None
