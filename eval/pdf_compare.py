"""pypdfium2 against pdfminer.six on the test paper (tests/helpers.py): reading order and speed.

    PYTHONPATH=src:. python eval/pdf_compare.py [PAGES [REPEAT]]

Writes the two-column paper (its columns interleaved in the content stream, as some typesetters
write them) repeated to PAGES pages (default 40), then reads it with each library: pypdfium2's
page text (the content stream's order) and pmparse's reader (pdfminer.six's layout analysis, then
headers, footers and page numbers dropped). Prints whether the first column's last sentence comes
before the second column's first heading, and the time per page (best of three). REPEAT (default
1) writes each column's lines that many times over, for fuller pages (8: about 45 lines a column). Needs both
libraries installed (pip install pypdfium2 pdfminer.six fpdf2); pmparse itself needs pdfminer.six only.
Figures go to docs/inputs.md ("PDF").
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from tests import helpers


def _pdfium_text(path: Path) -> str:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(path))
    try:
        return "\n".join(document[i].get_textpage().get_text_range() for i in range(len(document)))
    finally:
        document.close()


def _pdfminer_text(path: Path) -> str:
    from pmparse.ingest.pdf import extract_pdf

    return extract_pdf(path.read_bytes(), str(path))


def _best(read, path: Path) -> tuple[float, str]:
    times, text = [], ""
    for _ in range(3):
        started = time.perf_counter()
        text = read(path)
        times.append(time.perf_counter() - started)
    return min(times), text


def main(pages: int = 40, repeat: int = 1) -> None:
    original = helpers.PAPER_PAGES
    fuller = [(left * repeat, right * repeat) for left, right in original]
    helpers.PAPER_PAGES = (fuller * (pages // len(fuller) + 1))[:pages]
    try:
        with tempfile.TemporaryDirectory() as folder:
            path = helpers.two_column_pdf(Path(folder) / "paper.pdf")
            for name, read in (("pypdfium2", _pdfium_text), ("pdfminer.six (pmparse)", _pdfminer_text)):
                seconds, text = _best(read, path)
                end_of_left = text.find("back at once.")
                right_heading = text.find("Detection")
                in_order = 0 <= end_of_left < right_heading
                print(f"{name:24} columns in reading order: {'yes' if in_order else 'no'}; "
                      f"running header kept: {'yes' if helpers.PAPER_HEADER in text else 'no'}; "
                      f"{seconds / pages * 1000:.1f} ms per page ({pages} pages)")
    finally:
        helpers.PAPER_PAGES = original


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40, int(sys.argv[2]) if len(sys.argv) > 2 else 1)
