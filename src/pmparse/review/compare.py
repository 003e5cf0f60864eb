"""Field-by-field differences between a record and a suggestion, for people and for tools.

Three versions of a card can meet here: the **base** (what pmparse last wrote or what a person last
decided on, ``LIBRARY/.pmparse/base``), the **record** a person reads and edits, and a new
**suggestion** (``LIBRARY/.pmparse/pending``). Comparing all three tells a field pmparse changed
(``update``) from a field a person edited that pmparse now suggests otherwise (``conflict``) and from
a person's edit that pmparse did not touch (kept, never proposed). Without a base every difference
is a plain ``change``.

Records are rewritten by splicing: only the top-level keys whose values change are replaced in the
record's text, so comments and formatting a person added elsewhere survive byte for byte.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal

import click
import yaml
from pydantic import ValidationError

from pmparse.errors import RecordError, UsageError
from pmparse.library.store import RecordFormat, card_data, dumps, flow_text, format_of, loads, source_text_of
from pmparse.card.schema import FACT_FIELDS, TAG_FIELDS, TEXT_FIELDS, Card

#: The fields a person reviews, in card order.
REVIEW_FIELDS: tuple[str, ...] = FACT_FIELDS + TEXT_FIELDS + TAG_FIELDS

ChangeKind = Literal["change", "update", "conflict"]
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# sentence ends, blank lines, and line breaks before list items, headings and table rows
_BOUNDARY = re.compile(r"(?P<end>[.!?][\"')\]]*)\s+|\n(?:[ \t]*\n)*[ \t]*(?:[-*+]|\d+[.)])[ \t]+|\n[ \t]*\n\s*|\n(?=[ \t]*[#|])")
_MARKER = re.compile(r"\s*(?:[-*+]|\d+[.)])[ \t]+")
_CONTEXT = 240
_WORDS = re.compile(r"\s+|[^\s]+")
_MISSING = object()


@dataclass
class FieldChange:
    """One field whose suggested value differs from the record's.

    Attributes:
        field: The card field.
        kind: ``update`` (pmparse changed a field the person had not touched), ``conflict`` (the
            record differs from what pmparse last suggested, and pmparse now suggests something
            else) or ``change`` (no base known).
        record: The record's value (plain JSON data).
        suggestion: The suggested value.
        base: The base value, when a base is known.
    """

    field: str
    kind: ChangeKind
    record: Any
    suggestion: Any
    base: Any = None


@dataclass
class CardDiff:
    """Differences between one record and one suggestion.

    Attributes:
        id: The record id.
        record: The record as it stands.
        suggestion: The suggested card.
        base: The base card, when known.
        record_path: The record file.
        record_text: The record file's text, as read.
        suggestion_label: How to name the suggestion in headers.
        changes: Fields to review, in card order.
        unchanged: Fields equal in record and suggestion.
        moved: Text fields whose items say the same words as the suggestion's, found elsewhere in
            an amended source (their evidence, and perhaps the confidence, differ): nothing to
            decide; they move with the record onto the new text (:func:`merge` with ``follow``).
        kept: Fields a person edited that pmparse did not change (never proposed).
        rejected: Fields whose suggestion was rejected or edited before (never proposed again).
    """

    id: str
    record: Card
    suggestion: Card
    base: Card | None
    record_path: Path
    record_text: str
    suggestion_label: str
    changes: list[FieldChange] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    moved: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)

    @property
    def source_changed(self) -> bool:
        """True when the suggestion was made from a different source text than the record."""
        return self.record.source.sha256 != self.suggestion.source.sha256

    @property
    def open(self) -> bool:
        """True when something waits for a person: a field to decide, or an amended source the
        record has not followed yet (settled by the review that reaches it)."""
        return bool(self.changes) or self.source_changed


@dataclass
class DiffReport:
    """What ``pmparse diff`` found.

    Attributes:
        diffs: One entry per compared record (also those without changes).
        errors: Pending suggestions that could not be compared, with the reason.
    """

    diffs: list[CardDiff] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def has_changes(self) -> bool:
        """True when any record has a field to review, or an amended source to follow."""
        return any(d.open for d in self.diffs)


def value_hash(value: Any) -> str:
    """sha256 of a field value in canonical JSON (what a rejection remembers)."""
    canonical = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def compare(record: Card, suggestion: Card, base: Card | None = None,
            is_rejected: Callable[[str, Any], bool] | None = None, record_path: Path | None = None,
            record_text: str | None = None, suggestion_label: str = "suggestion") -> CardDiff:
    """Compare a record with a suggestion, field by field, aware of the base.

    Args:
        record: The record as a person left it.
        suggestion: The new suggestion.
        base: What pmparse last wrote (or a person last decided on); None when unknown.
        is_rejected: ``(field, suggested_value) -> bool``, true for suggestions already rejected.
        record_path: The record file (for headers and patches).
        record_text: The record file's text (for patches); the canonical dump when None.
        suggestion_label: How headers name the suggestion.
    """
    rec, sug = card_data(record), card_data(suggestion)
    old = card_data(base) if base is not None else None
    amended = record.source.sha256 != suggestion.source.sha256
    base_amended = base is not None and base.source.sha256 != suggestion.source.sha256
    diff = CardDiff(record.id, record, suggestion, base, record_path or Path(f"{record.id}.yaml"),
                    record_text if record_text is not None else dumps(record), suggestion_label)
    for name in REVIEW_FIELDS:
        if rec[name] == sug[name]:
            diff.unchanged.append(name)
        elif amended and same_words(name, rec[name], sug[name]):
            diff.moved.append(name)
        elif is_rejected is not None and is_rejected(name, sug[name]):
            diff.rejected.append(name)
        elif old is not None and (sug[name] == old[name] or (
                base_amended and same_words(name, old[name], sug[name]))):
            # pmparse did not change its mind (on an amended text: its words are the same)
            diff.kept.append(name)
        else:
            kind: ChangeKind = "change" if old is None else ("update" if rec[name] == old[name] else "conflict")
            diff.changes.append(FieldChange(name, kind, rec[name], sug[name], None if old is None else old[name]))
    return diff


def same_words(name: str, record_value: Any, suggested_value: Any) -> bool:
    """True when a text field's items say the same words, in the same order, whatever their
    evidence and confidence (always False for facts and tags: their values are words only)."""
    return name in TEXT_FIELDS and ([item["text"] for item in record_value]
                                    == [item["text"] for item in suggested_value])


def _support_keys(name: str, support: dict) -> list[str]:
    if name in FACT_FIELDS:
        return [name] if name in support else []
    if name in TAG_FIELDS:
        return [key for key in support if key.startswith(name + ".")]
    return []


def merge(record: Card, suggestion: Card, fields: list[str] | tuple[str, ...],
          values: dict[str, Any] | None = None, follow: bool = False) -> Card:
    """The record with ``fields`` taken from the suggestion (or from ``values``).

    Supports of those facts and tags come along; once any field is taken (or with ``follow``, when
    every field was decided and the record keeps them all), the record's source and pipeline
    become the suggestion's (the taken evidence indexes the suggestion's source text). When that
    source text is not the record's (the source was amended), a text field whose items say the
    suggestion's words is taken whole (only its evidence and confidence differ: nothing a person
    decided), and the evidence of every other field kept is moved onto the new text
    (:func:`reanchor_evidence`), so no offset indexes a text the card no longer names.

    Raises:
        RecordError: an edited value does not fit the schema.
    """
    data, new = card_data(record), card_data(suggestion)
    amended = data["source"]["sha256"] != new["source"]["sha256"]
    if amended and (fields or follow):
        fields = list(fields) + [name for name in TEXT_FIELDS if name not in fields
                                 and same_words(name, data[name], new[name])]
    support = dict(data["support"])
    for name in fields:
        if name not in REVIEW_FIELDS:
            raise UsageError(f"expected one of {', '.join(REVIEW_FIELDS)}, found {name!r}")
        data[name] = values[name] if values and name in values else new[name]
        for key in _support_keys(name, support):
            del support[key]
        for key in _support_keys(name, new["support"]):
            support[key] = new["support"][key]
    data["support"] = support
    if fields or follow:
        if amended:
            _reanchor(data, record, suggestion, fields)
        data["source"], data["pipeline"] = new["source"], new["pipeline"]
    try:
        return Card.model_validate(data)
    except ValidationError as exc:
        reasons = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise RecordError(f"expected a valid card after the change, found: {reasons}", record.id) from exc


# --- evidence of kept fields when the source was amended ---------------------------------------


def _words_pattern(text: str) -> re.Pattern[str] | None:
    words = text.split()
    return re.compile(r"\s+".join(re.escape(word) for word in words)) if words else None


def _nearest(matches: list[tuple[int, int]], hint: int) -> tuple[int, int] | None:
    return min(matches, key=lambda span: (abs(span[0] - hint), span[0])) if matches else None


def _locate_item(item_text: str, new_text: str, hint: int) -> list[dict] | None:
    """Where a unit's words stand in the new text (white space free to differ), nearest ``hint``."""
    pattern = _words_pattern(item_text)
    if pattern is None:
        return None
    span = _nearest([m.span() for m in pattern.finditer(new_text)], hint)
    return None if span is None else [{"start": span[0], "end": span[1]}]


