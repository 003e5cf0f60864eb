"""The shared corpus of real postmortems: where it is and which of its files are incidents.

The corpus is never copied into this repository: code refers to its files by path relative to
the corpus root, which is ``$PMPARSE_CORPUS``, or ``../shared/corpus`` next to the checkout. Some
sources name a file after the report's own title ("PM2024-002 - <title>.md"); a gold or label
line refers to such a file by a pattern that keeps its leading identifier and stands ``*`` for
the title (``dfds/PM2024-002 - *.md``), so the repository does not spell the report's words
(:func:`resolve_reference`).
"""

from __future__ import annotations

import fnmatch
import json
import os
from pathlib import Path
from typing import Iterator, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pmparse.errors import UsageError
from pmparse.rules.headings import SAFE_LOADER


def project_root() -> Path:
    """The project folder whose ``corpus/`` and ``eval/`` training and evaluation read:
    ``$PMPARSE_PROJECT``, else the working folder or the nearest parent holding
    ``corpus/manifest.yaml``, else the working folder. Never the package's own location, so an
    installed pmparse reads the data of the checkout it is run in."""
    if os.environ.get("PMPARSE_PROJECT"):
        return Path(os.environ["PMPARSE_PROJECT"])
    here = Path.cwd().resolve()
    return next((p for p in (here, *here.parents) if (p / "corpus" / "manifest.yaml").is_file()), here)


#: The project folder (see :func:`project_root`), fixed when pmparse is imported.
REPO_ROOT = project_root()
DEFAULT_MANIFEST = REPO_ROOT / "corpus" / "manifest.yaml"


class SourceRule(BaseModel):
    """Which files of one source folder are incidents."""

    model_config = ConfigDict(extra="forbid")
    include: list[str] = Field(description="Globs of incident files, relative to the corpus root.")
    exclude: list[str] = Field(default_factory=list, description="Globs of files that are not incidents.")
    url_base: str | None = Field(default=None, description="Public address of the source repository's files "
                                                           "at the copied commit (None: not a repository copy).")
    url_root: str | None = Field(default=None, description="Corpus folder that holds the copy of the repository "
                                                           "root (what ``url_base`` stands for).")
    group: str | None = Field(default=None, description="Hold-out group: sources of one author and template "
                                                        "are held out together (None: the source alone).")
    style: Literal["templated", "free-form"] = Field(
        default="templated", description="How the source's reports are written: a fixed section template, or "
                                         "free-form prose (blog posts, disclosures, logs); reports split by it.")


class Manifest(BaseModel):
    """The corpus manifest (``corpus/manifest.yaml``)."""

    model_config = ConfigDict(extra="forbid")
    version: int = Field(ge=1, description="Manifest version.")
    sources: dict[str, SourceRule] = Field(description="Source name to file rules.")
    extra: list[str] = Field(default_factory=list, description="Multi-incident files: converted, never trained on.")


def corpus_root(explicit: str | os.PathLike | None = None) -> Path:
    """The corpus root: the argument, ``$PMPARSE_CORPUS``, or ``../shared/corpus`` beside the checkout.

    Raises:
        UsageError: the folder does not exist.
    """
    candidates = [explicit, os.environ.get("PMPARSE_CORPUS"), Path.cwd().parent / "shared" / "corpus",
                  REPO_ROOT.parent / "shared" / "corpus"]
    for candidate in candidates:
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
        if candidate and (explicit or candidate == os.environ.get("PMPARSE_CORPUS")):
            raise UsageError("expected a corpus folder, found none", str(candidate))
    raise UsageError("expected ../shared/corpus or $PMPARSE_CORPUS, found neither (use --corpus)")


def load_manifest(path: Path = DEFAULT_MANIFEST) -> Manifest:
    """Load and validate the corpus manifest."""
    try:
        return Manifest.model_validate(yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER))
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise UsageError(f"expected a valid corpus manifest, found: {exc}", str(path)) from exc


