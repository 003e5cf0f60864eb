"""One file and one folder per source, whatever spelling reached it (``library.places``)."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from pmparse.batch.publisher import folder_of
from pmparse.library.places import ANCHOR_FILE, SourcePlaces
from tests.hang_guard import fifo_guard
from tests.helpers import without_inode_numbers

#: The sha256 of a source holding "x", the text these tests' files hold.
X_SHA = hashlib.sha256(b"x").hexdigest()


@pytest.mark.parametrize("first, second", [
    ("https://blog.example/2023/05/post/", "https://blog.example/2023/05/post"),
    ("HTTPS://Blog.Example/2023/post", "https://blog.example/2023/post"),
    ("https://blog.example/post#top", "https://blog.example/post"),
    ("https://blog.example/", "https://blog.example"),
])
def test_a_url_has_one_place_and_one_folder_whatever_its_spelling(first, second, tmp_path):
    places = SourcePlaces(str(tmp_path))
    assert places.place(first) == places.place(second)
    assert folder_of(places.place(first)) == folder_of(places.place(second))


def test_a_url_ending_in_a_slash_shares_its_siblings_folder(tmp_path):
    places = SourcePlaces(str(tmp_path))
    assert folder_of(places.place("https://blog.example/2023/a/")) == folder_of(places.place("https://blog.example/b"))


def test_a_path_has_one_place_whatever_its_spelling(tmp_path, monkeypatch):
    (tmp_path / "acme" / "2023").mkdir(parents=True)
    (tmp_path / "acme" / "2023" / "a.md").write_text("x", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "acme", target_is_directory=True)
    (tmp_path / "a-link.md").symlink_to(tmp_path / "acme" / "2023" / "a.md")
    monkeypatch.chdir(tmp_path)
    places = SourcePlaces(str(tmp_path))
    real = os.path.realpath(tmp_path / "acme" / "2023" / "a.md")
    for spelling in ("acme/2023/a.md", "./acme//2023/a.md", str(tmp_path / "acme" / "2023" / "a.md"),
                     "link/2023/a.md"):
        assert places.place(spelling) == real, spelling
        assert places.identity(spelling) == places.identity("acme/2023/a.md")
    # a link to the file is the same file, in the folder the link is in (its publisher's folder)
    assert places.identity("a-link.md") == places.identity("acme/2023/a.md")
    assert places.place("a-link.md") == os.path.join(os.path.realpath(tmp_path), "a-link.md")
    assert places.place("acme/2023/a.md#entry-2031-04-02-0123abcd") == real + "#entry-2031-04-02-0123abcd"
    # a year folder's archive is its parent, wherever convert ran
    monkeypatch.chdir(tmp_path / "acme")
    assert folder_of(SourcePlaces(str(tmp_path / "acme")).place("2023/a.md")) == os.path.realpath(tmp_path / "acme")


def test_a_relative_location_is_read_from_the_anchor_and_a_relative_name_from_elsewhere_is_absolute(
        tmp_path, monkeypatch):
    (tmp_path / "one" / "pm").mkdir(parents=True)
    (tmp_path / "two").mkdir()
    monkeypatch.chdir(tmp_path / "two")
    places = SourcePlaces(str(tmp_path / "one"))
    assert places.path("pm/x.md") == str(tmp_path / "one" / "pm" / "x.md")
    assert places.spelling("./pm//x.md") == str(tmp_path / "two" / "pm" / "x.md")
    monkeypatch.chdir(tmp_path / "one")
    assert SourcePlaces(str(tmp_path / "one")).spelling("./pm//x.md") == "pm/x.md"


def test_the_anchor_is_recorded_once_a_relative_location_is_read_from_here(tmp_path, monkeypatch):
    lib = tmp_path / "lib"
    (lib / ".pmparse").mkdir(parents=True)
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "x.md").write_text("x", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    places = SourcePlaces.of_library(lib)
    assert not places.recorded
    places.pin(lib, {}, [str(tmp_path / "pm" / "x.md")])  # an absolute location alone needs none
    assert not (lib / ANCHOR_FILE).exists()
    places.pin(lib, {}, ["pm/x.md"])
    # kept relative to the library's folder, so a library moved or copied with its sources still finds them
    assert json.loads((lib / ANCHOR_FILE).read_text(encoding="utf-8")) == {"folder": ".."}
    # read back from another folder, relative names are still read from the anchor
    monkeypatch.chdir(tmp_path / "pm")
    again = SourcePlaces.of_library(lib)
    assert again.recorded and again.is_file("pm/x.md") and not again.anchor_is_here


def test_a_library_without_an_anchor_does_not_adopt_a_folder_its_relative_names_are_not_found_from(
        tmp_path, monkeypatch):
    lib = tmp_path / "lib"
    (lib / ".pmparse").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    SourcePlaces.of_library(lib).pin(lib, {"pm/gone.md": X_SHA}, ["pm/gone.md", "new.md"])
    assert not (lib / ANCHOR_FILE).exists()


def _library_with_anchor(tmp_path, write) -> SourcePlaces:
    lib = tmp_path / "lib"
    (lib / ".pmparse").mkdir(parents=True)
    write(lib / ANCHOR_FILE)
    return SourcePlaces.of_library(lib)


@pytest.mark.parametrize("anchor", [
    {"folder": 7},  # not a string
    {"folder": ""},  # no folder
    {"folder": "../a\u0000b"},  # a NUL no path holds
    ["/"],  # not an object
])
def test_an_anchor_pmparse_cannot_use_leaves_relative_names_read_from_here(tmp_path, monkeypatch, anchor):
    monkeypatch.chdir(tmp_path)
    places = _library_with_anchor(tmp_path, lambda path: path.write_text(json.dumps(anchor), encoding="utf-8"))
    assert not places.recorded and places.anchor_is_here


@pytest.mark.parametrize("gone", ["no/such/folder", "plain.txt"])
def test_an_anchor_folder_that_is_gone_gives_way_to_the_folder_the_library_s_relative_names_are_found_from(
        tmp_path, monkeypatch, gone):
    # the library moved with its sources (or cloned elsewhere): its anchor names a folder gone
    (tmp_path / "plain.txt").write_text("x", encoding="utf-8")
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "x.md").write_text("x", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    lib = tmp_path / "lib"
    (lib / ".pmparse").mkdir(parents=True)
    (lib / ANCHOR_FILE).write_text(json.dumps({"folder": str(tmp_path / gone)}), encoding="utf-8")
    moved = SourcePlaces.of_library(lib, {"pm/x.md": X_SHA, str(tmp_path / "plain.txt"): X_SHA})
    assert not moved.recorded and moved.anchor_is_here and moved.is_file("pm/x.md")
    moved.pin(lib, {"pm/x.md": X_SHA}, ["pm/x.md"])
    assert json.loads((lib / ANCHOR_FILE).read_text(encoding="utf-8")) == {"folder": ".."}
    # none of its relative names is a file from here (a folder not mounted for now): it stays the anchor
    (lib / ANCHOR_FILE).write_text(json.dumps({"folder": str(tmp_path / gone)}), encoding="utf-8")
    kept = SourcePlaces.of_library(lib, {"pm/other.md": X_SHA})
    assert kept.recorded and kept.anchor == str(tmp_path / gone) and not kept.anchor_is_here


def test_an_anchor_file_that_is_a_fifo_or_huge_is_not_read(tmp_path, monkeypatch):
    # a library received from someone else: a FIFO waits for a writer for ever when opened for
    # reading, a huge file fills memory; neither is an anchor pmparse wrote
    monkeypatch.chdir(tmp_path)
    with fifo_guard(tmp_path / "lib" / ANCHOR_FILE):
        places = _library_with_anchor(tmp_path, lambda path: os.mkfifo(path))
    assert not places.recorded
    huge = json.dumps({"folder": str(tmp_path), "padding": "x" * (2 << 20)})
    (tmp_path / "big").mkdir()
    places = _library_with_anchor(tmp_path / "big", lambda path: path.write_text(huge, encoding="utf-8"))
    assert not places.recorded


def test_a_file_system_without_inode_numbers_gives_no_identity(tmp_path, monkeypatch):
    # Python's st_ino identifies a file only when it is not 0 (some file systems report 0 for every
    # file): taken for an identity, every file there would be "the same file" as the first one
    (tmp_path / "a.md").write_text("a", encoding="utf-8")
    without_inode_numbers(monkeypatch)
    assert SourcePlaces(str(tmp_path)).identity(str(tmp_path / "a.md")) is None


def test_an_anchor_is_read_relative_to_the_library_and_an_absolute_one_as_it_is(tmp_path, monkeypatch):
    (tmp_path / "project" / "pm").mkdir(parents=True)
    (tmp_path / "project" / "pm" / "x.md").write_text("x", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    lib = tmp_path / "project" / "records" / "lib"
    (lib / ".pmparse").mkdir(parents=True)
    (lib / ANCHOR_FILE).write_text(json.dumps({"folder": "../.."}), encoding="utf-8")
    places = SourcePlaces.of_library(lib)
    assert places.recorded and os.path.realpath(places.anchor) == os.path.realpath(tmp_path / "project")
    assert places.is_file("pm/x.md")
    (lib / ANCHOR_FILE).write_text(json.dumps({"folder": str(tmp_path / "project")}), encoding="utf-8")
    assert SourcePlaces.of_library(lib).is_file("pm/x.md")


def _secret_home(tmp_path):
    """A home folder beside a library, holding a key where a shared library's record may point."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_test").write_text("PRIVATE KEY made up for this test\n", encoding="utf-8")
    (home / "reports").mkdir()
    (home / "reports" / "outage.md").write_text("# Outage\n\nThe queue stalled.\n", encoding="utf-8")
    (home / "lib" / ".pmparse").mkdir(parents=True)
    return home


