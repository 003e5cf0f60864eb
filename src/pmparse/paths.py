"""Paths pmparse writes or deletes inside a folder it owns (a site folder, a library, ``.pmparse/``).

A site or library may come from someone else's repository: a symbolic link planted inside it
(``by -> /home/you``, ``.pmparse/base -> /elsewhere``) or a manifest entry ``../x`` must not make
pmparse write or delete anything outside. Every such path is built here, from the folder and a
plain relative name, and no component below the folder may be a symbolic link. The folder itself
is what the person named and may be a link. Checked just before use: a link swapped in between
the check and the write by a process running beside pmparse is outside what this guards.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath

from pmparse.errors import UnsafePathError


#: File name endings a folder walk picks up (files without any ending are read as text too).
SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown", ".mdown", ".mkd", ".mdx", ".qmd", ".erb", ".html", ".htm", ".rst",
                      ".adoc", ".asciidoc", ".pdf")

#: Extension-less names a folder walk leaves alone: they are never postmortems.
_NOT_REPORTS = {"license", "licence", "copying", "notice", "authors", "codeowners", "makefile", "dockerfile"}


def walk_picks(name: str) -> bool:
    """True when a folder walk of ``convert`` picks a file of this name: not hidden, and a
    supported ending or none (a few names such as ``LICENSE`` aside)."""
    if name.startswith("."):
        return False
    if "." not in name:
        return name.lower() not in _NOT_REPORTS
    return name.lower().endswith(SUPPORTED_SUFFIXES)


def real_path(path: str) -> str:
    """``path`` absolute with every link resolved, or absolute as it is where it cannot be resolved."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.abspath(path)


def plain_parts(rel: str) -> tuple[str, ...]:
    """The components of ``rel``, a relative name of plain parts (``cards/IL-0001.html``).

    Raises:
        UnsafePathError: empty, absolute, ``.``/``..`` parts, a backslash (a separator on Windows) or a NUL.
    """
    if not isinstance(rel, str) or not rel or "\0" in rel or "\\" in rel:
        raise UnsafePathError(f"expected a plain relative name, found {rel!r}")
    pure = PurePosixPath(rel)
    parts = rel.split("/")
    if pure.is_absolute() or any(part in ("", ".", "..") for part in parts):
        raise UnsafePathError(f"expected a plain relative name (no '..', not absolute), found {rel!r}")
    return tuple(parts)


def inside(root: Path, rel: str) -> Path:
    """``root / rel``, checked to stay inside ``root``: ``rel`` is a plain relative name and no
    component of it that exists is a symbolic link (the rest does not exist yet: pmparse creates
    it as plain folders and files).

    Raises:
        UnsafePathError: ``rel`` is not plain, or a component is a symbolic link.
    """
    path = Path(root)
    for part in plain_parts(rel):
        path = path / part
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            break  # missing (or under a file): nothing further exists to follow
        if stat.S_ISLNK(mode):
            raise UnsafePathError(f"expected a file or folder inside {root}, found a symbolic link", str(path))
    return Path(root) / rel


def plain_folder(root: Path, rel: str) -> Path:
    """:func:`inside`, for a folder read as a whole (a model): none of its entries may be a
    symbolic link either.

    Raises:
        UnsafePathError: ``rel`` is not plain, a component of it or an entry of the folder is a
            symbolic link (named).
    """
    folder = inside(root, rel)
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return folder
    for entry in entries:
        if entry.is_symlink():
            raise UnsafePathError(f"expected a file or folder inside {root}, found a symbolic link", entry.path)
    return folder


def local_model_dir(root: str | Path) -> Path:
    """Where a library keeps its own field model (``pmparse train --library``; convert uses it).

    Raises:
        UnsafePathError: ``.pmparse/model``, or a file in it, is a symbolic link: a library from
            someone else could point it at any model folder, to be read by convert and written by
            train (the error names the link).
    """
    return plain_folder(Path(root), ".pmparse/model")
