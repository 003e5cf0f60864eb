"""Facts: dates, times, durations and the organisation, on text written for these tests."""

from __future__ import annotations

import datetime as dt

import pytest

from pmparse.ingest.read import ingest_bytes
from pmparse.nlp.components.facts import (
    document_title,
    find_incident_date,
    find_incident_duration,
    find_organisation,
    location_date,
    name_from_host,
)
from pmparse.nlp.extractors import clock, dates, durations, timeline
from pmparse.nlp.pipeline import PipelineConfig, analyse, get

REF = dt.date(2021, 3, 10)


# --- dates ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("on 2021-03-09 at noon", "2021-03-09"),
        ("at 2021-03-09T14:05Z", "2021-03-09"),
        ("On 9 March 2021 the", "2021-03-09"),
        ("On Tuesday 9th of March, 2021", "2021-03-09"),
        ("March 9, 2021 was", "2021-03-09"),
        ("Mar. 9th 2021", "2021-03-09"),
        ("on 03/09/2021 we", "2021-03-09"),
        ("on 3/9/21 we", "2021-03-09"),
        ("on 25/03/2021 we", "2021-03-25"),
        ("on 09.03.2021 we", "2021-03-09"),
        ("2021/03/09 12:00", "2021-03-09"),
        ("report 20210309 x", "2021-03-09"),
    ],
)
def test_find_dates_reads_many_forms(text, expected):
    assert [d for d, _, _ in dates.find_dates(text)] == [expected]


def test_find_dates_leaves_versions_and_invalid_dates_alone():
    assert dates.find_dates("upgraded to v1.10.20 and 2.3.4; on 2021-02-30 nothing") == []


def test_numeric_order_follows_unambiguous_dates():
    assert dates.numeric_order("on 25/03/2021 and 04/05/2021") == "dmy"
    assert dates.find_dates("04/05/2021", order="dmy")[0][0] == "2021-05-04"
    assert dates.numeric_order("on 03/25/2021 and 04/05/2021") == "mdy"


def test_partial_dates_skip_full_dates_and_resolve_to_the_nearest_year():
    text = "On Monday 8. March the queue grew; by March 9th it was gone. 10 March 2021 is complete."
    found = dates.find_partial_dates(text)
    assert [(m, d) for m, d, _, _ in found] == [(3, 8), (3, 9)]
    assert dates.resolve_year(12, 30, dt.date(2021, 1, 2)) == "2020-12-30"
    assert dates.resolve_year(1, 3, dt.date(2020, 12, 30)) == "2021-01-03"


def test_page_dates_are_recognised():
    text = "This page was last modified on 3 June 2015, at 09:12."
    start = text.index("3 June")
    assert dates.is_page_date(text, start)
    assert not dates.is_page_date("The outage began on 10 May 2016.", 23)


@pytest.mark.parametrize(
    ("text", "minutes"),
    [("at 13:19 UTC", 13 * 60 + 19), ("at 4:11 AM", 4 * 60 + 11), ("at 2:08pm", 14 * 60 + 8),
     ("at 12:30 am", 30), ("at 1250 UTC", 12 * 60 + 50), ("by 9 pm PST", 21 * 60)],
)
def test_find_times(text, minutes):
    assert [m for m, _, _ in clock.find_times(text)] == [minutes]


def test_moments_join_a_date_and_a_time_nearby():
    text = "13:19 UTC on 10 Jan and 2021-01-11 05:30"
    moments = clock.find_moments(text, reference=dt.date(2021, 1, 15))
    assert [(m.date, m.minutes) for m in moments] == [("2021-01-10", 799), ("2021-01-11", 330)]
    assert text[moments[0].start:moments[0].end] == "13:19 UTC on 10 Jan"


# --- durations ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "minutes"),
    [("0h 16m", 16), ("1 hour and 50 minutes", 110), ("1h50m", 110), ("5 days", 7200), ("90 secs", 2),
     ("two hours", 120), ("half an hour", 30), ("6h 27m", 387)],
)
def test_parse_duration(text, minutes):
    assert durations.parse_duration(text) == minutes