def test_a_hidden_or_system_file_or_a_key_is_no_plausible_source(tmp_path):
    from pmparse.library.places import plausible_source

    home = _secret_home(tmp_path)
    lib = home / "lib"
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("made up", encoding="utf-8")
    (home / "reports" / ".env").write_text("TOKEN=made-up", encoding="utf-8")
    (home / "reports" / "dump.sqlite").write_text("made up", encoding="utf-8")
    os.symlink(home / ".ssh" / "id_test", home / "reports" / "linked.md")
    assert plausible_source(str(home / "reports" / "outage.md"), lib)
    for refused in (home / ".ssh" / "id_test", home / ".aws" / "credentials", home / "reports" / ".env",
                    home / "reports" / "linked.md"):
        assert not plausible_source(str(refused), lib), refused
    for system in ("/proc/self/environ", "/etc/hostname", "/dev/zero", "/sys/kernel/notes"):
        assert not plausible_source(system, lib), system
    # a library kept in a hidden folder with its sources reads them: the shared part counts for nothing
    (home / ".work" / "reports").mkdir(parents=True)
    assert plausible_source(str(home / ".work" / "reports" / "a.md"), home / ".work" / "lib")


def test_a_library_reads_back_only_its_plausible_sources(tmp_path, monkeypatch):
    home = _secret_home(tmp_path)
    monkeypatch.chdir(home)
    places = SourcePlaces.of_library(home / "lib")
    assert places.readable("reports/outage.md") == "reports/outage.md"
    assert places.readable(str(home / ".ssh" / "id_test")) is None
    assert places.readable(".ssh/id_test") is None
    assert places.readable("https://example.org/x.md") is None and places.readable("-") is None


