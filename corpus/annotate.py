"""Draw and record the all-field annotation rounds (eval/GUIDE.md, "Free-form round").

Three commands, standalone (no pmparse import, so the draw does not move when the package does):

    python corpus/annotate.py draw [--out FILE]
        Round 3's documents, deterministically: the gold documents, the annotators' batches and
        the second-pass sample, as JSON (corpus paths). The draw of round 2 (2026-12-01) lived in
        eval/field_annotation.py at commit bdd6a3c.
    python corpus/annotate.py show PATH
        The file's text as read (UTF-8, each line break a newline, as pmparse reads it), each
        line prefixed by the character offset it starts at, for an annotator to read.
    python corpus/annotate.py add --annotator ID --kind train|gold --out FILE < doc.json
        Turns one annotator's reading of one document into a line of offsets and appends it.

``doc.json`` is what the annotator wrote after reading the source::

    {"path": "<corpus path>",
     "spans": {"trigger": ["words of the stretch", {"q": "a ... b", "n": 2}], ...},
     "title": "the author's own title, when the document has one",
     "card": {"organisation": "...", "date": "YYYY-MM-DD", ...}}

A quote is the annotated stretch's own words; whitespace (and, in HTML, tags) between words is
matched loosely, ``a ... b`` stands for the stretch from ``a`` to the next ``b``, and ``n`` picks
the n-th match when a quote occurs more than once. Only offsets reach the output: the quotes are
the annotator's working notes and stay outside the repository.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import random
import re
import sys
from pathlib import Path

import yaml

FIELDS = ["symptoms", "trigger", "root_cause", "contributing_factors", "detection", "remediation",
          "action_items", "lessons"]
HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CORPUS = REPO.parent / "shared" / "corpus"
# Round 3 (eval/GUIDE.md, "Free-form round"): every incident file of the ten sources added on
# 2026-12-06. Gold quotas are about a third of each source, at least one each.
ROUND3_SOURCES = {
    "opensuse-obs": 10, "berkeley-datahub": 6, "usegalaxy-eu": 4, "hachyderm-community": 3,
    "edgi-web-monitoring": 3, "usdr-univaf": 2, "travis-ci-blog": 3, "comdex": 2, "ethereum-pm": 2,
    "govau-cloud": 1,
}
# each annotator reads whole sources, so one publisher's facts are named one way
ROUND3_BATCHES = {
    "n1": ["opensuse-obs/_posts/deployments/201*", "opensuse-obs/_posts/deployments/202[0-2]*"],
    "n2": ["opensuse-obs/_posts/deployments/202[3-6]*", "govau-cloud/*"],
    "n3": ["berkeley-datahub/*"],
    "n4": ["ethereum-pm/*", "comdex/*", "usegalaxy-eu/*"],
    "n5": ["hachyderm-community/*", "travis-ci-blog/*"],
    "n6": ["edgi-web-monitoring/*", "usdr-univaf/*"],
}
SECOND_PASS = 12
SEED = 1206


def read_text(path: Path) -> str:
    with open(path, encoding="utf-8") as handle:  # line breaks as pmparse reads them
        return handle.read()


def incident_files(root: Path) -> list[str]:
    manifest = yaml.safe_load((REPO / "corpus" / "manifest.yaml").read_text(encoding="utf-8"))
    found = set()
    for name in ROUND3_SOURCES:
        rule = manifest["sources"][name]
        for pattern in rule["include"]:
            for path in root.glob(pattern):
                rel = path.relative_to(root).as_posix()
                if path.is_file() and not any(fnmatch.fnmatchcase(rel, e) for e in rule.get("exclude", [])):
                    found.add(rel)
    return sorted(found)


def draw(root: Path) -> dict:
    """Round 3's documents; the same on every run (seeded, from sorted lists)."""
    rng = random.Random(SEED)
    files = incident_files(root)
    gold = []
    for source, quota in ROUND3_SOURCES.items():
        gold += rng.sample([rel for rel in files if rel.split("/", 1)[0] == source], quota)
    batches = {name: [rel for rel in files if any(fnmatch.fnmatchcase(rel, p) for p in patterns)]
               for name, patterns in ROUND3_BATCHES.items()}
    dealt = sorted(rel for batch in batches.values() for rel in batch)
    if dealt != files:
        raise SystemExit(f"batches deal {len(dealt)} files, expected each of the {len(files)} once")
    second = rng.sample(files, SECOND_PASS)
    return {"seed": SEED, "gold": sorted(gold), "batches": batches, "second_pass": sorted(second)}


def path_reference(rel: str, root: Path) -> str:
    """``rel`` or, when its file name spells five or more of the report's words (or is a dfds
    title), a ``*`` pattern that keeps its identifier and matches only that file."""
    folder, name = rel.rsplit("/", 1)
    stem, dot, ext = name.partition(".")
    if rel.startswith("dfds/"):
        # some dfds files have no extension
        pattern = f"{folder}/{stem.split(' - ', 1)[0]} - *{dot}{ext}"
    else:
        date = r"^(\d{4}-\d{2}-\d{2}|\d{8})[- ]?"  # 2021-05-09- and wikitech's 20180410-
        words = [w for w in re.split(r"[-_ ]+", re.sub(date, "", stem)) if w]
        if len(words) < 5:
            return rel
        head = re.match(date, stem).group(0) if re.match(date, stem) else ""
        pattern = f"{folder}/{head}{words[0]}*{dot}{ext}"
    matches = list(root.glob(pattern))
    # a pattern that another file's name matches too cannot stand for this one: the path itself does
    return pattern if len(matches) == 1 else rel


