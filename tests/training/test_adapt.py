"""Learning from the curator (issue 36): a library reviewed through the CLI, trained with
``pmparse train --library``, then converted with its own model; rejected suggestions stay rejected."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

from pmparse.cli import main
from pmparse.errors import UnsafePathError
from pmparse.library.records import card_data
from pmparse.library.store import Library
from pmparse.paths import local_model_dir
from pmparse.nlp.components.classifier import META_FILE, MODEL_FILE, UnitModel
from pmparse.nlp.pipeline import DEFAULT_MODEL_DIR, pipeline_config
from pmparse.review.compare import value_hash
from pmparse.review.rejections import load_rejections, model_family, rejected_check
from pmparse.review.session import Decision, review
from pmparse.training.adapt import class_weights, fit_head
from pmparse.training.library_rows import NOT, unit_targets
from tests.hang_guard import fifo_guard

#: Made-up postmortems of one publisher, in its house style (written for these tests).
POSTMORTEMS = {
    "q1-ledger.md": """# Ledger writes stalled for forty minutes

## Background
The ledger service keeps one row per payment and runs in three regions.

## What happened
Between 09:10 and 09:50 UTC customers could not record new payments in the ledger.
The payment page showed a spinner and then a timeout error.

## Why it happened
A schema migration took a table lock on the ledger entries table.
The migration tool ran the change inside one long transaction, so every write waited behind it.

## How we found out
The write latency alert paged the on-call engineer at 09:14.

## How we fixed it
We cancelled the migration and the queued writes drained within two minutes.

## Follow-up
Run schema migrations through the online migration tool only.
Add a lock timeout to every migration session.
""",
    "q2-search.md": """# Search results went stale for a morning

## Background
Our search index is rebuilt from a queue of listing changes.

## What happened
From 07:00 to 11:30 UTC the search page returned results that were up to six hours old.
Newly listed items could not be found by any customer.

## Why it happened
The indexer stopped consuming its queue after a certificate on the broker expired.
Nobody owned the renewal of that certificate, so it lapsed without warning.

## How we found out
A customer support ticket reported missing listings at 10:40.

## How we fixed it
We renewed the certificate and restarted the indexer, which caught up by 11:30.

## Follow-up
Move the broker certificate to automatic renewal.
Alert when the indexer queue lag exceeds fifteen minutes.
""",
    "q3-login.md": """# Logins failed for a quarter of users

## What happened
For twenty-five minutes one in four login attempts failed with an internal error.
Users who were already signed in were not affected.

## Why it happened
A new release of the session service read its cache address from a renamed setting.
Pods started with the new release connected to no cache and rejected every new session.

## How we found out
The login success rate dashboard dropped below its threshold and paged the team at 14:05.

## How we fixed it
We rolled the session service back to the previous release at 14:22.

## Follow-up
Fail the release when a required setting is missing at start-up.
Canary session service releases to one percent of traffic first.
""",
}

#: A fourth report of the same publisher, converted after the training.
LATER = {"q4-export.md": """# Exports failed overnight

## What happened
Every scheduled export between 01:00 and 05:00 UTC failed and customers received no files.

## Why it happened
The export workers ran out of disk because temporary files were never deleted after upload.

## How we found out
The morning export report showed zero completed jobs at 06:00.

## How we fixed it
We cleared the temporary folder and re-ran the failed exports.

