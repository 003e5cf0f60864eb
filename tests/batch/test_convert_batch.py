"""Batch conversion: workers, determinism, resuming, interruptions, and hostile inputs.

Every fixture text here is written for these tests (no corpus sentences).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
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
from pmparse.review.session import review
from tests.helpers import SAMPLES, assert_offsets, source_text

REPORT = """# Queue outage {n}

## Summary

Between 09:{m:02d} and 10:{m:02d} UTC the job queue of service {n} stopped handing out work.

## Impact

Customers of region {n} saw delayed exports for about an hour.

## Root cause

A configuration push lowered the worker limit of pool {n} to zero.

## Action items

- Validate worker limits before a push reaches production.
- Alert when the queue depth of pool {n} grows for ten minutes.
"""


def write_reports(folder: Path, count: int, start: int = 0) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(start, start + count):
        path = folder / f"report-{n:04d}.md"
        path.write_text(REPORT.format(n=n, m=n % 60), encoding="utf-8")
        paths.append(path)
    return paths


def library_files(root: Path) -> dict[str, bytes]:
    """Every record and state file of a library, by relative path.

    Temporary files are left out, and so is the scan cache, which holds file times and inodes.
    """
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(".tmp") and p != root / ".pmparse" / "index.json"}


def assert_same_files(got: dict[str, bytes], want: dict[str, bytes]) -> None:
    """Fail naming the files that differ and showing the first difference, not two whole libraries."""
    assert sorted(got) == sorted(want), f"missing {sorted(set(want) - set(got))}, extra {sorted(set(got) - set(want))}"
    differing = [name for name in want if got[name] != want[name]]
    if differing:
        import difflib

        first = differing[0]
        diff = "\n".join(difflib.unified_diff(want[first].decode().splitlines(), got[first].decode().splitlines(),
                                             "expected/" + first, "got/" + first, lineterm="", n=2))
        pytest.fail(f"{len(differing)} file(s) differ: {differing[:10]}\n{diff}")


@pytest.fixture()
def batch(tmp_path) -> Path:
    folder = tmp_path / "in"
    shutil.copytree(SAMPLES, folder)
    write_reports(folder, 9)
    (folder / "bad.txt").write_bytes(b"\x00\x01binary")
    return folder


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


# a chunk runner for the timeout test: hangs on one input, as a pathological one might
def _hanging_chunk(tasks):
    if any(task.location.endswith("report-0001.md") for task in tasks):
        time.sleep(600)
    return _run_chunk(tasks)


def test_an_input_that_runs_past_the_timeout_fails_alone(patch_all, tmp_path, monkeypatch):
    paths = write_reports(tmp_path / "in", 5)
    patch_all(pool_module, "_run_chunk", _hanging_chunk)
    pool = WorkerPool(2, PipelineConfig(), 10**6, timeout=3.0)
    started = time.monotonic()
    try:
        results = list(pool.map(iter([Task(str(p)) for p in paths])))
    finally:
        pool.close(abort=True)
    assert time.monotonic() - started < 120  # stopped, not waited for
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


# --- interruptions ------------------------------------------------------------------------------


def test_ctrl_c_between_a_record_and_its_base_waits_for_both(tmp_path, monkeypatch):
    """SIGINT inside a store lands after the store: the record and pmparse's memory of it agree."""
    write_reports(tmp_path / "in", 3)
    real = Library.write_state

    def write_state_then_ctrl_c(self, kind, card, **options):
        path = real(self, kind, card, **options)
        if card.id == "IL-0002" and kind == "intent":
            os.kill(os.getpid(), signal.SIGINT)  # arrives between the new base and the record
        return path

    monkeypatch.setattr(Library, "write_state", write_state_then_ctrl_c)
    # a shell's background job starts with SIGINT ignored, and pmparse leaves an ignored SIGINT alone
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        report = convert([str(tmp_path / "in")], tmp_path / "lib")
        handler_after = signal.getsignal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert report.interrupted and [r.status for r in report.results] == ["converted", "converted"]
    library = Library.open(tmp_path / "lib")
    assert sorted(library.entries) == ["IL-0001", "IL-0002"]
    assert library.read_state("base", "IL-0002") == library.entries["IL-0002"].card
    assert handler_after is signal.default_int_handler  # restored


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["term", "hangup"])
def test_sigterm_and_sighup_stop_a_batch_as_ctrl_c_does(tmp_path, sig):
    write_reports(tmp_path / "in", 3)

    def signal_after_the_first(result):
        os.kill(os.getpid(), sig)

    report = convert([str(tmp_path / "in")], tmp_path / "lib", on_result=signal_after_the_first)
    assert report.interrupted and report.signal == sig and report.done == 1
    assert signal.getsignal(sig) is signal.SIG_DFL  # restored
    assert [p.name for p in (tmp_path / "lib").rglob("*.tmp")] == []


