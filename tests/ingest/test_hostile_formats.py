"""Fifth round of hostile inputs: the front matter of the newer readers (``.mdx``, ``.qmd``,
``.markdown``) in YAML, TOML and JSON, read safely and never in silence."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pmparse.cli import main
from pmparse.ingest.read import MAX_FRONT_MATTER, ingest_bytes

BODY = "\n# Queue outage\n\n## Root cause\n\nA configuration push lowered the worker limit of the pool to zero.\n"
DIGITS = "7" * 6000  # past Python's 4,300-digit limit on turning an int into text

#: Front matter whose numbers are too large to write as text: each failed the file as 'internal'.
#: The number is passed over; TOML's reader refuses a decimal one, so that block is ignored with a warning.
BIG_NUMBERS = {
    "yaml sexagesimal": "---\ntitle: Queue outage\nn: 1" + ":59" * 3000 + "\n---\n",
    "yaml hex": "---\ntitle: Queue outage\nn: 0x" + "f" * 4000 + "\n---\n",
    "toml": f'+++\ntitle = "Queue outage"\nn = {DIGITS}\n+++\n',
    "toml hex": '+++\ntitle = "Queue outage"\nn = 0x' + "f" * 4000 + "\n+++\n",
    "toml list": f'+++\ntitle = "Queue outage"\nn = [1, 0x{"f" * 4000}]\n+++\n',
    "json": f'{{\n"title": "Queue outage", "n": {DIGITS}\n}}\n',
}


@pytest.mark.parametrize("name", list(BIG_NUMBERS))
def test_a_number_too_large_to_write_is_passed_over(name):
    head = BIG_NUMBERS[name]
    source = ingest_bytes((head + BODY).encode(), "post.mdx")
    if name == "toml":
        assert source.front_matter == {} and "not valid TOML" in source.warnings[0]
    else:
        assert source.front_matter.get("title") == "Queue outage"
        assert source.front_matter.get("n") == ("1" if name == "toml list" else None)  # the list's other items stay
    assert source.masked and source.text[source.masked[0][1]:] == BODY


#: Front matter nested past any reader's recursion: each failed the whole file as 'malformed'.
DEEP = {
    "toml array": '+++\ntitle = "Queue outage"\nx = ' + "[" * 20000 + "]" * 20000 + "\n+++\n",
    "toml inline table": '+++\ntitle = "Queue outage"\nx = ' + "{a=" * 3000 + "1" + "}" * 3000 + "\n+++\n",
    "json array": '{\n"title": "Queue outage", "x": ' + "[" * 20000 + "]" * 20000 + "\n}\n",
    "json object": '{\n"title": "Queue outage", "x": ' + '{"a":' * 5000 + "1" + "}" * 5000 + "\n}\n",
}


@pytest.mark.parametrize("name", list(DEEP))
def test_front_matter_nested_too_deeply_is_masked_with_a_warning(name):
    head = DEEP[name]
    source = ingest_bytes((head + BODY).encode(), "post.qmd")
    assert any("nested too deeply" in warning for warning in source.warnings), source.warnings
    assert source.masked[0] == (0, len(head)) and source.text[len(head):] == BODY


def test_json_braces_inside_strings_do_not_count_as_nesting():
    head = '{\n"title": "Queue } outage", "note": "' + "[{" * 3000 + '\\" ]", "x": ' + "[" * 5000 + "]" * 5000 + "\n}\n"
    source = ingest_bytes((head + BODY).encode(), "post.mdx")
    assert source.masked[0] == (0, len(head))


@pytest.mark.parametrize("opening, key, closing", [("---", "k{}: v", "---"), ("+++", 'k{} = "v"', "+++")])
def test_front_matter_over_the_limit_is_masked_not_read_as_text(opening, key, closing):
    lines = "\n".join(key.format(i) for i in range(MAX_FRONT_MATTER // 8))
    head = f"{opening}\ntitle: Queue outage\n{lines}\n{closing}\n" if opening == "---" else \
        f'{opening}\ntitle = "Queue outage"\n{lines}\n{closing}\n'
    source = ingest_bytes((head + BODY).encode(), "post.markdown")
    # it said the block was never closed, and its keys were read as the report's prose
    assert source.masked[0] == (0, len(head))
    # a YAML block's first 64 KiB are read (its title kept), a TOML block's not at all
    assert source.front_matter.get("title") == ("Queue outage" if opening == "---" else None)
    assert any(f"more than {MAX_FRONT_MATTER:,} characters" in warning for warning in source.warnings)
    assert not any("closes it" in warning for warning in source.warnings)


@pytest.mark.parametrize("head", ["---\ntitle: " + "A" * 100_000 + "\n---\n",
                                  '+++\ntitle = "' + "A" * 100_000 + '"\n+++\n',
                                  '{\n"title": "' + "A" * 100_000 + '"\n}\n',
                                  '{\n"title": "T", "x": ' + "[" * 40_000 + "]" * 40_000 + "\n}\n"],
                         ids=["yaml", "toml", "json", "json nested"])
def test_a_long_title_alone_is_masked_too(head):
    # the JSON block was read as the report's text, without a word
    source = ingest_bytes((head + BODY).encode(), "post.mdx")
    assert source.masked[0] == (0, len(head)) and "title" not in source.front_matter
    assert "more than 65,536 characters" in source.warnings[0]


def test_a_thematic_break_and_prose_past_the_limit_stay_text():
    text = "---\n\n" + "Some words of prose here.\n" * 5000 + "\n---\n" + BODY
    source = ingest_bytes(text.encode(), "post.md")
    assert source.masked == [] and source.warnings == []
    # a block left open, then a long report with a thematic break: the report is not masked
    text = "---\ntitle: Queue outage\n\n" + "Some words of prose here.\n" * 5000 + "\n---\n" + BODY
    source = ingest_bytes(text.encode(), "post.md")
    assert source.masked == [] and "no '---' line closes it" in source.warnings[0]


TAGGED = {
    "python apply on a list": '---\ntitle: !!python/object/apply:os.system ["touch /tmp/x"]\n---\n',
    "python name": "---\ntitle: !!python/name:os.system\n---\n",
    "local tag": "---\ntitle: !vault secret\n---\n",
    "tagged list item": "---\ntitle: [Ana, !vault secret]\n---\n",
    "set": "---\ntitle: !!set {a, b}\n---\n",
}


@pytest.mark.parametrize("name", list(TAGGED))
def test_a_tagged_value_is_not_read(name):
    # the warning says a tag's value is ignored: it was read all the same ('touch /tmp/x' as the title)
    source = ingest_bytes((TAGGED[name] + BODY).encode(), "post.mdx")
    assert "title" not in source.front_matter, source.front_matter
    assert any("YAML tags" in warning for warning in source.warnings), source.warnings


def test_standard_tags_are_still_read():
    head = "---\ntitle: !!str 2024\ndate: !!timestamp 2024-03-02\nauthors: !!seq [Ana, !!str Bo]\nplain: ! text\n---\n"
    values = ingest_bytes((head + BODY).encode(), "post.mdx").front_matter
    assert values == {"title": "2024", "date": "2024-03-02", "authors": "Ana, Bo", "plain": "text"}


def test_convert_goes_on_past_hostile_front_matter(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for index, head in enumerate([*BIG_NUMBERS.values(), *DEEP.values()]):
        (folder / f"report-{index}.{('mdx', 'qmd', 'markdown')[index % 3]}").write_text(head + BODY)
    result = CliRunner().invoke(main, ["convert", str(folder), "-o", str(tmp_path / "lib"), "--jobs", "1",
                                       "--no-progress"])
    assert result.exit_code == 0, result.output
    assert f"{len(BIG_NUMBERS) + len(DEEP)} converted" in result.output
    assert "internal" not in result.output and "malformed" not in result.output


_WATCHED: list[tuple[str, tuple]] = []
_WATCHING = [False]


def _audit(event: str, args: tuple) -> None:
    # an audit hook cannot be removed: it records only while a test asks it to
    if _WATCHING[0] and (event in ("open", "socket.connect", "socket.getaddrinfo", "subprocess.Popen", "os.system",
                                   "os.exec", "os.posix_spawn", "os.fork", "urllib.Request")):
        _WATCHED.append((event, args))


def test_directives_that_include_fetch_or_run_are_only_text(tmp_path):
    """rst, AsciiDoc, MDX and Quarto directives that would read a file, fetch an address or run
    code in their own tools: pmparse reads none of them, fetches nothing and runs nothing."""
    import sys

    from pmparse.batch.pool import Task, analyse_task
    from pmparse.nlp.pipeline import PipelineConfig, get

    secret = tmp_path / "secret.txt"
    secret.write_text("a private line\n")
    address = "http://127.0.0.1:9/x"
    pages = {
        "a.rst": (f"Queue outage\n============\n\n:date: 2031-03-04\n\n.. include:: {secret}\n\n.. raw:: html\n"
                  f"   :file: {secret}\n\n.. raw:: html\n   :url: {address}\n\n.. image:: {address}.png\n\n"
                  ".. |sub| replace:: WORDS\n\nText |sub| here.\n"),
        "b.adoc": (f"= Queue outage\n:date: 2031-03-04\n:imagesdir: {address}\n\ninclude::{secret}[]\n\n"
                   f"include::{address}.adoc[]\n\nimage::{address}.png[]\n"),
        "c.mdx": (f"---\ntitle: Queue outage\n---\nimport Data from '{secret}'\nimport {{x}} from '{address}.js'\n\n"
                  f"<Chart data={{Data}} onLoad={{() => fetch('{address}')}} />\n"),
        "d.qmd": (f"---\ntitle: Queue outage\n---\n\n{{{{< include {secret} >}}}}\n\n```{{python}}\n"
                  f"import os; os.system('touch {tmp_path}/ran')\n```\n\n{{{{< embed {address}.ipynb#cell >}}}}\n"),
    }
    config = PipelineConfig()
    get(config)  # the models are opened before watching
    sys.addaudithook(_audit)
    outcomes = []
    for name, text in pages.items():
        (tmp_path / name).write_text(text + BODY)
        _WATCHED.clear()
        _WATCHING[0] = True
        try:
            outcomes.append(analyse_task(Task(location=str(tmp_path / name)), config, 1 << 20))
        finally:
            _WATCHING[0] = False
        opened = {str(args[0]) for event, args in _WATCHED if event == "open" and isinstance(args[0], str)}
        assert str(tmp_path / name) in opened  # the hook sees the file read: it would see another
        assert str(secret) not in opened and not (tmp_path / "ran").exists(), name
        assert [event for event, _ in _WATCHED if event != "open"] == [], name
    assert [outcome.kind for outcome in outcomes] == ["card"] * len(pages)


# Second review of the fifth round (rev-14c): inputs that still failed a file as 'internal', values read
# while the warning said they were ignored, and masking that hid a report's text.

#: Front matter whose only content is one scalar YAML builds with an error: the file failed 'internal'.
NOT_A_MAPPING = {
    "huge integer": ("---\n" + DIGITS + "\n---\n", "a int"),
    "impossible date": ("---\n2021-02-30\n---\n", "a timestamp"),
}


@pytest.mark.parametrize("name", list(NOT_A_MAPPING))
def test_a_scalar_block_yaml_cannot_build_is_a_warning(name):
    head, kind = NOT_A_MAPPING[name]
    source = ingest_bytes((head + BODY).encode(), "post.md")
    assert source.front_matter == {} and source.masked[0] == (0, len(head))
    assert source.warnings == [f"front matter is {kind}, expected a mapping; ignored"]


@pytest.mark.parametrize("value", ["!!bool maybe", "!!timestamp soon", "!!int ''", "!!float ''", "!!int abc"])
def test_a_standard_tag_on_a_value_it_cannot_build_keeps_the_text(value):
    # '!!bool maybe' raised KeyError, '!!timestamp soon' AttributeError, "!!int ''" IndexError: 'internal'
    head = f"---\ntitle: Queue outage\nfield: {value}\n---\n"
    source = ingest_bytes((head + BODY).encode(), "post.md")
    assert source.front_matter["title"] == "Queue outage" and source.masked[0] == (0, len(head))


@pytest.mark.parametrize("head, expected", [
    ('---\ntitle: "\\ud800 outage"\n---\n', "\ufffd outage"),
    ('---\ntitle: "Queue \\ud83d\\ude80 outage"\n---\n', "Queue \U0001f680 outage"),
    ('{\n"title": "\\udc00 outage"\n}\n', "\ufffd outage"),
    ('{\n"title": "Queue", "authors": ["Ana", "\\ud83d"]\n}\n', "Ana, \ufffd"),
], ids=["yaml lone", "yaml escaped pair", "json lone", "json list"])
def test_an_escaped_surrogate_is_replaced_not_kept(head, expected):
    # a lone surrogate cannot be written as UTF-8: the card failed validation, the file 'internal'
    values = ingest_bytes((head + BODY).encode(), "post.md").front_matter
    assert expected in values.values(), values
    for text in values.values():
        text.encode("utf-8")


def test_escaped_surrogates_convert(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.md").write_text('---\ntitle: "\\ud800 outage"\n---\n' + BODY)
    (folder / "b.md").write_text('{\n"title": "x", "organization": "\\udc00"\n}\n' + BODY)
    result = CliRunner().invoke(main, ["convert", str(folder), "-o", str(tmp_path / "lib"), "--jobs", "1",
                                       "--no-progress"])
    assert result.exit_code == 0 and "2 converted" in result.output, result.output


@pytest.mark.parametrize("head", ["---\n!vault\ntitle: Secret\n---\n", "---\n!!python/object:os.X\ntitle: Secret\n---\n"])
def test_a_tagged_mapping_is_not_read(head):
    # its keys were read as the card's while the warning said the tag's value is ignored
    source = ingest_bytes((head + BODY).encode(), "post.md")
    assert source.front_matter == {} and source.masked[0] == (0, len(head))
    assert any("YAML tags" in warning for warning in source.warnings), source.warnings


@pytest.mark.parametrize("head", ["---\ntitle: ! Queue outage\n---\n",
                                  "---\ntitle: !<tag:yaml.org,2002:str> Queue outage\n---\n",
                                  "---\ntitle: Queue outage\nauthors: !!seq [Ana, Bo]\n---\n",
                                  "---\n!!map\ntitle: Queue outage\n---\n"])
def test_a_standard_tag_that_is_read_is_not_said_to_be_ignored(head):
    source = ingest_bytes((head + BODY).encode(), "post.md")
    assert source.front_matter["title"] == "Queue outage"
    assert source.warnings == []


def test_a_bom_before_yaml_past_the_limit_reads_as_without():
    head = "---\ntitle: " + "A" * 100_000 + "\n---\n"
    plain = ingest_bytes((head + BODY).encode(), "post.md")
    bom = ingest_bytes(("\ufeff" + head + BODY).encode(), "post.md")
    assert bom.masked == [(0, len(head) + 1)] and plain.masked == [(0, len(head))]
    assert len(bom.warnings) == len(plain.warnings) == 1 and "more than 65,536" in bom.warnings[0]
    # and a block never closed says so, with a BOM or without
    unclosed = ingest_bytes(("\ufeff---\ntitle: Queue outage\n" + BODY).encode(), "post.md")
    assert unclosed.masked == [] and "no '---' line closes it" in unclosed.warnings[0]


def test_prose_between_an_open_toml_block_and_a_later_plus_line_stays_text():
    # a TOML block left open, then a long report holding a '+++' line: the report was masked
    text = '+++\ntitle = "Queue outage"\n\n' + "Some words of prose here.\n" * 5000 + "+++\n" + BODY
    source = ingest_bytes(text.encode(), "post.md")
    assert source.masked == [] and source.front_matter == {}
    # a TOML block of keys, tables and comments past the limit is still masked
    head = '+++\ntitle = "Queue outage"\n# keys\n[extra]\n' + "".join(f'k{i} = "v"\n' for i in range(9000)) + "+++\n"
    source = ingest_bytes((head + BODY).encode(), "post.md")
    assert source.masked == [(0, len(head))] and "more than 65,536" in source.warnings[0]


def _long_yaml(tail: str) -> str:
    """A YAML block of a title and a date, then ``tail`` running it past the limit."""
    return "---\ntitle: Queue outage\ndate: 2024-03-02\n" + tail + "\n---\n"


@pytest.mark.parametrize("tail", [
    "aliases:\n" + "".join(f"  - /old/path/{i}/\n" for i in range(6000)),  # a long list of redirects
    "summary: " + "word " * 20_000,  # a huge scalar
    "summary: |\n" + "  a line of a literal block\n" * 4000,  # a huge block scalar
    "summary: \"" + "quoted words " * 8000 + "\"",  # a quoted scalar cut by the limit
    "tree: " + "[" * 40_000 + "]" * 40_000,  # flow nesting cut by the limit
    "tree:\n" + "".join("  " * i + f"k{i}:\n" for i in range(300)) + "x: 1",  # block nesting past the depth
    "base: &a [x, x, x]\n" + "".join(f"b{i}: &b{i} [*{'a' if i == 0 else f'b{i - 1}'}, *a]\n" for i in range(3000)),
    "cmd: !!python/object/apply:os.system [\"touch /tmp/pwned\"]\n" + "k: v\n" * 20_000,
], ids=["list", "scalar", "block scalar", "quoted", "flow nesting", "block nesting", "aliases", "tag"])
def test_the_first_64_kib_of_a_yaml_block_past_the_limit_give_its_title_and_date(tail):
    head = _long_yaml(tail)
    assert len(head) > MAX_FRONT_MATTER
    source = ingest_bytes((head + BODY).encode(), "post.md")
    # the whole block was masked, its title and date lost
    assert source.masked[0] == (0, len(head))
    assert source.front_matter.get("title") == "Queue outage" and source.front_matter.get("date") == "2024-03-02"
    assert "cmd" not in source.front_matter and "tree" not in source.front_matter
    assert any("first 65,536 are read" in warning for warning in source.warnings)


@pytest.mark.parametrize("head", [
    "---\ntitle: \"" + "quoted\n" * 20_000 + "\"\n---\n",  # the title itself cut by the limit
    "---\n" + "[" * 70_000 + "\n---\n",  # no key at all
    "---\ntitle: " + "A" * 100_000 + "\nlater: x\n---\n",  # the first key runs past the limit
])
def test_a_yaml_block_past_the_limit_whose_start_reads_as_nothing_gives_nothing(head):
    source = ingest_bytes((head + BODY).encode(), "post.md")
    assert "title" not in source.front_matter


def test_an_unclosed_yaml_block_past_the_limit_is_still_text():
    text = "---\ntitle: Queue outage\n" + "".join(f"k{i}: v\n" for i in range(9000)) + BODY
    source = ingest_bytes(text.encode(), "post.md")
    assert source.masked == [] and source.front_matter == {} and "closes it" in source.warnings[0]
