"""Decompressing HTTP bodies layer by layer, bounded by the bytes that come out."""

from __future__ import annotations

import gzip
import zlib

import pytest

from pmparse.ingest.inflate import BoundedInflater, TooMuchOutput, UnsupportedEncoding, encodings
from tests.ingest.documents import gzip_of_zeros


def test_each_layer_is_undone_last_first():
    body = b"The database failed at noon.\n"
    for header, data in [("gzip, gzip", gzip.compress(gzip.compress(body))), ("identity", body),
                         ("deflate", zlib.compress(body)), ("x-gzip, deflate", zlib.compress(gzip.compress(body))),
                         ("deflate", zlib.compress(body)[2:-4])]:  # raw deflate, as some servers send it
        inflater = BoundedInflater(encodings(header), 1000)
        assert b"".join(inflater.feed(data[:7]) + inflater.feed(data[7:])) == body, header


def test_a_two_layer_bomb_stops_at_the_limit_out():
    bomb = gzip.compress(gzip_of_zeros(256 << 20), 9)
    assert len(bomb) < 2000
    inflater = BoundedInflater(encodings("gzip, gzip"), 1 << 20)
    with pytest.raises(TooMuchOutput):
        inflater.feed(bomb)
    assert inflater.size <= (1 << 20) + 64 * 1024  # stopped a piece past the limit, not a gigabyte


def test_an_inner_layer_that_ends_early_cannot_hide_an_outer_bomb():
    # the outer layer inflates zeros the inner one never reads (kept by zlib as unused data)
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    outer = compressor.compress(gzip.compress(b"tiny")) + b"".join(
        compressor.compress(bytes(1 << 20)) for _ in range(64)) + compressor.flush()
    with pytest.raises(TooMuchOutput):
        BoundedInflater(encodings("gzip, gzip"), 1 << 20).feed(outer)


def test_an_encoding_that_cannot_be_bounded_is_refused():
    with pytest.raises(UnsupportedEncoding, match="br"):
        encodings("gzip, br")
