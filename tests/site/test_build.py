from __future__ import annotations

import re
from pathlib import Path

import pytest

from pmparse.batch.convert import convert
from pmparse.errors import UsageError
from pmparse.library.records import dumps
from pmparse.library.store import Library
from pmparse.site import build
from pmparse.site.build import MANIFEST, build_site
from tests.helpers import HOSTILE, sample_library, text_card


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    return sample_library(tmp_path_factory.mktemp("samples") / "lib")


@pytest.fixture()
def library(samples, tmp_path):
    import shutil

    # the records name their sources, which tests amend: both are copied
    shutil.copytree(samples.parent, tmp_path, dirs_exist_ok=True)
    lib = tmp_path / "lib"
    for path in lib.glob("IL-*.yaml"):
        path.write_text(path.read_text(encoding="utf-8").replace(str(samples.parent), str(tmp_path)), encoding="utf-8")
    return lib


def files_of(site) -> dict[str, bytes]:
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def rewrite(lib, card_id, **changes):
    path = lib / f"{card_id}.yaml"
    card = Library.read(path)
    path.write_text(dumps(card.model_copy(update=changes)), encoding="utf-8")


def test_a_build_writes_every_page_and_the_same_library_gives_the_same_bytes(library, tmp_path):
    report = build_site(library, tmp_path / "a")
    assert report.cards == 3 and report.rendered == 3 and report.invalid == [] and report.removed == []
    first = files_of(tmp_path / "a")
    for name in ("index.html", "search-index.js", "assets/site.css", "assets/site.js", "cards/IL-0001.html",
                 "by/root-cause.html", "by/component.html", "by/contributing-factor.html", "by/organisation.html",
                 "by/year.html", MANIFEST):
        assert name in first
    assert sorted(report.written) == sorted(n for n in first if n != MANIFEST)
    build_site(library, tmp_path / "b")
    assert files_of(tmp_path / "b") == first
    again = build_site(library, tmp_path / "a")
    assert again.rendered == 0 and again.written == [] and again.unchanged == len(first) - 1
    assert files_of(tmp_path / "a") == first


def test_no_page_loads_anything_from_the_network(library, tmp_path):
    build_site(library, tmp_path / "site")
    for name, data in files_of(tmp_path / "site").items():
        if name.endswith(".html"):
            text = data.decode()
            assert not re.search(r'(src|href)="(https?:)?//', text), name
            assert "@import" not in text and "url(" not in text
    css = (tmp_path / "site" / "assets" / "site.css").read_text()
    assert "url(" not in css and "@import" not in css and "@font-face" not in css


def test_one_changed_record_renders_one_page_and_writes_only_what_shows_it(library, tmp_path):
    site = tmp_path / "site"
    build_site(library, site)
    before = files_of(site)
    rewrite(library, "IL-0002", title="A retitled outage")
    report = build_site(library, site)
    assert report.rendered == 1
    assert "cards/IL-0002.html" in report.written and "index.html" in report.written
    assert "search-index.js" in report.written
    assert not {"cards/IL-0001.html", "cards/IL-0003.html", "assets/site.js"} & set(report.written)
    after = files_of(site)
    assert {n for n in after if after[n] != before.get(n)} == set(report.written) | {MANIFEST}
    assert b"A retitled outage" in after["cards/IL-0002.html"]
    # the result is what a fresh build of the changed library gives
    build_site(library, tmp_path / "fresh")
    assert files_of(tmp_path / "fresh") == after


def test_a_deleted_record_takes_its_pages_with_it(library, tmp_path):
    site = tmp_path / "site"
    build_site(library, site)
    (library / "IL-0001.yaml").unlink()
    report = build_site(library, site)
    assert "cards/IL-0001.html" in report.removed and not (site / "cards" / "IL-0001.html").exists()
    build_site(library, tmp_path / "fresh")
    assert files_of(site) == files_of(tmp_path / "fresh")


