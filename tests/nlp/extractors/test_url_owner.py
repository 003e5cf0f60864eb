"""The publisher a source's address names, as the text writes it: addresses and texts written for these tests."""

from __future__ import annotations

import pytest

from pmparse.nlp.extractors.organisation import find_organisation
from pmparse.nlp.extractors.url_owner import address_names, expansion, name_keys, slug_name, written_owner


def test_an_address_gives_a_forges_account_and_repository_or_a_hosts_own_labels():
    assert address_names("https://github.com/zorbq-ci/docs-zorbq-ci-com/blob/abc/post.md") == [
        ("account", "zorbq-ci"), ("repository", "docs-zorbq-ci-com")]
    assert address_names("https://community.quillmere.io/blog/incidents/x/") == [("host", "quillmere")]
    assert address_names("notes/x.md") == []


def test_generic_parts_are_dropped_and_a_dotted_host_stays_whole():
    assert name_keys("zorbq-official") == ["zorbq"]
    assert name_keys("zorbq-ci") == ["zorbqci", "zorbq"]
    assert name_keys("quillmere.org-deploy", "repository") == ["quillmereorg"]


@pytest.mark.parametrize("text, address, form", [
    ("We at Zorbq CI restarted the workers. Zorbq CI builds resumed.", "https://github.com/zorbq-ci/status/blob/a/x.md",
     "Zorbq CI"),
    ("Our ZorbqHub servers failed; ZorbqHub was down.", "https://github.com/zorbqhub/incident-reports/blob/a/x.md",
     "ZorbqHub"),
    # a repository named like a host is the site it deploys, though the account is written more often
    ("Quillmere ran quillmere.org on Quillmere and Quillmere.", "https://github.com/quillmere/quillmere.org-deploy/blob/a/x",
     "quillmere.org"),
    ("The Ostrava Foundation runs this. Ostrava was down.", "https://wiki.ostrava.org/wiki/Incident", "Ostrava Foundation"),
    # an acronym the text writes out
    ("The Open Zorbq Service (OZS) failed. OZS was down.", "https://github.com/example/ozs-landing/blob/a/x",
     "Open Zorbq Service"),
    # a hard-wrapped paragraph breaks the name at a line end; the first word alone elsewhere
    ("We lost the build logs on [Zorbq\nCI](http://x.example). Zorbq apologises.",
     "https://github.com/zorbq-ci/blog/blob/a/x.md", "Zorbq CI"),
])
def test_the_address_owner_is_the_name_as_the_text_writes_it(text, address, form):
    assert written_owner(text, address)[0] == form


def test_a_wrapped_name_is_cited_where_the_text_writes_it():
    text = "## Summary\n\nWe lost the build logs of Zorbq\nCI for an hour; our queue was full.\n"
    fact = find_organisation(text, 0, "https://github.com/zorbq-ci/blog/blob/a/post.md")
    assert fact["value"] == "Zorbq CI" and [text[s:e] for s, e in fact["evidence"]] == ["Zorbq\nCI"]
    # two paragraphs are not one name
    assert written_owner("Ask Zorbq\n\nCI runs are fine.", "https://github.com/zorbq-ci/blog/blob/a/x.md")[0] == "Zorbq"


def test_a_short_form_of_an_account_the_table_knows_in_full_is_the_tables_name():
    # the table knows "Travis CI"; the post, behind the account "travis-ci", only writes "Travis"
    text = "## Summary\n\nWe lost the build logs for an hour. The Travis queue was full; our workers waited.\n"
    fact = find_organisation(text, 0, "https://github.com/travis-ci/blog/blob/a/post.md")
    assert fact["value"] == "Travis CI" and fact["origin"] == "url"
    # an account the table does not know keeps the form the text writes
    fact = find_organisation(text.replace("Travis", "Zorbq"), 0, "https://github.com/zorbq-ci/blog/blob/a/post.md")
    assert fact["value"] == "Zorbq"


