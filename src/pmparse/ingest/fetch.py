"""Fetching a source given as an http(s) URL, with httpx.

Every limit is explicit: connect and read timeouts, a deadline for the whole download (a server
that trickles one byte a second passes every read timeout), the ``--max-bytes`` size cap (checked
on the announced length and again while reading, so a 1 GB body is never held), and a redirect
cap (a loop ends there). The response's content type chooses how it is read (HTML, markdown, plain
text or PDF) and its charset how text is decoded; anything else is refused. Each failure is one
:class:`~pmparse.errors.InputError` naming the URL, and the batch goes on.
"""

from __future__ import annotations

import codecs
import re
import time
import zlib
from functools import partial

from pydantic import BaseModel, ConfigDict, Field

from pmparse.errors import DecodeInputError, FetchInputError, TooLargeInputError, UnsupportedInputError
from pmparse.ingest.inflate import ACCEPTED, BoundedInflater, TooMuchOutput, UnsupportedEncoding, encodings

#: Content types read as each format; ``text/*`` not listed here is read as plain text.
_TYPES = {"text/html": "html", "application/xhtml+xml": "html", "text/markdown": "md", "text/x-markdown": "md",
          "text/plain": "txt", "application/pdf": "pdf"}
_META_CHARSET = re.compile(r"""<meta[^>]{0,200}?charset\s*=\s*["']?([A-Za-z0-9_.:-]{1,40})""", re.IGNORECASE)


