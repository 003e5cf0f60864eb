from __future__ import annotations

import io
import os

import pytest

from pmparse.errors import (
    BinaryInputError,
    DecodeInputError,
    EmptyInputError,
    MalformedInputError,
    TooLargeInputError,
    UnreadableInputError,
)
from pmparse.ingest.read import detect_format, ingest, ingest_bytes, is_html_page, parse_front_matter, sha256_text
from pmparse.util import newlines, text_sha256
from tests.ingest.documents import ZOLA_POST


def test_a_crlf_file_reads_as_the_same_text_as_its_lf_twin(tmp_path):
    # a git checkout with core.autocrlf gives the same report CRLF line breaks: it must be the
    # same text (sha256, offsets) as on the curator's machine that converted it, or every record
    # reads as amended after each pull
    unix, windows = tmp_path / "unix.md", tmp_path / "windows.md"
    unix.write_bytes(b"# Title\n\nLine one.\n")
    windows.write_bytes(b"# Title\r\n\r\nLine one.\r\n")
    a, b = ingest(str(unix)), ingest(str(windows))
    assert a.text == b.text == "# Title\n\nLine one.\n"
    assert a.sha256 == b.sha256 == sha256_text(a.text) == text_sha256(windows.read_bytes())
    assert b.format == "md" and not b.extracted


@pytest.mark.parametrize("content,error,needle", [
    (b"", EmptyInputError, "empty"),
    (b"  \n\t\n", EmptyInputError, "white space"),
    (b"\xef\xbb\xbf", EmptyInputError, "white space"),  # a byte order mark alone
    (b"\xef\xbb\xbf \n\n", EmptyInputError, "white space"),
    (b"PK\x03\x04\x00\x00binary", BinaryInputError, "NUL byte at offset 4"),
    ("Caf\u00e9 outage".encode("latin-1"), DecodeInputError, "offset 3"),
    # text saved as UTF-16 or UTF-32 is text in the wrong encoding, not binary data
    ("# Outage\n\nThe API was down.\n".encode("utf-16"), DecodeInputError, "found UTF-16LE (byte order mark)"),
    ("# Outage\n".encode("utf-16-be"), DecodeInputError, "found UTF-16BE (no byte order mark)"),
    ("# Outage\n".encode("utf-16-le"), DecodeInputError, "iconv -f utf-16le -t utf-8"),
    ("# Outage\n".encode("utf-32"), DecodeInputError, "found UTF-32LE (byte order mark)"),
    # a binary file with many NUL bytes is still binary
    (b"\x00\x01\x02\x03" * 50, BinaryInputError, "NUL byte at offset 0"),
])
def test_bad_bytes_get_a_clear_error(tmp_path, content, error, needle):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(error) as info:
        ingest(str(path))
    assert needle in str(info.value)
    assert str(path) in str(info.value)


def test_oversized_file_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.txt"
    with open(path, "wb") as handle:
        handle.truncate(50 * 1024 * 1024)  # sparse: 50 MB on paper, no time to write
    with pytest.raises(TooLargeInputError) as info:
        ingest(str(path))
    assert "--max-bytes" in str(info.value)


def test_max_bytes_applies_to_stdin():
    with pytest.raises(TooLargeInputError):
        ingest("-", max_bytes=10, stdin=io.BytesIO(b"x" * 11))
    assert ingest("-", stdin=io.BytesIO(b"# Report\n\nAll good here.\n")).format == "md"


def test_directory_and_missing_and_broken_link(tmp_path):
    with pytest.raises(UnreadableInputError, match="directory"):
        ingest(str(tmp_path))
    with pytest.raises(UnreadableInputError, match="no such file"):
        ingest(str(tmp_path / "nope.md"))
    link = tmp_path / "link.md"
    link.symlink_to(tmp_path / "gone.md")
    with pytest.raises(UnreadableInputError, match="broken symbolic link"):
        ingest(str(link))


def test_front_matter_values_and_region():
    text = "---\ntitle: Incident on 2020-02-12\nweight: 3\ntags: [a, b]\n---\n# Body\n"
    values, region, warning = parse_front_matter(text)
    assert values == {"title": "Incident on 2020-02-12", "weight": "3", "tags": "a, b"}  # a list of scalars is read
    assert text[region[0]:region[1]].endswith("---\n") and warning is None


def test_invalid_front_matter_is_a_warning_not_a_failure():
    source = ingest_bytes(b"---\ntitle: [unclosed\n---\n# Body\n\nText here.\n", "x.md")
    assert source.front_matter == {}
    assert any("not valid YAML" in w for w in source.warnings)
    assert source.masked and source.masked[0][0] == 0


