from __future__ import annotations

from pmparse.nlp.components.units import (
    MAX_UNIT_CHARS,
    after_time_cell,
    cap_length,
    item_bounds,
    markup_regions,
    says_nothing,
    segment,
    split_sentences,
)
from pmparse.nlp.lines import split_lines


def units(text: str, plain: bool = False, skip=()) -> list[tuple[str, str]]:
    return [(u.kind, text[u.start:u.end]) for u in segment(text, [], list(skip), plain_text=plain)]


def test_paragraph_sentences_and_abbreviations():
    text = "We rolled back, e.g. the API and web tier. It took 1.5 hours. Errors stopped!\n"
    assert units(text) == [
        ("sentence", "We rolled back, e.g. the API and web tier."),
        ("sentence", "It took 1.5 hours."),
        ("sentence", "Errors stopped!"),
    ]


def test_list_items_with_continuation_lines():
    text = "- First item spans\n  two lines here\n- Second item\n\n1. Numbered item text\n"
    assert units(text) == [
        ("list_item", "First item spans\n  two lines here"),
        ("list_item", "Second item"),
        ("list_item", "Numbered item text"),
    ]


def test_a_list_item_wrapped_without_indenting_keeps_its_sentence():
    # a hard-wrapped item whose continuation lines were not indented: Markdown reads them as the item's
    text = ("1. Scan every folder for projects.\n2. For projects with a build file, copy the\npayload into "
            "the build and\nrun it on every build.\nAfterwards the tool deleted its logs.\n")
    assert units(text) == [
        ("list_item", "Scan every folder for projects."),
        ("list_item", "For projects with a build file, copy the\npayload into the build and\nrun it on every build."),
        ("sentence", "Afterwards the tool deleted its logs."),
    ]
    assert units("- Keys were read with Personal Access Tokens\n(PATs) from the runner.\n") == [
        ("list_item", "Keys were read with Personal Access Tokens\n(PATs) from the runner.")]
    # an item that ends its sentence, then a paragraph line: two units, as before
    assert units("- Restart the queue\nThe queue then drained.\n") == [
        ("list_item", "Restart the queue"), ("sentence", "The queue then drained.")]


def test_table_rows_skip_rules_and_pipes():
    text = "| Time | Event |\n| :--- | ----- |\n| 10:00 | Alert fired for api |\n"
    assert units(text) == [("table_row", "Time | Event"), ("table_row", "10:00 | Alert fired for api")]


def test_a_table_without_outer_pipes_gives_one_unit_a_row_and_its_attribute_list_none():
    # GitHub and kramdown read a table whose lines do not open with a pipe; kramdown's attribute
    # list under it is markup
    text = ("Step   | What happened\n---    | ---\nFirst  | The queue filled up with retries\n"
            "12:45  | Workers drained the queue again\n{: .table.table-striped }\n\nThe cause was a loop.\n")
    assert units(text) == [
        ("table_row", "Step   | What happened"),
        ("table_row", "First  | The queue filled up with retries"),
        ("timeline", "12:45  | Workers drained the queue again"),
        ("sentence", "The cause was a loop."),
    ]
    # a sentence holding a pipe, not over a rule, stays a sentence
    assert units("We piped the logs through grep | sort here.\nThe rest is fine.\n") == [
        ("sentence", "We piped the logs through grep | sort here."), ("sentence", "The rest is fine.")]


def test_timeline_lines_start_units_in_plain_text():
    text = "13:31: A change is deployed\nto the service.\n14:55: The bug fix went out.\n"
    assert units(text, plain=True) == [
        ("timeline", "13:31: A change is deployed\nto the service."),
        ("timeline", "14:55: The bug fix went out."),
    ]


def test_heading_lines_are_skipped_but_inline_content_kept():
    text = "## Impact\n\nSite was down.\n- **Resolution**: We restarted it.\n"
    skip = [(0, 9), (text.index("**Resolution**"), text.index("We"))]
    assert units(text, skip=skip) == [("sentence", "Site was down."), ("list_item", "We restarted it.")]