def quote_pattern(quote: str, html: bool) -> str:
    # one character class with no nested repetition: a nested one backtracked exponentially
    # before long runs of spaces (markdown table padding)
    gap = r"(?:\s|<[^>]{0,200}>|&nbsp;|[*_`])+" if html else r"[\s*_`>]*\s[\s*_`>]*"
    return gap.join(re.escape(word) for word in quote.split())


def locate(text: str, quote: str, n: int | None, html: bool) -> tuple[int, int]:
    if " ... " in quote:
        head, tail = quote.split(" ... ", 1)
        regex = re.compile(quote_pattern(head, html) + r"[\s\S]{0,4000}?" + quote_pattern(tail, html))
    else:
        regex = re.compile(quote_pattern(quote, html))
    found = [(m.start(), m.end()) for m in regex.finditer(text)]
    if not found:
        raise ValueError(f"not found: {quote[:60]!r}")
    if n is None and len(found) > 1:
        raise ValueError(f"found {len(found)} times, give \"n\": {quote[:60]!r}")
    if n is not None and not 1 <= n <= len(found):
        raise ValueError(f"n={n} but found {len(found)} times: {quote[:60]!r}")
    return found[(n or 1) - 1]


def add(args: argparse.Namespace, root: Path) -> int:
    doc = json.load(sys.stdin)
    rel = doc["path"]
    path = root / rel
    text = read_text(path)
    html = rel.endswith(".html")
    spans, errors = [], []
    unknown = set(doc.get("spans", {})) - set(FIELDS)
    if unknown:
        errors.append(f"unknown fields {sorted(unknown)}")
    for field, quotes in doc.get("spans", {}).items():
        for item in quotes:
            q, n = (item, None) if isinstance(item, str) else (item["q"], item.get("n"))
            try:
                start, end = locate(text, q, n, html)
            except ValueError as exc:
                errors.append(f"{field}: {exc}")
                continue
            spans.append({"field": field, "start": start, "end": end})
    spans.sort(key=lambda s: (s["start"], s["end"], s["field"]))
    card = dict(doc.get("card") or {})
    if doc.get("title"):
        # the author's own title, kept as offsets like every other piece of evidence; like a
        # span, {"q": ..., "n": 1} picks one of several occurrences (front matter and heading)
        title = doc["title"]
        q, n = (title, None) if isinstance(title, str) else (title["q"], title.get("n"))
        try:
            card["title_span"] = list(locate(text, q, n, html))
        except ValueError as exc:
            errors.append(f"title: {exc}")
    for field in FIELDS:
        own = [s for s in spans if s["field"] == field]
        for a, b in zip(own, own[1:]):
            if b["start"] < a["end"]:
                errors.append(f"{field}: two spans overlap at {b['start']}")
    if errors:
        print(f"{rel}: not added\n  " + "\n  ".join(errors), file=sys.stderr)
        return 1
    ref = path_reference(rel, root)
    stem = ref.rsplit(".", 1)[0].replace("*", "").rstrip(" -")
    line = {"id": (f"train/{stem}" if args.kind == "train" else stem), "path": ref,
            "sha256": hashlib.sha256(read_text(path).encode("utf-8")).hexdigest(), "annotated": FIELDS,
            "spans": spans}
    if card:
        line["card"] = card
    line["annotator"] = args.annotator
    out = Path(args.out)
    kept = [row for row in (out.read_text(encoding="utf-8").splitlines() if out.exists() else [])
            if row.strip() and json.loads(row)["path"] != ref]
    kept.append(json.dumps(line, ensure_ascii=False))
    out.write_text("\n".join(kept) + "\n", encoding="utf-8")
    counts = {f: sum(1 for s in spans if s["field"] == f) for f in FIELDS}
    print(f"{rel}: added, " + ", ".join(f"{f} {c}" for f, c in counts.items() if c))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", default=str(CORPUS))
    sub = parser.add_subparsers(dest="command", required=True)
    p_draw = sub.add_parser("draw")
    p_draw.add_argument("--out")
    p_show = sub.add_parser("show")
    p_show.add_argument("path")
    p_add = sub.add_parser("add")
    p_add.add_argument("--annotator", required=True)
    p_add.add_argument("--kind", choices=["train", "gold"], required=True)
    p_add.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    root = Path(args.corpus)
    if args.command == "draw":
        result = json.dumps(draw(root), indent=1)
        Path(args.out).write_text(result, encoding="utf-8") if args.out else print(result)
        return 0
    if args.command == "show":
        offset = 0
        for line in read_text(root / args.path).splitlines(keepends=True):
            print(f"[{offset}] {line.rstrip(chr(10)).rstrip(chr(13))}")
            offset += len(line)
        return 0
    return add(args, root)


if __name__ == "__main__":
    sys.exit(main())