def test_stated_span_between_two_moments():
    text = "Checkout failed between 13:19 UTC on 10 Jan and 05:30 UTC on 11 Jan for most shoppers."
    (minutes, evidence), = durations.find_stated_spans(text, reference=dt.date(2021, 1, 12))
    assert minutes == 16 * 60 + 11
    assert [text[s:e] for s, e in evidence] == ["13:19 UTC on 10 Jan", "05:30 UTC on 11 Jan"]


def test_stated_span_from_to_and_dash_forms():
    assert durations.find_stated_spans("From 15:09 BST until about 17:00 BST, every call failed.")[0][0] == 111
    assert durations.find_stated_spans("Outage 2021-06-02 22:10 - 2021-06-03 01:49 UTC")[0][0] == 219
    assert durations.find_stated_spans("Outage 22:10 - 01:49 UTC")[0][0] == 219


def test_a_range_of_days_is_not_a_stated_length():
    assert durations.find_stated_spans("The bad value was live from 2 March to 9 March 2021.", reference=REF) == []


def test_key_events_prefer_repaired_over_resolved():
    text = ("- **Key events**\n"
            "  - Fault occurs 2021-03-09 07:15\n"
            "  - Fault detected 2021-03-09 09:00\n"
            "  - Repaired 2021-03-09 09:45\n"
            "  - Resolved 2021-03-09 12:00\n")
    minutes, evidence = timeline.find_key_events(text)
    assert minutes == 150
    assert [text[s:e] for s, e in evidence] == ["2021-03-09 07:15", "2021-03-09 09:45"]


def test_find_duration_orders_its_sources():
    labelled = "Summary of the day.\n\n- **Time to repair**: 6h 27m\n\nWe were down for 2 hours.\n"
    assert durations.find_duration(labelled)[0] == 387
    assert durations.find_duration(labelled)[3] == "labelled"
    phrase = "The API was unavailable for 1 hour and 50 minutes while the disk was replaced."
    minutes, evidence, confidence, how = durations.find_duration(phrase)
    assert (minutes, how) == (110, "phrase")
    assert phrase[evidence[0][0]:evidence[0][1]] == "1 hour and 50 minutes"
    assert durations.find_duration("Nothing here says how long it took.") is None


def test_timeline_needs_an_entry_saying_the_service_recovered():
    text = "10:02 Error rate rises\n10:20 We page the database team\n11:05 Writes succeed, service restored\n"
    assert timeline.timeline_span(text, 0, len(text), REF)[0] == 63
    unresolved = "10:02 Error rate rises\n10:20 We page the database team\n"
    assert timeline.timeline_span(unresolved, 0, len(unresolved), REF) is None


def test_incident_duration_falls_back_to_a_timeline():
    text = "Intro line.\n\n## Timeline\n23:50 Queue stalls\n00:20 Consumers restarted, back to normal\n"
    start = text.index("23:50")
    fact = find_incident_duration(text, 0, "2021-03-09", [(start, len(text))])
    assert fact["value"] == 30
    assert fact["origin"] == "text:timeline"
    assert fact["confidence"] < 0.75


# --- organisation ---------------------------------------------------------------------------


def test_front_matter_names_the_organisation():
    text = "---\ncompany: Acme Rockets\n---\nBody.\n"
    fact = find_organisation(text, 31, "notes/x.md", None, {"company": "Acme Rockets"}, (0, 31))
    assert fact["value"] == "Acme Rockets"
    assert fact["origin"] == "front_matter"
    assert [text[s:e] for s, e in fact["evidence"]] == ["Acme Rockets"]


def test_source_url_names_the_organisation():
    known = find_organisation("Body.", location="https://status.wikimedia.org/incidents/1")
    assert (known["value"], known["origin"]) == ("Wikimedia Foundation", "url")
    guessed = find_organisation("Body.", location="https://blog.acme-rockets.co.uk/post")
    assert guessed["value"] == "Acme-rockets"
    assert guessed["confidence"] < known["confidence"]
    forge = find_organisation("Body.", location="https://github.com/dfds/postmortems/blob/main/x.md")
    assert forge["value"] == "DFDS"


