"""What writing records costs: libyaml against PyYAML's Python emitter, and fsync per record.

    python eval/record_write_cost.py dump LIBRARY     # serialise every record of a library both ways
    python eval/record_write_cost.py convert          # convert the shared corpus (--jobs 1) both ways, twice
    python eval/record_write_cost.py fsync LIBRARY    # write a library's records: fsync each, one sync, none

``dump`` also checks that both emitters give every record's bytes. Figures go to
docs/speed-and-robustness.md ("Writing records").
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import yaml

from pmparse import util
from pmparse.library import records


def _python_text(card) -> str:
    return yaml.dump(records._flowed(records.card_data(card)), Dumper=records._Dumper, sort_keys=False,
                     allow_unicode=True, width=100, default_flow_style=False)


def dump(library: Path) -> None:
    paths = sorted(library.rglob("IL-*.yaml"))
    cards = [records.loads(p.read_text(encoding="utf-8"), "yaml", str(p)) for p in paths]
    t0 = time.perf_counter()
    fast = [records.dumps(c) for c in cards]
    t1 = time.perf_counter()
    slow = [_python_text(c) for c in cards]
    t2 = time.perf_counter()
    same = sum(a == b == p.read_text(encoding="utf-8") for a, b, p in zip(fast, slow, paths))
    print(f"{len(cards)} records: libyaml {t1 - t0:.2f} s, Python emitter {t2 - t1:.2f} s; "
          f"{same} byte-identical to each other and to their file")


def convert_corpus() -> None:
    from pmparse.batch.convert import convert
    from pmparse.evaluation.corpus import corpus_root, incident_files
    from pmparse.nlp.pipeline import pipeline_config

    root = corpus_root(None)
    files = [str(root / rel) for _, rel in incident_files(root, include_extra=True)]
    libyaml = records._CDumper
    for _ in range(2):
        for name, dumper in (("Python emitter", None), ("libyaml", libyaml)):
            records._CDumper = dumper
            with tempfile.TemporaryDirectory() as out:
                t = time.perf_counter()
                convert(files, Path(out) / "lib", jobs=1, config=pipeline_config())
                print(f"{name}: {len(files)} files converted in {time.perf_counter() - t:.1f} s (--jobs 1)")
    records._CDumper = libyaml


def fsync_modes(library: Path) -> None:
    texts = [p.read_text(encoding="utf-8") for p in sorted(library.rglob("IL-*.yaml"))]
    real = os.fsync
    for _ in range(2):
        for mode in ("fsync each record", "one sync at the end", "no sync"):
            with tempfile.TemporaryDirectory(dir=library.parent) as out:
                if mode != "fsync each record":
                    util.os.fsync = lambda fd: None
                t = time.perf_counter()
                for i, text in enumerate(texts):
                    util.atomic_write(Path(out) / f"IL-{i:04d}.yaml", text)
                if mode == "one sync at the end":
                    os.sync()
                print(f"{mode}: {len(texts)} records in {time.perf_counter() - t:.2f} s")
                util.os.fsync = real


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "dump" and len(sys.argv) == 3:
        dump(Path(sys.argv[2]))
    elif command == "convert":
        convert_corpus()
    elif command == "fsync" and len(sys.argv) == 3:
        fsync_modes(Path(sys.argv[2]))
    else:
        sys.exit(__doc__)
