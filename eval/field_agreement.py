"""Per-field agreement between two annotation passes of the same documents.

    python eval/field_agreement.py FIRST.jsonl... --second SECOND.jsonl

Token F1 per field as ``pmparse eval`` counts tokens (``\\w+`` runs of the source text): the
tokens either pass covers, summed over the documents both passes hold, with the first pass as
reference. A field neither pass marks in a document adds nothing. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

FIELDS = ["symptoms", "trigger", "root_cause", "contributing_factors", "detection", "remediation",
          "action_items", "lessons"]
CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
_TOKEN = re.compile(r"\w+")


def rows(paths: list[str]) -> dict[str, dict]:
    found = {}
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                found[row["path"]] = row
    return found


def covered(tokens: list[tuple[int, int]], spans: list[dict], field: str) -> set[int]:
    marked = [(s["start"], s["end"]) for s in spans if s["field"] == field]
    return {i for i, (a, b) in enumerate(tokens) if any(a < e and b > s for s, e in marked)}


def resolve(ref: str) -> Path:
    return next(CORPUS.glob(ref)) if "*" in ref else CORPUS / ref


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("first", nargs="+")
    parser.add_argument("--second", required=True)
    args = parser.parse_args()
    first, second = rows(args.first), rows([args.second])
    shared = sorted(set(first) & set(second))
    totals = {f: [0, 0, 0] for f in FIELDS}  # both, first only, second only
    for ref in shared:
        with open(resolve(ref), encoding="utf-8") as handle:
            tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(handle.read())]
        for field in FIELDS:
            a, b = covered(tokens, first[ref]["spans"], field), covered(tokens, second[ref]["spans"], field)
            totals[field][0] += len(a & b)
            totals[field][1] += len(a - b)
            totals[field][2] += len(b - a)
    print(f"{len(shared)} documents in both passes\n")
    print("| field | tokens first | tokens second | P | R | F1 |\n|---|---:|---:|---:|---:|---:|")
    f1s = []
    for field in FIELDS:
        both, only_a, only_b = totals[field]
        p = both / (both + only_b) if both + only_b else 0.0
        r = both / (both + only_a) if both + only_a else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        f1s.append(f1)
        print(f"| {field} | {both + only_a} | {both + only_b} | {p:.3f} | {r:.3f} | {f1:.3f} |")
    print(f"| **macro** | | | | | **{sum(f1s) / len(f1s):.3f}** |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
