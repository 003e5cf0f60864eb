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


def quickstart_session(text: str) -> list[tuple[str, list[str]]]:
    """The Quickstart's console block: each ``$ command`` with the lines it printed."""
    section = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```console\n(.*?)```", section, re.DOTALL).group(1)
    session: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            session.append((line[2:], []))
        else:
            session[-1][1].append(line)
    return session


def test_the_quickstart_prints_what_the_readme_shows(tmp_path, monkeypatch):
    """The Quickstart's commands, run from the repository's root on the bundled samples with the
    bundled models, print what its console block says (a model or format change that alters
    them fails here until the README is written again)."""
    import shutil

    from click.testing import CliRunner

    from pmparse.cli import main

    shutil.copytree(REPO / "corpus" / "samples", tmp_path / "corpus" / "samples")
    monkeypatch.chdir(tmp_path)
    session = quickstart_session((REPO / "README.md").read_text(encoding="utf-8"))
    assert [command.split()[:2] for command, _ in session] == [
        ["pmparse", "convert"], ["ls", "library"], ["head", "-11"], ["pmparse", "validate"]]
    for command, shown in session:
        words = command.split()
        if words[0] == "pmparse":
            result = CliRunner().invoke(main, words[1:])
            assert result.exit_code == 0, result.output
            printed = result.output.splitlines()
        elif words[0] == "ls":
            printed = ["  ".join(sorted(p.name for p in (tmp_path / words[1]).iterdir() if not p.name.startswith(".")))]
        else:
            printed = (tmp_path / words[2]).read_text(encoding="utf-8").splitlines()[:int(words[1][1:])]
        assert printed == shown, command
