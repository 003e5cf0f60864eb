"""The organisation that speaks, from texts written for these tests."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pmparse.nlp.extractors import hosts, publisher_cues
from pmparse.nlp.extractors.gazetteer import clear_gazetteers, inner_alias, load_gazetteer
from pmparse.nlp.extractors.organisation import find_organisation
from pmparse.rules.taxonomy import OrganisationsFile


def test_customers_of_a_providers_own_product_mark_its_own_report():
    text = ("## Summary\n\nBetween 09:10 and 10:05 UTC, customers using Azure Functions in one region saw "
            "failed invocations. We rolled back the change.\n")
    fact = find_organisation(text)
    assert fact["value"] == "Microsoft Azure" and fact["origin"] == "product"
    assert [text[s:e] for s, e in fact["evidence"]] == ["Azure Functions"]


def test_a_provider_product_merely_used_is_a_dependency_not_the_author():
    text = "## Summary\n\nOur build farm runs on EC2 and App Engine; both were fine. Our queue filled up.\n"
    assert find_organisation(text) is None


def test_a_title_naming_a_product_beside_an_incident_number_is_the_providers():
    text = "# Compute Engine: incident 20310402\n\nSome instances in one zone failed to start.\n"
    title = ("Compute Engine: incident 20310402", [(2, 35)])
    fact = find_organisation(text, title=title)
    assert fact["value"] == "Google Cloud" and text[fact["evidence"][0][0]:fact["evidence"][0][1]] == "Compute Engine"
    # a longer word that ends in the product's name is not the product
    text = "# XCompute Engine: incident 20310402\n\nSome instances in one zone failed to start.\n"
    fact = find_organisation(text, title=("XCompute Engine: incident 20310402", [(2, 36)]))
    assert fact is None or fact["value"] != "Google Cloud"


_EVENT = ("Summary of the Amazon Kinesis Queue Service Event in the Western (US-WEST-7) Region\n\n"
          "We want to give you more detail about the disruption on 2 March 2031. Several AWS services "
          "that depend on the queue returned errors, and Amazon EC2 launches slowed. We restored it.\n")


def test_a_providers_summary_of_a_service_event_is_the_providers():
    title = (_EVENT.split("\n")[0], [(0, _EVENT.index("\n"))])
    fact = find_organisation(_EVENT, title=title)
    assert fact["value"] == "Amazon Web Services" and fact["origin"] == "product"
    assert [_EVENT[s:e] for s, e in fact["evidence"]] == ["Amazon Kinesis"]


def test_a_providers_summary_speaking_of_its_own_customers_is_still_the_providers():
    # customers named by the provider's products, by no name, or by a region are the provider's
    text = (_EVENT + "Some US-EAST-7 customers saw errors. Enterprise customers were told first. Amazon EC2 "
            "customers and customers of Amazon S3 saw delays; many of our customers who rely on Amazon S3 retried.\n")
    fact = find_organisation(text, title=(text.split("\n")[0], [(0, text.index("\n"))]))
    assert fact["value"] == "Amazon Web Services" and fact["origin"] == "product"


@pytest.mark.parametrize("title, body", [
    # a customer's title says "our"
    ("Summary of the Amazon Kinesis event that stalled our builds",
     "Our build farm reads from the queue; AWS was slow and Amazon EC2 too. You could not deploy."),
    # nobody is addressed: a third party's write-up
    ("Summary of the Amazon Kinesis Service Event", "The queue failed. AWS fixed Amazon EC2 later."),
    # the provider is named once only
    ("Summary of the Amazon Kinesis Service Event", "Customers saw errors for an hour."),
    # a customer's own account of a provider's outage: its system runs on the provider's
    ("Root Cause Analysis: AWS us-east-1 Service Disruption",
     "On 4 May 2031 AWS had a service disruption in one region. Our checkout API runs on Amazon EC2 and "
     "Amazon S3, so customers could not pay for forty minutes. We moved traffic to another region."),
    # the customers it speaks of are another organisation's
    ("Post Incident Review - Cloudflare service disruption impact on Brindlewick",
     "Brindlewick customers saw errors while Cloudflare was down. Cloudflare Workers failed and Cloudflare DNS too."),
    ("Summary of the AWS Service Event and how it reached the shop",
     "For an hour customers of Fenwick Shop could not log in while AWS was impaired. Amazon EC2 instances stopped."),
])
def test_a_summary_title_alone_does_not_name_the_provider(title, body):
    text = title + "\n\n" + body + "\n"
    fact = find_organisation(text, title=(title, [(0, len(title))]))
    assert fact is None or fact["origin"] != "product"


@pytest.mark.parametrize("line, name", [
    ("Posted on the Zorbqa engineering blog.", "Zorbqa"),
    ("© 2031 Quillmere Labs", "Quillmere Labs"),
    ("Copyright (c) 2030-2031 Ostrava Mills", "Ostrava Mills"),
    # the standard footer: the name's abbreviation ends a sentence, "All rights reserved" is no part of it
    ("Copyright 2031 Quillmere Labs Ltd. All rights reserved.", "Quillmere Labs Ltd"),
    ("© 2030 Ostrava Mills Inc. All rights reserved.", "Ostrava Mills Inc"),
])
def test_a_site_line_names_an_owner_the_table_does_not_know(line, name):
    text = f"# Queue stall\n\nThe queue stalled for an hour.\n\n{line}\n"
    fact = find_organisation(text)
    assert fact["value"] == name and text[fact["evidence"][0][0]:fact["evidence"][0][1]] == name


@pytest.mark.parametrize("line", [
    # a setting's name that holds the word: no notice at all
    "We switched cfgShowZorbqCopyrightBanner Campaign off and synced the config.",
    # a program's notice quoted from a log, its holder pushed onto the next line by the print
    "1203 Mar 3 10:11:12 hostq kernel: [123.456] nf_quux: (C) 2010-2012\n \nQuillmere Core Team",
])
def test_a_copyright_word_inside_a_name_or_a_wrapped_log_line_is_no_site_line(line):
    """Issue 35 (free-15): two wiki prints named "Campaign" and a kernel module's authors."""
    text = f"# Queue stall\n\nThe queue stalled for an hour.\n\n{line}\n"
    fact = find_organisation(text)
    assert fact is None or fact["origin"] != "self_reference"