class FetchSettings(BaseModel):
    """Limits of one download (``convert`` takes them; the defaults suit public web pages)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    connect_timeout: float = Field(default=10.0, gt=0, description="Seconds to open the connection.")
    read_timeout: float = Field(default=30.0, gt=0, description="Seconds to wait for each piece of the response.")
    deadline: float = Field(default=120.0, gt=0, description="Seconds for the whole download, redirects included.")
    max_redirects: int = Field(default=5, ge=0, description="Redirects followed before the URL fails.")
    user_agent: str = Field(default="pmparse (incident postmortem converter)", description="User-Agent header.")


def _media_type(header: str) -> tuple[str, str | None]:
    media, _, params = header.partition(";")
    charset = None
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            charset = value.strip().strip("\"'")
    return media.strip().lower(), charset


def _format(media: str, url: str) -> str:
    if media in _TYPES:
        return _TYPES[media]
    if media.startswith("text/"):
        return "txt"
    if media in ("", "application/octet-stream") and url.lower().split("?")[0].endswith(".pdf"):
        return "pdf"
    raise UnsupportedInputError(f"expected text, HTML or PDF, found content type {media or 'none'}", url)


def _to_utf8(raw: bytes, charset: str | None, fmt: str, url: str) -> bytes:
    """The body as UTF-8, decoded with the charset the server named (or an HTML page's meta tag)."""
    if charset is None and fmt == "html":
        # latin-1 reads any bytes, and a charset name is ASCII
        found = _META_CHARSET.search(raw[:4096].decode("latin-1"))
        charset = found.group(1) if found else None
    if charset is None:
        return raw  # UTF-8 is assumed, and decode_text says so when it is not
    try:
        codec = codecs.lookup(charset)
    except LookupError as exc:
        raise DecodeInputError(f"expected a known charset, found {charset!r} in the content type", url) from exc
    if codec.name == "utf-8":
        return raw
    try:
        return raw.decode(codec.name).encode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeInputError(f"expected {charset} text as the server said, found byte 0x{raw[exc.start]:02x} "
                               f"at offset {exc.start}", url) from exc


def _check_redirect(url: str, response) -> None:  # noqa: ANN001 - an httpx.Response
    """Refuse a redirect to anything but an http(s) address (``javascript:``, ``data:``, ``file:``)
    before httpx tries to build a request of it (it raised InvalidURL, read as an internal error)."""
    if not response.is_redirect:
        return
    target = response.headers.get("location", "")
    scheme = target.partition(":")[0].lower() if ":" in target.split("/", 1)[0] else ""
    if scheme and scheme not in ("http", "https"):
        shown = target if len(target) <= 80 else target[:77] + "..."
        raise FetchInputError(f"expected a redirect to an http(s) address, found one to {shown!r}", url)


def fetch(url: str, max_bytes: int, settings: FetchSettings | None = None, transport=None) -> tuple[bytes, str]:
    """Download ``url``.

    The body is read as sent and decompressed here (:mod:`pmparse.ingest.inflate`), so
    ``max_bytes`` bounds the bytes that come out of every ``Content-Encoding`` layer, not only
    the bytes on the wire. ``transport`` is an httpx transport to use instead of the network
    (tests give an ``httpx.MockTransport``).

    Returns:
        ``(body, format)``: the body as UTF-8 (a PDF as it came) and how to read it
        (``html``, ``md``, ``txt`` or ``pdf``).

    Raises:
        FetchInputError: no connection, a timeout, an HTTP error status, too many redirects.
        TooLargeInputError: more than ``max_bytes``.
        UnsupportedInputError: a content type that is not text, HTML or PDF.
        DecodeInputError: text not in the charset the server named.
    """
    import httpx  # imported here: only URLs need it

    settings = settings or FetchSettings()
    timeout = httpx.Timeout(settings.read_timeout, connect=settings.connect_timeout)
    started = time.monotonic()
    try:
        with httpx.Client(follow_redirects=True, max_redirects=settings.max_redirects, timeout=timeout,
                          headers={"User-Agent": settings.user_agent, "Accept-Encoding": ACCEPTED},
                          transport=transport, event_hooks={"response": [partial(_check_redirect, url)]}) as client:
            with client.stream("GET", url) as response:
                if response.status_code >= 400:
                    raise FetchInputError(f"expected HTTP status 200, found {response.status_code} "
                                          f"{response.reason_phrase}".rstrip(), url)
                media, charset = _media_type(response.headers.get("content-type", ""))
                fmt = _format(media, url)
                announced = response.headers.get("content-length", "")
                if announced.isdigit() and int(announced) > max_bytes:
                    raise TooLargeInputError(f"expected at most {max_bytes} bytes (--max-bytes), found a "
                                             f"body of {announced}", url)
                header = response.headers.get("content-encoding", "")
                try:
                    inflater = BoundedInflater(encodings(header), max_bytes)
                except UnsupportedEncoding as exc:
                    raise UnsupportedInputError(f"expected a body encoded with {ACCEPTED} or none, found "
                                                f"content encoding {exc}", url) from None
                chunks: list[bytes] = []
                size = 0
                for chunk in response.iter_raw():
                    size += len(chunk)
                    if size > max_bytes:
                        raise TooLargeInputError(f"expected at most {max_bytes} bytes (--max-bytes), found more",
                                                 url)
                    if time.monotonic() - started > settings.deadline:
                        raise FetchInputError(f"expected the download to end within {settings.deadline:g} s, "
                                              "found it still going", url)
                    try:
                        chunks.extend(inflater.feed(chunk))
                    except TooMuchOutput:
                        raise TooLargeInputError(
                            f"expected at most {max_bytes} bytes (--max-bytes) once decompressed, found more "
                            f"from {size} bytes sent with content encoding {header.strip()} (a compression bomb?)",
                            url) from None
                    except zlib.error as exc:
                        raise FetchInputError(f"expected a body encoded as {header.strip()} says, found {exc}",
                                              url) from None
    except httpx.TooManyRedirects as exc:
        raise FetchInputError(f"expected at most {settings.max_redirects} redirects, found more "
                              "(a redirect loop?)", url) from exc
    except httpx.ConnectTimeout as exc:
        raise FetchInputError(f"expected a connection within {settings.connect_timeout:g} s, found none", url) from exc
    except httpx.TimeoutException as exc:
        raise FetchInputError(f"expected the server to answer within {settings.read_timeout:g} s, found it "
                              "silent", url) from exc
    except httpx.UnsupportedProtocol as exc:
        raise FetchInputError(f"expected an http(s) address to follow, found {exc}", url) from exc
    except httpx.InvalidURL as exc:  # an address httpx cannot request, given or redirected to
        raise FetchInputError(f"expected an http(s) address, found one httpx cannot request: {exc}", url) from exc
    except httpx.HTTPError as exc:  # connection refused, DNS, TLS, a broken response
        raise FetchInputError(f"expected to download the page, found {type(exc).__name__}: {exc}", url) from exc
    raw = b"".join(chunks)
    return (raw if fmt == "pdf" else _to_utf8(raw, charset, fmt, url)), fmt