def test_a_guess_from_an_unknown_host_or_account_yields_to_the_text():
    text = "Alerts from prometheus.cloud-platform.service.justice.gov.uk went quiet for an hour."
    # a project account on a forge is often not the organisation: what the text says wins
    fact = find_organisation(text, location="https://github.com/some-project/reports/blob/main/a.md")
    assert (fact["value"], fact["origin"]) == ("Ministry of Justice", "text")
    fact = find_organisation("We lost a disk.", location="https://github.com/someproject-org/reports/blob/main/a.md")
    assert (fact["value"], fact["origin"]) == ("Someproject", "url") and fact["confidence"] < 0.5
    # a text saying nothing of itself behind a forge account may be a catalogue's entry (issue 35)
    assert find_organisation("Body.", location="https://github.com/someproject-org/reports/blob/main/a.md") is None
    # a slug of several words the text never writes is no display name (issue 35)
    assert find_organisation("Body.", location="https://github.com/some-project/reports/blob/main/a.md") is None
    # a known organisation's account still beats a mention in the text
    fact = find_organisation(text, location="https://github.com/dfds/postmortems/blob/main/a.md")
    assert fact["value"] == "DFDS"


def test_self_reference_names_the_organisation():
    text = "Incident report\n\nAt Zephyr Labs, we run a queue for every tenant. It stalled."
    fact = find_organisation(text)
    assert fact["value"] == "Zephyr Labs"
    assert fact["origin"] == "self_reference"
    assert [text[s:e] for s, e in fact["evidence"]] == ["Zephyr Labs"]
    assert find_organisation("Here we at Zephyr Labs fixed it.")["value"] == "Zephyr Labs"


def test_hosts_and_site_names_in_the_text_name_the_organisation():
    text = "Alerts from prometheus.cloud-platform.service.justice.gov.uk went quiet for an hour."
    fact = find_organisation(text)
    assert fact["value"] == "Ministry of Justice"
    assert fact["origin"] == "text"
    assert find_organisation("Wikitech\nIncident documentation\nThe cache filled up.")["value"] == "Wikimedia Foundation"


def test_vendors_and_folder_names_are_not_the_organisation():
    text = "An AWS outage in one region broke our deploys; AWS and GitHub were slow all day."
    assert find_organisation(text, location="/data/corpus/dfds/PM2020-001 - thing.md") is None


def test_name_from_host():
    assert name_from_host("status.example.com") == "Example"
    assert name_from_host("www.agency.gov.uk") == "Agency"
    assert name_from_host("localhost") is None


# --- date -----------------------------------------------------------------------------------


def test_date_from_front_matter_and_title():
    assert find_incident_date("x", front={"date": "2020-02-12 11:45"})["value"] == "2020-02-12"
    title = ("Incident on 2020-04-15 - TLS", [(0, 26)])
    fact = find_incident_date("Incident on 2020-04-15 - TLS\n\nBody.", title=title)
    assert fact["value"] == "2020-04-15"


def test_an_earlier_text_date_beats_a_publication_date_in_the_file_name():
    text = "## Summary\nOn 2 March 2021 a bad config went out.\n"
    fact = find_incident_date(text, location="posts/2021-03-10-config.md")
    assert fact["value"] == "2021-03-02"
    assert fact["evidence"] and text[fact["evidence"][0][0]:fact["evidence"][0][1]] == "2 March 2021"


def test_file_name_date_when_the_text_has_none_and_page_dates_are_skipped():
    text = "This page was last modified on 3 June 2015, at 09:12.\nSummary\nThe search cluster slowed.\n"
    fact = find_incident_date(text, location="wiki/20150602-Search.txt")
    assert (fact["value"], fact["origin"]) == ("2015-06-02", "path")
    assert location_date("a/20161202-20161201-Images.txt")[0] == "2016-12-01"


def test_yearless_dates_take_the_year_of_the_file_name():
    text = "## Summary\nAt 6:40 AM UTC on November 24th, a package was hijacked.\n"
    assert find_incident_date(text, location="x/2025-11-26-hijack.md")["value"] == "2025-11-24"


def test_document_title_from_a_heading():
    text = "# Queue stall in the billing service\n\nBody."
    title, evidence = document_title(text)
    assert title == "Queue stall in the billing service"
    assert text[evidence[0][0]:evidence[0][1]] == title