def test_keyboard_interrupt_stops_the_pool_and_reports_what_was_done(tmp_path):
    write_reports(tmp_path / "in", 40)

    seen: list = []

    def stop_after_three(result):
        seen.append(result)
        if len(seen) == 3:
            raise KeyboardInterrupt

    errors = tmp_path / "errors.jsonl"
    report = convert([str(tmp_path / "in")], tmp_path / "lib", jobs=2, on_result=stop_after_three, errors_path=errors)
    assert report.interrupted and report.done == 3 and report.counts["converted"] == 3
    assert sorted(p.name for p in (tmp_path / "lib").glob("IL-*")) == ["IL-0001.yaml", "IL-0002.yaml", "IL-0003.yaml"]
    assert errors.read_text() == ""
    again = convert([str(tmp_path / "in")], tmp_path / "lib", jobs=2)
    assert again.counts["unchanged"] == 3 and again.counts["converted"] == 37


MANY = 150


def _start_batch(folder: Path, library: Path, tmp: Path | None = None) -> subprocess.Popen:
    # tmp: the batch's TMPDIR, to see what multiprocessing leaves there (/tmp/pymp-*)
    env = None if tmp is None else dict(os.environ, TMPDIR=str(tmp))
    return subprocess.Popen(
        [sys.executable, "-m", "pmparse", "convert", str(folder), "-o", str(library), "--jobs", "2",
         "--no-progress", "--rules-only"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env)


def _wait_for_records(process: subprocess.Popen, library: Path, count: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(list(library.glob("IL-*.yaml"))) >= count:
            return
        if process.poll() is not None:
            pytest.fail(f"the batch ended before it could be interrupted: {process.communicate()}")
        time.sleep(0.01)
    pytest.fail("the batch wrote no records in time")


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """150 reports and the library one uninterrupted run makes of them."""
    root = tmp_path_factory.mktemp("reference")
    write_reports(root / "many", MANY)
    convert([str(root / "many")], root / "library", config=PipelineConfig(), keep_results=False)
    return root / "many", root / "library"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL],
                         ids=["ctrl-c", "term", "hangup", "kill"])
