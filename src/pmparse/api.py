"""The Python API: one text to a card, or a batch into a library, as the command line does.

    import pmparse
    card = pmparse.extract(open("postmortem.md", encoding="utf-8").read())
    report = pmparse.convert(["postmortems/"], "library")
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable

from pmparse.batch.convert import ConvertReport
from pmparse.batch.convert import convert as _convert
from pmparse.card.build import build_card
from pmparse.card.schema import Card
from pmparse.errors import DecodeInputError, UsageError
from pmparse.ingest.read import Format, ingest_bytes, is_html_page
from pmparse.locations import is_url, url_parts
from pmparse.nlp.pipeline import PipelineConfig, analyse, get, pipeline_config, version_info
from pmparse.util import MAX_BYTES_LIMIT

_FORMATS = ("md", "txt", "html")
_CARD_ID = re.compile(r"IL-\d{4}")  # the schema's pattern for a card id


def extract(text: str, *, url: str | None = None, fmt: Format | None = None, card_id: str = "IL-0001",
            config: PipelineConfig | None = None) -> Card:
    """Turn one postmortem's text into a draft card.

    Args:
        text: The postmortem: markdown, plain text or HTML.
        url: Where it is published; the card cites it (and it counts as evidence of the
            organisation). Nothing is fetched.
        fmt: ``"md"``, ``"txt"`` or ``"html"``; when None, ``"html"`` for a whole HTML page (a
            doctype or ``<html>`` first), else ``"md"``.
        card_id: The card's id.
        config: The pipeline to use; the bundled models when None.

    Returns:
        The card, every item with its evidence offsets into ``text`` (for HTML: into the
        extracted text, kept in the card's source; for a text holding a carriage return: into
        ``text`` with each CRLF or lone CR read as ``"\n"``, as a file is read, kept there too).

    Raises:
        UsageError: ``text`` is not a string (bytes: decode them first), ``fmt`` is not one of the
            three formats, ``card_id`` is not ``IL-`` and four digits, or ``url`` does not parse.
        InputError: the text cannot be read (for example it holds NUL bytes, or lone surrogates
            that no UTF-8 file can hold).
    """
    if not isinstance(text, str):
        # bytes or None reached text.encode and surfaced as an AttributeError
        raise UsageError(f"expected text as a str, found {type(text).__name__}"
                         + (" (decode the bytes first)" if isinstance(text, (bytes, bytearray)) else ""))
    if fmt is not None and fmt not in _FORMATS:
        raise UsageError(f"expected fmt to be one of {', '.join(_FORMATS)}, found {fmt!r}")
    if not isinstance(card_id, str) or not _CARD_ID.fullmatch(card_id):
        # pydantic's ValidationError came only after the whole analysis
        raise UsageError(f"expected card_id to be 'IL-' and four digits, found {card_id!r}")
    if url is not None and is_url(url) and url_parts(url) is None:
        raise UsageError(f"expected url to be an http(s) address that parses, found {url!r} (its host or port)")
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError as error:
        # a lone surrogate (a str decoded with surrogateescape, or a broken JSON string) is no
        # text a file could hold: the same refusal a file that is not UTF-8 gets
        raise DecodeInputError(f"expected text that UTF-8 can encode, found a lone surrogate at offset "
                               f"{error.start}", url or "<text>") from None
    fmt = fmt or ("html" if is_html_page(raw) else "md")
    location = url or f"<text>.{fmt}"
    source = ingest_bytes(raw, location, fmt=fmt)
    if not source.extracted and "\r" in text:
        # its line breaks were read as "\n", as a file's are: the offsets index that text, not
        # ``text``, so the card keeps it (as it keeps an HTML page's extracted text)
        source.extracted = True
    nlp = get(config or pipeline_config())
    return build_card(analyse(nlp, source), source, card_id, version_info(nlp))


def convert(inputs: Iterable[str | Path], library: str | Path, **options) -> ConvertReport:
    """Convert postmortems into draft records of a library, as ``pmparse convert`` does.

    Args:
        inputs: Files, folders, globs and http(s) URLs; a single string or path is one input.
        library: The library folder (created when missing).
        **options: Those of :func:`pmparse.batch.convert.convert`: ``fmt`` ("yaml" or "json"),
            ``force``, ``jobs``, ``max_bytes``, ``errors_path``, ``url_base``, ``timeout``, ``isolate``,
            ``config`` (a :class:`~pmparse.nlp.pipeline.PipelineConfig`; by default the library's own
            field model when ``pmparse train --library`` made one, else the bundled one).

    Returns:
        The batch summary: one result per input (converted, updated, unchanged, pending or
        failed, with the reason) and the counts.
    """
    if isinstance(inputs, (str, Path)):
        # iterated, "postmortems/" was ten inputs, the last of them "/": the whole disk
        inputs = [inputs]
    # what the command line's option types refuse: fmt="md" (the extract's meaning) wrote YAML in
    # silence, and jobs=0 converted in this process
    if options.get("fmt", "yaml") not in ("yaml", "json"):
        raise UsageError(f"expected fmt to be 'yaml' or 'json' (the records' format), found {options['fmt']!r}")
    for name in ("jobs", "max_bytes"):
        value = options.get(name, 1)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise UsageError(f"expected {name} to be a whole number of 1 or more, found {value!r}")
    if options.get("max_bytes", 1) > MAX_BYTES_LIMIT:
        raise UsageError(f"expected max_bytes to be at most {MAX_BYTES_LIMIT} "
                         f"({MAX_BYTES_LIMIT >> 20} MiB: a record holds its "
                         f"source's text, and records are read back up to 128 MiB), found {options['max_bytes']}")
    timeout = options.get("timeout", 1)
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0):
        raise UsageError(f"expected timeout to be seconds above 0 or None, found {timeout!r}")
    if isinstance(options.get("exclude"), str):
        options["exclude"] = (options["exclude"],)  # a glob iterated: "*.txt" gave "*", excluding all
    options.setdefault("config", pipeline_config(library_dir=str(library)))
    return _convert([str(i) for i in inputs], library, **options)
