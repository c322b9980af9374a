#!/usr/bin/env python3
"""Writes the small .npy fixtures read by tests/io/test_npy.cpp into tests/data/npy/.

Element i (in C order) of every typed fixture is value(i) below; the C++ test recomputes the same formula.
Run again after changing it: /usr/bin/python3 tests/data/make_npy_fixtures.py
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "npy")
SHAPE = (2, 3, 5)


def values(dtype, n):
    i = np.arange(n, dtype=np.int64)
    kind = np.dtype(dtype)
    if kind == np.bool_:
        return i % 3 == 0
    if kind.kind == "f":
        return (i * 0.25 - 1.5).astype(dtype)
    formulas = {
        "uint8": (i * 37) % 256,
        "int8": (i * 37) % 256 - 128,
        "int16": i * 1000 - 12000,
        "uint16": i * 2000,
        "int32": i * 100003 - 1000000,
        "uint32": i.astype(np.uint64) * 100000000,
        "int64": i * 3000000019 - 7,
        "uint64": i.astype(np.uint64) * 600000000000000000,
    }
    return formulas[kind.name].astype(dtype)


def typed(dtype, shape=SHAPE):
    return values(dtype, int(np.prod(shape))).reshape(shape)


def save(name, arr, version=None):
    path = os.path.join(OUT, name + ".npy")
    with open(path, "wb") as f:
        np.lib.format.write_array(f, arr, version=version, allow_pickle=arr.dtype == object)


def main():
    os.makedirs(OUT, exist_ok=True)
    for dtype in ["float32", "float16", "float64", "uint8", "int8", "int16", "uint16", "int32", "uint32", "int64",
                  "uint64", "bool"]:
        save(dtype, typed(dtype))
    # bfloat16 has no numpy code: ml_dtypes saves it as a 2-byte void. The values are exact in bfloat16, so the
    # upper half of each float32 is the bfloat16.
    bits = (typed("float32").view(np.uint32) >> 16).astype(np.uint16)
    save("bfloat16", bits.view("V2"))
    save("float32_scalar", np.array(2.5, dtype=np.float32))
    save("float32_empty", np.zeros((0, 3), dtype=np.float32))
    save("float32_v2", typed("float32"), version=(2, 0))
    save("float32_v3", typed("float32"), version=(3, 0))
    # Error paths.
    save("fortran", np.asfortranarray(typed("float32", (3, 4))))
    save("big_endian", typed("float32", (2, 3)).astype(">f4"))
    save("object", np.array([1, "a", None], dtype=object))
    save("complex", np.ones((2, 2), dtype=np.complex64))
    save("structured", np.zeros(3, dtype=[("a", "<i4"), ("b", "<f4")]))


if __name__ == "__main__":
    main()
