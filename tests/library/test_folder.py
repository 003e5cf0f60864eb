"""Which folder is a library, and the removal of one a batch made for nothing."""

from __future__ import annotations

from pmparse.library.folder import remove_if_unused


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