def test_a_catalogue_entry_nobody_speaks_in_is_not_its_curators():
    # someone else's incident told in the third person, with no timeline and not called a report:
    # the account holding the catalogue curates it, it did not publish the incident
    address = "https://github.com/zorbqsec/catalog/blob/a/compromises/2031/x.md"
    entry = "# Operation Quietfern\n\nAttackers slipped a backdoor into an updater.\n\n## Impact\n\nMany users.\n"
    assert find_organisation(entry, 0, address, title=("Operation Quietfern", [(2, 21)])) is None
    # the same account's own report, calling itself one or keeping its own timeline, is its own
    for heading in ("# Incident Report: updater outage", "# Updater outage\n\n## Timeline"):
        report = heading + "\n\nThe updater failed at 10:02 and was restarted.\n"
        assert find_organisation(report, 0, address, title=(heading.split("\n")[0][2:], []))["value"] == "Zorbqsec"


def test_a_slug_in_a_path_an_address_or_lower_case_is_not_a_written_name():
    text = "See github.com/zorbq-ci/x and zorbq-ci.example, and zorbqci in lower case."
    assert written_owner(text, "https://github.com/zorbq-ci/x/blob/a/y.md") is None
    assert expansion("Open Zorbq Service", "Open") is None


def test_a_slug_without_a_written_form_is_formatted_as_a_name():
    assert slug_name("https://github.com/zorbq-official/incident-reports/blob/a/x.md") == "Zorbq"
    assert slug_name("https://github.com/zorbqdigital/y/blob/a/x.md") == "Zorbqdigital"
    # several words left: no name
    assert slug_name("https://github.com/zorbq-dsep-x/y/blob/a/x.md") is None
    assert slug_name("https://status.zorbq.io/x") is None
    assert find_organisation("We lost a disk.", 0, "https://github.com/zorbq-dsep-x/y/blob/a/x.md") is None
    assert find_organisation("We lost a disk.", 0, "https://github.com/zorbq-official/y/blob/a/x.md")["value"] == "Zorbq"


def test_the_address_owner_the_text_writes_is_the_publisher_of_a_text_speaking_as_it():
    text = "## Summary\n\nWe restarted the Zorbq CI workers after a fault; our friends at the GitHub team helped.\n"
    fact = find_organisation(text, 0, "https://github.com/zorbq-ci/blog/blob/a/post.md")
    assert fact["value"] == "Zorbq CI" and fact["origin"] == "url"
    assert [text[s:e] for s, e in fact["evidence"]] == ["Zorbq CI"]


def test_a_site_slug_in_front_matter_is_no_publisher():
    text = "---\nsite: freiburg\n---\nThe Zorbq server failed and we restarted it.\n"
    front = {"site": "freiburg"}
    fact = find_organisation(text, 23, "https://github.com/zorbq/website/blob/a/post.md", None, front, (0, 23))
    assert fact["value"] == "Zorbq"
    assert find_organisation(text, 23, "", None, {"site": "Zorbq Labs"}, (0, 23))["value"] == "Zorbq Labs"


def test_a_known_organisation_the_text_names_more_often_than_the_address_owner_stands():
    # a deploy repository's account (a software project) is not the service's publisher
    text = "## Summary\n\nWe restarted Binder; the Binder team watched Binder pods. ZorbqHub was fine.\n"
    fact = find_organisation(text, 0, "https://github.com/zorbqhub/binder-deploy/blob/a/x.md")
    assert fact["value"] == "mybinder.org"


def test_a_common_word_an_address_gives_is_no_written_name():
    text = "Monitoring failed. We saw monitoring gaps, and the monitoring team restarted it."
    assert written_owner(text, "https://github.com/example/web-monitoring-ops/blob/a/x.md") is None