def test_a_printed_wiki_page_opening_with_its_footer_has_no_title():
    assert document_title("Privacy policy\nAbout\nSome wiki\nIncident report\n\nBody.") is None
    # a wiki page's own name is its title, date included
    assert document_title("Incident documentation/20990101-Queue\nBody text follows.")[0] == \
        "Incident documentation/20990101-Queue"
    assert document_title("Queue policy review\n\nBody.")[0] == "Queue policy review"
    assert document_title("Terms of Use\nBody text.") is None


def test_the_first_line_of_a_wrapped_paragraph_is_no_title():
    # a report with no heading opens with prose hard-wrapped at 90 columns: its first line is half a sentence
    text = ("On 3 May 2031 the ticket desk at Ostrava Mills could not attach files to any request for most of\n"
            "the afternoon. Uploads failed with a quota error.\n")
    assert document_title(text) is None
    # a short title line with its byline under it stays a title
    assert document_title("Queue stall in the billing service\nby Jana Roe, 2031\n\nBody.")[0] == \
        "Queue stall in the billing service"
    # nor does a long labelled title above metadata lines (front matter pushed into the text)
    assert document_title("title: Queue stall in the billing service after the nightly compaction job\n"
                          "organisation: Ostrava Mills\n\nBody.")[0] == \
        "Queue stall in the billing service after the nightly compaction job"


def test_a_long_line_standing_alone_without_a_stop_is_a_title():
    title = "Summary of the Zorbq Queue Service Event in the Western (WEST-7) Region on the Second of March"
    assert document_title(title + "\n\nWe want to tell you more.\n")[0] == title
    # the same words going on in the next line, or ending with a stop, are the body's
    assert document_title(title + "\nand the queue stalled.\n") is None
    assert document_title(title + ".\n\nWe want to tell you more.\n") is None
    # more than twenty words is prose, standing alone or not
    prose = "Summary of the Zorbq Queue Service Event that happened in the Western Region on the second day of March after the change"
    assert document_title(prose + "\n\nBody.\n") is None


def test_a_title_that_names_a_footer_page_stays_a_title():
    assert document_title("# Privacy policy page deploy broke sign-in\n\nBody")[0] == \
        "Privacy policy page deploy broke sign-in"
    assert document_title("Terms of use update caused a login outage\n\nBody")[0] == \
        "Terms of use update caused a login outage"
    assert document_title("# Resolved\n\nBody")[0] == "Resolved"


def test_a_wiki_page_name_below_its_chrome_is_the_title():
    text = "Open main menu\nSearch\nIncident\tdocumentation/20990101-Queue\nEdit\nSummary\nThe queue stalled.\n"
    title, evidence = document_title(text)
    assert title == "Incident\tdocumentation/20990101-Queue"
    assert text[evidence[0][0]:evidence[0][1]] == title


def test_a_wiki_page_name_the_print_wrapped_goes_on_to_its_next_line():
    # cut after a hyphen inside the name: the rest follows without a space
    text = "Incident\tdocumentation/20990101-\nQueueStall\nSome chrome line\nThe queue stalled.\n"
    title, evidence = document_title(text)
    assert title == "Incident\tdocumentation/20990101-QueueStall"
    assert evidence == [(0, text.index("QueueStall") + len("QueueStall"))]
    # cut inside a parenthesis after a word no name ends on
    text = "Incident\tdocumentation/20990101-q1\t(Queue\tand\nbilling)\tstalled\nThe queue stalled.\n"
    assert " ".join(document_title(text)[0].split()) == "Incident documentation/20990101-q1 (Queue and billing) stalled"
    # a whole name keeps to its line
    text = "Incident\tdocumentation/20990101-Queue\nSome chrome line\n"
    assert document_title(text)[0] == "Incident\tdocumentation/20990101-Queue"


@pytest.mark.parametrize("heading", ["# ISSUE NAME", "# INCIDENT TITLE", "## [Incident name]", "# <Title>",
                                     "# {{ page.title }}", "TBD"])
def test_a_templates_unfilled_title_field_is_no_title(heading):
    assert document_title(heading + "\nThe queue of the billing service stalled for an hour.\n\nBody.\n") is None
    front = "---\ntitle: INCIDENT NAME\n---\n"
    assert document_title(front + "# Queue stalled\n\nBody.\n", body_start=len(front),
                          front={"title": "INCIDENT NAME"})[0] == "Queue stalled"
    # a title in capitals that names an incident stays a title
    assert document_title("# DNS OUTAGE\n\nBody.\n")[0] == "DNS OUTAGE"


