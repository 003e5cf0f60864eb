"""Record files: YAML and JSON written and read back exactly, invalid records named, atomic writes,
keys given twice, alias bombs (a run killed between a record and its base: test_state.py)."""

from __future__ import annotations

import io
import json
import os

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import pmparse.library.store as record_module
from pmparse.card.build import build_card
from pmparse.card.schema import Card, Evidence, Item, Source
from pmparse.errors import RecordError
from pmparse.evaluation.corpus import incident_files
from pmparse.ingest.read import ingest
from pmparse.library import records
from pmparse.library.records import dumps, loads
from pmparse.library.store import Library
from pmparse.library.validate import validate_library
from pmparse.nlp.pipeline import analyse, get, pipeline_config, version_info
from pmparse.util import atomic_write
from tests.library.cards import AWKWARD, SHA, make_card


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_round_trip_is_lossless_and_stable(fmt):
    card = make_card(title="Multi\nline: text with 'quotes' and ünïcode")
    text = dumps(card, fmt)
    again = loads(text, fmt, "x")
    assert again == card
    assert dumps(again, fmt) == text


def _python_emitter_text(card: Card) -> str:
    """The record as PyYAML's pure-Python emitter writes it (what pmparse wrote before libyaml)."""
    return yaml.dump(records._flowed(records.card_data(card)), Dumper=records._Dumper, sort_keys=False,
                     allow_unicode=True, width=100, default_flow_style=False)


@pytest.mark.parametrize("text", AWKWARD)
def test_libyaml_writes_the_bytes_the_python_emitter_writes(text):
    card = make_card(title=text, lessons=[Item(text=text, evidence=[Evidence(start=0, end=9)], confidence=0.5)])
    assert dumps(card) == _python_emitter_text(card)
    assert loads(dumps(card), "yaml", "x") == card


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["a", " ", "\n", "\t", "\r", "\x00", "\x07", "\x1f", "\x7f", "\x80", "\x85", "\x9f",
                                 "\xa0", "é", "\u2028", "\u2029", "\ud7ff", "\ud800", "\ue000", "\ufeff", "\ufffd",
                                 "\ufffe", "\uffff", "\U00010000", "\U0010fffe", "\U0010ffff", "#", ":", "-", "'"]),
                max_size=12))
def test_the_quoting_check_reads_what_pyyaml_analyses(parts):
    """The three scans that decide whether a string keeps libyaml give PyYAML's own analysis."""
    import io

    text = "".join(parts)
    analysis = yaml.emitter.Emitter(io.StringIO(), allow_unicode=True).analyze_scalar(text)
    assert records._quotable(text, True) == analysis.allow_block or not text
    assert records._quotable(text, False) == analysis.allow_single_quoted


def test_records_are_written_without_libyaml_too(monkeypatch):
    monkeypatch.setattr(records, "_CDumper", None)  # a PyYAML built without it
    card = make_card(title=AWKWARD[0])
    assert dumps(card) == _python_emitter_text(card)


@pytest.mark.corpus
def test_libyaml_writes_the_python_emitters_bytes_for_corpus_records(corpus_root):
    """Every HTML document (its extracted text is the string most often double-quoted) and a
    spread of the others, through the pipeline: the record libyaml writes is PyYAML's, byte for byte."""
    files = incident_files(corpus_root, include_extra=True)
    html = [rel for _, rel in files if rel.endswith((".html", ".htm"))]
    chosen = html + [rel for _, rel in files if rel not in html][::8]
    nlp = get(pipeline_config())
    checked = 0
    for rel in chosen:
        source = ingest(str(corpus_root / rel))
        card = build_card(analyse(nlp, source), source, "IL-0001", version_info(nlp))
        assert dumps(card) == _python_emitter_text(card), rel
        # written as text, not handed back to PyYAML (a record's data is all the writer covers)
        assert records.yaml_text.dump_record(records._flowed(records.card_data(card)), 100) == dumps(card)
        checked += 1
    assert checked > 60


def test_yaml_keeps_schema_key_order():
    data = yaml.safe_load(dumps(make_card()))
    assert list(data)[:4] == ["schema_version", "id", "status", "title"]
    assert list(data) == list(json.loads(dumps(make_card(), "json")))


