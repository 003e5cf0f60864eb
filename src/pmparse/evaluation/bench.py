"""Benchmark: how fast pmparse converts, against spaCy's own tokenizer, and how it scales.

One run measures, over the same texts (the shared corpus, or the bundled samples without it):

- the practical ceiling, ``spacy.blank("en")`` tokenization, and the full pipeline (analysis and
  card assembly, one process) in words and documents per second, and their ratio: the pipeline
  against a cold blank tokenizer that reads each document just before the pipeline does (so a
  slower spell of the machine slows both), and against the median of three stand-alone cold
  rounds of the tokenizer;
- spaCy's ``nlp.pipe(n_process=2)`` against pmparse's own worker pool (2 workers, no writes);
- ``convert`` end to end (ingest, pipeline, records written) with ``--jobs 1`` and ``--jobs 2``,
  each in a fresh process, with the peak resident memory of every process;
- the same corpus repeated to 10x (each copy made distinct, so nothing is skipped), to check that
  cost grows linearly;
- start-up time (imports and pipeline build) in a fresh process.

Words are white-space separated strings of the ingested text. Nothing here asserts a timing:
the report states the targets of issue 7 and whether this run met them (the two cores of a
shared machine make single runs noisy, so the load average is reported too).
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pmparse.errors import UsageError

#: The targets of issue 7.
TARGET_RATIO = 0.20
TARGET_SPEEDUP = 1.6
TARGET_RSS_MB = 400.0
TARGET_STARTUP_S = 1.5
TARGET_LINEARITY = 11.0
#: Issue 33: ``convert --jobs 1`` end to end (records written) over the blank tokenizer's words/s.
TARGET_END_TO_END = 0.22
#: Cold rounds of the blank tokenizer; its median round is the ceiling the pipeline is compared with.
TOKENIZER_ROUNDS = 3

#: Documents of the corpus a ``small`` run uses (every n-th file, so every source is present).
SMALL_DOCS = 24


@dataclass
class Rate:
    """One throughput measurement.

    Attributes:
        name: What was measured.
        docs: Documents processed.
        words: Words processed.
        seconds: Wall-clock time.
        peak_mb: Largest peak resident memory of one process (MB), when measured.
        parent_mb: Peak resident memory of the converting (parent) process (MB).
        total_peak_mb: Sum of the peaks of every process (an upper bound: shared pages count twice).
        processes: Processes measured.
    """

    name: str
    docs: int
    words: int
    seconds: float
    peak_mb: float | None = None
    total_peak_mb: float | None = None
    processes: int = 1
    startup: float = 0.0
    parent_mb: float | None = None

    @property
    def working(self) -> float:
        """Seconds of work: the wall time less the start-up (pipeline build, workers started)."""
        return max(self.seconds - self.startup, 1e-9)

    @property
    def docs_per_s(self) -> float:
        return self.docs / self.working

    @property
    def words_per_s(self) -> float:
        return self.words / self.working


@dataclass
class BenchReport:
    """Figures of one benchmark run (see the module docstring)."""

    source: str
    docs: int
    words: int
    repeat: int
    environment: dict[str, str] = field(default_factory=dict)
    rates: dict[str, Rate] = field(default_factory=dict)
    startup: dict[str, float] = field(default_factory=dict)
    startup_probes: list[float] = field(default_factory=list)
    tokenizer_rounds: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    components: dict[str, float] = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        """Pipeline words/s over the words/s of the blank tokenizer run beside it, document by document.

        The two share every moment of the run, so a slower spell of a shared machine slows both
        (stand-alone rounds of the tokenizer a minute apart varied by a third). Without the
        interleaved run (reports of older versions), the median stand-alone round.
        """
        paired = self.rates.get("tokenizer_paired")
        return self.rates["pipeline"].words_per_s / (paired or self.rates["tokenizer"]).words_per_s

    @property
    def standalone_ratio(self) -> float:
        """Pipeline words/s over the median stand-alone round of the blank tokenizer."""
        return self.rates["pipeline"].words_per_s / self.rates["tokenizer"].words_per_s

    @property
    def end_to_end_ratio(self) -> float:
        """``convert --jobs 1`` words/s, records written, start-up left out, over the median
        stand-alone round of the blank tokenizer."""
        return self.rates["convert_jobs1"].words_per_s / self.rates["tokenizer"].words_per_s

    @property
    def command_ratio(self) -> float | None:
        """The same as :attr:`end_to_end_ratio` for ``convert --jobs 1`` as the command line runs it: one
        worker process analyses while this one writes the records (None in older reports)."""
        rate = self.rates.get("convert_cli1")
        return None if rate is None else rate.words_per_s / self.rates["tokenizer"].words_per_s

    @property
    def speedup(self) -> float:
        """``convert --jobs 2`` over ``--jobs 1`` (documents per second)."""
        return self.rates["convert_jobs2"].docs_per_s / self.rates["convert_jobs1"].docs_per_s

    @property
    def linearity(self) -> float:
        """Working time of the repeated corpus over that of the corpus (``repeat`` when perfectly linear)."""
        return self.rates["convert_repeat"].working / self.rates["convert_jobs2"].working

    @property
    def peak_mb(self) -> float:
        """Largest peak resident memory of any one process in any convert run."""
        return max(r.peak_mb or 0.0 for k, r in self.rates.items() if k.startswith("convert"))

    def targets(self) -> list[tuple[str, str, str, bool]]:
        """``(target, required, reached, met)`` for each target of issue 7."""
        return [
            ("pipeline / blank tokenizer words/s", f">= {TARGET_RATIO:.2f}", f"{self.ratio:.2f}",
             self.ratio >= TARGET_RATIO),
            ("convert --jobs 1 / blank tokenizer words/s", f">= {TARGET_END_TO_END:.2f}",
             f"{self.end_to_end_ratio:.2f}", self.end_to_end_ratio >= TARGET_END_TO_END),
            ("convert --jobs 2 / --jobs 1", f">= {TARGET_SPEEDUP:.1f}x", f"{self.speedup:.2f}x",
             self.speedup >= TARGET_SPEEDUP),
            ("peak RSS of a process", f"<= {TARGET_RSS_MB:.0f} MB", f"{self.peak_mb:.0f} MB",
             self.peak_mb <= TARGET_RSS_MB),
            ("start-up (import + pipeline build)", f"< {TARGET_STARTUP_S:.1f} s", f"{self.startup['total']:.2f} s",
             self.startup["total"] < TARGET_STARTUP_S),
            (f"{self.repeat}x corpus work time / 1x", f"<= {TARGET_LINEARITY:.0f}x" if self.repeat == 10 else
             f"<= {TARGET_LINEARITY * self.repeat / 10:.1f}x", f"{self.linearity:.2f}x",
             self.linearity <= TARGET_LINEARITY * self.repeat / 10),
        ]

    def table(self) -> str:
        """The report as plain-text tables."""
        env = self.environment
        lines = [
            f"corpus: {self.source}: {self.docs} documents, {self.words:,} words; repeated {self.repeat}x: "
            f"{self.docs * self.repeat} documents",
            f"machine: {env.get('cores')} cores, load average {env.get('load')} at start, "
            f"{env.get('load_end', '?')} at end (other work on the machine slows every figure); "
            f"Python {env.get('python')}, spaCy {env.get('spacy')}",
            "",
            f"{'measure':<46} {'docs/s':>8} {'words/s':>10} {'seconds':>8} {'start-up':>8}  peak RSS MB",
        ]
        for rate in self.rates.values():
            peak = "" if rate.peak_mb is None else f"{rate.peak_mb:.0f}"
            if rate.processes > 1 and rate.total_peak_mb is not None:
                peak = (f"{rate.peak_mb:.0f} (parent {rate.parent_mb or 0:.0f}; {rate.processes} processes, "
                        f"sum {rate.total_peak_mb:.0f})")
            lines.append(f"{rate.name:<46} {rate.docs_per_s:>8.1f} {rate.words_per_s:>10,.0f} {rate.seconds:>8.2f} "
                         f"{rate.startup:>8.2f}  {peak:<16}".rstrip())
        if self.components:
            total = sum(self.components.values()) or 1.0
            lines += ["", "where the pipeline's time goes: " + ", ".join(
                f"{name} {seconds / total:.0%}" for name, seconds in
                sorted(self.components.items(), key=lambda item: -item[1]))]
        lines += ["", "docs/s and words/s leave out start-up (pipeline build, workers started); seconds include it"]
        pipe, pool = self.rates.get("spacy_pipe2"), self.rates.get("pool2")
        probes = f" (median of {len(self.startup_probes)} fresh processes: " + ", ".join(
            f"{t:.2f}" for t in self.startup_probes) + " s)" if len(self.startup_probes) > 1 else ""
        lines += [
            "",
            f"start-up in a fresh process: import {self.startup['import']:.2f} s + pipeline build "
            f"{self.startup['build']:.2f} s = {self.startup['total']:.2f} s (interpreter included: "
            f"{self.startup['process']:.2f} s){probes}",
        ]
        if len(self.tokenizer_rounds) > 1:
            lines.append("blank tokenizer rounds, each cold: " + ", ".join(
                f"{r:,.0f}" for r in self.tokenizer_rounds) + " words/s (the median is the stand-alone ceiling)")
        if "tokenizer_paired" in self.rates:
            lines.append(f"pipeline / blank tokenizer: {self.ratio:.3f} against the tokenizer run beside it, "
                         f"document by document (the target's figure); {self.standalone_ratio:.3f} against the "
                         "median stand-alone round")
        if self.command_ratio is not None:
            lines.append(f"convert --jobs 1 / blank tokenizer: {self.end_to_end_ratio:.3f} analysing in the "
                         f"writing process (the target's figure); {self.command_ratio:.3f} as the command line "
                         "runs it, one worker analysing while the parent writes")
        if pipe and pool:
            lines.append(f"spaCy nlp.pipe(n_process=2) vs pmparse pool of 2: {pool.docs_per_s / pipe.docs_per_s:.2f}x "
                         "in favour of the pool")
        lines += [f"note: {note}" for note in self.notes]
        lines += ["", f"{'target (issues 7, 33)':<42} {'required':>10} {'reached':>10}  met"]
        for name, required, reached, met in self.targets():
            lines.append(f"{name:<42} {required:>10} {reached:>10}  {'yes' if met else 'NO'}")
        return "\n".join(lines)

    def to_json(self) -> str:
        """The raw figures as JSON."""
        data = asdict(self)
        data["derived"] = {"ratio": self.ratio, "standalone_ratio": self.standalone_ratio,
                           "end_to_end_ratio": self.end_to_end_ratio, "command_ratio": self.command_ratio, "speedup": self.speedup, "linearity": self.linearity,
                           "peak_mb": self.peak_mb}
        return json.dumps(data, indent=2)


# --- inputs --------------------------------------------------------------------------------------


def bench_files(size: str = "full", corpus: str | None = None) -> tuple[str, list[Path]]:
    """The documents to measure: the corpus's incident files, or the bundled samples without it.

    Args:
        size: ``full`` (every incident file) or ``small`` (every n-th, :data:`SMALL_DOCS` of them).
        corpus: The corpus root; ``$PMPARSE_CORPUS`` or ``../shared/corpus`` when None.

    Returns:
        ``(description, paths)``.
    """
    from pmparse.evaluation.corpus import REPO_ROOT, corpus_root, incident_files

    try:
        root = corpus_root(corpus)
    except UsageError:
        if corpus is not None:
            raise
        samples = REPO_ROOT / "corpus" / "samples"
        return "bundled samples (no shared corpus found)", sorted(p for p in samples.iterdir() if p.is_file())
    files = [root / rel for _, rel in incident_files(root, include_extra=True)]
    if size == "small" and len(files) > SMALL_DOCS:
        step = len(files) / SMALL_DOCS
        files = [files[int(i * step)] for i in range(SMALL_DOCS)]
    return f"{root} ({size})", files


def make_copies(files: list[Path], folder: Path, copies: int) -> list[Path]:
    """The files copied ``copies`` times into ``folder``, each copy made distinct.

    A copy ends with an HTML comment holding its number (no words, so no new unit): its sha256
    differs, so convert treats it as a new source and does the whole work again.
    """
    made = []
    for k in range(copies):
        for i, path in enumerate(files):
            target = folder / f"copy-{k:02d}" / f"{i:05d}-{path.name}"
            target.parent.mkdir(parents=True, exist_ok=True)
            data = path.read_bytes()
            target.write_bytes(data + f"\n<!-- {k} -->\n".encode() if k else data)
            made.append(target)
    return made


# --- measurements --------------------------------------------------------------------------------


def _tree_peaks(root_pid: int, stop: threading.Event, peaks: dict[int, int], interval: float = 0.2) -> None:
    """Sample the peak resident memory (VmHWM) of every descendant of ``root_pid`` until ``stop``."""
    while not stop.is_set():
        parents: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                    parents[int(entry)] = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
        family = {root_pid}
        grew = True
        while grew:
            grew = False
            for pid, parent in parents.items():
                if parent in family and pid not in family:
                    family.add(pid)
                    grew = True
        for pid in family - {root_pid}:
            try:
                with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
                    for line in handle:
                        if line.startswith("VmHWM:"):
                            peaks[pid] = max(peaks.get(pid, 0), int(line.split()[1]))
            except OSError:
                continue
        stop.wait(interval)


def measure_convert(files_list: str, library: str, jobs: int, isolate: bool = False) -> dict:
    """Convert the files listed (one path a line) into ``library``; time and memory of every process.

    ``isolate`` analyses in a worker process also with ``jobs=1``, as the command line does. Run in a
    fresh process by :func:`run_bench` (``python -m pmparse.evaluation.bench convert ...``).
    """
    from pmparse.batch.convert import convert
    from pmparse.nlp.pipeline import pipeline_config

    files = Path(files_list).read_text(encoding="utf-8").splitlines()
    peaks: dict[int, int] = {}
    stop = threading.Event()
    sampler = None
    if os.path.isdir("/proc"):
        sampler = threading.Thread(target=_tree_peaks, args=(os.getpid(), stop, peaks), daemon=True)
        sampler.start()
    start = time.perf_counter()
    report = convert(files, library, config=pipeline_config(), jobs=jobs, keep_results=False,
                     isolate=isolate)
    seconds = time.perf_counter() - start
    stop.set()
    if sampler is not None:
        sampler.join()
    import resource  # Unix only, like the /proc sampling above

    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seconds": seconds, "startup": report.startup_seconds, "counts": dict(report.counts), "jobs": report.jobs,
            "own_kb": own, "children_kb": list(peaks.values())}


def _run_convert(files: list[Path], workdir: Path, name: str, jobs: int, label: str, words: int,
                 isolate: bool = False) -> Rate:
    listing = workdir / f"{name}.txt"
    listing.write_text("\n".join(str(p) for p in files), encoding="utf-8")
    library = workdir / f"library-{name}"
    shutil.rmtree(library, ignore_errors=True)
    done = subprocess.run([sys.executable, "-m", "pmparse.evaluation.bench", "convert", str(listing), str(library), str(jobs),
                           *(["isolate"] if isolate else [])],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise UsageError(f"expected the benchmark conversion to run, found exit {done.returncode}: "
                         f"{done.stderr.strip()[-2000:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    counts = figures["counts"]
    # a file holding many incidents gives a record per entry, so there may be more records than files
    if counts.get("converted", 0) < len(files) or counts.get("unchanged") or counts.get("failed"):
        raise UsageError(f"expected every document converted anew, found {counts}")
    all_kb = [figures["own_kb"], *figures["children_kb"]]
    return Rate(label, len(files), words, figures["seconds"], max(all_kb) / 1024, sum(all_kb) / 1024, len(all_kb),
                figures["startup"], figures["own_kb"] / 1024)


def measure_startup(probes: int = 3) -> tuple[dict[str, float], list[float]]:
    """Import and pipeline-build time in fresh processes: the median probe, and every probe's total.

    One probe is not enough on a shared machine: the same command took 0.98 s and 1.76 s a
    minute apart here.
    """
    runs = sorted((_startup_probe() for _ in range(max(1, probes))), key=lambda r: r["total"])
    return runs[len(runs) // 2], [r["total"] for r in runs]


def _startup_probe() -> dict[str, float]:
    """Import and pipeline-build time in one fresh process (and the whole process's wall time)."""
    code = ("import json, time; t0 = time.perf_counter(); import pmparse.nlp.pipeline as p; t1 = time.perf_counter(); "
            "p.get(p.pipeline_config()); t2 = time.perf_counter(); "
            "print(json.dumps({'import': t1 - t0, 'build': t2 - t1}))")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise UsageError(f"expected the start-up probe to run, found: {done.stderr.strip()[-2000:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return {"import": figures["import"], "build": figures["build"], "total": figures["import"] + figures["build"],
            "process": wall}


def _pool_rate(files: list[Path], words: int, config) -> Rate:
    from pmparse.batch.pool import Task, WorkerPool
    from pmparse.card.schema import Card
    from pmparse.ingest.read import DEFAULT_MAX_BYTES

    start = time.perf_counter()
    pool = WorkerPool(2, config, DEFAULT_MAX_BYTES)
    ready = time.perf_counter() - start
    try:
        for _, outcome in pool.map(iter([Task(str(p)) for p in files])):
            if outcome.card_json:
                Card.model_validate_json(outcome.card_json)
    finally:
        pool.close()
    return Rate("pmparse worker pool, 2 workers (no writes)", len(files), words, time.perf_counter() - start,
                processes=3, startup=ready)


def measure_spacy_pipe(files_list: str, processes: int = 2) -> dict:
    """spaCy's own multiprocessing: ``nlp.pipe(docs, n_process=2)``, cards built in this process.

    Run in a fresh process by :func:`run_bench` (``python -m pmparse.evaluation.bench pipe ...``).
    """
    from pmparse.card.build import build_card
    from pmparse.ingest.read import ingest
    from pmparse.nlp.pipeline import build, make_doc, pipeline_config, version_info

    sources = [ingest(path) for path in Path(files_list).read_text(encoding="utf-8").splitlines()]
    nlp = build(pipeline_config())
    info = version_info(nlp)
    docs = [make_doc(nlp, source) for source in sources]
    start = time.perf_counter()
    for doc, source in zip(nlp.pipe(docs, n_process=processes, batch_size=8), sources):
        build_card(doc, source, "IL-0001", info)
    return {"seconds": time.perf_counter() - start}


def _run_spacy_pipe(files: list[Path], workdir: Path, limit: float) -> tuple[float | None, str | None]:
    listing = workdir / "spacy-pipe.txt"
    listing.write_text("\n".join(str(p) for p in files), encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-m", "pmparse.evaluation.bench", "pipe", str(listing)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)  # the child and the workers spaCy started
        process.communicate()
        return None, f"no result after {limit:.0f} s (killed)"
    if process.returncode != 0:
        return None, f"exit {process.returncode}: {err.strip().splitlines()[-1] if err.strip() else ''}"
    return json.loads(out.strip().splitlines()[-1])["seconds"], None


def analyse_timed(nlp, source, info, spent: dict[str, float], clock=time.perf_counter) -> None:
    """``analyse()`` and the card of one source, one component at a time, adding each step's time to
    ``spent`` (keys: ``tokenizer (make_doc)``, the pipe names, ``card``) on ``clock``."""
    from pmparse.card.build import build_card
    from pmparse.nlp.pipeline import make_doc

    mark = clock()
    doc = make_doc(nlp, source)
    now = clock()
    spent["tokenizer (make_doc)"] += now - mark
    for name, component in nlp.pipeline:
        mark, doc = now, component(doc)
        now = clock()
        spent[name] += now - mark
    build_card(doc, source, "IL-0001", info)
    spent["card"] += clock() - now


def run_bench(size: str = "full", corpus: str | None = None, repeat: int = 10, workdir: str | None = None,
              progress=None) -> BenchReport:
    """Run every measurement once and return the figures.

    Args:
        size: ``full`` (the whole corpus) or ``small`` (a sample of it, for CI).
        corpus: The corpus root (default: ``$PMPARSE_CORPUS`` or ``../shared/corpus``).
        repeat: How many times the corpus is repeated for the scaling run.
        workdir: Folder for copies and libraries (a temporary one, removed afterwards, when None).
        progress: Called with a short message before each step.

    Raises:
        UsageError: a measurement could not run.
    """
    import spacy

    from pmparse.ingest.read import ingest
    from pmparse.nlp.pipeline import build, pipeline_config, version_info

    say = progress or (lambda message: None)
    if size not in ("full", "small"):
        raise UsageError(f"expected size full or small, found {size}")
    if repeat < 2:
        raise UsageError(f"expected --repeat of at least 2, found {repeat}")
    description, files = bench_files(size, corpus)
    sources = []
    for path in files:
        try:
            sources.append(ingest(str(path)))
        except Exception:  # a file the pipeline refuses is left out of every measurement
            continue
    files = [Path(source.location) for source in sources]
    words = sum(len(source.text.split()) for source in sources)
    report = BenchReport(description, len(sources), words, repeat, environment={
        "cores": str(os.cpu_count()), "load": f"{os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "?",
        "python": platform.python_version(), "spacy": spacy.__version__})

    say("start-up in fresh processes")
    report.startup, report.startup_probes = measure_startup()
    say('spacy.blank("en") tokenizer')
    # three rounds, each with a new (cold) tokenizer like the pipeline's single cold pass: one
    # round of a few seconds varied from 87,000 to 177,000 words/s between runs
    rounds = []
    for _ in range(TOKENIZER_ROUNDS):
        blank = spacy.blank("en")
        blank.max_length = 10**9
        start = time.perf_counter()
        for source in sources:
            blank.make_doc(source.text)
        rounds.append(time.perf_counter() - start)
    report.tokenizer_rounds = [words / seconds for seconds in rounds]
    report.rates["tokenizer"] = Rate('spacy.blank("en") tokenizer (median of 3)', len(sources), words,
                                     sorted(rounds)[len(rounds) // 2])
    say("pipeline in this process")
    config = pipeline_config()
    nlp = build(config)
    info = version_info(nlp)
    spent = {"tokenizer (make_doc)": 0.0, **{name: 0.0 for name in nlp.pipe_names}, "card": 0.0}
    # a cold blank tokenizer reads each document just before the pipeline does: the ratio compares
    # the two over the same moments of the run, which a shared machine's slower spells then slow alike
    paired = spacy.blank("en")
    paired.max_length = 10**9
    paired_seconds = 0.0
    start = time.perf_counter()
    for source in sources:
        mark = time.perf_counter()
        paired.make_doc(source.text)
        now = time.perf_counter()
        paired_seconds += now - mark
        start += now - mark  # the pipeline's clock stops while the tokenizer runs
        analyse_timed(nlp, source, info, spent)
    report.rates["pipeline"] = Rate("pipeline: analysis + card, 1 process", len(sources), words,
                                    time.perf_counter() - start)
    report.rates["tokenizer_paired"] = Rate('spacy.blank("en") tokenizer beside it', len(sources), words,
                                            paired_seconds)
    report.components = spent
    say("pmparse worker pool")
    report.rates["pool2"] = _pool_rate(files, words, config)

    own_workdir = workdir is None
    root = Path(tempfile.mkdtemp(prefix="pmparse-bench-")) if own_workdir else Path(workdir)
    root.mkdir(parents=True, exist_ok=True)
    try:
        say("spaCy nlp.pipe(n_process=2)")
        # in a child with a time limit: spaCy's multiprocessing hangs when a worker fails
        limit = 60 + 10 * report.rates["pipeline"].seconds
        seconds, problem = _run_spacy_pipe(files, root, limit)
        if seconds is not None:
            report.rates["spacy_pipe2"] = Rate("spaCy nlp.pipe(n_process=2) + card", len(sources), words, seconds,
                                               processes=3)
        else:
            report.notes.append(f"spaCy nlp.pipe(n_process=2) did not finish: {problem}")
        for jobs in (1, 2):
            say(f"convert --jobs {jobs}")
            report.rates[f"convert_jobs{jobs}"] = _run_convert(files, root, f"jobs{jobs}", jobs,
                                                               f"convert --jobs {jobs} (records written)", words)
        say("convert --jobs 1 as the command line runs it")
        report.rates["convert_cli1"] = _run_convert(files, root, "cli1", 1, "convert --jobs 1, one worker (the command)",
                                                    words, isolate=True)
        say(f"convert --jobs 2 over the corpus repeated {repeat}x")
        copies = make_copies(files, root / "copies", repeat)
        report.rates["convert_repeat"] = _run_convert(copies, root, f"x{repeat}", 2,
                                                      f"convert --jobs 2, corpus x{repeat}", words * repeat)
    finally:
        if own_workdir:
            shutil.rmtree(root, ignore_errors=True)
    if hasattr(os, "getloadavg"):
        report.environment["load_end"] = f"{os.getloadavg()[0]:.2f}"
    return report


def _main(argv: list[str]) -> None:
    """One measurement in a fresh process (internal; see ``pmparse bench``).

    ``python -m pmparse.evaluation.bench convert FILE_LIST LIBRARY JOBS [isolate]`` or ``python -m pmparse.evaluation.bench pipe FILE_LIST``.
    """
    if len(argv) in (4, 5) and argv[0] == "convert" and argv[4:] in ([], ["isolate"]):
        print(json.dumps(measure_convert(argv[1], argv[2], int(argv[3]), isolate=len(argv) == 5)))
    elif len(argv) == 2 and argv[0] == "pipe":
        print(json.dumps(measure_spacy_pipe(argv[1])))
    else:
        raise SystemExit("usage: python -m pmparse.evaluation.bench convert FILE_LIST LIBRARY JOBS [isolate] | pipe FILE_LIST "
                         "(internal; see 'pmparse bench')")


if __name__ == "__main__":
    _main(sys.argv[1:])
