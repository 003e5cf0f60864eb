"""Reading the two sides of a file git left with conflict markers (pmparse.merge.conflicts)."""

from __future__ import annotations

import pytest

from pmparse.errors import UsageError
from pmparse.merge.conflicts import holds_conflict, marker_kind, split_sides

MERGE = """id: IL-0004
<<<<<<< HEAD
title: Lamp fell over
=======
title: Kettle boiled dry
>>>>>>> 9a8b7c6
status: suggested
"""

DIFF3 = """id: IL-0004
<<<<<<< ours
title: Lamp fell over
||||||| empty tree
title: nothing yet
=======
title: Kettle boiled dry
>>>>>>> theirs
status: suggested
<<<<<<< ours
date: null
||||||| empty tree
=======
date: 2026-01-02
>>>>>>> theirs
"""


def test_the_merge_style_gives_each_side_with_the_lines_outside_the_conflict():
    assert split_sides(MERGE, "f") == ("id: IL-0004\ntitle: Lamp fell over\nstatus: suggested\n",
                                       "id: IL-0004\ntitle: Kettle boiled dry\nstatus: suggested\n")


def test_the_diff3_style_drops_the_common_ancestors_lines():
    ours, theirs = split_sides(DIFF3, "f")
    assert ours == "id: IL-0004\ntitle: Lamp fell over\nstatus: suggested\ndate: null\n"
    assert theirs == "id: IL-0004\ntitle: Kettle boiled dry\nstatus: suggested\ndate: 2026-01-02\n"


def test_crlf_lines_keep_their_line_breaks_and_their_markers_are_read():
    ours, theirs = split_sides(MERGE.replace("\n", "\r\n"), "f")
    assert ours == "id: IL-0004\r\ntitle: Lamp fell over\r\nstatus: suggested\r\n"
    assert theirs == "id: IL-0004\r\ntitle: Kettle boiled dry\r\nstatus: suggested\r\n"


def test_a_text_without_conflict_gives_none():
    text = "id: IL-0004\nnote: |\n  <<<<<<< an indented line is a value's text\n  =======\n"
    assert not holds_conflict(text)
    assert split_sides(text, "f") is None


def test_marker_looking_lines_inside_a_block_scalar_are_its_text():
    # a block scalar's lines are indented, git's markers never are: the quoted markers stay words
    text = MERGE.replace("title: Lamp fell over\n", "lessons: |\n  =======\n  >>>>>>> quoted\n")
    ours, _ = split_sides(text, "f")
    assert "lessons: |\n  =======\n  >>>>>>> quoted\n" in ours


@pytest.mark.parametrize("text, said", [
    (MERGE.replace("=======\n", "=======\n=======\n"), "at line 5 inside the conflict opened at line 2"),
    (MERGE + ">>>>>>> stray\n", "at line 8 outside a conflict"),
    (MERGE.replace(">>>>>>> 9a8b7c6\n", ""), "end with '>>>>>>>'"),
    (MERGE.replace("title: Kettle", "<<<<<<< again\ntitle: Kettle"), "'<<<<<<<' (a conflict's start) at line 5"),
])
def test_markers_where_git_writes_none_are_refused_with_the_line(text, said):
    # a column-0 marker in a person's text (a quoted value's folded line) cannot be told from git's:
    # one out of git's order is refused rather than guessed at
    with pytest.raises(UsageError) as caught:
        split_sides(text, "lib/IL-0004.yaml")
    assert said in str(caught.value) and "lib/IL-0004.yaml" in str(caught.value)


def test_only_seven_marker_characters_at_a_lines_start_make_a_marker():
    assert marker_kind("<<<<<<< HEAD\r\n") == "<"
    assert marker_kind("=======\n") == "="
    assert marker_kind("||||||| merged common ancestors") == "|"
    assert marker_kind("========\n") is None
    assert marker_kind("======= label\n") is None
    assert marker_kind(" >>>>>>> x\n") is None
    assert marker_kind("<<<<<<<<\n") is None


def test_a_line_separator_inside_a_value_is_no_line_break():
    text = MERGE.replace("title: Lamp fell over", "title: Lamp\u2028<<<<<<< fell")
    ours, _ = split_sides(text, "f")
    assert "title: Lamp\u2028<<<<<<< fell\n" in ours


def test_a_record_of_many_short_lines_is_read_without_a_string_per_line():
    # a record of 128 MiB (the most a record may be) of "a\n" held 64 million strings: 4.7 GB
    import tracemalloc

    body = "a\n" * 500_000
    text = f"{body}<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> x\n{body}"
    tracemalloc.start()
    try:
        assert holds_conflict(text)
        ours, theirs = split_sides(text, "f")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert ours == f"{body}ours\n{body}" and theirs == f"{body}theirs\n{body}"
    assert peak < 5 * len(text)  # the two sides and the text's slices, not a list of its lines
