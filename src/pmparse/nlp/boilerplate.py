"""Boilerplate lines: lines that recur word for word across many reports are page chrome or
template text (a wiki's footer and menus, a site notice, a template's prompts), never card content.

The packaged list (``resources/boilerplate.json``) holds only digests of such lines, derived from
the corpus by :func:`derive` (``pmparse train --write-boilerplate``): no corpus text is stored.
The unit splitter masks a line whose digest is in the list, so a footer or a notice printed
beside a sentence no longer joins it in one unit, and no unit is made of it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pmparse.errors import RulesError

_WORD = re.compile(r"[^\W_]+")
#: Version of the file format (not of the list).
FORMAT_VERSION = 1
#: Longest line worth a digest: the listed lines are notices, menus and template prompts.
MAX_CHARS = 300
PACKAGED = "boilerplate.json"
#: Where ``pmparse train --write-boilerplate`` writes the packaged list.
PACKAGED_PATH = Path(str(resources.files("pmparse.resources") / PACKAGED))  # where training writes it


class BoilerplateList(BaseModel):
    """The content of ``resources/boilerplate.json``."""

    model_config = ConfigDict(extra="forbid")
    format: int = Field(description="File format version (1).")
    about: str = Field(description="How the list was made.")
    min_documents: int = Field(ge=2, description="Least number of documents a line recurs in to be listed.")
    min_words: int = Field(ge=1, description="Least number of words of a listed line.")
    digests: list[str] = Field(description="blake2b digests (8 bytes, hex) of the normalised lines.")


def normalise(line: str) -> str:
    """Lower case with runs of white space made one space and the ends stripped."""
    return " ".join(line.lower().split())


def digest(line: str, min_words: int = 3) -> str | None:
    """Digest of a normalised line, or None when it has fewer than ``min_words`` words.

    Short lines are left to the navigation-run rule: a word or two recurs in reports by chance.
    """
    folded = normalise(line)
    if len(_WORD.findall(folded)) < min_words:
        return None
    return hashlib.blake2b(folded.encode("utf-8"), digest_size=8).hexdigest()


def derive(texts: Iterable[str], min_documents: int = 10, min_words: int = 3) -> list[str]:
    """Digests of the lines that occur in at least ``min_documents`` of ``texts`` (sorted).

    A line counts once per document, so a footer printed on every page of one report is not
    boilerplate of its own.
    """
    from pmparse.nlp.lines import split_lines

    counts: Counter[str] = Counter()
    for text in texts:
        # the lines the unit splitter will test: split as it splits, and no longer than it checks
        counts.update({d for d in (digest(line.text, min_words) for line in split_lines(text)
                                   if len(line.text) <= MAX_CHARS) if d})
    return sorted(d for d, n in counts.items() if n >= min_documents)


def write(path: Path, digests: list[str], about: str, min_documents: int, min_words: int) -> None:
    """Write a boilerplate list file (atomically)."""
    from pmparse.util import atomic_write

    content = BoilerplateList(format=FORMAT_VERSION, about=about, min_documents=min_documents,
                              min_words=min_words, digests=digests)
    atomic_write(Path(path), json.dumps(content.model_dump(), indent=1) + "\n")
    load.cache_clear()  # a list read before in this process is stale now


@functools.lru_cache(maxsize=4)
def load(path: str | None = None) -> tuple[frozenset[str], int]:
    """The digests of a boilerplate list and its ``min_words``; the packaged list when ``path`` is None.

    Raises:
        RulesError: the file is unreadable or not a valid list.
    """
    where = path or f"pmparse/resources/{PACKAGED}"
    try:
        raw = Path(path).read_text(encoding="utf-8") if path else \
            resources.files("pmparse.resources").joinpath(PACKAGED).read_text(encoding="utf-8")
        data = BoilerplateList.model_validate_json(raw)
    except (OSError, UnicodeDecodeError) as exc:
        raise RulesError(f"expected a readable boilerplate list, found {type(exc).__name__}: {exc}", where) from exc
    except ValidationError as exc:
        raise RulesError(f"expected a boilerplate list (format, about, min_documents, min_words, digests), "
                         f"found: {exc}", where) from exc
    if data.format != FORMAT_VERSION:
        raise RulesError(f"expected format {FORMAT_VERSION}, found {data.format}", where)
    bad = [d for d in data.digests if not re.fullmatch(r"[0-9a-f]{16}", d)]
    if bad:
        raise RulesError(f"expected 16 hex digits per digest, found {bad[0]!r}", where)
    return frozenset(data.digests), data.min_words
