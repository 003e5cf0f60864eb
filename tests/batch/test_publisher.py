"""A batch knows its publisher: the --organisation option, a folder's settings file, and a
folder's consensus offered to its cards naming none (texts written for these tests)."""

from __future__ import annotations

import pytest

from pmparse.batch.convert import convert
from pmparse.batch.publisher import folder_settings
from pmparse.errors import UsageError
from pmparse.library.store import Library
from tests.helpers import review_publisher as _review

_NAMED = ("# Queue stalled on {day}\n\n## Summary\n\nAt Zorbq Labs, we saw the job queue stall for 20 minutes "
          "after a deploy on 2031-03-0{n}.\n\n## Root cause\n\nA worker pool was sized to zero by a typo.\n")
_UNNAMED = ("# Builds slow\n\n## Summary\n\nBuilds were slow for an hour on 2031-04-02 because the cache "
            "filled up.\n\n## Root cause\n\nThe cache had no eviction.\n")

#: What the warning about a settings file passed over tells the curator to do.
_REMEDY = " (make it yours and not writable by others, or give the publisher with --organisation)"


def _cards(library):
    return {entry.card.source.location.rsplit("/", 1)[-1]: entry.card for entry in Library.open(library).entries.values()}


def _write(folder, named: int, unnamed: int):
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(named):
        (folder / f"a{n}.md").write_text(_NAMED.format(day=f"day {n}", n=n + 1), encoding="utf-8")
    for n in range(unnamed):
        (folder / f"z{n}.md").write_text(_UNNAMED.replace("slow", f"slow {n}"), encoding="utf-8")


def test_the_batch_option_names_every_cards_publisher(tmp_path):
    _write(tmp_path / "in", 1, 1)
    convert([str(tmp_path / "in")], tmp_path / "lib", organisation="Acme Rockets")
    cards = _cards(tmp_path / "lib")
    assert {c.organisation for c in cards.values()} == {"Acme Rockets"}
    assert {c.support["organisation"].origin for c in cards.values()} == {"batch"}


@pytest.mark.parametrize("name", ["", "   "])
def test_an_empty_batch_publisher_is_a_usage_error_before_anything_is_written(tmp_path, name):
    from click.testing import CliRunner

    from pmparse.cli import main

    _write(tmp_path / "in", 1, 0)
    result = CliRunner().invoke(main, ["convert", str(tmp_path / "in"), "-o", str(tmp_path / "lib"),
                                       "--organisation", name, "--no-progress"])
    assert result.exit_code == 2, result.output
    assert "--organisation" in result.output and "expected a publisher's name" in result.output
    assert not (tmp_path / "lib").exists()


def test_a_folder_setting_names_the_publisher_of_the_files_below_it(tmp_path):
    _write(tmp_path / "in" / "2031", 0, 2)
    (tmp_path / "in" / ".pmparse.yaml").write_text("organisation: Acme Rockets\n", encoding="utf-8")
    convert([str(tmp_path / "in")], tmp_path / "lib")
    cards = _cards(tmp_path / "lib")
    assert {c.organisation for c in cards.values()} == {"Acme Rockets"}
    assert {c.support["organisation"].origin for c in cards.values()} == {"setting"}


def test_a_broken_settings_file_is_a_usage_error(tmp_path):
    (tmp_path / ".pmparse.yaml").write_text("organisation: Acme\ncolour: blue\n", encoding="utf-8")
    with pytest.raises(UsageError):
        folder_settings(str(tmp_path / "a.md"))


