"""Text of a PDF, with pdfminer.six's layout analysis (why pdfminer.six: ``docs/inputs.md``).

The text is laid out as a reader reads the page: blocks that span the page (a title) in place,
and between them the left column top to bottom, then the right one. Running headers and footers
(a block near the top or bottom edge that repeats on most pages, digits aside) and page numbers
are dropped, and a word hyphenated over a line end is joined ("configu-" + "ration"). Blocks are
separated by blank lines, so headings stand on their own lines as in plain text. The record keeps
this text and evidence offsets index it, as for HTML.

A PDF without a text layer (scanned pages), one that needs a password, or one that cannot be
parsed fails with a :class:`~pmparse.errors.PdfInputError` naming the file and the reason.
"""

from __future__ import annotations

import contextlib
import io
import re
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from pmparse.errors import PdfInputError

#: Share of the page height at the top and at the bottom where running headers and footers stand.
EDGE = 0.1

#: Most pages read; a longer PDF is refused (a postmortem is a few pages, a book is not one).
MAX_PAGES = 500

#: Most bytes the streams of one PDF may decode to (page contents, fonts, cross-reference
#: streams; images are never decoded). pdfminer inflates a stream whole: one 1,800-byte stream
#: became 1 GiB in memory before anything could look at it.
MAX_DECODED = 128 * 1024 * 1024

#: Most characters one page may hold. The layout analysis grows faster than the characters when
#: they crowd a page (5,000 words scattered: a second; 10,000: minutes); a dense page of 6-point
#: text in two columns holds about 12,000.
MAX_PAGE_CHARS = 30_000

#: Bytes a decoder hands back per step while the budget is counted.
_PIECE = 1024 * 1024

_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?\s*$|^\s*[-–]\s*\d{1,4}\s*[-–]\s*$",
                          re.IGNORECASE)
_HYPHENATED = re.compile(r"([^\W\d_])-\n([^\W\d_A-Z])")
_DIGITS = re.compile(r"\d+")


def is_pdf(raw: bytes) -> bool:
    """True when ``raw`` starts as a PDF file does (``%PDF-``, perhaps after a few bytes of junk)."""
    return b"%PDF-" in raw[:1024]


@dataclass
class _Block:
    x0: float
    y0: float
    x1: float
    y1: float
    text: str


def _blocks(page) -> list[_Block]:
    from pdfminer.layout import LTTextContainer

    blocks = []
    for element in page:
        if isinstance(element, LTTextContainer):
            text = element.get_text().strip()
            if text:
                blocks.append(_Block(element.x0, element.y0, element.x1, element.y1, text))
    return blocks


def _edge_key(block: _Block, height: float) -> str | None:
    """How a block near the top or bottom edge reads with its digits ignored; None elsewhere."""
    if block.y0 >= height * (1 - EDGE) or block.y1 <= height * EDGE:
        return _DIGITS.sub("#", " ".join(block.text.lower().split()))
    return None


def _reading_order(blocks: list[_Block], width: float) -> list[_Block]:
    """Blocks as a reader takes them: a block spanning both halves stays in its place from the
    top, and between two such blocks the left column comes before the right one."""
    middle = width / 2
    ordered: list[_Block] = []
    band: list[_Block] = []

    def flush() -> None:
        left = [b for b in band if (b.x0 + b.x1) / 2 < middle]
        right = [b for b in band if (b.x0 + b.x1) / 2 >= middle]
        ordered.extend(sorted(left, key=lambda b: -b.y1) + sorted(right, key=lambda b: -b.y1))
        band.clear()

    for block in sorted(blocks, key=lambda b: -b.y1):
        spans = block.x0 < middle - width * 0.05 and block.x1 > middle + width * 0.05
        if spans:
            flush()
            ordered.append(block)
        else:
            band.append(block)
    flush()
    return ordered


class _OverBudget(BaseException):
    """Raised inside pdfminer when the decoded streams pass :data:`MAX_DECODED`.

    A BaseException: pdfminer catches ``Exception`` around some decoding and would go on.
    """


class _PageTooFull(BaseException):
    """Raised before the layout analysis of a page holding more than :data:`MAX_PAGE_CHARS`
    characters (a BaseException, for the reason :class:`_OverBudget` is one)."""

    def __init__(self, page: int, chars: int) -> None:
        super().__init__(page, chars)
        self.page, self.chars = page, chars


def _pages(raw: bytes, laparams) -> Iterator:  # noqa: ANN001 - a pdfminer LAParams
    """The laid-out pages of a PDF, as ``pdfminer.high_level.extract_pages`` gives them, with the
    characters of each page counted before its layout analysis starts."""
    from pdfminer.converter import PDFPageAggregator
    from pdfminer.layout import LTChar
    from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
    from pdfminer.pdfpage import PDFPage

    class Aggregator(PDFPageAggregator):
        def end_page(self, page) -> None:  # noqa: ANN001 - a PDFPage
            chars = sum(isinstance(item, LTChar) for item in self.cur_item)
            if chars > MAX_PAGE_CHARS:
                raise _PageTooFull(self.pageno, chars)
            super().end_page(page)

    resources = PDFResourceManager(caching=True)
    device = Aggregator(resources, laparams=laparams)
    interpreter = PDFPageInterpreter(resources, device)
    for page in PDFPage.get_pages(io.BytesIO(raw), caching=True):
        interpreter.process_page(page)
        yield device.get_result()


class _Budget:
    """What is left of :data:`MAX_DECODED` for one PDF."""

    def __init__(self, limit: int) -> None:
        self.left = limit

    def take(self, size: int) -> None:
        self.left -= size
        if self.left < 0:
            raise _OverBudget


