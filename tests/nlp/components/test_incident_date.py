"""The incident's date over a post's publication date, on texts written for these tests."""

from __future__ import annotations

from pmparse.nlp.components.facts import find_incident_date


def _post(body: str, front: str = "date: 2031-03-20\n") -> tuple[str, dict, tuple[int, int], int]:
    head = f"---\ntitle: Proxy died\n{front}---\n"
    return head + body, {"title": "Proxy died", **dict(line.split(": ", 1) for line in front.splitlines())}, (0, len(head)), len(head)


def test_a_posts_summary_saying_when_it_began_beats_the_publication_date():
    text, front, region, body = _post("\n## Summary\n\nOn the evening of March 18, 2031, students saw errors.\n")
    fact = find_incident_date(text, body, "blog/2031-03-20-proxy.md", [], front, region)
    assert fact["value"] == "2031-03-18" and fact["origin"] == "text"
    assert text[fact["evidence"][0][0]:fact["evidence"][0][1]].startswith("March 18")


def test_the_publication_date_stands_when_the_text_gives_no_earlier_day():
    text, front, region, body = _post("\n## Summary\n\nOn March 20, 2031 from 09:00 the proxy failed.\n")
    fact = find_incident_date(text, body, "", [], front, region)
    assert fact["value"] == "2031-03-20" and fact["origin"] == "front_matter"
    # a date long before the post is background, not the incident
    text, front, region, body = _post("\n## Summary\n\nSince a change made on 2030-06-01, the proxy failed.\n")
    assert find_incident_date(text, body, "", [], front, region)["value"] == "2031-03-20"


def test_a_status_notes_date_beside_its_end_is_the_incidents_start():
    text, front, region, body = _post("\nOn March 18, 2031 we planned this.\n",
                                      "date: 2031-03-20T10:00:00Z\nresolvedwhen: 2031-03-20T11:00:00Z\n")
    assert find_incident_date(text, body, "", [], front, region)["value"] == "2031-03-20"