@pytest.mark.parametrize("line", ["\u00a9\u00a02031\u00a0Quillmere Labs", "Copyright\u00a02031 Quillmere Labs"])
def test_a_copyright_notice_spaced_with_no_break_spaces_names_the_owner(line):
    """Review of free-15: an HTML footer's "&nbsp;" between the notice, year and holder hid it."""
    text = f"# Queue stall\n\nThe queue stalled for an hour.\n\n{line}\n"
    fact = find_organisation(text)
    assert fact["value"] == "Quillmere Labs" and fact["origin"] == "self_reference"


def test_a_link_to_the_writers_own_work_after_thanks_is_no_helper():
    """Review of free-15: "thanks to [our tooling](their own site)" dropped the publisher's own address."""
    text = ("# Proxy crashes\n\nOur hub proxy crashed under load twice a week.\n\n"
            "Thanks to [our new failover tooling](https://posthog.com/blog/failover) the recovery took minutes.\n")
    fact = find_organisation(text, title=("Proxy crashes", [(2, 15)]))
    assert fact is not None and fact["value"] == "PostHog"


@pytest.mark.parametrize("sentence", [
    "We chased the leak for weeks with our friends at [PostHog](https://posthog.com), who found the socket bug.",
    "With the help of PostHog we found the socket bug.",
    "Over two days, working together with the Quillmere team, we traced the socket bug.",
    "Thanks to the Quillmere team we found the socket bug.",
])
def test_a_helper_the_writers_name_beside_themselves_is_not_the_writer(sentence):
    """Issue 35 (free-15): a university hub's report credited to the partner it thanks, and a CI
    company's post-mortem to the forge whose team helped it."""
    text = f"# Proxy crashes\n\nOur hub proxy crashed under load twice a week.\n\n{sentence} We patched it.\n"
    fact = find_organisation(text, title=("Proxy crashes", [(2, 15)]))
    assert fact is None or fact["value"] not in ("PostHog", "Quillmere")
    # the same organisation named as the one that speaks is still the writer
    text = "# Proxy crashes\n\nAt PostHog, we saw our hub proxy crash under load twice a week.\n"
    assert find_organisation(text, title=("Proxy crashes", [(2, 15)]))["value"] == "PostHog"