@pytest.mark.parametrize("title", ["EXPIRED DOMAIN NAME", "WRONG HOST NAME", "STALE CACHE HERE", "BAD PAGE TITLE"])
def test_a_title_in_capitals_ending_on_name_is_a_title(title):
    """Only a template's own field words make a placeholder: an incident about a name is none."""
    assert document_title(f"# {title}\n\nBody.\n")[0] == title
    front = f"---\ntitle: {title}\n---\n"
    assert document_title(front + "Body.\n", body_start=len(front), front={"title": title})[0] == title


@pytest.mark.parametrize("heading", ["# INSERT TITLE HERE", "# YOUR INCIDENT NAME", "# POSTMORTEM TITLE",
                                     "# [ISSUE NAME]", "# TITLE"])
def test_more_unfilled_title_fields_are_no_title(heading):
    assert document_title(heading + "\nThe queue stalled for an hour.\n\nBody.\n") is None

def test_comments_notes_and_title_labels_above_the_title_are_skipped():
    text = "<!-- spell: ignore zorbq -->\n\n# Zorbq mirror served stale files\n\nBody."
    title, evidence = document_title(text)
    assert title == "Zorbq mirror served stale files" and text[evidence[0][0]:evidence[0][1]] == title
    assert document_title("# Title:\n### Nightly builds broke on the new image\n\n# Timeline\n")[0] == \
        "Nightly builds broke on the new image"
    text = "Title: Nightly builds broke\n\nBody."
    title, evidence = document_title(text)
    assert title == "Nightly builds broke" and text[evidence[0][0]:evidence[0][1]] == title
    assert document_title("> Added later: see the follow-up.\n\n# Disk full on the runner\n")[0] == \
        "Disk full on the runner"


def test_a_first_section_heading_a_link_or_a_metadata_line_is_no_title():
    assert document_title("## Issue summary\n\nThe farm stopped.\n") is None
    assert document_title("Internal notes: https://example.org/notes/4\n\nThe farm stopped.\n") is None
    assert document_title("Owner: @someone\n\nThe farm stopped.\n") is None
    assert document_title("## Owner: @someone\n## Involved:\n- @other\n\n# Overview\n\nThe farm stopped.\n") is None
    assert document_title("## Status: draft\n\nThe farm stopped.\n") is None
    # a heading that only mentions such a word is a title
    assert document_title("# Date handling broke the farm\n\nBody.\n")[0] == "Date handling broke the farm"
    assert document_title("- a list item first\n- another\n") is None


def test_a_front_matter_title_also_points_at_the_heading_repeating_it():
    text = "---\ntitle: Cache stampede\n---\n# Cache stampede\n\nBody."
    region = (0, text.index("# Cache"))
    title, evidence = document_title(text, region[1], {"title": "Cache stampede"}, region)
    assert title == "Cache stampede"
    assert [text[s:e] for s, e in evidence] == ["Cache stampede", "Cache stampede"]
    assert evidence[1][0] > region[1]


# --- the component --------------------------------------------------------------------------


def test_facts_component_writes_evidence_that_spells_the_values():
    text = ("# Zephyr Labs queue stall\n\n## Summary\n\nAt Zephyr Labs, we saw the job queue stall on 3 March 2021.\n"
            "The queue was down for 2 hours and 5 minutes.\n")
    source = ingest_bytes(text.encode(), "notes/stall.md")
    doc = analyse(get(PipelineConfig(tagger=False)), source)
    facts = doc.user_data["pmparse_facts"]
    assert facts["organisation"]["value"] == "Zephyr Labs"
    assert facts["date"]["value"] == "2021-03-03"
    assert facts["duration_minutes"]["value"] == 125
    for name in ("organisation", "date", "duration_minutes"):
        for start, end in facts[name]["evidence"]:
            assert 0 <= start < end <= len(text)
    start, end = facts["duration_minutes"]["evidence"][0]
    assert text[start:end] == "2 hours and 5 minutes"


