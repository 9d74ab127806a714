"""Reads back, with NumPy and Hugging Face's safetensors package, the files that the Rust test
`io::fixtures_round_trip` writes (to target/tmp/io-written), and compares every array with
expected.json. Run by .ci/run after `cargo test`:

    python3 tests/data/io/check_written.py target/tmp/io-written
"""
import json
import os
import sys

import ml_dtypes
import numpy as np
import safetensors

from make_fixtures import HERE, encode

ST_DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16, "BF16": ml_dtypes.bfloat16,
             "I16": np.int16, "I32": np.int32, "I64": np.int64, "U8": np.uint8, "BOOL": np.bool_}


def check(what, array, want):
    got = encode(array)
    if got != want:
        sys.exit(f"{what}: read {got}, expected {want}")


def main(out):
    expected = json.load(open(os.path.join(HERE, "expected.json")))
    metadata = expected.pop("__metadata__")
    n = 0
    for name, want in expected.items():
        if want["dtype"] != "bfloat16":
            check(f"{name}.npy", np.load(os.path.join(out, f"{name}.npy")), want)
            n += 1
    t = np.load(os.path.join(out, "f32_3d_transposed.npy"))
    f32_3d = np.array([float(v) for v in expected["f32_3d"]["values"]], np.float32).reshape(2, 3, 4)
    check("f32_3d_transposed.npy", t, encode(f32_3d.transpose(2, 1, 0)))

    for archive in ["arrays.npz", "arrays_compressed.npz"]:
        with np.load(os.path.join(out, archive)) as z:
            for name in z.files:
                check(f"{archive}/{name}", z[name], expected[name])
                n += 1

    data = open(os.path.join(out, "all.safetensors"), "rb").read()
    tensors = dict(safetensors.deserialize(data))
    if set(tensors) != set(expected):
        sys.exit(f"all.safetensors holds {sorted(tensors)}, expected {sorted(expected)}")
    for name, v in tensors.items():
        a = np.frombuffer(bytes(v["data"]), dtype=ST_DTYPES[v["dtype"]]).reshape(v["shape"])
        check(f"all.safetensors/{name}", a, expected[name])
        n += 1
    header_len = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + header_len])
    if header.get("__metadata__") != metadata:
        sys.exit(f"all.safetensors metadata {header.get('__metadata__')}, expected {metadata}")
    print(f"check_written: {n} arrays written by typed-tensor read back by NumPy/safetensors and match")


if __name__ == "__main__":
    main(sys.argv[1])