def test_fragments_without_two_words_are_dropped():
    assert units("Page\n\n2\n\nOK\n\nA real sentence here.\n") == [("sentence", "A real sentence here.")]


def test_code_fences_are_not_units():
    assert units("```\nkubectl delete pod --all now\n```\nAfter that it worked fine.\n") == [
        ("sentence", "After that it worked fine.")]


def test_split_sentences_offsets():
    text = "One thing. Two things. Three."
    assert [text[s:e] for s, e in split_sentences(text, 0, len(text))] == ["One thing.", "Two things.", "Three."]


def test_boilerplate_lines_are_masked_and_split_what_they_glued():
    from pmparse.nlp.boilerplate import digest

    notice = "Please read our new site notice about the move!"
    text = f"The primary ran out of disk\n{notice}\nwhile the backup was running.\nWe added an alert.\n"
    listed = (frozenset({digest(notice)}), 3)
    kept = [text[u.start:u.end] for u in segment(text, [], [], plain_text=True)]
    # without the list, the notice printed mid-sentence joins the sentence
    assert any(notice in unit for unit in kept)
    masked = [text[u.start:u.end] for u in segment(text, [], [], plain_text=True, boilerplate=listed)]
    assert masked == ["The primary ran out of disk", "while the backup was running.", "We added an alert."]
    # the same words in a longer line are prose, not the listed line
    prose = f"Someone wrote: {notice} and left.\n"
    assert [prose[u.start:u.end] for u in segment(prose, [], [], boilerplate=listed)] == [prose.strip()]


def test_a_month_abbreviation_before_a_day_is_no_sentence_end():
    text = "On Sept. 18th, 2017 the mirror stopped. It came back on Nov. 3 after the fix. Then Oct. The end."
    assert [text[s:e] for s, e in split_sentences(text, 0, len(text))] == [
        "On Sept. 18th, 2017 the mirror stopped.", "It came back on Nov. 3 after the fix.", "Then Oct.", "The end."]


def test_chrome_lines_of_printed_pages_are_masked_but_a_long_sentence_naming_them_is_kept():
    text = ("We restarted the database\nThis page was last edited on 3 April 2015, at 21:17.\n"
            "after the disk filled.\nCategories : Incident documentation\nCategories\n")
    assert [text[u.start:u.end] for u in segment(text, [], [], plain_text=True)] == [
        "We restarted the database", "after the disk filled."]
    # in markdown the same lines are the report's own (no printed page around them)
    assert any("last edited" in text[u.start:u.end] for u in segment(text, [], [], plain_text=False))
    prose = ("The outage began when the team updated the privacy policy page of the account service, which "
             "reloaded every frontend at once and dropped the sessions.\n")
    assert [prose[u.start:u.end] for u in segment(prose, [], [], plain_text=True)] == [prose.strip()]


def test_a_link_alone_on_a_printed_line_stays_with_its_sentence():
    text = "The fix is tracked in\nhttps://tracker.example.org/T123\nand was deployed on Monday.\n"
    assert [text[u.start:u.end] for u in segment(text, [], [], plain_text=True)] == [text.strip()]


def test_a_sentence_that_names_a_chrome_phrase_is_not_masked():
    text = ("10:05 Alice rolls back the change but forgets to log it in the Server Admin Log.\n"
            "Users of the mobile view saw 503 errors for twenty minutes after the\n"
            "deploy, while desktop was fine. This broke our\nprivacy policy.\n")
    kept = " ".join(text[u.start:u.end] for u in segment(text, [], [], plain_text=True))
    assert "Server Admin Log" in kept and "mobile view saw 503" in kept and "privacy policy" in kept


def test_an_overlong_sentence_is_cut_at_white_space_into_bounded_units():
    text = "Root cause: " + "the cache kept stale entries and the queue grew without bound " * 2_000 + "\n"
    found = segment(text, [], [])
    assert len(found) > len(text) // MAX_UNIT_CHARS
    assert all(u.end - u.start <= MAX_UNIT_CHARS for u in found)
    for unit in found:
        piece = text[unit.start:unit.end]
        assert piece == piece.strip() and not text[unit.end].isalpha()  # cut between words
    # nothing but the white space at the cuts is left out
    assert sum(u.end - u.start for u in found) >= len(text.strip()) - len(found)


