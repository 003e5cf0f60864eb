"""The site in a real browser: headless Chromium (Debian's ``chromium``) opens the pages from
``file://``, types into the search box, follows a grouping and an evidence link, and sees no console
error, failed load, blocked script or dialog. It also makes the screenshots the README shows:
``PMPARSE_SCREENSHOTS=docs python -m pytest tests/site/test_browser.py`` writes them into docs/."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from pmparse.batch.convert import convert
from pmparse.library.store import Library
from pmparse.nlp.pipeline import pipeline_config
from pmparse.site.build import build_site
from tests.helpers import HOSTILE, REPO, Chromium, chromium_path, text_card

BINARY = chromium_path()
pytestmark = pytest.mark.skipif(BINARY is None, reason="headless Chromium is not installed (Debian package "
                                "'chromium'; .ci/run installs it): the site's browser test cannot run")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chrome = Chromium(BINARY, tmp_path_factory.mktemp("profile"))
    yield chrome
    chrome.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The bundled samples' site (the screenshots show it), their records naming them as the
    README's quickstart does (``corpus/samples/...``, from the checkout)."""
    folder = tmp_path_factory.mktemp("site")
    here = os.getcwd()
    os.chdir(REPO)
    try:
        assert convert(["corpus/samples"], folder / "lib", config=pipeline_config()).counts["converted"] == 3
        build_site(folder / "lib", folder / "site")
    finally:
        os.chdir(here)
    return folder / "site"


def shots(tmp_path) -> Path:
    wanted = os.environ.get("PMPARSE_SCREENSHOTS")
    return Path(wanted) if wanted else tmp_path


def visible_ids(browser) -> list[str]:
    return browser.evaluate("[...new Set([...document.querySelectorAll('tr[data-id]')]"
                            ".filter(r => r.offsetParent !== null).map(r => r.dataset.id))].sort()")


def test_index_search_and_a_grouping_work_from_file_urls(browser, site, tmp_path):
    browser.open((site / "index.html").as_uri())
    assert browser.evaluate("document.title") == "Incident library"
    assert visible_ids(browser) == ["IL-0001", "IL-0002", "IL-0003"]
    browser.screenshot(shots(tmp_path) / "site-index.png")
    browser.type("#search", "pacemaker replica")
    assert visible_ids(browser) == ["IL-0002"]
    assert browser.evaluate("document.getElementById('matches').textContent") == "1 case matches"
    counts = browser.evaluate("[...document.querySelectorAll('section.group')].filter(s => !s.hidden)"
                              ".map(s => s.querySelector('.count').textContent)")
    assert counts and all(re.fullmatch(r"1 of \d+ cases?", c) for c in counts)  # the groups IL-0002 is in
    browser.evaluate("document.getElementById('search').value = ''")
    browser.type("#search", "gpu")
    assert visible_ids(browser) == ["IL-0001", "IL-0003"]
    browser.type("#search", "zzz")  # the box now holds "gpuzzz"
    assert visible_ids(browser) == [] and browser.evaluate("document.getElementById('matches').textContent") == \
        "0 cases match"
    # a grouping: the components, then the first component's cards
    browser.open((site / "index.html").as_uri())
    browser.click_and_wait('a[href="by/component.html"]')
    assert browser.evaluate("location.pathname").endswith("/by/component.html")
    name = browser.evaluate("document.querySelector('ul.facet a').textContent")
    count = browser.evaluate("parseInt(document.querySelector('ul.facet .count').textContent, 10)")
    browser.click_and_wait("ul.facet a")
    assert browser.evaluate("document.querySelector('h1').textContent") == f"Component: {name}"
    assert len(visible_ids(browser)) == count > 0
    # the query in the address works too (a link to a search)
    browser.open((site / "index.html").as_uri() + "#q=pacemaker")
    assert visible_ids(browser) == ["IL-0002"]
    assert browser.problems() == []


def test_a_card_page_marks_its_evidence_and_links_to_it(browser, site, tmp_path):
    browser.open((site / "cards" / "IL-0002.html").as_uri())
    assert browser.evaluate("document.querySelectorAll('pre.text mark').length") > 5
    assert browser.evaluate("document.querySelectorAll('ul.legend mark').length") >= 3
    href = browser.evaluate("document.querySelector('#field-symptoms a.ev').getAttribute('href')")
    browser.click("#field-symptoms a.ev")
    assert browser.evaluate("location.hash") == href
    # the anchor is in the source text, right before the mark of the item's words
    item = browser.evaluate("document.querySelector('#field-symptoms .text').textContent")
    mark = browser.evaluate(f"document.querySelector({href!r}).nextElementSibling.textContent")
    assert item.startswith(" ".join(mark.split()))
    browser.open((site / "cards" / "IL-0002.html").as_uri())  # unscrolled, for the screenshot
    browser.screenshot(shots(tmp_path) / "site-card.png")
    assert browser.problems() == []


def test_a_hostile_postmortem_runs_nothing_in_the_browser(browser, tmp_path):
    lib = tmp_path / "lib"
    start = HOSTILE.index("A bug")
    card = text_card("IL-0001", HOSTILE, title="<img src=x onerror=alert('t')>", organisation="<script>alert(1)</script>",
                     root_cause=[(start, HOSTILE.index("crashed.", start) + 8, 0.5)])
    Library.open(lib).write(card, "yaml")
    build_site(lib, tmp_path / "site")
    for page in ("index.html", "cards/IL-0001.html"):
        browser.open((tmp_path / "site" / page).as_uri())
        text = browser.evaluate("document.body.innerText")
        assert "<script>alert(1)</script>" in text and "<img src=x onerror=alert('t')>" in text
        assert browser.evaluate("document.querySelectorAll('main img, main script, main svg').length") == 0
    assert "</script><script>alert('cause')</script>" in text
    assert browser.problems() == []
    shutil.rmtree(tmp_path / "site")


def test_the_harness_sees_a_failed_load_a_console_error_and_a_blocked_inline_script(browser, tmp_path):
    # the checks above would pass vacuously if problems() saw nothing: here it must see three
    (tmp_path / "broken.html").write_text(
        '<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="script-src \'self\'">'
        '<script src="missing.js"></script><script>document.title = "ran"</script></head><body></body></html>',
        encoding="utf-8")
    before = len(browser.problems())
    browser.open((tmp_path / "broken.html").as_uri())
    browser.evaluate("console.error('seen')")
    assert browser.evaluate("document.title") != "ran"
    found = browser.problems()[before:]
    assert any("missing.js" in p for p in found) and any("seen" in p for p in found)
    assert any("Content Security Policy" in p for p in found)
    browser.events.clear()


def test_the_site_works_behind_a_static_server_under_any_path(browser, site, tmp_path):
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    shutil.copytree(site, tmp_path / "some" / "prefix")
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *args: None
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/some/prefix/"
        browser.open(base + "index.html")
        browser.type("#search", "pacemaker")
        assert visible_ids(browser) == ["IL-0002"]
        browser.click_and_wait('a[href="cards/IL-0002.html"]')
        assert browser.evaluate("document.querySelectorAll('pre.text mark').length") > 5
        assert browser.evaluate("getComputedStyle(document.querySelector('mark.f-symptoms')).backgroundColor") \
            == "rgb(255, 214, 214)"  # the stylesheet loaded
        assert browser.problems() == []
    finally:
        server.shutdown()
        server.server_close()
