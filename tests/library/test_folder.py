"""Which folder is a library, and the removal of one a batch made for nothing."""

from __future__ import annotations

from pmparse.library.folder import glob_covers, remove_if_unused


def _made_for_nothing(path):
    (path / ".pmparse" / "pending").mkdir(parents=True)
    (path / ".pmparse" / "lock").write_text("", encoding="utf-8")
    (path / ".pmparse" / "index.json").write_text("{}", encoding="utf-8")
    return path


def test_a_library_holding_only_the_batchs_bookkeeping_is_removed(tmp_path):
    lib = _made_for_nothing(tmp_path / "lib")
    remove_if_unused(lib)
    assert not lib.exists()


def test_anything_else_in_it_keeps_the_folder_and_every_file(tmp_path):
    for i, extra in enumerate(["IL-0001.yaml", ".pmparse/pending/IL-0001.json", "notes.txt", ".pmparse/rejected"]):
        lib = _made_for_nothing(tmp_path / f"lib{i}")
        target = lib / extra
        if extra.endswith("rejected"):  # a folder with a memory in it
            target.mkdir()
            (target / "IL-0001.json").write_text("{}", encoding="utf-8")
        else:
            target.write_text("kept", encoding="utf-8")
        remove_if_unused(lib)
        assert lib.is_dir() and (lib / ".pmparse" / "index.json").is_file(), extra
        assert target.exists(), extra


def test_a_symlinked_folder_in_the_state_is_unlinked_not_emptied(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    lib = _made_for_nothing(tmp_path / "lib")
    (lib / ".pmparse" / "cache").symlink_to(outside, target_is_directory=True)
    remove_if_unused(lib)
    assert not lib.exists() and outside.is_dir()


def test_a_folder_another_convert_holds_the_lock_of_is_left_alone(tmp_path):
    """The batch that made the folder has released its lock when it cleans up; a convert started
    beside it may hold that lock already. Its lock file (and so its exclusion of a third writer)
    and the folder it is about to write into are not removed under it."""
    from pmparse.library.lock import write_lock

    lib = _made_for_nothing(tmp_path / "lib")
    with write_lock(lib):
        remove_if_unused(lib)
        assert (lib / ".pmparse" / "lock").is_file() and (lib / ".pmparse" / "index.json").is_file()
    remove_if_unused(lib)  # once nobody holds it, it goes
    assert not lib.exists()


def test_only_ascii_record_names_without_a_trailing_line_break_are_records(tmp_path):
    # '$' also matches before a final line break and '\d' any script's digits: 'IL-0003.yaml\n'
    # and 'IL-<Arabic-Indic digits>.yaml' were records to the library and the site (a page named
    # after them), and not to validate
    from pmparse.library.folder import RECORD_FILE
    from pmparse.site.build import record_files

    for name in ("IL-0003.yaml\n", "IL-\u0660\u0660\u0660\u0667.yaml", "IL-0001.yaml"):
        (tmp_path / name).write_text("id: x\n", encoding="utf-8")
    assert [name for name in sorted(p.name for p in tmp_path.iterdir()) if RECORD_FILE.match(name)] == ["IL-0001.yaml"]
    assert list(record_files(tmp_path)) == ["IL-0001"]


def test_glob_covers_what_the_glob_finds_and_the_folders_it_finds():
    assert glob_covers("/pm/*.md", "/pm/a.md") and not glob_covers("/pm/*.md", "/pm/a.txt")
    assert not glob_covers("/pm/*.md", "/pm/2024/a.md")  # * stays within one folder
    assert glob_covers("/pm/*", "/pm/2024/a.md")  # the folder 2024 is found, and converted whole
    assert glob_covers("/pm/**/*.md", "/pm/a.md") and glob_covers("/pm/**/*.md", "/pm/x/y/a.md")
    assert not glob_covers("/pm/*", "/pm/.drafts/a.md") and not glob_covers("/pm/**/*.md", "/pm/.old/a.md")
    assert glob_covers("/pm/.old/*.md", "/pm/.old/a.md") and not glob_covers("/p?/*.md", "/other/a.md")


def test_glob_covers_what_glob_finds_in_a_tree(tmp_path, monkeypatch):
    # each file under the tree is covered exactly when glob.glob finds it or a folder holding it
    # that convert walks (hidden folders are not walked); a pattern ending in a separator finds
    # folders only, so a file it names directly is not covered
    import glob
    import os

    from pmparse.library.folder import glob_named

    for rel in ["a/1.md", "a/b/2.md", "a/.d/3.md", ".h/4.md", "5.md", "x.md/6.md", "ab/7.md"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    files = {os.path.abspath(os.path.join(root, name)) for root, _, names in os.walk(".") for name in names}

    def walked(match):
        if not os.path.isdir(match):
            return {os.path.abspath(match)}
        out = set()
        for root, dirs, names in os.walk(match):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            out |= {os.path.abspath(os.path.join(root, name)) for name in names}
        return out

    for pattern in ["*.md", "*/", "*/*.md", "**/*.md", "[a]*/*.md", ".*/*.md", "a/**/", "?.md"]:
        found = set().union(set(), *(walked(m) for m in glob.glob(pattern, recursive=True)))
        (named,) = glob_named(pattern)
        assert {f for f in files if glob_covers(named, f)} == found, pattern


def test_glob_covers_ignores_case_where_glob_does(monkeypatch):
    # on Windows glob.glob matches names whatever their case (fnmatch compares os.path.normcase)
    import ntpath
    import types

    from pmparse.library import folder

    monkeypatch.setattr(folder, "os", types.SimpleNamespace(sep="\\", path=ntpath))
    assert glob_covers("C:\\Posts\\*.MD", "C:\\posts\\Outage.md")
    assert not glob_covers("C:\\Posts\\*.MD", "C:\\posts\\Outage.txt")
