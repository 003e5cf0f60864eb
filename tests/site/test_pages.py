from __future__ import annotations

import json
import re

from pmparse.site import pages
from pmparse.site.view import invalid_summary


def row(card_id, **extra):
    data = {"id": card_id, "title": f"Title of {card_id}", "organisation": None, "year": None, "status": "suggested",
            "pending": False, "filled": 5, "components": [], "root_cause_categories": [],
            "contributing_factor_categories": [], "words": card_id.lower(), "error": None}
    data.update(extra)
    return data


SUMMARIES = {
    "IL-0001": row("IL-0001", root_cause_categories=["hardware_failure"], organisation="Acme", year="2019"),
    "IL-0002": row("IL-0002", root_cause_categories=["hardware_failure", "software_bug"], organisation="acme!"),
    "IL-0003": row("IL-0003", root_cause_categories=["software_bug"], status="reviewed", pending=True),
    "IL-0004": row("IL-0004", root_cause_categories=["hardware_failure"], components=["dns"]),
    "IL-0005": row("IL-0005"),
}
NAMES = {"root_cause_categories.hardware_failure": "Hardware failure",
         "root_cause_categories.software_bug": "Software bug"}


def test_groups_most_cases_first_newest_card_first_and_those_without_a_value_last():
    found = pages.groups(pages.FACETS[0], SUMMARIES, NAMES)
    assert [(g.label, g.ids) for g in found] == [
        ("Hardware failure", ["IL-0004", "IL-0002", "IL-0001"]),
        ("Software bug", ["IL-0003", "IL-0002"]),
        ("No root-cause category", ["IL-0005"]),
    ]
    assert [g.file for g in found] == ["hardware_failure.html", "software_bug.html", "_none.html"]


def test_organisation_pages_get_safe_distinct_file_names():
    facet = next(f for f in pages.FACETS if f.field == "organisation")
    files = {g.value: g.file for g in pages.groups(facet, SUMMARIES, NAMES)}
    assert files["_none"] == "_none.html"
    assert files["Acme"] != files["acme!"] and files["Acme"].startswith("acme-")  # same slug: a digest each
    weird = pages.groups(facet, {"IL-0001": row("IL-0001", organisation="../../etc/passwd")}, NAMES)
    assert re.fullmatch(r"etc-passwd\.html", weird[0].file)
    odd = pages.groups(facet, {"IL-0001": row("IL-0001", organisation="日本")}, NAMES)
    assert re.fullmatch(r"[0-9a-f]{8}\.html", odd[0].file)


def test_the_index_groups_by_root_cause_with_counts_and_links_the_groupings():
    html = pages.index_page(SUMMARIES, NAMES)
    assert '<h1>Incident library <span class="count">5 cases</span></h1>' in html
    assert re.search(r'<h3>Hardware failure <span class="count" data-total="3">3 cases</span></h3>', html)
    assert '<a href="#rc-software_bug">Software bug</a>' in html
    for facet in pages.FACETS:
        assert f'href="by/{facet.key}.html"' in html
    assert html.count('<tr data-id="IL-0002">') == 2  # under both of its categories
    assert '<span class="status s-pending"' in html.split('data-id="IL-0003"')[1].split("</tr>")[0]
    assert 'src="search-index.js"' in html and 'src="assets/site.js"' in html and 'id="search"' in html


def test_pages_given_the_groups_once_read_them_and_render_the_same(monkeypatch):
    grouped = pages.all_groups(SUMMARIES, NAMES)
    expected_index = pages.index_page(SUMMARIES, NAMES)
    expected_facet = pages.facet_index_page(pages.FACETS[1], SUMMARIES, NAMES)
    calls = []
    monkeypatch.setattr(pages, "groups", lambda *args: calls.append(args) or [])
    assert pages.index_page(SUMMARIES, NAMES, grouped) == expected_index
    assert pages.facet_index_page(pages.FACETS[1], SUMMARIES, NAMES, grouped[pages.FACETS[1].key]) == expected_facet
    assert calls == []  # nothing grouped again


def test_invalid_records_are_listed_not_hidden():
    summaries = dict(SUMMARIES, **{"IL-0009": invalid_summary("IL-0009", "title: <bad>")})
    html = pages.index_page(summaries, NAMES)
    assert "Invalid records" in html and "invalid record: title: &lt;bad&gt;" in html


def test_group_pages_link_back_and_to_cards_from_two_folders_down():
    facet = pages.FACETS[1]
    [group, _none] = pages.groups(facet, SUMMARIES, NAMES)
    html = pages.group_page(facet, group, SUMMARIES)
    assert 'href="../../cards/IL-0004.html"' in html and 'href="../component.html"' in html
    assert "Component: Dns" in html
    assert 'href="component/dns.html"' in pages.facet_index_page(facet, SUMMARIES, NAMES)


def test_the_search_index_is_a_script_whose_json_holds_no_markup():
    summaries = {"IL-0001": row("IL-0001", words="</script><script>alert(1) & \u2028")}
    text = pages.search_index(summaries)
    assert text.startswith("window.PMPARSE_SEARCH = ") and text.endswith(";\n")
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    data = json.loads(text[len("window.PMPARSE_SEARCH = "):-2])
    assert data == {"IL-0001": "</script><script>alert(1) & \u2028"}


def test_rows_escape_every_value():
    html = pages.row(row("IL-0001", title="<img src=x onerror=alert(1)>", organisation='"><b>'), "")
    assert "<img" not in html and "<b>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "&quot;&gt;&lt;b&gt;" in html
