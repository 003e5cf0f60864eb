"""What a killed run leaves in a library, removed by the next run that holds the write lock."""

from __future__ import annotations

import os
import re
from pathlib import Path

from pmparse.paths import inside

#: The folders of ``.pmparse/`` that hold state files.
STATE_KINDS = ("base", "drafts", "intent", "pending", "rejected")

#: A temporary file of atomic_write: ``.`` + the file it replaces + mkstemp's 8 characters + ``.tmp``.
_TEMPORARY = re.compile(r"^\.(?:IL-\d{4}\.(?:yaml|yml|json)|index\.json)\.[A-Za-z0-9_]{8}\.tmp$")


def remove_temporaries(root: Path) -> list[str]:
    """Remove the temporary files a killed run left in the library at ``root``
    (``.IL-0001.yaml.k3j_x9a2.tmp``, from :func:`~pmparse.util.atomic_write`), which no later run
    would otherwise ever remove. Call with the write lock held, so no running writer's file is
    taken. Only pmparse's own names are touched, in the library and its state folders.

    Returns:
        The removed files, relative to the library.

    Raises:
        UnsafePathError: ``.pmparse/`` or one of its folders is a symbolic link.
    """
    removed = []
    for rel in ["", ".pmparse", *(f".pmparse/{kind}" for kind in STATE_KINDS)]:
        folder = inside(root, rel) if rel else root
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue  # missing, or not a folder: nothing of ours there
        for name in names:
            if _TEMPORARY.match(name):
                try:
                    os.unlink(folder / name)  # a link among them is removed itself, never followed
                except OSError:
                    continue
                removed.append(f"{rel}/{name}" if rel else name)
    return removed
