"""Documents written for the ingest tests and shared with the tests of other packages: a blog post
with TOML front matter, PDFs written byte by byte, and gzip streams of zeros."""

from __future__ import annotations

import zlib

ZOLA_POST = """+++
title = "Sign-in outage on the forum"
date = 2022-11-08
authors = ["Ana Example", "Bo Example"]

[taxonomies]
tags = ["outage", "auth"]
+++

The forum refused every sign-in for two hours on 8 November 2022 after a certificate expired.

## Root cause

Nobody renewed the certificate of the session service.
"""


def raw_pdf(content: bytes, font: bytes = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            extra: tuple[bytes, ...] = (), filtered: bool = False) -> bytes:
    """A one-page PDF written byte by byte (a hostile one needs objects fpdf2 would never write):
    ``content`` is the page's content stream (already Flate-compressed when ``filtered``), object 5
    the page's font, ``extra`` objects 6, 7, ..."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
               b"/Resources << /Font << /F1 5 0 R >> >> >>",
               b"<< /Length %d%s >>\nstream\n" % (len(content), b" /Filter /FlateDecode" if filtered else b"")
               + content + b"\nendstream", font, *extra]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


LINE = b"BT /F1 12 Tf 72 720 Td (The primary database failed at noon.) Tj ET\n"


def gzip_of_zeros(size: int) -> bytes:
    """A gzip stream of ``size`` zero bytes, made a mebibyte at a time (never held whole)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = bytes(1 << 20)
    parts = [compressor.compress(block) for _ in range(size >> 20)]
    return b"".join(parts) + compressor.flush()
