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
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
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


def broken_links(path: Path) -> list[str]:
    """Each link of ``path`` that leads to no file, no anchor or no section, described."""
    text = path.read_text(encoding="utf-8")
    broken = []
    for match in _LINK.finditer(text):
        target = match.group(1)
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
        section = _SECTION_AFTER.match(text, match.end())
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