def test_a_library_without_an_anchor_adopts_a_folder_only_where_a_file_holds_its_records_text(tmp_path, monkeypatch):
    # run from the wrong folder, one file of the same name as a record's source (an index.md)
    # anchored the library there for good: its other relative names were then read from there
    lib = tmp_path / "lib"
    (lib / ".pmparse").mkdir(parents=True)
    (tmp_path / "wrong" / "pm").mkdir(parents=True)
    (tmp_path / "wrong" / "pm" / "index.md").write_text("another text", encoding="utf-8")
    monkeypatch.chdir(tmp_path / "wrong")
    SourcePlaces.of_library(lib).pin(lib, {"pm/index.md": X_SHA, "pm/b.md": None}, ["pm/index.md", "pm/new.md"])
    assert not (lib / ANCHOR_FILE).exists()
    (tmp_path / "wrong" / "pm" / "index.md").write_text("x", encoding="utf-8")  # a text the library knows: evidence
    SourcePlaces.of_library(lib).pin(lib, {"pm/index.md": X_SHA, "pm/b.md": None}, ["pm/index.md", "pm/new.md"])
    assert (lib / ANCHOR_FILE).exists()


def test_a_gone_anchor_gives_way_only_to_a_folder_holding_a_records_text(tmp_path, monkeypatch):
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "x.md").write_text("not the record's text", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    lib = tmp_path / "lib"
    (lib / ".pmparse").mkdir(parents=True)
    (lib / ANCHOR_FILE).write_text(json.dumps({"folder": str(tmp_path / "gone")}), encoding="utf-8")
    kept = SourcePlaces.of_library(lib, {"pm/x.md": X_SHA})
    assert kept.recorded and not kept.anchor_is_here


def test_a_gone_anchor_gives_way_to_a_folder_holding_a_records_text_with_crlf_line_breaks(tmp_path, monkeypatch):
    # a clone whose git uses core.autocrlf holds the record's text with other bytes: it was no
    # evidence, so the gone folder stayed the anchor and each relative name was read from there, as gone
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "x.md").write_bytes(b"x\r\n")
    monkeypatch.chdir(tmp_path)
    lib = tmp_path / "lib"
    (lib / ".pmparse").mkdir(parents=True)
    (lib / ANCHOR_FILE).write_text(json.dumps({"folder": str(tmp_path / "gone")}), encoding="utf-8")
    places = SourcePlaces.of_library(lib, {"pm/x.md": hashlib.sha256(b"x\n").hexdigest()})
    assert places.anchor_is_here and not places.recorded