def _locate_stretch(ev: dict, old_text: str | None, new_text: str | None) -> dict | None:
    """The same characters as ``old_text[ev]`` in the new text, nearest the old offset."""
    if old_text is None or new_text is None or ev["end"] > len(old_text):
        return None
    piece = old_text[ev["start"]:ev["end"]]
    spans, at = [], new_text.find(piece)
    while at != -1:
        spans.append((at, at + len(piece)))
        at = new_text.find(piece, at + 1)
    span = _nearest(spans, ev["start"])
    return None if span is None else {"start": span[0], "end": span[1]}


def _stale(evidence: list[dict], sha: str) -> list[dict]:
    return [ev if ev.get("sha256") else {**ev, "sha256": sha} for ev in evidence]


def reanchor_evidence(data: dict, old_text: str | None, new_text: str | None, suggestion: dict,
                      keep: list[str] | tuple[str, ...]) -> None:
    """Move the evidence of the fields ``keep`` of card ``data`` (plain JSON) onto a new source text.

    A text item takes the evidence of the suggestion's item with the same text (its field's
    first), else the stretch of ``new_text`` holding the same words nearest its old place; a
    fact's or tag's support takes the suggestion's evidence when the suggestion proposes the same
    value, else the same characters found again in ``new_text`` (only when the old text is known).
    A stretch found nowhere keeps its offsets, marked with the old text's sha256 (``Evidence.sha256``):
    the amended source no longer says it, and the card says so rather than point at other words.
    ``data`` is changed in place; its ``source`` is still the old one.
    """
    old_sha = data["source"]["sha256"]
    by_text: dict[str, list[dict]] = {}
    for name in TEXT_FIELDS:
        for item in suggestion[name]:
            by_text.setdefault(item["text"], item["evidence"])
    for name in TEXT_FIELDS:
        if name not in keep:
            continue
        own = {item["text"]: item["evidence"] for item in suggestion[name]}
        for item in data[name]:
            found = own.get(item["text"]) or by_text.get(item["text"])
            if found is None and new_text is not None:
                current = [ev for ev in item["evidence"] if not ev.get("sha256")]
                found = _locate_item(item["text"], new_text, current[0]["start"] if current else 0)
            item["evidence"] = [dict(ev) for ev in found] if found else _stale(item["evidence"], old_sha)
    for key, sup in data["support"].items():
        name = key.partition(".")[0]
        if name not in keep:
            continue
        theirs = suggestion["support"].get(key)
        same = theirs is not None and (name not in FACT_FIELDS or data[name] == suggestion[name])
        if same:
            sup["evidence"] = [dict(ev) for ev in theirs["evidence"]]
            continue
        moved = []
        for ev in sup["evidence"]:
            found = None if ev.get("sha256") else _locate_stretch(ev, old_text, new_text)
            moved.append(found if found is not None else _stale([ev], old_sha)[0])
        sup["evidence"] = moved