def test_a_third_person_note_names_its_own_team():
    text = "# Mirror down\n\nThe Velmora infrastructure team restarted the mirror. The Velmora team then checked it.\n"
    fact = find_organisation(text, title=("Mirror down", [(2, 13)]))
    assert fact["value"] == "Velmora" and fact["origin"] == "self_reference"
    # the authors signing as their team
    text = "# Mirror down\n\nWe restarted the mirror after an hour.\n\nJo and the Velmora team.\n"
    assert find_organisation(text, title=("Mirror down", [(2, 13)]))["value"] == "Velmora"
    # a speaker naming its own team in the sentence that says "our" is that team
    text = ("# Mirror down\n\nThe Velmora Infrastructure team found that our mirror had stopped. We restarted "
            "it.\n\nThe Velmora team will add an alert.\n")
    fact = find_organisation(text, title=("Mirror down", [(2, 13)]))
    assert fact["value"] == "Velmora" and fact["origin"] == "self_reference"



def test_a_team_named_after_its_function_is_no_publisher():
    # the university's computing team named by what it runs: a department, not who wrote the report
    text = ("# Share down\n\nWe got a mail from the HPC team that the file share failed. We restarted "
            "our workers.\n\nThe HPC team will add an alert.\n")
    fact = find_organisation(text, title=("Share down", [(2, 12)]))
    assert fact is None or fact["value"] != "HPC"
    # a community's moderation team is the community's: the function is no part of its name
    text = ("# Policy review\n\nThe Velmora Moderation team reviewed our policy. We changed it.\n\n"
            "The Velmora Moderation team will post again.\n")
    assert find_organisation(text, title=("Policy review", [(2, 15)]))["value"] == "Velmora"


@pytest.mark.parametrize("team", ["Cloud Security", "Information Security", "Site Reliability Engineering",
                                  "Data Storage", "Technical Support"])
def test_a_function_team_with_a_qualifier_is_no_publisher(team):
    # taking the function off as a kind of team left its qualifier ("Cloud") as the publisher
    text = (f"# Queue stall\n\nOur queue stopped. The {team} team restarted the workers and we are sorry.\n\n"
            f"We added alerts. The {team} team will review the runbook.\n")
    fact = find_organisation(text, title=("Queue stall", [(2, 13)]))
    assert fact is None or fact["value"] not in (team, team.split()[0], "Site Reliability")
    # a named organisation's department still names it
    named = text.replace(f"The {team} team", f"The Velmora {team} team")
    assert find_organisation(named, title=("Queue stall", [(2, 13)]))["value"].startswith("Velmora")


def test_a_team_that_shortens_its_name_keeps_the_name_the_text_writes_in_full():
    text = ("# Builds stalled\n\nThe Velmora team found that our build queue had stopped. We restarted "
            "it.\n\nThanks for using Velmora CI.\n")
    fact = find_organisation(text, title=("Builds stalled", [(2, 16)]))
    assert fact["value"] == "Velmora CI" and fact["origin"] == "self_reference"

@pytest.mark.parametrize("body", [
    # a coordinator who says "we" names the client teams it works with in the third person
    "We paused the rollout. The Quorvex team found the bug. We shipped the fix.\n",
    # nobody says "we", but the team makes software the network runs: its nodes, its release
    "The Quorvex team reported that Quorvex nodes stopped syncing. Quorvex v4.1.2 fixed it.\n",
    "The Quorvex project shipped a patch after a Quorvex feature misbehaved.\n",
])
def test_a_team_named_beside_a_speaker_or_as_software_is_not_the_author(body):
    text = "# Sync halt\n\n" + body
    fact = find_organisation(text, title=("Sync halt", [(2, 11)]))
    assert fact is None or fact["value"] != "Quorvex"


@pytest.mark.parametrize("timeline", ["## Timeline", "# Timeline of Events", "Timeline (UTC):", "**Timeline**",
                                      # a bold bullet's label, and the other name of the same section
                                      # (issue 35, free-15: six cards of a platform team's log named
                                      # the failed component or its vendor)
                                      "- **Timeline**:", "- **Key events**", "## Key Events"])