def test_a_report_s_ending_is_plausible_under_a_hidden_folder_and_another_ending_outside_one(tmp_path):
    from pmparse.library.places import plausible_source

    home = _secret_home(tmp_path)
    lib = home / "lib"
    # convert reads what it is given: a report in a repository under ~/.local, a .log named to it
    assert plausible_source(str(home / ".local" / "share" / "repo" / "pm" / "outage.md"), lib)
    assert plausible_source(str(home / "reports" / "queue.log"), lib)
    # a file of another ending or none under a hidden folder, a hidden file, a system file: never
    for refused in (home / ".ssh" / "id_test", home / ".aws" / "credentials", home / ".docker" / "config.json",
                    home / "reports" / ".env", home / ".ssh" / "id_test.pub"):
        assert not plausible_source(str(refused), lib), refused
    assert not plausible_source("/etc/motd.txt", lib) and not plausible_source("/proc/self/environ", lib)


def test_a_library_kept_in_a_hidden_folder_makes_no_key_beside_it_plausible(tmp_path):
    from pmparse.library.places import plausible_source

    config = tmp_path / "home" / ".config"
    (config / "cloud").mkdir(parents=True)
    (config / "cloud" / "credentials").write_text("made up", encoding="utf-8")
    (config / "pmlib" / ".pmparse").mkdir(parents=True)
    # the hidden folder the library shares with the key counted for nothing: it was read
    assert not plausible_source(str(config / "cloud" / "credentials"), config / "pmlib")
    assert plausible_source(str(config / "reports" / "outage.md"), config / "pmlib")


def test_the_anchor_s_evidence_reads_each_file_once(tmp_path, monkeypatch):
    # a many-incident file amended since gives no evidence: each of its entries' records read the
    # whole file again (a log of a thousand entries read a thousand times at every convert)
    from pmparse.library import places as module
    from pmparse.locations import entry_location

    lib = tmp_path / "lib"
    (lib / ".pmparse").mkdir(parents=True)
    (tmp_path / "pm").mkdir()
    (tmp_path / "pm" / "log.md").write_text("amended since", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    reads = []
    real_read = module.read_regular_file
    monkeypatch.setattr(module, "read_regular_file", lambda path, *a: reads.append(path) or real_read(path, *a))
    before = {entry_location("pm/log.md", f"2024-01-0{n}-0000000{n}"): X_SHA for n in range(1, 6)}
    SourcePlaces.of_library(lib).pin(lib, before, list(before))
    assert [p for p in reads if str(p).endswith("log.md")] == ["pm/log.md"] and not (lib / ANCHOR_FILE).exists()


def test_the_macos_spellings_of_the_system_folders_are_no_plausible_source():
    # on macOS /etc, /var/run and /tmp are links into /private, and a record's path is read
    # with links resolved: /private/etc/... passed as plausible; its file system ignores case
    from pmparse.library.places import plausible_source

    for system in ("/private/etc/master.passwd", "/private/var/run/resolv.conf", "/private/var/db/dslocal/x.md",
                   "/PRIVATE/ETC/hosts", "/System/Library/notes.md", "/dev/fd/3"):
        assert not plausible_source(system), system
    assert plausible_source("/private/tmp/reports/outage.md")  # a user's scratch folder stays readable
    assert plausible_source("/Users/ann/privateer/outage.md")
