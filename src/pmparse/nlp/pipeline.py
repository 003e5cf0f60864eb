"""The spaCy pipeline: ``spacy.blank("en")`` plus the pmparse components.

``make_doc`` turns an :class:`~pmparse.ingest.read.Ingested` source into a Doc whose text is exactly the
source text, so every span's character offsets are evidence offsets.
"""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import spacy
from spacy.language import Language
from spacy.tokens import Doc

from pmparse import __version__
from pmparse.errors import UsageError
from pmparse.ingest.read import Ingested
from pmparse.locations import is_url
from pmparse.nlp.components import classifier as _classifier  # noqa: F401  (registers the factories)
from pmparse.nlp.components import facts as _facts  # noqa: F401
from pmparse.nlp.components import fields as _fields  # noqa: F401
from pmparse.nlp.components import keywords as _keywords  # noqa: F401
from pmparse.nlp.components import sectionizer as _sectionizer  # noqa: F401
from pmparse.nlp.components import tagger as _tagger  # noqa: F401
from pmparse.nlp.components import units as _units  # noqa: F401
from pmparse.nlp.components.classifier import META_FILE, MODEL_FILE  # noqa: E402
from pmparse.nlp.heading_model import META_FILE as HEADINGS_META
from pmparse.nlp.model_files import WEIGHTS_READ_LIMIT
from pmparse.nlp.tokenizer import GuardedTokenizer, lean_lexemes
from pmparse.util import read_limited

#: A heading table a model folder may carry (``pmparse train --library`` writes one when the
#: curator's cards name sections the packaged table does not know); used with that model.
MODEL_HEADINGS = "headings.yaml"

#: Where ``pmparse train`` writes and ``convert`` looks for the field model by default.
# package data (pyproject), so a wheel installs it: importlib.resources, never the source tree
DEFAULT_MODEL_DIR = Path(str(resources.files("pmparse") / "models" / "fields"))


@dataclass(frozen=True)
class PipelineConfig:
    """What the pipeline is built from.

    Attributes:
        model_dir: Folder of the trained unit classifier; None for rules only.
        headings_path: A heading synonym table replacing the packaged one.
        taxonomy_path: A taxonomy replacing or extending the packaged one.
        labeler: ``fields`` (the real labeler) or ``keywords`` (the evaluation baseline).
        categories_dir: Folder of the category model; None for the bundled one.
        tagger: False to leave tags out (category training builds its inputs without them).
    """

    model_dir: str | None = None
    headings_path: str | None = None
    taxonomy_path: str | None = None
    labeler: str = "fields"
    categories_dir: str | None = None
    tagger: bool = True


def pipeline_config(model_dir: str | None = None, rules_only: bool = False, taxonomy_path: str | None = None,
                    headings_path: str | None = None, warn=None, library_dir: str | None = None,
                    base_model: bool = False) -> PipelineConfig:
    """Resolve what the pipeline is built from.

    Args:
        model_dir: A field model folder; when None, the library's own model (``library_dir``),
            else the bundled one.
        rules_only: Use heading rules only.
        taxonomy_path: A taxonomy YAML extending or replacing the packaged one.
        headings_path: A heading synonym table replacing the packaged one; when None, the
            chosen model's own (:data:`MODEL_HEADINGS`), when it has one.
        warn: Called with a message when the bundled model is missing and rules are used.
        library_dir: The library converted into: its own model (``pmparse train --library``,
            ``LIBRARY/.pmparse/model``) is used when it has one.
        base_model: Use the bundled model even where the library has its own.

    Raises:
        UsageError: ``model_dir`` was given and holds no model.
        RulesError: ``taxonomy_path`` is unreadable or invalid (checked before any input is read).
    """
    if taxonomy_path is not None:
        from pmparse.rules.taxonomy import load_taxonomy

        load_taxonomy(taxonomy_path)
    chosen: str | None = None
    if not rules_only:
        if model_dir is not None:
            if not (Path(model_dir) / MODEL_FILE).is_file():
                raise UsageError(f"expected a field model ({MODEL_FILE}), found none", model_dir)
            chosen = str(model_dir)
        elif library_dir is not None and not base_model and _local_model(library_dir) is not None:
            chosen = _local_model(library_dir)
        elif (DEFAULT_MODEL_DIR / MODEL_FILE).is_file():
            chosen = str(DEFAULT_MODEL_DIR)
            if library_dir is not None and not base_model and warn is not None:
                _warn_partial_local_model(library_dir, warn)
        elif warn is not None:
            warn(f"no field model at {DEFAULT_MODEL_DIR}; using heading rules only (run 'pmparse train')")
    if headings_path is None and chosen is not None and (Path(chosen) / MODEL_HEADINGS).is_file():
        headings_path = str(Path(chosen) / MODEL_HEADINGS)
        if model_dir is None:
            # a library's own model carries the headings its curator's cards taught it; the
            # library may come from someone else, so its file is checked here, before any input
            # is read. A folder named by --model is the user's own choice, its table theirs.
            from pmparse.rules.headings import check_learnt_headings

            check_learnt_headings(Path(headings_path))
    return PipelineConfig(model_dir=chosen, headings_path=headings_path, taxonomy_path=taxonomy_path)


