"""Temporary files a killed run left are removed by the next run, and nothing else is."""

from __future__ import annotations

from pmparse.library.leftovers import remove_temporaries


def test_temporary_files_a_killed_run_left_are_removed_and_nothing_else(tmp_path):
    lib = tmp_path / "lib"
    for folder in ("", ".pmparse", ".pmparse/base", ".pmparse/pending"):
        (lib / folder).mkdir(parents=True, exist_ok=True)
    left = [".IL-0001.yaml.k3j_x9a2.tmp", ".pmparse/.index.json.abcdefgh.tmp",
            ".pmparse/base/.IL-0001.json.a1b2c3d4.tmp"]
    kept = [".notes.tmp", "IL-0002.yaml.tmp", ".pmparse/pending/IL-0001.json", ".IL-0001.yaml.short.tmp"]
    for rel in left + kept:
        (lib / rel).write_text("x", encoding="utf-8")
    assert sorted(remove_temporaries(lib)) == sorted(left)
    assert sorted(str(p.relative_to(lib)) for p in lib.rglob("*") if p.is_file()) == sorted(kept)


def test_convert_removes_what_a_killed_run_left(tmp_path):
    from pmparse.batch.convert import convert
    from pmparse.nlp.pipeline import pipeline_config

    lib = tmp_path / "lib"
    (lib / ".pmparse" / "intent").mkdir(parents=True)
    (lib / ".IL-0001.yaml.k3j_x9a2.tmp").write_text("", encoding="utf-8")  # a 0-byte record cut short
    (lib / ".pmparse" / "intent" / ".IL-0001.json.k3j_x9a2.tmp").write_text("", encoding="utf-8")
    source = tmp_path / "outage.md"
    source.write_text("# Outage\n\nThe queue stopped for an hour.\n", encoding="utf-8")
    convert([str(source)], lib, config=pipeline_config(rules_only=True))
    assert [p.name for p in lib.rglob("*.tmp")] == []
