"""Benchmark pmparse from a checkout: the same as ``pmparse bench`` (src/pmparse/bench.py).

Usage: ``python eval/bench.py [--size small|full] [--repeat 10] [--corpus DIR] [--json FILE]``.
It reports figures and the issue 7 targets they meet; it never fails on slow figures.
"""

from __future__ import annotations

import sys

from pmparse.cli import main

if __name__ == "__main__":
    main(["bench", *sys.argv[1:]], prog_name="python eval/bench.py")
