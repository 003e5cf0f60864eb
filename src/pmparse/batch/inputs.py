"""Which inputs a batch converts: files, folders, globs, standard input and URLs as given."""

from __future__ import annotations

import fnmatch
import glob
import os
import re
from typing import Iterable, Iterator, Sequence

from pmparse.errors import UsageError
from pmparse.ingest.read import normal_url
from pmparse.locations import is_url, url_parts

#: File name endings a folder walk picks up (files without any ending are read as text too).
SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown", ".mdown", ".mkd", ".mdx", ".qmd", ".erb", ".html", ".htm", ".rst",
                      ".adoc", ".asciidoc", ".pdf")

#: The error kind of an input that is not converted on purpose (see :func:`skip_reason`).
SKIPPED = "skipped"

#: Extension-less names a folder walk leaves alone: they are never postmortems.
_NOT_REPORTS = {"license", "licence", "copying", "notice", "authors", "codeowners", "makefile", "dockerfile"}


def _walk_picks(name: str) -> bool:
    if name.startswith("."):
        return False
    if "." not in name:
        return name.lower() not in _NOT_REPORTS
    return name.lower().endswith(SUPPORTED_SUFFIXES)


def expand_inputs(inputs: Iterable[str]) -> Iterator[tuple[str, str | None]]:
    """Files named by ``inputs``: files, folders (recursively, supported types) and globs.

    Yields:
        ``(path, problem)``; problem is None for a file to convert, or says why an input names
        nothing convertible (it is then reported as failed).
    """
    for path, problem, _ in expand_inputs_relative(inputs):
        yield path, problem


def expand_inputs_relative(inputs: Iterable[str]) -> Iterator[tuple[str, str | None, str]]:
    """As :func:`expand_inputs`, with each file's path relative to the folder it was found in.

    Yields:
        ``(path, problem, relative)``: ``relative`` is the path under a folder input, or the file
        name of a file input (what ``--url-base`` is joined with).
    """
    for item in inputs:
        if item == "-" or is_url(item):
            item = normal_url(item)
            yield item, None, item
            continue
        if os.path.isdir(item):
            found = False
            for root, dirs, files in os.walk(item):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if not _walk_picks(name):
                        continue
                    found = True
                    path = os.path.join(root, name)
                    yield path, None, os.path.relpath(path, item)
            if not found:
                yield item, "expected a folder holding .txt, .md, .html or .pdf files, found none", item
            continue
        if os.path.lexists(item):
            yield item, None, os.path.basename(item)
            continue
        matches = sorted(glob.glob(item, recursive=True))
        if matches:
            for match in matches:
                yield from expand_inputs_relative([match])
        else:
            yield item, "expected a file, folder or glob, found nothing at that path", item


#: File names (before their first dot, lower case) that are never one incident's report: a folder's
#: readme, a change log, project policies. An index page is another matter (:func:`not_incident_reason`).
_NOT_INCIDENT_STEMS = {"readme": "a readme", "changelog": "a change log", "changes": "a change log", "contributing": "a contributing guide",
                       "code_of_conduct": "a code of conduct", "license": "a licence", "licence": "a licence",
                       "summary": "a table of contents", "toc": "a table of contents"}

#: A report template: "template.md", "TEMPLATE.md", "template-incident-report.md", "PMyyyy-nnn - Postmortem template".
_TEMPLATE_NAME = re.compile(r"(?:^|[^a-z])templates?(?:[^a-z]|$)", re.IGNORECASE)


