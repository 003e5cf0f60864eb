"""The worker pool under faults: a killed parent leaves no worker behind, and the time limit holds
with one job too (the analysis runs in a worker even then).

Every fixture text here is written for these tests (no corpus sentences).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import pmparse.batch.pool as pool_module
from pmparse.batch import convert as convert_module
from pmparse.batch.convert import convert
from pmparse.batch.pool import _run_chunk
from pmparse.cli import main
from tests.batch.reports import write_reports

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _parents() -> dict[int, tuple[int, str]]:
    """``pid -> (parent pid, state)`` of every process (Linux /proc)."""
    out = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", encoding="utf-8") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            out[int(name)] = (int(fields[1]), fields[0])
    return out


def _descendants(pid: int) -> set[int]:
    tree = _parents()
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, (parent, _) in tree.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pids: set[int]) -> set[int]:
    tree = _parents()
    return {pid for pid in pids if pid in tree and tree[pid][1] not in ("Z", "X")}  # a zombie is dead


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc")
def test_a_killed_parent_leaves_no_worker_behind(tmp_path):
    write_reports(tmp_path / "in", 300)
    library = tmp_path / "lib"
    process = subprocess.Popen(
        [sys.executable, "-m", "pmparse", "convert", str(tmp_path / "in"), "-o", str(library), "--jobs", "2",
         "--no-progress", "--rules-only"], env=dict(os.environ, PYTHONPATH=SRC),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        # records written: the fork server and both workers are running
        while not list(library.glob("IL-*.yaml")) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process.poll() is None, "the batch ended before it could be killed"
        workers = _descendants(process.pid)
        assert len(workers) >= 3  # the fork server and two workers (and the resource tracker)
        process.send_signal(signal.SIGKILL)  # the parent alone, not its process group
        process.wait(timeout=60)
        deadline = time.monotonic() + 60  # generous: they go within a second
        while _alive(workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _alive(workers) == set()
    finally:
        for pid in _alive(_descendants(process.pid)) | _alive(locals().get("workers", set())):
            os.kill(pid, signal.SIGKILL)


# a chunk runner that a timer signal cannot stop, as a long call into native code would be
# (leaving a mark beside the input only if it was let finish)
def _stuck_chunk(tasks):
    for task in tasks:
        if task.location.endswith("report-0001.md"):
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
            time.sleep(600)
            Path(task.location + ".finished").touch()
    return _run_chunk(tasks)


def test_with_one_job_the_time_limit_stops_an_analysis_stuck_in_native_code(patch_all, tmp_path):
    paths = write_reports(tmp_path / "in", 3)
    patch_all(pool_module, "_run_chunk", _stuck_chunk)
    report = convert([str(p) for p in paths], tmp_path / "lib", jobs=1, timeout=3.0, isolate=True)
    assert not Path(f"{paths[1]}.finished").exists()  # stopped, not waited for
    assert report.jobs == 1
    assert [r.status for r in report.results] == ["converted", "failed", "converted"]
    assert report.results[1].error_kind == "timeout" and "3 s" in report.results[1].message


def test_the_command_line_analyses_in_a_worker_also_with_one_job(tmp_path, monkeypatch):
    write_reports(tmp_path / "in", 1)
    seen = {}
    real = convert_module.convert

    def spy(inputs, library, **options):
        seen.update(options)
        return real(inputs, library, **options)

    monkeypatch.setattr(convert_module, "convert", spy)
    result = CliRunner().invoke(main, ["convert", str(tmp_path / "in"), "-o", str(tmp_path / "lib"), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert seen["jobs"] == 1 and seen["isolate"] is True
    assert "1 converted" in result.output


def test_a_script_without_the_main_guard_is_told_so_also_when_it_isolates_one_job(tmp_path):
    # the message named only jobs > 1, while isolate=True with one job starts a worker too
    write_reports(tmp_path / "in", 2)
    script = tmp_path / "unguarded.py"
    script.write_text(
        "import pmparse\n"
        f"pmparse.convert([{str(tmp_path / 'in')!r}], {str(tmp_path / 'lib')!r}, jobs=1, isolate=True)\n",
        encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": SRC})
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 1 and "UsageError" in last and "isolate=True" in last and "__main__" in last


def test_workers_are_spawned_where_the_fork_servers_socket_name_would_not_fit(monkeypatch, tmp_path):
    import multiprocessing.util

    from pmparse.batch import pool

    monkeypatch.setattr(multiprocessing.util, "get_temp_dir", lambda: str(tmp_path / ("t" * 90)))
    assert pool._context().get_start_method() == "spawn"
    monkeypatch.setattr(multiprocessing.util, "get_temp_dir", lambda: "/tmp/pymp-abcdefgh")
    assert pool._context().get_start_method() == "forkserver"


def test_convert_with_workers_under_a_long_temporary_folder_converts(tmp_path):
    # Python 3.11's fork server failed with "AF_UNIX path too long" (a traceback) under such a TMPDIR
    write_reports(tmp_path / "in", 2)
    long_tmp = tmp_path / ("deep-" * 16)
    long_tmp.mkdir()
    done = subprocess.run([sys.executable, "-m", "pmparse", "convert", str(tmp_path / "in"), "-o",
                           str(tmp_path / "lib"), "--jobs", "2"], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": SRC, "TMPDIR": str(long_tmp)})
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "lib").glob("IL-*.yaml"))) == 2
    assert "Traceback" not in done.stderr


def test_the_timers_handler_is_put_back_when_the_timer_fires_as_it_is_stopped(monkeypatch):
    """The timer may fire just as the block ends, while it is being stopped: the timeout then
    comes out of stopping it. The handler the block replaced must still be put back (it stayed
    the timeout's, so any later alarm raised it outside a time limit)."""
    real = signal.setitimer

    def fires_as_stopped(which, seconds, *rest):
        if seconds == 0:
            real(which, 0)
            pool_module._raise_timeout(signal.SIGALRM, None)  # what the handler does at that step
        return real(which, seconds, *rest)

    before = signal.getsignal(signal.SIGALRM)
    monkeypatch.setattr(signal, "setitimer", fires_as_stopped)
    with pytest.raises(pool_module._InputTimeout):
        with pool_module._time_limit(30.0):
            pass
    monkeypatch.setattr(signal, "setitimer", real)
    after = signal.signal(signal.SIGALRM, before)  # put back here too, for the tests after this one
    assert after == before
