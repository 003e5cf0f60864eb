"""Which inputs a batch converts: files, folders, globs, standard input and URLs as given."""

from __future__ import annotations

import fnmatch
import functools
import glob
import os
import re
import stat
from typing import Iterable, Iterator, NamedTuple, Sequence

from pmparse.errors import UsageError
from pmparse.ingest.read import normal_url
from pmparse.locations import is_url, url_parts
from pmparse.paths import real_path as _real, walk_picks as _walk_picks
from pmparse.util import read_regular_file

#: The error kind of an input that is not converted on purpose (see :func:`skip_reason`).
SKIPPED = "skipped"


class Found(NamedTuple):
    """One input a batch meets.

    Attributes:
        path: The file (or, with a problem, the input as given).
        problem: Why the input names nothing convertible (reported as failed), or None.
        relative: The path under its folder input, or a file input's name (what ``--url-base``
            is joined with).
        skip: Why the file is not read on purpose (reported as skipped), or None.
    """

    path: str
    problem: str | None
    relative: str
    skip: str | None = None


def expand_inputs(inputs: Iterable[str]) -> Iterator[tuple[str, str | None]]:
    """Files named by ``inputs``: files, folders (recursively, supported types) and globs.

    Yields:
        ``(path, problem)``; problem is None for a file to convert, or says why an input names
        nothing convertible (it is then reported as failed).
    """
    for found in expand_inputs_relative(inputs):
        yield found.path, found.problem


def expand_inputs_relative(inputs: Iterable[str]) -> Iterator[Found]:
    """As :func:`expand_inputs`, with each file's path relative to the folder it was found in,
    and the files a walk or a glob found that are links to a file outside their folder
    (:func:`link_out_reason`) marked to skip.

    Yields:
        :class:`Found` for each file or problem, in a stable order.
    """
    for item in inputs:
        if item == "-" or is_url(item):
            item = normal_url(item)
            yield Found(item, None, item)
            continue
        if os.path.isdir(item):
            yield from _walk(item, _real(item))
            continue
        if os.path.lexists(item):
            yield Found(item, None, os.path.basename(item))
            continue
        matches = sorted(glob.glob(item, recursive=True))
        if matches:
            # every match is judged against the glob's folder, not the match: ``**`` and ``*/``
            # go through links to folders (posts/evil -> ~/), and a matched folder's link to a
            # page beside it (posts/a/x.md -> ../b.md) is inside the folder the user named
            real = _real(_glob_base(item))
            for match in matches:
                if os.path.isdir(match):
                    yield from _walk(match, real)
                else:
                    yield Found(match, None, os.path.basename(match), link_out_reason(match, real))
        else:
            yield Found(item, "expected a file, folder or glob, found nothing at that path", item)


def _walk(folder: str, base_real: str) -> Iterator[Found]:
    """The files a walk of ``folder`` picks, those reaching outside ``base_real`` marked to skip."""
    found = False
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        # the walk does not descend links to folders, but a glob's matched folder may be one: a
        # folder reached outside the base has every file outside it
        root_out = not _inside(_real(root), base_real)
        for name in sorted(files):
            if not _walk_picks(name):
                continue
            found = True
            path = os.path.join(root, name)
            skip = link_out_reason(path, base_real) if root_out or os.path.islink(path) else None
            yield Found(path, None, os.path.relpath(path, folder), skip)
    if not found:
        yield Found(folder, "expected a folder holding .txt, .md, .html or .pdf files, found none", folder)


def link_out_reason(path: str, folder_real: str) -> str | None:
    """Why a file a folder walk or a glob found is not read: it is a symbolic link to a file
    outside the folder (``folder_real``, a real path), or reached through a link to a folder
    outside it; None for any other file.

    A folder someone else sent (a repository, an archive) may hold ``post.md ->
    ~/.ssh/id_rsa``: read, its text would become a card's evidence and be published by ``site``.
    A link the user names as an input is their choice and is read.
    """
    if _inside(_real(path), folder_real):
        return None
    return ("a link to a file outside the folder given (not read: a folder someone sent may link "
            "to your files); name the file itself to convert it")


def _inside(real: str, folder_real: str) -> bool:
    if real == folder_real or real.startswith(folder_real.rstrip(os.sep) + os.sep):
        return True
    # a case-insensitive file system (macOS) names one folder "Posts" and "posts", and realpath
    # keeps the spelling it is given (a link to /Users/me/posts/x.md from "~/Posts" given): the
    # folder's own identity decides, for the few paths whose spelling is outside
    try:
        folder = os.stat(folder_real)
    except (OSError, ValueError):
        return False
    path = real
    while True:
        try:
            if os.path.samestat(os.stat(path), folder):
                return True
        except (OSError, ValueError):
            pass
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent


