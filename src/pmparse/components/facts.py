"""Facts: organisation, date and duration of the incident, each with evidence and confidence.

Writes ``doc.user_data["pmparse_facts"]``: a dict from fact name to
``{"value", "evidence": [(start, end)], "confidence", "origin"}``.
"""

from __future__ import annotations

import re
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc

from . import dates

_ORG_KEYS = ("organisation", "organization", "company", "org", "owner_org", "publisher")
_DATE_KEYS = ("incident_date", "date", "start", "started_at", "start_time", "started")
_TITLE_KEYS = ("title", "name")


def _locate(text: str, value: str, region: tuple[int, int] | None) -> list[tuple[int, int]]:
    """Offsets of ``value`` inside ``region`` of the text, for evidence."""
    if region is None or not value:
        return []
    start = text.find(value, region[0], region[1])
    return [(start, start + len(value))] if start >= 0 else []


def front_matter_facts(doc: Doc) -> dict[str, dict[str, Any]]:
    """Facts stated in the source's front matter."""
    front = doc.user_data.get("pmparse_front_matter", {})
    region = doc.user_data.get("pmparse_front_matter_region")
    text = doc.text
    facts: dict[str, dict[str, Any]] = {}
    for key in _ORG_KEYS:
        if front.get(key):
            value = front[key]
            facts["organisation"] = {"value": value, "evidence": _locate(text, value, region), "confidence": 0.95,
                                     "origin": "front_matter"}
            break
    for key in _TITLE_KEYS:
        if front.get(key):
            value = front[key]
            facts["source_title"] = {"value": value, "evidence": _locate(text, value, region), "confidence": 0.9,
                                     "origin": "front_matter"}
            break
    for key in _DATE_KEYS:
        if front.get(key):
            found = dates.parse_date(front[key])
            if found:
                facts["date"] = {"value": found, "evidence": _locate(text, front[key], region), "confidence": 0.9,
                                 "origin": "front_matter"}
                break
    if "date" not in facts and "source_title" in facts:
        found = dates.find_dates(facts["source_title"]["value"])
        if found:
            value, _, _ = found[0]
            facts["date"] = {"value": value, "evidence": facts["source_title"]["evidence"], "confidence": 0.85,
                             "origin": "front_matter"}
    return facts


def text_facts(doc: Doc) -> dict[str, dict[str, Any]]:
    """Facts stated in the body: date and duration."""
    text = doc.text
    facts: dict[str, dict[str, Any]] = {}
    masked = doc.user_data.get("pmparse_masked", [])
    body_start = max((end for start, end in masked if start == 0), default=0)
    found = dates.find_dates(text, body_start, min(len(text), body_start + 20000))
    if found:
        value, start, end = found[0]
        facts["date"] = {"value": value, "evidence": [(start, end)], "confidence": 0.6, "origin": "text"}
    duration = dates.find_duration(text, body_start)
    if duration is not None:
        minutes, spans, confidence = duration
        facts["duration_minutes"] = {"value": minutes, "evidence": spans, "confidence": confidence, "origin": "text"}
    return facts


def location_facts(doc: Doc) -> dict[str, dict[str, Any]]:
    """Facts carried by the source's file name or URL (a date in the name)."""
    location = doc.user_data.get("pmparse_location", "")
    name = re.split(r"[\\/]", location)[-1]
    found = dates.find_dates(name)
    if found:
        return {"date": {"value": found[0][0], "evidence": [], "confidence": 0.7, "origin": "path"}}
    return {}


def extract_facts(doc: Doc) -> dict[str, dict[str, Any]]:
    """All facts of ``doc``: front matter first, then the file name, then the text."""
    facts = text_facts(doc)
    for name, fact in location_facts(doc).items():
        if name not in facts or facts[name]["confidence"] < fact["confidence"]:
            facts[name] = fact
    facts.update(front_matter_facts(doc))
    return facts


@Language.factory("pmparse_facts", assigns=["doc.user_data"])
def make_facts(nlp: Language, name: str):
    """Create the facts component."""

    def facts(doc: Doc) -> Doc:
        doc.user_data["pmparse_facts"] = extract_facts(doc)
        return doc

    return facts