def test_a_tool_named_more_often_than_the_owner_does_not_outweigh_it():
    text = "## Summary\n\nWe at first saw Zorbq lag; we met on Discord, Discord and Discord.\n"
    assert find_organisation(text, 0, "https://github.com/zorbq/community/blob/a/x.md")["value"] == "Zorbq"
    # the slug in a link is no lower-case word
    text += "See https://github.com/zorbq/community and zorbq.example.org.\n"
    assert find_organisation(text, 0, "https://github.com/zorbq/community/blob/a/x.md")["value"] == "Zorbq"


def test_a_tool_named_in_a_text_nobody_speaks_in_leaves_the_address_owner():
    text = "## Notes\n\nThe Zorbq Network upgrade stalled. Clients met on Discord. Discord calls continued.\n"
    assert find_organisation(text, 0, "https://github.com/zorbq/pm/blob/a/x.md")["value"] == "Zorbq Network"


def test_the_written_owner_wins_over_a_name_only_the_title_gives():
    """A retrospective in its project's repository titled by the release ("Quillon") is the
    project's when the text writes the project's name and nobody speaks in the first person."""
    from pmparse.nlp.extractors.organisation import find_organisation

    title = "Quillon Retrospective"
    text = (f"# {title}\n\nThe Quillon upgrade of the Zorbq network went live on 3 March. Zorbq nodes on an old "
            "release stopped; the Zorbq client teams shipped a fix within a day.\n")
    span = (2, 2 + len(title))
    fact = find_organisation(text, location="https://github.com/zorbq/pm/blob/a/quillon.md", title=(title, [span]))
    assert fact["value"] == "Zorbq" and fact["origin"] == "url"
    # without the address the title's name stands, as before
    fact = find_organisation(text, title=(title, [span]))
    assert fact["value"] == "Quillon" and fact["origin"] == "title_subject"


@pytest.mark.parametrize("location", ["https://[::1/x", "http://[zz]/a", "https://example.com:99999/a"])
def test_an_address_that_does_not_parse_names_no_one(location):
    # a location a record or a caller gives as an http(s) address is not always one urlsplit reads
    assert address_names(location) == []
    assert slug_name(location) is None
    fact = find_organisation("# Outage\n\nThe disk filled up.\n", 0, location)
    assert fact is None or fact.value


def test_a_slug_running_words_together_is_no_name_but_its_acronym_the_text_writes_is():
    location = "https://github.com/zorbqdigitalresponse/queue/blob/a/docs/x.md"
    assert slug_name(location) is None
    assert find_organisation("We lost a disk at noon.", 0, location) is None
    text = "ZDR runs the queue. We lost a disk at noon; the ZDR on-call engineer replaced it.\n"
    found = find_organisation(text, 0, location)
    assert found["value"] == "ZDR" and found["evidence"] == [(0, 3), (48, 51)]
    # once is not enough, and capitals that do not follow the slug's letters are no acronym
    assert find_organisation("ZDR runs the queue. We lost a disk.", 0, location) is None
    assert find_organisation("The API and the API gateway failed. We lost a disk.", 0, location) is None
    # one word of a usual length is still a name
    assert slug_name("https://github.com/zorbqdigital/y/blob/a/x.md") == "Zorbqdigital"


def test_the_owners_capitalised_form_wins_over_its_host_in_lower_case():
    location = "https://github.com/zorbq-eu/website/blob/a/_posts/x.md"
    text = ("We could not reach zorbq.eu. DNS for zorbq.eu and stats.zorbq.eu failed, "
            "so ZorbQ.eu users saw errors; zorbq.eu was back within the hour.\n")
    assert written_owner(text, location)[0] == "ZorbQ.eu"
    # a capital where a sentence starts is no spelling of the name
    text = "Zorbq.eu was down. We moved zorbq.eu to another host, and zorbq.eu came back.\n"
    assert written_owner(text, location)[0] == "zorbq.eu"


def test_a_technical_acronym_whose_letters_a_long_slug_holds_is_no_publisher():
    # a long slug holds the letters of most acronyms in order: "CPU" in "cloudnativecomputing..."
    location = "https://github.com/cloudnativecomputingfoundation/queue/blob/a/docs/x.md"
    text = "CPU on the queue hosts hit 100% at noon. We added hosts; CPU fell back, the SLA held, SLA met.\n"
    assert find_organisation(text, 0, location) is None
    named = text + "The CNCF on-call engineer paged the CNCF storage team.\n"
    assert find_organisation(named, 0, location)["value"] == "CNCF"


