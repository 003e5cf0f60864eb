"""Model files: numeric arrays in an uncompressed ``.npz`` and settings in JSON, read without
running code from the file (``allow_pickle=False``), each weights file checked against the digest
its ``meta.json`` names. The linear models (:mod:`pmparse.nlp.linear`) and the heading and
curvature models keep their weights this way.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np

from pmparse.errors import ModelError


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
        ModelError: missing, of another digest, not an npz archive, or holding object arrays.
    """
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError as exc:
        raise ModelError("expected a weights file, found none", str(path)) from exc
    except OSError as exc:
        raise ModelError(f"expected a readable weights file, found {exc}", str(path)) from exc
    if sha256 is not None and hashlib.sha256(raw).hexdigest() != sha256:
        raise ModelError("expected the weights meta.json was written with (sha256 differs); retrain or restore "
                         "both files together", str(path))
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as archive:
            return {key: archive[key] for key in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise ModelError(f"expected numeric weights (npz), found an unreadable file: {exc}", str(path)) from exc


def read_json(path: Path) -> dict:
    """A JSON object from ``path``.

    Raises:
        ModelError: missing, unreadable or not an object.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelError(f"expected a readable JSON file, found {exc}", str(path)) from exc
    if not isinstance(data, dict):
        raise ModelError(f"expected a JSON object, found {type(data).__name__}", str(path))
    return data
