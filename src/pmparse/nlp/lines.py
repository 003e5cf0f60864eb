"""Line-level structure of a source text, shared by the sectionizer and the unit splitter.

Pure functions over a string: every result is a list of character offsets into it, so evidence
offsets stay exact whatever the markup.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass
from typing import Callable

_LINE = re.compile(r"[^\n]*\n?")
_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})")
_NAV_WORDS = re.compile(r"[^\W\d_]+")


def doc_text(doc) -> str:
    """The text of a spaCy ``Doc``, built once.

    ``Doc.text`` joins every token each time it is read (about 40 % of the pipeline's time when
    each component read it), so the text is kept in ``doc.user_data["pmparse_text"]``.
    ``pipeline.make_doc`` puts the source text there; a Doc made elsewhere gets it on first use.
    """
    text = doc.user_data.get("pmparse_text")
    if text is None:
        text = doc.text
        doc.user_data["pmparse_text"] = text
    return text


@dataclass(frozen=True)
class Line:
    """One line of the text: ``text[start:end]`` without its line break."""

    start: int
    end: int
    text: str

    @property
    def blank(self) -> bool:
        return not self.text.strip()


def split_lines(text: str) -> list[Line]:
    """All lines of ``text`` with their offsets (the line break and a trailing ``\\r`` excluded)."""
    lines = []
    for match in _LINE.finditer(text):
        start, end = match.span()
        if start == end:
            break
        body_end = end
        if text[body_end - 1 : body_end] == "\n":
            body_end -= 1
        if text[body_end - 1 : body_end] == "\r":
            body_end -= 1
        lines.append(Line(start, body_end, text[start:body_end]))
    return lines


@functools.lru_cache(maxsize=2)
def shared_lines(text: str) -> tuple[Line, ...]:
    """:func:`split_lines` of ``text``, computed once for the sectionizer and the unit splitter.

    Both split the same document into lines; the last two texts' lines are kept (a tuple, so
    neither caller can change the other's).
    """
    return tuple(split_lines(text))


class Mask:
    """Fast membership test for masked ``(start, end)`` regions."""

    def __init__(self, regions: list[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        # regions may arrive as lists (a Doc's user_data after serialisation turns tuples into lists)
        for start, end in sorted((start, end) for start, end in regions):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        self._starts = [m[0] for m in merged]
        self._ends = [m[1] for m in merged]

    def covers(self, start: int, end: int) -> bool:
        """True when ``[start, end)`` lies inside one masked region."""
        i = bisect.bisect_right(self._starts, start) - 1
        return i >= 0 and self._ends[i] >= end

    def end_of(self, start: int, end: int) -> int | None:
        """End of the masked region that ``[start, end)`` touches last, or None."""
        i = bisect.bisect_right(self._starts, end - 1) - 1
        if i >= 0 and self._ends[i] > start:
            return self._ends[i]
        return None

    def overlaps(self, start: int, end: int) -> bool:
        """True when ``[start, end)`` touches a masked region."""
        i = bisect.bisect_right(self._starts, end - 1) - 1
        return i >= 0 and self._ends[i] > start


def code_fence_regions(lines: list[Line]) -> list[tuple[int, int]]:
    """Regions of fenced code blocks (logs and commands are not prose).

    Fences follow CommonMark: a block opens with three or more backticks or tildes (a backtick
    opener's info string holds no backtick, so a line that starts and ends with three backticks is
    inline code, not a block running to the end of the text) and closes with a line of at least as
    many of the same character and nothing else, indented no more than three columns past the
    opener; an unclosed block runs to the end. A fence indented four columns or more stands inside
    a list item (a log pasted under a timeline's bullet): it opens a block only when a fence of the
    same item closes it (indented within three columns of it, before a line left of the item's
    text), since a deep indent alone is a weak sign and an unclosed block would hide the rest.
    """
    regions = []
    opener: tuple[int, str, int, int] | None = None  # start, fence character, fence length, indent
    for line in lines:
        if opener is not None and opener[3] > 3 and line.text.strip():
            # a line left of the item's text ends the item and its block unclosed: such a block
            # opens nothing, and the line may open a block of its own
            if len(line.text.expandtabs(4)) - len(line.text.expandtabs(4).lstrip()) < opener[3] - 3:
                opener = None
        match = _FENCE.match(line.text)
        if not match:
            continue
        indent = len(match.group(1).expandtabs(4))
        fence, rest = match.group(2), line.text[match.end():]
        if opener is None:
            if not (fence[0] == "`" and "`" in rest):
                opener = (line.start, fence[0], len(fence), indent)
        elif (fence[0] == opener[1] and len(fence) >= opener[2] and not rest.strip()
              and opener[3] - 3 <= indent <= opener[3] + 3):
            regions.append((opener[0], line.end))
            opener = None
    if opener is not None and opener[3] <= 3:
        regions.append((opener[0], lines[-1].end))
    return regions


def navigation_regions(lines: list[Line], min_run: int = 5, max_words: int = 3,
                       is_heading: Callable[[Line], bool] | None = None) -> list[tuple[int, int]]:
    """Runs of very short lines without sentence punctuation: menus and page chrome of printed pages.

    Args:
        lines: Lines of the text.
        min_run: How many such lines in a row make a navigation block.
        max_words: Most words a navigation line has.
        is_heading: Tells heading lines; a run does not end on one, so the first heading after a
            table of contents stays a heading.
    """
    regions = []
    run: list[Line] = []

    def close() -> None:
        while run and is_heading is not None and is_heading(run[-1]):
            run.pop()
        if len(run) >= min_run:
            regions.append((run[0].start, run[-1].end))
        run.clear()

    for line in lines:
        stripped = line.text.strip()
        if not stripped:
            continue
        # the cheap tests first: most lines are prose, longer than any navigation line
        short = (
            len(stripped) <= 40
            and not stripped.endswith((".", "?", "!", ",", ";"))
            and len(_NAV_WORDS.findall(stripped)) <= max_words
        )
        if short:
            run.append(line)
        else:
            close()
    close()
    return regions
