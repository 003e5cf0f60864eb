from __future__ import annotations

import json
import re

import pytest

from pmparse.errors import RulesError
from pmparse.nlp import boilerplate

NOTICE = "Please read our new site notice about the move!"


def test_digest_ignores_case_and_spacing_but_not_words():
    assert boilerplate.digest(NOTICE) == boilerplate.digest("  please READ our new\tsite notice about the move! ")
    assert boilerplate.digest(NOTICE) != boilerplate.digest(NOTICE.replace("new", "old"))
    # a word or two recurs by chance: too short to list
    assert boilerplate.digest("Done today") is None
    assert boilerplate.digest("Done today", min_words=2) is not None


def test_derive_counts_a_line_once_per_document():
    texts = [f"Report {i} opens here.\n{NOTICE}\nThe disk filled up on host {i}.\n" for i in range(3)]
    # one document that prints the notice on every page is not three documents
    texts.append(f"{NOTICE}\n{NOTICE}\n{NOTICE}\n")
    assert boilerplate.derive(texts, min_documents=4) == [boilerplate.digest(NOTICE)]
    assert boilerplate.derive(texts, min_documents=5) == []
    # a line of every report but one made of different words is not listed
    assert boilerplate.digest("Report 1 opens here.") not in boilerplate.derive(texts, min_documents=2)


def test_written_list_loads_and_invalid_lists_say_why(tmp_path):
    path = tmp_path / "b.json"
    boilerplate.write(path, [boilerplate.digest(NOTICE)], "test", 4, 3)
    digests, min_words = boilerplate.load(str(path))
    assert digests == {boilerplate.digest(NOTICE)} and min_words == 3
    data = json.loads(path.read_text())
    data["extra"] = 1
    (tmp_path / "extra.json").write_text(json.dumps(data))
    with pytest.raises(RulesError, match="extra.json"):
        boilerplate.load(str(tmp_path / "extra.json"))
    data.pop("extra")
    data["digests"] = ["not hex"]
    (tmp_path / "hex.json").write_text(json.dumps(data))
    with pytest.raises(RulesError, match="16 hex digits"):
        boilerplate.load(str(tmp_path / "hex.json"))
    with pytest.raises(RulesError, match="readable"):
        boilerplate.load(str(tmp_path / "missing.json"))


def test_packaged_list_is_digests_only():
    digests, min_words = boilerplate.load()
    assert digests and min_words >= 3
    raw = boilerplate.resources.files("pmparse.resources").joinpath(boilerplate.PACKAGED).read_text()
    # no corpus text: the file is its own keys, numbers, hex digests and one note the team wrote
    data = json.loads(raw)
    assert set(data) == {"format", "about", "min_documents", "min_words", "digests"}
    assert all(isinstance(data[k], int) for k in ("format", "min_documents", "min_words"))
    assert data["digests"] == sorted(set(data["digests"])) and set(data["digests"]) == set(digests)
    assert all(re.fullmatch(r"[0-9a-f]{16}", d) for d in data["digests"])
    assert data["about"].startswith("Digests of the lines of") and "pmparse train --write-boilerplate" in data["about"]
