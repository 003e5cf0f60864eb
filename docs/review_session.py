"""Run the review sessions that docs/review.md shows, and write their output into the page.

    python docs/review_session.py           # run them and rewrite the blocks in docs/review.md
    python docs/review_session.py --check   # exit 1 when the page no longer matches a real run

A session is the page's own commands (the ``sh`` block under its heading: "A session", "A draft
reviewed"), run in a temporary folder that stands for ``/tmp``, with the answers the page shows
typed in. tests/review/test_docs.py
runs ``--check``, so a change that alters what a curator sees also changes the page.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAGE = HERE / "review.md"
REPO = HERE.parent
#: What the curator types: accept; item by item (take, take, refuse); skip, skip.
ANSWERS = "y\ni\ny\ny\nn\ns\ns\n"
#: In the draft review, least certain first: keep the root cause, drop the trigger, skip the cause
#: category, keep the symptoms, drop the component, detection item by item (take, take, refuse),
#: keep the lessons and the remediation, quit at the title.
DRAFT_ANSWERS = "y\nn\ns\ny\nn\ni\ny\ny\nn\ny\ny\nq\n"
#: Each session: its heading in the page and what the curator types.
SESSIONS = {"A session": ANSWERS, "A draft reviewed": DRAFT_ANSWERS}


def blocks(page: str, heading: str = "A session") -> tuple[str, re.Match]:
    """A session's commands and the match of the output block that follows them."""
    section = re.search(rf"## {heading}\n.*?```sh\n(.*?)```\n\n```text\n(.*?)```", page, re.DOTALL)
    if section is None:
        raise SystemExit(f"{PAGE}: expected a 'sh' block followed by a 'text' block under '## {heading}'")
    return section.group(1), section


def run_session(commands: str, answers: str = ANSWERS) -> str:
    """The output of the session's last command (the review), with the temporary folder shown as /tmp."""
    with tempfile.TemporaryDirectory() as tmp:
        lines = [line.split("   #", 1)[0].replace("/tmp/", f"{tmp}/") for line in commands.strip().splitlines()]
        for line in lines[:-1]:
            subprocess.run(line, shell=True, cwd=REPO, check=True, capture_output=True, text=True)
        done = subprocess.run(lines[-1], shell=True, cwd=REPO, input=answers, capture_output=True, text=True)
        # the closing summary goes to standard error, after the session, as a terminal shows it
        return (done.stdout + done.stderr).replace(f"{tmp}/", "/tmp/")


def echo_answers(output: str, typed: str = ANSWERS) -> str:
    """The output as a terminal shows it: each answer after its prompt, on the prompt's line."""
    answers = iter(typed.split())
    # a field's prompt (with i where it adds or drops several items) and an item's prompt
    return re.sub(r"(\[y,n,(?:e,(?:i,)?s,)?q,\?\]\? )", lambda m: m.group(1) + next(answers) + "\n", output)


def main(argv: list[str]) -> int:
    page = PAGE.read_text(encoding="utf-8")
    for heading, typed in SESSIONS.items():
        commands, block = blocks(page, heading)
        shown = echo_answers(run_session(commands, typed), typed)
        if "--check" in argv:
            if block.group(2) != shown:
                print(f"{PAGE} shows a review session ({heading!r}) that no longer matches a real run: "
                      "run python docs/review_session.py", file=sys.stderr)
                return 1
            continue
        page = page[:block.start(2)] + shown + page[block.end(2):]
    if "--check" not in argv:
        PAGE.write_text(page, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
