"""Prove a change kept behaviour: convert the whole shared corpus and run ``pmparse eval``, then
compare two such runs.

    python eval/behaviour_check.py run OUT        # OUT (new) holds library/ (records) and report.json
    python eval/behaviour_check.py compare A B    # exit 1 and list differences

Records are compared byte for byte after blanking the pipeline fingerprint; the library index is compared by the records it names, since
it also holds this run's file times and sizes.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
# the one record field a refactor may have to change: the pipeline's code fingerprint
VOLATILE = re.compile(r"^(\s*(fingerprint)\s*:).*$", re.M)
VOLATILE_JSON = re.compile(r'"(fingerprint)":\s*"[^"]*"')


def run(out: Path) -> int:
    # a record's stamp holds the model and rules, not the code: converting into a folder a run
    # already filled would keep its records as up to date and prove nothing about a code change
    if out.exists():
        print(f"{out}: expected a folder that does not exist yet, found one", file=sys.stderr)
        return 2
    out.mkdir(parents=True)
    library = out / "library"
    subprocess.run([sys.executable, "-m", "pmparse.cli", "convert", str(CORPUS), "-o", str(library),
                    "--jobs", "2", "--no-progress", "--errors", str(out / "errors.jsonl")],
                   stdout=open(out / "convert.txt", "w"), stderr=subprocess.STDOUT)
    subprocess.run([sys.executable, "-m", "pmparse.cli", "eval", "--rounds", "200", "--report", str(out / "report.json")],
                   stdout=open(out / "eval.txt", "w"), stderr=subprocess.STDOUT)
    print(f"{sum(1 for _ in library.rglob('*') if _.is_file())} files in {library}")
    return 0


def normal(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    return VOLATILE_JSON.sub(r'"\1": "-"', VOLATILE.sub(r"\1 -", text))


def _files(out: Path) -> set[str]:
    # the library index holds file times and sizes (stat data of this run), not behaviour: its
    # record names are compared instead
    return {p.relative_to(out).as_posix() for p in (out / "library").rglob("*")
            if p.is_file() and p.name != "index.json"}


def _indexed(out: Path) -> list[str]:
    index = out / "library" / ".pmparse" / "index.json"
    return sorted(json.loads(index.read_text(encoding="utf-8"))["records"]) if index.exists() else []


def compare(a: Path, b: Path) -> int:
    differences = []
    files_a, files_b = _files(a), _files(b)
    differences += [f"only in {a}: {p}" for p in sorted(files_a - files_b)]
    differences += [f"only in {b}: {p}" for p in sorted(files_b - files_a)]
    for rel in sorted(files_a & files_b):
        if normal(a / rel) != normal(b / rel):
            differences.append(f"differs: {rel}")
    if _indexed(a) != _indexed(b):
        differences.append("differs: the records the library index names")
    for name in ("report.json", "eval.txt", "errors.jsonl"):
        if (a / name).exists() != (b / name).exists() or ((a / name).exists() and normal(a / name) != normal(b / name)):
            differences.append(f"differs: {name}")
    print("\n".join(differences) or f"identical: {len(files_a)} library files, report, eval output and errors")
    return 1 if differences else 0


if __name__ == "__main__":
    command, *paths = sys.argv[1:]
    sys.exit(run(Path(paths[0])) if command == "run" else compare(Path(paths[0]), Path(paths[1])))