def _warn_partial_local_model(library_dir: str, warn) -> None:
    """Tell ``warn`` when the library's model folder holds files but no weights: a model removed
    by hand in part was passed over in silence, the batch converted with the bundled one."""
    from pmparse.paths import local_model_dir

    folder = local_model_dir(library_dir)
    if folder.is_dir() and any(folder.iterdir()):
        warn(f"expected the library's own field model in {folder}, found no {MODEL_FILE} there; converting with "
             f"the bundled model (pmparse train --library {library_dir} makes it again; removing the folder "
             "silences this)")


def _local_model(library_dir: str) -> str | None:
    """The folder of a library's own field model, when it has one."""
    from pmparse.paths import local_model_dir

    folder = local_model_dir(library_dir)
    return str(folder) if (folder / MODEL_FILE).is_file() else None


def _stamped_files(config: PipelineConfig) -> list[tuple[str, Any]]:
    """``(label, file)`` of everything :func:`fingerprint` reads; a file may be missing."""
    from pmparse.nlp.components.tagger import DEFAULT_MODEL_DIR as CATEGORIES_DIR

    packaged = resources.files("pmparse.resources")
    files: list[tuple[str, Any]] = [
        (f"resources/{entry.name}", entry) for entry in sorted(packaged.iterdir(), key=lambda item: item.name)
        if entry.is_file() and entry.name.endswith((".yaml", ".json"))
    ]
    for label, path in (("headings", config.headings_path), ("taxonomy", config.taxonomy_path)):
        if path is not None:
            files.append((label, Path(path)))
    if config.model_dir:
        files.append(("fields", Path(config.model_dir) / META_FILE))
        files.append(("field headings", Path(config.model_dir) / HEADINGS_META))
    if config.tagger:
        files.append(("categories", Path(config.categories_dir or CATEGORIES_DIR) / META_FILE))
    return files


def fingerprint(config: PipelineConfig) -> str:
    """16 hex digits that change when anything but the source text would change a suggestion.

    Covers the pmparse version, every packaged rule file (headings, taxonomy, cues, keywords,
    organisations, boilerplate), the ``--taxonomy`` and heading files given, the labeler, and the
    field and tag models (their ``meta.json``, which holds the sha256 of their weights). The
    files are read again only when one's stat (times, size, inode) changed (``convert`` asks once
    per input).
    """
    files = _stamped_files(config)
    stats = []
    for label, path in files:
        try:
            st = os.stat(path)  # a packaged resource in a zip has no stat: read it every time
            stats.append((label, st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino))
        except (OSError, TypeError):
            stats.append((label, None, None, None, None))
    # a missing --taxonomy or model file is part of the key (it appears: the key changes); a
    # packaged resource without a stat is not a file on disk, so nothing tells when it changed
    if any(stat[1] is None for stat in stats if stat[0].startswith("resources/")):
        return _fingerprint(config, files)
    return _fingerprint_of_stats(config, tuple(stats))


@functools.lru_cache(maxsize=16)
def _fingerprint_of_stats(config: PipelineConfig, stats: tuple) -> str:
    return _fingerprint(config, _stamped_files(config))


def _fingerprint(config: PipelineConfig, files: list[tuple[str, Any]]) -> str:
    digest = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        digest.update(label.encode("utf-8") + b"\0" + hashlib.sha256(data).digest())

    add("version", __version__.encode("utf-8"))
    add("labeler", f"{config.labeler} tagger={config.tagger}".encode("utf-8"))
    for label, path in files:
        try:
            # a model's meta.json or headings.yaml may come with a library from someone else: read
            # bounded, and never a FIFO (its loader refuses both, naming the file)
            add(label, path.read_bytes() if not isinstance(path, Path) else read_limited(path, WEIGHTS_READ_LIMIT))
        except OSError:
            add(label, b"(unreadable)")
    return digest.hexdigest()[:16]


