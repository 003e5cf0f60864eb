"""Showing differences to a person: coloured text, JSON and patches, with each item's evidence."""

from __future__ import annotations

import difflib
import itertools
import json
import re
from dataclasses import dataclass
from typing import Any

import click

from pmparse.card.schema import FACT_FIELDS, TAG_FIELDS, TEXT_FIELDS, Card
from pmparse.util import shown
from pmparse.library.records import card_data
from pmparse.library.worktree import patch_name, quoted
from pmparse.review.anchor import BOUNDARY, MARKER, WORDS
from pmparse.review.apply import patched_text
from pmparse.review.compare import CardDiff, DiffReport, FieldChange, ItemChange, item_changes

_CONTEXT = 240


def _collapse(text: str) -> str:
    return " ".join(text.split())


def evidence_sentence(text: str, start: int, end: int) -> str:
    """The sentence (or list item, or line of a table) around ``text[start:end]``, white space folded."""
    lo = max(0, start - _CONTEXT)
    left = lo
    for match in BOUNDARY.finditer(text, lo, min(len(text), start + 1)):
        if match.end() <= start:
            left = match.end()
    marker = MARKER.match(text, left)
    if marker and marker.end() <= start:
        left = marker.end()
    match = BOUNDARY.search(text, max(start, end - 1), min(len(text), end + _CONTEXT))
    if match:
        right = match.end("end") if match.group("end") else match.start()
    else:
        right = min(len(text), end + _CONTEXT)
    right = max(right, end)
    sentence = _collapse(text[left:right])
    if left > 0 and left == lo:
        sentence = "…" + sentence
    if right < len(text) and not match:
        sentence += "…"
    return sentence


@dataclass
class EvidenceView:
    """What a reviewer sees under a suggested item."""

    start: int
    end: int
    line: int | None
    sentence: str | None
    confidence: float | None
    more: int = 0

    def as_json(self) -> dict:
        """Plain data for ``--format json``."""
        return {"start": self.start, "end": self.end, "line": self.line, "sentence": self.sentence,
                "confidence": self.confidence, "more_spans": self.more}


def _view(evidence: list[dict], confidence: float | None, text: str | None) -> EvidenceView | None:
    if not evidence:
        return None if confidence is None else EvidenceView(0, 0, None, None, confidence)
    first = evidence[0]
    start, end = first["start"], first["end"]
    if text is None or end > len(text):
        return EvidenceView(start, end, None, None, confidence, len(evidence) - 1)
    return EvidenceView(start, end, text.count("\n", 0, start) + 1, evidence_sentence(text, start, end),
                        confidence, len(evidence) - 1)


def _support_view(card: Card, key: str, text: str | None) -> EvidenceView | None:
    support = card.support.get(key)
    if support is None:
        return None
    return _view([e.model_dump() for e in support.evidence], support.confidence, text)


