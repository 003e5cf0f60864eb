from __future__ import annotations

import json

import yaml

from click.testing import CliRunner

from pmparse.card.schema import Card
from pmparse.cli import main
from pmparse.library.records import dumps
from tests.helpers import sample_library


def test_site_builds_then_rebuilds_nothing(tmp_path):
    lib = sample_library(tmp_path / "lib")
    runner = CliRunner()
    result = runner.invoke(main, ["site", str(lib), "-o", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert "3 cards, 3 pages rendered; " in result.output and (tmp_path / "site" / "index.html").is_file()
    result = runner.invoke(main, ["site", str(lib), "-o", str(tmp_path / "site")])
    assert "3 cards, 0 pages rendered; 0 files written" in result.output and result.exit_code == 0
    (lib / "IL-0001.yaml").write_text("id: [\n", encoding="utf-8")
    result = runner.invoke(main, ["site", str(lib), "-o", str(tmp_path / "site")])
    assert result.exit_code == 1 and "invalid: " in result.output
    result = runner.invoke(main, ["site", str(tmp_path / "nothing"), "-o", str(tmp_path / "site2")])
    assert result.exit_code == 2 and "expected a library folder" in result.output


def test_export_to_stdout_and_to_a_file(tmp_path):
    lib = sample_library(tmp_path / "lib")
    runner = CliRunner()
    result = runner.invoke(main, ["export", str(lib)])
    assert result.exit_code == 0
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert [r["id"] for r in rows] == ["IL-0001", "IL-0002", "IL-0003"] and rows[0]["schema_version"] == 1
    result = runner.invoke(main, ["export", str(lib), "--format", "csv", "-o", str(tmp_path / "cards.csv")])
    assert result.exit_code == 0 and result.output == ""
    assert (tmp_path / "cards.csv").read_text(encoding="utf-8").startswith("schema_version,id,status,")
    result = runner.invoke(main, ["export", str(lib), "--format", "xml"])
    assert result.exit_code == 2


def test_validate_export_and_site_agree_on_an_item_whose_evidence_no_longer_says_its_words(tmp_path):
    lib = sample_library(tmp_path / "lib")
    record = lib / "IL-0002.yaml"
    text = record.read_text(encoding="utf-8")
    first = next(line for line in text.splitlines() if line.startswith("- text: "))
    # a curator rewords an item by hand and leaves the model's offsets and confidence under it
    record.write_text(text.replace(first, "- text: Every request failed for almost two hours.", 1), encoding="utf-8")
    runner = CliRunner()
    checked = runner.invoke(main, ["validate", str(lib)])
    assert checked.exit_code == 1 and "not words of the item's text" in checked.output, checked.output
    problem = next(line for line in checked.output.splitlines() if "not words of the item's text" in line)
    exported = runner.invoke(main, ["export", str(lib)])
    built = runner.invoke(main, ["site", str(lib), "-o", str(tmp_path / "site")])
    for result in (exported, built):
        # the same problem, the same exit status; the card is still there, the person's words sound
        assert result.exit_code == 1, result.output
        assert f"invalid: {lib / problem}" in result.output, result.output
    rows = [json.loads(line) for line in exported.output.splitlines() if line.startswith("{")]
    assert [r["id"] for r in rows] == ["IL-0001", "IL-0002", "IL-0003"]
    assert any("almost two hours" in value for value in rows[1].values() if isinstance(value, str))
    page = (tmp_path / "site" / "cards" / "IL-0002.html").read_text(encoding="utf-8")
    assert "almost two hours" in page and "edited by hand" in page
    # a rebuild with nothing changed still says so (the problem is kept with the page)
    again = runner.invoke(main, ["site", str(lib), "-o", str(tmp_path / "site")])
    assert again.exit_code == 1 and "0 pages rendered" in again.output and f"invalid: {lib / problem}" in again.output
    # once the item is made the person's, all three accept the record
    data = yaml.safe_load(record.read_text(encoding="utf-8"))
    data["symptoms"][0].update(origin="person", confidence=1.0, evidence=[])
    record.write_text(dumps(Card.model_validate(data)), encoding="utf-8")
    for args in (["validate", str(lib)], ["export", str(lib)], ["site", str(lib), "-o", str(tmp_path / "site")]):
        result = runner.invoke(main, args)
        assert result.exit_code == 0 and "invalid: " not in result.output, result.output


def test_export_and_site_name_a_record_file_another_file_of_its_id_hides(tmp_path):
    # IL-0002 kept twice, as YAML and as JSON (a curator converting a record's format by hand):
    # validate calls the library invalid; export and site read one file of the id and, before,
    # dropped the other without a word and exited 0
    lib = sample_library(tmp_path / "lib")
    card = Card.model_validate(yaml.safe_load((lib / "IL-0002.yaml").read_text(encoding="utf-8")))
    (lib / "IL-0002.json").write_text(dumps(card, "json"), encoding="utf-8")
    runner = CliRunner()
    checked = runner.invoke(main, ["validate", str(lib)])
    assert checked.exit_code == 1 and "IL-0002 is also used by" in checked.output, checked.output
    exported = runner.invoke(main, ["export", str(lib)])
    built = runner.invoke(main, ["site", str(lib), "-o", str(tmp_path / "site")])
    for result in (exported, built):
        assert result.exit_code == 1, result.output
        assert "IL-0002 is also used by" in result.output and "IL-0002.json" in result.output, result.output
    rows = [json.loads(line) for line in exported.output.splitlines() if line.startswith("{")]
    assert [r["id"] for r in rows] == ["IL-0001", "IL-0002", "IL-0003"]
    # a rebuild with nothing changed still says so
    again = runner.invoke(main, ["site", str(lib), "-o", str(tmp_path / "site")])
    assert again.exit_code == 1 and "IL-0002 is also used by" in again.output, again.output