def test_alias_bomb_front_matter_is_cheap():
    bomb = "---\na: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(8)) + "title: ok\n---\nBody text here.\n"
    values, region, warning = parse_front_matter(bomb)
    # the plain list is read; the lists of aliased lists are not walked
    assert values == {"a": ", ".join(["x"] * 9), "title": "ok"} and warning is None


def test_erb_tags_are_masked():
    source = ingest_bytes(b"# T\n\n<%= partial 'x' %>\n\nReal text here.\n", "a.html.md.erb")
    start, end = source.masked[-1]
    assert source.text[start:end] == "<%= partial 'x' %>"


def test_html_is_extracted_without_boilerplate():
    html = (b"<html><head><title>Outage</title></head><body><nav>Home | Pricing | Login</nav><article>"
            b"<h1>Database outage</h1><p>Our database was down for two hours on 3 March 2024 and every "
            b"request failed while we restored it from a replica.</p><h2>Root cause</h2><p>A disk filled up "
            b"because log rotation was switched off during a migration.</p></article>"
            b"<footer>Copyright 2024 Example</footer></body></html>")
    source = ingest_bytes(html, "post.html")
    assert source.extracted and source.format == "html"
    assert "## Root cause" in source.text and "log rotation" in source.text
    assert "Pricing" not in source.text and "Copyright" not in source.text


def test_html_text_keeps_its_characters_without_the_extractors_markdown_escapes():
    # the extractor writes its markdown with "\\_" and "\\*" for the page's own underscores and
    # stars: a card quoted "the attribute event\\_payload", which the page never wrote
    html = (b"<html><body><article><h1>Queue stall</h1><p>The migration renamed the attribute "
            b"<em>event_payload</em>, so every job_runner read a nil value; retries grew 2*3 times "
            b"a minute and the queue [jobs] stalled.</p><p>We restored the column from the backup and "
            b"ran the snake_case_name check again before reopening the queue to writers.</p></article>"
            b"</body></html>")
    text = ingest_bytes(html, "post.html").text
    for written in ("event_payload", "job_runner", "2*3", "[jobs]", "snake_case_name"):
        assert written in text, (written, text)
    assert "\\" not in text
    assert "*event_payload*" in text  # the page's emphasis stays markdown


@pytest.mark.parametrize("html", [b"<html><body><div><div><span></span></div></body>", b"<<<>>>", b"<p>"])
def test_html_without_text_is_malformed(html):
    with pytest.raises(MalformedInputError):
        ingest_bytes(html, "bad.html")


def test_unclosed_html_with_text_still_converts():
    html = b"<html><body><article><h1>Report<p>The queue stalled for an hour and jobs piled up in the backlog while workers were idle.<p>We restarted the broker and the backlog cleared within minutes."
    assert "queue stalled" in ingest_bytes(html, "unclosed.html").text


def test_format_detection():
    assert detect_format("a/b.html.md.erb") == "md"
    assert detect_format("x.HTM") == "html"
    assert detect_format("notes") == "txt"
    assert detect_format("-", b"<!DOCTYPE html><html>") == "html"
    assert detect_format("-", b"# Heading\n") == "md"


def test_a_whole_html_page_named_md_or_txt_is_read_as_html():
    # a page saved under the wrong name: read as markup, its doctype became the title
    page = b"\xef\xbb\xbf <!doctype html>\n<html><body><h1>Queue stall</h1><p>The queue stalled.</p></body></html>"
    assert detect_format("saved.md", page) == "html" and detect_format("saved.txt", page) == "html"
    assert ingest_bytes(page, "saved.md").text.startswith("# Queue stall")
    # markdown may open with HTML of its own, which stays markdown
    assert detect_format("post.md", b"<div align=center>logo</div>\n\n# Outage\n") == "md"
    assert detect_format("post.md", b"<html-comment>\n# Outage\n") == "md"


def test_merge_key_bomb_front_matter_is_cheap():
    # each level merges the previous one nine times: flattening would build 9**12 pairs
    bomb = "---\nk0: &k0 {a: 1, b: 2}\n" + "".join(
        f"k{i}: &k{i}\n  <<: [" + ", ".join([f"*k{i - 1}"] * 9) + "]\n" for i in range(1, 13)) + "title: ok\n---\nBody.\n"
    values, region, warning = parse_front_matter(bomb)
    assert values == {"title": "ok"} and warning is None and region == (0, bomb.index("Body."))


@pytest.mark.parametrize("nested", ["x: " + "[" * 60_000, "x:\n  " + "- " * 20_000 + "y",
                                    "".join(" " * i + f"k{i}:\n" for i in range(300)) + " " * 300 + "v: 1"])