class _CountingDecompressor:
    """A ``zlib.decompressobj`` whose output counts against the budget (pdfminer's repair of a
    stream with a bad checksum feeds it a byte at a time)."""

    def __init__(self, decoder, budget: _Budget) -> None:  # noqa: ANN001 - a zlib Decompress object
        self._decoder, self._budget = decoder, budget

    def decompress(self, data: bytes, max_length: int = 0) -> bytes:
        out = []
        while True:
            piece = self._decoder.decompress(data, _PIECE)
            self._budget.take(len(piece))
            out.append(piece)
            data = self._decoder.unconsumed_tail
            if not data and len(piece) < _PIECE:
                return b"".join(out)

    def __getattr__(self, name: str):  # noqa: ANN204 - eof, unused_data ... of the real decoder
        return getattr(self._decoder, name)


class _BoundedZlib:
    """Stands in for the ``zlib`` module inside ``pdfminer.pdftypes`` while one PDF is read."""

    error = zlib.error

    def __init__(self, budget: _Budget) -> None:
        self._budget = budget

    def decompressobj(self, *args, **kwargs) -> _CountingDecompressor:  # noqa: ANN002, ANN003
        return _CountingDecompressor(zlib.decompressobj(*args, **kwargs), self._budget)

    def decompress(self, data: bytes, *args, **kwargs) -> bytes:  # noqa: ANN002, ANN003
        decoder = zlib.decompressobj(*args, **kwargs)
        out = _CountingDecompressor(decoder, self._budget).decompress(data)
        if not decoder.eof:
            # as zlib.decompress: pdfminer then tries its repair of a stream cut short
            raise zlib.error("Error -5 while decompressing data: incomplete or truncated stream")
        return out


@contextlib.contextmanager
def _bounded_decoding(limit: int) -> Iterator[None]:
    """Count every stream pdfminer decodes (Flate and LZW, the filters that expand without bound)
    against ``limit``. pdfminer has no such limit; its module globals are swapped for the time of
    one PDF (a worker reads one input at a time, so nothing else sees them)."""
    from pdfminer import pdftypes
    from pdfminer.lzw import LZWDecoder

    budget = _Budget(limit)

    def lzwdecode(data: bytes) -> bytes:
        out = []
        for piece in LZWDecoder(io.BytesIO(data)).run():
            budget.take(len(piece))
            out.append(piece)
        return b"".join(out)

    saved = pdftypes.zlib, pdftypes.lzwdecode
    pdftypes.zlib, pdftypes.lzwdecode = _BoundedZlib(budget), lzwdecode  # type: ignore[assignment]
    try:
        yield
    finally:
        pdftypes.zlib, pdftypes.lzwdecode = saved


def extract_pdf(raw: bytes, location: str) -> str:
    """The text of a PDF in reading order, headers, footers and page numbers left out.

    Raises:
        PdfInputError: encrypted, unparseable, too many pages, or no text layer.
    """
    from pdfminer.layout import LAParams
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfparser import PDFSyntaxError
    from pdfminer.psexceptions import PSException

    pages: list[tuple[float, float, list[_Block]]] = []
    # boxes_flow=None: no hierarchical grouping of text boxes, which compares every box with every
    # other (5,000 words scattered over a page took minutes and 1.8 GB); the reading order is
    # made here from the boxes' positions (_reading_order), so the grouping was never used
    laparams = LAParams(boxes_flow=None)
    try:
        with _bounded_decoding(MAX_DECODED):
            for number, page in enumerate(_pages(raw, laparams), start=1):
                if number > MAX_PAGES:
                    raise PdfInputError(f"expected at most {MAX_PAGES} pages, found more", location)
                pages.append((page.width, page.height, _blocks(page)))
    except _PageTooFull as full:
        raise PdfInputError(f"expected at most {MAX_PAGE_CHARS:,} characters on a page, found {full.chars:,} on "
                            f"page {full.page} (laying out that many takes minutes)", location) from None
    except _OverBudget:
        raise PdfInputError(f"expected streams that decode to at most {MAX_DECODED // 2**20} MiB in all, found "
                            "more (a compression bomb?); --max-bytes bounds the file, not what it inflates to",
                            location) from None
    except (PDFPasswordIncorrect, PDFEncryptionError) as exc:
        raise PdfInputError("expected a PDF that opens without a password, found an encrypted one", location) from exc
    except PdfInputError:
        raise
    except (PDFSyntaxError, PSException) as exc:
        raise PdfInputError(f"expected a readable PDF, found a damaged or truncated one ({exc})", location) from exc
    except Exception as exc:  # pdfminer raises many types on broken files
        raise PdfInputError(f"expected a readable PDF, found {type(exc).__name__}: {exc}", location) from exc
    if not pages:
        raise PdfInputError("expected a PDF with pages, found none (damaged or truncated?)", location)
    # a block at an edge that repeats on at least half the pages (two at least) is a running header or footer
    repeats = Counter(key for _, height, blocks in pages
                      for key in {_edge_key(b, height) for b in blocks} if key is not None)
    running = {key for key, count in repeats.items() if len(pages) >= 2 and count >= max(2, len(pages) / 2)}
    parts: list[str] = []
    for width, height, blocks in pages:
        kept = [b for b in blocks if not _PAGE_NUMBER.match(b.text) and _edge_key(b, height) not in running]
        parts.extend(b.text for b in _reading_order(kept, width))
    text = "\n\n".join(parts)
    if not text.strip():
        raise PdfInputError("expected a PDF with a text layer, found none (scanned pages? run OCR first)", location)
    # a word broken over a line end, lower case going on: "configu-" and "ration" are one word
    return _HYPHENATED.sub(r"\1\2", text).replace("\x00", "") + "\n"
