"""Reading PDFs: columns in reading order, running headers and page numbers dropped, clear failures.

The PDFs are written by the tests (fpdf2, a test dependency) from texts written for them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pmparse.batch.convert import convert
from pmparse.errors import BinaryInputError, PdfInputError
from pmparse.ingest.read import ingest, ingest_bytes
from pmparse.library.store import Library
from tests.helpers import PAPER_HEADER, PAPER_TITLE, assert_offsets, two_column_pdf
from tests.ingest.documents import LINE, raw_pdf

pytest.importorskip("fpdf")


@pytest.fixture()
def paper(tmp_path) -> Path:
    return two_column_pdf(tmp_path / "paper.pdf")


def test_two_columns_are_read_in_order_without_headers_or_page_numbers(paper):
    source = ingest(str(paper))
    text = source.text
    assert source.format == "pdf" and source.extracted
    assert text.startswith(PAPER_TITLE + "\n\nSummary\n")
    # the left column ends before the right one starts, though the content stream interleaves them
    order = ["Summary", "back at once.", "Detection", "Root cause", "older nodes did not know.",
             "Remediation", "Lessons learned", "Action items", "configuration pushes."]
    positions = [text.index(words) for words in order]
    assert positions == sorted(positions)
    assert PAPER_HEADER not in text and "\n1\n" not in text and "\n2\n" not in text
    assert "A configuration push set" in text  # "configu-" + "ration" joined


def test_a_paper_converts_with_its_fields_read_in_order_and_offsets_into_the_kept_text(paper, tmp_path):
    report = convert([str(paper)], tmp_path / "lib")
    card = Library.read(Path(report.results[0].record))
    text = card.source.extracted_text
    assert card.source.format == "pdf" and text == ingest(str(paper)).text
    assert assert_offsets(card, text) > 0
    assert card.date == "2022-05-12"
    assert [i.text for i in card.action_items][0] == "Refuse a lease timeout of zero."
    assert any("lease timeout was read from a new field" in i.text for i in card.root_cause)


def test_a_pdf_is_read_as_a_pdf_whatever_its_name(paper):
    assert ingest_bytes(paper.read_bytes(), "notes.txt").format == "pdf"


def test_a_pdf_without_text_fails_with_the_reason(tmp_path):
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 100, 100, style="F")  # what a scanned page is to a text reader: no text layer
    pdf.output(str(tmp_path / "scan.pdf"))
    with pytest.raises(PdfInputError, match="found none \\(scanned pages\\? run OCR first\\)") as caught:
        ingest(str(tmp_path / "scan.pdf"))
    assert caught.value.path == str(tmp_path / "scan.pdf")


def test_an_encrypted_pdf_fails_with_the_reason(tmp_path):
    from fpdf import FPDF
    from fpdf.enums import EncryptionMethod

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.text(20, 20, "Notes of a private outage review")
    pdf.set_encryption(owner_password="owner", user_password="reader", encryption_method=EncryptionMethod.RC4)
    pdf.output(str(tmp_path / "locked.pdf"))
    with pytest.raises(PdfInputError, match="found an encrypted one"):
        ingest(str(tmp_path / "locked.pdf"))


def test_a_truncated_pdf_fails_with_the_reason(paper):
    raw = paper.read_bytes()
    with pytest.raises(PdfInputError, match="damaged or truncated"):
        ingest_bytes(raw[: len(raw) // 2], "cut.pdf")


def test_a_binary_file_that_is_no_pdf_still_fails_as_binary():
    with pytest.raises(BinaryInputError):
        ingest_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "picture.txt")
    with pytest.raises(PdfInputError, match="expected a PDF"):
        ingest_bytes(b"\x89PNG\r\n\x1a\n\x00\x00", "picture.pdf")


def test_a_batch_with_bad_pdfs_converts_the_rest(paper, tmp_path):
    (tmp_path / "cut.pdf").write_bytes(paper.read_bytes()[:400])
    report = convert([str(paper), str(tmp_path / "cut.pdf")], tmp_path / "lib")
    assert [(r.status, r.error_kind) for r in report.results] == [("converted", None), ("failed", "pdf")]


def test_a_hand_written_pdf_reads():
    assert ingest_bytes(raw_pdf(LINE), "plain.pdf").text == "The primary database failed at noon.\n"


def test_a_stream_that_inflates_past_the_budget_fails_naming_it(monkeypatch):
    import zlib

    from pmparse.ingest import pdf

    monkeypatch.setattr(pdf, "MAX_DECODED", 1 << 20)
    bomb = zlib.compress(LINE + b" " * (16 << 20), 9)
    with pytest.raises(PdfInputError, match="decode to at most 1 MiB in all, found more .*--max-bytes bounds the file"):
        ingest_bytes(raw_pdf(bomb, filtered=True), "bomb.pdf")
    # pdfminer's own decoder is back once the PDF is read
    from pdfminer import pdftypes

    assert pdftypes.zlib is zlib


def test_words_scattered_over_a_page_are_never_compared_pairwise(monkeypatch):
    import random

    from pdfminer.layout import LTLayoutContainer

    def pairwise(*args, **kwargs):
        raise AssertionError("the hierarchical grouping compares every text box with every other")

    monkeypatch.setattr(LTLayoutContainer, "group_textboxes", pairwise)
    draw = random.Random(7)
    content = b"".join(b"BT /F1 8 Tf %d %d Td (w%d) Tj ET\n" % (draw.randrange(20, 580), draw.randrange(20, 770), i)
                       for i in range(300))
    text = ingest_bytes(raw_pdf(content), "scattered.pdf").text
    assert len(text.split()) == 300


def test_a_pdf_whose_font_refers_to_itself_stops_at_the_timeout():
    from pmparse.batch.pool import Task, timed_analysis
    from pmparse.nlp.pipeline import pipeline_config

    # objects 5 -> 7 -> 6 -> 5: pdfminer resolves the font reference for ever
    looping = raw_pdf(LINE, font=b"7 0 R", extra=(b"5 0 R", b"6 0 R"))
    outcome = timed_analysis(Task("loop.pdf", raw=looping), pipeline_config(rules_only=True), 1 << 20, timeout=1.0)
    assert outcome.kind == "failed" and outcome.error_kind == "timeout"


def test_a_page_crowded_past_the_budget_fails_naming_it(monkeypatch):
    from pmparse.ingest import pdf

    monkeypatch.setattr(pdf, "MAX_PAGE_CHARS", 100)
    content = b"".join(b"BT /F1 8 Tf 72 %d Td (word%03d) Tj ET\n" % (700 - 10 * i, i) for i in range(30))
    with pytest.raises(PdfInputError, match="expected at most 100 characters on a page, found 210 on page 1"):
        ingest_bytes(raw_pdf(content), "crowded.pdf")
