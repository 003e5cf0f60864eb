"""Organisation figures with nothing of the scored source helping: the table less a source's own publisher."""

from __future__ import annotations


def test_a_sources_own_publisher_is_the_organisation_labelled_on_a_quarter_of_its_cards():
    from pmparse.evaluation.facts_held_out import source_publishers

    rows = ([{"path": "acme/a.md", "card": {"organisation": "Acme Corp"}}] * 3
            + [{"path": "acme/b.md", "card": {"organisation": "Other"}}]
            + [{"path": f"catalogue/{n}.md", "card": {"organisation": f"Victim {n}"}} for n in range(8)]
            + [{"path": "solo/x.md", "card": {}}, {"path": "beta/y.md", "card": {"organisation": "Acme Corp"}}])
    found = source_publishers(rows, {"beta": "acme"})
    # "Acme Corp" holds 4 of acme's 5 cards (beta is held out with it), "Other" 1; no victim holds a quarter
    assert found == {"acme": {"acme corp"}, "catalogue": set(), "solo": set()}


def test_the_held_out_table_drops_a_groups_own_publisher_and_keeps_the_rest(tmp_path):
    from pmparse.evaluation.facts_held_out import publisher_free_tables
    from pmparse.rules.taxonomy import load_organisations

    paths = publisher_free_tables({"wiki": {"wmf"}, "cat": set(), "x": {"nobody known"}}, tmp_path)
    assert set(paths) == {"wiki"}  # by an alias; nothing to drop for the others
    table = load_organisations(paths["wiki"])
    names = {e.name for e in table.organisations}
    assert "Wikimedia Foundation" not in names and "GitHub" in names
    assert len(names) == len(load_organisations().organisations) - 1


def test_the_held_out_views_choose_among_the_candidates_found_without_the_own_publisher():
    from pmparse.card.schema import Card
    from pmparse.evaluation.facts_held_out import held_out_organisations, held_out_table, organisation_scores
    from pmparse.nlp.extractors.organisation_rank import Candidate

    def cands(*names):
        return [Candidate(n, features={"rule_pick": 1.0 if i == 0 else 0.0, "table_mentions": 1.0})
                for i, n in enumerate(names)]

    card = Card.model_construct(organisation="Shipped")
    golds = [{"organisation": "Zorbq", "_group": g, "_candidates_free": cands("Zorbq", "Other"),
              "_candidates_text_free": cands("Other")} for g in ("a", "b")]
    golds.append({"organisation": "Quill", "_group": "c", "_candidates_free": [], "_candidates_text_free": []})
    pairs = [(g, card) for g in golds]
    text_only = [(g, None, True) for g in golds]
    rule_pairs, rule_text = held_out_organisations(pairs, text_only, "rules")
    assert [c.organisation for _, c in rule_pairs] == ["Zorbq", "Zorbq", None]
    assert [v for _, v, _ in rule_text] == ["Other", "Other", None]
    scores = organisation_scores(rule_pairs, rule_text)
    assert scores["organisation"] == round(2 / 3, 4) and scores["organisation_wrong"] == 0
    assert scores["organisation_text_only"] == 0.0 and scores["organisation_text_only_wrong"] == 2
    table = held_out_table({**scores, "per_source": {}, "rules_held_out": {**scores, "per_source": {}}})
    assert "| all | 3 | 0.667 (0) | 0.000 (2) |" in table