@pytest.mark.parametrize("text, form", [
    # the text writes the account's first word alone: the account's organisation word completes it
    ("Zorbq nodes stalled at block 90. Zorbq released a fix.", "Zorbq Network"),
    # the full name with a legal form after it: the account's name, one name for every report
    ("Zorbq Network Inc found the bug. Zorbq Network Inc patched it.", "Zorbq Network"),
    ("Zorbq Network found the bug.", "Zorbq Network"),
])
def test_an_account_of_a_name_and_organisation_words_is_the_name_in_full(text, form):
    assert written_owner(text, "https://github.com/Zorbq-Network/post-mortem/blob/a/x.md")[0] == form


def test_an_account_of_other_words_keeps_the_form_the_text_writes():
    # "Zorbq" of "zorbq-blockchain": the second word is no organisation word
    text = "Zorbq nodes stalled at block 90. Zorbq released a fix."
    assert written_owner(text, "https://github.com/zorbq-blockchain/pm/blob/a/x.md")[0] == "Zorbq"
    # a single-word account still takes the organisation word the text writes after it
    assert written_owner("The Zorbq Foundation runs it. Zorbq was down.",
                         "https://github.com/zorbq/pm/blob/a/x.md")[0] == "Zorbq Foundation"


@pytest.mark.parametrize("title", ["ci.zorbq.io outage", "repo.zorbq-ci.org SSL certificate expired",
                                   "issues.zorbq.io unavailable"])
def test_a_host_of_the_address_owners_domain_in_the_title_is_the_owners_service(title):
    from pmparse.nlp.extractors.organisation import find_organisation

    text = f"# {title}\n\nThe service was unreachable for two hours; the mirror was switched back at 14:00.\n"
    span = (2, 2 + len(title))
    fact = find_organisation(text, location="https://github.com/zorbq-infra/status/blob/a/x.md", title=(title, [span]))
    assert fact["value"] == "Zorbq" and fact["origin"] == "url"
    assert [text[s:e] for s, e in fact["evidence"]] == [title.split(" ")[0]]  # the host, cited in the title
    # a host of another domain stays the title's subject
    other = title.replace("zorbq", "quillmere")
    text = f"# {other}\n\nThe service was unreachable for two hours; the mirror was switched back at 14:00.\n"
    fact = find_organisation(text, location="https://github.com/zorbq-infra/status/blob/a/x.md",
                             title=(other, [(2, 2 + len(other))]))
    assert fact["value"].startswith(other.split(" ")[0]) and fact["origin"] == "title_subject"


def test_a_site_a_repository_holds_is_named_by_the_hosts_the_text_writes_on_it():
    # the text writes the site only in links and as a subdomain: the repository's site all the same
    text = ("The hub ran out of disk ([graph](https://grafana.quillmere.org/d/x?from=1)). Quillmere users "
            "saw errors; see [the issue](https://github.com/zorbqhub/quillmere.org-deploy/issues/3).")
    found = written_owner(text, "https://github.com/zorbqhub/quillmere.org-deploy/blob/a/x.md")
    assert found[0] == "quillmere.org" and text[slice(*found[1][0])] == "grafana.quillmere.org"
    # a repository's path in a link is no host of its site
    text = "See [the issue](https://github.com/zorbqhub/quillmere.org-deploy/issues/3) on ZorbqHub."
    assert written_owner(text, "https://github.com/zorbqhub/quillmere.org-deploy/blob/a/x.md")[0] == "ZorbqHub"