def _reanchor(data: dict, record: Card, suggestion: Card, taken: list[str] | tuple[str, ...]) -> None:
    keep = [name for name in REVIEW_FIELDS if name not in taken]
    reanchor_evidence(data, source_text_of(record), source_text_of(suggestion), card_data(suggestion), keep)


# --- splicing: rewrite only what changes --------------------------------------------------------


def _last_end(node: yaml.Node) -> int:
    """Where the last character of a node's content ends (trailing comments and blanks excluded)."""
    if isinstance(node, yaml.ScalarNode) or getattr(node, "flow_style", False) or not node.value:
        return node.end_mark.index
    last = node.value[-1]
    return _last_end(last[1] if isinstance(last, tuple) else last)


def top_regions(text: str) -> dict[str, tuple[int, int]] | None:
    """Character ranges of each top-level key and its value in a record's text.

    Returns None when the text is not a mapping with plain keys (the caller then rewrites it).
    """
    try:
        # the pure-Python loader: its marks count characters, which is what the splice indexes
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    if not isinstance(node, yaml.MappingNode):
        return None
    regions: dict[str, tuple[int, int]] = {}
    for key, value in node.value:
        if not isinstance(key, yaml.ScalarNode) or key.value in regions:
            return None
        start, end = key.start_mark.index, _last_end(value)
        # a block scalar's end includes its line breaks; cut them so old and new regions match
        while end > start and text[end - 1] in " \t\r\n":
            end -= 1
        regions[key.value] = (start, end)
    return regions