def hold_out_groups(manifest: Manifest | None = None) -> dict[str, str]:
    """Each source's hold-out group (its ``group``, else the source itself): leave-one-source-out
    holds out a group at once, because sources of one author and template would otherwise teach
    each other's held-out documents their words."""
    manifest = manifest or load_manifest()
    return {source: rule.group or source for source, rule in manifest.sources.items()}


def source_styles(manifest: Manifest | None = None) -> dict[str, str]:
    """Each source's writing style (``templated`` or ``free-form``)."""
    manifest = manifest or load_manifest()
    return {source: rule.style for source, rule in manifest.sources.items()}


def incident_files(root: Path, manifest: Manifest | None = None, include_extra: bool = False) -> list[tuple[str, str]]:
    """Incident files of the corpus as ``(source, relative_path)``, sorted.

    Args:
        root: The corpus root.
        manifest: The manifest; the repository's when None.
        include_extra: Also list multi-incident files.
    """
    manifest = manifest or load_manifest()
    found: list[tuple[str, str]] = []
    for source, rule in manifest.sources.items():
        for pattern in rule.include:
            for path in sorted(root.glob(pattern)):
                if not path.is_file():
                    continue
                rel = path.relative_to(root).as_posix()
                if any(fnmatch.fnmatchcase(rel, ex) for ex in rule.exclude):
                    continue
                found.append((source, rel))
    if include_extra:
        found.extend(("extra", rel) for rel in manifest.extra if (root / rel).is_file())
    return sorted(set(found))


def resolve_reference(root: Path, ref: str) -> str | None:
    """The corpus path a gold or label line's ``path`` names: the path itself, or the one file its
    ``*`` pattern matches (None when the pattern matches no file or several).

    A plain path is returned as written, whether or not the file exists (reading it reports that).
    """
    if "*" not in ref:
        return ref
    matches = [p for p in Path(root).glob(ref) if p.is_file()]
    return matches[0].relative_to(root).as_posix() if len(matches) == 1 else None


def folder_rows(folder: Path) -> Iterator[dict]:
    """The JSON objects of every ``*.jsonl`` file of ``folder`` (none when it does not exist)."""
    for file in sorted(Path(folder).glob("*.jsonl")) if Path(folder).is_dir() else []:
        for line in file.read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else None
            if isinstance(row, dict):
                yield row


def referenced_paths(folder: Path, root: Path | None = None) -> set[str]:
    """Corpus paths the lines of ``folder``'s JSONL files name (gold or development sets); with
    ``root``, a path pattern stands for the file it names (:func:`resolve_reference`)."""
    values = {row["path"] for row in folder_rows(folder) if isinstance(row.get("path"), str) and row["path"]}
    return {(resolve_reference(root, v) or v) for v in values} if root is not None else values


def path_problem(path: str) -> str | None:
    """Why a label or span line's corpus path is not a plain relative path, or None."""
    parts = path.split("/")
    # the path is compared with gold paths as written: "./dfds/x.md" or "dfds//x.md" would slip a
    # gold document past that check (and be grouped under a source named "."); "../x" leaves the corpus
    if path.startswith("/") or "\\" in path or any(p in ("", ".", "..") for p in parts):
        return f"expected a plain path relative to the corpus root, found {path!r}"
    return None


def source_of(rel_path: str) -> str:
    """The source name of a corpus path (its first folder)."""
    return rel_path.split("/", 1)[0]


def source_url(path: str, manifest: Manifest | None = None) -> str | None:
    """The public address of a corpus file (a path relative to the corpus root), when the
    manifest says where its source repository is published; None otherwise."""
    from pmparse.ingest.read import join_url

    manifest = manifest or load_manifest()
    for rule in manifest.sources.values():
        if rule.url_base and rule.url_root and path.startswith(rule.url_root):
            return join_url(rule.url_base, path[len(rule.url_root):])
    return None