def test_an_account_the_text_never_writes_is_named_by_two_hosts_on_its_domain():
    location = "https://github.com/zorbq-infra/status/blob/a/x.md"
    text = "The mirror updates.zorbq.io stopped syncing; ci.zorbq.io builds failed until it was restarted."
    found = written_owner(text, location)
    assert found[0] == "Zorbq" and [text[s:e] for s, e in found[1]] == ["updates.zorbq.io", "ci.zorbq.io"]
    fact = find_organisation(text, 0, location)
    assert fact["value"] == "Zorbq" and fact["origin"] == "url"
    # one host is not enough; file names and other domains are no hosts of it
    assert written_owner("The mirror updates.zorbq.io stopped; run fix_zorbq.py on zorbq.yaml.", location) is None
    assert written_owner("The mirror updates.quillmere.io and ci.quillmere.io stopped.", location) is None


# --- second review (rev-13): wrong publishers the address's hosts gave --------------------------

_CATALOGUE = "https://github.com/zorbq/outage-catalogue/blob/a/x.md"
_CATALOGUE_TITLE = "Quillmere database outage"


def _catalogue_entry(links: str) -> str:
    return (f"# {_CATALOGUE_TITLE}\n\nQuillmere's primary database ran out of disk and its API failed for six "
            f"hours. {links}\n")


def test_a_catalogue_entry_linking_its_curators_site_is_not_the_curators():
    # nobody speaks and no timeline: an entry about someone else's incident, its curator's own
    # site cited in links; the links are addresses it cites, not services it is about
    title = (_CATALOGUE_TITLE, [(2, 2 + len(_CATALOGUE_TITLE))])
    plain = _catalogue_entry("See the other entries.")
    assert find_organisation(plain, 0, _CATALOGUE, title=title) is None
    linked = _catalogue_entry("Catalogued at https://catalogue.zorbq.io/entries/12; corrections via "
                              "<https://zorbq.io/submit>.")
    assert written_owner(linked, _CATALOGUE) is None
    assert find_organisation(linked, 0, _CATALOGUE, title=title) is None


def test_a_host_a_markdown_link_writes_and_targets_is_written_once():
    # the link's text and its target are one host written once: one host is not enough
    location = "https://github.com/zorbq-infra/status/blob/a/x.md"
    assert written_owner("The mirror [ci.zorbq.io](https://ci.zorbq.io/) stopped syncing.", location) is None
    # the host the link's text writes counts, and a second one named makes two
    text = "The mirror [ci.zorbq.io](https://ci.zorbq.io/) stopped syncing, and updates.zorbq.io with it."
    found = written_owner(text, location)
    assert found[0] == "Zorbq" and [text[s:e] for s, e in found[1]] == ["ci.zorbq.io", "updates.zorbq.io"]


@pytest.mark.parametrize("text", [
    "We ran zorbq-backup.sh and then zorbq-restore.sh on the primary.",
    "The templates zorbq.in and zorbq-build.in were regenerated.",
])
def test_a_script_or_template_file_name_is_no_host(text):
    # ".sh" and ".in" are top-level domains and the commonest script and template extensions
    assert written_owner(text, "https://github.com/zorbq-infra/status/blob/a/x.md") is None


def test_an_accounts_pages_repository_is_no_site_of_its_own():
    # "alice.github.io" is a person's pages on the forge, linked from her own posts: no publisher
    location = "https://github.com/alice/alice.github.io/blob/main/_posts/x.md"
    text = ("Quillmere's API failed for six hours after a certificate expired. I wrote about certificates "
            "before (https://alice.github.io/2030/certs) and on [renewals](https://alice.github.io/2030/renewals).")
    assert written_owner(text, location) is None
    # a site of its own is still the repository's
    text = "Graphs at https://grafana.quillmere.org/d/x and https://quillmere.org/status."
    assert written_owner(text, "https://github.com/zorbqhub/quillmere.org-deploy/blob/a/x.md")[0] == "quillmere.org"