class _Style:
    """Colours a piece of a line; every piece of text is made safe for the terminal here (the
    record's and the source's text may hold control characters), before the colour's own codes.
    Every piece stands inside one line, so a line break in a value (a record edited or shared by
    someone else: pmparse's own items are white space folded) is escaped too and cannot print a
    '+' line of its own."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, **kwargs: Any) -> str:
        text = shown(text, one_line=True)
        return click.style(text, **kwargs) if self.color and text else text


def _runs(segments: list[list]) -> list[list]:
    """Adjacent segments with the same changed flag joined into one."""
    runs: list[list] = []
    for changed, removed, added in segments:
        if runs and runs[-1][0] == changed:
            runs[-1][1] += removed
            runs[-1][2] += added
        else:
            runs.append([changed, removed, added])
    return runs


def _word_pair(old: str, new: str, style: _Style, labels: tuple[str, str] = ("", "")) -> tuple[str, str] | None:
    """Both lines with the changed words marked, or None when they share too little to pair;
    ``labels`` go after each line's sign (the item changes' numbers)."""
    a, b = WORDS.findall(old), WORDS.findall(new)
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    if matcher.ratio() < 0.4:
        return None
    runs = _runs([[op != "equal", "".join(a[i1:i2]), "".join(b[j1:j2])]
                  for op, i1, i2, j1, j2 in matcher.get_opcodes()])
    # white space alone between two changes belongs to the change: "[-a worker-]", not "[-a-] [-worker-]"
    for k in range(1, len(runs) - 1):
        if not runs[k][0] and not runs[k][1].strip():
            runs[k][0] = True
    runs = _runs(runs)

    def show(index: int, colour: str, opener: str, closer: str) -> str:
        out = []
        for run in runs:
            text = run[index]
            if not run[0]:
                out.append(style(text, fg=colour))
            elif text:
                out.append(style(text, fg=colour, reverse=True) if style.color else f"{opener}{shown(text, one_line=True)}{closer}")
        return "".join(out)

    return (style("-" + labels[0], fg="red") + show(1, "red", "[-", "-]"),
            style("+" + labels[1], fg="green") + show(2, "green", "{+", "+}"))


def _evidence_lines(view: EvidenceView | None, style: _Style) -> list[str]:
    if view is None:
        return []
    parts = [f"confidence {view.confidence:.2f}"] if view.confidence is not None else []
    if not view.end:
        return [style("    " + ", ".join(parts), dim=True)]
    where = f"line {view.line}" if view.line is not None else f"offsets {view.start}-{view.end}"
    if view.more:
        where += f" (+{view.more} more)"
    label = "    evidence " + ", ".join([where] + parts)
    if view.sentence is None:
        return [style(label + " (source text not available: moved or changed since)", dim=True)]
    return [style(label + ":", dim=True) + " " + style(view.sentence, fg="cyan")]


def _scalar(value: Any) -> str:
    return "(none)" if value is None else str(value)


def _pair_lines(old: str, new: str, style: _Style, labels: tuple[str, str] = ("", "")) -> list[str]:
    marked = _word_pair(old, new, style, labels)
    if marked is not None:
        return list(marked)
    return [style(f"-{labels[0]}{old}", fg="red"), style(f"+{labels[1]}{new}", fg="green")]


def _number(number: int) -> str:
    """The label of an item change in a hunk: the number ``review --items FIELD:N`` takes."""
    return f"[{number}] "


def render_change(diff: CardDiff, change: FieldChange, color: bool = False) -> list[str]:
    """The lines of one field's hunk: removed and added values, evidence under each added one."""
    style = _Style(color)
    text = diff.suggestion_text()
    note = {"update": "pmparse changed its suggestion; the record still holds the old one",
            "conflict": "the record was edited or kept by a person; pmparse now suggests otherwise",
            "change": ""}[change.kind]
    lines = [style(f"@@ {change.field} @@", fg="cyan") + (f" {note}" if note else "")]
    name = change.field
    if name in FACT_FIELDS:
        old, new = change.record, change.suggestion
        if old is None:
            lines.append(style(f"+{_scalar(new)}", fg="green"))
        elif new is None:
            lines.append(style(f"-{_scalar(old)}", fg="red"))
        else:
            lines.extend(_pair_lines(_scalar(old), _scalar(new), style))
        if new is not None:
            lines.extend(_evidence_lines(_support_view(diff.suggestion, name, text), style))
        return lines
    if name in TAG_FIELDS:
        for tag in change.record:
            if tag not in change.suggestion:
                lines.append(style(f"-{tag}", fg="red"))
        for tag in change.suggestion:
            if tag not in change.record:
                lines.append(style(f"+{tag}", fg="green"))
                lines.extend(_evidence_lines(_support_view(diff.suggestion, f"{name}.{tag}", text), style))
        kept = [tag for tag in change.record if tag in change.suggestion]
        if kept:
            lines.append(style(f" ({len(kept)} unchanged: {', '.join(kept)})", dim=True))
        return lines
    old_items, new_items = change.record, change.suggestion
    # each added and dropped item is numbered as diff --format json and review --items number
    # them (review.compare.item_changes walks the hunk in this order)
    numbers = itertools.count(1)
    matcher = difflib.SequenceMatcher(a=[i["text"] for i in old_items], b=[i["text"] for i in new_items],
                                      autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            moved = sum(old_items[i] != new_items[j] for i, j in zip(range(i1, i2), range(j1, j2)))
            label = f" ({i2 - i1} unchanged item{'s' if i2 - i1 != 1 else ''}"
            label += f", {moved} with new evidence or confidence)" if moved else ")"
            lines.append(style(label, dim=True))
            continue
        paired = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for k in range(paired):
            old, new = old_items[i1 + k], new_items[j1 + k]
            lines.extend(_pair_lines(old["text"], new["text"], style, (_number(next(numbers)), _number(next(numbers)))))
            lines.extend(_evidence_lines(_view(new["evidence"], new["confidence"], text), style))
        for old in old_items[i1 + paired:i2]:
            lines.append(style(f"-{_number(next(numbers))}{old['text']}", fg="red"))
        for new in new_items[j1 + paired:j2]:
            lines.append(style(f"+{_number(next(numbers))}{new['text']}", fg="green"))
            lines.extend(_evidence_lines(_view(new["evidence"], new["confidence"], text), style))
    return lines


def render_item(diff: CardDiff, change: ItemChange, color: bool = False) -> list[str]:
    """The lines of one item of a hunk decided on its own: the item, and under an added one its
    evidence (line, confidence, sentence), as :func:`render_change` shows it."""
    style = _Style(color)
    item = change.item
    if change.kind == "drop":
        return [style(f"-{item['text']}", fg="red")]
    text = diff.suggestion_text()
    return [style(f"+{item['text']}", fg="green"),
            *_evidence_lines(_view(item["evidence"], item["confidence"], text), style)]


def _pipeline(card: Card) -> str:
    return f"pmparse {card.pipeline.version}, {card.pipeline.model or 'rules only'}"


def render_header(diff: CardDiff, color: bool = False) -> list[str]:
    """The header of one record's diff: which files, which pipelines, source notes."""
    style = _Style(color)
    lines = [style(f"diff {diff.id} ({diff.record.source.location})", bold=True),
             style(f"--- {diff.record_path.name} ({_pipeline(diff.record)})", bold=True),
             style(f"+++ {diff.suggestion_label} ({_pipeline(diff.suggestion)})", bold=True)]
    if diff.two_files:
        # nothing is accepted between two files: the note says only what differs in their sources
        if diff.record.source.location != diff.suggestion.source.location:
            lines.append(style(f"  the two records were read from different sources ({diff.record.source.location} "
                               f"and {diff.suggestion.source.location})", fg="yellow"))
        elif diff.source_changed:
            lines.append(style("  the two records were read from different texts of the same source", fg="yellow"))
    elif diff.source_changed:
        lines.append(style("  the source text changed since the record was made; once a field is accepted, or "
                           "every field decided, the record follows the new text, the evidence of the fields "
                           "you keep with it", fg="yellow"))
    return lines


def render_folded(diff: CardDiff, color: bool = False) -> list[str]:
    """One line each for unchanged, moved, rescored, kept and rejected fields."""
    style = _Style(color)
    lines = []
    if diff.unchanged:
        said = "the draft leaves empty" if diff.draft else "unchanged"
        lines.append(style(f"  {len(diff.unchanged)} fields {said}: {', '.join(diff.unchanged)}", dim=True))
    if diff.moved:
        lines.append(style(f"  same words, found elsewhere in the new text (they move with it, nothing to decide): "
                           f"{', '.join(diff.moved)}", dim=True))
    if diff.rescored:
        lines.append(style(f"  the same items, other confidences (nothing to decide; the record keeps its own): "
                           f"{', '.join(diff.rescored)}", dim=True))
    if diff.kept:
        lines.append(style(f"  kept as a person left them, pmparse unchanged: {', '.join(diff.kept)}", dim=True))
    if diff.rejected:
        lines.append(style(f"  suggestion rejected before (not proposed again): {', '.join(diff.rejected)}",
                           dim=True))
    return lines


def render_text(report: DiffReport, color: bool = False) -> str:
    """The whole report as unified-diff style text; records without changes are left out."""
    blocks = []
    for diff in report.diffs:
        if not diff.open:
            continue
        lines = render_header(diff, color)
        for change in diff.changes:
            lines.extend(render_change(diff, change, color))
        lines.extend(render_folded(diff, color))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def render_json(report: DiffReport) -> str:
    """The report as JSON for tools: every record compared, its changes with evidence, and errors."""
    records = []
    for diff in report.diffs:
        text = diff.suggestion_text()
        changes = []
        for change in diff.changes:
            evidence: list[dict] = []
            if change.field in TEXT_FIELDS:
                for item in change.suggestion:
                    if item not in change.record:
                        view = _view(item["evidence"], item["confidence"], text)
                        evidence.append({"item": item["text"], **(view.as_json() if view else {})})
            else:
                keys = [change.field] if change.field in FACT_FIELDS else [
                    f"{change.field}.{tag}" for tag in change.suggestion if tag not in change.record]
                for key in keys:
                    view = _support_view(diff.suggestion, key, text)
                    if view is not None:
                        evidence.append({"item": key, **view.as_json()})
            # the item changes a script names with review --items FIELD:N (N: "number")
            items = [{"number": c.number, "kind": c.kind, "item": c.item["text"]} for c in item_changes(change)]
            changes.append({"field": change.field, "kind": change.kind, "record": change.record,
                            "suggestion": change.suggestion, "base": change.base, "evidence": evidence,
                            **({"items": items} if items else {})})
        records.append({
            "id": diff.id, "record": str(diff.record_path), "suggestion": diff.suggestion_label,
            "source_changed": diff.source_changed,
            "pipeline": {"record": card_data(diff.record)["pipeline"], "suggestion": card_data(diff.suggestion)["pipeline"]},
            "changes": changes, "unchanged": diff.unchanged, "moved": diff.moved,
            "rescored": diff.rescored, "kept": diff.kept,
            "rejected": diff.rejected,
        })
    text = json.dumps({"records": records, "errors": report.errors}, ensure_ascii=False, indent=2) + "\n"
    # JSON escapes C0 controls itself; DEL, C1 and the bidirectional overrides it leaves raw are
    # escaped too (the same string to a JSON reader, nothing a terminal acts on)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_JSON_RAW = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _unified(old: str, new: str, name: str) -> list[str]:
    a, b = quoted("a/", name), quoted("b/", name)
    # git ends a name holding a space with a tab in the ---/+++ lines: patch reads no further
    tab = "\t" if " " in name else ""
    lines = [f"diff --git {a} {b}\n"]
    for line in difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                     fromfile=a + tab, tofile=b + tab, n=3):
        if line.endswith("\n"):
            lines.append(line)
        else:
            # git's marker for a last line without a newline
            lines.append(line + "\n\\ No newline at end of file\n")
    return lines


def render_patch(report: DiffReport) -> str:
    """A patch ``git apply`` accepts, taking every change: run at the top of the git work tree
    holding the records or in any folder between it and them, or in the records' folder when no
    work tree holds them (:func:`pmparse.library.worktree.patch_name`).

    The patch changes only the reviewed fields (and the source and pipeline they come with); the
    status and review mark are left to ``pmparse review``.
    """
    out: list[str] = []
    for diff in report.diffs:
        if not diff.open:
            continue
        new = patched_text(diff)
        if new != diff.record_text:
            out.extend(_unified(diff.record_text, new, patch_name(diff.record_path)))
    return "".join(out)


def nothing_pending(report: DiffReport, library: bool) -> str:
    """The line ``pmparse diff`` prints when it has no difference to show."""
    if not library:
        return "no differences: the two records agree on every field"
    if not report.diffs:
        return "nothing pending: no suggestion waits for review"
    return f"nothing pending: {len(report.diffs)} suggestion(s) compared, none proposes a change to review"