@pytest.mark.parametrize("text, said", [
    ("organization: Acme\n", "line 1: 'organization' is not a setting (the one setting is `organisation: NAME`)"),
    ("organisation: [Acme\n", "a syntax error at line 2:"),
    ("organisation: [Acme, Bolt]\n", "line 1: organisation: Input should be a valid string"),
    ("- Acme\n", "a list"),
    # a shared folder's file nested 60,000 deep (within the 64 KiB read): a RecursionError traceback
    pytest.param("organisation: " + "[" * 60_000, "expected values nested at most", id="nested"),
    # past the pure-Python loader's recursion (about 450 levels) yet within check_depth's 1000
    pytest.param("organisation: " + "[" * 800 + "]" * 800, "expected values nested at most", id="nested-800"),
    pytest.param("organisation:\n  " + "- " * 700 + "x\n", "expected values nested at most", id="nested-block-700"),
])
def test_a_broken_settings_file_is_named_in_one_line_with_its_line_and_reason(tmp_path, text, said):
    # the message reaches a curator's terminal: one line, the file, where and what, not
    # PyYAML's several lines or pydantic's block with its web address
    (tmp_path / ".pmparse.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(UsageError) as info:
        folder_settings(str(tmp_path / "a.md"))
    message = str(info.value)
    assert "\n" not in message and "pydantic" not in message and "<unicode string>" not in message, message
    assert str(tmp_path / ".pmparse.yaml") in message and said in message, message


def test_a_broken_settings_file_fails_the_inputs_below_it_and_the_batch_goes_on(tmp_path):
    from click.testing import CliRunner

    from pmparse.cli import main

    _write(tmp_path / "in" / "broken", 0, 2)
    _write(tmp_path / "in" / "fine", 1, 0)
    (tmp_path / "in" / "broken" / ".pmparse.yaml").write_text("organization: Acme\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["convert", str(tmp_path / "in"), "-o", str(tmp_path / "lib"), "--no-progress"])
    assert result.exit_code == 1, result.output
    assert "1 converted" in result.output and "2 failed" in result.output
    assert str(tmp_path / "in" / "broken" / ".pmparse.yaml") in result.output
    assert "'organization' is not a setting" in result.output
    assert [c.source.location.rsplit("/", 1)[-1] for c in _cards(tmp_path / "lib").values()] == ["a0.md"]


def test_a_settings_file_broken_after_the_last_run_is_named_though_its_inputs_are_unchanged(tmp_path):
    # the inputs are not read again (unchanged), but the curator who just wrote the file hears
    # what is wrong with it, once, and nothing fails
    _write(tmp_path / "in", 2, 0)
    assert convert([str(tmp_path / "in")], tmp_path / "lib").counts["converted"] == 2
    (tmp_path / "in" / ".pmparse.yaml").write_text("organization: Acme\n", encoding="utf-8")
    report = convert([str(tmp_path / "in")], tmp_path / "lib")
    assert [r.status for r in report.results] == ["unchanged", "unchanged"]
    warned = [w for r in report.results for w in r.warnings]
    assert len(warned) == 1 and str(tmp_path / "in" / ".pmparse.yaml") in warned[0]
    assert "'organization' is not a setting" in warned[0]


def test_a_folders_consensus_is_offered_to_its_cards_naming_none(tmp_path):
    _write(tmp_path / "in", 3, 1)
    report = convert([str(tmp_path / "in")], tmp_path / "lib")
    cards = _cards(tmp_path / "lib")
    assert cards["a0.md"].organisation == "Zorbq Labs"
    offered = cards["z0.md"]
    assert offered.organisation == "Zorbq Labs"
    assert offered.support["organisation"].origin == "folder"
    assert offered.support["organisation"].confidence < cards["a0.md"].support["organisation"].confidence
    warned = [w for r in report.results for w in r.warnings if "offered from this folder" in w]
    assert len(warned) == 1 and "3 of 3" in warned[0]


def test_no_consensus_without_enough_of_the_folder(tmp_path):
    _write(tmp_path / "in", 2, 3)
    convert([str(tmp_path / "in")], tmp_path / "lib")
    assert _cards(tmp_path / "lib")["z0.md"].organisation is None


def test_results_stay_in_input_order_and_earlier_cards_are_not_offered_it(tmp_path):
    _write(tmp_path / "in", 3, 0)
    (tmp_path / "in" / "0.md").write_text(_UNNAMED, encoding="utf-8")  # read before the consensus forms
    (tmp_path / "in" / "z.md").write_text(_UNNAMED.replace("slow", "late"), encoding="utf-8")
    report = convert([str(tmp_path / "in")], tmp_path / "lib")
    assert [r.input.rsplit("/", 1)[-1] for r in report.results] == ["0.md", "a0.md", "a1.md", "a2.md", "z.md"]
    cards = _cards(tmp_path / "lib")
    assert cards["0.md"].organisation is None and cards["z.md"].organisation == "Zorbq Labs"


def test_a_folders_reviewed_cards_name_the_publisher_of_its_new_cards(tmp_path):
    _write(tmp_path / "in", 0, 1)
    convert([str(tmp_path / "in")], tmp_path / "lib")
    assert _cards(tmp_path / "lib")["z0.md"].organisation is None
    _review(tmp_path / "lib", "z0.md", "Acme Rockets")
    (tmp_path / "in" / "z9.md").write_text(_UNNAMED.replace("slow", "late"), encoding="utf-8")
    report = convert([str(tmp_path / "in")], tmp_path / "lib")
    new = _cards(tmp_path / "lib")["z9.md"]
    assert new.organisation == "Acme Rockets"
    assert new.support["organisation"].origin == "reviewed"
    assert new.support["organisation"].confidence < 1.0
    warned = [w for r in report.results if r.input.endswith("z9.md") for w in r.warnings if "reviewed cards" in w]
    assert len(warned) == 1 and "IL-0001" in warned[0]
    # the reviewed record itself is a person's: never rewritten
    assert _cards(tmp_path / "lib")["z0.md"].status == "reviewed"


def test_a_publisher_corrected_away_on_a_reviewed_card_is_not_suggested_again_in_its_folder(tmp_path):
    _write(tmp_path / "in", 1, 0)
    convert([str(tmp_path / "in")], tmp_path / "lib")
    assert _cards(tmp_path / "lib")["a0.md"].organisation == "Zorbq Labs"
    _review(tmp_path / "lib", "a0.md", "Zorbq Laboratories GmbH")
    (tmp_path / "in" / "a5.md").write_text(_NAMED.format(day="day 5", n=5), encoding="utf-8")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "a6.md").write_text(_NAMED.format(day="day 6", n=6), encoding="utf-8")
    convert([str(tmp_path / "in"), str(tmp_path / "other")], tmp_path / "lib")
    cards = _cards(tmp_path / "lib")
    assert cards["a5.md"].organisation == "Zorbq Laboratories GmbH"
    assert cards["a5.md"].support["organisation"].origin == "reviewed"
    # another folder is another publisher's as far as pmparse knows: its text's own name stands
    assert cards["a6.md"].organisation == "Zorbq Labs"


def test_a_reviewed_card_is_no_evidence_for_itself_so_its_publisher_is_never_proposed_for_reverting(tmp_path):
    # the curator's publisher on a reviewed card is the folder's word for its *other* cards: read
    # again (--force, or an amended source), the card itself must not take it as pmparse's own
    # suggestion, or the next run forgets the correction and proposes the text's name back
    _write(tmp_path / "in", 1, 0)
    convert([str(tmp_path / "in")], tmp_path / "lib")
    _review(tmp_path / "lib", "a0.md", "Zorbq Laboratories GmbH")
    for _ in range(2):
        report = convert([str(tmp_path / "in")], tmp_path / "lib", force=True)
        assert not [w for r in report.results for w in r.warnings if "reviewed cards" in w]
    library = Library.open(tmp_path / "lib")
    (entry,) = library.entries.values()
    assert entry.card.organisation == "Zorbq Laboratories GmbH"
    assert library.read_state("pending", entry.id) is None
    assert library.read_state("base", entry.id).organisation == "Zorbq Labs"
    # and the correction still holds for the folder's next report
    (tmp_path / "in" / "a5.md").write_text(_NAMED.format(day="day 5", n=5), encoding="utf-8")
    convert([str(tmp_path / "in")], tmp_path / "lib")
    assert _cards(tmp_path / "lib")["a5.md"].organisation == "Zorbq Laboratories GmbH"


def test_a_card_naming_its_own_publisher_keeps_it_and_disagreeing_reviews_say_nothing(tmp_path):
    _write(tmp_path / "in", 1, 2)
    convert([str(tmp_path / "in")], tmp_path / "lib")
    _review(tmp_path / "lib", "z0.md", "Acme Rockets")
    _review(tmp_path / "lib", "z1.md", "Bolt Freight")
    (tmp_path / "in" / "z9.md").write_text(_UNNAMED.replace("slow", "late"), encoding="utf-8")
    (tmp_path / "in" / "a9.md").write_text(_NAMED.format(day="day 9", n=9), encoding="utf-8")
    convert([str(tmp_path / "in")], tmp_path / "lib")
    cards = _cards(tmp_path / "lib")
    assert cards["z9.md"].organisation is None  # one review each way: no word for the others
    assert cards["a9.md"].organisation == "Zorbq Labs"


def test_the_batch_option_wins_over_reviewed_cards(tmp_path):
    _write(tmp_path / "in", 0, 1)
    convert([str(tmp_path / "in")], tmp_path / "lib")
    _review(tmp_path / "lib", "z0.md", "Acme Rockets")
    (tmp_path / "in" / "z9.md").write_text(_UNNAMED.replace("slow", "late"), encoding="utf-8")
    convert([str(tmp_path / "in")], tmp_path / "lib", organisation="Bolt Freight")
    assert _cards(tmp_path / "lib")["z9.md"].organisation == "Bolt Freight"


def test_a_settings_file_anyone_could_have_written_is_passed_over_with_a_warning(tmp_path):
    # the search goes up past the folder the curator named: a /tmp/.pmparse.yaml anyone can plant
    # named the publisher of every card below it, and, broken, failed every input below it
    shared = tmp_path / "shared"
    _write(shared / "team" / "2031", 0, 1)
    shared.chmod(0o1777)  # as /tmp is
    (shared / ".pmparse.yaml").write_text("organisation: Planted Inc\n", encoding="utf-8")
    warned: list[str] = []
    report = convert([str(shared / "team")], tmp_path / "lib", on_result=lambda r: warned.extend(r.warnings))
    assert report.counts["failed"] == 0
    assert {c.organisation for c in _cards(tmp_path / "lib").values()} != {"Planted Inc"}
    assert [w for w in warned if ".pmparse.yaml" in w] == [
        f"{shared / '.pmparse.yaml'}: ignored, its folder is writable by every account" + _REMEDY]
    # broken, it fails nothing; the curator's own file nearer the reports still names the publisher
    (shared / ".pmparse.yaml").write_text("organization: [\n", encoding="utf-8")
    (shared / "team" / ".pmparse.yaml").write_text("organisation: Acme Rockets\n", encoding="utf-8")
    report = convert([str(shared / "team")], tmp_path / "lib", force=True)
    assert report.counts["failed"] == 0
    assert {c.organisation for c in _cards(tmp_path / "lib").values()} == {"Acme Rockets"}


def test_a_settings_file_writable_by_anyone_or_another_accounts_is_passed_over(tmp_path):
    import os

    (tmp_path / ".pmparse.yaml").write_text("organisation: Planted Inc\n", encoding="utf-8")
    (tmp_path / ".pmparse.yaml").chmod(0o666)
    ignored: list[str] = []
    assert folder_settings(str(tmp_path / "a.md"), ignored=ignored) is None
    assert ignored == [f"{tmp_path / '.pmparse.yaml'}: ignored, it is writable by every account" + _REMEDY]
    (tmp_path / ".pmparse.yaml").chmod(0o644)
    assert folder_settings(str(tmp_path / "a.md"))[0].organisation == "Planted Inc"
    if os.geteuid() == 0:  # only root can give a file away
        os.chown(tmp_path / ".pmparse.yaml", 65534, 65534)
        ignored.clear()
        assert folder_settings(str(tmp_path / "a.md"), ignored=ignored) is None
        assert ignored == [f"{tmp_path / '.pmparse.yaml'}: ignored, another account owns it" + _REMEDY]


def test_another_accounts_settings_file_in_a_folder_the_curator_named_is_taken(tmp_path):
    import os

    team = tmp_path / "team"
    _write(team / "2031", 0, 1)
    (team / ".pmparse.yaml").write_text("organisation: Acme Rockets\n", encoding="utf-8")
    location = str(team / "2031" / "a.md")
    # named as an input (or a folder above it named): the curator chose this folder's reports
    assert folder_settings(location, named={str(team)})[0].organisation == "Acme Rockets"
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another account")
    os.chown(team / ".pmparse.yaml", 65534, 65534)  # a colleague wrote it in the team's folder
    assert folder_settings(location, named={str(team)})[0].organisation == "Acme Rockets"
    assert folder_settings(location, named={str(tmp_path)})[0].organisation == "Acme Rockets"
    # a folder below it named: the file is above what the curator chose
    ignored: list[str] = []
    assert folder_settings(location, ignored=ignored, named={str(team / "2031")}) is None
    assert ignored == [f"{team / '.pmparse.yaml'}: ignored, another account owns it" + _REMEDY]
    # a name that only starts like the folder's is not below it
    assert folder_settings(location, named={str(team) + "-old"}) is None
    # writable by everyone, it is passed over even in a named folder
    (team / ".pmparse.yaml").chmod(0o666)
    assert folder_settings(location, named={str(team)}) is None
    # through convert: the folder given on the command line is the named one
    (team / ".pmparse.yaml").chmod(0o644)
    convert([str(team)], tmp_path / "lib")
    assert {c.organisation for c in _cards(tmp_path / "lib").values()} == {"Acme Rockets"}


def test_a_settings_file_too_large_is_refused_unread(tmp_path):
    (tmp_path / ".pmparse.yaml").write_text("organisation: Acme\n" + "#" * (1 << 20) + "\n", encoding="utf-8")
    with pytest.raises(UsageError, match="larger than 64 KiB"):
        folder_settings(str(tmp_path / "a.md"))


def test_a_publisher_s_name_is_kept_without_the_spaces_around_it_and_spaces_alone_name_none(tmp_path):
    # "organisation: '  '" named a publisher of two spaces, and a padded name was kept padded
    _write(tmp_path / "in", 0, 1)
    (tmp_path / "in" / ".pmparse.yaml").write_text("organisation: ' Acme Rockets  '\n", encoding="utf-8")
    assert folder_settings(str(tmp_path / "in" / "z0.md"))[0].organisation == "Acme Rockets"
    convert([str(tmp_path / "in")], tmp_path / "lib")
    assert {c.organisation for c in _cards(tmp_path / "lib").values()} == {"Acme Rockets"}
    convert([str(tmp_path / "in")], tmp_path / "lib2", organisation="  Bolt Works ")
    assert {c.organisation for c in _cards(tmp_path / "lib2").values()} == {"Bolt Works"}
    (tmp_path / "in" / ".pmparse.yaml").write_text("organisation: '   '\n", encoding="utf-8")
    with pytest.raises(UsageError, match="at least 1 character"):
        folder_settings(str(tmp_path / "in" / "z0.md"))


def test_convert_notes_the_up_to_date_records_the_batch_option_did_not_reach(tmp_path):
    # --organisation on a second run changed nothing and said nothing: the sources were up to date
    from click.testing import CliRunner

    from pmparse.cli import main

    _write(tmp_path / "in", 0, 2)
    args = ["convert", str(tmp_path / "in"), "-o", str(tmp_path / "lib"), "--no-progress"]
    assert CliRunner().invoke(main, args).exit_code == 0
    again = CliRunner().invoke(main, [*args, "--organisation", "Acme Rockets"])
    assert again.exit_code == 0
    assert "note: 2 record(s) already up to date name another publisher than --organisation" in again.stderr
    assert "--force" in again.stderr and "IL-0001.yaml" in again.stderr
    forced = CliRunner().invoke(main, [*args, "--organisation", "Acme Rockets", "--force"])
    assert forced.exit_code == 0 and "note:" not in forced.stderr
    assert {c.organisation for c in _cards(tmp_path / "lib").values()} == {"Acme Rockets"}
    # once they name it, a run with the same option has nothing to say
    assert "note:" not in CliRunner().invoke(main, [*args, "--organisation", "Acme Rockets"]).stderr


@pytest.mark.parametrize("location, folder", [
    ("blog/2023/05/post.md", "blog"),
    ("/srv/zorbq/2022-08/x.md", "/srv/zorbq"),
    ("/srv/zorbq/2023_04_25/x.md", "/srv/zorbq"),
    ("wiki/11/page.txt", "wiki"),
    ("zorbq/content/issues/x.md", "zorbq/content/issues"),  # named folders are kept
    ("zorbq/v2/x.md", "zorbq/v2"),
    ("2022/x.md", "2022"),  # the folder above a relative name is not recorded (test_publisher_archives)
    ("x.md", "."),
    ("zorbq/2022/notes.md#entry-3", "zorbq"),
])
def test_folders_that_only_partition_an_archive_by_number_or_date_share_its_publisher(location, folder):
    from pmparse.batch.publisher import folder_of

    assert folder_of(location) == folder


def test_a_publisher_reviewed_in_one_months_folder_names_the_other_months_cards(tmp_path):
    # an archive kept by month: the curator's word on one month's report is the archive's word
    (tmp_path / "in" / "2023-05").mkdir(parents=True)
    (tmp_path / "in" / "2023-05" / "z0.md").write_text(_UNNAMED, encoding="utf-8")
    convert([str(tmp_path / "in")], tmp_path / "lib")
    _review(tmp_path / "lib", "z0.md", "Acme Rockets")
    (tmp_path / "in" / "2024-01").mkdir()
    (tmp_path / "in" / "2024-01" / "z9.md").write_text(_UNNAMED.replace("slow", "late"), encoding="utf-8")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "z8.md").write_text(_UNNAMED.replace("slow", "stuck"), encoding="utf-8")
    convert([str(tmp_path / "in"), str(tmp_path / "other")], tmp_path / "lib")
    cards = _cards(tmp_path / "lib")
    assert cards["z9.md"].organisation == "Acme Rockets" and cards["z9.md"].support["organisation"].origin == "reviewed"
    assert cards["z8.md"].organisation is None  # a named folder beside it is another archive