def test_deeply_nested_front_matter_is_ignored_with_a_warning(nested):
    text = f"---\n{nested}\n---\n# Body\n\nText.\n"
    values, region, warning = parse_front_matter(text)
    assert values == {} and region == (0, text.index("# Body"))
    assert warning == "front matter is nested more than 64 levels deep; ignored"


def test_front_matter_scalars_yaml_cannot_build_keep_their_text():
    values, _, warning = parse_front_matter("---\ndate: 2021-02-30\ntitle: x\n---\nBody.\n")
    assert values == {"date": "2021-02-30", "title": "x"} and warning is None


@pytest.mark.parametrize("front,expected", [("- a\n- b\n", "a list"), ("just text\n", "a str"), ("42\n", "a int")])
def test_front_matter_that_is_not_a_mapping_is_a_warning(front, expected):
    values, region, warning = parse_front_matter(f"---\n{front}---\nBody.\n")
    assert values == {} and region is not None
    assert warning == f"front matter is {expected}, expected a mapping; ignored"


def test_carriage_return_line_breaks_are_read_as_lines():
    raw = b"# Outage\r\r## Root cause\r\rA disk filled up.\r"
    source = ingest_bytes(raw, "old-mac.md")
    assert source.text == "# Outage\n\n## Root cause\n\nA disk filled up.\n"
    assert source.sha256 == text_sha256(raw) and not source.warnings


@pytest.mark.parametrize("raw", [b"a\r\r\nb", b"\r\n\r", b"x\ry\r\nz\n", "\u00e9t\u00e9\r\n\u2028".encode()])
def test_line_breaks_read_as_python_text_mode_reads_them(raw, tmp_path):
    path = tmp_path / "f.txt"
    path.write_bytes(raw)
    assert newlines(raw.decode()) == path.read_text(encoding="utf-8")
    assert text_sha256(raw) == sha256_text(newlines(raw.decode()))


def test_toml_front_matter_is_read_and_masked():
    source = ingest_bytes(ZOLA_POST.encode(), "content/blog/2022-11-08-forum.md")
    assert source.front_matter["title"] == "Sign-in outage on the forum"
    assert source.front_matter["date"] == "2022-11-08"
    assert source.front_matter["authors"] == "Ana Example, Bo Example"
    assert source.front_matter["tags"] == "outage, auth"
    start, end = source.masked[0]
    assert start == 0 and source.text[:end].count("+++") == 2 and source.text[end:].startswith("\nThe forum")


def test_bad_toml_front_matter_is_masked_with_a_warning():
    source = ingest_bytes(b"+++\ntitle = \n+++\nBody text here.\n", "post.md")
    assert source.front_matter == {} and source.masked[0] == (0, 17)
    assert "not valid TOML" in source.warnings[0]


def test_json_front_matter_is_read():
    text = '{\n  "title": "Queue stall",\n  "date": "2021-06-01",\n  "tags": ["queue"]\n}\nThe queue stalled.\n'
    source = ingest_bytes(text.encode(), "post.md")
    assert source.front_matter == {"title": "Queue stall", "date": "2021-06-01", "tags": "queue"}
    assert source.text[source.masked[0][1]:] == "The queue stalled.\n"


def test_yaml_lists_of_authors_and_tags_are_read():
    values, _, _ = parse_front_matter("---\ntitle: T\nauthors: [Ana, Bo]\ntags:\n  - dns\n---\nBody.\n")
    assert values["authors"] == "Ana, Bo" and values["tags"] == "dns"


def test_html_with_yaml_front_matter_reads_it_and_extracts_only_the_page():
    page = ("---\ntitle: \"Wallet alert\"\ndate: 2015-03-02\n---\n<div class=\"post-content\">\n"
            "<h2>What happened</h2>\n<p>A wallet release signed some transactions with a weak nonce, so funds "
            "could be taken by anyone who saw two of them.</p>\n<h2>What to do</h2>\n<p>Move your coins to a "
            "new address made by the fixed release.</p></div>\n")
    source = ingest_bytes(page.encode(), "_alerts/2015-03-02-wallet.html")
    assert source.front_matter["title"] == "Wallet alert" and source.front_matter["date"] == "2015-03-02"
    assert "---" not in source.text and "title:" not in source.text
    assert source.text.startswith("## What happened") and source.masked == []


def test_html_rendering_of_a_post_keeps_its_h1_and_date():
    page = ("<!doctype html><html><head><title>Blog</title></head><body><nav><a href='/'>Home</a></nav>"
            "<header><h1>Outage of the widget queue</h1><time datetime='2024-03-03'>March 3, 2024</time></header>"
            "<div class='post-content'><h2>Summary</h2><p>The widget queue stopped accepting jobs for forty "
            "minutes because a disk filled up and nobody was paged.</p><h2>Action items</h2>"
            "<ul><li>Add disk alerts to the paging rota</li></ul></div></body></html>")
    source = ingest_bytes(page.encode(), "post.html")
    assert source.text.startswith("# Outage of the widget queue\n\nMarch 3, 2024\n\n## Summary")


