"""Fetching URLs, against a server on 127.0.0.1 started here (no test needs the internet)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from pmparse.batch.convert import convert
from pmparse.errors import DecodeInputError, FetchInputError, TooLargeInputError, UnsupportedInputError
from pmparse.ingest.fetch import FetchSettings, fetch
from pmparse.ingest.read import ingest
from pmparse.library.store import Library

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Status</title></head><body>
<article><h1>Search outage on 9 February 2024</h1>
<p>Search returned no results for fifty minutes because an index alias pointed at an empty index.</p>
<h2>Root cause</h2><p>A cleanup script deleted the live index instead of the old one.</p>
<h2>Action items</h2><ul><li>Make the cleanup script refuse to delete an index an alias points at.</li></ul>
</article></body></html>"""

#: Settings that make the slow handler fail quickly.
QUICK = FetchSettings(connect_timeout=2, read_timeout=0.3, deadline=5, max_redirects=3)


class Handler(BaseHTTPRequestHandler):
    release: threading.Event

    def log_message(self, *args) -> None:  # keep the test output clean
        pass

    def _send(self, status: int, body: bytes, content_type: str, length: bool = True) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - the http.server name
        path = self.path
        if path == "/page":
            self._send(200, PAGE.encode(), "text/html; charset=utf-8")
        elif path == "/notes.md":
            self._send(200, "# Notes\n\nThe build farm was down for an hour.\n".encode(), "text/markdown")
        elif path == "/latin1":
            self._send(200, "Caf\u00e9 orders failed for an hour.\n".encode("latin-1"), "text/plain; charset=ISO-8859-1")
        elif path == "/bad-charset":
            self._send(200, b"ok \xe9 broken", "text/plain; charset=utf-8")
        elif path == "/slow":
            self.release.wait(10)  # never answers within the read timeout
            self._send(200, b"late", "text/plain")
        elif path == "/loop":
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/moved":
            self.send_response(301)
            self.send_header("Location", "/page")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/error":
            self._send(500, b"oops", "text/plain")
        elif path == "/huge":
            # no length announced: the cap is met while reading
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            try:
                for _ in range(10_000):
                    self.wfile.write(b"x" * 1024)
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif path == "/gigabyte":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(1024 ** 3))
            self.end_headers()
        elif path == "/image":
            self._send(200, b"\x89PNG\r\n\x1a\n", "image/png")
        else:
            self._send(404, b"no", "text/plain")


@pytest.fixture(scope="module")
def server():
    release = threading.Event()
    handler = type("BoundHandler", (Handler,), {"release": release})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        release.set()
        httpd.shutdown()
        httpd.server_close()


def test_a_page_is_fetched_and_read_as_its_content_type_says(server):
    raw, fmt = fetch(f"{server}/page", 1_000_000, QUICK)
    assert fmt == "html" and b"Search outage" in raw
    source = ingest(f"{server}/page", fetch_settings=QUICK)
    assert source.format == "html" and source.url == f"{server}/page" and source.extracted
    assert "# Search outage on 9 February 2024" in source.text
    assert ingest(f"{server}/notes.md", fetch_settings=QUICK).format == "md"


def test_the_charset_the_server_names_is_honoured(server):
    assert ingest(f"{server}/latin1", fetch_settings=QUICK).text.startswith("Caf\u00e9 orders")
    with pytest.raises(DecodeInputError, match="expected UTF-8 text, found byte 0xe9"):
        ingest(f"{server}/bad-charset", fetch_settings=QUICK)


def test_a_redirect_is_followed(server):
    assert b"Search outage" in fetch(f"{server}/moved", 1_000_000, QUICK)[0]


@pytest.mark.parametrize(("path", "error", "words"), [
    ("/slow", FetchInputError, "expected the server to answer within 0.3 s"),
    ("/loop", FetchInputError, "expected at most 3 redirects"),
    ("/error", FetchInputError, "expected HTTP status 200, found 500 Internal Server Error"),
    ("/missing", FetchInputError, "found 404"),
    ("/huge", TooLargeInputError, "expected at most 100000 bytes (--max-bytes), found more"),
    ("/gigabyte", TooLargeInputError, f"found a body of {1024 ** 3}"),
    ("/image", UnsupportedInputError, "expected text, HTML or PDF, found content type image/png"),
])
def test_each_bad_url_is_one_clear_error_naming_it(server, path, error, words):
    with pytest.raises(error) as caught:
        fetch(server + path, 100_000, QUICK)
    assert words in caught.value.message and caught.value.path == server + path