def test_an_interrupted_batch_leaves_whole_records_and_resumes(reference, tmp_path, sig):
    folder, expected = reference
    for attempt in range(3):
        library = tmp_path / f"lib{attempt}"
        (tmp_path / f"tmp{attempt}").mkdir()
        process = _start_batch(folder, library, tmp_path / f"tmp{attempt}")
        _wait_for_records(process, library, 3)
        os.killpg(process.pid, sig)  # a terminal sends Ctrl-C to the whole process group
        out, err = process.communicate(timeout=120)
        written = sorted(p.name for p in library.glob("IL-*.yaml"))
        # on a starved machine the batch can write its last record between the poll and the
        # signal: that run interrupted nothing, so it is run again rather than judged
        if len(written) < MANY:
            break
    assert 3 <= len(written) < MANY
    checked, problems = validate_library(library)
    assert checked == len(written) and problems == []
    if sig != signal.SIGKILL:
        # SIGTERM (kill, a service manager) and SIGHUP (a closed terminal) end it as Ctrl-C does
        assert process.returncode == 128 + sig
        assert f"{len(written)} converted, 0 updated" in out
        assert f"interrupted after {len(written)} inputs" in err and "Traceback" not in err
        assert not [p for p in library.rglob("*.tmp")]
        assert list((tmp_path / f"tmp{attempt}").iterdir()) == []  # no pymp-* folder left
    else:
        assert process.returncode == -signal.SIGKILL
    resumed = subprocess.run(
        [sys.executable, "-m", "pmparse", "convert", str(folder), "-o", str(library), "--jobs", "2",
         "--no-progress", "--rules-only"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{MANY - len(written)} converted, 0 updated, {len(written)} unchanged" in resumed.stdout
    assert_same_files(library_files(library), library_files(expected))


@pytest.mark.parametrize("delay", [0.3, 0.6, 1.0, 1.5, 2.0, 3.0])
def test_ctrl_c_at_any_moment_of_the_start_up_exits_130_without_a_traceback(reference, tmp_path, delay):
    # before the batch's own handler is in place (the command's imports) and while the fork
    # server and the workers start (their imports): Ctrl-C reaches the whole process group, and
    # each of them printed a KeyboardInterrupt traceback, or click said 'Aborted!' and exited 1
    folder, _ = reference
    process = _start_batch(folder, tmp_path / "lib")
    time.sleep(delay)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=120)
    if process.returncode == 0 or f"{MANY} converted" in out:
        # the batch ended before the signal (or it landed as the finished process exited)
        pytest.skip("the batch ended before the signal")
    assert process.returncode == 130, (out, err)
    assert "Traceback" not in err and "Fatal Python error" not in err and "Aborted" not in err, err
    checked, problems = validate_library(tmp_path / "lib") if (tmp_path / "lib").is_dir() else (0, [])
    assert problems == []


def test_a_batch_killed_between_a_record_and_its_base_resumes_to_the_same_library(reference, tmp_path):
    folder, expected = reference
    library = tmp_path / "lib"
    shutil.copytree(expected, library)
    # what a kill inside Library.write leaves: the record written, its base still an intent
    (library / ".pmparse" / "intent").mkdir(exist_ok=True)
    os.replace(library / ".pmparse" / "base" / "IL-0007.json", library / ".pmparse" / "intent" / "IL-0007.json")
    resumed = convert([str(folder)], library, config=PipelineConfig())
    assert resumed.counts["unchanged"] == MANY
    assert_same_files(library_files(library), library_files(expected))


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

    def slow_on_the_second(task, config, max_bytes):
        if task.location.endswith("report-0001.md"):
            time.sleep(60)  # interrupted by the timer signal
        return real(task, config, max_bytes)

    patch_all(pool_module, "analyse_task", slow_on_the_second)
    before = signal.getsignal(signal.SIGALRM)
    started = time.monotonic()
    report = convert([str(p) for p in paths], tmp_path / "lib", jobs=1, timeout=1.0)
    assert time.monotonic() - started < 30
    assert [r.status for r in report.results] == ["converted", "failed", "converted"]
    assert report.results[1].error_kind == "timeout" and "1 s" in report.results[1].message
    assert signal.getsignal(signal.SIGALRM) == before  # the timer's handler is put back


@pytest.mark.parametrize("edited", [False, True])
def test_a_renamed_source_keeps_its_record_and_its_new_name(tmp_path, edited):
    write_reports(tmp_path / "in", 2)
    lib = tmp_path / "lib"
    convert([str(tmp_path / "in")], lib)
    record = lib / "IL-0001.yaml"
    if edited:
        record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed")
                          + "# checked by hand\n", encoding="utf-8")
    before = Library.read(record)
    old, new = tmp_path / "in" / "report-0000.md", tmp_path / "in" / "report-0009.md"
    old.rename(new)
    results = convert([str(tmp_path / "in")], lib).results
    assert [(Path(r.input).name, r.status, Path(r.record).name) for r in results] == [
        ("report-0001.md", "unchanged", "IL-0002.yaml"), ("report-0009.md", "updated", "IL-0001.yaml")]
    card = Library.read(record)
    assert card.source.location == str(new) and card.source.sha256 == before.source.sha256
    assert [i.text for i in card.symptoms] == [i.text for i in before.symptoms]
    if edited:
        # a person's record: only its source lines changed, the review mark and comment stay
        assert card.status == "reviewed" and record.read_text(encoding="utf-8").endswith("# checked by hand\n")
    # the next run finds both up to date; a new file under the old name is a new source
    assert convert([str(tmp_path / "in")], lib).counts["unchanged"] == 2
    old.write_text(REPORT.format(n=77, m=7), encoding="utf-8")
    results = {Path(r.input).name: (r.status, Path(r.record).name) for r in convert([str(tmp_path / "in")], lib).results}
    assert results["report-0000.md"] == ("converted", "IL-0003.yaml")
    assert not list((lib / ".pmparse" / "pending").glob("*.json"))