## Follow-up
Delete temporary files as soon as an upload completes.
"""}


def write(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture()
def reviewed(tmp_path):
    """A library of three reports: drafted by the heading rules, marked reviewed by a curator in
    the files, re-converted with the shipped model and reviewed through the CLI (trigger rejected
    wherever it is suggested, everything else accepted)."""
    sources = write(tmp_path / "reports", POSTMORTEMS)
    lib = tmp_path / "lib"
    assert run("convert", sources, "-o", lib, "--rules-only", "--no-progress").exit_code == 0
    for path in sorted(lib.glob("IL-*.yaml")):
        path.write_text(path.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                        encoding="utf-8")
    again = run("convert", sources, "-o", lib, "--no-progress")
    assert again.exit_code == 0 and "pending review" in again.output
    result = run("review", lib, "--reject", "trigger", "--accept-all", "--reviewer", "curator")
    assert result.exit_code == 0, result.output
    return sources, lib


def test_train_library_learns_from_reviews_and_convert_uses_it(reviewed, tmp_path):
    sources, lib = reviewed
    before = Library.open(lib)
    rejected = {card_id: load_rejections(before, card_id).rejected for card_id in ("IL-0001", "IL-0002", "IL-0003")}
    # the words (and places) of every trigger the curator turned down
    turned_down = {card_id: [(i["text"], str(i["evidence"])) for i in card_data(before.read_state("base", card_id))["trigger"]]
                   for card_id, memory in rejected.items() if any(r.field == "trigger" for r in memory)}
    assert turned_down and all(turned_down.values())

    trained = run("train", "--library", lib)
    assert trained.exit_code == 0, trained.output
    assert "3 reviewed record(s)" in trained.output
    folder = local_model_dir(lib)
    meta = json.loads((folder / META_FILE).read_text(encoding="utf-8"))
    shipped = json.loads((DEFAULT_MODEL_DIR / META_FILE).read_text(encoding="utf-8"))
    assert meta["name"].startswith(shipped["name"] + "+lib.")
    assert meta["library_rows"]["field"] >= 10 and meta["library_rows"]["none"] > 0
    assert (folder / MODEL_FILE).stat().st_size < 20e6
    with np.load(folder / MODEL_FILE, allow_pickle=False) as arrays:
        assert arrays.files  # numeric arrays only
    UnitModel.load(folder)

    # a later report of the publisher is drafted by the library's own model, named in its record
    write(sources, LATER)
    converted = run("convert", sources, "-o", lib, "--no-progress")
    assert converted.exit_code == 0 and "own field model" in converted.output
    library = Library.open(lib)
    new = library.entries["IL-0004"].card
    assert new.pipeline.model == meta["name"]
    # the reviewed records get suggestions from it too; a trigger the curator rejected is not proposed again
    for card_id, memory in rejected.items():
        pending = library.read_state("pending", card_id)
        if pending is None:
            continue
        assert pending.pipeline.model == meta["name"]
        diff = json.loads(run("diff", lib, "--format", "json").output)
        for record in diff["records"] if isinstance(diff, dict) else diff:
            if record.get("id") != card_id:
                continue
            for change in record.get("changes", []):
                if change["field"] == "trigger":
                    assert value_hash(change["suggestion"]) not in {r.value_sha256 for r in memory}
                    # not even with another confidence
                    assert [(i["text"], str(i["evidence"])) for i in change["suggestion"]] != turned_down.get(card_id)

    # --base-model: the shipped model, whatever the library has
    other = tmp_path / "other"
    write(other, {"q5.md": LATER["q4-export.md"].replace("Exports", "Imports")})
    assert run("convert", other, "-o", lib, "--base-model", "--no-progress").exit_code == 0
    assert Library.open(lib).entries["IL-0005"].card.pipeline.model == shipped["name"]
    import pmparse

    write(other, {"q6.md": LATER["q4-export.md"].replace("Exports", "Reports")})
    pmparse.convert([other / "q6.md"], lib, jobs=1)  # the Python API, as the command line
    assert Library.open(lib).entries["IL-0006"].card.pipeline.model == meta["name"]
    assert pipeline_config(library_dir=str(lib)).model_dir == str(folder)
    assert pipeline_config(library_dir=str(lib), base_model=True).model_dir == str(DEFAULT_MODEL_DIR)


def test_rejections_hold_across_a_library_model(reviewed):
    """A value rejected from the shipped model's suggestion is not proposed again by the library's
    own model (which learnt from that rejection), for the same source."""
    _, lib = reviewed
    library = Library.open(lib)
    memory = load_rejections(library, "IL-0001")
    rejection = next(r for r in memory.rejected if r.field == "trigger")
    base = library.read_state("base", "IL-0001")
    assert value_hash(card_data(base)["trigger"]) == rejection.value_sha256
    local = base.model_copy(update={"pipeline": base.pipeline.model_copy(
        update={"model": base.pipeline.model + "+lib.0123abcd"})})
    assert rejected_check(memory, local)("trigger", card_data(base)["trigger"])
    # the same words at the same place with another confidence (a retrained model) stay rejected
    other_confidence = [{**item, "confidence": round(item["confidence"] / 2, 3)} for item in card_data(base)["trigger"]]
    assert rejected_check(memory, local)("trigger", other_confidence)
    assert not rejected_check(memory, local)("trigger", [{**other_confidence[0], "text": "Other words."}])
    other = base.model_copy(update={"pipeline": base.pipeline.model_copy(update={"model": "pmparse-units-v9"})})
    assert not rejected_check(memory, other)("trigger", card_data(base)["trigger"])
    assert model_family("0.1.0/pmparse-units-v3+lib.0123abcd") == model_family("0.1.0/pmparse-units-v3")
    assert model_family("0.1.0/pmparse-units-v3") != model_family("0.1.0/pmparse-units-v4")


def test_too_few_reviewed_items_keep_the_shipped_model(tmp_path):
    sources = write(tmp_path / "reports", dict(list(POSTMORTEMS.items())[:1]))
    lib = tmp_path / "lib"
    assert run("convert", sources, "-o", lib, "--no-progress").exit_code == 0
    result = run("train", "--library", lib)
    assert result.exit_code == 1 and "too few" in result.output
    assert not local_model_dir(lib).exists()
    assert run("train", "--library", lib, "--loso").exit_code == 2


def test_unit_targets():
    offsets = [(0, 10), (10, 20), (20, 30)]
    positives = {"root_cause": [(0, 10)], "trigger": []}
    negatives = {"trigger": [(10, 20)]}
    assert unit_targets(offsets, positives, negatives, whole=True) == [["root_cause"], ["none"], ["none"]]
    assert unit_targets(offsets, positives, negatives, whole=False) == [["root_cause"], [NOT + "trigger"], []]


def test_fit_head_moves_towards_the_rows_and_away_from_rejections():
    base = UnitModel.load(DEFAULT_MODEL_DIR)
    weights = class_weights(DEFAULT_MODEL_DIR, base.labels)
    rows = [("The frobnicator quota was exhausted by the nightly batch.", "__kind_sentence __pos1")] * 3
    before = base.estimator.predict_proba(rows[:1])[0]
    up = fit_head(base, rows, ["root_cause"] * 3, weights)
    down = fit_head(base, rows, [NOT + "root_cause"] * 3, weights)
    i = base.labels.index("root_cause")
    assert up.estimator.predict_proba(rows[:1])[0][i] > before[i] > down.estimator.predict_proba(rows[:1])[0][i]


def test_review_order_uncertain_asks_the_least_certain_first(reviewed, tmp_path):
    sources, lib = reviewed
    # amended sources of a reviewed library bring new suggestions to review
    for path in sorted(lib.glob("IL-*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert data["status"] == "reviewed"
    (sources / "q1-ledger.md").write_text(POSTMORTEMS["q1-ledger.md"] + "\nThe lock also blocked the nightly "
                                          "reconciliation job.\n", encoding="utf-8")
    (sources / "q2-search.md").write_text(POSTMORTEMS["q2-search.md"].replace("six hours", "seven hours"),
                                          encoding="utf-8")
    assert run("convert", sources, "-o", lib, "--no-progress").exit_code == 0
    seen = []

    def ask(diff, change, position, total):
        from pmparse.review.session import uncertainty

        seen.append(uncertainty(diff.suggestion, change))
        return Decision("skip")

    before = {p.name: p.read_bytes() for p in lib.glob("IL-*.yaml")}
    review(lib, ask=ask, order="uncertain")
    assert len(seen) >= 2 and seen == sorted(seen)
    assert {p.name: p.read_bytes() for p in lib.glob("IL-*.yaml")} == before  # skipping decides nothing
    result = run("review", lib, "--order", "uncertain", "--accept-all", "--reviewer", "curator")
    assert result.exit_code == 0 and "0 record(s) still pending" in result.output


def test_curvature_holds_the_weights_the_training_rows_saw():
    from pmparse.training.curvature import curvature
    from pmparse.training.field_labels import DocExamples

    base = UnitModel.load(DEFAULT_MODEL_DIR)
    rows = [("The frobnicator quota was exhausted by the nightly batch.", "__kind_sentence __pos1")]
    examples = [DocExamples("a.md", "team", rows * 2, [("root_cause", 1.0), ("none", 1.0)])]
    hessian, intercept = curvature(base, examples)
    assert hessian.shape == (len(base.labels), base.estimator.features.width) and (hessian >= 0).all()
    assert hessian.any() and (intercept > 0).all()
    weights = class_weights(DEFAULT_MODEL_DIR, base.labels)
    i = base.labels.index("root_cause")
    free = fit_head(base, rows, ["root_cause"], weights).estimator.predict_proba(rows)[0][i]
    held = fit_head(base, rows, ["root_cause"], weights, precision=(hessian * 1e4, intercept * 1e4))
    before = base.estimator.predict_proba(rows)[0][i]
    assert before < held.estimator.predict_proba(rows)[0][i] < free


def test_headings_a_publisher_uses_for_one_field_are_learnt(tmp_path):
    from pmparse.card.schema import Card
    from pmparse.library.records import dumps
    from pmparse.training.library_rows import learned_headings, library_rows

    texts = {f"r{i}.md": f"# Outage {i}\n\n## The gory details\n\nThe pool of workers {i} was sized for one region only.\n"
                         f"Its queue filled when the second region sent traffic {i}.\n\n## Wrap\n\nWe added a second "
                         f"pool {i}.\n" for i in range(3)}
    sources = write(tmp_path / "reports", texts)
    lib = tmp_path / "lib"
    assert run("convert", sources, "-o", lib, "--rules-only", "--no-progress").exit_code == 0
    library = Library.open(lib)
    for entry in library.entries.values():
        text = (sources / entry.card.source.location.rsplit("/", 1)[-1]).read_text(encoding="utf-8")
        data = card_data(entry.card)
        start = text.index("The pool")
        end = text.index("\n\n## Wrap")
        data["root_cause"] = [{"text": " ".join(text[start:end].split()), "evidence": [{"start": start, "end": end}],
                               "confidence": 1.0, "origin": "person"}]
        data["status"] = "reviewed"
        entry.path.write_text(dumps(Card.model_validate(data), "yaml"), encoding="utf-8")
    assert learned_headings(library_rows(lib).docs) == {"the gory details": "root_cause"}


def test_a_model_folder_carries_its_learnt_headings(tmp_path):
    import shutil

    from pmparse.rules.headings import load_headings
    from pmparse.training.adapt import write_headings

    folder = tmp_path / "model"
    folder.mkdir()
    for name in (MODEL_FILE, META_FILE):
        shutil.copy(DEFAULT_MODEL_DIR / name, folder / name)
    assert pipeline_config(model_dir=str(folder)).headings_path is None
    write_headings(folder / "headings.yaml", {"the gory details": "root_cause"})
    config = pipeline_config(model_dir=str(folder))
    assert config.headings_path == str(folder / "headings.yaml")
    assert load_headings(folder / "headings.yaml").lookup("the gory details")[0] == "root_cause"
    write_headings(folder / "headings.yaml", {})
    assert pipeline_config(model_dir=str(folder)).headings_path is None


@pytest.mark.parametrize("linked", ["folder", "file"])
def test_convert_reads_no_library_model_through_a_link(tmp_path, linked):
    # a library from someone else may point .pmparse/model (or its weights) at any model folder:
    # convert refuses it as train --library refuses to write through it, naming the link
    sources = write(tmp_path / "reports", POSTMORTEMS)
    lib = tmp_path / "lib"
    (lib / ".pmparse").mkdir(parents=True)
    model = lib / ".pmparse" / "model"
    if linked == "folder":
        model.symlink_to(DEFAULT_MODEL_DIR, target_is_directory=True)
        link = model
    else:
        model.mkdir()
        (model / META_FILE).write_bytes((DEFAULT_MODEL_DIR / META_FILE).read_bytes())
        link = model / MODEL_FILE
        link.symlink_to(DEFAULT_MODEL_DIR / MODEL_FILE)
    result = run("convert", sources, "-o", lib, "--no-progress", "--jobs", "1")
    assert result.exit_code == 2, result.output
    assert f"pmparse: {link}: expected a file or folder inside {lib}, found a symbolic link" in result.output
    assert not list(lib.glob("IL-*"))
    with pytest.raises(UnsafePathError):
        pipeline_config(library_dir=str(lib))
    # told to use the bundled model, convert does not read the library's at all
    assert pipeline_config(library_dir=str(lib), base_model=True).model_dir == str(DEFAULT_MODEL_DIR)


def test_train_library_writes_nothing_through_a_model_folder_that_is_a_link(reviewed, tmp_path):
    # a library from someone else's repository may hold .pmparse/model -> /somewhere: the model's
    # files (and the removal of a headings table no longer learnt) must not land there
    _, lib = reviewed
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "headings.yaml").write_text("mine\n", encoding="utf-8")
    (victim / "meta.json").write_text("mine\n", encoding="utf-8")
    (lib / ".pmparse" / "model").symlink_to(victim, target_is_directory=True)
    trained = run("train", "--library", lib)
    assert trained.exit_code == 2, trained.output
    assert "symbolic link" in trained.output
    assert sorted(p.name for p in victim.iterdir()) == ["headings.yaml", "meta.json"]
    assert (victim / "meta.json").read_text(encoding="utf-8") == "mine\n"


def test_convert_says_so_when_the_library_model_folder_lost_its_weights(tmp_path):
    # a curator who removed weights.npz by hand got the bundled model in silence
    sources = write(tmp_path / "reports", dict(list(POSTMORTEMS.items())[:1]))
    lib = tmp_path / "lib"
    assert run("convert", sources, "-o", lib, "--rules-only", "--no-progress").exit_code == 0
    folder = local_model_dir(lib)
    folder.mkdir()
    (folder / META_FILE).write_text("{}", encoding="utf-8")
    warnings = []
    assert pipeline_config(library_dir=str(lib), warn=warnings.append).model_dir == str(DEFAULT_MODEL_DIR)
    assert len(warnings) == 1 and MODEL_FILE in warnings[0] and "train --library" in warnings[0]
    write(sources, {"later.md": "# Later\n\nOn 2025-03-01 the export job failed for an hour.\n"})
    result = run("convert", sources, "-o", lib, "--no-progress")
    assert result.exit_code == 0 and f"found no {MODEL_FILE}" in result.output
    # asked for the bundled model, or with no model folder at all, nothing is said
    assert pipeline_config(library_dir=str(lib), base_model=True, warn=warnings.append) and len(warnings) == 1
    (folder / META_FILE).unlink()
    folder.rmdir()
    assert pipeline_config(library_dir=str(lib), warn=warnings.append) and len(warnings) == 1


def _shared_model(lib, weights=None, headings=None):
    """A library whose own model is the bundled one, as received from someone else: its weights
    changed by ``weights`` (meta.json's digest updated to match), its headings table ``headings``."""
    from pmparse.nlp.model_files import load_arrays, save_arrays

    folder = lib / ".pmparse" / "model"
    folder.mkdir(parents=True)
    meta = json.loads((DEFAULT_MODEL_DIR / META_FILE).read_text(encoding="utf-8"))
    arrays = load_arrays(DEFAULT_MODEL_DIR / MODEL_FILE)
    if weights is not None:
        weights(arrays)
    meta["weights_sha256"] = save_arrays(folder / MODEL_FILE, arrays)
    (folder / META_FILE).write_text(json.dumps(meta), encoding="utf-8")
    if headings is not None:
        (folder / "headings.yaml").write_text(headings, encoding="utf-8")
    return folder


@pytest.mark.parametrize("name, size", [(MODEL_FILE, 64 * 1024 * 1024 + 1), (META_FILE, 4 * 1024 * 1024 + 1),
                                        ("headings.yaml", 4 * 1024 * 1024 + 1)])
def test_convert_refuses_a_shared_library_model_file_too_large_to_read(tmp_path, name, size):
    # each was read whole (a library received from someone else may hold a file of gigabytes);
    # a sparse file: its size is refused before a byte is read
    sources = write(tmp_path / "reports", LATER)
    lib = tmp_path / "lib"
    folder = _shared_model(lib, headings="" if name == "headings.yaml" else None)
    with open(folder / name, "wb") as handle:
        handle.truncate(size)
    result = run("convert", sources, "-o", lib, "--no-progress", "--jobs", "1")
    assert result.exit_code == 2, result.output
    assert f"pmparse: {folder / name}: expected " in result.output
    assert f"found {size:,} bytes" in result.output and "Traceback" not in result.output
    assert not list(lib.glob("IL-*"))
    assert run("convert", sources, "-o", lib, "--no-progress", "--jobs", "1", "--base-model").exit_code == 0


def test_convert_refuses_a_shared_library_model_file_that_is_a_fifo(tmp_path):
    # a FIFO named meta.json: opening it for reading waited for a writer for ever
    sources = write(tmp_path / "reports", LATER)
    lib = tmp_path / "lib"
    folder = _shared_model(lib)
    (folder / META_FILE).unlink()
    os.mkfifo(folder / META_FILE)
    with fifo_guard(folder / META_FILE):
        result = run("convert", sources, "-o", lib, "--no-progress", "--jobs", "1")
    assert result.exit_code == 2, result.output
    assert f"pmparse: {folder / META_FILE}: expected " in result.output and "regular file" in result.output


@pytest.mark.parametrize("case", ["nan weights", "foreign heading regex"])
def test_convert_refuses_a_shared_library_model_it_cannot_trust(tmp_path, case):
    # fourth round of hostile inputs: NaN weights were used and every field came out empty, with
    # exit 0; a regex in the model's headings table would run over every heading converted
    import yaml
    from importlib import resources

    sources = write(tmp_path / "reports", LATER)
    lib = tmp_path / "lib"
    if case == "nan weights":
        folder = _shared_model(lib, weights=lambda arrays: arrays["head.coef"].fill(np.nan))
        named, expected = folder / MODEL_FILE, "expected finite weights"
    else:
        table = yaml.safe_load(resources.files("pmparse.resources").joinpath("headings.yaml").read_text(encoding="utf-8"))
        table["patterns"].insert(0, {"field": "root_cause", "regex": "^(a+)+$"})
        folder = _shared_model(lib, headings=yaml.safe_dump(table))
        named, expected = folder / "headings.yaml", "expected the packaged heading patterns"
    result = run("convert", sources, "-o", lib, "--no-progress", "--jobs", "1")
    assert result.exit_code == 2, result.output
    assert f"pmparse: {named}: {expected}" in result.output
    assert not list(lib.glob("IL-*"))
    # --base-model: the shipped model, and the library's is not read
    assert run("convert", sources, "-o", lib, "--no-progress", "--jobs", "1", "--base-model").exit_code == 0
    if case == "foreign heading regex":
        # the same folder named by --model is the user's own choice: its table is used as given
        other = tmp_path / "other"
        assert run("convert", sources, "-o", other, "--no-progress", "--jobs", "1", "--model", folder).exit_code == 0


def test_train_library_refuses_an_id_held_by_two_record_files(tmp_path):
    """Two record files of one id (``IL-0001.yaml`` and ``IL-0001.json``, as a git merge of two
    curators' libraries leaves them): training would learn from one of them and leave the other
    out without a word, so it refuses the library as convert and review do, writing nothing."""
    lib = tmp_path / "lib"
    assert run("convert", write(tmp_path / "reports", POSTMORTEMS), "-o", lib, "--rules-only",
               "--no-progress").exit_code == 0
    for path in sorted(lib.glob("IL-*.yaml")):
        path.write_text(path.read_text(encoding="utf-8").replace("status: suggested", "status: reviewed"),
                        encoding="utf-8")
    other = tmp_path / "other"
    assert run("convert", write(tmp_path / "later", LATER), "-o", other, "--rules-only", "--format", "json",
               "--no-progress").exit_code == 0
    (lib / "IL-0001.json").write_bytes((other / "IL-0001.json").read_bytes())
    before = {p: p.read_bytes() for p in lib.rglob("*") if p.is_file() and p.name != "lock"}

    result = run("train", "--library", lib)
    assert result.exit_code == 2, result.output
    assert "IL-0001.json and IL-0001.yaml" in result.output and "pmparse resolve" in result.output, result.output
    assert not local_model_dir(lib).exists()
    assert {p: p.read_bytes() for p in lib.rglob("*") if p.is_file() and p.name != "lock"} == before