def test_an_acronym_the_text_writes_out_wins_over_the_accounts_organisation_words():
    # the account "ZDR-Labs" and a text that spells its acronym out: the written name, as for "ZDR"
    text = "The Zorbq Digital Response (ZDR) team restarted the nodes. ZDR shipped a fix. ZDR apologises."
    assert written_owner(text, "https://github.com/ZDR-Labs/pm/blob/a/x.md")[0] == "Zorbq Digital Response"
    assert written_owner(text, "https://github.com/ZDR/pm/blob/a/x.md")[0] == "Zorbq Digital Response"
    # without the spelt-out name the account's organisation word still completes it
    assert written_owner("ZDR restarted the nodes. ZDR shipped a fix.",
                         "https://github.com/ZDR-Labs/pm/blob/a/x.md")[0] == "ZDR Labs"


def test_a_site_on_a_file_extensions_domain_is_named_by_its_hosts_all_the_same():
    # ".sh" names scripts, but a host on the repository's own site ("formulae.zorbq.sh") is no file
    text = "The index at formulae.zorbq.sh served stale files for an hour."
    assert written_owner(text, "https://github.com/Zorbq/zorbq.sh/blob/a/x.md")[0] == "zorbq.sh"


def test_a_repository_that_keeps_another_sites_copy_does_not_hold_that_site():
    # "quillmere.org-archive" is Zorbq's archive of Quillmere's site: its links to the site do not
    # make the site the publisher of a text that writes Zorbq's name
    text = ("Zorbq's archiver stopped fetching pages on 3 May. Zorbq engineers saw https://quillmere.org/data "
            "and https://www.quillmere.org/news time out; Zorbq restarted the crawler the next day.")
    assert written_owner(text, "https://github.com/zorbq/quillmere.org-archive/blob/a/x.md")[0] == "Zorbq"
    # a repository of the site and words that say what it holds ("deploy") holds the site
    assert written_owner(text, "https://github.com/zorbq/quillmere.org-deploy/blob/a/x.md")[0] == "quillmere.org"


def test_an_address_key_is_the_forge_account_or_the_hosts_domain_label():
    from pmparse.nlp.extractors.url_owner import address_key

    assert address_key("https://github.com/Zorbq-Gov/cloud-platform/blob/a/x.md") == "github.com/zorbq-gov"
    assert address_key("https://status.zorbq.co.uk/incidents/1") == "host:zorbq"
    assert address_key("https://zorbq.io") == address_key("https://blog.zorbq.io/post") == "host:zorbq"
    assert address_key("notes/x.md") is None and address_key(None) is None and address_key("https://github.com/") is None


def test_an_address_key_on_a_platform_of_many_owners_is_the_owners_not_the_platforms():
    # pages saved from many authors' sites of one platform: the domain label is the platform's
    from pmparse.nlp.extractors.url_owner import address_key

    assert address_key("https://zorbq.github.io/notes/x.md") == address_key("https://github.com/Zorbq/notes") \
        == "github.com/zorbq"  # an account's pages are that account's
    assert address_key("https://zorbq.gitlab.io/x") == "gitlab.com/zorbq"
    # a forge's own pages of many accounts' content are no account's
    assert address_key("https://github.com/orgs/Zorbq/discussions/1") == "github.com/zorbq"
    assert address_key("https://github.com/advisories/GHSA-0000-0000-0000") is None
    for one, other in (("https://medium.com/@zorbq/a-1", "https://medium.com/@quillmere/b-2"),
                       ("https://zorbq.substack.com/p/a", "https://quillmere.substack.com/p/b"),
                       ("https://zorbq.wordpress.com/2031/a", "https://quillmere.wordpress.com/2031/b"),
                       ("https://zorbq.blogspot.com/a", "https://quillmere.blogspot.com/b"),
                       ("https://zorbq.netlify.app/a", "https://quillmere.netlify.app/b"),
                       # a government's shared domains: each department's blog, each service
                       ("https://zorbq.blog.gov.uk/a", "https://quillmere.blog.gov.uk/b"),
                       ("https://status.zorbq.service.gov.uk/a", "https://quillmere.service.gov.uk/b")):
        assert address_key(one) is not None and address_key(other) is not None
        assert address_key(one) != address_key(other), (one, other)
    assert address_key("https://medium.com/@zorbq/a-1") == address_key("https://zorbq.medium.com/b-2")
    # no owner in the address: a platform's bare host, a post by its id, a shared document
    assert address_key("https://medium.com/p/0123abcd") is None
    assert address_key("https://substack.com/home") is None
    assert address_key("https://docs.google.com/document/d/x/edit") is None
    assert address_key("https://docs.google.com/document/d/x") != address_key("https://status.cloud.google.com/a")