def test_a_title_naming_what_failed_under_a_teams_own_timeline_is_no_publisher(timeline):
    # written in the passive voice, but the responders keep their own timeline: the title's subject
    # (a vendor's product, a tool) is what failed under them, not who wrote the report
    text = ("# Brindlecloud disk refuses to detach, causing downtime\n\n## Summary\n\nThe hub was down while a "
            "Brindlecloud disk stayed attached to a dead node.\n\n"
            f"{timeline}\n\n- 10:02 the disk hung\n- 10:40 the disk was detached by hand\n")
    fact = find_organisation(text, title=("Brindlecloud disk refuses to detach, causing downtime", [(2, 55)]))
    assert fact is None or fact["value"] != "Brindlecloud"
    # a catalogue entry without a timeline is still about the project its title names
    entry = "# Brindlecloud disk images backdoored\n\nAn attacker changed Brindlecloud images for a week.\n"
    fact = find_organisation(entry, title=("Brindlecloud disk images backdoored", [(2, 37)]))
    assert fact["value"] == "Brindlecloud" and fact["origin"] == "title_subject"


def test_a_contents_list_naming_a_timeline_is_no_timeline_of_the_responders():
    """Review of free-15: a plain bullet "- Timeline" (an entry of a contents list) read as the
    responders' own timeline, and a summary of someone else's incident lost its title's subject."""
    title = "Backdoor found in Trellisoft release server"
    text = (f"# {title}\n\nAn attacker changed Trellisoft downloads for a week. Users of Trellisoft were told to "
            "check signatures.\n\nContents:\n\n- Summary\n- Timeline\n- Lessons\n")
    fact = find_organisation(text, title=(title, [(2, 2 + len(title))]))
    assert fact["value"] == "Trellisoft" and fact["origin"] == "title_subject"


def test_a_summary_of_someone_elses_incident_is_about_the_project_its_title_names():
    text = ("# Backdoor found in Trellisoft release server\n\nAn attacker changed Trellisoft downloads for a week. "
            "Users of Trellisoft were told to check signatures.\n")
    title = ("Backdoor found in Trellisoft release server", [(2, 45)])
    fact = find_organisation(text, title=title)
    assert fact["value"] == "Trellisoft" and fact["origin"] == "title_subject"
    assert text[fact["evidence"][0][0]:fact["evidence"][0][1]] == "Trellisoft"
    quoted = "# Package `leftpadz` sabotaged\n\nThe maintainer published a version that wipes files.\n"
    assert find_organisation(quoted, title=("Package `leftpadz` sabotaged", [(2, 30)]))["value"] == "leftpadz"


def test_an_author_field_counts_only_when_the_table_knows_it():
    text = "---\nauthor: Homebrew maintainers\n---\nA token leaked.\n"
    fact = find_organisation(text, 37, front={"author": "Homebrew maintainers"}, front_region=(0, 37))
    assert fact["value"] == "Homebrew" and fact["origin"] == "front_matter"
    assert find_organisation("---\nauthor: Jane Roe\n---\nA token leaked.\n", 25, front={"author": "Jane Roe"}) is None


def test_the_html_site_name_names_the_organisation():
    fact = find_organisation("The page failed.\n", meta={"sitename": "Pellucid Systems"})
    assert fact["value"] == "Pellucid Systems" and fact["origin"] == "html_meta"
    assert find_organisation("The page failed.\n", meta={"sitename": "Zorbq.io"})["value"] == "Zorbq.io"


@pytest.mark.parametrize("host", ["4zorbq-org.pagedesk.example", "Status.Zorbq.example", "9lives.example"])
def test_a_site_name_that_is_a_host_name_names_no_organisation(host):
    assert find_organisation("The page failed.\n", meta={"sitename": host}) is None


def test_product_names_are_unique_across_the_table():
    with pytest.raises(ValueError, match="names both"):
        OrganisationsFile.model_validate({"version": 1, "organisations": [
            {"name": "A", "products": ["Widget"]}, {"name": "B", "aliases": ["Widget"]}]})