def test_the_held_out_table_shows_the_share_whose_organisation_is_among_the_candidates():
    from pmparse.card.schema import Card
    from pmparse.evaluation.facts_held_out import candidate_ceiling, held_out_table, organisation_scores
    from pmparse.nlp.extractors.organisation_rank import Candidate

    def cands(*names):
        return [Candidate(n) for n in names]

    golds = [
        # with the address the name is a candidate (case and spacing aside), from the text alone not
        {"organisation": "Zorbq  Labs", "_candidates_free": cands("Other", "zorbq labs"),
         "_candidates_text_free": cands("Other")},
        {"organisation": "Quill", "_candidates_free": cands("Quill"), "_candidates_text_free": cands("Quill")},
        {"organisation": "Vantor", "_candidates_free": [], "_candidates_text_free": []},
        {"organisation": "Drelm", "_candidates_free": cands("Drelm Cloud"), "_candidates_text_free": cands()},
        {"_candidates_free": cands("Anyone"), "_candidates_text_free": cands("Anyone")},  # unlabelled: not counted
    ]
    assert candidate_ceiling(golds) == {"organisation_among_candidates": 0.5,
                                        "organisation_text_only_among_candidates": 0.25}
    card = Card.model_construct(organisation=None)
    scores = organisation_scores([(g, card) for g in golds], [(g, None, True) for g in golds])
    assert scores["organisation_among_candidates"] == 0.5
    ranker = {**scores, "organisation_wrong": 1, "per_source": {}}
    table = held_out_table({**ranker, "rules_held_out": {**scores, "per_source": {}}})
    assert "among candidates" in table.splitlines()[0]
    assert "| all | 4 | 0.000 (0) | 0.000 (0) | 0.000 (1) | 0.000 (0) | 0.500 | 0.250 |" in table


def test_after_review_gives_the_folders_reviewed_publisher_to_the_cards_after_the_reviewed_ones():
    from pmparse.card.schema import Card
    from pmparse.evaluation.facts_held_out import after_review, after_review_table
    from pmparse.nlp.extractors.organisation_rank import Candidate

    def gold(path, organisation, pick):
        cands = [Candidate(pick, features={"rule_pick": 1.0})] if pick else []
        return {"organisation": organisation, "_source": path.split("/")[0], "_path": path,
                "_candidates_free": cands}

    golds = [
        gold("wiki/a.md", "Zorbq Foundation", None),
        gold("wiki/b.md", "Zorbq Foundation", "Zorbq"),  # corrected away on a reviewed card
        gold("wiki/c.md", "Zorbq Foundation", "Quill"),
        gold("wiki/d.md", "Zorbq Foundation", None),  # named none: given the reviewed publisher
        gold("wiki/e.md", "Zorbq Foundation", "Zorbq"),  # the name corrected away: replaced
        gold("wiki/f.md", "Zorbq Foundation", "Drelm"),  # its own other name stands
        gold("other/g.md", "Quill", "Quill"),  # too few documents to score past the third
    ]
    card = Card.model_construct(organisation=None)
    result = after_review([(g, card) for g in golds], (1, 3))
    assert result["per_source"]["wiki"] == {
        "documents": 3, "before": 0.0, "wrong_before": 2, "batch": 0.0, "wrong_batch": 2,
        "after_1": round(1 / 3, 4), "wrong_after_1": 2, "after_3": round(2 / 3, 4), "wrong_after_3": 1}
    assert result["per_source"]["other"]["documents"] == 0 and result["all"]["documents"] == 3
    table = after_review_table(result, (1, 3))
    assert "| wiki | 3 | 0.000 (2) | 0.000 (2) | 0.333 (2) | 0.667 (1) |" in table
    assert "| other | 0 | - | - | - | - |" in table


def test_one_batch_offers_a_card_naming_none_its_folders_consensus_of_the_cards_before_it():
    from pmparse.card.schema import Card
    from pmparse.evaluation.facts_held_out import after_review
    from pmparse.nlp.extractors.organisation_rank import Candidate

    def gold(path, pick, confidence=0.9):
        cands = [Candidate(pick, features={"rule_pick": 1.0, "rule_confidence": confidence})] if pick else []
        return {"organisation": "Zorbq", "_source": "s", "_path": path, "_candidates_free": cands}

    golds = [gold("s/2021/a.md", "Zorbq"), gold("s/2022/b.md", "Zorbq"), gold("s/2023/c.md", None),
             gold("s/2023/d.md", "Zorbq", 0.5), gold("s/2024/e.md", "Zorbq"), gold("s/2024/f.md", None)]
    result = after_review([(g, Card.model_construct()) for g in golds], (1, 3))["per_source"]["s"]
    # c names none before three confident cards agree: nothing offered; f comes after them (d's 0.5
    # does not count)
    assert result["documents"] == 3 and result["before"] == round(2 / 3, 4) and result["batch"] == 1.0


