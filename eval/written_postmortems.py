"""Build corpus/written/written.jsonl from the marked-up postmortems the team wrote (corpus/written/*.md).

Each source holds several made-up postmortems opened by ``=== written: <slug> ===`` lines, their
fields marked inline (``{rc}...{/rc}``; tags in :data:`pmparse.training.written.TAGS`). The output
has the gold shape with inline ``text`` (source ``written``), one line per document, and is
generated, never edited by hand. Run from the repository root:

    PYTHONPATH=src python eval/written_postmortems.py [--check]

``--check`` writes nothing and exits 1 when the built file is not current. A summary (documents,
words, spans per field, documents per style) is printed either way.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from pmparse.training.field_annotations import WRITTEN_FILE
from pmparse.training.written import build_rows
from pmparse.util import atomic_write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="Exit 1 when the built file is not current.")
    parser.add_argument("--out", type=Path, default=WRITTEN_FILE, help="The built JSON-lines file.")
    args = parser.parse_args(argv)
    rows = build_rows(args.out.parent)
    built = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    words = [len(row["text"].split()) for row in rows]
    fields = Counter(span["field"] for row in rows for span in row["spans"])
    styles = Counter(row["id"].split("/")[1] for row in rows)
    print(f"{len(rows)} documents, {sum(words)} words (shortest {min(words, default=0)}, longest "
          f"{max(words, default=0)}), {len(styles)} style files")
    print("spans: " + ", ".join(f"{k} {v}" for k, v in sorted(fields.items())))
    print("styles: " + ", ".join(f"{k} {v}" for k, v in sorted(styles.items())))
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.exists() else ""
        if current != built:
            print(f"{args.out} is not current: run eval/written_postmortems.py", file=sys.stderr)
            return 1
        return 0
    atomic_write(args.out, built)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