_PLATFORM = ("# Ingress down {n}\n\n## Summary\n\nThe Cloud Platform ingress controllers restarted for 20 minutes on "
             "2031-04-0{n}. Cloud Platform users saw errors.\n\n## Root cause\n\nA memory limit was too low.\n")


def test_the_publisher_an_address_gave_yields_to_the_one_a_curator_settled_for_the_same_address(tmp_path):
    # a team's repository: its reports name the repository ("Cloud Platform"), which the address
    # gives as the publisher; the curator reviews a card of that repository (one pmparse named no
    # publisher on, so nothing was corrected away) and names the ministry
    base = "https://github.com/zorbq-gov/cloud-platform/blob/main/"
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "p0.md").write_text(_UNNAMED, encoding="utf-8")
    convert([str(tmp_path / "in")], tmp_path / "lib", url_base=base)
    assert _cards(tmp_path / "lib")["p0.md"].organisation is None
    _review(tmp_path / "lib", "p0.md", "Zorbq Ministry")
    (tmp_path / "in" / "p2.md").write_text(_PLATFORM.format(n=2), encoding="utf-8")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "p3.md").write_text(_PLATFORM.format(n=3), encoding="utf-8")
    convert([str(tmp_path / "in"), str(tmp_path / "other")], tmp_path / "lib", url_base=base)
    cards = _cards(tmp_path / "lib")
    assert cards["p2.md"].organisation == "Zorbq Ministry" and cards["p2.md"].support["organisation"].origin == "reviewed"
    assert cards["p3.md"].organisation == "Cloud Platform"  # another folder: the curator said nothing of it
    # the same folder, another owner's address: what that address gives stands
    (tmp_path / "in" / "p4.md").write_text(_PLATFORM.format(n=4), encoding="utf-8")
    convert([str(tmp_path / "in" / "p4.md")], tmp_path / "lib", url_base="https://github.com/quillmere/cloud-platform/")
    assert _cards(tmp_path / "lib")["p4.md"].organisation == "Cloud Platform"