def patch_items(text: str, old_data: dict, new_data: dict) -> str:
    """A YAML record's text with the evidence and confidence of text items rewritten in place, for
    each text field whose items keep their words (an item that moved in an amended source).

    Only those values change: a person's comments and layout around them stay, which rewriting
    the whole field would lose. Only values written as pmparse writes them are rewritten (evidence
    as a flow sequence, confidence as a plain number, neither shared through an anchor); fields
    whose words differ, and values written otherwise, are left for :func:`splice`.
    """
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)  # its marks count characters
    except yaml.YAMLError:
        return text
    if not isinstance(node, yaml.MappingNode):
        return text
    shared = _shared_nodes(node)
    edits: list[tuple[int, int, str]] = []
    for key, value in node.value:
        name = key.value if isinstance(key, yaml.ScalarNode) else None
        if name not in TEXT_FIELDS or not isinstance(value, yaml.SequenceNode):
            continue
        old, new = old_data.get(name), new_data[name]
        if (old == new or not isinstance(old, list) or len(value.value) != len(new)
                or not all(isinstance(item, dict) for item in old) or not same_words(name, old, new)):
            continue
        for item_node, was, now in zip(value.value, old, new):
            if not isinstance(item_node, yaml.MappingNode):
                break
            for item_key, item_value in item_node.value:
                label = item_key.value if isinstance(item_key, yaml.ScalarNode) else None
                if label not in ("evidence", "confidence") or was.get(label) == now[label] or id(item_value) in shared:
                    continue
                start, end = item_value.start_mark.index, item_value.end_mark.index
                piece = text[start:end]
                if label == "evidence" and isinstance(item_value, yaml.SequenceNode) and item_value.flow_style:
                    replacement = flow_text(now["evidence"])
                elif label == "confidence" and isinstance(item_value, yaml.ScalarNode) and not item_value.style:
                    replacement = json.dumps(now["confidence"])
                else:
                    continue
                if piece[:1] in "&!" or piece != piece.strip():
                    continue  # an anchor or tag in front, or a mark past the value: leave it to splice
                edits.append((start, end, replacement))
    newline = "\r\n" if "\r\n" in text else "\n"
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement.replace("\n", newline) + text[end:]
    return text


def _shared_nodes(root: yaml.Node) -> set[int]:
    """Ids of the nodes that stand in more than one place (an anchor and its aliases)."""
    seen: set[int] = set()
    shared: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            shared.add(id(node))
            continue
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
    return shared


def splice(text: str, fmt: RecordFormat, new: Card) -> str:
    """The record text showing ``new``, with every unchanged top-level key kept byte for byte.

    Keys whose value differs are replaced by their canonical form, except the evidence and
    confidence of text items that keep their words, which are rewritten in place
    (:func:`patch_items`); when the text cannot be spliced safely (a key missing, unusual
    structure) the whole record is rewritten canonically. The result always loads back to ``new``.
    """
    fresh = dumps(new, fmt)
    try:
        old_data = json.loads(text) if fmt == "json" else yaml.load(text, Loader=_SAFE_LOADER)
    except (json.JSONDecodeError, yaml.YAMLError):
        return fresh
    new_data = card_data(new)
    if fmt == "yaml" and isinstance(old_data, dict):
        patched = patch_items(text, old_data, new_data)
        if patched != text:
            try:
                patched_data = yaml.load(patched, Loader=_SAFE_LOADER)
            except yaml.YAMLError:
                patched_data = None  # not what was meant: the fields are spliced whole instead
            if isinstance(patched_data, dict):
                text, old_data = patched, patched_data
    regions, fresh_regions = top_regions(text), top_regions(fresh)
    if not isinstance(old_data, dict) or regions is None or fresh_regions is None:
        return fresh
    changed = [key for key in new_data if old_data.get(key, _MISSING) != new_data[key]]
    if any(key not in regions for key in changed) or set(old_data) - set(new_data):
        return fresh
    newline = "\r\n" if "\r\n" in text else "\n"
    out = text
    for key in sorted(changed, key=lambda k: regions[k][0], reverse=True):
        start, end = regions[key]
        fs, fe = fresh_regions[key]
        piece = fresh[fs:fe].replace("\n", newline)
        out = out[:start] + piece + out[end:]
    try:
        if card_data(loads(out, fmt, "spliced record")) != new_data:
            return fresh
    except RecordError:
        return fresh
    return out


