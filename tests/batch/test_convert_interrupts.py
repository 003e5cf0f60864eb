"""Batch conversion interrupted: Ctrl-C, SIGTERM and SIGHUP, a batch killed between a record and its
base, and resuming to the same library.

Every fixture text here is written for these tests (no corpus sentences).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pmparse.batch.convert import convert
from pmparse.library.store import Library
from pmparse.library.validate import validate_library
from pmparse.nlp.pipeline import PipelineConfig
from tests.batch.reports import assert_same_files, library_files, write_reports


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