def test_invalid_record_names_field_and_reason():
    data = yaml.safe_load(dumps(make_card()))
    data["date"] = "March 2024"
    data["symptoms"][0]["confidence"] = 2
    with pytest.raises(RecordError) as info:
        loads(yaml.safe_dump(data), "yaml", "IL-0001.yaml")
    assert "date: Value error, expected YYYY-MM-DD or YYYY" in str(info.value)
    assert "symptoms.0.confidence" in str(info.value)
    # each problem with the line of its value, as validate gives it (review, convert and site
    # print this message for a record a person broke)
    text = yaml.safe_dump(data)
    lines = text.splitlines()
    date_line = next(i for i, line in enumerate(lines, 1) if line.startswith("date:"))
    assert f"line {date_line}: date: " in str(info.value)
    assert "line None" not in str(info.value)


def test_extra_keys_are_refused():
    data = json.loads(dumps(make_card(), "json"))
    data["surprise"] = 1
    with pytest.raises(RecordError, match="surprise"):
        loads(json.dumps(data), "json", "x")


def test_ids_follow_the_highest_in_the_library(tmp_path):
    library = Library.open(tmp_path)
    assert library.next_id() == "IL-0001"
    library.write(make_card("IL-0007"), "yaml")
    (tmp_path / "IL-0009.yaml").write_text("not: [valid", encoding="utf-8")
    library = Library.open(tmp_path)
    assert library.next_id() == "IL-0010"
    assert library.find(SHA, "elsewhere").id == "IL-0007"
    assert library.find("b" * 64, "reports/x.md").id == "IL-0007"


def test_validate_reports_every_problem(tmp_path):
    library = Library.open(tmp_path)
    library.write(make_card("IL-0001"), "yaml")
    bad = yaml.safe_load(dumps(make_card("IL-0002")))
    bad["components"] = ["Not An Id"]
    bad["symptoms"][0]["evidence"] = [{"start": 5, "end": 2}]
    (tmp_path / "IL-0002.yaml").write_text(yaml.safe_dump(bad), encoding="utf-8")
    (tmp_path / "IL-0003.json").write_text(dumps(make_card("IL-0004"), "json"), encoding="utf-8")
    checked, problems = validate_library(tmp_path)
    lines = [str(p) for p in problems]
    assert checked == 3
    text = (tmp_path / "IL-0002.yaml").read_text(encoding="utf-8").splitlines()
    components = 1 + next(n for n, line in enumerate(text) if line.startswith("- Not An Id"))
    assert any(line.startswith(f"IL-0002.yaml:{components}: components: ") and "Not An Id" in line
               for line in lines)
    assert any(line.startswith("IL-0002.yaml:") and ": symptoms.0.evidence.0: " in line for line in lines)
    assert "IL-0003.json: id: expected IL-0003 (the file name), found IL-0004" in lines
    assert not any(line.startswith("IL-0001") for line in lines)


def test_validate_checks_offsets_against_extracted_text(tmp_path):
    card = make_card().model_copy(update={"source": Source(location="https://x.test/p", sha256=SHA, format="html",
                                                           extracted_text="short text")})
    Library.open(tmp_path).write(card, "yaml")
    _, problems = validate_library(tmp_path)
    assert any("ends past the text" in p.reason for p in problems)