def test_cap_length_cuts_a_text_without_white_space_at_the_limit():
    text = "x" * 25 + " " + "y" * 7
    assert cap_length(text, 0, len(text), limit=10) == [(0, 10), (10, 20), (20, 25), (26, 33)]
    assert cap_length("ab  cd", 0, 6, limit=3) == [(0, 2), (4, 6)]


def test_a_header_row_and_a_time_zone_note_say_nothing_but_stay_units():
    text = ("All times in UTC.\n\n| Time | Event |\n| :--- | ----- |\n| 10:00 | Alert fired for api |\n\n"
            "Step | What\n--- | ---\nOne | The queue filled\n")
    found = units(text)
    assert ("table_row", "Time | Event") in found and ("sentence", "All times in UTC.") in found
    quiet = [text[u.start:u.end] for u in segment(text, [], []) if says_nothing(text, u.start, u.end)]
    assert quiet == ["All times in UTC.", "Time | Event", "Step | What"]
    for note in ("Times are in PDT", "All times are in UTC, and approximate.", "(all times UTC)",
                 "Timestamps in CEST:", "All times in UTC+2",
                 "All events are documented in [UTC](https://example.org/wiki/UTC) time.", "Times below are in UTC."):
        assert says_nothing(note, 0, len(note)), note
    # a sentence that says more, or a row under another row, says something
    sentence = "All times in UTC were off by an hour on the status page."
    assert not says_nothing(sentence, 0, len(sentence))
    rows = "| 10:00 | Alert fired |\n| 10:05 | Paged |\n"
    assert not says_nothing(rows, 2, 20)


def items(text: str) -> list[str]:
    """The words each unit gives a card's item, units that say nothing left out."""
    markup = markup_regions(text, split_lines(text))
    out = []
    for unit in segment(text, [], []):
        start, end = item_bounds(text, unit.start, unit.end, markup)
        if not says_nothing(text, start, end):
            out.append(text[start:end])
    return out


def test_markup_lines_are_no_item_words():
    # invisible or decorative markup is no prose: a comment (one line or several, a template's
    # prompt), a line of tags alone, an HTML heading, an image, a link reference definition
    text = ("<!-- spellcheck:ignore zorbq -->\nThe zorbq queue stalled at noon.\n\n"
            "<!-- What happened, and who\nwas impacted by it? -->\n\n"
            "<div class=\"box wide\" markdown=\"1\">\n<details> <summary>Old runbook steps</summary>\n\n"
            "<h2 id=\"back\">When will the queue be back?</h2>\n\n"
            "![queue depth graph](queue-depth.png)\n\n"
            "<a href=\"/img/a.png\"> <img src=\"/img/a.png\" alt=\"Worker load graph\" /> </a>\n\n"
            "Workers were restarted by hand.\n</div>\n\n"
            "[issue-12]: https://example.org/zorbq/issues/12\n[pr 7]: https://example.org/zorbq/pull/7\n")
    assert items(text) == ["The zorbq queue stalled at noon.", "Workers were restarted by hand."]
    # the units stay as they were: the unit model reads them with their markup
    assert [t for _, t in units(text)][0] == "<!-- spellcheck:ignore zorbq -->\nThe zorbq queue stalled at noon."


def test_a_comment_inside_prose_an_address_in_brackets_and_a_chat_nick_stay():
    # only a line that is markup alone is left out: a sentence naming a tag, a link written as an
    # address in angle brackets (an action item's issue), a chat log's nick are words
    text = ("We removed the extra <div> tag from the page template.\n\n"
            "- <https://example.org/zorbq/issues/44>\n\n"
            "<alertbot> PROBLEM - api latency is CRITICAL\n\n<more alerts arriving, not pasted here>\n")
    assert items(text) == ["We removed the extra <div> tag from the page template.",
                           "<https://example.org/zorbq/issues/44>", "<alertbot> PROBLEM - api latency is CRITICAL",
                           "<more alerts arriving, not pasted here>"]