def test_after_review_takes_a_sources_documents_in_the_order_convert_reads_its_folder(tmp_path):
    from pmparse.batch.inputs import expand_inputs_relative
    from pmparse.evaluation.facts_held_out import convert_order

    paths = ["s/2021/05/b.md", "s/z.md", "s/2021/a.md", "s/a.md", "s/2021/05/a.md", "s/10/a.md", "s/9/a.md"]
    for path in paths:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("text\n", encoding="utf-8")
    walked = [found.relative for found in expand_inputs_relative([str(tmp_path / "s")])]
    assert [p.split("/", 1)[1] for p in sorted(paths, key=convert_order)] == walked
    assert sorted(paths, key=convert_order)[:2] == ["s/a.md", "s/z.md"]  # a plain sort put s/10/a.md first


def test_after_review_converts_the_other_documents_as_one_batch_with_their_folders_consensus():
    # the two reviewed cards disagree, so they say nothing; the documents converted after the
    # review are still one batch, where a card naming none is offered its folder's consensus
    from pmparse.card.schema import Card
    from pmparse.evaluation.facts_held_out import after_review
    from pmparse.nlp.extractors.organisation_rank import Candidate

    def gold(path, organisation, pick):
        cands = [Candidate(pick, features={"rule_pick": 1.0, "rule_confidence": 0.9})] if pick else []
        return {"organisation": organisation, "_source": "s", "_path": path, "_candidates_free": cands}

    golds = [gold("s/1/a.md", "Acme", None), gold("s/1/b.md", "Quill", None), gold("s/2/c.md", "Zorbq", "Zorbq"),
             gold("s/2/d.md", "Zorbq", "Zorbq"), gold("s/3/e.md", "Zorbq", "Zorbq"), gold("s/3/f.md", "Zorbq", None)]
    row = after_review([(g, Card.model_construct()) for g in golds], (2,))["per_source"]["s"]
    assert row["documents"] == 4 and row["before"] == 0.75
    assert row["after_2"] == 1.0 and row["wrong_after_2"] == 0


def test_after_review_gives_no_reviewed_publisher_across_years_of_a_catalogue_whose_cards_name_their_own():
    # a catalogue filed by year: one reviewed victim is not the publisher of the next years' reports
    # naming none, while most of the catalogue's cards name other publishers of their own
    from pmparse.card.schema import Card
    from pmparse.evaluation.facts_held_out import after_review
    from pmparse.nlp.extractors.organisation_rank import Candidate

    def gold(path, organisation, pick):
        cands = [Candidate(pick, features={"rule_pick": 1.0, "rule_confidence": 0.6})] if pick else []
        return {"organisation": organisation, "_source": "c", "_path": path, "_candidates_free": cands}

    golds = [gold("c/1975/a.md", "Bell Labs", "Unix"), gold("c/2003/b.md", "Debian", "Debian"),
             gold("c/2003/c.md", "Gentoo", "Gentoo"), gold("c/2007/d.md", "Drelm", "Drelm"),
             gold("c/2007/e.md", "Quill", None), gold("c/2008/f.md", "Zorbq", "Unix")]
    row = after_review([(g, Card.model_construct()) for g in golds], (1,))["per_source"]["c"]
    assert row["documents"] == 5 and row["after_1"] == 0.6
    # neither e (naming none) nor f (naming the name corrected away on a) is given "Bell Labs"
    assert row["wrong_after_1"] == row["wrong_before"] == 1