def test_atomic_write_leaves_old_file_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "IL-0001.yaml"
    atomic_write(target, "old\n")

    def boom(*_):
        raise OSError("disk full")

    monkeypatch.setattr("os.replace", boom)
    with pytest.raises(OSError):
        atomic_write(target, "new\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["IL-0001.yaml"]


def test_atomic_write_gives_records_normal_permissions(tmp_path):
    import os

    old = os.umask(0o022)
    try:
        target = tmp_path / "IL-0001.yaml"
        atomic_write(target, "a\n")
        assert target.stat().st_mode & 0o777 == 0o644
        os.chmod(target, 0o664)
        atomic_write(target, "b\n")
        assert target.stat().st_mode & 0o777 == 0o664
    finally:
        os.umask(old)


def test_a_broken_json_record_is_known_by_its_source_block_not_by_an_evidence_marker():
    from pmparse.library.records import _salvage_source_json

    old, new = "a" * 64, "b" * 64
    text = ('{"id": "IL-0001", "root_cause": [{"text": "x", "evidence": [{"start": 1, "end": 2, "sha256": "%s"}]}],\n'
            ' "source": {"location": "pm/a.md", "url": null, "sha256": "%s", "format": "md"},,\n'
            ' "pipeline": {"version": "0.1.0"}}' % (old, new))
    assert _salvage_source_json(text) == (new, "pm/a.md")
    assert _salvage_source_json('{"id": "IL-0001",, "sha256": "%s"}' % new) == (None, None)


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_a_key_given_twice_makes_the_record_invalid_and_names_it(fmt):
    text = dumps(make_card(), fmt)
    if fmt == "yaml":
        doubled = "title: A person's own title\n" + text.replace("title: null\n", "title: Another\n")
        expected = r"found a key given twice at line \d+: .*'title' again \(first at line 1"
        with pytest.raises(RecordError, match=expected):
            loads(doubled, fmt, "IL-0001.yaml")
    else:
        doubled = text.replace('"id": "IL-0001",', '"id": "IL-0001",\n  "title": "A person\'s own title",', 1)
        with pytest.raises(RecordError, match="expected each key once in an object, found 'title' twice"):
            loads(doubled, fmt, "IL-0001.json")


def test_validate_names_the_line_of_a_key_given_twice(tmp_path):
    text = dumps(make_card())
    (tmp_path / "IL-0001.yaml").write_text("title: Mine\n" + text, encoding="utf-8")
    checked, problems = validate_library(tmp_path)
    line = 1 + text.splitlines().index("title: null") + 1
    assert checked == 1 and len(problems) == 1 and problems[0].line == line
    assert "'title' again (first at line 1" in problems[0].reason


def test_convert_never_rewrites_a_record_with_a_key_given_twice(tmp_path):
    from pmparse.batch.convert import convert

    source = tmp_path / "outage.md"
    source.write_text("# Queue outage\n\n## Root cause\n\nA lease timeout of zero returned every job.\n",
                      encoding="utf-8")
    convert([str(source)], tmp_path / "lib", config=pipeline_config(rules_only=True), jobs=1)
    record = tmp_path / "lib" / "IL-0001.yaml"
    edited = "title: The title a person chose\n" + record.read_text(encoding="utf-8")
    record.write_text(edited, encoding="utf-8")
    source.write_text(source.read_text(encoding="utf-8") + "\n## Impact\n\nJobs waited an hour.\n", encoding="utf-8")
    report = convert([str(source)], tmp_path / "lib", config=pipeline_config(rules_only=True), jobs=1)
    assert report.counts["updated"] == 0 and report.counts["pending"] == 1, report.counts
    assert record.read_text(encoding="utf-8") == edited
    assert sorted(p.name for p in (tmp_path / "lib").glob("IL-*")) == ["IL-0001.yaml"]


def test_the_node_shortcut_writes_what_pyyaml_writes():
    """Records' nodes are made without PyYAML's representer; its own dump gives the same text,
    and data the shortcut does not cover (a list met twice: an alias) goes through PyYAML."""
    card = make_card(title=AWKWARD[3], lessons=[Item(text=AWKWARD[0], evidence=[Evidence(start=0, end=9)], confidence=0.5)])
    data = records._flowed(records.card_data(card))
    options = {"sort_keys": False, "allow_unicode": True, "default_flow_style": False, "width": 100}
    assert records._dump_libyaml(data, 100) == yaml.dump(data, Dumper=records._CDumper, **options)
    shared = [1, 2.5, None, True, "x"]
    twice = {"a": shared, "b": shared}
    with pytest.raises(records._SharedContainer):
        records._dump_libyaml(twice, 100)
    assert records._dump(twice, width=100) == yaml.dump(twice, Dumper=records._CDumper, **options)
    assert "&id001" in records._dump(twice, width=100)


_JSON_SCALARS = (st.text(max_size=8) | st.integers() | st.floats() | st.booleans() | st.none()
                 | st.sampled_from(["\u2028", "\ud800", "\x00", "é\U0001F525", '"\\', "\t\n"]))


@settings(max_examples=300, deadline=None)
@given(st.recursive(_JSON_SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=4), inner, max_size=4), max_leaves=25))
def test_the_json_writer_gives_the_standard_encoders_text(data):
    """A record's JSON is built container by container; the text is ``json.dumps``'s, NaN and
    infinities included (those go through ``json.dumps`` itself)."""
    assert records._json_text(data) == json.dumps(data, ensure_ascii=False, indent=2)