def test_a_changed_source_or_generator_renders_again(library, tmp_path, monkeypatch):
    site = tmp_path / "site"
    build_site(library, site)
    source = Library.read(library / "IL-0002.yaml").source.location
    with open(source, "a", encoding="utf-8") as handle:
        handle.write("\nAn added line.\n")
    report = build_site(library, site)
    assert report.rendered == 1 and b"The source text cannot be read" in (site / "cards" / "IL-0002.html").read_bytes()
    monkeypatch.setattr(build, "generator_digest", lambda names: "another generator")
    assert build_site(library, site).rendered == 3
    assert build_site(library, site, force=True).rendered == 3


def test_the_entries_of_a_changed_log_render_again(tmp_path):
    from pmparse.batch.convert import convert
    from tests.nlp.incident_logs import LOG

    log = tmp_path / "incident-log.md"
    log.write_text(LOG, encoding="utf-8")
    lib = tmp_path / "lib"
    assert [r.status for r in convert([str(log)], lib).results] == ["converted"] * 3
    site = tmp_path / "site"
    build_site(lib, site)
    assert build_site(lib, site).rendered == 0
    with open(log, "a", encoding="utf-8") as handle:
        handle.write("\nAn added line.\n")
    # each entry's page shows text of the log: all three follow the file
    assert build_site(lib, site).rendered == 3


def test_a_pending_suggestion_shows_beside_the_reviewed_value(library, tmp_path):
    site = tmp_path / "site"
    build_site(library, site)
    rewrite(library, "IL-0002", status="reviewed", organisation="GoCardless Ltd")
    lib = Library.open(library)
    record = Library.read(library / "IL-0002.yaml")
    lib.write_state("pending", record.model_copy(update={"organisation": "GoCardless plc", "status": "suggested"}))
    report = build_site(library, site)
    assert report.rendered == 1
    page = (site / "cards" / "IL-0002.html").read_text()
    section = page.split('id="field-organisation"')[1].split("</section>")[0]
    assert "GoCardless Ltd" in section and "GoCardless plc" in section
    assert "pending suggestion" in section and '<span class="kind">conflict</span>' in section
    assert "A newer suggestion waits for review: 1 field(s)" in page
    index = (site / "index.html").read_text()
    assert 'class="status s-reviewed">reviewed</span> <span class="status s-pending"' in index
    # deciding the suggestion (the pending file goes) renders the page again
    lib.drop_state("pending", "IL-0002")
    assert build_site(library, site).rendered == 1
    assert "pending suggestion" not in (site / "cards" / "IL-0002.html").read_text().split("Source text")[0]


def test_an_item_whose_words_a_person_changed_by_hand_shows_as_theirs_not_with_pmparses_evidence(library, tmp_path):
    # a curator rewrites an item's words in the record file and leaves its evidence and confidence:
    # those were the model's for other words, so the page neither marks that stretch as the
    # item's evidence nor gives the person's words the model's confidence
    record = Library.read(library / "IL-0002.yaml")
    first = record.symptoms[0]
    edited = first.model_copy(update={"text": "Every customer saw errors for two hours (our wording)."})
    rewrite(library, "IL-0002", symptoms=[edited, *record.symptoms[1:]])
    build_site(library, tmp_path / "site")
    page = (tmp_path / "site" / "cards" / "IL-0002.html").read_text()
    line = next(li for li in page.split("<li>") if "(our wording)" in li)
    assert 'class="conf"' not in line and 'class="ev"' not in line
    assert "edited by hand" in line
    assert 'id="ev-symptoms-1-1"' not in page  # the stretch is not marked as its evidence
    # an item left as pmparse wrote it keeps both
    assert 'id="ev-symptoms-2-1"' in page or len(record.symptoms) == 1


def test_a_fact_a_person_changed_by_hand_shows_as_theirs_not_with_pmparses_support(library, tmp_path):
    # the organisation rewritten in the record file: its support block (far below) still holds
    # the confidence and evidence pmparse had for the name it found
    site = tmp_path / "site"
    build_site(library, site)
    before = Library.read(library / "IL-0002.yaml")
    assert before.organisation == "GoCardless" and before.support["organisation"].confidence > 0
    rewrite(library, "IL-0002", organisation="GoCardless Ltd (our name)")
    assert build_site(library, site).rendered == 1
    page = (site / "cards" / "IL-0002.html").read_text()
    section = page.split('id="field-organisation"')[1].split("</section>")[0]
    assert "GoCardless Ltd (our name)" in section and "set by hand" in section
    assert 'class="conf"' not in section and 'class="ev"' not in section
    # a fact left as pmparse wrote it keeps its support
    dated = page.split('id="field-date"')[1].split("</section>")[0]
    assert 'class="conf"' in dated


