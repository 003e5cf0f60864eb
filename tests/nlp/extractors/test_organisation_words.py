"""Values that are never an organisation, on names written for these tests and on every corpus card."""

from __future__ import annotations

import pytest

from pmparse.nlp.extractors.organisation import find_organisation
from pmparse.nlp.extractors.organisation_words import refused


@pytest.mark.parametrize("value", ["Monday", "friday", "Sept.", "March 2031", "Security", "All", "IT", "SRE",
                                   "SRE team", "On-call", "Summary", "20310105_badfasta", "notes.md",
                                   "reports/2031", "2031", "QA", "Dev", "QA team"])
def test_weekdays_months_roles_heading_words_and_file_names_are_refused(value):
    assert refused(value) is not None


@pytest.mark.parametrize("value", ["Zorbq Labs", "Acme", "Bitcoin.org", "2i2c", "New Relic Ltd", "Public Health Zorbq",
                                   "mybinder.org", "Security Onion Project"])
def test_names_are_kept(value):
    assert refused(value) is None


def test_a_tool_is_an_organisation_only_when_the_source_states_it():
    assert refused("Discord", "text") == "tool"
    assert refused("Discord", "title_subject") == "tool"
    assert refused("Discord", "front_matter") is None
    assert refused("Discord", "url") is None


def test_the_rules_give_no_organisation_rather_than_a_wrong_kind_one():
    # a chat tool the responders met in, named again and again, is not the publisher
    text = "## Summary\n\nThe chain halted. Validators gathered on Discord and Discord was busy.\n"
    assert find_organisation(text) is None
    # a role said in the third person is not a team's name
    text = "## Summary\n\nThe SRE team restarted the queue. The SRE team then watched it.\n"
    assert find_organisation(text) is None
    # a team function a catalogue entry's title names ("Dev and QA tools") is nobody's name
    text = "# Misplaced Dev and QA servers breached\n\nAttackers used the servers for a month.\n"
    assert find_organisation(text, title=("Misplaced Dev and QA servers breached", [(2, 39)])) is None
    # an address a text cites is no first person: "...-from-us-..." is a slug
    text = ("# Zorbq Cloud breach\n\nAttackers took Zorbq Cloud keys for a month. See "
            "https://news.example/hackers-stole-data-from-us-firms for more.\n")
    fact = find_organisation(text, title=("Zorbq Cloud breach", [(2, 20)]))
    assert fact is not None and fact["value"].startswith("Zorbq")
    # a heading word title-cased in the title is nobody's report
    text = "# All Services Down\n\nAll services were down for an hour and then came back.\n"
    assert find_organisation(text, title=("All Services Down", [(2, 19)])) is None


@pytest.mark.corpus
@pytest.mark.xdist_group("corpus_library")
def test_no_corpus_card_names_a_wrong_kind_of_organisation(corpus_library):
    """Every corpus incident converted as `pmparse convert` does (logs split into their entries,
    a folder's publisher offered to its other cards)."""
    from pmparse.library.store import Library

    _, _, library = corpus_library
    wrong, cards = [], 0
    for entry in Library.open(library).entries.values():
        card = entry.card
        cards += 1
        support = card.support.get("organisation")
        reason = refused(card.organisation, support.origin if support else "text")
        if reason:
            wrong.append((card.source.location, card.organisation, reason))
    assert cards > 800
    assert wrong == []
