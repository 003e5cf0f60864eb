from __future__ import annotations

import spacy

from pmparse.nlp.components.sectionizer import build_sections, find_headings, sectionize
from pmparse.rules.headings import load_headings

TABLE = load_headings()


def labels(text: str, plain: bool = False) -> list[tuple[str, str]]:
    """(section label, first words of its body) for each section."""
    sections = build_sections(text, find_headings(text, [], TABLE, plain_text=plain))
    return [(s.label, text[s.start:s.end].strip()[:20]) for s in sections]


def test_markdown_headings_map_to_fields_and_nest():
    text = ("# Big outage\n\nIntro words here.\n\n## Impact\n\nUsers saw errors.\n\n"
            "## Timeline\n\n### 10:02\n\nAlert fired.\n\n## Action items\n\n### Process\n\n- Do a thing\n")
    assert labels(text) == [
        ("unknown", "Intro words here.\n\n#"),  # a level-1 section holds the rest
        ("symptoms", "Users saw errors."),
        ("none", "### 10:02\n\nAlert fir"),
        ("none", "Alert fired."),
        ("action_items", "### Process\n\n- Do a "),
        ("action_items", "- Do a thing"),
    ]


def test_setext_wiki_bold_and_upper_case_headings():
    text = ("Root cause\n----------\n\nA bug.\n\n== Resolution ==\n\nRolled back.\n\n"
            "**Lessons learned**\n\nTest more.\n\nDETECTION\n\nA pager went off.\n")
    assert [label for label, _ in labels(text)] == ["root_cause", "remediation", "lessons", "detection"]


def test_restructuredtext_and_asciidoc_headings():
    rst = "Root cause\n''''''''''\n\nA bug.\n\nResolution\n^^^^^^^^^^\n\nRolled back.\n"
    assert [label for label, _ in labels(rst)] == ["root_cause", "remediation"]
    adoc = "= Cache outage\n\n== Root cause\n\nA bug.\n\n=== Lessons learned\n\nTest more.\n"
    assert [label for label, _ in labels(adoc)][-2:] == ["root_cause", "lessons"]
    # an equation is no heading, nor is a line before an ellipsis or a short adornment
    assert labels("x\n\n= 5 apples\n") == [("preamble", "x\n\n= 5 apples")]
    assert [label for label, _ in labels("Root cause\n...\n\nA bug.\n")] == ["preamble"]
    assert [label for label, _ in labels("Root cause\n^^^\n\nA bug.\n")] == ["preamble"]


def test_bold_bullet_labels_scope_to_their_item_and_nested_list():
    text = ("- **Identified**: Pingdom said the site was down.\n\n"
            "- **Context**:\n  - An engineer ran a destroy command.\n\n"
            "  - **Resolution**: Re-applied the plan.\n")
    got = labels(text)
    assert got[0] == ("detection", "Pingdom said the sit")
    assert got[1][0] == "none"
    assert got[2] == ("remediation", "Re-applied the plan.")


def test_inline_labels_and_question_headings():
    text = ("Root cause: the certificate expired.\n\nUnrelated paragraph.\n\n"
            "How was the incident detected?\nA customer emailed support.\n")
    sections = build_sections(text, find_headings(text, [], TABLE))
    assert [s.label for s in sections] == ["root_cause", "detection"]
    # an inline label with content on its line covers its paragraph only
    assert text[sections[0].start:sections[0].end].strip() == "the certificate expired."
    assert text[sections[1].start:sections[1].end].strip() == "A customer emailed support."


def test_unknown_inline_label_is_not_a_heading():
    assert labels("Note: this is just a remark.\n") == [("preamble", "Note: this is just a")]


def test_plain_text_known_lines_and_table_of_contents():
    toc = "Contents\n[\nhide\n]\n1\nSummary\n2\nTimeline\n3\nActionables\n"
    text = toc + "Summary\nThe app crashed for\nall users.\nActionables\nFix the crash handler (T1)\n"
    got = labels(text, plain=True)
    assert ("none", "The app crashed for\n") in got
    assert got[-1] == ("action_items", "Fix the crash handle")
    # the same lines are not headings in markdown
    assert all(label in ("preamble",) for label, _ in labels(text, plain=False))


def test_a_status_label_inside_action_items_stays_an_action_item():
    items = "Actionables\nStatus:\nDone\n Rotate the signing key (T1)\nStatus:\nOpen\n Alert on key age (T2)\n"
    got = labels("Summary\nThe app crashed.\n" + items, plain=True)
    assert [label for label, _ in got] == ["none", "action_items", "action_items", "action_items"]
    assert got[-1] == ("action_items", "Open\n Alert on key a")
    # outside a field's section the same label still maps to no field (a status page's "Status:")
    assert [label for label, _ in labels("Status: Resolved\nThe app crashed.\n")] == ["none"]
    # and a heading that is not an inline label keeps its own meaning inside a field
    assert [label for label, _ in labels("## Action items\n\n- Fix it\n\n### Timeline\n\n10:02 alert\n")] == [
        "action_items", "none"]