def build(config: PipelineConfig = PipelineConfig()) -> Language:
    """Build the pipeline for ``config`` (a blank English tokenizer plus pmparse components)."""
    nlp = spacy.blank("en")
    nlp.meta["pmparse_fingerprint"] = fingerprint(config)
    # a postmortem is one document; the default limit guards the parser, which is not used here
    nlp.max_length = 10**9
    # spaCy's affix rules cost quadratic time on long punctuation runs: see pmparse/tokenizer.py
    nlp.tokenizer = GuardedTokenizer(nlp.tokenizer)
    lean_lexemes(nlp.vocab)
    # the heading model travels with the field model it was trained with; a rules-only pipeline
    # (and the headings-alone baseline) reads headings through the table alone
    nlp.add_pipe("pmparse_sectionizer", config={"headings_path": config.headings_path,
                                                 "heading_model_dir": config.model_dir if config.labeler == "fields"
                                                 else None})
    nlp.add_pipe("pmparse_units")
    if config.labeler == "keywords":
        nlp.add_pipe("pmparse_keyword_labeler")
    else:
        if config.model_dir:
            nlp.add_pipe("pmparse_unit_classifier", config={"model_dir": config.model_dir})
        # the labeler settings were tuned with the model and travel in its meta.json
        nlp.add_pipe("pmparse_field_labeler", config=_classifier.labeler_settings(config.model_dir))
    nlp.add_pipe("pmparse_facts")
    if config.tagger:
        nlp.add_pipe("pmparse_tagger", config={"taxonomy_path": config.taxonomy_path,
                                                "model_dir": config.categories_dir})
    return nlp


def get(config: PipelineConfig = PipelineConfig()) -> Language:
    """The pipeline for ``config``, built once per process and again when its rules or models change.

    The fingerprint is part of the cache key: a taxonomy or model file rewritten while a process
    runs (a notebook, a test) is read again instead of being served from the cache.
    """
    stamp = fingerprint(config)
    if _served.get(config) != stamp:
        # rule files changed since the last pipeline served for this config (or none was): the
        # loaders components call while they work must read the files as they are now, also
        # when a pipeline built before is served again (A, then B, then A again)
        _clear_rule_caches()
        _served[config] = stamp
    return _cached(config, stamp)


#: The fingerprint of the pipeline last served for each config.
_served: dict[PipelineConfig, str] = {}


def _clear_rule_caches() -> None:
    from pmparse.nlp.boilerplate import load as load_boilerplate
    from pmparse.rules.cues import load_cues
    from pmparse.rules.headings import load_headings
    from pmparse.rules.taxonomy import load_organisations, load_taxonomy

    for loader in (load_headings, load_taxonomy, load_organisations, load_cues, load_boilerplate):
        loader.cache_clear()
    _facts.clear_gazetteers()


@functools.lru_cache(maxsize=4)
def _cached(config: PipelineConfig, stamp: str) -> Language:
    return build(config)  # which stamps nlp.meta itself


get.cache_clear = _cached.cache_clear  # type: ignore[attr-defined]


def model_name(nlp: Language) -> str | None:
    """Name and version of the field model in ``nlp``, or None for rules only."""
    if "pmparse_unit_classifier" not in nlp.pipe_names:
        return None
    return nlp.get_pipe("pmparse_unit_classifier").model_name  # type: ignore[attr-defined]


def make_doc(nlp: Language, source: Ingested) -> Doc:
    """A Doc over the source text, carrying the ingest structure in ``doc.user_data``."""
    doc = nlp.make_doc(source.text)
    doc.user_data["pmparse_text"] = source.text  # Doc.text rebuilds it from tokens on every read
    doc.user_data["pmparse_location"] = source.location
    doc.user_data["pmparse_url"] = source.url or (source.location if is_url(source.location) else None)
    doc.user_data["pmparse_format"] = source.format
    doc.user_data["pmparse_masked"] = list(source.masked)
    doc.user_data["pmparse_front_matter"] = dict(source.front_matter)
    front = [region for region in source.masked if region[0] == 0]
    doc.user_data["pmparse_front_matter_region"] = front[0] if source.front_matter and front else None
    doc.user_data["pmparse_meta"] = dict(source.meta)
    return doc


def analyse(nlp: Language, source: Ingested) -> Doc:
    """Run the whole pipeline over one ingested source."""
    doc = make_doc(nlp, source)
    for _, component in nlp.pipeline:
        doc = component(doc)
    return doc


def version_info(nlp: Language) -> dict[str, str | None]:
    """What produced a suggestion: pmparse version, model name and pipeline fingerprint."""
    return {"version": __version__, "model": model_name(nlp), "fingerprint": nlp.meta.get("pmparse_fingerprint")}
