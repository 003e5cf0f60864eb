"""Model files: numeric arrays in an uncompressed ``.npz`` and settings in JSON, read without
running code from the file (``allow_pickle=False``), each weights file checked against the digest
its ``meta.json`` names. The linear models (:mod:`pmparse.nlp.linear`) and the heading and
curvature models keep their weights this way.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import zipfile
from pathlib import Path

import numpy as np

from pmparse.errors import ModelError
from pmparse.util import FileTooLarge, read_limited
from pmparse.yaml_problems import merge_conflict_line

#: The largest weight a model file may hold, in size: a trained model's are below 10 (a curvature
#: intercept about 1,000); a model from a library shared by someone else holding NaN, infinity or
#: 1e38 was used and drafted empty fields without a word.
MAX_WEIGHT = 1e6

#: The largest weights file read: the bundled models' are 6-7 MB, a library's own (``pmparse
#: train --library``) the same size; one received with a library was read whole, of any size.
WEIGHTS_READ_LIMIT = 64 * 1024 * 1024
#: The largest ``meta.json`` (or other model settings) read: pmparse writes them under 200 kB.
META_READ_LIMIT = 4 * 1024 * 1024


def read_model_file(path: Path, limit: int, what: str) -> bytes:
    """The bytes of a model file, read no further than ``limit``.

    Raises:
        ModelError: missing, unreadable, not a regular file (a FIFO blocked the command for
            ever), or larger than ``limit`` (never read).
    """
    try:
        return read_limited(path, limit)
    except FileNotFoundError as exc:
        raise ModelError(f"expected {what}, found none", str(path)) from exc
    except FileTooLarge as exc:
        raise ModelError(f"expected {what} of at most {limit >> 20} MiB (pmparse writes none larger), found "
                         f"{exc.size:,} bytes (a library from someone else? remove the file)", str(path)) from exc
    except OSError as exc:
        raise ModelError(f"expected {what}, found {exc.strerror or exc}", str(path)) from exc


def save_arrays(path: Path, arrays: dict[str, np.ndarray]) -> str:
    """Write numeric arrays to an uncompressed ``.npz`` (no object arrays, so nothing is pickled).

    Uncompressed because start-up counts: inflating the two bundled models took about 0.09 s of a
    convert run's start-up, reading them stored takes about a third of that, and git compresses
    the file in its own store anyway.

    Returns:
        The sha256 of the file written, for the model's ``meta.json``: loading checks it, so
        weights and settings from different trainings never load together.
    """
    for key, value in arrays.items():
        if np.asarray(value).dtype == object:
            raise ModelError(f"expected numeric arrays only, found an object array {key!r}", str(path))
    # numpy's savez stamps each member with the current time; a fixed stamp and key order make
    # the same training give the same bytes (and digest)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for key in sorted(arrays):
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            with archive.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asarray(arrays[key]), allow_pickle=False)
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def load_arrays(path: Path, sha256: str | None = None) -> dict[str, np.ndarray]:
    """Read an ``.npz`` written by :func:`save_arrays` (``allow_pickle=False``).

    Args:
        path: The file.
        sha256: Its expected digest; None to skip the check.

    Raises:
        ModelError: missing, of another digest, not an npz archive, holding object arrays, a
            member larger than the file or compressed, or weights that are not finite or over
            :data:`MAX_WEIGHT` in size.
    """
    raw = read_model_file(Path(path), WEIGHTS_READ_LIMIT, "a weights file")
    if sha256 is not None and hashlib.sha256(raw).hexdigest() != sha256:
        raise ModelError("expected the weights meta.json was written with (sha256 differs); retrain or restore "
                         "both files together", str(path))
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as members:
            for info in members.infolist():
                _check_member(members, info)
        with np.load(io.BytesIO(raw), allow_pickle=False) as archive:
            arrays = {key: archive[key] for key in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise ModelError(f"expected numeric weights (npz), found an unreadable file: {exc}", str(path)) from exc
    for key, value in arrays.items():
        if value.dtype.kind not in "biuf":
            raise ModelError(f"expected numeric arrays only, found {key!r} of type {value.dtype}", str(path))
        # the largest compared as a Python float: MAX_WEIGHT cast to float16 (the curvature's
        # hessian) overflowed, a RuntimeWarning on every train --library
        if value.dtype.kind == "f" and value.size and not (np.isfinite(value).all()
                                                         and float(np.abs(value).max()) <= MAX_WEIGHT):
            raise ModelError(f"expected finite weights of at most {MAX_WEIGHT:g} in size, found "
                             f"{'NaN or infinity' if not np.isfinite(value).all() else 'larger ones'} in {key!r}",
                             str(path))
    return arrays


def _check_member(members: zipfile.ZipFile, info: zipfile.ZipInfo) -> None:
    """Refuse an archive member whose header promises more than it holds, before numpy allocates it.

    A weights file may come with a library from someone else: a 200-byte member declaring an
    array of a million by a million floats made numpy try to allocate 7 TiB, and a compressed
    member may inflate without bound. :func:`save_arrays` writes every member stored.

    Raises:
        ValueError: compressed, not an array, or smaller than its header says.
    """
    if info.compress_type != zipfile.ZIP_STORED:
        raise ValueError(f"{info.filename!r} is compressed (pmparse stores weights uncompressed)")
    with members.open(info) as member:
        version = np.lib.format.read_magic(member)
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, dtype = read_header(member)
        header = member.tell()
    if dtype.hasobject:
        raise ValueError(f"{info.filename!r} holds objects")
    if math.prod(shape) * dtype.itemsize > info.file_size - header:
        raise ValueError(f"{info.filename!r} declares an array of shape {shape}, larger than its {info.file_size} bytes")


def read_json(path: Path) -> dict:
    """A JSON object from ``path``.

    Raises:
        ModelError: missing, unreadable, not an object, nested too deep, or holding a number
            that is not finite (``NaN``, ``Infinity``, ``1e999``) or an integer past float's range.
    """
    raw = read_model_file(Path(path), META_READ_LIMIT, "a model's settings file (JSON)")
    text = None
    try:
        text = raw.decode("utf-8")
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite, parse_int=_finite_int)
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError is a ValueError
        conflict = merge_conflict_line(text) if text is not None else None
        if conflict is not None:
            # a library's model trained by two curators apart and merged by git: "Expecting property
            # name" said nothing of why, nor what to do
            raise ModelError(f"expected a readable JSON file, found git's conflict markers from line {conflict} (two "
                             "models trained apart, merged by git): keep one side's whole model folder ('git checkout "
                             "--ours' or '--theirs' of it) or remove it, then run 'pmparse train --library' again "
                             "if wanted ('pmparse resolve' names each such file)",
                             str(path)) from exc
        raise ModelError(f"expected a readable JSON file, found {exc}", str(path)) from exc
    except RecursionError as exc:
        raise ModelError("expected a readable JSON file, found values nested too deep to read", str(path)) from exc
    if not isinstance(data, dict):
        raise ModelError(f"expected a JSON object, found {type(data).__name__}", str(path))
    return data


def _no_constant(name: str) -> float:
    """Refuse ``NaN`` and ``Infinity``, which Python's json reads (a model's meta from a shared
    library set a threshold of NaN: a spaCy error naming no file)."""
    raise ValueError(f"{name}, where a finite number was expected")


def _finite_int(text: str) -> int:
    """A JSON integer that a float can hold: settings read as ``float(value)``, and one of 400
    digits raised OverflowError there (a traceback naming no file)."""
    value = int(text)
    try:
        float(value)
    except OverflowError:
        raise ValueError(f"{text[:12]}... ({len(text)} digits), where a finite number was expected") from None
    return value


def _finite(text: str) -> float:
    """A JSON number that is finite (``1e999`` reads as infinity)."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text}, where a finite number was expected")
    return value
