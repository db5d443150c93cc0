#!/usr/bin/env python3
"""numpy .npy files both ways: files numpy writes (every dtype kind, structured and nested,
Fortran order, 0-d, empty, big-endian, format versions 1.0/2.0/3.0) read by us and compared
with numpy's values; files we write loaded by numpy; selections against numpy's indexing; a
layout from `dudley layout` reading the array in place; damaged files refused cleanly.

Usage: npy_peer_test.py DUDLEY
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from peer_checks import Checks

DUDLEY = sys.argv[1]
check = Checks()  # counted, every failure kept (peer_checks.py)


def run(*args, ok=True):
    p = subprocess.run([DUDLEY, *args], capture_output=True, text=True)
    if ok and p.returncode != 0:
        raise SystemExit(f"dudley {' '.join(args)} failed ({p.returncode}):\n{p.stderr}")
    return p


def dumped(path, sel=""):
    d = json.loads(run("dump", path, "/" + sel, "--json").stdout)["root"]
    return d["selections"][sel]["data"] if sel else d["data"]


def as_json_like(a):
    """numpy values as our JSON prints them."""
    if a.dtype.names:
        return [as_json_like_record(r, a.dtype) for r in a.reshape(-1)] if a.ndim else as_json_like_record(a[()], a.dtype)
    if a.dtype.kind == "c":
        return np.stack([a.real, a.imag], axis=-1).tolist()
    if a.dtype.kind == "S":
        return np.vectorize(lambda b: b.decode("latin-1"), otypes=[object])(a).tolist() if a.size else a.tolist()
    return a.tolist()


def as_json_like_record(r, dt):
    out = {}
    for name in dt.names:
        v = np.asarray(r[name])
        out[name] = as_json_like(v)
    return out


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def main():
    tmp = tempfile.mkdtemp(prefix="dudley-npy-")
    rng = np.random.default_rng(5)
    arrays = {
        "f8": rng.normal(size=(3, 4)),
        "f4be": rng.normal(size=(5,)).astype(">f4"),
        "i2": np.arange(-6, 6, dtype="<i2").reshape(2, 2, 3),
        "u8": np.array([0, 2**64 - 1], dtype="u8"),
        "b1": np.array([True, False, True]),
        "c16": np.array([1 + 2j, -3.5j]),
        "c8be": np.array([1 - 1j], dtype=">c8"),
        "f2": np.array([0.5, -2.0], dtype="f2"),
        "S5": np.array([b"abc", b"hello"]),
        "U3": np.array(["hé", "abc"]),
        "scalar": np.array(7.5),
        "empty": np.zeros((0, 3)),
        "fortran": np.asfortranarray(np.arange(24, dtype="i4").reshape(2, 3, 4)),
        "struct": np.array([(1, (2.0, 3.0), b"x"), (4, (5.0, 6.0), b"yz")],
                           dtype=[("n", "<i4"), ("v", "<f8", (2,)), ("s", "S2")]),
        "nested": np.zeros(2, dtype=[("a", [("x", "<f4"), ("y", ">i2")]), ("b", "u1")]),
    }
    for name, a in arrays.items():
        path = os.path.join(tmp, name + ".npy")
        np.save(path, a)
        got = dumped(path)
        if a.dtype.kind == "f":
            # Floats print as the shortest text of their own precision: compare in it.
            g = np.array(got, dtype=a.dtype)
            ok = g.size == a.size and np.array_equal(g.reshape(a.shape), a)
        else:
            ok = same(got, as_json_like(a))
        check(ok, f"{name}: {got!r} != {as_json_like(a)!r}")
    # Format versions 2.0 (a header over 64 KiB) and 3.0 (UTF-8 field names).
    many = np.zeros(1, dtype=[(f"field_{i:05d}", "<f4") for i in range(4000)])
    path = os.path.join(tmp, "v2.npy")
    np.lib.format.write_array(open(path, "wb"), many, version=(2, 0))
    check(len(json.loads(run("dump", path, "--json").stdout)["root"]["data"][0]) == 4000, "version 2.0 header")
    v3 = np.array([(1.5,)], dtype=[("héllo", "<f8")])
    path = os.path.join(tmp, "v3.npy")
    np.lib.format.write_array(open(path, "wb"), v3, version=(3, 0))
    check(dumped(path) == [{"héllo": 1.5}], "version 3.0 header with UTF-8 names")

    # Selections against numpy's own indexing.
    cube = rng.normal(size=(5, 6, 7))
    path = os.path.join(tmp, "cube.npy")
    np.save(path, cube)
    for sel, idx in (("[1:4, ::-2, 3]", (slice(1, 4), slice(None, None, -2), 3)),
                     ("[..., -1]", (Ellipsis, -1)), ("[::2, 5:0:-2, :]", (slice(None, None, 2), slice(5, 0, -2), slice(None))),
                     ("[-1]", (-1,)), ("[2, 3, 4]", (2, 3, 4))):
        got = np.array(dumped(path, sel))
        check(np.allclose(got, cube[idx]), f"cube{sel} equals numpy's")

    # Ours loaded by numpy: npy -> npy for every array, and HDF5 -> npy.
    for name, a in arrays.items():
        src = os.path.join(tmp, name + ".npy")
        out = os.path.join(tmp, name + ".out.npy")
        run("convert", src, out)
        b = np.load(out)
        if a.dtype.names:
            ok = b.dtype.names == a.dtype.names and all(np.array_equal(b[n], a[n]) for n in a.dtype.names)
        else:
            ok = b.shape == a.shape and np.array_equal(b, np.array(a, order='C')) and b.dtype.kind == a.dtype.kind
        check(ok, f"{name}: numpy loads ours ({b.dtype} {b.shape})")
    # A layout for an .npy file reads it in place.
    lay = os.path.join(tmp, "cube.dud")
    run("layout", path, "-o", lay)
    got = json.loads(run("dump", path, "--layout", lay, "/data[4, 5]", "--json").stdout)
    check(np.allclose(got["root"]["members"]["data"]["selections"]["[4, 5]"]["data"], cube[4, 5]),
          "through the layout `dudley layout` wrote")
    p = run("layout", os.path.join(tmp, "fortran.npy"), ok=False)
    check(p.returncode == 1 and "no array of" in p.stderr and "/data: not stored as one C-ordered" in p.stderr
          and not p.stdout, "a Fortran-ordered array is named, and no empty layout is written")

    # Damaged files: an error naming the file and the offset, exit 1, no crash.
    good = open(os.path.join(tmp, "f8.npy"), "rb").read()
    cases = {
        "magic": b"\x93NUMPX" + good[6:],
        "version": good[:6] + b"\x09" + good[7:],
        "headerlen": good[:8] + b"\xff\xff" + good[10:],
        "truncated": good[:-5],
        "dict": good[:10] + b"{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4" + b" " * 60 + b"\n",
        "object": good.replace(b"'<f8'", b"'|O' "),
        "shape": good.replace(b"(3, 4)", b"(3,-4)"),
        # A well-formed header claiming 320 TB (the padding shortened by what the shape grew).
        "huge": good.replace(b"(3, 4)", b"(9999999999999, 4)").replace(b" " * 12 + b"\n", b"\n", 1),
    }
    check(len(cases["huge"]) == len(good) and b"(9999999999999, 4)" in cases["huge"],
          "the huge case is a well-formed header of the same length")
    for name, data in cases.items():
        path = os.path.join(tmp, f"bad_{name}.npy")
        open(path, "wb").write(data)
        p = run("dump", path, ok=False)
        check(p.returncode == 1 and "error:" in p.stderr and path in p.stderr,
              f"damaged ({name}): exit {p.returncode}: {p.stderr.strip()}")
    p = run("convert", os.path.join(tmp, "f8.npy"), os.path.join(tmp, "x.h5"))
    p = run("convert", os.path.join(tmp, "x.h5"), os.path.join(tmp, "x.npy"))
    check(np.array_equal(np.load(os.path.join(tmp, "x.npy")), arrays["f8"]), "HDF5 -> npy")

    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
