"""``pmparse export``: the library as one flat row per card, for spreadsheets and other tools.

Every row has the same columns (:data:`COLUMNS`), in the same order, for JSON lines and CSV alike.
A text field's items are joined with a newline (an item's text is one line: whitespace collapsed),
a tag field's ids with ``;``. Rows are sorted by id and hold no timestamps of their own: the same
library gives the same bytes.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Literal

from pmparse.card.schema import TAG_FIELDS, TEXT_FIELDS, Card
from pmparse.errors import RecordError, UsageError
from pmparse.library.store import Library
from pmparse.library.folder import library_root as checked_library_root
from pmparse.library.validate import card_problems, hidden_records
from pmparse.site.view import filled, year_of

ExportFormat = Literal["jsonl", "csv"]

COLUMNS: tuple[str, ...] = (
    "schema_version", "id", "status", "pending", "title", "organisation", "date", "year", "duration_minutes",
    *TEXT_FIELDS, *TAG_FIELDS, "fields_filled", "reviewed_by", "reviewed_at", "source_location", "source_url",
    "source_sha256", "source_format", "pipeline_version", "pipeline_model",
)

#: What joins the items of a text field, and the ids of a tag field.
ITEM_SEPARATOR, TAG_SEPARATOR = "\n", ";"


def export_row(card: Card, pending: bool) -> dict:
    """One card as a flat row of :data:`COLUMNS` (strings, numbers, booleans or None)."""
    row: dict = {
        "schema_version": card.schema_version, "id": card.id, "status": card.status, "pending": pending,
        "title": card.title, "organisation": card.organisation, "date": card.date, "year": year_of(card),
        "duration_minutes": card.duration_minutes,
    }
    for name in TEXT_FIELDS:
        row[name] = ITEM_SEPARATOR.join(item.text for item in getattr(card, name))
    for name in TAG_FIELDS:
        row[name] = TAG_SEPARATOR.join(getattr(card, name))
    row.update({
        "fields_filled": filled(card),
        "reviewed_by": card.reviewed.by if card.reviewed else None,
        "reviewed_at": card.reviewed.at if card.reviewed else None,
        "source_location": card.source.location, "source_url": card.source.url,
        "source_sha256": card.source.sha256, "source_format": card.source.format,
        "pipeline_version": card.pipeline.version, "pipeline_model": card.pipeline.model,
    })
    return row


def export_rows(library_root: str | Path) -> tuple[list[dict], list[str]]:
    """``(rows, errors)``: a row per record, sorted by id, and ``path: reason`` per problem.

    A record that cannot be read has no row. One that reads has its row, and each problem
    ``pmparse validate`` finds in it (:func:`pmparse.library.validate.card_problems`: evidence that
    no longer says an item's words, an offset past the text) is listed as validate lists it: the
    record is invalid for export as it is for validate, but its words are sound and are exported.
    A record file another file of its id hides is named too (:func:`pmparse.library.validate.hidden_records`).

    Raises:
        UsageError: ``library_root`` is not a library.
    """
    root = checked_library_root(library_root)
    library = Library.open(root)
    rows, errors = [], []
    for card_id in sorted(library.entries):
        entry = library.entries[card_id]
        try:
            if entry.error is not None:
                raise RecordError(entry.error, str(entry.path))
            card = Library.read(entry.path)
            record_text = entry.path.read_text(encoding="utf-8")
        except RecordError as exc:
            errors.append(f"{entry.path}: {exc.message}")
            continue
        except (OSError, UnicodeDecodeError) as exc:  # gone or changed since it was read
            errors.append(f"{entry.path}: {exc}")
            continue
        errors.extend(str(problem) for problem in card_problems(str(entry.path), card, record_text,
                                                                  places=library.places))
        rows.append(export_row(card, library.state_path("pending", card_id).is_file()))
    errors.extend(str(problem) for problem in hidden_records(root))  # a second file of an id: never read
    return rows, errors


#: First characters a spreadsheet reads as a formula ("=HYPERLINK(...)" in a postmortem's text).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str:
    """One CSV cell: None empty, booleans ``true``/``false``, and a text a spreadsheet would run as
    a formula kept as text by a leading apostrophe (OWASP's advice on CSV injection)."""
    if value is None:
        return ""
    if value is True or value is False:
        return "true" if value else "false"
    text = str(value)
    return "'" + text if isinstance(value, str) and text.startswith(_FORMULA_START) else text


#: What JSON leaves as it is and a terminal acts on: DEL, C1 controls, bidirectional controls.
_ACTING = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def escape_json(match: re.Match) -> str:
    """The JSON escape (``\\u009b``) of the character ``match`` holds."""
    return f"\\u{ord(match.group()):04x}"


def format_rows(rows: list[dict], fmt: ExportFormat) -> str:
    """The rows as JSON lines (one object per line, keys in column order) or CSV (a header row,
    then one row per card; see :func:`csv_cell`)."""
    if fmt == "jsonl":
        # JSON escapes C0 controls itself; DEL, C1 controls (0x9b is a terminal's CSI) and
        # bidirectional overrides are escaped too: the same data once parsed, and a line piped
        # through a tool that prints it (grep, less -r) reaches a terminal without acting
        return "".join(_ACTING.sub(escape_json, json.dumps({k: row[k] for k in COLUMNS}, ensure_ascii=False)) + "\n"
                       for row in rows)
    if fmt != "csv":
        raise UsageError(f"expected jsonl or csv, found {fmt!r}")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow([csv_cell(row[k]) for k in COLUMNS])
    return out.getvalue()