def test_sectionize_writes_span_groups():
    nlp = spacy.blank("en")
    doc = nlp.make_doc("## Impact\n\nSite down.\n\n## Fix\n\nRestarted it.\n")
    sectionize(doc, TABLE)
    assert [s.label_ for s in doc.spans["headings"]] == ["symptoms", "remediation"]
    assert [s.label_ for s in doc.spans["sections"]] == ["symptoms", "remediation"]
    assert doc.spans["sections"].attrs["scores"] == [0.9, 0.9]


def test_code_fences_hide_headings():
    text = "## Impact\n\nDown.\n\n```\n# Root cause\nnot a heading\n```\n"
    assert [label for label, _ in labels(text)] == ["symptoms"]


def test_many_headings_take_linear_time():
    text = "".join(f"{'#' * (1 + i % 6)} Heading {i}\n\nBody {i}.\n\n" for i in range(20000))
    headings = find_headings(text, [], TABLE)
    assert len(build_sections(text, headings)) == 20000
    from pmparse.nlp.components.sectionizer import incident_sections

    assert incident_sections(headings, len(text)) == []  # no year, no field: each level scanned once


LOG = ("# Platform incident log\n\n## 2024\n\n"
       "### Incident on 2024-03-02 - Queue stalled\n\n- **Impact**: Jobs waited an hour.\n"
       "- **Resolution**: We restarted the consumers.\n- **Review actions**: Alert on queue age.\n\n"
       "### Incident on 2024-01-15 - Certificates expired\n\n- **Impact**: Sign-in failed.\n"
       "- **Resolution**: We renewed them.\n\n"
       "### Incident on 2024-01-03 - Slow pages\n\nNo write-up yet.\n")


def test_an_incident_log_holds_one_section_per_incident_with_field_headings():
    from pmparse.nlp.components.sectionizer import incident_sections

    blocks = incident_sections(find_headings(LOG, [], TABLE), len(LOG))
    assert [LOG[a:b].split("\n", 1)[0] for a, b in blocks] == ["### Incident on 2024-03-02 - Queue stalled",
                                                              "### Incident on 2024-01-15 - Certificates expired"]
    assert blocks[1][1] == LOG.index("### Incident on 2024-01-03")  # up to the next heading of its level


def test_one_report_with_a_timeline_of_headings_holds_one_incident():
    from pmparse.nlp.components.sectionizer import incident_sections

    report = ("# Search outage\n\n## Summary\n\nSearch failed.\n\n### Impact\n\nNo results.\n\n"
              "## Timeline\n\n### 10:02\n\nAn alert fired.\n\n### 10:30\n\nWe rolled back.\n\n"
              "## Root cause\n\nA bad index.\n\n## Action items\n\n- Test the index.\n")
    assert incident_sections(find_headings(report, [], TABLE), len(report)) == []
    # two sections with field headings, but no field recurs under both: still one report
    parts = ("# Report\n\n## Part one\n\n### Impact\n\nA.\n\n### Resolution\n\nB.\n\n"
             "## Part two\n\n### Root cause\n\nC.\n\n### Action items\n\n- D.\n")
    assert incident_sections(find_headings(parts, [], TABLE), len(parts)) == []


def test_parts_of_one_report_are_not_incidents():
    from pmparse.nlp.components.sectionizer import incident_sections

    regions = ("# Storage outage\n\n## Summary\n\nWrites failed in two regions.\n\n"
               "## us-east-1 in 2024\n\n**Impact:** Writes failed.\n\n**Mitigation:** We failed over.\n\n"
               "## eu-west-1 in 2024\n\n**Impact:** Reads slowed.\n\n**Mitigation:** We added replicas.\n")
    assert incident_sections(find_headings(regions, [], TABLE), len(regions)) == []  # a Summary beside them
    phases = regions.replace("## Summary\n\nWrites failed in two regions.\n\n", "").replace(" in 2024", "")
    assert incident_sections(find_headings(phases, [], TABLE), len(phases)) == []  # no year: parts, not incidents
    dated = regions.replace("## Summary\n\nWrites failed in two regions.\n\n", "")
    assert len(incident_sections(find_headings(dated, [], TABLE), len(dated))) == 2


def test_the_level_with_the_most_incident_headings_wins():
    from pmparse.nlp.components.sectionizer import incident_sections

    def incident(date: str, follow_up: bool) -> str:
        part = f"## Incident on {date}\n\n**Impact:** Errors.\n\n**Resolution:** Rolled back.\n\n"
        if follow_up:  # a dated sub-section with field headings of its own
            part += f"### Second outage on {date}\n\n**Impact:** More errors.\n\n**Resolution:** Fixed the job.\n\n"
        return part

    text = "# Log\n\n" + incident("2024-03-02", True) + incident("2024-02-01", True) + incident("2024-01-05", False)
    blocks = incident_sections(find_headings(text, [], TABLE), len(text))
    assert [text[a:b].split("\n", 1)[0] for a, b in blocks] == [
        "## Incident on 2024-03-02", "## Incident on 2024-02-01", "## Incident on 2024-01-05"]