def test_the_json_writer_hands_other_data_to_the_standard_encoder():
    for data in ({1: "a"}, ("a", 1), {"x": float("nan")}, [1.5, {"k": (2,)}]):
        assert records._json_text(data) == json.dumps(data, ensure_ascii=False, indent=2)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=6) | st.sampled_from(["yes", "No", "~", "null", "1.5", "0x1f", "1e3", ".inf", "-.NaN",
                                               "2026-12-06", "12:30", "<<", "=", "0o17", "+1", "_1"]))
def test_the_remembered_tags_are_pyyamls(value):
    """libyaml's serializer asks the dumper for a scalar's tag; the remembered answer is the
    resolver's own, asked again or not."""
    dumper = records._CDumper(io.StringIO())
    plain = yaml.resolver.Resolver()
    for implicit in ((True, False), (False, True), (True, False)):
        assert dumper.resolve(yaml.ScalarNode, value, implicit) == plain.resolve(yaml.ScalarNode, value, implicit)
    assert dumper.resolve(yaml.MappingNode, None, (True, False)) == plain.resolve(yaml.MappingNode, None, (True, False))


def test_a_record_and_its_base_come_from_one_reading_of_the_card(tmp_path, monkeypatch):
    """Writing a record reads the card's data once for the record and its base (intent)."""
    calls = []
    real = records.card_data
    monkeypatch.setattr(record_module, "card_data", lambda card: calls.append(card.id) or real(card))
    library = Library(tmp_path)
    card = make_card()
    path = library.write(card, "yaml")
    assert calls == [card.id]
    assert loads(path.read_text(encoding="utf-8"), "yaml", "x") == card
    assert loads(library.state_path("base", card.id).read_text(encoding="utf-8"), "json", "x") == card


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_a_deeply_nested_value_is_a_record_error_not_a_crash(fmt):
    """A value nested deeper than the YAML composer's recursion can follow (but that the record
    loader reads) is refused in one RecordError, only without its line: finding the line must not
    turn a broken record into a traceback that stops every command reading the library."""
    nested = "[" * 900 + "]" * 900
    text = f"title: {nested}\n" if fmt == "yaml" else f'{{"title": {nested}}}'
    with pytest.raises(RecordError) as info:
        loads(text, fmt, "IL-0001")
    assert "title: " in str(info.value)


def _alias_bomb(width: int = 4000) -> str:
    """A record of about 270 kB whose aliases reuse one list of ``width`` evidence stretches in
    ``width`` items: ``width ** 2`` values once expanded (16 million here)."""
    text = dumps(make_card())
    spans = "[" + ", ".join(f"{{start: {i}, end: {i + 1}}}" for i in range(width)) + "]"
    items = ", ".join(["{text: b, evidence: *ev, confidence: 0.5}"] * width)
    bomb = f"trigger: [{{text: a, evidence: &ev {spans}, confidence: 0.5}}, {items}]\n"
    assert "trigger: []\n" in text
    return text.replace("trigger: []\n", bomb)


def test_a_record_whose_aliases_expand_past_its_size_is_refused_quickly():
    # a hand-edited or shared record is read by validate, diff, review, site and export: its
    # aliases must not make a 150 kB file millions of values (a 1.3 MB one took over 7 GB)
    # measured in memory, not seconds (a timed bound failed under a loaded machine): expanded, the
    # 16 million values would take gigabytes; refused before, about 20 MB
    import tracemalloc

    text = _alias_bomb()
    tracemalloc.start()
    try:
        with pytest.raises(RecordError, match=r"aliases.*expand"):
            loads(text, "yaml", "IL-0001.yaml")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 * 2**20


@pytest.mark.parametrize("value", ["&t [*t]", '[{"x":&t [*t]}]'])
def test_a_record_that_refers_to_itself_is_refused(value):
    # the second: an anchor right after a flow mapping's colon, which YAML readers take
    text = dumps(make_card()).replace("trigger: []\n", f"trigger: {value}\n")
    with pytest.raises(RecordError, match="aliases"):
        loads(text, "yaml", "IL-0001.yaml")


def test_a_record_sharing_a_value_through_an_alias_still_reads():
    # an anchor a person uses to repeat a value costs no more than writing it out
    text = dumps(make_card()).replace("action_items:\n", "action_items: &same\n").replace("lessons: []", "lessons: *same")
    card = loads(text, "yaml", "IL-0001.yaml")
    assert card.lessons == card.action_items and card.lessons


