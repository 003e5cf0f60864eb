"""Batch conversion: workers and determinism, resuming, and bad inputs that never stop a batch.

Every fixture text here is written for these tests (no corpus sentences).
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import pmparse.batch.pool as pool_module
import pmparse.nlp.pipeline as pipeline_module
from pmparse.batch import convert as convert_module
from pmparse.batch.convert import ConvertReport, convert
from pmparse.batch.pool import CHUNK_SIZE, Task, WorkerPool, _run_chunk, analyse_task
from pmparse.cli import main
from pmparse.library.store import Library
from pmparse.library.validate import validate_library
from pmparse.nlp.pipeline import PipelineConfig
from tests.batch.reports import REPORT, library_files, write_reports
from tests.hang_guard import fifo_guard
from tests.helpers import SAMPLES, assert_offsets, source_text


# --- parallel and deterministic -----------------------------------------------------------------


def test_output_is_the_same_for_any_number_of_jobs(batch, tmp_path):
    reports = {}
    for jobs in (1, 2, 3):
        reports[jobs] = convert([str(batch)], tmp_path / f"lib{jobs}", jobs=jobs)
    assert reports[1].jobs == 1 and reports[2].jobs == 2 and reports[3].jobs == 3
    statuses = {jobs: [(r.input, r.status, r.record and Path(r.record).name) for r in rep.results]
                for jobs, rep in reports.items()}
    assert statuses[1] == statuses[2] == statuses[3]
    assert reports[1].counts["converted"] == 12 and reports[1].counts["failed"] == 1
    assert library_files(tmp_path / "lib1") == library_files(tmp_path / "lib2") == library_files(tmp_path / "lib3")
    # ids follow input order, whichever worker finished first
    inputs = [r.input for r in reports[2].results if r.status == "converted"]
    ids = [Path(r.record).stem for r in reports[2].results if r.status == "converted"]
    assert ids == [f"IL-{i:04d}" for i in range(1, len(inputs) + 1)]
    for entry in Library.open(tmp_path / "lib2").entries.values():
        assert_offsets(entry.card, source_text(entry.card))


def test_more_inputs_than_the_window_stream_through_the_pool(tmp_path):
    write_reports(tmp_path / "in", 2 * CHUNK_SIZE * 4 * 2 + 3)
    seen = []
    report = convert([str(tmp_path / "in")], tmp_path / "lib", jobs=2, keep_results=False, on_result=seen.append)
    assert report.results == [] and report.counts["converted"] == len(seen) == 2 * CHUNK_SIZE * 4 * 2 + 3
    assert [r.input for r in seen] == sorted(r.input for r in seen)


def test_a_single_input_does_not_start_a_pool(tmp_path):
    write_reports(tmp_path / "in", 1)
    assert convert([str(tmp_path / "in")], tmp_path / "lib", jobs=4).jobs == 1


def test_workers_send_back_cards_not_documents():
    outcome = analyse_task(Task(str(SAMPLES / "gocardless-postgres-failover.md")), PipelineConfig(), 10**6)
    assert outcome.kind == "card" and outcome.card_json.startswith("{")
    assert analyse_task(Task("x", problem=("missing", "gone")), PipelineConfig(), 10).message == "gone"


# a chunk runner for the crash test: kills its worker on one input, as a segfault would
def _crashing_chunk(tasks):
    if any(task.location.endswith("report-0002.md") for task in tasks):
        os._exit(11)
    return _run_chunk(tasks)


def test_a_worker_that_dies_costs_one_input(patch_all, tmp_path, monkeypatch):
    paths = write_reports(tmp_path / "in", 7)
    patch_all(pool_module, "_run_chunk", _crashing_chunk)
    pool = WorkerPool(2, PipelineConfig(), 10**6)
    try:
        results = list(pool.map(iter([Task(str(p)) for p in paths])))
        # the pool works again after the crash
        again = list(pool.map(iter([Task(str(paths[0]))])))
    finally:
        pool.close()
    assert [task.location for task, _ in results] == [str(p) for p in paths]
    kinds = [outcome.kind for _, outcome in results]
    assert kinds == ["card", "card", "failed", "card", "card", "card", "card"]
    assert results[2][1].error_kind == "crashed" and "died" in results[2][1].message
    assert again[0][1].kind == "card"


# a chunk runner for the timeout test: hangs on one input, as a pathological one might (and
# leaves a mark beside it only if it was let finish)
def _hanging_chunk(tasks):
    for task in tasks:
        if task.location.endswith("report-0001.md"):
            time.sleep(600)
            Path(task.location + ".finished").touch()
    return _run_chunk(tasks)


def test_an_input_that_runs_past_the_timeout_fails_alone(patch_all, tmp_path, monkeypatch):
    paths = write_reports(tmp_path / "in", 5)
    patch_all(pool_module, "_run_chunk", _hanging_chunk)
    pool = WorkerPool(2, PipelineConfig(), 10**6, timeout=3.0)
    try:
        results = list(pool.map(iter([Task(str(p)) for p in paths])))
    finally:
        pool.close(abort=True)
    assert not Path(f"{paths[1]}.finished").exists()  # stopped, not waited for
    assert [task.location for task, _ in results] == [str(p) for p in paths]
    assert [outcome.kind for _, outcome in results] == ["card", "failed", "card", "card", "card"]
    assert results[1][1].error_kind == "timeout" and "3 s" in results[1][1].message


# --- resumable ----------------------------------------------------------------------------------


def test_up_to_date_sources_are_skipped_without_running_the_pipeline(patch_all, batch, tmp_path, monkeypatch):
    convert([str(batch)], tmp_path / "lib")
    calls = []
    real = pipeline_module.analyse
    patch_all(pipeline_module, "analyse", lambda nlp, source: calls.append(source.location) or real(nlp, source))
    report = convert([str(batch)], tmp_path / "lib")
    assert calls == [] and report.counts["unchanged"] == 12 and report.counts["failed"] == 1
    # a changed source, --force, or a new pipeline version runs the pipeline again
    (batch / "report-0003.md").write_text(REPORT.format(n=3, m=3) + "\nA later amendment.\n")
    report = convert([str(batch)], tmp_path / "lib")
    assert calls == [str(batch / "report-0003.md")] and report.counts["updated"] == 1
    calls.clear()
    convert([str(batch)], tmp_path / "lib", force=True)
    assert len(calls) == 12
    calls.clear()
    patch_all(pool_module, "version_info", lambda nlp: {"version": "9.9.9", "model": None})
    assert convert([str(batch)], tmp_path / "lib").counts["updated"] == 12 and len(calls) == 12


def test_a_pending_suggestion_stays_pending_when_skipped(tmp_path):
    write_reports(tmp_path / "in", 2)
    convert([str(tmp_path / "in")], tmp_path / "lib")
    record = tmp_path / "lib" / "IL-0001.yaml"
    record.write_text(record.read_text().replace("status: suggested", "status: reviewed"))
    (tmp_path / "in" / "report-0000.md").write_text(REPORT.format(n=0, m=0) + "\nAn update.\n")
    assert [r.status for r in convert([str(tmp_path / "in")], tmp_path / "lib").results] == ["pending", "unchanged"]
    assert [r.status for r in convert([str(tmp_path / "in")], tmp_path / "lib").results] == ["pending", "unchanged"]


def test_errors_file_is_json_lines_replaced_atomically(batch, tmp_path):
    errors = tmp_path / "errors.jsonl"
    errors.write_text("old content\n")
    (batch / "latin1.txt").write_bytes("Caf\xe9 outage for an hour".encode("latin-1"))
    report = convert([str(batch), str(tmp_path / "missing.md")], tmp_path / "lib", errors_path=errors, jobs=2)
    lines = [json.loads(line) for line in errors.read_text(encoding="utf-8").splitlines()]
    assert [(line["input"], line["error"]) for line in lines] == [
        (str(batch / "bad.txt"), "binary"), (str(batch / "latin1.txt"), "encoding"),
        (str(tmp_path / "missing.md"), "missing")]
    assert all(set(line) == {"input", "error", "message"} and line["message"] for line in lines)
    assert report.counts["failed"] == 3
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_errors_file_in_a_missing_folder_is_a_usage_error(tmp_path):
    from pmparse.errors import UsageError

    with pytest.raises(UsageError, match="failures report"):
        convert([str(SAMPLES)], tmp_path / "lib", errors_path=tmp_path / "no" / "such" / "errors.jsonl")


# --- bad input never stops a batch --------------------------------------------------------------


HOSTILE_FRONT_MATTER = {
    "invalid.md": "---\ntitle: [unclosed\n---\n",
    "alias-bomb.md": "---\na: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(9)) + "---\n",
    "merge-bomb.md": "---\nk0: &k0 {a: 1, b: 2}\n" + "".join(
        f"k{i}: &k{i}\n  <<: [" + ", ".join([f"*k{i - 1}"] * 9) + "]\n" for i in range(1, 12)) + "title: fine\n---\n",
    "deep.md": "---\nx: " + "[" * 50_000 + "\n---\n",
    "bad-date.md": "---\ndate: 2021-02-30\ntitle: Queue outage\n---\n",
}


@pytest.fixture()
def hostile(tmp_path) -> Path:
    folder = tmp_path / "crawl"
    write_reports(folder, 2)
    (folder / "latin1.txt").write_bytes("Panne du r\xe9seau pendant une heure".encode("latin-1"))
    (folder / "nul.md").write_bytes(b"# Report\n\nText with a \x00 byte in it.\n")
    with open(folder / "huge.txt", "wb") as handle:
        handle.truncate(100 * 1024 * 1024)  # sparse: 100 MB on paper, refused before it is read
    (folder / "deep.html").write_bytes(b"<html><body>" + b"<div>" * 20_000 + b"<p>" + b"Deep text. " * 50)
    (folder / "unclosed.html").write_bytes(
        b"<html><body><article><h1>Queue stall<p>The queue stalled for an hour and jobs piled up while the"
        b" workers sat idle.<p>We restarted the broker and the backlog cleared within minutes.")
    (folder / "notes.md").mkdir()  # a folder named like a file
    (folder / "gone.md").symlink_to(folder / "nowhere.md")
    os.mkfifo(folder / "pipe.md")
    body = REPORT.format(n=7, m=7)
    for name, front in HOSTILE_FRONT_MATTER.items():
        (folder / name).write_text(front + body, encoding="utf-8")
    for n, name in enumerate(("with space.md", "it's \"quoted\".md", "incident-ü-東京.md", "new\nline.md")):
        (folder / name).write_text(REPORT.format(n=100 + n, m=n), encoding="utf-8")
    return folder


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_hostile_crawl_converts_what_it_can_and_names_every_failure(hostile, tmp_path, jobs):
    errors = tmp_path / f"errors{jobs}.jsonl"
    with fifo_guard(hostile / "pipe.md"):
        report = convert([str(hostile)], tmp_path / f"lib{jobs}", jobs=jobs, errors_path=errors)
    by_name = {Path(r.input).name: r for r in report.results}
    failed = {name: (r.error_kind, r.message) for name, r in by_name.items() if r.status == "failed"}
    assert failed["latin1.txt"][0] == "encoding" and "byte 0xe9 at offset 10" in failed["latin1.txt"][1]
    assert failed["nul.md"] == ("binary", "expected text, found binary data (NUL byte at offset 22)")
    assert failed["huge.txt"][0] == "too-large"
    assert f"at most {20 * 1024 * 1024} bytes (--max-bytes), found {100 * 1024 * 1024}" in failed["huge.txt"][1]
    assert failed["deep.html"][0] == "malformed"
    assert failed["gone.md"] == ("unreadable", "expected a readable file, found a broken symbolic link")
    assert failed["pipe.md"] == ("unreadable", "expected a regular file, found a special file")
    converted = {name for name, r in by_name.items() if r.status == "converted"}
    assert converted == {"report-0000.md", "report-0001.md", "unclosed.html", *HOSTILE_FRONT_MATTER,
                         "with space.md", "it's \"quoted\".md", "incident-ü-東京.md", "new\nline.md"}
    assert "notes.md" not in by_name  # a folder is walked, not read
    warned = {name: r.warnings for name, r in by_name.items() if r.warnings}
    assert any("not valid YAML" in w for w in warned["invalid.md"])
    assert any("nested more than 64 levels" in w for w in warned["deep.md"])
    # read safely (never expanded), and not in silence
    assert any("alias(es)" in w and "not expanded" in w for w in warned["alias-bomb.md"])
    assert any("merge key(s)" in w and "not expanded" in w for w in warned["merge-bomb.md"])
    library = Library.open(tmp_path / f"lib{jobs}")
    cards = {Path(e.card.source.location).name: e.card for e in library.entries.values()}
    assert len(cards) == len(converted)
    assert cards["bad-date.md"].date != "2021-02-30"
    assert cards["incident-ü-東京.md"].source.location == str(hostile / "incident-ü-東京.md")
    for card in cards.values():
        assert_offsets(card, source_text(card))
    assert validate_library(tmp_path / f"lib{jobs}")[1] == []
    lines = [json.loads(line) for line in errors.read_text(encoding="utf-8").splitlines()]
    assert {Path(line["input"]).name for line in lines} == set(failed)


def test_the_size_limit_is_explicit_and_a_large_single_line_converts(tmp_path):
    line = ('{"event":"queue stalled","pool":"p1","workers":0,"note":"jobs piled up while the workers sat idle"},'
            * 60_000)[: 5 * 1000 * 1000]
    (tmp_path / "one-line.txt").write_text(line, encoding="utf-8")
    refused = convert([str(tmp_path / "one-line.txt")], tmp_path / "lib", max_bytes=4_000_000)
    assert refused.results[0].error_kind == "too-large"
    assert "expected at most 4000000 bytes (--max-bytes), found 5000000" in refused.results[0].message
    # under the limit it converts; a quadratic step would take hours here, not seconds
    accepted = _in_budget([str(tmp_path / "one-line.txt")], tmp_path / "lib", budget=300)
    assert accepted == ["converted"]


def _convert_statuses(conn, args, library):
    conn.send([r.status for r in convert(args, library).results])


def _in_budget(args, library, budget: float):
    import multiprocessing

    context = multiprocessing.get_context("fork")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_convert_statuses, args=(child, args, library), daemon=True)
    process.start()
    try:
        if not parent.poll(budget):
            pytest.fail(f"conversion took more than {budget} s")
        return parent.recv()
    finally:
        process.kill()
        process.join()


def test_permission_denied_fails_alone(patch_all, tmp_path, monkeypatch):
    """Tests run as root, which chmod 000 does not stop: the denial is simulated at open()."""
    import builtins

    from pmparse.ingest import read as ingest

    write_reports(tmp_path / "in", 2)
    locked = str(tmp_path / "in" / "report-0001.md")
    real_open = builtins.open

    def guarded_open(file, *args, **kwargs):
        if str(file) == locked:
            raise PermissionError(13, "Permission denied", locked)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(ingest, "open", guarded_open, raising=False)
    report = convert([str(tmp_path / "in")], tmp_path / "lib")
    assert [(r.status, r.error_kind, r.message) for r in report.results] == [
        ("converted", None, None), ("failed", "unreadable", "expected a readable file, found Permission denied")]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode (simulated in the test above)")
def test_unreadable_permissions_fail_alone(tmp_path):
    write_reports(tmp_path / "in", 2)
    (tmp_path / "in" / "report-0001.md").chmod(0)
    report = convert([str(tmp_path / "in")], tmp_path / "lib")
    assert [r.status for r in report.results] == ["converted", "failed"]
    assert report.results[1].message == "expected a readable file, found Permission denied"


def test_an_undecodable_file_name_fails_with_a_printable_name(tmp_path):
    folder = tmp_path / "in"
    write_reports(folder, 1)
    raw = os.fsencode(str(folder)) + b"/caf\xe9.md"
    with open(raw, "wb") as handle:
        handle.write(REPORT.format(n=1, m=1).encode())
    errors = tmp_path / "errors.jsonl"
    report = convert([str(folder)], tmp_path / "lib", errors_path=errors)
    bad = [r for r in report.results if r.status == "failed"][0]
    assert bad.input.endswith("caf\\xe9.md") and "UTF-8" in bad.message
    assert json.loads(errors.read_text(encoding="utf-8"))["input"] == bad.input
    assert report.counts["converted"] == 1


def test_a_bug_on_one_input_fails_that_input_only(patch_all, tmp_path, monkeypatch):
    write_reports(tmp_path / "in", 3)
    real = pipeline_module.analyse

    def broken(nlp, source):
        if source.location.endswith("report-0001.md"):
            raise IndexError("list index out of range")
        return real(nlp, source)

    patch_all(pipeline_module, "analyse", broken)
    report = convert([str(tmp_path / "in")], tmp_path / "lib")
    assert [r.status for r in report.results] == ["converted", "failed", "converted"]
    assert report.results[1].error_kind == "internal" and "IndexError" in report.results[1].message


def test_report_counts_without_keeping_results():
    report = ConvertReport(keep_results=False)
    report.add(convert_module.FileResult("a", "failed"))
    assert report.counts["failed"] == 1 and report.done == 1 and report.results == [] and report.failed == []


def test_cli_convert_with_jobs(batch, tmp_path):
    from click.testing import CliRunner

    from pmparse.cli import main

    errors = tmp_path / "errors.jsonl"
    result = CliRunner().invoke(main, ["convert", str(batch), "-o", str(tmp_path / "lib"), "--jobs", "2",
                                       "--errors", str(errors), "--no-progress"])
    assert result.exit_code == 1, result.output
    assert "12 converted, 0 updated, 0 unchanged, 0 pending review, 1 failed" in result.output
    assert f"failed: {batch / 'bad.txt'}: expected text, found binary data" in result.output
    assert [json.loads(line)["error"] for line in errors.read_text().splitlines()] == ["binary"]
    again = CliRunner().invoke(main, ["convert", str(batch), "-o", str(tmp_path / "lib"), "-j", "1", "--progress"])
    assert "0 converted, 0 updated, 12 unchanged" in again.output
    help_text = CliRunner().invoke(main, ["convert", "--help"]).output
    assert "--jobs" in help_text and "130" in help_text
    assert CliRunner().invoke(main, ["convert", str(batch), "-o", str(tmp_path / "lib"), "--jobs", "0"]).exit_code == 2


def test_a_second_writer_is_refused_and_the_first_ones_records_stay(tmp_path):
    from pmparse.errors import UsageError
    from pmparse.library.lock import write_lock

    write_reports(tmp_path / "in", 2)
    with write_lock(tmp_path / "lib"):  # as a convert or review in another process would hold it
        with pytest.raises(UsageError, match="holding .pmparse/lock"):
            convert([str(tmp_path / "in")], tmp_path / "lib")
        assert not list((tmp_path / "lib").glob("IL-*"))
    assert convert([str(tmp_path / "in")], tmp_path / "lib").counts["converted"] == 2


def test_in_process_an_input_past_the_timeout_fails_and_the_next_converts(patch_all, tmp_path, monkeypatch):
    paths = write_reports(tmp_path / "in", 3)
    real = pool_module.analyse_task

    woke = []

    def slow_on_the_second(task, config, max_bytes):
        if task.location.endswith("report-0001.md"):
            time.sleep(60)  # interrupted by the timer signal
            woke.append(task.location)
        return real(task, config, max_bytes)

    patch_all(pool_module, "analyse_task", slow_on_the_second)
    before = signal.getsignal(signal.SIGALRM)
    # 5 s, not 1: the inputs that convert run under the same timer, and under a loaded machine (the
    # tests on two workers beside CI's floors check) a real analysis once ran past one second
    report = convert([str(p) for p in paths], tmp_path / "lib", jobs=1, timeout=5.0)
    assert woke == []  # the sleep was cut short by the timer, not slept out
    assert [r.status for r in report.results] == ["converted", "failed", "converted"]
    assert report.results[1].error_kind == "timeout" and "5 s" in report.results[1].message
    assert signal.getsignal(signal.SIGALRM) == before  # the timer's handler is put back
