"""The Python API (``pmparse.extract``, ``pmparse.convert``) and ``python -m pmparse``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pmparse
from pmparse.card.schema import TEXT_FIELDS, Card
from pmparse.errors import InputError, UsageError

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


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_extract_of_a_text_with_carriage_returns_keeps_the_text_its_evidence_indexes(newline):
    # a str read with newline="" or from an HTTP body keeps "\r\n": its line breaks are read as
    # "\n" (as a file's are), so the offsets index that text, not the str given; the card named
    # no such text and text[start:end] spelled another stretch in silence
    text = REPORT.replace("\n", newline)
    card = pmparse.extract(text)
    assert card.source.extracted_text == REPORT
    items = [item for field in TEXT_FIELDS for item in getattr(card, field)]
    assert items
    for item in items:
        for e in item.evidence:
            assert " ".join(item.text.split()) in " ".join(card.source.extracted_text[e.start:e.end].split())
    assert pmparse.extract(REPORT).source.extracted_text is None  # a text read as given keeps none


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


@pytest.mark.parametrize("text", [b"# Outage\n", None])
def test_extract_refuses_what_is_not_text_with_a_usage_error(text):
    # bytes and None reached str.encode and raised AttributeError
    with pytest.raises(UsageError, match="expected text as a str"):
        pmparse.extract(text)


def test_extract_refuses_a_card_id_the_schema_would_refuse_before_the_analysis():
    with pytest.raises(UsageError, match="card_id"):
        pmparse.extract(REPORT, card_id="incident 7")


def test_extract_reads_a_lone_surrogate_as_text_that_cannot_be_read():
    # a str decoded with surrogateescape: UnicodeEncodeError escaped the API
    with pytest.raises(InputError, match="surrogate"):
        pmparse.extract("# Outage\n\nThe disk \udcff filled up.\n")


#: A whole page as a browser saves it: the title, the publisher and the items must come from its text.
PAGE = ("<!DOCTYPE html>\n<html>\n<head><title>Zorbq build outage</title></head>\n<body>\n"
        "<h1>Zorbq build outage</h1>\n<p>On 3 March the Zorbq build farm failed for two hours because a "
        "release script dropped a flag.</p>\n</body>\n</html>\n")


def test_extract_reads_a_whole_html_page_as_html_without_fmt():
    # read as markdown by default, the doctype was the title and "DOCTYPE" the publisher
    card = pmparse.extract(PAGE)
    assert card.title == "Zorbq build outage" and card.source.location == "<text>.html"
    assert card.organisation != "DOCTYPE" and not any("<" in item.text for item in card.symptoms)
    assert pmparse.extract("# Outage\n\nThe disk filled up.\n").source.location == "<text>.md"


def test_convert_reads_one_string_as_one_input_and_one_exclude_glob_as_one_glob(tmp_path, monkeypatch):
    # a string was iterated: "in" became the inputs "i" and "n", and "postmortems/" ended on "/"
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "queue.md").write_text(REPORT, encoding="utf-8")
    (tmp_path / "in" / "other.txt").write_text(REPORT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    report = pmparse.convert("in", "lib", exclude="*.txt")
    assert sorted((r.status, Path(r.input).name) for r in report.results) == [
        ("converted", "queue.md"), ("skipped", "other.txt")]
    again = pmparse.convert(Path("in"), "lib", exclude="*.txt")
    assert again.counts["unchanged"] == 1


def test_the_api_document_example_runs_as_written(tmp_path):
    """docs/api.md's example, saved as a script beside the bundled samples and run: it once lacked
    the guard the worker processes of jobs=2 need, and stopped with a UsageError."""
    import re
    import shutil

    from tests.helpers import REPO

    block = re.search(r"```python\n(.*?)```", (REPO / "docs" / "api.md").read_text(encoding="utf-8"), re.DOTALL)
    (tmp_path / "example.py").write_text(block.group(1), encoding="utf-8")
    shutil.copytree(REPO / "corpus" / "samples", tmp_path / "postmortems")
    shutil.copy(REPO / "corpus" / "samples" / "gocardless-postgres-failover.md", tmp_path / "postmortem.md")
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    done = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert "'converted': 3" in done.stdout
    assert len(list((tmp_path / "library").glob("IL-*.yaml"))) == 3


@pytest.mark.parametrize("option", [{"fmt": "md"}, {"jobs": 0}, {"max_bytes": 0}, {"timeout": 0}, {"jobs": "2"},
                                    {"max_bytes": 32 * 1024 * 1024 + 1}])
def test_convert_refuses_what_the_command_line_s_options_refuse(tmp_path, option):
    # fmt="md" wrote YAML in silence, jobs=0 converted in this process
    (tmp_path / "queue.md").write_text(REPORT, encoding="utf-8")
    with pytest.raises(UsageError, match=next(iter(option))):
        pmparse.convert([tmp_path / "queue.md"], tmp_path / "lib", **option)
    assert not (tmp_path / "lib").exists()
