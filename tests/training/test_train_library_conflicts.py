"""``pmparse train --library`` on a library a git merge left unfinished (docs/review.md)."""

from __future__ import annotations

from click.testing import CliRunner

from pmparse.cli import main
from pmparse.paths import local_model_dir

KILN = "# Kiln overheated\n\nGlazes cracked for three hours.\n\nRoot cause: a thermostat wired backwards.\n"
PUMP = "# Pump stalled\n\nThe fountain ran dry for 50 minutes.\n\nRoot cause: a clogged intake filter.\n"


def test_train_library_refuses_a_record_holding_conflict_markers(tmp_path):
    """A reviewed record git left with markers was left out with a note and the rest trained
    (exit 0 on a library large enough): the model silently lacked that card's decisions."""
    sources = tmp_path / "pm"
    sources.mkdir()
    (sources / "kiln.md").write_text(KILN, encoding="utf-8")
    (sources / "pump.md").write_text(PUMP, encoding="utf-8")
    lib = tmp_path / "lib"
    runner = CliRunner()
    assert runner.invoke(main, ["convert", str(sources), "-o", str(lib), "--rules-only", "-j", "1",
                                "--no-progress"]).exit_code == 0
    for path in sorted(lib.glob("IL-*.yaml")):
        path.write_text(path.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                        encoding="utf-8")
    record = lib / "IL-0002.yaml"
    record.write_text(record.read_text(encoding="utf-8").replace(
        "title: Pump stalled\n",
        "<<<<<<< HEAD\ntitle: Pump stalled\n=======\ntitle: Fountain pump stalled\n>>>>>>> 0123abc\n"),
        encoding="utf-8")
    # the scan cache (index.json) may be refreshed; nothing else is written
    before = {p: p.read_bytes() for p in lib.rglob("*") if p.is_file() and p.name not in ("lock", "index.json")}

    result = runner.invoke(main, ["train", "--library", str(lib)])

    assert result.exit_code == 2, result.output
    assert "IL-0002.yaml (line 4)" in result.output and "pmparse resolve" in result.output, result.output
    assert "left out" not in result.output
    assert not local_model_dir(lib).exists()
    assert {p: p.read_bytes() for p in lib.rglob("*") if p.is_file() and p.name not in ("lock", "index.json")} == before