def _glob_base(pattern: str, path=os.path) -> str:
    """The folder a glob searches: its leading names before the first one with a wildcard.

    On Windows both separators divide names (``C:/Users/me/sent/*.md``, a glob Python accepts):
    split at ``\\`` alone, such a glob's folder was the working folder, and a link from the folder
    sent to a file of the working folder was read. ``path`` is the path module (tests pass ntpath).
    """
    drive, rest = path.splitdrive(pattern)
    seps = path.sep + (path.altsep or "")
    head = []
    for part in re.split(f"[{re.escape(seps)}]", rest):
        if glob.has_magic(part):
            break
        head.append(part)
    base = path.sep.join(head) or (path.sep if rest[:1] and rest[0] in seps else path.curdir)
    return drive + base


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
        beside = len(_pages_in(os.path.dirname(path) or ".") - {name})
        if beside:
            return (f"not an incident report (an index page beside {beside} other page(s)); "
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


def _pages_in(folder: str) -> frozenset[str]:
    """The names of the files in ``folder`` a walk would pick (:func:`_walk_picks`)."""
    try:
        info = os.stat(folder)
    except (OSError, ValueError):
        return frozenset()
    # keyed by the absolute path and the folder itself: "x" (or ".") of another working folder, or
    # a folder unpacked again in its place, with the same modification time (archives keep it)
    # is another listing
    return _pages_at(os.path.abspath(folder), (info.st_dev, info.st_ino, info.st_mtime_ns))


@functools.lru_cache(maxsize=64)
def _pages_at(folder: str, stamp: tuple[int, int, int]) -> frozenset[str]:
    # keyed by the folder's modification time, which changes when a name is added or removed: each
    # index page of a folder of many lists it once (3,000 "index.N.md" listed it 3,000 times: 18 s)
    try:
        names = os.listdir(folder)
    except OSError:
        return frozenset()
    return frozenset(n for n in names if _walk_picks(n) and os.path.isfile(os.path.join(folder, n)))


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
    """Why a found file is not converted (an ``--exclude`` glob, not an incident report, or a
    symbolic link checked out as a plain file), or None."""
    pattern = excluded_by(path, relative, exclude)
    if pattern is not None:
        return f"excluded by --exclude {pattern}"
    if all_files:
        return None
    reason = not_incident_reason(path)
    if reason is None:
        target = link_stub_target(path)
        if target is not None:
            missing = not _exists_beside(path, target)
            reason = (f"not an incident report (a symbolic link checked out as a plain file holding its target, "
                      f"{target!r}{', which is missing' if missing else ''}: git with core.symlinks=false; "
                      f"{'a link to nothing' if missing else 'the target is converted by its own name'}); "
                      "--all-files converts it anyway")
    return reason


#: Longest link target a link stub is read for (PATH_MAX): a longer file is no stub.
_LINK_STUB_MAX = 4096


def link_stub_target(path: str) -> str | None:
    """The target a file holds when it is a symbolic link git checked out as a plain file, else None.

    With ``core.symlinks=false`` git writes each link as a file holding only its target, with no
    line break; a folder walk read each as a report of one line and made it a record (a draft
    whose trigger was the path). Such a file is known by naming, relative to its own folder, a
    file or folder that exists: a report is never only that. A link whose target is gone (a file
    renamed, a link into a folder git does not hold) is known by its shape: one word of no white
    space that ends in a report's ending or starts as only a path does (``../2023/outage.md``,
    ``latest.md``, ``/srv/pm``): a report of one line is a sentence, or a word such as ``N/A``
    (a dangling link whose target has a space in it, or a bare ``2023/outage``, is read as before).
    """
    try:
        # a real link is no stub; only a regular file is read (a named pipe waits for a writer, for ever)
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
    except (OSError, ValueError):
        return None
    data = read_regular_file(path, _LINK_STUB_MAX)
    if data is None:
        return None
    try:
        target = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if not target or any(ch in target for ch in "\n\r\0") or target != target.strip():
        return None
    return target if _exists_beside(path, target) or _path_shaped(target) else None


def _exists_beside(path: str, target: str) -> bool:
    try:
        return os.path.lexists(os.path.join(os.path.dirname(path), target))
    except (OSError, ValueError):
        return False


_PATH_WORD = re.compile(r"[\w.~+@%,=:/-]+")


def _path_shaped(target: str) -> bool:
    """True when ``target`` reads as a path, not a sentence: no white space, and the ending of a
    file a folder walk picks or a start only a path has (``/``, ``./``, ``../``)."""
    if not _PATH_WORD.fullmatch(target) or "://" in target:
        return False  # white space, markup (<html></html>), punctuation no path name holds, an address
    name = target.rstrip("/").rsplit("/", 1)[-1]
    # a '/' alone is no path: "N/A", a one-line report in a language written without spaces
    return target.startswith(("/", "./", "../")) or ("." in name and _walk_picks(name))


def check_url_base(base: str) -> None:
    """Refuse a ``--url-base`` that is not an http(s) address.

    Raises:
        UsageError: it is not.
    """
    if not is_url(base):
        raise UsageError(f"expected --url-base to start with http:// or https://, found {base!r}")
    if url_parts(base) is None:
        raise UsageError(f"expected --url-base to be an address that parses, found {base!r} (its host or port)")