def test_a_broken_gazetteer_stops_the_build_not_the_first_document(tmp_path):
    import spacy

    from pmparse.errors import RulesError

    bad = tmp_path / "organisations.yaml"
    bad.write_text("organisations: [{name: 3, aliases: oops}]\n", encoding="utf-8")
    with pytest.raises(RulesError):
        spacy.blank("en").add_pipe("pmparse_facts", config={"organisations_path": str(bad)})


@pytest.mark.parametrize("written,warned", [
    ("2020-13-45", True), ("2020-02-30", True), ("31/02/2020", True), ("Feb 30, 2020", True),
    ("March 2020", False), ("2020", False),
])
def test_a_front_matter_date_that_is_no_calendar_day_keeps_its_year_with_a_warning(written, warned):
    fact = find_incident_date("x", front={"date": written})
    assert fact["value"] == "2020" and fact["origin"] == "front_matter"
    assert ("warning" in fact) == warned and fact["confidence"] == (0.6 if warned else 0.9)
    if warned:
        assert repr(written) in fact["warning"] and "only its year 2020" in fact["warning"]


def test_convert_reports_the_front_matter_date_warning(tmp_path):
    from pmparse.batch.convert import convert

    source = tmp_path / "a.md"
    source.write_text("---\ndate: 2020-02-30\n---\n\n# DB outage\n\nA disk filled up.\n", encoding="utf-8")
    result = convert([str(source)], tmp_path / "lib").results[0]
    assert result.status == "converted"
    assert result.warnings == ["front matter date: '2020-02-30' is not a calendar date; only its year 2020 is used"]


def test_a_year_folder_dates_a_catalogue_entry_whose_text_gives_no_day():
    from pmparse.nlp.components.facts import location_year

    assert location_year("catalog/compromises/2019/x.md") == 2019 and location_year("notes/x.md") is None
    fact = find_incident_date("# A mirror was hijacked\n\nNo day is given.\n", location="catalog/2019/mirror.md")
    assert fact["value"] == "2019" and fact["origin"] == "path"
    dated = find_incident_date("# Hijack\n\nOn 4 May 2019 the mirror served a trojan.\n", location="catalog/2019/m.md")
    assert dated["value"] == "2019-05-04"


def test_a_status_notes_front_matter_start_and_resolution_give_its_length():
    from pmparse.nlp.components.facts import front_matter_duration

    text = "---\ndate: 2031-05-30T08:13:00-00:00\nresolvedWhen: 2031-05-30T10:43:00-00:00\n---\nBody.\n"
    front = {"date": "2031-05-30 08:13:00+00:00", "resolvedwhen": "2031-05-30 10:43:00+00:00"}
    fact = front_matter_duration(text, front, (0, text.index("Body")))
    assert fact["value"] == 150 and fact["origin"] == "front_matter"
    # a day without a time of day states no length
    assert front_matter_duration(text, {"date": "2031-05-30", "resolvedwhen": "2031-05-31"}, None) is None


def test_lines_opening_with_clock_times_read_as_a_timeline_without_a_heading():
    from pmparse.nlp.components.facts import timeline_blocks

    text = ("Summary\nThe cache fell over.\nTimeline\n10:02 alerts fire\n10:05 the cache is restarted\n"
            "10:20 service returns to normal\nConclusions\nNone yet.\n")
    (start, end), = timeline_blocks(text)
    assert text[start:end] == "10:02 alerts fire\n10:05 the cache is restarted\n10:20 service returns to normal"
    assert timeline_blocks("10:02 one line only\nand prose.\n") == []


def test_a_title_length_is_the_duration_only_when_the_body_states_none():
    # "2h Zorbq Upload Outage": the title says how long; a length the body states wins over it
    from pmparse.api import extract

    body = "We had an outage of uploads today. The deploy missed two packages.\n\nWe restored them and uploads work again.\n"
    card = extract("---\ntitle: \"Post Mortem: 2h Zorbq Upload Outage\"\n---\n\n" + body, fmt="md")
    assert card.duration_minutes == 120
    card = extract("---\ntitle: \"Post Mortem: 2h Zorbq Upload Outage\"\n---\n\n" + body.replace("today", "for 100 minutes today"),
                   fmt="md")
    assert card.duration_minutes == 100