def test_a_bracketed_label_over_a_paragraph_is_no_part_of_its_item():
    text = ("[Final message]\nOur artifact store is hosted by a cloud vendor. It ran out of disk.\n\n"
            "[PR 12] fixed the disk alert.\n")
    assert items(text) == ["Our artifact store is hosted by a cloud vendor.", "It ran out of disk.",
                           "[PR 12] fixed the disk alert."]
    assert units(text)[0][1] == "[Final message]\nOur artifact store is hosted by a cloud vendor."



def _say_nothing(*lines: str) -> None:
    """Each line, as a whole unit, says nothing (:func:`says_nothing`)."""
    for line in lines:
        assert says_nothing(line, 0, len(line)), line


def _say_something(*lines: str) -> None:
    """Each line, as a whole unit, says something."""
    for line in lines:
        assert not says_nothing(line, 0, len(line)), line

def test_closing_words_signatures_apologies_and_handles_say_nothing():
    _say_nothing("Much love,", "Kind regards,", "Love, the Zorbq team!", "Jo and the Zorbq team.",
                 "— The Zorbq Team", "Thanks for using Zorbq!", "Thank you for your patience.",
                 "Again, our apologies for the queue outage.", "We're very sorry for the trouble this caused.",
                 "We apologise for any inconvenience.", "**We are sorry about these issues!**",
                 "@jdoe", "@jdoe, @asmith", "[Final message]", "[Update - 2031-03-29 15:50 UTC]",
                 "From the original article [1]:", "According to the researchers:", "Statement from Zorbq:",
                 "From [the database wiki](https://example.org/wiki/Toast):")
    # an apology that goes on to say what happened, a team doing something, a checkbox: words
    _say_something("We're sorry our users had to wait for their builds for six hours.",
                   "I'm sorry for paging everyone, I should have silenced the alert first.",
                   "The on-call engineer paged the Zorbq team.", "Jo and the Zorbq team rolled the release back.",
                   "Thanks to the Zorbq team, the fix shipped within an hour.", "@jdoe restarted the workers.",
                   "[ ] write an incident report", "From 10:02 the queue stalled:", "[QUEUE OUTAGE BEGINS]",
                   "We apologize in advance for this disruption and will keep the window short.",
                   "ds-admin received an email from the cloud vendor:")



def test_a_teams_apology_an_invitation_to_ask_and_a_promise_of_news_say_nothing():
    # a post's closing words with a subject of their own: the writing team apologising, readers
    # invited to ask or to come and talk, news promised, the writers' care for the thing affected
    _say_nothing("All of us on the Zorbq platform team would like to apologise for the impact of this outage.",
                 "Once again, the Zorbq team sincerely apologizes for the slow builds yesterday.",
                 "The zorbq.example team apologises for the downtime.", "We would like to apologize for the disruption.",
                 "If you have any questions, please don't hesitate to contact the Zorbq team at help@zorbq.example.",
                 "If you have further questions or concerns, feel free to drop by our chat channel.",
                 "If you have any questions, reach out to us on the forum.",
                 "We'll keep you posted when we know more!", "We will keep you updated.",
                 "We take the reliability of our build service very seriously.",
                 "The Zorbq team takes the availability of these pages seriously, and sincerely apologises for the downtime.",
                 "We do and will continue to take the privacy of our users seriously.")
    # the same words saying what happened, what was done, or what is asked of the reader: words
    _say_something("The Zorbq team apologised to the affected tenants by email and refunded their invoices.",
                   "If you have any jobs stuck in the queue, please contact the Zorbq team to requeue them.",
                   "If you have questions about the queue, read the runbook first, then page the on-call engineer.",
                   "We'll keep you posted, but the queue should drain by Monday as the new workers come online.",
                   "Nobody took the disk alert seriously, so the queue filled up.",
                   "We take backups every hour, which is how we restored the data seriously fast.")


