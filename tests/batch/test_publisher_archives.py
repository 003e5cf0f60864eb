"""Number- and date-named folders pool a publisher's archive (``batch.publisher.folder_of``): what
that pooling must not do, through ``pmparse convert`` (texts written for these tests)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from pmparse.cli import main
from pmparse.library.store import Library
from tests.helpers import review_publisher as _review

#: A report that names no publisher of its own.
_UNNAMED = ("# Builds {what}\n\n## Summary\n\nBuilds were {what} for an hour on 2031-04-02 because the cache "
            "filled up.\n\n## Root cause\n\nThe cache had no eviction.\n")
#: A report whose text names its publisher (Zorbq Labs).
_ZORBQ = ("# Queue stalled\n\n## Summary\n\nAt Zorbq Labs, we saw the job queue stall for 20 minutes "
          "after a deploy on 2031-03-02.\n\n## Root cause\n\nA worker pool was sized to zero by a typo.\n")


def _convert(*args: str) -> str:
    result = CliRunner().invoke(main, ["convert", *args, "--no-progress"])
    assert result.exit_code == 0, result.output
    return result.output


def _cards(library) -> dict:
    return {entry.card.source.location: entry.card for entry in Library.open(library).entries.values()}


def _write(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_a_year_folder_converted_by_a_relative_name_is_no_archive_shared_with_another_folders_files(
        tmp_path, monkeypatch):
    # `cd acme && pmparse convert 2023` stores "2023/a.md", read from the library's anchor (acme):
    # pooled into ".", it became the same "folder" as every file converted later by a bare name or
    # a year folder from anywhere else (those, read from another folder, are stored by absolute path)
    lib = str(tmp_path / "lib")
    _write(tmp_path / "acme" / "2023" / "a.md", _UNNAMED.format(what="slow"))
    monkeypatch.chdir(tmp_path / "acme")
    _convert("2023", "-o", lib)
    _review(lib, "a.md", "Acme Rockets")
    _write(tmp_path / "zorbq" / "outage.md", _UNNAMED.format(what="late"))
    _write(tmp_path / "zorbq" / "2021" / "b.md", _UNNAMED.format(what="stuck"))
    monkeypatch.chdir(tmp_path / "zorbq")
    _convert("outage.md", "2021", "-o", lib)
    cards = _cards(lib)
    assert cards[str(tmp_path / "zorbq" / "outage.md")].organisation is None
    assert cards[str(tmp_path / "zorbq" / "2021" / "b.md")].organisation is None


def test_a_year_folder_named_from_inside_its_archive_keeps_its_own_reviewed_publisher(tmp_path, monkeypatch):
    # what the relative name does say stays one folder: a review in "2023" still names its new cards
    lib = str(tmp_path / "lib")
    _write(tmp_path / "acme" / "2023" / "a.md", _UNNAMED.format(what="slow"))
    monkeypatch.chdir(tmp_path / "acme")
    _convert("2023", "-o", lib)
    _review(lib, "a.md", "Acme Rockets")
    _write(tmp_path / "acme" / "2023" / "c.md", _UNNAMED.format(what="late"))
    _convert("2023", "-o", lib)
    assert _cards(lib)["2023/c.md"].organisation == "Acme Rockets"


def test_a_catalogue_of_many_publishers_filed_by_year_keeps_each_cards_own_publisher(tmp_path):
    # incidents/2023/acme.md and incidents/2024/zorbq.md: one archive for the reviewed cards, but a
    # card naming its own publisher keeps it, and reviews that disagree say nothing to the others
    lib, root = str(tmp_path / "lib"), tmp_path / "incidents"
    _write(root / "2023" / "acme.md", _UNNAMED.format(what="slow"))
    _write(root / "2023" / "quill.md", _UNNAMED.format(what="late"))
    _convert(str(root), "-o", lib)
    _review(lib, "2023/acme.md", "Acme Rockets")
    _review(lib, "2023/quill.md", "Quill Corp")
    _write(root / "2024" / "zorbq.md", _ZORBQ)
    _write(root / "2025" / "unnamed.md", _UNNAMED.format(what="stuck"))
    _convert(str(root), "-o", lib)
    cards = {location.rsplit("incidents/", 1)[-1]: card for location, card in _cards(lib).items()}
    assert cards["2024/zorbq.md"].organisation == "Zorbq Labs"
    assert cards["2025/unnamed.md"].organisation is None
    # the people's records are never rewritten
    assert (cards["2023/acme.md"].organisation, cards["2023/acme.md"].status) == ("Acme Rockets", "reviewed")
    assert (cards["2023/quill.md"].organisation, cards["2023/quill.md"].status) == ("Quill Corp", "reviewed")


def test_a_reviewed_card_of_another_year_is_no_evidence_for_itself_when_read_again(tmp_path):
    # two reviewed cards in two years of one archive; --force reads everything again: the people's
    # records are not rewritten, and a card of a third month naming its own publisher keeps it
    lib, root = str(tmp_path / "lib"), tmp_path / "blog"
    _write(root / "2023" / "05" / "a.md", _UNNAMED.format(what="slow"))
    _write(root / "2024" / "01" / "b.md", _ZORBQ)
    _write(root / "2024" / "02" / "c.md", _UNNAMED.format(what="late"))
    _convert(str(root), "-o", lib)
    _review(lib, "2023/05/a.md", "Acme Rockets")
    _review(lib, "2024/02/c.md", "Acme Rockets")
    _convert(str(root), "-o", lib, "--force")
    cards = {location.rsplit("blog/", 1)[-1]: card for location, card in _cards(lib).items()}
    assert cards["2024/01/b.md"].organisation == "Zorbq Labs"  # its own evidence stands
    for name in ("2023/05/a.md", "2024/02/c.md"):
        assert (cards[name].organisation, cards[name].status) == ("Acme Rockets", "reviewed")


@pytest.mark.parametrize("location, folder", [
    ("2022/x.md", "2022"),  # a relative name's top folder: the folder above it is not recorded
    ("../2022/x.md", "../2022"),
    ("/2022/x.md", "/2022"),  # nor is the filesystem's root an archive
    ("acme/2022/x.md", "acme"),
    ("/srv/acme/2023/05/x.md", "/srv/acme"),
    ("https://blog.example/2023/05/post", "https://blog.example"),
    ("acme/2022/catalogue.md#entry-2031-04-02-0123abcd", "acme"),
    ("acme/v2/x.md", "acme/v2"),
    ("acme/2023-q1/x.md", "acme/2023-q1"),
    ("acme/1.2.3/x.md", "acme"),
    ("acme/00/x.md", "acme"),
])
def test_the_folder_of_a_location(location, folder):
    from pmparse.batch.publisher import folder_of

    assert folder_of(location) == folder


def test_a_review_in_a_catalogue_filed_by_year_names_no_other_years_report_that_names_none(tmp_path):
    # incidents/2023/acme.md reviewed as Acme Rockets; the 2024 reports each name a publisher of
    # their own, another each: the archive is a catalogue of many publishers' incidents, and a
    # 2025 report naming none failed to name its own; it is not Acme Rockets'
    lib, root = str(tmp_path / "lib"), tmp_path / "incidents"
    _write(root / "2023" / "acme.md", _UNNAMED.format(what="slow"))
    _convert(str(root), "-o", lib)
    _review(lib, "2023/acme.md", "Acme Rockets")
    for name, publisher in [("drelm", "Drelm Systems"), ("quill", "Quill Works"), ("zorbq", "Zorbq Labs")]:
        _write(root / "2024" / f"{name}.md", _ZORBQ.replace("Zorbq Labs", publisher))
    _write(root / "2025" / "unnamed.md", _UNNAMED.format(what="stuck"))
    _convert(str(root), "-o", lib)
    cards = {location.rsplit("incidents/", 1)[-1]: card for location, card in _cards(lib).items()}
    assert {cards[f"2024/{n}.md"].organisation for n in ("drelm", "quill", "zorbq")} == {
        "Drelm Systems", "Quill Works", "Zorbq Labs"}
    assert cards["2025/unnamed.md"].organisation is None


def test_a_review_in_one_years_folder_still_names_the_archives_reports_when_they_name_none(tmp_path):
    # the archive of one publisher whose reports do not name it: its reports naming none are the
    # archive's, in every year
    lib, root = str(tmp_path / "lib"), tmp_path / "wiki"
    _write(root / "2023" / "a.md", _UNNAMED.format(what="slow"))
    _convert(str(root), "-o", lib)
    _review(lib, "2023/a.md", "Acme Rockets")
    for n, what in enumerate(["late", "stuck", "broken"]):
        _write(root / "2024" / f"b{n}.md", _UNNAMED.format(what=what))
    _convert(str(root), "-o", lib)
    cards = {location.rsplit("wiki/", 1)[-1]: card for location, card in _cards(lib).items()}
    assert {cards[f"2024/b{n}.md"].organisation for n in range(3)} == {"Acme Rockets"}


def test_a_catalogues_own_records_say_it_is_a_catalogue_to_a_new_report_converted_alone(tmp_path):
    # the catalogue was converted before; a new year's report converted by itself is weighed
    # against the library's records of the catalogue, not only against the batch's own cards
    lib, root = str(tmp_path / "lib"), tmp_path / "incidents"
    _write(root / "2023" / "acme.md", _UNNAMED.format(what="slow"))
    for name, publisher in [("drelm", "Drelm Systems"), ("quill", "Quill Works"), ("zorbq", "Zorbq Labs")]:
        _write(root / "2024" / f"{name}.md", _ZORBQ.replace("Zorbq Labs", publisher))
    _convert(str(root), "-o", lib)
    _review(lib, "2023/acme.md", "Acme Rockets")
    _write(root / "2025" / "unnamed.md", _UNNAMED.format(what="stuck"))
    _convert(str(root / "2025"), "-o", lib)
    cards = {location.rsplit("incidents/", 1)[-1]: card for location, card in _cards(lib).items()}
    assert cards["2025/unnamed.md"].organisation is None


def test_an_archive_converted_from_inside_pools_its_year_folders(tmp_path, monkeypatch):
    # `cd acme && pmparse convert . -o LIB` stores "2023/a.md" and "2024/b.md": their archive is
    # acme, the library's anchor, so a review in 2023 is the word for a new 2024 report naming none
    lib = str(tmp_path / "lib")
    _write(tmp_path / "acme" / "2023" / "a.md", _UNNAMED.format(what="slow"))
    _write(tmp_path / "acme" / "2024" / "b.md", _UNNAMED.format(what="stuck"))
    monkeypatch.chdir(tmp_path / "acme")
    _convert(".", "-o", lib)
    _review(lib, "2023/a.md", "Acme Rockets")
    _write(tmp_path / "acme" / "2024" / "c.md", _UNNAMED.format(what="late"))
    _convert(".", "-o", lib)
    assert _cards(lib)["2024/c.md"].organisation == "Acme Rockets"


@pytest.mark.parametrize("reviewed_from, reviewed_name, new_from, new_name", [
    (".", "blog/a.md", ".", "{root}/blog/b.md"),  # relative, then absolute
    (".", "{root}/blog/a.md", ".", "blog/b.md"),  # absolute, then relative
    (".", "blog/a.md", "blog", "b.md"),  # from the parent, then from inside
    (".", "blog/a.md", ".", "link/b.md"),  # a link to the folder
])
def test_a_folder_is_one_folder_whatever_spelling_reached_its_files(tmp_path, monkeypatch, reviewed_from,
                                                                     reviewed_name, new_from, new_name):
    lib = str(tmp_path / "lib")
    _write(tmp_path / "blog" / "a.md", _UNNAMED.format(what="slow"))
    (tmp_path / "link").symlink_to(tmp_path / "blog", target_is_directory=True)
    monkeypatch.chdir(tmp_path / reviewed_from)
    _convert(reviewed_name.format(root=tmp_path), "-o", lib)
    _review(lib, "a.md", "Acme Rockets")
    _write(tmp_path / "blog" / "b.md", _UNNAMED.format(what="late"))
    monkeypatch.chdir(tmp_path / new_from)
    _convert(new_name.format(root=tmp_path), "-o", lib)
    new = [card for location, card in _cards(lib).items() if location.endswith("b.md")]
    assert [card.organisation for card in new] == ["Acme Rockets"]


def test_files_linked_into_their_publishers_folders_keep_those_folders(tmp_path, monkeypatch):
    # reports kept in one store folder and linked into a folder per publisher: the folder a curator
    # put the link in is the report's folder; read through the link, every publisher's reports
    # were one folder (the store's), and a review of one publisher's report named the other's
    lib = str(tmp_path / "lib")
    _write(tmp_path / "store" / "h1.md", _UNNAMED.format(what="slow"))
    _write(tmp_path / "store" / "h2.md", _UNNAMED.format(what="stuck"))
    for publisher, name in (("acme", "h1.md"), ("zorbq", "h2.md")):
        (tmp_path / publisher).mkdir()
        (tmp_path / publisher / "report.md").symlink_to(tmp_path / "store" / name)
    monkeypatch.chdir(tmp_path)
    # named: a folder walk skips a link out of the folder (a folder someone sent may link to your files)
    _convert("acme/report.md", "-o", lib)
    _review(lib, "acme/report.md", "Acme Rockets")
    _convert("zorbq/report.md", "-o", lib)
    assert _cards(lib)["zorbq/report.md"].organisation is None
    assert "a link to a file outside the folder given" in _convert("zorbq", "-o", lib)