def test_a_provider_review_template_maps_its_question_headings():
    text = ("## What happened?\n\nRequests to the queue service failed.\n\n"
            "## What went wrong and why?\n\nA cache flag was flipped for every region at once.\n\n"
            "## How did we respond?\n\nAlerts fired at 10:05 and the flag was reverted.\n\n"
            "## How are we making incidents like this less likely or less impactful?\n\n- Stage flag changes.\n\n"
            "## How can customers make incidents like this less impactful?\n\n- Retry with backoff.\n")
    assert [label for label, _ in labels(text)] == ["none", "root_cause", "none", "action_items", "none"]


class _Model:
    """A stand-in heading model: a dict of what it reads headings as."""

    def __init__(self, fields: dict[str, tuple[str, float]]) -> None:
        self.fields = fields

    def field(self, heading: str):
        return self.fields.get(heading.strip().lower())


def test_a_heading_model_reads_headings_the_table_does_not_know():
    model = _Model({"getting back on our feet": ("remediation", 0.8), "why did the disk fill?": ("root_cause", 0.7),
                    "impact": ("lessons", 0.99), "digging in": ("root_cause", 0.9)})
    text = ("# A bad night\n\nIntro.\n\n## Getting back on our feet\n\nWe restarted it.\n\nWhy did the disk fill?\n\n"
            "A full disk.\n\n## Impact\n\nUsers saw errors.\n\n### Digging in\n\nToo much logging.\n")
    headings = find_headings(text, [], TABLE, model=model)
    found = [(s.label, s.learned) for s in build_sections(text, headings)]
    assert found == [
        ("unknown", False),  # the title: the stand-in does not map it
        ("remediation", True),
        ("root_cause", True),  # a question on its own line
        ("symptoms", False),  # the table wins where it knows a heading
        ("symptoms", False),  # and a learned heading does not override the table's enclosing field
    ]
    # without a model nothing is learned
    assert [s.label for s in build_sections(text, find_headings(text, [], TABLE))][1] == "unknown"


def test_sectionize_records_learned_sections():
    nlp = spacy.blank("en")
    doc = nlp.make_doc("## Digging in\n\nRestarted it.\n")
    sectionize(doc, TABLE, _Model({"digging in": ("remediation", 0.8)}))
    assert [s.label_ for s in doc.spans["sections"]] == ["remediation"]
    assert doc.user_data["pmparse_learned_sections"] == [(13, len(doc.text))]
    assert doc.spans["sections"].attrs["scores"] == [0.8]


def test_table_sections_ignore_the_heading_model():
    from pmparse.nlp.components.sectionizer import table_sections

    doc = spacy.blank("en").make_doc("## Digging in\n\nRestarted it.\n")
    sectionize(doc, TABLE, _Model({"digging in": ("remediation", 0.8)}))
    assert [label for _, _, label, _ in table_sections(doc, TABLE)] == ["unknown"]


def test_a_verb_of_work_before_a_reference_labels_an_item_not_a_section():
    # "- Fix: PR #4521" under action items is one item, its verb the work and the reference where;
    # read as a heading it left a bare reference and filed the bullets under it as remediation
    text = ("## Action items\n\n- Fix: PR #4521\n- Reindex the queue\n\n"
            "- **Fixes**: [PR 4522](https://tracker.example.org/pr/4522)\n- Add an alert on queue age\n")
    assert [label for label, _ in labels(text)] == ["action_items"]


def test_a_labelled_bullet_in_a_list_of_items_is_an_item_not_a_heading():
    # "- Fix: restart the consumers" under action items was the heading "Fix" over the words after
    # it and the bullets below them, all filed as remediation; its label names the item's kind
    text = "## Action items\n\n- Fix: restart the consumers\n- Reindex the queue\n"
    assert [label for label, _ in labels(text)] == ["action_items"]
    assert find_headings(text, [], TABLE)[-1].text == "Action items"
    text = ("## What went poorly\n\n- **Detection delay**: nobody looked at the queue for a day\n"
            "- **Root cause**: a retry loop without a budget\n- Slow paging\n\n"
            "## Contributing factors\n\n- Monitoring: no alert watched the queue's age\n\n"
            "## Resolution\n\n### Done on the day\n\n- **Alerting**: paged on queue age from then on\n")
    assert [label for label, _ in labels(text)] == ["lessons", "contributing_factors", "remediation", "remediation"]
    # outside such a list a labelled bullet still opens its field: a summary's "- Root cause: ..."
    text = "## Summary\n\n- Impact: checkout failed\n- Root cause: the certificate expired\n"
    assert [label for label, _ in labels(text)] == ["none", "symptoms", "root_cause"]
    # a label with nothing after it on its line still heads the lines under it, as in "Status:"
    text = "## Action items\n\nDetection:\nAlert on queue age\n"
    assert [label for label, _ in labels(text, plain=True)][-1] == "detection"