def _peak_memory(call):
    """What ``call()`` returns, and the most memory Python held while it ran (tracemalloc)."""
    import tracemalloc

    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_validate_names_an_alias_bomb_and_goes_on(tmp_path):
    # refused before anything expands: its million evidence stretches written out made validate
    # hold about 470 MiB more than for a plain record in their place; refused, under one more.
    # Compared with a plain record because reading any record reserves its read limit (128 MiB)
    plain, bomb = tmp_path / "plain", tmp_path / "bomb"
    for folder, text in ((plain, dumps(make_card())), (bomb, _alias_bomb(1000))):
        folder.mkdir()
        (folder / "IL-0001.yaml").write_text(text, encoding="utf-8")
        (folder / "IL-0002.yaml").write_text(dumps(make_card("IL-0002")), encoding="utf-8")
    assert _peak_memory(lambda: validate_library(plain))[0] == (2, [])
    (checked, problems), peak = _peak_memory(lambda: validate_library(bomb))
    assert peak - _peak_memory(lambda: validate_library(plain))[1] < 16 * 2**20
    assert checked == 2
    assert [p.file for p in problems] == ["IL-0001.yaml"]
    assert "expand" in str(problems[0])


def _invalid_items(tmp_path, monkeypatch, n: int) -> tuple[int, str, list, int]:
    """A record of ``n`` invalid items (``trigger: [1, 1, ...]``) read by loads and by validate:
    the line of its items, loads' error, validate's problems and how many times the text was
    composed to find their lines."""
    text = dumps(make_card()).replace("trigger: []\n", "trigger: [" + ", ".join(["1"] * n) + "]\n")
    line = text[:text.index("trigger:")].count("\n") + 1
    real, composed = yaml.compose, []
    monkeypatch.setattr(yaml, "compose", lambda *args, **kwargs: composed.append(1) or real(*args, **kwargs))
    with pytest.raises(RecordError) as info:
        loads(text, "yaml", "IL-0001.yaml")
    folder = tmp_path / str(n)
    folder.mkdir()
    (folder / "IL-0001.yaml").write_text(text, encoding="utf-8")
    _, problems = validate_library(folder)
    monkeypatch.setattr(yaml, "compose", real)
    return line, str(info.value), problems, len(composed)


def test_a_record_of_many_invalid_items_is_named_in_linear_time(tmp_path, monkeypatch):
    # each problem's line was found by composing the whole text again: 20,000 invalid items in a
    # 41 kB record kept validate busy for over a minute. The compositions are counted at n and 4n
    # items: the same few (one now: loads and validate share it), not one per problem
    counts = []
    for n in (500, 2_000):
        line, error, problems, composed = _invalid_items(tmp_path, monkeypatch, n)
        assert f"line {line}: trigger.{n - 1}: Input should be a valid dictionary" in error
        assert len(problems) == n and {p.line for p in problems} == {line}
        assert composed <= 2, (n, composed)  # at once: one per problem takes minutes at 2,000
        counts.append(composed)
    assert counts[0] == counts[1], counts


@pytest.mark.parametrize("style", ["literal", "folded", "double", "single"])
def test_openers_inside_scalars_are_never_counted_as_nesting(style):
    """The depth check (libyaml crashed past 50,000 levels) counts ``[``, ``{``, ``- ``, ``? ``
    first and then measures real depth on parser events: a postmortem quoting JSON, a shell
    pipeline or a markdown list thousands of times inside one text must load as written."""
    quoted = '{"a": [1, [2, {"b": [3]}]]} - - ? x [[ {{ ' * 1500  # 19,500 openers in one scalar
    text = dumps(make_card(), "yaml")
    if style == "literal":  # a markdown list quoted line by line
        value = "|-\n" + "\n".join("    - " + quoted[i:i + 60] for i in range(0, len(quoted), 60))
    elif style == "folded":
        value = ">-\n" + "\n".join("    " + quoted[i:i + 60].strip() for i in range(0, len(quoted), 60))
    elif style == "double":
        value = json.dumps(quoted)
    else:
        value = "'" + quoted.replace("'", "''") + "'"
    old = "text: Checkout failed for a third of users."
    assert old in text
    text = text.replace(old, "text: " + value, 1)
    assert sum(text.count(o) for o in ("[", "{", "- ", "? ")) > 10_000
    card = loads(text, "yaml", "IL-0001")
    said = card.symptoms[0].text
    assert said.count("[") == quoted.count("[") and said.count("{") == quoted.count("{")
