"""The project's markdown documents link to files and sections that exist.

A model card cut to its size limit moved sections to docs/history.md, and two documents kept
pointing at the card for them; this test reads every relative link (and a section named in
quotes right after a link) and fails on one that leads nowhere.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: An inline link: `[x](file.md)`, `[x](file.md "title")`, `[x](<a file.md> 'title')`.
_LINK = re.compile(r"""\[[^\]]*\]\(\s*(?:<([^<>\n]*)>|([^)\s]+))(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?\s*\)""")
#: A reference link: `[x][ref]`, or `[ref][]` (the label is the text).
_REFERENCE = re.compile(r"\[([^\]]+)\]\[([^\]]*)\]")
#: A reference definition: `[ref]: file.md#anchor`, `[ref]: <file.md> "title"` (up to 3 spaces in).
_DEFINITION = re.compile(r"""^ {0,3}\[([^\]]+)\]:[ \t]*(?:<([^<>\n]*)>|(\S+))(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*$""",
                         re.MULTILINE)
#: A section named in quotes right after its link: `[card](X.md), "Limits"` or `[card](X.md) ("Limits")`.
_SECTION_AFTER = re.compile(r'\s*(?:\(|,\s*)"([^"]+)"')


def documents() -> list[Path]:
    """The markdown documents a user or contributor reads."""
    found = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted((ROOT / "src/pmparse/models").glob("*/README.md")), *sorted((ROOT / "eval").glob("*.md")),
             *sorted((ROOT / "corpus").glob("**/README.md"))]
    return [path for path in found if path.is_file()]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(path: Path) -> list[str]:
    """The headings of a markdown file, code blocks left out."""
    found, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else re.match(r"#{1,6}\s+(.*)", line)
        if match:
            found.append(" ".join(match.group(1).split()))
    return found


def _label(text: str) -> str:
    """A reference label as markdown matches it: case and runs of white space do not count."""
    return " ".join(text.split()).lower()


def _outside_code(text: str) -> str:
    """``text`` with its fenced code blocks and code spans blanked (same length, line breaks
    kept): a block's ``[x]: y`` line is no definition, ``a[i][j]`` in code no reference, and
    ``[x](y.md)`` in code no link."""
    out, fenced = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        out.append(re.sub(r"[^\n]", " ", line) if fenced or line.startswith("```") else line)
    return re.sub(r"(`+)[^`]+?\1", lambda m: " " * len(m.group()), "".join(out))


def links(text: str) -> list[tuple[str, int | None]]:
    """Each link target of a markdown ``text``, with where a section named after it would start
    (None for a reference definition: what follows it is no part of a sentence).

    Inline links with or without a title, reference links (``[x][ref]``, ``[ref][]``) through
    their definitions, and every definition itself; a reference to no definition is given as
    ``[ref]: no definition`` so that it is reported too.
    """
    plain = _outside_code(text)
    definitions: dict[str, str] = {}
    found: list[tuple[str, int | None]] = []
    for match in _DEFINITION.finditer(plain):
        target = match.group(2) if match.group(2) is not None else match.group(3)
        # the first definition of a label wins, as in CommonMark
        definitions.setdefault(_label(match.group(1)), target)
        found.append((target, None))
    for match in _LINK.finditer(plain):
        found.append((match.group(1) if match.group(1) is not None else match.group(2), match.end()))
    for match in _REFERENCE.finditer(plain):
        label = _label(match.group(2) or match.group(1))
        if label in definitions:
            found.append((definitions[label], match.end()))
        else:
            # markdown prints it as text: the link its writer meant leads nowhere
            found.append((f"[{match.group(2) or match.group(1)}]: no definition", match.end()))
    return found


def broken_links(path: Path) -> list[str]:
    """Each link of ``path`` that leads to no file, no anchor or no section, described."""
    text = path.read_text(encoding="utf-8")
    broken = []
    for target, end in links(text):
        if target.endswith(": no definition"):
            broken.append(target)
            continue
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue  # an address, not a file of the repository
        where, _, anchor = target.partition("#")
        destination = (path.parent / where).resolve() if where else path.resolve()
        if not destination.exists():
            broken.append(f"{target}: no such file")
            continue
        if destination.suffix != ".md":
            continue
        names = headings(destination)
        if anchor and anchor not in {slug(name) for name in names}:
            broken.append(f"{target}: no such section")
        section = _SECTION_AFTER.match(text, end) if end is not None else None
        if section and not anchor and " ".join(section.group(1).split()) not in names:
            broken.append(f'{target}, "{section.group(1)}": no such section')
    return broken


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_leads_somewhere(path):
    assert broken_links(path) == []


def test_a_link_to_a_missing_section_is_found(tmp_path):
    (tmp_path / "card.md").write_text("# Card\n\n## Limits\n\nText.\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text('See [the card](card.md), "Limits", [here](card.md#limits) and [a file](gone.md).\n'
                    'Also [the card](card.md) ("Tried ideas") and [there](card.md#tried).\n', encoding="utf-8")
    assert broken_links(page) == ['gone.md: no such file', 'card.md, "Tried ideas": no such section',
                                  'card.md#tried: no such section']


def test_links_with_a_title_and_reference_links_are_read(tmp_path):
    (tmp_path / "card.md").write_text("# Card\n\n## Limits\n\nText.\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text('A [titled](card.md#limits "The limits") link, [another](gone.md "Gone"), '
                    "[angled](<card.md#tried> 'Tried').\n"
                    "By reference: [the card][card], [its limits][lim], [Missing][], [old][old], "
                    "and [undefined][nowhere]; code: `a[i][j]`.\n\n"
                    "```\n[old]: not-a-definition.md\n```\n\n"
                    "[card]: card.md\n"
                    '[LIM]: card.md#limit "A typo in the anchor"\n'
                    "  [missing]: <gone-too.md>\n"
                    "[old]: card.md#old\n", encoding="utf-8")
    assert sorted(broken_links(page)) == sorted([
        "gone.md: no such file", "card.md#tried: no such section",
        # each definition is read once as a definition and once for each reference to it
        "card.md#limit: no such section", "card.md#limit: no such section",
        "gone-too.md: no such file", "gone-too.md: no such file",
        "card.md#old: no such section", "card.md#old: no such section",
        "[nowhere]: no definition"])


def test_a_link_written_as_code_is_no_link(tmp_path):
    # markdown prints `[x](y.md)` and a fenced block as they are: an example, not a link to check
    (tmp_path / "card.md").write_text("# Card\n\n## Limits\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("Write a link as `[the card](card.md#nowhere)`; [`diff`](card.md#limits) is one, "
                    "[this](gone.md) too.\n\n```markdown\nSee [a file](example.md).\n```\n", encoding="utf-8")
    assert broken_links(page) == ["gone.md: no such file"]