def test_an_address_key_ignores_case_ports_and_www():
    from pmparse.nlp.extractors.url_owner import address_key

    assert address_key("HTTPS://Status.Zorbq.IO:8443/x") == address_key("https://zorbq.io") == "host:zorbq"
    assert address_key("https://WWW.GitHub.com:443/Zorbq/x") == "github.com/zorbq"
    assert address_key("https://Zorbq.Substack.com:443/p/a") == address_key("https://zorbq.substack.com/p/b")


@pytest.mark.parametrize("address, name", [
    # a user's site on a platform of many owners: the user's name, never the platform's
    ("https://zorbq.github.io/posts/outage.html", "Zorbq"),
    ("https://zorbq.substack.com/p/outage", "Zorbq"),
    ("https://medium.com/@zorbq/outage-123", "Zorbq"),
    # a shared document's host or an archive names no owner (the table knows google.com)
    ("https://docs.google.com/document/d/abc/edit", None),
    ("https://web.archive.org/web/2020/https://x.example/a", None),
    # an ordinary host is guessed as before
    ("https://status.zorbq.io/incidents/1", "Zorbq"),
])
def test_an_address_on_a_platform_of_many_owners_guesses_its_user_not_the_platform(address, name):
    text = "We lost the queue for an hour; the workers were restarted and the backlog drained."
    fact = find_organisation(text, 0, address)
    assert (fact["value"] if fact else None) == name


@pytest.mark.parametrize("address, name", [
    # a platform's own section under its domain is the platform's, no user of it ("blog" is no owner)
    ("https://blog.substack.com/p/outage", "Substack"),
    ("https://medium.com/blog/outage-123", "Medium"),
    ("https://blog.medium.com/outage-123", "Medium"),
    ("https://en.blog.wordpress.com/2020/01/outage/", "Wordpress"),
    ("https://engineering.medium.com/outage-123", "Medium"),
    # a user's label in punycode is no name to write: no guess rather than "Xn--..."
    ("https://xn--zrbq-0ra.substack.com/p/outage", None),
    # odd user parts name no one; a user's site keeps its user's name whatever its case, port or fragment
    ("https://123.substack.com/p/outage", None),
    ("https://medium.com/@/outage-123", None),
    ("https://ZORBQ.Substack.com:8443/p/outage#entry-2", "Zorbq"),
])
def test_a_platforms_own_section_is_the_platforms_and_an_odd_user_part_names_no_one(address, name):
    from pmparse.nlp.extractors.organisation import host_guess, load_gazetteer
    from pmparse.nlp.extractors.url_owner import url_parts
    guess, entry = host_guess(load_gazetteer(), address, url_parts(address).hostname.lower())
    assert (entry.name if entry is not None else guess) == name


@pytest.mark.parametrize("pages, account", [
    ("https://aws.github.io/outage.html", "https://github.com/aws/x"),
    ("https://2i2c-org.github.io/outage.html", "https://github.com/2i2c-org/x"),
])
def test_a_known_accounts_pages_name_the_table_organisation_as_its_account_does(pages, account):
    # the pages of a forge account are that account's (address_key): the table's name, not "Aws"
    text = "We lost the queue for an hour; the workers were restarted and the backlog drained."
    of_pages, of_account = find_organisation(text, 0, pages), find_organisation(text, 0, account)
    assert (of_pages["value"], of_pages["confidence"]) == (of_account["value"], of_account["confidence"])
