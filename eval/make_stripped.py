"""Generate the heading-stripped variants of the gold set (eval/stripped/*.jsonl).

For each gold document with headings, the variant removes every heading line (and inline heading
labels such as ``**Impact**:``) and remaps the gold offsets, so the pipeline can be measured where
headings do not help. The variant stores only the removed ranges; the text is rebuilt from the
corpus file and checked against the variant's sha256. Run from the repository root:

    python eval/make_stripped.py [--corpus DIR]

The output is generated, never edited by hand.
"""

from __future__ import annotations

import argparse
import bisect
import hashlib
import json

from pmparse.evaluation.corpus import corpus_root
from pmparse.evaluation.gold import GOLD_DIR, SECOND_PASS, STRIPPED_DIR, gold_text, load_gold, remove_ranges
from pmparse.ingest.read import detect_format, parse_front_matter
from pmparse.nlp.components.sectionizer import find_headings
from pmparse.rules.headings import load_headings


def heading_ranges(text: str, fmt: str) -> list[tuple[int, int]]:
    """Ranges to delete: whole heading lines with their line break, or just inline labels."""
    _, front, _ = parse_front_matter(text)
    masked = [front] if front else []
    ranges = []
    for heading in find_headings(text, masked, load_headings(), plain_text=fmt == "txt"):
        if heading.body_start > heading.end or text[heading.end:heading.end + 1] in ("\n", "\r", ""):
            end = max(heading.end, heading.body_start)
            end = text.find("\n", end - 1) + 1 if "\n" in text[end - 1:end + 2] else end
            start = text.rfind("\n", 0, heading.start) + 1
            ranges.append((start, end if end > start else heading.end))
        else:
            ranges.append((heading.start, heading.body_start))
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]


def remap(offset: int, ranges: list[tuple[int, int]], starts: list[int], removed_before: list[int]) -> int:
    """New offset of ``offset`` once ``ranges`` are removed (offsets inside a range snap to its start)."""
    i = bisect.bisect_right(starts, offset) - 1
    if i < 0:
        return offset
    start, end = ranges[i]
    if offset < end:
        return start - removed_before[i]
    return offset - removed_before[i] - (end - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=None)
    args = parser.parse_args()
    root = corpus_root(args.corpus)
    STRIPPED_DIR.mkdir(parents=True, exist_ok=True)
    for gold_file in sorted(GOLD_DIR.glob("*.jsonl")):
        if gold_file.name == SECOND_PASS:
            continue
        lines = []
        for doc in load_gold([gold_file]):
            text = gold_text(doc, root)
            ranges = heading_ranges(text, detect_format(doc.path or doc.id))
            if not ranges:
                continue
            starts = [a for a, _ in ranges]
            removed_before, total = [], 0
            for a, b in ranges:
                removed_before.append(total)
                total += b - a
            stripped = remove_ranges(text, ranges)
            spans = []
            for span in doc.spans:
                start, end = remap(span.start, ranges, starts, removed_before), remap(span.end, ranges, starts, removed_before)
                chunk = stripped[start:end]
                start += len(chunk) - len(chunk.lstrip())
                end -= len(chunk) - len(chunk.rstrip())
                if end > start:
                    spans.append({"field": span.field, "start": start, "end": end})
            record = doc.model_dump(exclude_none=True)
            record.update(id=doc.id, sha256=hashlib.sha256(stripped.encode("utf-8")).hexdigest(), spans=spans,
                          deleted=[list(r) for r in ranges])
            lines.append(json.dumps(record, ensure_ascii=False))
        (STRIPPED_DIR / gold_file.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{gold_file.name}: {len(lines)} headed documents")


if __name__ == "__main__":
    main()
