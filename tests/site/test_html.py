from __future__ import annotations

from pmparse.site.html import CSP, cases, esc, humanise, page, safe_url


def test_esc_makes_markup_and_attribute_breakers_text():
    assert esc("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;"
    assert esc('a" onclick="x\' &') == "a&quot; onclick=&quot;x&#x27; &amp;"


def test_only_http_addresses_become_links():
    assert safe_url("https://example.org/a?b=1") == "https://example.org/a?b=1"
    for bad in ("javascript:alert(1)", "JAVASCRIPT:alert(1)", "data:text/html,x", "/etc/passwd", None, "",
                'https://x.org/"onmouseover="a'):
        assert safe_url(bad) is None


def test_page_is_relative_offline_and_locked_down():
    html = page("<Title>", "<p>body</p>", 2, ("search-index.js",))
    assert "<title>&lt;Title&gt;</title>" in html
    assert 'href="../../assets/site.css"' in html and 'src="../../search-index.js"' in html
    assert f'content="{CSP}"' in html and "script-src 'self'" in CSP and "default-src 'none'" in CSP
    assert "http://" not in html and "https://" not in html


def test_small_words():
    assert cases(1) == "1 case" and cases(3) == "3 cases"
    assert humanise("dns_resolver") == "Dns resolver"