def not_incident_reason(path: str) -> str | None:
    """Why the file at ``path`` is not an incident report, judged by its name; None when it may be one.

    Templates, readmes, index pages and change logs sit beside the reports of every postmortem
    repository; converted, they become cards with invented tags (a template's prompts read as
    remediation). A URL is never judged by its name: a curator who names a page means it.
    """
    if is_url(path) or path == "-":
        return None
    name = os.path.basename(path)
    stem = name.lower().split(".")[0]
    if stem in ("index", "_index"):
        # a folder's index lists the pages beside it; a page bundle (a blog keeping each post in
        # <slug>/index.md, with its images) has no page beside its index, which is the post
        folder = os.path.dirname(path) or "."
        beside = [n for n in os.listdir(folder) if n != name and _walk_picks(n)
                  and os.path.isfile(os.path.join(folder, n))] if os.path.isdir(folder) else []
        if beside:
            return (f"not an incident report (an index page beside {len(beside)} other page(s)); "
                    "--all-files converts it anyway")
        return None
    if stem in _NOT_INCIDENT_STEMS:
        return f"not an incident report ({_NOT_INCIDENT_STEMS[stem]}); --all-files converts it anyway"
    if _TEMPLATE_NAME.search(name.rsplit(".", 1)[0] if "." in name else name):
        return "not an incident report (a report template); --all-files converts it anyway"
    return None


_DIRECTORY_LISTING = re.compile(r"^\W{0,8}(?:directory listing for|index of) /", re.IGNORECASE)
_LIST_MARK = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+")
_LINK_LINE = re.compile(r"^(?:\[[^\]\n]*\]\([^)\n]*\)|<?https?://\S+>?)(?:\s+\S+){0,3}\s*$")
_LINK = re.compile(r"\[([^[\]\n]*)\]\([^()\n]*\)|https?://\S+")


def not_incident_content(text: str, masked: Sequence[tuple[int, int]] = (), title: str | None = None) -> str | None:
    """Why a text is not an incident report, judged by what it holds; None when it may be one.

    Two kinds of page are no report whatever their name: a web server's directory listing, and an
    index page that is a list of links with little prose (a blog's post list, a folder's table of
    contents). A report that ends in a list of references keeps its prose, so it passes.
    """
    body_start = max((end for start, end in masked if start == 0), default=0)
    lines = [line.strip() for line in text[body_start:].splitlines() if line.strip()]
    first = next((line for line in lines if not line.startswith(("---", "+++"))), "")
    if any(_DIRECTORY_LISTING.match(candidate) for candidate in (title or "", first)):
        return "not an incident report (a directory listing); --all-files converts it anyway"
    links = sum(1 for line in lines if _LINK_LINE.match(_LIST_MARK.sub("", line)))
    prose = sum(len(_LINK.sub(" ", line).split()) for line in lines
                if not _LINK_LINE.match(_LIST_MARK.sub("", line)))
    if links >= 8 and links >= 0.7 * len(lines) and prose < 100:
        return (f"not an incident report (an index page: {links} of its {len(lines)} lines are links); "
                "--all-files converts it anyway")
    return None


def excluded_by(path: str, relative: str, patterns: Sequence[str]) -> str | None:
    """The first ``--exclude`` glob matching ``path``: its whole path, the path under its folder
    input, or its file name (so ``README.md`` and ``drafts/*`` both do what they say)."""
    normal = path.replace(os.sep, "/")
    candidates = (normal, relative.replace(os.sep, "/"), os.path.basename(path))
    for pattern in patterns:
        if any(fnmatch.fnmatchcase(candidate, pattern) for candidate in candidates):
            return pattern
    return None


def skip_reason(path: str, relative: str, exclude: Sequence[str] = (), all_files: bool = False) -> str | None:
    """Why a found file is not converted (an ``--exclude`` glob, or not an incident report), or None."""
    pattern = excluded_by(path, relative, exclude)
    if pattern is not None:
        return f"excluded by --exclude {pattern}"
    return None if all_files else not_incident_reason(path)


def check_url_base(base: str) -> None:
    """Refuse a ``--url-base`` that is not an http(s) address.

    Raises:
        UsageError: it is not.
    """
    if not is_url(base):
        raise UsageError(f"expected --url-base to start with http:// or https://, found {base!r}")
    if url_parts(base) is None:
        raise UsageError(f"expected --url-base to be an address that parses, found {base!r} (its host or port)")
