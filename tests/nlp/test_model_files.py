"""Model files from a library shared by someone else (fourth round of hostile inputs): weights
that are not finite, archive members that promise more than they hold, meta files with NaN or
nesting past Python's recursion limit are refused naming the file, never used or crashed on."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from pmparse.errors import ModelError
from pmparse.nlp.model_files import MAX_WEIGHT, load_arrays, read_json, save_arrays


def test_numeric_finite_weights_load(tmp_path):
    digest = save_arrays(tmp_path / "w.npz", {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.array([1, 2])})
    arrays = load_arrays(tmp_path / "w.npz", digest)
    assert arrays["a"].shape == (2, 3) and arrays["b"].tolist() == [1, 2]


@pytest.mark.parametrize("bad, found", [(np.nan, "NaN or infinity"), (np.inf, "NaN or infinity"),
                                        (-np.inf, "NaN or infinity"), (MAX_WEIGHT * 10, "larger ones")])
def test_weights_that_are_not_finite_or_huge_are_refused(tmp_path, bad, found):
    weights = np.zeros((3, 4), dtype=np.float32)
    weights[1, 2] = bad
    digest = save_arrays(tmp_path / "w.npz", {"head.coef": weights})
    with pytest.raises(ModelError, match=found) as caught:
        load_arrays(tmp_path / "w.npz", digest)
    assert caught.value.path == str(tmp_path / "w.npz") and "'head.coef'" in caught.value.message


def test_half_precision_arrays_load_without_a_warning(tmp_path):
    # curvature.npz keeps its hessian in float16 (pmparse train writes it, train --library reads
    # it): comparing it with MAX_WEIGHT, beyond float16's range, warned "overflow encountered in
    # cast" on every train --library, and failed under warnings-as-errors (PYTHONWARNINGS=error)
    import warnings

    digest = save_arrays(tmp_path / "c.npz", {"hessian": np.array([[0.5, 4.9], [0.0, 65504.0]], dtype=np.float16)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        arrays = load_arrays(tmp_path / "c.npz", digest)
    assert arrays["hessian"].dtype == np.float16 and float(arrays["hessian"].max()) == 65504.0
    save_arrays(tmp_path / "c.npz", {"hessian": np.array([np.inf], dtype=np.float16)})
    with pytest.raises(ModelError, match="NaN or infinity"):
        load_arrays(tmp_path / "c.npz")


def _archive(path, name, header, body, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        with archive.open(name, "w", force_zip64=True) as member:
            np.lib.format.write_array_header_1_0(member, header)
            member.write(body)


def test_a_member_declaring_a_huge_array_is_refused_before_numpy_allocates_it(tmp_path):
    # a 200-byte file declaring a million by a million floats: numpy tried to allocate 7 TiB
    _archive(tmp_path / "w.npz", "head.coef.npy", {"descr": "<f8", "fortran_order": False, "shape": (10**6, 10**6)},
             b"\0" * 64)
    with pytest.raises(ModelError, match=r"declares an array of shape \(1000000, 1000000\)"):
        load_arrays(tmp_path / "w.npz")


def test_a_compressed_member_is_refused_unread(tmp_path):
    # pmparse stores weights uncompressed; a deflated member may inflate without bound
    _archive(tmp_path / "w.npz", "a.npy", {"descr": "<f8", "fortran_order": False, "shape": (4,)}, b"\0" * 32,
             zipfile.ZIP_DEFLATED)
    with pytest.raises(ModelError, match="compressed"):
        load_arrays(tmp_path / "w.npz")


def test_object_arrays_are_refused(tmp_path):
    buffer = io.BytesIO()
    np.savez(buffer, a=np.array([{"x": 1}], dtype=object))
    (tmp_path / "w.npz").write_bytes(buffer.getvalue())
    with pytest.raises(ModelError, match="holds objects"):
        load_arrays(tmp_path / "w.npz")


@pytest.mark.parametrize("text, found", [
    ('{"threshold": NaN}', "NaN"), ('{"threshold": -Infinity}', "-Infinity"), ('{"threshold": 1e999}', "1e999"),
    ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deep"), ("[1]", "JSON object"),
    # an integer past float's range: float() of it (a threshold, the sequence weight) raised
    # OverflowError, a traceback from convert naming no file
    ('{"threshold": 1' + "0" * 400 + "}", "where a finite number was expected")])
def test_a_meta_file_with_numbers_that_are_not_finite_or_too_deep_is_refused(tmp_path, text, found):
    (tmp_path / "meta.json").write_text(text, encoding="utf-8")
    with pytest.raises(ModelError, match=found) as caught:
        read_json(tmp_path / "meta.json")
    assert caught.value.path == str(tmp_path / "meta.json")


def test_read_json_reads_an_ordinary_meta(tmp_path):
    (tmp_path / "meta.json").write_text(json.dumps({"threshold": 0.25, "n": 3, "big": 1e300}), encoding="utf-8")
    assert read_json(tmp_path / "meta.json") == {"threshold": 0.25, "n": 3, "big": 1e300}
    (tmp_path / "meta.json").write_text('{"n": -' + "9" * 300 + "}", encoding="utf-8")
    assert read_json(tmp_path / "meta.json") == {"n": -int("9" * 300)}


def test_a_meta_file_git_left_with_conflict_markers_says_so_and_what_to_do(tmp_path):
    meta = tmp_path / "meta.json"
    meta.write_text('{\n<<<<<<< HEAD\n  "name": "ours"\n=======\n  "name": "theirs"\n>>>>>>> 0123abc\n}\n',
                    encoding="utf-8")
    with pytest.raises(ModelError) as caught:
        read_json(meta)
    assert "found git's conflict markers from line 2" in str(caught.value)
    assert "pmparse train --library" in str(caught.value) and str(meta) in str(caught.value)
