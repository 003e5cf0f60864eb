"""Reports written for the batch tests (no corpus sentences) and comparing the libraries they make."""

from __future__ import annotations

from pathlib import Path

import pytest



REPORT = """# Queue outage {n}

## Summary

Between 09:{m:02d} and 10:{m:02d} UTC the job queue of service {n} stopped handing out work.

## Impact

Customers of region {n} saw delayed exports for about an hour.

## Root cause

A configuration push lowered the worker limit of pool {n} to zero.

## Action items

- Validate worker limits before a push reaches production.
- Alert when the queue depth of pool {n} grows for ten minutes.
"""


def write_reports(folder: Path, count: int, start: int = 0) -> list[Path]:
    """``count`` reports numbered from ``start`` in ``folder``, each its own outage."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(start, start + count):
        path = folder / f"report-{n:04d}.md"
        path.write_text(REPORT.format(n=n, m=n % 60), encoding="utf-8")
        paths.append(path)
    return paths


def library_files(root: Path) -> dict[str, bytes]:
    """Every record and state file of a library, by relative path.

    Temporary files are left out, and so is the scan cache, which holds file times and inodes.
    """
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(".tmp") and p != root / ".pmparse" / "index.json"}


def assert_same_files(got: dict[str, bytes], want: dict[str, bytes]) -> None:
    """Fail naming the files that differ and showing the first difference, not two whole libraries."""
    assert sorted(got) == sorted(want), f"missing {sorted(set(want) - set(got))}, extra {sorted(set(got) - set(want))}"
    differing = [name for name in want if got[name] != want[name]]
    if differing:
        import difflib

        first = differing[0]
        diff = "\n".join(difflib.unified_diff(want[first].decode().splitlines(), got[first].decode().splitlines(),
                                             "expected/" + first, "got/" + first, lineterm="", n=2))
        pytest.fail(f"{len(differing)} file(s) differ: {differing[:10]}\n{diff}")
