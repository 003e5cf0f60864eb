"""The README's two commands are what CI runs: .ci/run walks a newcomer's path with them as written."""

from __future__ import annotations

import re

from tests.helpers import REPO


def readme_commands(text: str) -> list[str]:
    """The shell commands of the README's "Two commands" section, one per code block."""
    section = text.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, re.DOTALL)]


def test_the_readme_gives_two_commands_that_install_and_run():
    commands = readme_commands((REPO / "README.md").read_text(encoding="utf-8"))
    assert len(commands) == 2
    assert "pmparse convert" in commands[0] and "pytest" in commands[1]
    assert all(command.startswith("pip install") for command in commands)


def test_ci_runs_the_readme_commands_as_written_in_a_fresh_environment():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    for command in readme_commands((REPO / "README.md").read_text(encoding="utf-8")):
        assert command in ci, f"the README's command is not a line of .ci/run: {command}"
    # the commands run inside a virtual environment made for the run, as a newcomer's would
    venv = next(i for i, line in enumerate(ci) if "-m venv" in line)
    activate = next(i for i, line in enumerate(ci) if "bin/activate" in line)
    first = ci.index(readme_commands((REPO / "README.md").read_text(encoding="utf-8"))[0])
    assert venv < activate < first


def test_the_section_reader_reads_only_its_section():
    text = "## Two commands\n\n```sh\npip install a\n```\n\n```sh\npip install b\n```\n\n## Next\n\n```sh\nx\n```\n"
    assert readme_commands(text) == ["pip install a", "pip install b"]