def test_a_lead_in_to_a_list_says_nothing_of_its_own():
    # the sentence that opens a list ("This was resolved by:") is no item: its list's items are
    text = ("The zorbq queue stalled at noon. This was resolved by:\n\n- Restarting the consumers\n"
            "- Raising the queue's disk quota\n")
    assert items(text) == ["The zorbq queue stalled at noon.", "Restarting the consumers", "Raising the queue's disk quota"]
    _say_nothing("This was due to:", "We verified that:", "We are now focused on:", "There are two issues at play:",
                 "This was caused by two factors:", "The outage resulted from three compounding factors:",
                 "After the post-incident review, the main contributing factors were:",
                 "**Lessons learned:**")
    # a lead-in that names what it leads to, or a sentence that is not one, says something
    _say_something("The disk alert fired twice:", "Validation webhook stopped new rules from creating, with the error:",
                   "This was resolved by restarting the consumers.", "Three things were resolved by noon:",
                   "The zorbq workers crashed with:")


def test_a_length_alone_says_nothing():
    # a labelled value ("**Total impact duration:** 3 hours 12 minutes (09:05 - 12:17 UTC)") is the
    # card's duration, not a symptom or a detection item
    _say_nothing("3 hours 12 minutes (09:05 - 12:17 UTC)", "2 hours 41 minutes", "21h 40m (within office hours 09:00-17:30)",
                 "~2h", "About 45 minutes.", "1 hour, 10 minutes", "3 days")
    _say_something("5 hours of failed uploads", "2 hours 41 minutes before anyone noticed", "2h outage of the queue",
                   "45 minutes (the queue was paused)")


def test_a_status_note_that_the_incident_is_over_says_nothing():
    # a timeline's last word ("Incident resolved.") tells no step of the fix nor a symptom
    _say_nothing("Incident resolved.", "Issue resolved", "Incident appears to be resolved.", "The outage is now over.",
                 "Issue fixed!", "Incident closed.", "Problem has been fully mitigated.")
    _say_something("Incident resolved by restarting the zorbq workers.", "The issue was fixed in the 2.3 release.",
                   "Outage over for the API, the queue still lags.")


def test_a_closing_checklist_of_the_write_up_says_nothing():
    """Issue 35 (free-15): a template's last checklist ticks off the report, not the incident; two
    university hub reports gave its four lines as action items."""
    text = ("## Follow-up\n\n- [ ] Add a disk alert to the queue host\n- [x] Write an incident report\n\n"
            "## Done?\n\n- [x] The outage is over\n- [x] Every part above is written\n"
            "- [x] The write-up's title is tidied\n- [ ] Each follow-up listed above has a ticket\n")
    assert [item for item in items(text) if "[" in item] == ["[ ] Add a disk alert to the queue host",
                                                             "[x] Write an incident report"]
    # a checklist of work, however it ends, keeps its items
    work = "- [ ] Rotate the zorbq keys\n- [x] Write an incident report\n- [ ] Review the sections of the runbook\n"
    assert items(work) == ["[ ] Rotate the zorbq keys", "[x] Write an incident report",
                           "[ ] Review the sections of the runbook"]


def test_a_checklist_of_work_that_points_at_the_report_keeps_its_items():
    """Review of free-15: one work item naming a finding "above" or "this report" made the whole
    checklist read as the template's closing one, and every follow-up of the card was lost."""
    work = ("## Follow-up\n\n- [ ] Fix the retry loop described above\n- [ ] Add an alert on queue depth\n"
            "- [ ] Send this report to the billing team\n")
    # (the heading line, given to the splitter here, is no item: a known heading's words alone)
    assert items(work) == ["[ ] Fix the retry loop described above", "[ ] Add an alert on queue depth",
                               "[ ] Send this report to the billing team"]
    # one line about the write-up among work items is no closing checklist either
    mixed = "- [x] Raise the zorbq queue limit\n- [ ] Add a canary for the queue host\n- [ ] The write-up is reviewed\n"
    assert items(mixed)[:2] == ["[x] Raise the zorbq queue limit", "[ ] Add a canary for the queue host"]