def test_a_reviewed_publisher_replaces_a_name_only_when_the_address_gave_it_and_is_the_reviewed_cards_owners():
    from pmparse.batch.publisher import Reviewed

    found = Reviewed()
    found.add("in/a.md", "Zorbq Ministry", None, "IL-0001", "github.com/zorbq-gov")
    assert found.choice("in/b.md", "Cloud Platform", from_address="github.com/zorbq-gov") == ("Zorbq Ministry",
                                                                                             ["IL-0001"])
    assert found.choice("in/b.md", "Cloud Platform", from_address="github.com/quillmere") is None
    assert found.choice("in/b.md", "Cloud Platform") is None  # the text's own name, not the address's
    assert found.choice("in/b.md", None) == ("Zorbq Ministry", ["IL-0001"])


_SITE = ("# Deploy stalled {n}\n\n## Summary\n\nThe Quillmere deploy queue stalled for 20 minutes on "
         "2031-04-0{n}. Quillmere users saw errors.\n\n## Root cause\n\nA worker pool was sized to zero.\n")


@pytest.mark.parametrize("base", ["https://{owner}.github.io/notes/", "https://{owner}.substack.com/p/",
                                  "https://{owner}.wordpress.com/2031/"])
def test_a_reviewed_publisher_of_one_authors_site_on_a_platform_is_not_another_authors(tmp_path, base):
    # a folder of pages saved from many authors' sites on one platform: the curator named the
    # publisher of one author's page; another author's page keeps what its own address gives
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "p0.md").write_text(_UNNAMED, encoding="utf-8")
    convert([str(tmp_path / "in")], tmp_path / "lib", url_base=base.format(owner="zorbq"))
    _review(tmp_path / "lib", "p0.md", "Zorbq Ministry")
    (tmp_path / "in" / "p4.md").write_text(_SITE.format(n=4), encoding="utf-8")
    convert([str(tmp_path / "in" / "p4.md")], tmp_path / "lib", url_base=base.format(owner="quillmere"))
    card = _cards(tmp_path / "lib")["p4.md"]
    assert card.organisation != "Zorbq Ministry" and card.support["organisation"].origin != "reviewed"


def test_a_name_the_curator_kept_for_an_address_is_not_replaced_by_the_address_rule():
    from pmparse.batch.publisher import Reviewed

    found = Reviewed()
    for card_id in ("IL-0001", "IL-0002"):
        found.add(f"in/{card_id}.md", "Zorbq Ministry", None, card_id, "github.com/zorbq-gov")
    # the curator kept the repository's name on a card of the same address: it is a right reading
    found.add("in/IL-0003.md", "Cloud Platform", "Cloud Platform", "IL-0003", "github.com/zorbq-gov")
    assert found.choice("in/b.md", "Cloud Platform", from_address="github.com/zorbq-gov") is None
    assert found.choice("in/b.md", "cloud platform", from_address="github.com/zorbq-gov") is None
    assert found.choice("in/b.md", None) == ("Zorbq Ministry", ["IL-0001", "IL-0002"])
