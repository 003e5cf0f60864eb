"""A wheel built from the checkout installs with its models and works outside the checkout.

Slow for a unit test (a wheel build and a virtual environment, about half a minute), so it is
marked ``packaging``; CI runs it with the rest. The environment reuses the installed
dependencies of the interpreter running the tests (a path file naming its site-packages), so
nothing is downloaded, whether that interpreter is a system one or itself a virtual environment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from tests.helpers import REPO

ROOT = REPO
REPORT = ("# Cache outage\n\nOn 2025-05-06 the cache cluster ran out of memory and pages timed out for 15 minutes.\n\n"
          "## Root cause\n\nA new build doubled the size of cached objects.\n")

pytestmark = pytest.mark.packaging


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The python of a fresh virtual environment holding only the built wheel of pmparse."""
    base = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation",
                            "-w", str(base / "dist")], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    wheel = next((base / "dist").glob("pmparse-*.whl"))
    venv.EnvBuilder(with_pip=False).create(base / "env")
    python = base / "env" / "bin" / "python"
    # pip of this interpreter installs into the environment's own site-packages
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # --system-site-packages would reach the base interpreter's packages, which a virtual
    # environment running the tests does not share: name this interpreter's own instead. The
    # path files in them are not read, so an editable install of the checkout stays out.
    own = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    Path(site, "_test_dependencies.pth").write_text("\n".join(sorted(own)) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", site, str(wheel)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return python


def _run(python: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    # a PYTHONPATH pointing at a checkout (a worktree's test run) would import it instead of the wheel
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    return subprocess.run([str(python), *args], cwd=cwd, capture_output=True, text=True, timeout=300, env=env)


def test_the_wheel_holds_the_models(installed, tmp_path):
    done = _run(installed, tmp_path, "-c", "import pmparse, pathlib; print(pathlib.Path(pmparse.__file__).parent)")
    package = Path(done.stdout.strip())
    assert str(package).startswith(str(installed.parents[1])), "imported the checkout, not the wheel"
    for name in ("fields", "categories"):
        assert (package / "models" / name / "weights.npz").is_file()
        assert (package / "models" / name / "meta.json").is_file()
    for name in ("site.css", "site.js", "favicon.svg"):  # what every page of `pmparse site` loads
        assert (package / "site" / "assets" / name).is_file()


def test_the_installed_command_converts_with_both_models(installed, tmp_path):
    (tmp_path / "cache.md").write_text(REPORT, encoding="utf-8")
    done = _run(installed, tmp_path, "-m", "pmparse", "convert", "cache.md", "-o", "lib", "--format", "json", "--jobs", "1")
    assert done.returncode == 0, done.stderr[-2000:]
    record = json.loads(next((tmp_path / "lib").glob("IL-*.json")).read_text(encoding="utf-8"))
    assert record["pipeline"]["model"], "the record names no field model: converted with heading rules only"
    tags = _run(installed, tmp_path, "-c", "from pmparse.nlp.components.tagger import DEFAULT_MODEL_DIR as d; "
                "print((d / 'weights.npz').is_file())")
    assert tags.stdout.strip() == "True"


def test_the_installed_api_and_help(installed, tmp_path):
    assert _run(installed, tmp_path, "-m", "pmparse", "--help").returncode == 0
    (tmp_path / "r.md").write_text(REPORT, encoding="utf-8")
    done = _run(installed, tmp_path, "-c", "import pmparse; card = pmparse.extract(open('r.md').read()); "
                "print(type(card).__name__, card.date, bool(card.pipeline.model))")
    assert done.stdout.split() == ["Card", "2025-05-06", "True"], done.stderr[-2000:]