# --- evidence ------------------------------------------------------------------------------------


def _collapse(text: str) -> str:
    return " ".join(text.split())


def evidence_sentence(text: str, start: int, end: int) -> str:
    """The sentence (or list item, or line of a table) around ``text[start:end]``, white space folded."""
    lo = max(0, start - _CONTEXT)
    left = lo
    for match in _BOUNDARY.finditer(text, lo, min(len(text), start + 1)):
        if match.end() <= start:
            left = match.end()
    marker = _MARKER.match(text, left)
    if marker and marker.end() <= start:
        left = marker.end()
    match = _BOUNDARY.search(text, max(start, end - 1), min(len(text), end + _CONTEXT))
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


# --- rendering -----------------------------------------------------------------------------------


class _Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, **kwargs: Any) -> str:
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


def _word_pair(old: str, new: str, style: _Style) -> tuple[str, str] | None:
    """Both lines with the changed words marked, or None when they share too little to pair."""
    a, b = _WORDS.findall(old), _WORDS.findall(new)
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
                out.append(style(text, fg=colour, reverse=True) if style.color else f"{opener}{text}{closer}")
        return "".join(out)

    return (style("-", fg="red") + show(1, "red", "[-", "-]"),
            style("+", fg="green") + show(2, "green", "{+", "+}"))


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


def _pair_lines(old: str, new: str, style: _Style) -> list[str]:
    marked = _word_pair(old, new, style)
    if marked is not None:
        return list(marked)
    return [style(f"-{old}", fg="red"), style(f"+{new}", fg="green")]


def render_change(diff: CardDiff, change: FieldChange, color: bool = False) -> list[str]:
    """The lines of one field's hunk: removed and added values, evidence under each added one."""
    style = _Style(color)
    text = source_text_of(diff.suggestion)
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
            lines.extend(_pair_lines(old["text"], new["text"], style))
            lines.extend(_evidence_lines(_view(new["evidence"], new["confidence"], text), style))
        for old in old_items[i1 + paired:i2]:
            lines.append(style(f"-{old['text']}", fg="red"))
        for new in new_items[j1 + paired:j2]:
            lines.append(style(f"+{new['text']}", fg="green"))
            lines.extend(_evidence_lines(_view(new["evidence"], new["confidence"], text), style))
    return lines


def _pipeline(card: Card) -> str:
    return f"pmparse {card.pipeline.version}, {card.pipeline.model or 'rules only'}"


def render_header(diff: CardDiff, color: bool = False) -> list[str]:
    """The header of one record's diff: which files, which pipelines, source notes."""
    style = _Style(color)
    lines = [style(f"diff {diff.id} ({diff.record.source.location})", bold=True),
             style(f"--- {diff.record_path.name} ({_pipeline(diff.record)})", bold=True),
             style(f"+++ {diff.suggestion_label} ({_pipeline(diff.suggestion)})", bold=True)]
    if diff.source_changed:
        lines.append(style("  the source text changed since the record was made; once a field is accepted, or "
                           "every field decided, the record follows the new text, the evidence of the fields "
                           "you keep with it", fg="yellow"))
    return lines


