"""The review session docs/review.md shows is what a real run prints (docs/review_session.py)."""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import REPO


def test_the_documented_review_session_matches_a_real_run():
    done = subprocess.run([sys.executable, str(REPO / "docs" / "review_session.py"), "--check"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:] + "\nrun: python docs/review_session.py"


def test_the_session_reader_finds_the_review_and_types_the_answers():
    sys.path.insert(0, str(REPO / "docs"))
    try:
        import review_session
    finally:
        sys.path.pop(0)
    page = (REPO / "docs" / "review.md").read_text(encoding="utf-8")
    commands, block = review_session.blocks(page)
    assert "pmparse review" in commands.strip().splitlines()[-1]
    assert review_session.echo_answers("(1/2) x [y,n,e,s,q,?]? (2/2) z [y,n,e,i,s,q,?]?   (item 1/2) w [y,n,q,?]? ") \
        == "(1/2) x [y,n,e,s,q,?]? y\n(2/2) z [y,n,e,i,s,q,?]? i\n  (item 1/2) w [y,n,q,?]? y\n"