def test_nothing_listening_is_a_fetch_error(server):
    import socket

    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    with pytest.raises(FetchInputError, match="expected to download the page"):
        fetch(f"http://127.0.0.1:{port}/page", 1000, QUICK)


def test_a_batch_of_urls_converts_the_good_ones_and_skips_them_when_unchanged(server, tmp_path):
    urls = [f"{server}/page", f"{server}/error", f"{server}/slow", f"{server}/loop", f"{server}/huge",
            f"{server}/image"]
    report = convert(urls, tmp_path / "lib", max_bytes=100_000, fetch=QUICK)
    statuses = {r.input.rsplit("/", 1)[-1]: (r.status, r.error_kind) for r in report.results}
    assert statuses == {"page": ("converted", None), "error": ("failed", "fetch"), "slow": ("failed", "fetch"),
                        "loop": ("failed", "fetch"), "huge": ("failed", "too-large"),
                        "image": ("failed", "unsupported")}
    card = Library.read(Path(report.results[0].record))
    assert card.source.location == card.source.url == f"{server}/page"
    text = card.source.extracted_text
    for _, evidence in card.evidence_spans():
        assert 0 <= evidence.start < evidence.end <= len(text)
    again = convert([f"{server}/page"], tmp_path / "lib", fetch=QUICK)
    assert again.results[0].status == "unchanged"


def test_an_html_page_names_its_charset_in_a_meta_tag_when_the_header_does_not():
    from pmparse.ingest.fetch import _to_utf8

    page = '<html><head><meta charset="windows-1252"></head><body><p>Caf\u00e9 down</p></body></html>'
    assert _to_utf8(page.encode("cp1252"), None, "html", "u").decode("utf-8") == page


def mock(handler):
    import httpx

    return httpx.MockTransport(handler)


def streamed(status: int, body: bytes = b"", **headers):
    import httpx

    # a stream, as the network gives: the body is read as sent, not decoded by httpx first
    return httpx.Response(status, headers=headers, stream=httpx.ByteStream(body))


def test_a_gzip_gzip_bomb_fails_naming_the_limit_on_bytes_out_and_memory_stays_bounded():
    import tracemalloc

    from tests.ingest.documents import gzip_of_zeros

    bomb = __import__("gzip").compress(gzip_of_zeros(256 << 20), 9)
    transport = mock(lambda request: streamed(200, bomb, **{"content-type": "text/plain",
                                                             "content-encoding": "gzip, gzip"}))
    tracemalloc.start()
    try:
        with pytest.raises(TooLargeInputError, match=r"at most 1048576 bytes \(--max-bytes\) once decompressed, "
                                                     rf"found more from {len(bomb)} bytes sent .*gzip, gzip"):
            fetch("http://example.test/bomb", 1 << 20, transport=transport)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20


def test_a_page_sent_gzip_gzip_reads_as_its_text():
    import gzip

    body = gzip.compress(gzip.compress(PAGE.encode()))
    transport = mock(lambda request: streamed(200, body, **{"content-type": "text/html",
                                                            "content-encoding": "gzip, gzip"}))
    raw, fmt = fetch("http://example.test/page", 1 << 20, transport=transport)
    assert fmt == "html" and raw == PAGE.encode()


@pytest.mark.parametrize("target", ["javascript:alert(1)", "data:text/html,<p>hi</p>", "file:///etc/passwd"])
def test_a_redirect_to_another_scheme_is_a_clear_fetch_error(target):
    transport = mock(lambda request: streamed(302, location=target))
    with pytest.raises(FetchInputError, match="expected a redirect to an http\\(s\\) address, found one to"):
        fetch("http://example.test/go", 1 << 20, transport=transport)


def test_an_encoding_pmparse_cannot_bound_is_refused():
    transport = mock(lambda request: streamed(200, b"xx", **{"content-type": "text/plain", "content-encoding": "br"}))
    with pytest.raises(UnsupportedInputError, match="found content encoding br"):
        fetch("http://example.test/br", 1 << 20, transport=transport)


def test_an_upper_case_scheme_is_an_address_not_a_path():
    from pmparse.batch.inputs import expand_inputs
    from pmparse.locations import is_url

    assert is_url("HTTP://example.test/x") and is_url("Https://example.test/x") and not is_url("http.md")
    assert list(expand_inputs(["HTTP://Example.test/Report"])) == [("http://Example.test/Report", None)]