def test_an_xhtml_page_and_a_saved_page_are_html_whatever_their_name():
    # an XML declaration, or a browser's "saved from" comment, before the doctype or <html>
    body = b"<html><head><title>Queue outage</title></head><body><p>The queue stalled.</p></body></html>"
    xhtml = b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x">\n' + body
    saved = b"<!-- saved from url=(0040)https://example.org/blog/queue-outage -->\n" + body
    for raw in (xhtml, saved):
        assert is_html_page(raw) and detect_format("page.md", raw) == "html"
    # markdown opening with a comment is still markdown
    assert not is_html_page(b"<!-- draft -->\n# Queue outage\n\nThe queue stalled.\n")


def test_more_lines_than_the_analysis_can_hold_is_too_large_naming_the_count(tmp_path):
    from pmparse.ingest.read import MAX_LINES

    ok = tmp_path / "ok.md"
    ok.write_text("# Cache outage\n" + "- x\n" * (MAX_LINES - 2), encoding="utf-8")
    assert ingest(str(ok)).text.count("\n") == MAX_LINES - 1
    many = tmp_path / "many.md"
    many.write_text("# Cache outage\n" + "- x\n" * MAX_LINES, encoding="utf-8")
    with pytest.raises(TooLargeInputError) as caught:
        ingest(str(many))
    assert f"at most {MAX_LINES:,} lines" in str(caught.value) and "many.md" in str(caught.value)


def test_convert_fails_the_input_with_too_many_lines_and_goes_on(tmp_path):
    from click.testing import CliRunner

    from pmparse.cli import main
    from pmparse.ingest.read import MAX_LINES

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.md").write_text("# Cache outage\n\nThe cache failed for an hour.\n", encoding="utf-8")
    (tmp_path / "in" / "b.md").write_text("# Log\n" + "- x\n" * MAX_LINES, encoding="utf-8")
    result = CliRunner().invoke(main, ["convert", str(tmp_path / "in"), "-o", str(tmp_path / "lib")])
    assert result.exit_code == 1
    assert "b.md" in result.output and "lines of text" in result.output
    assert len(list((tmp_path / "lib").glob("IL-*"))) == 1


def test_the_line_cap_counts_lines_as_the_analysis_splits_them(tmp_path):
    from pmparse.ingest.read import MAX_LINES

    # a file of exactly the cap, each line ending in a newline, is within it
    full = tmp_path / "full.md"
    full.write_text("# Queue outage\n" + "- y\n" * (MAX_LINES - 1), encoding="utf-8")
    assert len(ingest(str(full)).text.splitlines()) == MAX_LINES
    # one more line, without a final newline, is counted as one line
    over = tmp_path / "over.md"
    over.write_text("# Queue outage\n" + "- y\n" * (MAX_LINES - 1) + "- y", encoding="utf-8")
    with pytest.raises(TooLargeInputError) as caught:
        ingest(str(over))
    assert f"found {MAX_LINES + 1:,}" in str(caught.value)


def test_a_small_file_is_read_without_reserving_room_for_the_largest(tmp_path):
    # read(max_bytes + 1) made Python reserve a buffer of --max-bytes (20 MiB by default) for every
    # input, whatever its size
    import tracemalloc

    from pmparse.ingest.read import read_bytes

    path = tmp_path / "short.md"
    path.write_bytes(b"# A stalled queue\n\nThe consumers stopped for ten minutes.\n" * 50)
    tracemalloc.start()
    try:
        raw = read_bytes(str(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert raw == path.read_bytes()
    assert peak < 1 << 20


def test_a_file_that_grows_past_the_limit_while_read_is_refused(tmp_path, monkeypatch):
    from pmparse.ingest import read as read_module

    path = tmp_path / "growing.md"
    path.write_bytes(b"x" * 100)
    real_stat = read_module.os.stat

    def stale_stat(location, *args, **kwargs):
        # the size as it was before another writer appended to the file
        result = real_stat(location, *args, **kwargs)
        return os.stat_result((*result[:6], 10, *result[7:]))

    monkeypatch.setattr(read_module.os, "stat", stale_stat)
    with pytest.raises(TooLargeInputError):
        read_module.read_bytes(str(path), max_bytes=50)
    assert read_module.read_bytes(str(path), max_bytes=200) == b"x" * 100
