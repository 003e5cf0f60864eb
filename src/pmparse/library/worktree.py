"""The names a patch (``pmparse diff --patch``) gives record files, as ``git apply`` reads them.

``git apply`` reads the paths of a patch with ``diff --git`` headers from the top of the work
tree it runs in, whatever folder it runs from, and skips (exit 0, "Skipped patch") a path outside
the folder it runs in. A library in a subfolder of a repository therefore needs paths from the
repository's top: they apply from the top and from any folder above the records, the library's
own included. Outside a work tree ``git apply`` (and ``patch -p1``) read them from the folder
they run in, so there a record is named by its file name, for the library's folder.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Bytes git writes as escapes in a quoted path (the rest below 0x20, 0x7f and above: octal).
_ESCAPES = {0x07: "\\a", 0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0B: "\\v", 0x0C: "\\f", 0x0D: "\\r",
            0x22: '\\"', 0x5C: "\\\\"}


def work_tree_top(folder: Path) -> Path | None:
    """The top of the git work tree holding ``folder``, found as git finds it from a folder: the
    nearest folder at or above it (links resolved, as git sees the folder it runs in) holding a
    ``.git`` repository folder or a ``.git`` file naming one (a linked work tree, a submodule).

    ``GIT_DIR`` and ``GIT_WORK_TREE`` in the environment (a repository kept apart from its files,
    a hook) decide as they do for git: with ``GIT_DIR`` git looks for no ``.git`` and its top is
    ``GIT_WORK_TREE``, else the folder it runs in; ``GIT_WORK_TREE`` alone moves the top of the
    repository found. A ``core.worktree`` setting is not read.

    Returns:
        The top folder, or None when ``folder`` is in no work tree.
    """
    tree = os.environ.get("GIT_WORK_TREE")
    if os.environ.get("GIT_DIR"):
        return Path(os.path.realpath(tree or os.getcwd()))
    real = Path(os.path.realpath(folder))
    for candidate in (real, *real.parents):
        dot_git = candidate / ".git"
        try:
            if dot_git.is_dir() and (dot_git / "HEAD").is_file():
                return Path(os.path.realpath(tree)) if tree else candidate
            if dot_git.is_file():
                with open(dot_git, "rb") as handle:
                    if handle.read(8) == b"gitdir: ":
                        return Path(os.path.realpath(tree)) if tree else candidate
        except OSError:
            continue  # unreadable: git would not use it either
    return None


def patch_name(record: Path) -> str:
    """The path a patch names ``record`` by: from the top of the git work tree holding it, else
    its file name (read from the library's folder)."""
    folder = Path(os.path.realpath(record.parent))
    top = work_tree_top(folder)
    if top is None or not folder.is_relative_to(top):
        # outside the work tree git names (GIT_WORK_TREE elsewhere): git apply refuses any
        # path, and the bare name says which file in its error
        return record.name
    return (folder.relative_to(top) / record.name).as_posix()


def quoted(prefix: str, name: str) -> str:
    """``prefix + name`` as git writes a path in a patch header: between double quotes, with C
    escapes, when it holds a quote, a backslash, a control character or a non-ASCII byte
    (``core.quotePath``, git's default); as it is otherwise. ``git apply`` and ``patch`` read
    both forms."""
    data = (prefix + name).encode("utf-8", "surrogateescape")
    if not any(byte < 0x20 or byte >= 0x7F or byte in (0x22, 0x5C) for byte in data):
        return prefix + name
    out = []
    for byte in data:
        if byte in _ESCAPES:
            out.append(_ESCAPES[byte])
        elif byte < 0x20 or byte >= 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(chr(byte))
    return '"' + "".join(out) + '"'