def test_a_renamed_person_record_drops_a_suggestion_made_from_its_old_name(tmp_path):
    write_reports(tmp_path / "in", 1)
    lib = tmp_path / "lib"
    convert([str(tmp_path / "in")], lib)
    record = lib / "IL-0001.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    source = tmp_path / "in" / "report-0000.md"
    text = source.read_text(encoding="utf-8")
    source.write_text(text + "\nAn amendment added later.\n", encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    # the amendment is withdrawn and the file renamed: the record follows the text it was made from
    source.unlink()
    (tmp_path / "in" / "renamed.md").write_text(text, encoding="utf-8")
    results = convert([str(tmp_path / "in")], lib).results
    assert [(r.status, Path(r.record).name) for r in results] == [("updated", "IL-0001.yaml")]
    assert Library.read(record).source.location == str(tmp_path / "in" / "renamed.md")
    assert not (lib / ".pmparse" / "pending" / "IL-0001.json").exists()


def test_a_person_record_is_read_once_per_pipeline_not_on_every_run(patch_all, tmp_path, monkeypatch):
    write_reports(tmp_path / "in", 2)
    lib = tmp_path / "lib"
    convert([str(tmp_path / "in")], lib)
    record = lib / "IL-0001.yaml"
    # a reviewed record from before pipeline fingerprints existed
    text = record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed")
    record.write_text(re.sub(r"\n  fingerprint: \w+", "", text), encoding="utf-8")
    base = lib / ".pmparse" / "base" / "IL-0001.json"
    data = json.loads(base.read_text(encoding="utf-8"))
    del data["pipeline"]["fingerprint"]
    base.write_text(json.dumps(data), encoding="utf-8")
    assert Library.read(record).pipeline.fingerprint is None
    calls = []
    real = pipeline_module.analyse
    patch_all(pipeline_module, "analyse", lambda nlp, source: calls.append(source.location) or real(nlp, source))
    # read again once (nothing to propose: the record stays as the person left it) ...
    first = convert([str(tmp_path / "in")], lib)
    assert calls == [str(tmp_path / "in" / "report-0000.md")] and first.counts["unchanged"] == 2
    assert record.read_text(encoding="utf-8") == re.sub(r"\n  fingerprint: \w+", "", text)
    # ... then skipped like any up-to-date source
    calls.clear()
    assert convert([str(tmp_path / "in")], lib).counts["unchanged"] == 2 and calls == []
    # a suggestion waiting for review is not made again either
    source = tmp_path / "in" / "report-0000.md"
    source.write_text(source.read_text(encoding="utf-8") + "\nAn amendment added later.\n", encoding="utf-8")
    assert [r.status for r in convert([str(tmp_path / "in")], lib).results] == ["pending", "unchanged"]
    calls.clear()
    assert [r.status for r in convert([str(tmp_path / "in")], lib).results] == ["pending", "unchanged"]
    assert calls == []


def _counting(patch_all) -> list[str]:
    calls: list[str] = []
    real = pipeline_module.analyse
    patch_all(pipeline_module, "analyse", lambda nlp, source: calls.append(source.location) or real(nlp, source))
    return calls


def _reviewed(lib: Path, card_id: str = "IL-0001") -> Path:
    record = lib / f"{card_id}.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                      encoding="utf-8")
    return record


def _one_reviewed_report(tmp_path: Path, url_base: str | None = None) -> tuple[Path, Path]:
    """A library of one converted report whose record a person marked reviewed: (library, source)."""
    write_reports(tmp_path / "in", 1)
    lib = tmp_path / "lib"
    convert([str(tmp_path / "in")], lib, url_base=url_base)
    _reviewed(lib)
    return lib, tmp_path / "in" / "report-0000.md"


def _url_after(lib: Path, folder: Path, url_base: str | None, **options) -> str | None:
    """The address IL-0001 holds after converting ``folder`` with ``url_base``."""
    convert([str(folder)], lib, url_base=url_base, **options)
    return Library.read(lib / "IL-0001.yaml").source.url


def test_an_amended_source_of_a_person_record_is_read_once(patch_all, tmp_path, monkeypatch):
    lib, source = _one_reviewed_report(tmp_path)
    calls = _counting(patch_all)
    # an amendment that proposes something: pending once, then skipped while it waits
    source.write_text(source.read_text(encoding="utf-8") + "\n## Detection\n\nA customer told support.\n",
                      encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"] and len(calls) == 1
    pending = (lib / ".pmparse" / "pending" / "IL-0001.json").read_bytes()
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"] and len(calls) == 1
    assert (lib / ".pmparse" / "pending" / "IL-0001.json").read_bytes() == pending
    # an amendment that changes no field: read once; it waits for a review only to move the
    # record onto the new text, then the record is up to date
    review(lib, reject=proposed_fields(lib), reviewer="ann")
    source.write_text(source.read_text(encoding="utf-8") + "\n\n\n", encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"] and len(calls) == 2
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"] and len(calls) == 2
    assert proposed_fields(lib) == []
    review(lib, accept_all=True, reviewer="ann")
    assert Library.read(lib / "IL-0001.yaml").source.sha256 == hashlib.sha256(source.read_bytes()).hexdigest()
    assert [r.status for r in convert([str(source)], lib).results] == ["unchanged"] and len(calls) == 2
    # the stamps survive a new process (the index keeps them)
    assert convert([str(source)], lib).counts["unchanged"] == 1 and len(calls) == 2


def test_an_amendment_that_moves_no_words_is_followed_once_and_a_later_rename_keeps_one_record(tmp_path):
    lib, source = _one_reviewed_report(tmp_path)
    before = Library.read(lib / "IL-0001.yaml")
    text = source.read_text(encoding="utf-8")
    # a note at the top moves every offset and changes no field's words
    source.write_text("> Edited on the next day: a typo in the timeline.\n\n" + text, encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    assert proposed_fields(lib) == []
    shown = CliRunner().invoke(main, ["diff", str(lib)])
    assert shown.exit_code == 1 and "the source text changed" in shown.output
    assert "same words, found elsewhere in the new text" in shown.output
    report = review(lib, reject=["date"], reviewer="ann")  # nothing is asked: the record follows
    assert report.count("settled") > 0 and report.count("reject") == 0
    after = Library.read(lib / "IL-0001.yaml")
    assert after.source.sha256 == hashlib.sha256(source.read_bytes()).hexdigest() != before.source.sha256
    assert after.status == "reviewed" and validate_library(lib) == (1, [])
    filled = [name for name in ("symptoms", "trigger", "root_cause", "detection", "remediation", "action_items",
                                "lessons") if getattr(before, name)]
    assert len(filled) >= 2
    for name in filled:
        old, new = getattr(before, name), getattr(after, name)
        assert [i.text for i in old] == [i.text for i in new]
        assert [i.evidence[0].start for i in new] != [i.evidence[0].start for i in old]
    assert CliRunner().invoke(main, ["diff", str(lib)]).exit_code == 0
    # renamed later: the record follows the name, no second record
    source.rename(source.with_name("renamed.md"))
    assert [r.status for r in convert([str(source.parent)], lib).results] == ["updated"]
    assert sorted(p.name for p in lib.glob("IL-*.yaml")) == ["IL-0001.yaml"]
    assert Library.read(lib / "IL-0001.yaml").source.location.endswith("renamed.md")


def proposed_fields(lib: Path) -> list[str]:
    from pmparse.review.session import pending_diffs

    return [c.field for d in pending_diffs(lib).diffs for c in d.changes]


def test_a_new_public_address_reaches_a_person_record_once(patch_all, tmp_path, monkeypatch):
    write_reports(tmp_path / "in", 1)
    lib = tmp_path / "lib"
    convert([str(tmp_path / "in")], lib)
    record = _reviewed(lib)
    calls = _counting(patch_all)
    results = convert([str(tmp_path / "in")], lib, url_base="https://example.org/pm/").results
    assert len(calls) == 1 and Library.read(record).source.url == "https://example.org/pm/report-0000.md"
    assert Library.read(record).status == "reviewed"
    # whatever the new address changed is for review; the address itself is the record's now
    before = [r.status for r in results]
    again = convert([str(tmp_path / "in")], lib, url_base="https://example.org/pm/").results
    assert [r.status for r in again] in (["unchanged"], ["pending"]) and len(calls) == 1, before


def test_a_failed_write_while_a_record_follows_its_moved_file_is_redone(tmp_path, monkeypatch):
    write_reports(tmp_path / "in", 1)
    lib = tmp_path / "lib"
    convert([str(tmp_path / "in")], lib)
    record = _reviewed(lib)
    source = tmp_path / "in" / "report-0000.md"
    text = source.read_text(encoding="utf-8")
    source.write_text(text + "\n## Detection\n\nA customer told support.\n", encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    # the amendment withdrawn, the file renamed, and the disk full while the base is written
    source.unlink()
    renamed = tmp_path / "in" / "renamed.md"
    renamed.write_text(text, encoding="utf-8")
    real = Library.write_state

    def full(self, kind, card, settled=False, **options):
        if kind == "base":
            raise OSError(28, "No space left on device")
        return real(self, kind, card, settled, **options)

    monkeypatch.setattr(Library, "write_state", full)
    assert [r.status for r in convert([str(renamed)], lib).results] == ["failed"]
    # the suggestion made from the old name is gone; the base was not settled
    assert not (lib / ".pmparse" / "pending" / "IL-0001.json").exists()
    monkeypatch.setattr(Library, "write_state", real)
    assert [r.status for r in convert([str(renamed)], lib).results] in (["updated"], ["unchanged"])
    assert Library.read(record).source.location == str(renamed)
    assert [r.status for r in convert([str(renamed)], lib).results] == ["unchanged"]
    assert sorted(p.name for p in lib.glob("IL-*")) == ["IL-0001.yaml"]


def test_a_failed_write_of_a_new_public_address_is_redone(patch_all, tmp_path, monkeypatch):
    lib, _ = _one_reviewed_report(tmp_path, "https://old.example.org/pm/")
    record = lib / "IL-0001.yaml"
    from pmparse.library import store as record_module

    original = record_module.atomic_write

    def full(path, text):
        if Path(path).name == "IL-0001.yaml":
            raise OSError(28, "No space left on device")
        return original(path, text)

    patch_all(record_module, "atomic_write", full)
    assert [r.status for r in convert([str(tmp_path / "in")], lib, url_base="https://new.example.org/pm/").results] \
        == ["failed"]
    patch_all(record_module, "atomic_write", original)
    assert Library.read(record).source.url == "https://old.example.org/pm/report-0000.md"
    assert _url_after(lib, tmp_path / "in", "https://new.example.org/pm/") == "https://new.example.org/pm/report-0000.md"


def test_a_person_address_is_not_replaced_by_pmparse(tmp_path):
    lib, _ = _one_reviewed_report(tmp_path, "https://pm.example.org/")
    record = lib / "IL-0001.yaml"
    # no --url-base this time: the address pmparse gave stays
    convert([str(tmp_path / "in")], lib, force=True)
    assert Library.read(record).source.url == "https://pm.example.org/report-0000.md"
    # a person corrects the address: pmparse's old one does not come back
    own = "https://wiki.example.org/incidents/queue"
    record.write_text(record.read_text(encoding="utf-8").replace("https://pm.example.org/report-0000.md", own),
                      encoding="utf-8")
    convert([str(tmp_path / "in")], lib, url_base="https://pm.example.org/", force=True)
    assert Library.read(record).source.url == own


def test_a_suggestion_partly_reviewed_is_made_again_when_its_file_is_deleted(tmp_path, monkeypatch):
    lib, source = _one_reviewed_report(tmp_path)
    source.write_text(source.read_text(encoding="utf-8") + "\n## Detection\n\nA customer told support.\n\n"
                      "## Lessons learned\n\nWatch the queue depth.\n", encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    fields = proposed_fields(lib)
    assert "detection" in fields and len(fields) > 1
    review(lib, reject=["detection"], reviewer="ann")
    (lib / ".pmparse" / "pending" / "IL-0001.json").unlink()
    # the fields never decided are proposed again; the rejected one is not
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    assert proposed_fields(lib) == [name for name in fields if name != "detection"]


def test_a_base_whose_write_was_cut_short_is_not_taken_for_up_to_date(tmp_path):
    write_reports(tmp_path / "in", 1)
    lib = tmp_path / "lib"
    convert([str(tmp_path / "in")], lib)
    library = Library.open(lib)
    assert library.state_stamp("base", "IL-0001")[6] is False  # written by pmparse's record write
    intent = lib / ".pmparse" / "intent" / "IL-0001.json"
    intent.parent.mkdir(parents=True, exist_ok=True)
    intent.write_text((lib / ".pmparse" / "base" / "IL-0001.json").read_text(encoding="utf-8"), encoding="utf-8")
    assert Library.open(lib).state_stamp("base", "IL-0001") is None


def test_a_malformed_index_is_only_a_slower_scan(tmp_path):
    lib, source = _one_reviewed_report(tmp_path)
    source.write_text(source.read_text(encoding="utf-8") + "\n## Detection\n\nA customer told support.\n",
                      encoding="utf-8")
    convert([str(source)], lib)
    index = lib / ".pmparse" / "index.json"
    data = json.loads(index.read_text(encoding="utf-8"))
    assert data["states"]
    for row in data["states"].values():
        row[0][0] = None
    index.write_text(json.dumps(data), encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    data["states"] = {"base/IL-0001": [[1, 2], "x"]}
    index.write_text(json.dumps(data), encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]


def _amend(source: Path) -> None:
    source.write_text(source.read_text(encoding="utf-8") + "\n## Detection\n\nA customer told support.\n\n"
                      "## Lessons learned\n\nWatch the queue depth.\n", encoding="utf-8")


def test_a_suggestion_partly_accepted_is_made_again_when_its_file_is_deleted(tmp_path):
    lib, source = _one_reviewed_report(tmp_path)
    _amend(source)
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    fields = proposed_fields(lib)
    review(lib, accept=["detection"], reviewer="ann")
    (lib / ".pmparse" / "pending" / "IL-0001.json").unlink()
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    assert proposed_fields(lib) == [name for name in fields if name != "detection"]


def test_a_review_that_settles_a_suggestion_is_remembered_across_runs(patch_all, tmp_path, monkeypatch):
    lib, source = _one_reviewed_report(tmp_path)
    _amend(source)
    convert([str(source)], lib)
    review(lib, reject=proposed_fields(lib), reviewer="ann")
    calls = _counting(patch_all)
    assert convert([str(source)], lib).counts["unchanged"] == 1 and calls == []


def test_a_base_write_cut_short_does_not_make_a_person_record_read_on_every_run(patch_all, tmp_path, monkeypatch):
    lib, source = _one_reviewed_report(tmp_path)
    intent = lib / ".pmparse" / "intent" / "IL-0001.json"
    intent.parent.mkdir(parents=True, exist_ok=True)
    intent.write_text((lib / ".pmparse" / "base" / "IL-0001.json").read_text(encoding="utf-8"), encoding="utf-8")
    calls = _counting(patch_all)
    convert([str(source)], lib)
    assert len(calls) == 1 and not intent.exists()  # read once; the settled base replaces the intent
    convert([str(source)], lib)
    assert len(calls) == 1


def test_an_address_pmparse_gave_follows_the_next_one_while_a_suggestion_waits(tmp_path):
    lib, _ = _one_reviewed_report(tmp_path, "https://one.example.org/")
    record = lib / "IL-0001.yaml"
    # the same text read with another heading table, at a new address: a suggestion waits (action
    # items filed as remediation), the address moves
    from tests.helpers import other_headings

    assert [r.status for r in convert([str(tmp_path / "in")], lib, url_base="https://two.example.org/",
                                      config=PipelineConfig(headings_path=other_headings(tmp_path))).results] \
        == ["pending"]
    assert Library.read(record).source.url == "https://two.example.org/report-0000.md"
    assert _url_after(lib, tmp_path / "in", "https://three.example.org/") == "https://three.example.org/report-0000.md"


def test_accepting_a_field_keeps_a_person_address(tmp_path):
    lib, _ = _one_reviewed_report(tmp_path, "https://pm.example.org/")
    record = lib / "IL-0001.yaml"
    own = "https://wiki.example.org/incidents/queue"
    record.write_text(record.read_text(encoding="utf-8").replace("https://pm.example.org/report-0000.md", own),
                      encoding="utf-8")
    _amend(tmp_path / "in" / "report-0000.md")
    convert([str(tmp_path / "in")], lib, url_base="https://pm.example.org/")
    review(lib, accept=["detection"], reviewer="ann")
    assert Library.read(record).source.url == own
    # without --url-base pmparse offers no address, and the record keeps its own
    convert([str(tmp_path / "in")], lib, force=True)
    review(lib, accept_all=True, reviewer="ann")
    assert Library.read(record).source.url == own


def test_malformed_record_rows_of_the_index_are_parsed_again(tmp_path):
    lib, source = _one_reviewed_report(tmp_path)
    Library.open(lib)  # the index now holds the reviewed record's row
    index = lib / ".pmparse" / "index.json"
    data = json.loads(index.read_text(encoding="utf-8"))
    for name, (key, summary) in data["records"].items():
        summary[2], summary[3] = ["x"], 5
    data["states"]["base/\u0000"] = [[1, 2, 3, 4], ["a", None, None, None, "x", None, True], "d"]
    data["written_ns"] = time.time_ns() + 10**10  # rows this old are trusted without a second look
    index.write_text(json.dumps(data), encoding="utf-8")
    assert Library.open(lib).entries["IL-0001"].location == str(source)
    assert convert([str(source)], lib).counts["unchanged"] == 1


def test_a_suggestion_for_an_amendment_withdrawn_is_dropped(tmp_path):
    lib, source = _one_reviewed_report(tmp_path)
    original = source.read_text(encoding="utf-8")
    _amend(source)
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    source.write_text(original, encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["unchanged"]
    assert not (lib / ".pmparse" / "pending" / "IL-0001.json").exists()
    assert proposed_fields(lib) == []


def test_a_new_address_reaches_a_person_record_with_an_amended_text_waiting(tmp_path):
    lib, _ = _one_reviewed_report(tmp_path, "https://a.example.org/")
    record = lib / "IL-0001.yaml"
    _amend(tmp_path / "in" / "report-0000.md")
    assert [r.status for r in convert([str(tmp_path / "in")], lib, url_base="https://a.example.org/").results] \
        == ["pending"]
    before = Library.read(record)
    assert [r.status for r in convert([str(tmp_path / "in")], lib, url_base="https://b.example.org/").results] \
        == ["pending"]
    after = Library.read(record)
    # the address moved; the text the record's evidence indexes did not
    assert after.source.url == "https://b.example.org/report-0000.md"
    assert after.source.sha256 == before.source.sha256 and after.root_cause == before.root_cause
    review(lib, reject=proposed_fields(lib), reviewer="ann")
    assert Library.read(record).source.url == "https://b.example.org/report-0000.md"
    assert convert([str(tmp_path / "in")], lib, url_base="https://b.example.org/").counts["unchanged"] == 1


def test_a_suggestion_another_pipeline_made_from_the_same_text_stays(tmp_path):
    from tests.helpers import other_headings

    lib, source = _one_reviewed_report(tmp_path)
    other = PipelineConfig(headings_path=other_headings(tmp_path))
    assert [r.status for r in convert([str(source)], lib, config=other).results] == ["pending"]
    # a routine run with the usual pipeline leaves it for the person, forced or not
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    assert [r.status for r in convert([str(source)], lib, force=True).results] == ["pending"]
    assert Library(lib).read_state("pending", "IL-0001").source.sha256 == Library.read(lib / "IL-0001.yaml").source.sha256
    assert proposed_fields(lib)


def test_a_settled_base_of_a_text_the_record_never_moved_onto_is_not_up_to_date(tmp_path):
    # a library written before records followed their amended sources: the base was settled on
    # the new text while the person's record stayed on the old one, and nothing waits for review
    lib, source = _one_reviewed_report(tmp_path)
    source.write_text("> Edited on the next day.\n\n" + source.read_text(encoding="utf-8"), encoding="utf-8")
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    library = Library(lib)
    library.write_state("base", library.read_state("pending", "IL-0001"), settled=True)
    library.drop_state("pending", "IL-0001")
    library.save_index()
    old_sha = Library.read(lib / "IL-0001.yaml").source.sha256
    assert [r.status for r in convert([str(source)], lib).results] == ["pending"]
    review(lib, accept_all=True, reviewer="ann")
    assert Library.read(lib / "IL-0001.yaml").source.sha256 != old_sha
    assert [r.status for r in convert([str(source)], lib).results] == ["unchanged"]
