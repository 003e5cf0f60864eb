"""Splicing accepted fields into a record file: only that field's lines change, a person's formatting stays."""

from __future__ import annotations

import json

import yaml

from pmparse.card.schema import TEXT_FIELDS, Card
from pmparse.errors import RecordError
from pmparse.library.items import same_words
from pmparse.library.records import RecordFormat, card_data, dumps, flow_text, loads
from pmparse.yaml_problems import CalendarLoader

#: A key the record does not hold (None is a value a key can hold).
MISSING = object()


def last_end(node: yaml.Node) -> int:
    """Where the last character of a node's content ends (trailing comments and blanks excluded)."""
    if isinstance(node, yaml.ScalarNode) or getattr(node, "flow_style", False) or not node.value:
        return node.end_mark.index
    last = node.value[-1]
    return last_end(last[1] if isinstance(last, tuple) else last)


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
        start, end = key.start_mark.index, last_end(value)
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
        old_data = json.loads(text) if fmt == "json" else yaml.load(text, Loader=CalendarLoader)
    except (json.JSONDecodeError, yaml.YAMLError):
        return fresh
    new_data = card_data(new)
    if fmt == "yaml" and isinstance(old_data, dict):
        patched = patch_items(text, old_data, new_data)
        if patched != text:
            try:
                patched_data = yaml.load(patched, Loader=CalendarLoader)
            except yaml.YAMLError:
                patched_data = None  # not what was meant: the fields are spliced whole instead
            if isinstance(patched_data, dict):
                text, old_data = patched, patched_data
    regions, fresh_regions = top_regions(text), top_regions(fresh)
    if not isinstance(old_data, dict) or regions is None or fresh_regions is None:
        return fresh
    changed = [key for key in new_data if old_data.get(key, MISSING) != new_data[key]]
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
