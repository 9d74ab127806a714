"""Writes the .npy/.npz/.safetensors fixtures that tests/all/io.rs reads, with NumPy and
Hugging Face's safetensors package, and expected.json holding every array's values.

    python3 -m pip install numpy safetensors ml_dtypes
    python3 tests/data/io/make_fixtures.py     # rewrites tests/data/io/*

check_written.py (run by .ci/run) reads back the files the Rust tests write.
"""
import json
import os

import ml_dtypes
import numpy as np
import safetensors

HERE = os.path.dirname(os.path.abspath(__file__))


def arrays():
    """name -> array: every dtype typed-tensor has, with edge values."""
    f = np.array([[0.5, -1.25, np.nan], [np.inf, -np.inf, -0.0]])
    return {
        "f32": f.astype(np.float32),
        "f64": np.array([[1e-300, -2.5, np.nan], [np.inf, 1 / 3, -0.0]]),
        "f16": np.array([[65504.0, -1.5, np.nan], [np.inf, 6e-8, -0.0]], dtype=np.float16),
        "i16": np.array([[-32768, 32767, 0], [1, -1, 300]], dtype=np.int16),
        "i32": np.array([[-(2**31), 2**31 - 1, 0], [7, -7, 123456]], dtype=np.int32),
        "i64": np.array([[-(2**63), 2**63 - 1, 0], [2**53 + 1, -5, 42]], dtype=np.int64),
        "u8": np.array([[0, 255, 1], [128, 7, 64]], dtype=np.uint8),
        "bool": np.array([[True, False, True], [False, False, True]]),
        "f64_scalar": np.array(2.75),
        "f32_empty": np.zeros((0, 3), dtype=np.float32),
        "f32_3d": np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 8,
    }


def bf16_values():
    return np.array([[1.0, -2.5, np.nan], [np.inf, 3.140625, -0.0]]).astype(ml_dtypes.bfloat16)


def encode(a):
    """JSON for an array: dtype, shape, row-major values (floats as repr strings, so NaN,
    inf and -0.0 survive)."""
    flat = a.reshape(-1)
    if a.dtype.kind == "f" or a.dtype == ml_dtypes.bfloat16:
        values = [repr(float(x)) for x in flat]
    elif a.dtype.kind == "b":
        values = [bool(x) for x in flat]
    else:
        values = [int(x) for x in flat]
    name = "bfloat16" if a.dtype == ml_dtypes.bfloat16 else a.dtype.name
    return {"dtype": name, "shape": list(a.shape), "values": values}


def serialize(arrays, metadata=None):
    """safetensors bytes of name -> little-endian C-order array, by safetensors.serialize."""
    keep = {k: a.copy(order="C") for k, a in arrays.items()}  # ascontiguousarray makes 0-d 1-d
    specs = {}
    for k, a in keep.items():
        dtype = "bfloat16" if a.dtype == ml_dtypes.bfloat16 else a.dtype.name
        specs[k] = safetensors.TensorSpec(dtype=dtype, shape=list(a.shape), data_ptr=a.ctypes.data, data_len=a.nbytes)
    return safetensors.serialize(specs, metadata=metadata)


def main():
    arrs = arrays()
    expected = {}
    for name, a in arrs.items():
        np.save(os.path.join(HERE, f"{name}.npy"), a)
        expected[name] = encode(a)
    # Fortran order and big endian (on read only: typed-tensor writes C order, little endian).
    np.save(os.path.join(HERE, "f32_3d_fortran.npy"), np.asfortranarray(arrs["f32_3d"]))
    np.save(os.path.join(HERE, "i32_big_endian.npy"), arrs["i32"].astype(">i4"))
    np.save(os.path.join(HERE, "f64_big_endian_fortran.npy"), np.asfortranarray(arrs["f64"].astype(">f8")))
    # Dtypes typed-tensor does not have: loading them is an Err naming the dtype.
    np.save(os.path.join(HERE, "i8.npy"), np.array([1, -1], dtype=np.int8))
    np.save(os.path.join(HERE, "bf16_ml_dtypes.npy"), bf16_values())  # written as '<V2'

    np.savez(os.path.join(HERE, "arrays.npz"), f32=arrs["f32"], i64=arrs["i64"], bool=arrs["bool"],
             f64_scalar=arrs["f64_scalar"])
    np.savez_compressed(os.path.join(HERE, "arrays_compressed.npz"), f32_3d=arrs["f32_3d"],
                        u8=arrs["u8"], f32_empty=arrs["f32_empty"])

    # safetensors through the package's own serializer (its numpy helpers lack bfloat16).
    bf = bf16_values()
    expected["bf16"] = encode(bf)
    metadata = {"format": "np", "written_by": "make_fixtures.py"}
    st = dict(arrs, bf16=bf)
    with open(os.path.join(HERE, "all_dtypes.safetensors"), "wb") as fh:
        fh.write(serialize(st, metadata))
    with open(os.path.join(HERE, "unsupported.safetensors"), "wb") as fh:
        fh.write(serialize({"u16": np.array([1, 2], dtype=np.uint16), "f32": np.array([4.5], dtype=np.float32)}))
    expected["__metadata__"] = metadata
    with open(os.path.join(HERE, "expected.json"), "w") as fh:
        json.dump(expected, fh, indent=1)
        fh.write("\n")


if __name__ == "__main__":
    main()