@pytest.mark.parametrize(("title", "body", "name"), [
    # the title adds the compromised tool's name to the project's
    ("Compromise of Quorvel Sync Uploader tool", "Quorvel is a backup service for small teams. An attacker changed "
     "its Sync uploader script.", "Quorvel"),
    # the body's definition keeps the title's "The"
    ("The Idle Tabkeeper", "The Idle Tabkeeper is a browser extension with many users. Its new owner shipped "
     "tracking code.", "The Idle Tabkeeper"),
    # a "The" the title does not have is the sentence's, not the name's
    ("Trojanized Marlowe Desk installer", "The Marlowe Desk was an app for help desks. Its installer carried a trojan.",
     "Marlowe Desk"),
])
def test_a_summarys_opening_definition_names_the_subject_its_title_names(title, body, name):
    text = f"# {title}\n\n{body}\n"
    fact = find_organisation(text, title=(title, [(2, 2 + len(title))]))
    assert fact["value"] == name and fact["origin"] == "title_subject"
    assert text[fact["evidence"][0][0]:fact["evidence"][0][1]] == name


def test_a_definition_of_a_name_the_title_does_not_give_is_not_the_subject():
    title = "Backdoor found in Trellisoft release server"
    text = f"# {title}\n\nGitHub is a code host. An attacker changed Trellisoft downloads for a week.\n"
    assert find_organisation(text, title=(title, [(2, 2 + len(title))]))["value"] == "Trellisoft"


def test_hosts_a_status_note_lists_in_its_front_matter_name_its_owner():
    text = ("---\ntitle: Artifact uploads failing\naffected:\n  - repo.jenkins-ci.org\n---\n\n"
            "Uploads fail because the disk is full. Cleanup is under way.\n")
    region = (0, text.index("---\n\n") + 4)
    fact = find_organisation(text, region[1], front={"title": "Artifact uploads failing",
                                                     "affected": ["repo.jenkins-ci.org"]}, front_region=region)
    assert fact["value"] == "Jenkins"
    assert text[fact["evidence"][0][0]:fact["evidence"][0][1]] == "repo.jenkins-ci.org"


@pytest.mark.parametrize(("title", "body", "name"), [
    # a lone title word is the malware's name: the victim is in the sentence saying what was hacked
    ("Quietworm", "The update servers of Parvane Systems were compromised and shipped Quietworm to users.",
     "Parvane Systems"),
    # a title giving no name: the same sentence
    ("Backdoored installer", "A popular file tool, Tessaly, for desktop systems was hacked and its installer "
     "replaced.", "Tessaly"),
])
def test_the_sentence_saying_what_was_compromised_names_the_victim(title, body, name):
    text = f"# {title}\n\n{body}\n"
    fact = find_organisation(text, title=(title, [(2, 2 + len(title))]))
    assert fact["value"] == name and fact["origin"] == "title_subject"
    assert text[fact["evidence"][0][0]:fact["evidence"][0][1]] == name


def test_a_word_opening_the_sentence_is_no_victim_unless_written_as_a_name_elsewhere():
    title = "Backdoored installer"
    text = f"# {title}\n\nInterestingly, the mirror host was hacked twice. Nobody knew.\n"
    assert find_organisation(text, title=(title, [(2, 2 + len(title))])) is None


def test_an_inner_alias_is_the_shortest_other_one_looked_up_the_same_way():
    aliases = ["Zorbq Cloud Platform", "Zorbq Cloud", "Zorbq", "zorbq-infra", "zorbq", "Quillmere"]
    assert inner_alias("Zorbq Cloud Platform", aliases) == "Zorbq"
    assert inner_alias("Zorbq Cloud", aliases) == "Zorbq"
    # itself does not count, and nothing shorter is inside it
    assert inner_alias("Zorbq", aliases) is None
    assert inner_alias("Quillmere", aliases) is None
    # a lowercase alias is looked up in the lowercased text: only a lowercase one stands for it
    assert inner_alias("zorbq-infra", aliases) == "zorbq"
    assert inner_alias("Zorbq Cloud", ["zorbq", "Zorbq Cloud"]) is None


