"""Peak RSS and time of ``pmparse convert`` on one-line files of 1, 5 and 20 MB (issue 25).

Each file is "Root cause: " followed by "a " repeated to the size, on one line, written to a
temporary folder; every size is converted in a fresh process (``--jobs 1``), and the figures are
that process's wall time and the peak RSS of it and its children (``resource.getrusage``).

    PYTHONPATH=$PWD/src python eval/long_lines.py            # 1, 5 and 20 MB
    PYTHONPATH=$PWD/src python eval/long_lines.py 1 5        # chosen sizes (MB)
    PYTHONPATH=$PWD/src python eval/long_lines.py --corpus /work/shared/corpus   # + the corpus, jobs 1 and 2
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MB = 1_000_000


def run(args: list[str], cwd: Path) -> tuple[float, float, int, str]:
    """Run ``python -m pmparse ARGS`` in a fresh process: wall seconds, peak RSS (MB) of the
    largest process and of the largest child, exit code, last output line."""
    code = ("import resource, subprocess, sys, time\n"
            "t = time.perf_counter()\n"
            "p = subprocess.run([sys.executable, '-m', 'pmparse', *sys.argv[1:]], capture_output=True, text=True)\n"
            "wall = time.perf_counter() - t\n"
            "kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
            "out = (p.stdout.strip().splitlines() or [''])[-1]\n"
            "print(wall, kids / 1024, p.returncode, out, sep='\\t')\n")
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd,
                          env=os.environ.copy(), check=True)
    wall, rss, rc, out = done.stdout.strip().split("\t", 3)
    return float(wall), float(rss), int(rc), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=float, default=[1, 5, 20], help="file sizes in MB")
    parser.add_argument("--corpus", help="also convert this folder with --jobs 1 and --jobs 2")
    parser.add_argument("--timeout", default="600", help="--timeout given to convert (seconds)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print("| input | jobs | seconds | peak RSS (MB, largest process) | exit | summary |")
        print("|---|---:|---:|---:|---:|---|")
        for size in options.sizes:
            path = folder / f"line-{size:g}mb.md"
            head = "Root cause: "
            path.write_text(head + "a " * int((size * MB - len(head)) // 2), encoding="utf-8")
            started = time.perf_counter()
            wall, rss, rc, out = run(["convert", str(path), "-o", str(folder / f"lib-{size:g}"), "--jobs", "1",
                                      "--timeout", options.timeout], folder)
            record = max((p.stat().st_size for p in (folder / f"lib-{size:g}").glob("IL-*")), default=0)
            print(f"| one line of {size:g} MB | 1 | {wall:.1f} | {rss:.0f} | {rc} | {out} (largest record "
                  f"{record / 1000:.0f} kB) |", flush=True)
            del started
        if options.corpus:
            for jobs in ("1", "2"):
                wall, rss, rc, out = run(["convert", options.corpus, "-o", str(folder / f"corpus-{jobs}"),
                                          "--jobs", jobs], folder)
                print(f"| {options.corpus} | {jobs} | {wall:.1f} | {rss:.0f} | {rc} | {out} |", flush=True)


if __name__ == "__main__":
    main()
