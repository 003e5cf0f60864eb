"""Card titles built from the card's own facts and tags."""

from __future__ import annotations

from pmparse.card.schema import Card, Pipeline, Source, Support
from pmparse.card.title import MAX_LENGTH, format_minutes, make_title
from pmparse.batch.suggest import suggest
from pmparse.nlp.pipeline import PipelineConfig
from pmparse.rules.taxonomy import load_taxonomy

NAMES = load_taxonomy().names()
PHRASES = load_taxonomy().phrases()


def card(**values) -> Card:
    return Card(id="IL-0001", source=Source(location="x.md", sha256="0" * 64, format="md"),
                pipeline=Pipeline(version="0"), **values)


def test_format_minutes():
    assert format_minutes(110) == "1 hour 50 minutes"
    assert format_minutes(60) == "1 hour"
    assert format_minutes(2880) == "2 days"
    assert format_minutes(1500) == "1 day 1 hour"
    assert format_minutes(0) == "under a minute"


def test_full_title_says_who_what_how_long_and_why():
    title = make_title(card(organisation="Acme", duration_minutes=110,
                            components=["database", "database_failover_manager"],
                            root_cause_categories=["hardware_failure"]), NAMES, PHRASES)
    assert title == ("Acme Database and Database failover manager incident lasting 1 hour 50 minutes, "
                     "caused by a hardware failure")


def test_a_title_too_long_for_its_limit_drops_the_cause_and_never_ends_on_dangling_punctuation():
    facts = card(organisation="Acme", duration_minutes=110, root_cause_categories=["hardware_failure"])
    assert make_title(facts, NAMES, PHRASES, max_length=45) == "Acme incident lasting 1 hour 50 minutes"
    for limit in range(12, 90):
        title = make_title(facts, NAMES, PHRASES, max_length=limit)
        assert len(title) <= limit and not title.endswith((",", ";", ":", "-", " by", " caused")), (limit, title)


def test_no_why_clause_without_a_root_cause_category_and_no_length_without_a_duration():
    title = make_title(card(organisation="Acme", components=["dns"]), NAMES, PHRASES)
    assert title == "Acme DNS incident"
    assert "caused" not in title and "lasting" not in title


def test_unknown_cause_is_said_and_never_joined_to_a_cause():
    assert make_title(card(components=["cache"], root_cause_categories=["unknown"]), NAMES, PHRASES) == \
        "Cache incident, cause not disclosed"


def test_most_confident_cause_and_components_first():
    support = {"root_cause_categories.software_bug": Support(confidence=0.4, origin="m"),
               "root_cause_categories.configuration_change": Support(confidence=0.9, origin="m"),
               "components.dns": Support(confidence=0.9, origin="m"),
               "components.cache": Support(confidence=0.3, origin="m")}
    title = make_title(card(components=["cache", "dns"], root_cause_categories=["software_bug", "configuration_change"],
                            support=support), NAMES, PHRASES)
    assert title == "DNS and Cache incident caused by a configuration change"


def test_organisation_keeps_its_spelling_and_a_bare_card_has_no_title():
    assert make_title(card(organisation="mybinder.org", duration_minutes=30), NAMES, PHRASES) == \
        "mybinder.org incident lasting 30 minutes"
    assert make_title(card(organisation="Acme", date="2021-03-09"), NAMES, PHRASES) == "Acme incident of 2021-03-09"
    assert make_title(card(), NAMES, PHRASES) is None


def test_long_titles_drop_components_to_fit():
    many = ["database", "database_failover_manager", "kubernetes_control_plane", "configuration_management"]
    title = make_title(card(organisation="A" * 90, components=many, duration_minutes=1000,
                            root_cause_categories=["capacity_exhaustion"]), NAMES, PHRASES)
    assert len(title) <= MAX_LENGTH
    assert title.endswith("caused by capacity exhaustion")
    huge = make_title(card(organisation="Org " * 60), NAMES, PHRASES)
    assert len(huge) <= MAX_LENGTH and not huge.endswith(" ")


def test_the_authors_title_is_the_cards_with_its_evidence(tmp_path):
    path = tmp_path / "report.md"
    text = "# Zephyr Labs queue stall\n\n## Summary\n\nAt Zephyr Labs, we lost the job queue for 2 hours.\n"
    path.write_text(text, encoding="utf-8")
    built, _ = suggest(str(path), PipelineConfig())
    # the heading as its author wrote it, not a title generated from the tags
    assert built.title == "Zephyr Labs queue stall"
    support = built.support["title"]
    assert support.origin == "text"
    assert [text[e.start:e.end] for e in support.evidence] == ["Zephyr Labs queue stall"]


def test_a_front_matter_title_points_at_the_heading_that_repeats_it(tmp_path):
    path = tmp_path / "report.md"
    text = "---\ntitle: Ledger sync lag\ndate: 2031-04-02\n---\n# Ledger sync lag\n\nThe ledger fell behind.\n"
    path.write_text(text, encoding="utf-8")
    built, _ = suggest(str(path), PipelineConfig())
    assert built.title == "Ledger sync lag" and built.support["title"].origin == "front_matter"
    spans = [(e.start, e.end) for e in built.support["title"].evidence]
    assert [text[s:e] for s, e in spans] == ["Ledger sync lag", "Ledger sync lag"]
    assert spans[1][0] > text.index("---\n#")


def test_a_document_without_a_title_gets_one_built_from_its_card_never_a_body_sentence(tmp_path):
    path = tmp_path / "report.md"
    text = ("Upon deploying the new renderer we saw the ticket desk show blank pages for 40 minutes.\n\n"
            "## Root cause\n\nA cache key collided after a software bug in the renderer.\n")
    path.write_text(text, encoding="utf-8")
    built, _ = suggest(str(path), PipelineConfig())
    assert built.support["title"].origin == "generated" and not built.support["title"].evidence
    assert not built.title.startswith("Upon") and "incident" in built.title