def test_every_inner_alias_of_the_table_is_inside_its_alias():
    gaz = load_gazetteer()
    names = [alias for alias, _, _ in gaz.aliases]
    for alias, (lower, inner) in zip(names, gaz.alias_checks):
        assert lower == alias.islower()
        assert inner is None or (inner in alias and inner != alias and inner in names)


def test_an_alias_holding_another_is_found_and_one_whose_inner_alias_is_absent_is_not(tmp_path):
    table = tmp_path / "organisations.yaml"
    table.write_text("version: 1\norganisations:\n"
                     "  - name: Zorbq Labs\n    aliases: [Zorbq, Zorbq Cloud]\n"
                     "  - name: Quillmere\n    aliases: [Quillmere Mills]\n", encoding="utf-8")
    clear_gazetteers()
    try:
        text = "## Summary\n\nThe Zorbq Cloud queue stalled for an hour; the Zorbq Cloud workers restarted.\n"
        fact = find_organisation(text, gazetteer_path=str(table))
        assert fact["value"] == "Zorbq Labs"
        assert [text[s:e] for s, e in fact["evidence"]] == ["Zorbq Cloud", "Zorbq Cloud"]
        assert find_organisation("## Summary\n\nA queue stalled; workers restarted.\n",
                                 gazetteer_path=str(table)) is None
    finally:
        clear_gazetteers()


def test_a_latin_abbreviation_in_a_title_is_no_name():
    title = "Plugins (i.e. extensions, not core) hosted by Zorbq found to steal tokens"
    text = f"# {title}\n\nSeveral plugins on the Zorbq index sent tokens to an outside host.\n"
    fact = find_organisation(text, title=(title, [(2, 2 + len(title))]))
    assert fact["value"] == "Zorbq"



def test_a_brand_its_customers_use_names_a_providers_own_report():
    # the table lists none of these products: the brand prefixing them, which customers use, is the publisher
    text = ("## Summary\n\nBetween 09:10 and 10:05 UTC, a subset of Zorbq customers saw errors with Zorbq Speech "
            "Service and Zorbq Vision API. Some could not access the Zorbq Portal.\n")
    fact = find_organisation(text)
    assert fact["value"] == "Zorbq" and fact["origin"] == "product"
    assert text[fact["evidence"][0][0]:fact["evidence"][0][1]] == "Zorbq"
    # a brand the table knows gives the table's name
    text = text.replace("Zorbq", "Azure")
    assert find_organisation(text)["value"] == "Microsoft Azure"
    # products named without customers said to use them are dependencies
    assert find_organisation("## Summary\n\nOur build used Zorbq Speech Service and Zorbq Vision API.\n") is None


def test_a_link_to_an_encyclopedia_article_cites_a_page_and_names_no_publisher():
    text = ("## Summary\n\nOur ingress queues stalled; times are in [UTC](https://en.wikipedia.org/wiki/UTC) and "
            "we use [blue/green deploys](https://en.wikipedia.org/wiki/Blue-green_deployment).\n")
    assert find_organisation(text) is None
    # a bare host of the same organisation still names it (a wiki's own incident page)
    assert find_organisation("## Summary\n\nThe cache of en.wikipedia.org filled up.\n")["value"] == "Wikimedia Foundation"


_BRAND_WORDS = ["Zorbq", "Zorbq.io", "C++", "Speech", "Vision", "Portal", "portal", "Console", "customers", "customer",
                "Customers", "using", "of", "the", "access", "sign in to", "API", "Acme", ".", ",", "\n"]


