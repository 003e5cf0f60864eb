from __future__ import annotations

import json

import pmparse.evaluation.bench as bench_module
import pmparse.evaluation.corpus  # noqa: F401  (the project root is fixed at import, before a test changes folder)
from pmparse.evaluation.bench import TARGET_RATIO, BenchReport, Rate, bench_files, make_copies, measure_convert
from pmparse.ingest.read import ingest
from tests.helpers import SAMPLES


def report(**seconds) -> BenchReport:
    bench = BenchReport("test", docs=10, words=1000, repeat=10, environment={"cores": "2", "load": "0.5"})
    figures = {"tokenizer": 0.1, "pipeline": 0.4, "pool2": 0.3, "spacy_pipe2": 0.9, "convert_jobs1": 1.0,
               "convert_jobs2": 0.6, **seconds}
    for key, value in figures.items():
        bench.rates[key] = Rate(key, 10, 1000, value + 0.5, peak_mb=100, total_peak_mb=250, processes=3, startup=0.5)
    bench.rates["convert_repeat"] = Rate("x10", 100, 10_000, 6.0 + 0.5, peak_mb=120, processes=3, startup=0.5)
    bench.startup = {"import": 0.8, "build": 0.5, "total": 1.3, "process": 1.5}
    bench.startup_probes = [1.2, 1.3, 1.9]
    bench.tokenizer_rounds = [9000.0, 10000.0, 12000.0]
    bench.components = {"pmparse_units": 1.0, "tokenizer (make_doc)": 3.0}
    return bench


def test_derived_figures_leave_out_start_up():
    bench = report()
    assert round(bench.ratio, 2) == 0.25 and round(bench.speedup, 2) == 1.67 and round(bench.linearity, 1) == 10.0
    assert bench.peak_mb == 120
    # end to end: convert --jobs 1 reads 1,000 words in 1.0 s, the tokenizer in 0.1 s
    assert round(bench.end_to_end_ratio, 2) == 0.1
    assert [met for *_, met in bench.targets()] == [True, False, True, True, True, True]
    slow = report(pipeline=1.0, convert_jobs2=0.9)
    assert [met for *_, met in slow.targets()][:3] == [False, False, False] and slow.ratio < TARGET_RATIO
    assert report(convert_jobs1=0.4).targets()[1][3]


def test_ratio_is_against_the_tokenizer_run_beside_the_pipeline_when_there_is_one():
    bench = report()
    assert round(bench.ratio, 2) == round(bench.standalone_ratio, 2) == 0.25  # older reports: stand-alone
    bench.rates["tokenizer_paired"] = Rate("beside", 10, 1000, 0.2)  # slower than stand-alone (0.1 s)
    assert round(bench.ratio, 2) == 0.5 and round(bench.standalone_ratio, 2) == 0.25
    assert "0.500 against the tokenizer run beside it" in bench.table()
    assert json.loads(bench.to_json())["derived"]["standalone_ratio"] == bench.standalone_ratio


def test_table_and_json_show_every_measure_and_target():
    bench = report()
    bench.notes.append("spaCy nlp.pipe(n_process=2) did not finish: killed")
    table = bench.table()
    for text in ("convert_jobs2", "x10", "sum 250", "start-up in a fresh process: import 0.80 s", "tokenizer (make_doc) 75%",
                 "3.00x in favour of the pool", "note: spaCy nlp.pipe(n_process=2) did not finish", "yes",
                 "median of 3 fresh processes: 1.20, 1.30, 1.90 s", "9,000, 10,000, 12,000 words/s"):
        assert text in table
    data = json.loads(bench.to_json())
    assert data["derived"]["speedup"] == bench.speedup and data["rates"]["pipeline"]["seconds"] == 0.9


