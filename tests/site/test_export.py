from __future__ import annotations

import csv
import io
import json

import pytest

from pmparse.errors import UsageError
from pmparse.site.export import COLUMNS, export_row, export_rows, format_rows
from tests.helpers import sample_library, text_card

TEXT = "Disks failed. Failover did not happen. We promoted the replica. We added a drill."


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    return sample_library(tmp_path_factory.mktemp("export") / "lib")


def test_a_row_joins_list_fields_and_carries_the_schema_version():
    card = text_card("IL-0004", TEXT, title="Outage", date="2020-01-02", remediation=[(39, 63, 0.5), (64, 82, 0.4)],
                     components=["database", "dns"])
    row = export_row(card, pending=True)
    assert list(row) == list(COLUMNS)
    assert row["schema_version"] == 1 and row["id"] == "IL-0004" and row["pending"] is True
    assert row["remediation"] == "We promoted the replica.\nWe added a drill."
    assert row["components"] == "database;dns" and row["trigger"] == "" and row["year"] == "2020"
    assert row["fields_filled"] == 4 and row["reviewed_by"] is None


def test_jsonl_and_csv_hold_one_row_per_card_in_id_order(library):
    rows, errors = export_rows(library)
    assert errors == [] and [r["id"] for r in rows] == ["IL-0001", "IL-0002", "IL-0003"]
    lines = format_rows(rows, "jsonl").splitlines()
    assert [json.loads(line) for line in lines] == rows
    assert list(json.loads(lines[0])) == list(COLUMNS)
    table = list(csv.reader(io.StringIO(format_rows(rows, "csv"))))
    assert table[0] == list(COLUMNS) and len(table) == 4
    got = dict(zip(table[0], table[2]))
    assert got["id"] == "IL-0002" and got["schema_version"] == "1" and got["pending"] == "false"
    assert got["symptoms"] == rows[1]["symptoms"] and "\n" in got["symptoms"]
    assert format_rows(rows, "csv") == format_rows(export_rows(library)[0], "csv")  # same library, same bytes


def test_invalid_records_are_left_out_and_named(library, tmp_path):
    import shutil

    lib = tmp_path / "lib"
    shutil.copytree(library, lib)
    (lib / "IL-0002.yaml").write_text("id: [\n", encoding="utf-8")
    rows, errors = export_rows(lib)
    assert [r["id"] for r in rows] == ["IL-0001", "IL-0003"]
    assert len(errors) == 1 and errors[0].startswith(str(lib / "IL-0002.yaml"))
    with pytest.raises(UsageError):
        export_rows(tmp_path / "nothing")
    with pytest.raises(UsageError):
        format_rows(rows, "xml")


def test_a_csv_cell_a_spreadsheet_would_run_as_a_formula_stays_text():
    from pmparse.site.export import csv_cell

    assert csv_cell('=HYPERLINK("http://example.invalid","open")') == '\'=HYPERLINK("http://example.invalid","open")'
    assert csv_cell("+1 retry") == "'+1 retry" and csv_cell("@user") == "'@user"
    assert csv_cell("Disk full") == "Disk full" and csv_cell(None) == "" and csv_cell(True) == "true"
    assert csv_cell(3) == "3" and csv_cell(-5) == "-5"  # numbers are numbers


def test_jsonl_escapes_what_a_terminal_acts_on_and_keeps_the_data():
    # JSON escapes C0 controls itself, but wrote C1 controls (0x9b, a terminal's CSI), DEL and
    # bidirectional overrides raw: `pmparse export LIB | grep x` printed them to the terminal
    title = "T \x1b]0;pwned\x07 \x9b31m red \x7f \u202eevil\u2069 caf\u00e9"
    text = format_rows([{k: (title if k == "title" else None) for k in COLUMNS}], "jsonl")
    assert text.isascii() is False and "caf\u00e9" in text  # other characters stay as they are
    assert not any(ch in text for ch in "\x1b\x07\x9b\x7f\u202e\u2069")
    assert "\\u009b" in text and "\\u202e" in text
    assert json.loads(text)["title"] == title