def test_a_build_leaves_the_library_alone(library, tmp_path):
    before = files_of(library)
    build_site(library, tmp_path / "site")
    assert files_of(library) == before  # no scan cache written either: records are read, not scanned


def test_an_invalid_record_is_listed_with_its_reason(library, tmp_path):
    (library / "IL-0003.yaml").write_text("id: IL-0003\nstatus: [broken\n", encoding="utf-8")
    report = build_site(library, tmp_path / "site")
    assert report.cards == 3 and len(report.invalid) == 1 and "IL-0003.yaml" in report.invalid[0]
    assert "invalid record" in (tmp_path / "site" / "cards" / "IL-0003.html").read_text()
    assert "Invalid records" in (tmp_path / "site" / "index.html").read_text()


def test_refuses_folders_it_did_not_build(library, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(UsageError, match="expected an empty folder or a site pmparse built"):
        build_site(library, other)
    with pytest.raises(UsageError, match="other than the library itself"):
        build_site(library, library)
    with pytest.raises(UsageError, match="expected a library folder"):
        build_site(tmp_path / "missing", tmp_path / "site")
    assert (other / "notes.txt").read_text() == "mine"


def test_a_hostile_postmortem_shows_as_text(tmp_path):
    source = tmp_path / "hostile.md"
    source.write_text(HOSTILE, encoding="utf-8")
    lib = tmp_path / "lib"
    assert convert([str(source)], lib).counts["converted"] == 1
    card = Library.read(lib / "IL-0001.yaml")
    assert "<script>" in (card.title or "") + (card.organisation or "") or "<img" in (card.organisation or "")
    # a record a person could have written: a script address and markup in every string
    evil = text_card("IL-0002", HOSTILE, title="<script>alert('t')</script>", organisation="<b>x</b>",
                     root_cause=[(HOSTILE.index("A bug"), HOSTILE.index("crashed.", HOSTILE.index("A bug")) + 8, 0.5)],
                     components=["dns"])
    evil = evil.model_copy(update={"source": evil.source.model_copy(update={
        "url": "javascript:alert('url')", "location": "<img src=x onerror=alert('loc')>"})})
    Library.open(lib).write(evil, "yaml")
    site = tmp_path / "site"
    build_site(lib, site)
    for name, data in files_of(site).items():
        text = data.decode()
        if name.endswith(".html"):
            scripts = re.findall(r"<script[^>]*>", text)
            assert all(re.fullmatch(r'<script defer src="[./a-z-]+\.js">', s) for s in scripts), (name, scripts)
            assert not re.search(r"<(img|svg|b)\b", text), name
            assert not re.search(r"\son\w+=", text.replace("onerror=alert", "").replace("onload=alert", "")
                                 .replace("onmouseover=alert", "")), name
            assert 'href="javascript' not in text.lower()
        elif name == "search-index.js":
            assert "<" not in text and ">" not in text
    page = (site / "cards" / "IL-0002.html").read_text()
    assert "&lt;script&gt;alert(&#x27;t&#x27;)&lt;/script&gt;" in page
    assert "&lt;/script&gt;&lt;script&gt;alert(&#x27;cause&#x27;)&lt;/script&gt;" in page
    assert "javascript:alert(&#x27;url&#x27;)" in page  # shown, not linked


def _victim(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "secret.txt").write_text("keep me", encoding="utf-8")
    return victim


def _plant(site, *entries):
    """Add ``entries`` to the site manifest's file list, as a hostile copy of the site would."""
    import json

    data = json.loads((site / MANIFEST).read_text(encoding="utf-8"))
    data["files"].update({entry: "0" * 64 for entry in entries})
    (site / MANIFEST).write_text(json.dumps(data), encoding="utf-8")


def test_a_manifest_entry_through_a_link_or_out_of_the_site_deletes_nothing(library, tmp_path):
    import os

    victim = _victim(tmp_path)
    site = tmp_path / "site"
    build_site(library, site)
    os.symlink(victim, site / "evil")
    _plant(site, "evil/secret.txt", "../victim/secret.txt", str(victim / "secret.txt"), "evil")
    report = build_site(library, site)
    assert (victim / "secret.txt").read_text(encoding="utf-8") == "keep me"
    assert sorted(report.refused) == sorted(["evil/secret.txt", "../victim/secret.txt", str(victim / "secret.txt"),
                                             "evil"])
    assert os.path.islink(site / "evil")  # not the site's to remove either


def test_a_site_folder_replaced_by_a_link_gets_no_page_written_through_it(library, tmp_path):
    import os
    import shutil

    from click.testing import CliRunner

    from pmparse.cli import main

    victim = _victim(tmp_path)
    site = tmp_path / "site"
    build_site(library, site)
    shutil.rmtree(site / "by")
    os.symlink(victim, site / "by")
    result = CliRunner().invoke(main, ["site", str(library), "-o", str(site)])
    assert result.exit_code == 2 and "symbolic link" in result.output
    assert sorted(p.name for p in victim.iterdir()) == ["secret.txt"]


def test_a_manifest_that_is_a_link_is_refused_not_read(library, tmp_path):
    import os

    from pmparse.errors import UnsafePathError

    site = tmp_path / "site"
    build_site(library, site)
    os.replace(site / MANIFEST, tmp_path / "elsewhere.json")
    os.symlink(tmp_path / "elsewhere.json", site / MANIFEST)
    with pytest.raises(UnsafePathError, match="symbolic link"):
        build_site(library, site)


def test_a_manifest_nested_past_the_recursion_limit_is_read_as_none(library, tmp_path):
    # json.loads raised RecursionError, which ended `pmparse site` with a traceback
    site = tmp_path / "site"
    build_site(library, site)
    (site / MANIFEST).write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    report = build_site(library, site)
    assert (site / "index.html").is_file() and not report.refused


def test_a_fact_set_by_hand_stays_shown_as_theirs_after_the_record_follows_an_amended_source(library, tmp_path):
    from pmparse.nlp.pipeline import PipelineConfig
    from pmparse.review.session import review

    rewrite(library, "IL-0002", organisation="GoCardless Ltd (our name)")
    source = Path(Library.read(library / "IL-0002.yaml").source.location)
    with source.open("a", encoding="utf-8") as handle:
        handle.write("\nAction items: Write the failover steps into the runbook.\n")
    assert convert([str(source.parent)], library, config=PipelineConfig()).counts["pending"] == 1
    review(library, accept_all=True, reviewer="bob")
    record = Library.read(library / "IL-0002.yaml")
    # the record follows the new text; pmparse's support of the old name indexes the old text
    assert record.organisation == "GoCardless Ltd (our name)" and record.source.sha256 != record.support[
        "organisation"].evidence[0].sha256
    build_site(library, tmp_path / "site")
    page = (tmp_path / "site" / "cards" / "IL-0002.html").read_text()
    section = page.split('id="field-organisation"')[1].split("</section>")[0]
    assert "set by hand (pmparse had GoCardless" in section and 'class="conf"' not in section


def test_a_fact_kept_by_rejecting_a_new_reading_is_not_shown_as_set_by_hand_after_a_move(library, tmp_path):
    from pmparse.card.schema import Card
    from pmparse.library.records import card_data
    from pmparse.nlp.pipeline import PipelineConfig
    from pmparse.review.session import review

    kept = Library.read(library / "IL-0002.yaml").organisation
    source = Path(Library.read(library / "IL-0002.yaml").source.location)
    with source.open("a", encoding="utf-8") as handle:
        handle.write("\nAction items: Write the failover steps into the runbook.\n")
    assert convert([str(source.parent)], library, config=PipelineConfig()).counts["pending"] == 1
    # the new reading names another publisher; the curator turns it down and takes the rest
    lib = Library.open(library)
    data = card_data(lib.read_state("pending", "IL-0002"))
    data["organisation"] = "Zorbq Payments"
    lib.write_state("pending", Card.model_validate(data))
    review(library, reject=["organisation"], accept_all=True, reviewer="bob")
    record = Library.read(library / "IL-0002.yaml")
    assert record.organisation == kept and record.source.sha256 == Library.open(library).read_state(
        "base", "IL-0002").source.sha256
    build_site(library, tmp_path / "site")
    page = (tmp_path / "site" / "cards" / "IL-0002.html").read_text()
    section = page.split('id="field-organisation"')[1].split("</section>")[0]
    # pmparse's own earlier reading, kept: never a person's hand
    assert "set by hand" not in section


def test_bidirectional_controls_in_a_record_show_as_escapes_on_every_page(tmp_path):
    # a title holding U+202E displayed the rest of its index row reversed, count and status included
    text = "Queue stalled \u202eTUO\u202c for an hour.\n\nA typo \u2067set\u2069 the pool size to zero.\n"
    card = text_card("IL-0001", text, title="Queue \u202estalled", organisation="Acme \u202dCo",
                     root_cause=[(text.index("A typo"), len(text) - 1, 0.6)], components=["dns"])
    lib = tmp_path / "lib"
    lib.mkdir()
    Library.open(lib).write(card, "yaml")
    site = tmp_path / "site"
    build_site(lib, site)
    pages = {name: data.decode() for name, data in files_of(site).items() if name.endswith(".html")}
    for name, page in pages.items():
        assert not re.search("[\u202a-\u202e\u2066-\u2069]", page), name
    assert "Queue \\u202estalled" in pages["index.html"]
    assert "Acme \\u202dCo" in pages["cards/IL-0001.html"] and "\\u2067set\\u2069" in pages["cards/IL-0001.html"]


def test_a_record_naming_a_private_file_gets_neither_its_text_nor_its_digest_into_the_site(library, tmp_path):
    # a library from someone else may name any file as a record's source: a key in a hidden
    # folder is never read, so neither its text (a record holding its sha256) nor a digest of
    # its bytes (the manifest held one for every source) reaches the site
    import hashlib

    home = tmp_path / "home" / ".ssh"
    home.mkdir(parents=True)
    known, unknown = home / "id_known", home / "id_unknown"
    known.write_text("PRIVATE KEY one, made up for this test\n", encoding="utf-8")
    unknown.write_text("PRIVATE KEY two, made up for this test\n", encoding="utf-8")
    first, second = Library.read(library / "IL-0001.yaml"), Library.read(library / "IL-0002.yaml")
    rewrite(library, "IL-0001", source=first.source.model_copy(
        update={"location": str(known), "sha256": hashlib.sha256(known.read_bytes()).hexdigest()}))
    rewrite(library, "IL-0002", source=second.source.model_copy(update={"location": str(unknown)}))
    site = tmp_path / "site"
    build_site(library, site)
    everything = b"".join(files_of(site).values())
    assert b"PRIVATE KEY" not in everything
    assert hashlib.sha256(unknown.read_bytes()).hexdigest().encode() not in everything
    again = build_site(library, site)
    assert again.rendered == 0  # what the manifest keeps of a source still tells a page is current


def test_a_page_shows_its_source_again_once_the_file_is_the_records(library, tmp_path):
    site = tmp_path / "site"
    card_id, card = next((path.stem, card) for path in sorted(library.glob("IL-*.yaml"))
                         if (card := Library.read(path)).source.format == "md")
    source = Path(card.source.location)
    text = source.read_text(encoding="utf-8")
    source.write_text(text + "\nAn amendment.\n", encoding="utf-8")
    build_site(library, site)
    page = site / "cards" / f"{card_id}.html"
    assert "The source text cannot be read" in page.read_text(encoding="utf-8")
    source.write_text(text, encoding="utf-8")
    assert build_site(library, site).rendered == 1
    assert "The source text cannot be read" not in page.read_text(encoding="utf-8")
