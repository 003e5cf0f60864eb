from __future__ import annotations

import json

from click.testing import CliRunner

from pmparse.cli import main
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