def test_the_command_lines_convert_is_reported_beside_the_targets_figure():
    # `pmparse convert --jobs 1` analyses in one worker while the parent writes; the target's figure
    # stays the stricter one, analysing in the writing process
    bench = report()
    assert bench.command_ratio is None and "as the command line runs it" not in bench.table()
    bench.rates["convert_cli1"] = Rate("cli", 10, 1000, 0.5 + 0.5, startup=0.5)
    assert round(bench.command_ratio, 2) == 0.2 and round(bench.end_to_end_ratio, 2) == 0.1
    assert "0.100 analysing in the writing process (the target's figure); 0.200 as the command line" in bench.table()
    assert bench.targets()[1][2] == "0.10"
    assert json.loads(bench.to_json())["derived"]["command_ratio"] == bench.command_ratio


def test_copies_are_distinct_sources_with_the_same_words(tmp_path):
    files = sorted(SAMPLES.iterdir())
    copies = make_copies(files, tmp_path, 3)
    assert len(copies) == 9
    texts = [ingest(str(p)) for p in copies]
    assert len({t.sha256 for t in texts if t.format != "html"}) == 6
    # the marker of a copy is an HTML comment: three white-space separated strings, no word
    counts = sorted(len(t.text.split()) for t in texts if t.location.endswith("failover.md"))
    assert counts[1] - counts[0] == counts[2] - counts[0] == 3


def test_bench_files_falls_back_to_the_samples(patch_all, tmp_path, monkeypatch):
    monkeypatch.delenv("PMPARSE_CORPUS", raising=False)
    monkeypatch.chdir(tmp_path)
    patch_all("pmparse.evaluation.corpus.corpus_root", _no_corpus)
    description, files = bench_files("small")
    assert "bundled samples" in description and [p.name for p in files] == sorted(p.name for p in SAMPLES.iterdir())


def _no_corpus(explicit=None):
    from pmparse.errors import UsageError

    raise UsageError("no corpus")


def test_small_size_samples_every_source(corpus_root):
    _, files = bench_files("small", str(corpus_root))
    assert 0 < len(files) <= 24
    assert len({p.relative_to(corpus_root).parts[0] for p in files}) >= 5


def test_measure_convert_reports_time_and_memory(tmp_path):
    listing = tmp_path / "files.txt"
    listing.write_text("\n".join(str(p) for p in sorted(SAMPLES.iterdir())))
    figures = measure_convert(str(listing), str(tmp_path / "lib"), 1)
    assert figures["counts"] == {"converted": 3} and figures["jobs"] == 1
    assert figures["seconds"] > figures["startup"] > 0 and figures["own_kb"] > 0
    isolated = measure_convert(str(listing), str(tmp_path / "lib2"), 1, isolate=True)
    # the worker's memory is sampled too: it is where the analysis ran
    assert isolated["counts"] == {"converted": 3} and isolated["jobs"] == 1 and isolated["children_kb"]


def test_start_up_is_the_median_of_fresh_processes(monkeypatch):
    totals = iter([1.9, 1.1, 1.4])
    monkeypatch.setattr(bench_module, "_startup_probe",
                        lambda: (lambda t: {"import": t - 0.3, "build": 0.3, "total": t, "process": t + 0.2})(next(totals)))
    median, probes = bench_module.measure_startup()
    assert median["total"] == 1.4 and probes == [1.1, 1.4, 1.9]


def test_bench_prints_its_figures_and_says_in_one_line_when_json_cannot_be_written(tmp_path, patch_all):
    # a --json whose folder could not be made lost the whole measurement to a traceback
    from click.testing import CliRunner

    from pmparse.cli import main

    patch_all("pmparse.evaluation.bench.run_bench", lambda **_: report())  # the measured figures of a run
    (tmp_path / "file").write_text("a file where a folder should be", encoding="utf-8")
    target = tmp_path / "file" / "bench.json"
    result = CliRunner().invoke(main, ["bench", "--json", str(target)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert "convert_jobs2" in result.stdout and f"pmparse: {target}: expected to write the figures" in result.stderr
    made = tmp_path / "new" / "bench.json"
    assert CliRunner().invoke(main, ["bench", "--json", str(made)]).exit_code == 0
    assert json.loads(made.read_text())["rates"]