def _brand_without_cue_test(text: str, body_start: int = 0, window: int = 20000):
    """customers_brand as it was before the cue test: every brand's pattern searched."""
    import re as _re

    end = min(len(text), body_start + window)
    heads: dict[str, set[str]] = {}
    for match in publisher_cues._PRODUCT.finditer(text, body_start, end):
        words = match.group(1).split()
        heads.setdefault(words[0], set()).add(" ".join(words[1:]))
    for brand, tails in sorted(heads.items(), key=lambda kv: -len(kv[1])):
        if len(tails) < 2 or len(brand) < 3 or not brand[0].isupper():
            continue
        name = _re.escape(brand)
        said = _re.compile(r"\bcustomers?\s+(?:using|of|on|with|in)\s+(?:the\s+)?(" + name + r")\b"
                           r"|(?<![\w.])(" + name + r")\s+customers\b"
                           r"|\b(?:access|accessing|use|using|sign\s+in\s+to)\s+(?:the\s+)?(" + name
                           + r")\s+(?:Portal|Console)\b")
        match = said.search(text, body_start, end)
        if match is not None:
            return brand, match.span(next(i for i in (1, 2, 3) if match.group(i)))
    return None


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_BRAND_WORDS), max_size=30), st.integers(0, 5), st.integers(1, 200))
def test_the_brand_cue_test_skips_only_texts_no_phrase_can_match(words, body_start, window):
    """A text without "customer", "Portal" or "Console" in its window is not read for a brand:
    the answer is the one every brand's own pattern gives."""
    text = " ".join(words)
    assert publisher_cues.customers_brand(text, body_start, window) == _brand_without_cue_test(text, body_start, window)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(["a", "Z", "0", "9", ".", "-", "_", "@", " ", "\n", "/", "com", "io", "co.uk", "x" * 13,
                                 "\u212a", "\u017f", "\u0663", "é", "www.", "acme-corp", "(", ":"]), max_size=40),
       st.integers(0, 8), st.integers(0, 200))
def test_the_host_scan_finds_what_the_host_pattern_finds(parts, start, end):
    """Hosts are looked for only in runs holding a dot and a top-level label: the same matches as
    the pattern's own scan of the whole stretch, at its edges too."""
    text = "".join(parts)
    found = [m.span(1) for m in hosts.find_hosts(text, start, end)]
    assert found == [m.span(1) for m in hosts.HOST.finditer(text, start, end)]


def test_an_organisation_word_in_a_title_keeps_the_words_it_closes():
    # "Free" and "Widget" are common words in the body, "Foundation" is written as a name there:
    # the name is the whole "Free Widget Foundation", never the organisation word alone
    text = ("# Free Widget Foundation Website Hack\n\nThe website of the Foundation was defaced. "
            "Attackers got free access to its widget store.\n")
    fact = find_organisation(text, title=("Free Widget Foundation Website Hack", [(2, 37)]))
    assert fact["value"] == "Free Widget Foundation" and fact["origin"] == "title_subject"
    assert text[fact["evidence"][0][0]:fact["evidence"][0][1]] == "Free Widget Foundation"
    alone = "# Foundation Website Hack\n\nThe website of the Foundation was defaced.\n"
    found = find_organisation(alone, title=("Foundation Website Hack", [(2, 25)]))
    assert found is None or found["value"] != "Foundation"


def test_a_title_name_whose_first_word_opens_every_sentence_keeps_that_word():
    # "Zorbq" shows its capital only where a sentence starts, "Cloud" mid-sentence too: the name
    # is the pair the body writes together, never its second word alone
    text = ("# Zorbq Cloud outage\n\nZorbq Cloud was down for an hour. Zorbq Cloud customers saw "
            "errors until a deploy was rolled back.\n")
    fact = find_organisation(text, title=("Zorbq Cloud outage", [(2, 20)]))
    assert fact["value"] == "Zorbq Cloud" and text[slice(*fact["evidence"][0])] == "Zorbq Cloud"
    # a capitalised title word the body never writes before the name stays out of it
    apart = "# Major Zorbq outage\n\nThe Zorbq API was down. Users of Zorbq saw errors.\n"
    found = find_organisation(apart, title=("Major Zorbq outage", [(2, 20)]))
    assert found is not None and found["value"] == "Zorbq"


def test_the_title_written_again_in_the_body_makes_none_of_its_words_a_name():
    # a breadcrumb repeats the title under it: its capitalised common word is no part of the name
    title = "Postmortem Zorbq Cloud outage"
    text = (f"# {title}\n\nBlog / {title}\n\nZorbq Cloud was down for an hour. Zorbq Cloud customers saw "
            "errors until a deploy was rolled back.\n")
    fact = find_organisation(text, title=(title, [(2, 2 + len(title))]))
    assert fact["value"] == "Zorbq Cloud" and text[slice(*fact["evidence"][0])] == "Zorbq Cloud"