def render_folded(diff: CardDiff, color: bool = False) -> list[str]:
    """One line each for unchanged, kept and rejected fields."""
    style = _Style(color)
    lines = []
    if diff.unchanged:
        lines.append(style(f"  {len(diff.unchanged)} fields unchanged: {', '.join(diff.unchanged)}", dim=True))
    if diff.moved:
        lines.append(style(f"  same words, found elsewhere in the new text (they move with it, nothing to decide): "
                           f"{', '.join(diff.moved)}", dim=True))
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
        text = source_text_of(diff.suggestion)
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
            changes.append({"field": change.field, "kind": change.kind, "record": change.record,
                            "suggestion": change.suggestion, "base": change.base, "evidence": evidence})
        records.append({
            "id": diff.id, "record": str(diff.record_path), "suggestion": diff.suggestion_label,
            "source_changed": diff.source_changed,
            "pipeline": {"record": card_data(diff.record)["pipeline"], "suggestion": card_data(diff.suggestion)["pipeline"]},
            "changes": changes, "unchanged": diff.unchanged, "moved": diff.moved, "kept": diff.kept,
            "rejected": diff.rejected,
        })
    return json.dumps({"records": records, "errors": report.errors}, ensure_ascii=False, indent=2) + "\n"


def _unified(old: str, new: str, name: str) -> list[str]:
    lines = [f"diff --git a/{name} b/{name}\n"]
    for line in difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                     fromfile=f"a/{name}", tofile=f"b/{name}", n=3):
        if line.endswith("\n"):
            lines.append(line)
        else:
            # git's marker for a last line without a newline
            lines.append(line + "\n\\ No newline at end of file\n")
    return lines


def keep_own_address(record: Card, base: Card | None, suggestion: Card, taken: Card) -> Card:
    """``taken`` (the record after a merge) with the record's own public address kept: one a
    person gave it (not the one pmparse gave last, which the base holds), or any when the
    suggestion offers none."""
    if suggestion.source.url is None or record.source.url != (base.source.url if base else None):
        return taken.model_copy(update={"source": taken.source.model_copy(update={"url": record.source.url})})
    return taken


def patched_text(diff: CardDiff, fields: list[str] | None = None) -> str:
    """The record text after taking ``fields`` (every change when None: the record then also
    follows an amended source) from the suggestion; the record's own address stays."""
    names = [c.field for c in diff.changes] if fields is None else fields
    new = keep_own_address(diff.record, diff.base, diff.suggestion,
                           merge(diff.record, diff.suggestion, names, follow=fields is None))
    return splice(diff.record_text, format_of(diff.record_path), new)


def render_patch(report: DiffReport) -> str:
    """A patch ``git apply`` accepts, run in the folder of the records, taking every change.

    The patch changes only the reviewed fields (and the source and pipeline they come with); the
    status and review mark are left to ``pmparse review``.
    """
    out: list[str] = []
    for diff in report.diffs:
        if not diff.open:
            continue
        new = patched_text(diff)
        if new != diff.record_text:
            out.extend(_unified(diff.record_text, new, diff.record_path.name))
    return "".join(out)


# --- entry point -----------------------------------------------------------------------------------


def read_text(path: Path) -> str:
    """A record file's text exactly as stored (line endings kept), for splicing and patches.

    Raises:
        RecordError: unreadable or not UTF-8.
    """
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"expected a readable UTF-8 record, found {exc}", str(path)) from exc


def _read_record(path: Path) -> tuple[Card, str]:
    text = read_text(path)
    return loads(text, format_of(path), str(path)), text


def diff_files(a: str | Path, b: str | Path) -> CardDiff:
    """Compare two record files, field by field (``b`` is read as a suggestion for ``a``).

    Raises:
        RecordError: a file is unreadable or not a valid card.
    """
    a, b = Path(a), Path(b)
    record, text = _read_record(a)
    suggestion, _ = _read_record(b)
    return compare(record, suggestion, record_path=a, record_text=text, suggestion_label=str(b))


def diff_paths(paths: list[str] | tuple[str, ...]) -> DiffReport:
    """What ``pmparse diff`` compares: a library's pending suggestions, or two record files.

    Raises:
        UsageError: neither one library folder nor two record files were given.
        RecordError: one of two record files is unreadable or invalid.
    """
    if len(paths) == 1 and Path(paths[0]).is_dir():
        from pmparse.review.session import pending_diffs  # review builds on this module

        return pending_diffs(paths[0])
    if len(paths) == 2 and all(Path(p).is_file() for p in paths):
        return DiffReport([diff_files(*paths)])
    missing = [p for p in paths if not Path(p).exists()]
    found = f"nothing at {', '.join(missing)}" if missing else f"{len(paths)} path(s)"
    raise UsageError(f"expected a library folder or two record files, found {found}")
