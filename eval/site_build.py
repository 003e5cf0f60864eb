"""What ``pmparse site`` costs: a full build, a rebuild with nothing changed, and one after one
record changed, for a library as it is or grown to a number of cards.

    python eval/site_build.py LIBRARY                # the library as it is (e.g. the converted corpus)
    python eval/site_build.py LIBRARY --cards 1000   # its records copied round-robin to 1,000 cards

Copies get ids of their own and keep their sources, so every page has its source text to mark.
The library is copied into a temporary folder (the one given is never changed) and the site is
built there, in this process (interpreter start-up and imports not counted: `pmparse site` adds
about a second). Figures go to docs/site.md ("Speed").
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from pmparse.library.records import dumps
from pmparse.library.store import Library
from pmparse.site.build import build_site


def grow(source: Path, target: Path, cards: int | None) -> int:
    """Copy the records of ``source`` into ``target`` (``cards`` of them, round-robin); their count."""
    paths = sorted(p for p in source.iterdir() if p.name.startswith("IL-") and p.suffix in (".yaml", ".json"))
    if cards is None:
        shutil.copytree(source, target)
        return len(paths)
    library = Library.open(target)
    originals = [Library.read(p) for p in paths]
    for n in range(cards):
        card = originals[n % len(originals)]
        library.write(card.model_copy(update={"id": f"IL-{n + 1:04d}"}), "yaml")
    library.save_index()
    return cards


def timed(library: Path, site: Path) -> tuple[str, object]:
    """The build's wall time and this process's CPU time (the machine is shared: the CPU time is
    the steadier figure, the wall time adds waiting for the disk and for other jobs)."""
    start, cpu = time.perf_counter(), time.process_time()
    report = build_site(library, site)
    return f"{time.perf_counter() - start:.2f} s (CPU {time.process_time() - cpu:.2f} s)", report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("library", type=Path)
    parser.add_argument("--cards", type=int, default=None, help="grow the library to this many cards")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="site-bench-") as tmp:
        library, site = Path(tmp) / "lib", Path(tmp) / "site"
        count = grow(args.library, library, args.cards)
        Library.open(library)  # the library's scan cache, as a library in use has it
        full, report = timed(library, site)
        size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
        print(f"{count} cards: full build {full}, {report.rendered} pages rendered, "
              f"{len(report.written)} files written, {size / 1e6:.1f} MB")
        same, report = timed(library, site)
        print(f"rebuild, nothing changed: {same}, {report.rendered} pages rendered, "
              f"{len(report.written)} files written")
        ids = sorted(Library.open(library).entries)
        path = library / f"{ids[len(ids) // 2]}.yaml"
        card = Library.read(path)
        path.write_text(dumps(card.model_copy(update={"title": "A title changed by hand"})), encoding="utf-8")
        one, report = timed(library, site)
        print(f"rebuild, one record changed ({path.name}): {one}, {report.rendered} page rendered, "
              f"{len(report.written)} files written: {', '.join(report.written[:6])}"
              f"{', ...' if len(report.written) > 6 else ''}")


if __name__ == "__main__":
    main()
