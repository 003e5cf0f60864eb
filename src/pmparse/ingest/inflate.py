"""Decompressing an HTTP body layer by layer, bounded by the bytes that come out.

httpx inflates each network chunk through every ``Content-Encoding`` layer at once: 1,867 bytes of
``gzip, gzip`` became 1 GiB in memory before a size check could see it. Here each layer gives at
most :data:`PIECE` bytes per step to the next, and the body stops as soon as what comes out of the
last layer passes the limit, so memory stays at a few pieces whatever the ratio.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

#: Bytes one layer hands on per step.
PIECE = 64 * 1024

#: The encodings read (what ``Accept-Encoding`` asks for); brotli and zstd are not asked for,
#: since their decoders here cannot be bounded by output.
ACCEPTED = "gzip, deflate"

_GZIP = ("gzip", "x-gzip")


class UnsupportedEncoding(ValueError):
    """A ``Content-Encoding`` this module does not decode."""


class TooMuchOutput(ValueError):
    """The body decompresses to more than the limit."""


def encodings(header: str) -> list[str]:
    """The layers of a ``Content-Encoding`` header, in the order they were applied (``identity`` left out).

    Raises:
        UnsupportedEncoding: a layer other than gzip or deflate.
    """
    layers = [part.strip().lower() for part in header.split(",") if part.strip()]
    layers = [layer for layer in layers if layer != "identity"]
    for layer in layers:
        if layer not in _GZIP and layer != "deflate":
            raise UnsupportedEncoding(layer)
    return layers


class _Layer:
    def __init__(self, name: str) -> None:
        self.name = name
        self.deflate_raw = False
        self.decoder = zlib.decompressobj(zlib.MAX_WBITS | 16 if name in _GZIP else zlib.MAX_WBITS)
        self.started = False
        self.size = 0

    def pieces(self, data: bytes) -> Iterator[bytes]:
        """What ``data`` inflates to, :data:`PIECE` bytes at a time."""
        if self.name == "deflate" and not self.started and data:
            # 'deflate' is zlib-wrapped by the standard and raw by some servers: the first bytes tell
            self.started = True
            try:
                zlib.decompressobj().decompress(data[:2])
            except zlib.error:
                self.decoder = zlib.decompressobj(-zlib.MAX_WBITS)
        while True:
            out = self.decoder.decompress(data, PIECE)
            if out:
                yield out
            data = self.decoder.unconsumed_tail
            if not data and len(out) < PIECE:
                return  # input used up and nothing held back (a full piece may have more behind it)


class BoundedInflater:
    """Decodes the layers of a body as its bytes arrive; :meth:`feed` raises past ``limit`` bytes out.

    Args:
        layers: :func:`encodings` of the response.
        limit: Most bytes the decoded body may have.

    Raises:
        zlib.error: the body is not what its encoding says.
    """

    def __init__(self, layers: list[str], limit: int) -> None:
        # the last encoding applied is the first undone
        self.layers = [_Layer(name) for name in reversed(layers)]
        self.limit = limit
        self.size = 0

    def feed(self, data: bytes) -> list[bytes]:
        """The decoded pieces of the next bytes of the body.

        Raises:
            TooMuchOutput: more than ``limit`` bytes decoded so far.
        """
        out: list[bytes] = []
        for piece in self._through(0, data):
            self.size += len(piece)
            if self.size > self.limit:
                raise TooMuchOutput(self.size)
            out.append(piece)
        return out

    def _through(self, index: int, data: bytes) -> Iterator[bytes]:
        if index == len(self.layers):
            yield data
            return
        layer = self.layers[index]
        for piece in layer.pieces(data):
            # an inner layer that ended early keeps what follows in memory (zlib's unused_data):
            # every layer is held to the limit, not only the last
            layer.size += len(piece)
            if layer.size > self.limit:
                raise TooMuchOutput(layer.size)
            yield from self._through(index + 1, piece)
