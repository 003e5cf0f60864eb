"""The Python API (``pmparse.extract``, ``pmparse.convert``) and ``python -m pmparse``."""

from __future__ import annotations

import subprocess
import sys

import pytest

import pmparse
from pmparse.card.schema import TEXT_FIELDS, Card
from pmparse.errors import UsageError

REPORT = ("# Queue outage\n\nOn 2025-02-03 the job queue stopped for 25 minutes and uploads failed.\n\n"
          "## Root cause\n\nA worker upgrade removed the retry limit, so one bad job blocked the rest.\n\n"
          "## Action items\n\n- Restore the retry limit and add a test for it.\n")


def test_extract_returns_a_card_whose_evidence_spells_its_items():
    card = pmparse.extract(REPORT)
    assert isinstance(card, Card)
    items = [item for field in TEXT_FIELDS for item in getattr(card, field)]
    assert items, "the report states a root cause and an action item"
    for item in items:
        assert all(REPORT[e.start:e.end].strip() for e in item.evidence)
    assert card.date == "2025-02-03"
    assert card.pipeline.model  # the bundled field model, not heading rules only


def test_extract_cites_the_url_and_refuses_an_unknown_format():
    card = pmparse.extract(REPORT, url="https://example.org/pm/queue")
    assert card.source.url == "https://example.org/pm/queue"
    with pytest.raises(UsageError, match="fmt"):
        pmparse.extract(REPORT, fmt="pdf")


def test_convert_writes_a_library_and_returns_the_summary(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "queue.md").write_text(REPORT, encoding="utf-8")
    report = pmparse.convert([tmp_path / "in"], tmp_path / "lib")
    assert [r.status for r in report.results] == ["converted"]
    again = pmparse.convert([tmp_path / "in"], tmp_path / "lib")
    assert [r.status for r in again.results] == ["unchanged"]


def test_python_dash_m_pmparse_runs_the_command_line():
    done = subprocess.run([sys.executable, "-m", "pmparse", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert "convert" in done.stdout and "review" in done.stdout


@pytest.mark.parametrize("url", ["https://[::1/x", "http://[zz]:80/a", "https://example.com:99999/a"])
def test_extract_refuses_an_address_that_does_not_parse(url):
    # hypothesis found it: urlsplit raised ValueError from inside the organisation finder
    with pytest.raises(UsageError, match="address"):
        pmparse.extract("# Outage\n\n## Root cause\n\nThe disk filled up.\n", url=url)
