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


def _wiki_page(summary: str) -> tuple[str, tuple[str, list]]:
    text = f"Incident documentation/20310412-Proxy\n\nSummary\n{summary}\n"
    return text, ("Incident documentation/20310412-Proxy", [(0, 37)])


def test_a_page_named_by_its_files_date_gives_way_to_the_summarys_day_before():
    text, title = _wiki_page("On 2031-04-11 at 23:10 UTC the proxy stopped answering.")
    fact = find_incident_date(text, 0, "wiki/20310412-Proxy.txt", [], None, None, title)
    assert fact["value"] == "2031-04-11" and text[fact["evidence"][0][0]:fact["evidence"][0][1]].startswith("2031-04-11")


def test_a_page_named_by_its_files_date_stands_without_an_earlier_day_said_first():
    # no date in the summary: the page's name dates it
    text, title = _wiki_page("The proxy stopped answering for an hour.")
    assert find_incident_date(text, 0, "wiki/20310412-Proxy.txt", [], None, None, title)["value"] == "2031-04-12"
    # a day long before is background, and a page name in the summary cites another report
    for summary in ("Since a change on 2031-03-01 the proxy was slow.",
                    "Like Incident documentation/20310410-Proxy the proxy stopped."):
        text, title = _wiki_page(summary)
        assert find_incident_date(text, 0, "wiki/20310412-Proxy.txt", [], None, None, title)["value"] == "2031-04-12"
    # a title whose date is not the file name's is taken as given
    text, title = _wiki_page("On 2031-04-11 at 23:10 UTC the proxy stopped answering.")
    assert find_incident_date(text, 0, "wiki/notes.txt", [], None, None, title)["value"] == "2031-04-12"


def test_a_post_saying_yesterday_or_a_weekday_dates_the_incident_before_its_publication():
    # 2031-03-20 is a Thursday
    for body, day in (("\nYesterday our queue stalled.\n", "2031-03-19"),
                      ("\nLong story short, on Tuesday we took the site down.\n", "2031-03-18"),
                      ("\nLast Thursday, in the afternoon, errors rose.\n", "2031-03-13")):
        text, front, region, start = _post(body)
        fact = find_incident_date(text, start, "", [], front, region)
        assert fact["value"] == day and text[fact["evidence"][0][0]:fact["evidence"][0][1]].split()[-1] in body
    # a file name's date works the same; a weekday in plural is a habit, not a day
    text = "We deploy on Mondays. Yesterday's deploy failed.\n"
    assert find_incident_date(text, 0, "blog/2031-03-20-deploy.md")["value"] == "2031-03-19"
    text = "We deploy on Mondays and it failed.\n"
    assert find_incident_date(text, 0, "blog/2031-03-20-deploy.md")["value"] == "2031-03-20"


def test_a_weekday_beside_its_date_and_a_title_dated_for_readers_are_not_relative_days():
    text, front, region, start = _post("\nOn Tuesday, March 18th, 2031 at 18:52 UTC the site failed.\n")
    assert find_incident_date(text, start, "", [], front, region)["value"] == "2031-03-18"
    text, front, region, start = _post("\nOn Tuesday, March 20 2031 the site failed.\n")
    assert find_incident_date(text, start, "", [], front, region)["value"] == "2031-03-20"
    # a title giving the date for its readers is the author's word, though the file name repeats it
    text = "# Incident on 2031-04-12 - Proxy\n\n- First detected 2031-04-11\n"
    title = ("Incident on 2031-04-12 - Proxy", [(2, 32)])
    assert find_incident_date(text, 0, "x/2031-04-12-proxy.md", [], None, None, title)["value"] == "2031-04-12"


def _log(first_entry: str, title: str = "2031-07-21: Queue worker stuck") -> tuple[str, tuple[str, list],
                                                                                list[tuple[int, int]]]:
    text = (f"# {title}\n\n## Summary\n\nThe queue worker stopped taking jobs.\n\n## Timeline\n\n"
            f"### {first_entry}\n\nErrors start to climb.\n\n### 2031-07-21 11:30\n\nSomeone notices the errors.\n")
    start = text.index("## Timeline")
    return text, (title, [(2, 2 + len(title))]), [(start, len(text))]


def test_a_log_titled_with_the_day_it_was_noticed_began_at_its_first_entry_the_evening_before():
    text, title, timelines = _log("2031-07-20 20:30")
    fact = find_incident_date(text, 0, "", timelines, None, None, title)
    assert fact["value"] == "2031-07-20" and fact["origin"] == "timeline"
    assert text[fact["evidence"][0][0]:fact["evidence"][0][1]].startswith("2031-07-20")


def test_a_titles_date_stands_over_a_timeline_opening_with_background_days_before():
    # a change deployed days before the outage opens the timeline: the title's day is the incident's
    text, title, timelines = _log("2031-07-16 09:00")
    assert find_incident_date(text, 0, "", timelines, None, None, title)["value"] == "2031-07-21"
    text, title, timelines = _log("2031-07-21 08:00")
    assert find_incident_date(text, 0, "", timelines, None, None, title)["value"] == "2031-07-21"
    # a title saying which day it was ("Incident on ...") is the author's word
    text, title, timelines = _log("2031-07-20 20:30", "Incident on 2031-07-21 - queue worker stuck")
    assert find_incident_date(text, 0, "", timelines, None, None, title)["value"] == "2031-07-21"


def test_a_titles_day_range_dates_the_incident_by_the_day_it_began():
    body = "\nThe ledger sync stalled and customers saw stale balances.\n"
    for title, day in (("Ledger outage 3-5 March 2031", "2031-03-03"),
                       ("Ledger outage 3rd to 5th March 2031", "2031-03-03"),
                       ("Ledger outage March 3-5, 2031", "2031-03-03"),
                       ("Ledger outage 30 March - 2 April 2031", "2031-03-30"),
                       ("Ledger outage March 30 – April 2, 2031", "2031-03-30"),
                       ("Ledger outage 2031-03-03 to 2031-03-05", "2031-03-03"),
                       ("Ledger outage 5 March 2031", "2031-03-05")):
        text = f"# {title}\n{body}"
        fact = find_incident_date(text, len(title) + 3, "", [], {}, None, (title, [(2, 2 + len(title))]))
        assert fact is not None and fact["value"] == day, (title, fact)
    # a range read backwards is no range: its first day stands as a date of its own
    title = "Ledger outage 9-5 March 2031"
    fact = find_incident_date(f"# {title}\n{body}", len(title) + 3, "", [], {}, None, (title, [(2, 2 + len(title))]))
    assert fact["value"] == "2031-03-05"


def test_a_titles_day_range_across_the_new_year_dates_the_incident_by_its_first_day():
    body = "\nThe ledger sync stalled and customers saw stale balances.\n"
    for title in ("Ledger outage 30 December - 2 January 2031", "Ledger outage December 30 - January 2, 2031"):
        fact = find_incident_date(f"# {title}\n{body}", len(title) + 3, "", [], {}, None, (title, [(2, 2 + len(title))]))
        assert fact is not None and fact["value"] == "2030-12-30", (title, fact)