def test_a_table_row_of_data_alone_says_nothing():
    text = ("| Wallet | Amount | Time |\n|---|---|---|\n| zx1c36py3de66vmdx6ss98 | 4.413023 | 16/12/2031 00:50:10 |\n"
            "| zx1acszd5jt3ky65zlaej | 23.3982 | 16/12/2031 02:59:44 |\n| 10:02 | Queue workers restarted |\n")
    quiet = [text[u.start:u.end] for u in segment(text, [], []) if says_nothing(text, u.start, u.end)]
    assert quiet == ["Wallet | Amount | Time", "zx1c36py3de66vmdx6ss98 | 4.413023 | 16/12/2031 00:50:10",
                     "zx1acszd5jt3ky65zlaej | 23.3982 | 16/12/2031 02:59:44"]


def test_a_date_cell_written_with_the_months_name_or_a_time_with_its_offset_is_layout_too():
    for row, words in [("March 18 | 16:00 | We began the upgrade", "We began the upgrade"),
                       ("18 Mar | 9:05 PM | Workers drained", "Workers drained"),
                       ("Sept. 3rd | The queue stalled", "The queue stalled"),
                       ("2031-04-20 | 10:52 | Owners paged", "Owners paged"),
                       ("2031-12-11 16:10:16+01:00 | We noticed failing jobs", "We noticed failing jobs")]:
        assert row[after_time_cell(row, 0, len(row)):] == words, row
    # a cell of words that only opens with a month's name is the item's
    for row in ("March madness | The queue stalled", "May 2031 planning | Owners paged"):
        assert after_time_cell(row, 0, len(row)) == 0, row



def test_an_item_opening_with_a_bracketed_owner_and_a_colon_is_no_link_reference():
    # a link reference definition is a label, one destination and perhaps a quoted title;
    # an action item written "[Owner]: what to do" is words
    text = ("[Infra]: add alerting on disk usage of the build hosts\n\n"
            "[P0]: rotate the leaked deploy credentials\n\n"
            "[runbook]: https://example.org/zorbq/runbook \"Zorbq runbook\"\n"
            "[pr 7]: <https://example.org/zorbq/pull/7>\n")
    assert items(text) == ["[Infra]: add alerting on disk usage of the build hosts",
                           "[P0]: rotate the leaked deploy credentials"]


def test_a_plan_after_a_comma_ending_in_a_colon_is_no_attribution():
    _say_something("From now on, every deploy needs two approvals:",
                   "According to the runbook, restart the worker first:")


def test_an_apology_after_a_clause_of_narrative_or_feeling_says_nothing():
    # the clause before the apology tells how the week felt or that mail came in: no fact of the
    # incident, so the whole sentence goes, as a bare apology does
    _say_nothing("It was a long and tiring weekend, and we're truly sorry about the trouble.",
                 "We got lots of messages from you, and we are sorry for the disruption this caused.",
                 "We heard from many of you and we're very sorry for that.",
                 "This makes for a maddening Zorbq experience, and we're sorry it took us so long.",
                 "This was a hard day for all of us, and we apologise for the inconvenience.",
                 # hard-wrapped as a post's source is
                 "This leads to a maddening Zorbq\nexperience, and we're sorry that it took us a bit longer.")
    # a clause or an apology that states a fact of the incident keeps it
    _say_something("The deploy deleted forty drafts, and we're very sorry for the trouble.",
                   "We got many emails, and we're sorry that the migration removed your saved searches.",
                   "Our users waited three hours for their builds, and we're sorry about that.",
                   "It's been a rough week, and we're sorry the queue dropped jobs on Tuesday.",
                   "We got many reports of failed logins, and we're sorry for the trouble.",
                   # what the delay held up is a contributing factor
                   "This makes for a maddening experience, and we're sorry that it took us a bit longer\nto see that a fix was needed.")


