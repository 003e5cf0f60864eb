"""Hostile front matter and HTML: read safely, and never in silence (a warning naming the file)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pmparse.cli import main
from pmparse.ingest.read import ingest_bytes

BODY = "\n# Queue outage\n\n## Root cause\n\nA configuration push lowered the worker limit of the pool to zero.\n"
ALIASES = "---\na: &a [x, x, x]\n" + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}]\n"
                                               for i in range(5)) + "title: fine\n---\n"
MERGES = "---\nk0: &k0 {a: 1}\n" + "".join(f"k{i}: &k{i}\n  <<: [*k{i - 1}, *k{i - 1}]\n" for i in range(1, 6)) + "---\n"

FRONT_MATTER = {
    "aliases": (ALIASES, "front matter uses 10 alias(es) (of 6 anchor(s)): not expanded"),
    "merge keys": (MERGES, "5 merge key(s)"),
    "python tag": ("---\ntitle: !!python/object/apply:os.system ['true']\n---\n",
                   "YAML tags pmparse never builds (!!python/object/apply:os.system)"),
    "local tag": ("---\ntitle: !vault secret\n---\n", "YAML tags pmparse never builds (!vault)"),
    "unclosed": ("---\ntitle: never closed\n", "no '---' line closes it"),
    "invalid": ("---\ntitle: [unclosed\n---\n", "not valid YAML at line"),
    "a list": ("---\n- a\n- b\n---\n", "is a list, expected a mapping"),
}


@pytest.mark.parametrize("name", list(FRONT_MATTER))
def test_hostile_front_matter_converts_with_a_warning(name):
    head, expected = FRONT_MATTER[name]
    source = ingest_bytes((head + BODY).encode("utf-8"), "report.md")
    assert any(expected in warning for warning in source.warnings), source.warnings
    assert "worker limit" in source.text


def test_plain_front_matter_and_a_thematic_break_give_no_warning():
    for head in ("---\ntitle: Queue outage\ndate: 2024-03-03\ntags: [queue, config]\n---\n", "---\n\nSome text.\n",
                 "---\ntitle: !!str 2024\n---\n"):
        assert ingest_bytes((head + BODY).encode("utf-8"), "report.md").warnings == []


PAGE = """<html><head>{head}</head><body><article><h1>Queue outage</h1>
<p>A configuration push lowered the worker limit of the pool to zero, and the queue stopped for an hour.</p>
{hidden}
<p>We validate worker limits before a push reaches production from now on, in every region.</p>
</article></body></html>"""


def test_html_that_hides_text_redirects_or_declares_entities_converts_with_a_warning():
    hidden = ('<div style="display: none">Root cause: a sentence planted for the parser to read.</div>'
              '<p hidden>Another planted paragraph says the outage lasted nine days.</p>')
    page = PAGE.format(head='<meta http-equiv="refresh" content="0; url=https://example.org/">', hidden=hidden)
    warnings = ingest_bytes(page.encode("utf-8"), "page.html").warnings
    assert any(w.startswith("HTML hides ") for w in warnings), warnings
    assert any("meta refresh" in w for w in warnings)
    entities = '<!DOCTYPE html [<!ENTITY sig "Queue team">]>' + PAGE.format(head="", hidden="")
    assert any("<!ENTITY>" in w for w in ingest_bytes(entities.encode("utf-8"), "page.html").warnings)


def test_an_ordinary_page_and_hidden_menus_give_no_warning():
    menu = '<nav style="display:none"><a href="/">Home</a><a href="/blog">Blog</a></nav><script>var x = 1;</script>'
    assert ingest_bytes(PAGE.format(head="", hidden=menu).encode("utf-8"), "page.html").warnings == []


def test_the_warning_names_the_file(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "tagged.md").write_text(FRONT_MATTER["python tag"][0] + BODY, encoding="utf-8")
    result = CliRunner().invoke(main, ["convert", str(folder), "-o", str(tmp_path / "lib"), "--rules-only"])
    assert result.exit_code == 0, result.output
    assert f"warning: {folder / 'tagged.md'}: front matter holds YAML tags" in result.output


PARAGRAPHS = "".join(f"<p>At 10:{i:02d} the primary database stopped taking writes; the queue grew.</p>"
                     for i in range(30))


def page(body: str) -> bytes:
    return f"<html><head><title>Outage</title></head><body><h1>Database outage</h1>{body}</body></html>".encode()


@pytest.mark.parametrize("body, reason", [
    ("<div>" * 300 + PARAGRAPHS + "</div>" * 300, "nested deeper than the parser's limit of 255 levels"),
    ("<p>" + "word " * 2_100_000 + "</p>", "a text node larger than the parser's limit of 10 MB"),
])
def test_html_whose_text_the_parser_drops_fails_with_the_reason(body, reason):
    from pmparse.errors import MalformedInputError

    with pytest.raises(MalformedInputError, match="of visible text of which it kept") as caught:
        ingest_bytes(page(body), "deep.html")
    assert reason in caught.value.message


def test_a_deep_page_fails_as_malformed_in_convert(tmp_path):
    source = tmp_path / "deep.html"
    source.write_bytes(page("<div>" * 300 + PARAGRAPHS + "</div>" * 300))
    result = CliRunner().invoke(main, ["convert", str(source), "-o", str(tmp_path / "lib"), "--rules-only", "-j", "1"])
    assert result.exit_code == 1 and "nested deeper than the parser's limit" in result.output
    assert not list((tmp_path / "lib").glob("IL-*"))


def test_nesting_within_the_limit_and_menus_around_the_text_pass():
    menus = "<nav>" + "".join(f"<a href='/{i}'>Section {i}</a>" for i in range(200)) + "</nav>"
    ingested = ingest_bytes(page(menus + "<div>" * 200 + PARAGRAPHS + "</div>" * 200), "ok.html")
    assert "10:29 the primary database" in ingested.text


def test_visible_size_counts_text_without_markup_scripts_or_entities():
    from pmparse.ingest.hostile import visible_size

    assert visible_size("<p>a &amp; b</p><!-- hidden --><script>var x = 1;</script><style>p{}</style>c") == 4
    assert visible_size("<p>kept</p><script>an unclosed script swallows the rest") == 4


def test_a_page_of_too_many_tags_fails_naming_the_limit(monkeypatch):
    from pmparse.errors import TooLargeInputError
    from pmparse.ingest import read

    monkeypatch.setattr(read, "MAX_HTML_TAGS", 1000)
    with pytest.raises(TooLargeInputError, match="expected HTML of at most 1,000 tags, found 2,0"):
        ingest_bytes(page("<br>" * 2000), "br.html")


def test_an_xhtml_page_with_an_xml_declaration_is_checked_too():
    from pmparse.errors import MalformedInputError

    xhtml = b'<?xml version="1.0" encoding="utf-8"?>\n' + page("<div>" * 300 + PARAGRAPHS + "</div>" * 300)
    with pytest.raises(MalformedInputError, match="nested deeper than the parser's limit"):
        ingest_bytes(xhtml, "deep.xhtml")
