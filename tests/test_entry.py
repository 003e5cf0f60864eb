"""The ``pmparse`` process's first code (``pmparse._entry``): a stop signal at a known moment of
the command line's import, delivered by a module-path hook rather than a sleep that sometimes lands."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO

# Put first on the path, this sitecustomize sends the process a signal the moment Python looks for
# the module named in PMPARSE_TEST_SIGNAL_AT: click is imported by pmparse.cli's package, before
# any handler of the command is in place.
HOOK = '''\
import os, sys

class _SignalOnImport:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == os.environ["PMPARSE_TEST_SIGNAL_AT"]:
            sys.meta_path.remove(_SignalOnImport)
            os.kill(os.getpid(), int(os.environ["PMPARSE_TEST_SIGNAL"]))
        return None

sys.meta_path.insert(0, _SignalOnImport)
'''

#: How the console script starts the command (``pmparse = "pmparse._entry:main"``).
CONSOLE_SCRIPT = ["-c", "import sys; from pmparse._entry import main; sys.exit(main())"]


def _run(tmp_path: Path, how: list[str], module: str, signum: int, args: list[str] | None = None) -> subprocess.CompletedProcess:
    hook = tmp_path / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(HOOK, encoding="utf-8")
    env = dict(os.environ, PMPARSE_TEST_SIGNAL_AT=module, PMPARSE_TEST_SIGNAL=str(int(signum)),
               PYTHONPATH=os.pathsep.join([str(hook), os.environ.get("PYTHONPATH", "")]))
    (tmp_path / "lib").mkdir(exist_ok=True)
    args = ["validate", str(tmp_path / "lib")] if args is None else args
    return subprocess.run([sys.executable, *how, *args], capture_output=True,
                          text=True, env=env, timeout=120, start_new_session=True)


@pytest.mark.parametrize("how", [["-m", "pmparse"], CONSOLE_SCRIPT], ids=["python -m pmparse", "console script"])
def test_ctrl_c_while_the_command_line_imports_exits_130_without_a_traceback(tmp_path, how):
    done = _run(tmp_path, how, "click", signal.SIGINT)
    assert done.returncode == 130, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr, done.stderr
    assert done.stderr.strip() == "interrupted"


def test_sigterm_while_the_command_line_imports_exits_143(tmp_path):
    done = _run(tmp_path, ["-m", "pmparse"], "click", signal.SIGTERM)
    assert done.returncode == 128 + signal.SIGTERM, (done.stdout, done.stderr)
    assert done.stderr.strip() == "interrupted"


def test_a_signal_before_the_command_line_is_imported_is_held_too(tmp_path):
    # the first thing the entry imports; pmparse.cli's own package is the second
    done = _run(tmp_path, ["-m", "pmparse"], "pmparse.cli", signal.SIGINT)
    assert done.returncode == 130 and "Traceback" not in done.stderr, (done.stdout, done.stderr)


@pytest.mark.parametrize("args, signum", [(["--version"], signal.SIGINT), (["--help"], signal.SIGTERM),
                                          ([], signal.SIGINT), (["--no-such-option"], signal.SIGHUP)],
                         ids=["--version", "--help", "no command", "a usage error"])
def test_a_signal_while_the_command_line_imports_is_kept_when_no_command_starts(tmp_path, args, signum):
    # the command line ends before any command starts (where the signals are handed over): the
    # signal noted meanwhile was dropped, and the process exited 0 or 2 as if none had come
    done = _run(tmp_path, ["-m", "pmparse"], "click", signum, args)
    assert done.returncode == 128 + signum, (done.stdout, done.stderr)
    assert done.stderr.strip().splitlines()[-1] == "interrupted" and "Traceback" not in done.stderr, done.stderr


def test_the_command_runs_as_before_when_no_signal_comes(tmp_path):
    (tmp_path / "lib").mkdir()
    for how in (["-m", "pmparse"], ["-m", "pmparse.cli"], CONSOLE_SCRIPT):
        done = subprocess.run([sys.executable, *how, "--version"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and "pmparse" in done.stdout, (how, done.stderr)


def test_the_console_script_starts_at_the_entry():
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'pmparse = "pmparse._entry:main"' in text
