"""Peak RSS and time of ``pmparse convert`` on one-line files of 1, 5 and 20 MB (issue 25).

Each file is "Root cause: " followed by "a " repeated to the size, on one line (the issue's
input), written to a temporary folder; with ``--words`` the line repeats a sentence fragment of
real words instead, so every piece of it is read as a unit. Every size is converted in a fresh
process (``--jobs 1``: the analysis runs in one worker); the figures are the wall time and the
peak RSS (VmHWM) of the largest process and of all of them (parent, fork server, workers).

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


def _tree(root: int) -> set[int]:
    """``root`` and every process below it (Linux /proc): the fork server and its workers too."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", encoding="utf-8") as handle:
                    parents[int(name)] = int(handle.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    found, frontier = {root}, {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _peak_kb(pid: int) -> int:
    """The peak resident set (VmHWM) of a live process, in kB; 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run(args: list[str], cwd: Path) -> tuple[float, float, float, int, str]:
    """Run ``python -m pmparse ARGS``: wall seconds, the largest peak RSS of one process and the
    sum of every process's peak (MB), exit code, last output line.

    Workers are children of multiprocessing's fork server, which this process does not wait for,
    so ``getrusage`` would miss them: the peaks (VmHWM) of the whole process tree are read from
    /proc every 50 ms while the command runs (a process's last reading before it ends counts).
    """
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "pmparse", *args], cwd=cwd, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    peaks: dict[int, int] = {}
    while process.poll() is None:
        for pid in _tree(process.pid):
            peaks[pid] = max(peaks.get(pid, 0), _peak_kb(pid))
        time.sleep(0.05)
    wall = time.perf_counter() - started
    out = (process.stdout.read().strip().splitlines() or [""])[-1]
    return wall, max(peaks.values(), default=0) / 1024, sum(peaks.values()) / 1024, process.returncode, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=float, default=[1, 5, 20], help="file sizes in MB")
    parser.add_argument("--corpus", help="also convert this folder with --jobs 1 and --jobs 2")
    parser.add_argument("--timeout", default="600", help="--timeout given to convert (seconds)")
    parser.add_argument("--words", action="store_true", help="a line of words, not of 'a '")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print("| input | jobs | seconds | peak RSS of the largest process (MB) | summed over processes (MB) "
              "| exit | summary |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for size in options.sizes:
            path = folder / f"line-{size:g}mb.md"
            head = "Root cause: "
            unit = "the pool of workers ran dry and " if options.words else "a "
            path.write_text(head + unit * int((size * MB - len(head)) // len(unit)), encoding="utf-8")
            wall, rss, total, rc, out = run(["convert", str(path), "-o", str(folder / f"lib-{size:g}"), "--jobs", "1",
                                      "--timeout", options.timeout], folder)
            record = max((p.stat().st_size for p in (folder / f"lib-{size:g}").glob("IL-*")), default=0)
            print(f"| one line of {size:g} MB | 1 | {wall:.1f} | {rss:.0f} | {total:.0f} | {rc} | {out} (largest "
                  f"record {record / 1000:.0f} kB) |", flush=True)
        if options.corpus:
            for jobs in ("1", "2"):
                wall, rss, total, rc, out = run(["convert", options.corpus, "-o", str(folder / f"corpus-{jobs}"),
                                                 "--jobs", jobs], folder)
                print(f"| {options.corpus} | {jobs} | {wall:.1f} | {rss:.0f} | {total:.0f} | {rc} | {out} |",
                      flush=True)


if __name__ == "__main__":
    main()