def test_a_lead_in_without_its_colon_right_above_its_list_says_nothing():
    # the sentence pointing at the list below it ("We have taken the following steps") with no
    # colon is no item either: the list's items are
    for lead in ("We have taken the following steps", "Here is what we changed.", "This is done with the following commands.",
                 "The table below contains the zorbq accounts that were refunded and their amounts.",
                 "The following table\nlists the zorbq accounts that were refunded."):
        for below in ("\n\n1. Rotated the keys\n2. Added an alarm\n", "\n- Rotated the keys\n",
                      "\n\n| Account | Amount |\n|---|---|\n| zq1 | 4 |\n", "\n\n```\nzorbq restart\n```\n"):
            text = lead + below
            assert says_nothing(text, 0, len(lead)), (lead, below)
    # the same words with no list after them, or saying more, are a sentence of their own
    for text in ("We have taken the following steps to restore service.\n\n- Rotated the keys\n",
                 "We have taken the following steps\n\nThe keys were rotated at noon.\n",
                 "Here is what we changed. The alarm now pages.\n\n- Rotated the keys\n",
                 "The zorbq keys below were rotated\n\n- zq1\n"):
        first = text.split("\n")[0]
        first = first[:first.index(". ") + 1] if ". " in first else first
        assert not says_nothing(text, 0, len(first)), text


def test_a_bolds_stray_closing_or_opening_marks_are_no_part_of_the_item():
    # a bold paragraph of two sentences: each sentence is an item, and the bold's marks each
    # stand at one item's edge only
    text = "**The zorbq queue stalled for an hour. No action is required by users.**\n\nNext paragraph here.\n"
    assert items(text)[:2] == ["The zorbq queue stalled for an hour.", "No action is required by users."]
    text = "__The zorbq queue stalled for an hour. No action is required by users.__\n"
    assert items(text) == ["The zorbq queue stalled for an hour.", "No action is required by users."]
    # balanced marks inside an item, or a bold that closes inside it, stay
    for text in ("**Queue**: the zorbq queue stalled for an hour.\n", "The queue stalled for **an hour**.\n",
                 "**Stored jobs are not at risk**, and never were.\n"):
        assert items(text) == [text.strip()], text


def test_the_write_up_describing_itself_says_nothing():
    # a sentence whose subject is the report itself tells what the write-up does, not the incident
    _say_nothing("This post-mortem documents both outages and what we changed after them.",
                 "This report aims to give a full account of the incident and its impact on the zorbq users.",
                 "This documents our move between the two data centres.",
                 "This write-up serves as a disclosure for other users of the zorbq plugin.",
                 "This blog post will cover the timeline, the cause and our next steps.",
                 "Note: this report was originally published on our wiki.",
                 "This documents our move between\nthe two data centres.", "This report summarizes the chat of 2031-06-02 00:00 .",
                 "This post-mortem serves as a disclosure for other users of the zorbq.tools.wizard.py script.")
    # a report that says what happened, or the write-up as a thing of the incident, is a sentence
    _say_something("This report describes an outage caused by an expired zorbq certificate.",
                   "This document was deleted by the cleanup job, which broke the wiki.",
                   "The report covers the zorbq queue stalling for two hours.",
                   "This post-mortem documents nothing new: the disk filled up again.")


def test_a_date_or_a_span_of_times_alone_says_nothing():
    # the card's date and duration hold them; as a symptom or a trigger they say nothing
    _say_nothing("Monday, Nov. 13, 2031", "Sep 6 at 05:25 to Sep 6 at 10:48", "Start: Wednesday, 2031-08-22 End: Thursday, 2031-08-23",
                 "Friday Apr 10 - Friday Apr 17, 2031", "On the 27th of November", "On July 11 at", "2031-04-03 12:50 UTC")
    _say_something("Incident declared: 2031-09-20 11:30", "21:37: end of incident", "On July 11 at noon the zorbq queue stalled.",
                   "Monday, Nov. 13: disks full")


def test_a_known_headings_words_alone_say_nothing():
    # an unmarked heading line ("Action Items" in plain text under a list) is no item
    _say_nothing("Action Items", "What happened?", "Timeline (European time)", "**Lessons learned**")
    _say_something("Action items were never written.", "What happened to the zorbq queue?")
