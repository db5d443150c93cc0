#!/usr/bin/python3
"""ASDF against the reference library (Debian's python3-asdf 2.14), both ways.

peer -> us: python3-asdf writes a file for every feature core/ndarray has (every scalar
type in both byte orders, views sharing a block, Fortran order, 0-d and empty arrays,
inline arrays, nested structured types, ascii/ucs4, zlib/bzp2/lz4, no block index, masks,
exploded files, a streamed block, tree values); `dudley dump --json` must give the values
numpy gives for every array, and the tree's other values as attributes.

Usage: asdf_peer_test.py DUDLEY WORKDIR
"""
import json
import math
import os
import subprocess
import sys
import warnings

import asdf
import asdf.stream
import numpy as np
from peer_checks import Checks

warnings.simplefilter("ignore")
DUDLEY, WORK = sys.argv[1], sys.argv[2]
os.makedirs(WORK, exist_ok=True)
check = Checks()  # counted, every failure kept (peer_checks.py)


def dump(path, *extra):
    r = subprocess.run([DUDLEY, "dump", "--json", *extra, path], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"dudley dump {path} failed ({r.returncode}): {r.stdout}{r.stderr}")
    return json.loads(r.stdout)


def ours_by_path(doc):
    """path -> node of our JSON tree."""
    out = {}

    def walk(node, path):
        out[path or "/"] = node
        for name, child in node.get("members", {}).items():
            walk(child, f"{path}/{name}")
        for i, child in enumerate(node.get("items", [])):
            walk(child, f"{path}/{i}")

    walk(doc["root"], "")
    return out


def number(v):
    if v == "NaN":
        return math.nan
    if v == "Infinity":
        return math.inf
    if v == "-Infinity":
        return -math.inf
    return v


def from_json(v, dt):
    """Our JSON values as what numpy would hold for dtype dt."""
    if dt.fields is not None:
        if isinstance(v, list):
            return [from_json(x, dt) for x in v]
        return tuple(from_json(v[name], dt.fields[name][0]) for name in dt.names)
    if dt.subdtype is not None:
        base, _ = dt.subdtype
        return from_json(v, base)
    if isinstance(v, list):
        if dt.kind == "c" and len(v) == 2 and not isinstance(v[0], list):
            return complex(number(v[0]), number(v[1]))
        return [from_json(x, dt) for x in v]
    if dt.kind == "S":
        return v.encode("latin-1")
    if dt.kind in "fc":
        return number(v)
    return v


def same_array(ours, theirs, what):
    theirs = np.asarray(theirs)
    check(list(ours["shape"]) == list(theirs.shape), f"{what}: shape {ours['shape']} vs {theirs.shape}")
    native = theirs.dtype.newbyteorder("=") if theirs.dtype.fields is None else theirs.dtype
    try:
        mine = np.array(from_json(ours["data"], theirs.dtype), dtype=native).reshape(theirs.shape)
    except Exception as e:  # noqa: BLE001
        check(False, f"{what}: cannot rebuild {ours.get('data')!r:.200} as {theirs.dtype}: {e}")
        return
    if theirs.dtype.fields is None and theirs.dtype.kind in "fc":
        ok = np.array_equal(mine, theirs, equal_nan=True)
    else:
        ok = mine.tobytes() == theirs.astype(native).tobytes() if theirs.dtype.fields is None else \
            all(np.array_equal(mine[n], theirs[n], equal_nan=theirs.dtype[n].kind in "fc") for n in theirs.dtype.names)
    check(ok, f"{what}: values differ\n  ours   {mine!r:.300}\n  theirs {theirs!r:.300}")


def write(name, tree, **kwargs):
    path = os.path.join(WORK, name + ".asdf")
    af = asdf.AsdfFile(tree)
    for arr, storage in kwargs.pop("storage", []):
        af.set_array_storage(arr, storage)
    for arr, comp in kwargs.pop("compression", []):
        af.set_array_compression(arr, comp)
    af.write_to(path, **kwargs)
    return path


def compare_file(path, arrays):
    """arrays: our path -> numpy array expected (a masked array: its stored data, and where
    it is masked our JSON has null)."""
    ours = ours_by_path(dump(path, "--unmasked"))  # the stored values, masked or not
    masked_view = None
    for p, expected in arrays.items():
        node = ours.get(p)
        check(node is not None, f"{path}: no node {p}")
        if node is None:
            continue
        check("error" not in node, f"{path}{p}: error {node.get('error')}")
        if "error" not in node:
            same_array(node, np.ma.getdata(expected), f"{os.path.basename(path)}{p}")
        if np.ma.isMaskedArray(expected) and np.ma.getmask(expected) is not np.ma.nomask:
            masked_view = masked_view or ours_by_path(dump(path))
            nulls = np.array(masked_view[p]["data"], dtype=object).reshape(expected.shape) == None  # noqa: E711
            check(nulls.tolist() == np.ma.getmaskarray(expected).tolist(),
                  f"{os.path.basename(path)}{p}: masked elements are not null where numpy masks")
    return ours


rng = np.random.default_rng(7)

# Every scalar type, both byte orders.
scalars = ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f4", "f8", "c8", "c16", "b1"]
tree = {}
for t in scalars:
    for order in "<>":
        dt = np.dtype(order + t)
        if dt.kind == "b":
            a = rng.integers(0, 2, (3, 4)).astype(bool)
        elif dt.kind in "iu":
            info = np.iinfo(dt)
            a = rng.integers(info.min, info.max, (3, 4), dtype=dt.newbyteorder("="), endpoint=True).astype(dt)
        elif dt.kind == "f":
            a = rng.standard_normal((3, 4)).astype(dt)
            a[0, 0], a[0, 1], a[0, 2] = np.nan, np.inf, -0.0
        else:
            a = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(dt)
        tree[f"{t}_{'le' if order == '<' else 'be'}"] = a
path = write("scalars", tree)
compare_file(path, {"/" + k: v for k, v in tree.items()})

# Views sharing one block, negative strides, Fortran order, 0-d, empty.
base = np.arange(24, dtype="<f4").reshape(4, 6)
fort = np.asfortranarray(np.arange(6, dtype="<i2").reshape(2, 3))
tree = {"base": base, "col": base[:, 1], "rev": base[::-1], "tile": base[1:3, 2:5],
        "every_other": base[::2, ::-3], "fortran": fort, "scalar": np.array(3.5),
        "empty": np.zeros((0, 3)), "empty1": np.zeros(0, dtype=">i4")}
path = write("views", tree)
compare_file(path, {"/" + k: v for k, v in tree.items()})

# Inline arrays (explicit datatype, as the library writes them).
inl = {"ints": np.arange(6, dtype="i4").reshape(2, 3), "floats": np.array([1.5, np.nan, -np.inf, 1e-300]),
       "cplx": np.array([1 + 2j, -0.5j]), "flags": np.array([True, False]),
       "words": np.array(["a", "\U0001F600ok"]), "bytes": np.array([b"ab", b"cde"])}
path = write("inline", dict(inl), storage=[(v, "inline") for v in inl.values()])
compare_file(path, {"/" + k: v for k, v in inl.items()})

# Structured: nested, per-field byte order, sub-arrays, strings.
dt = np.dtype([("id", "<i4"), ("coord", [("ra", "<f8"), ("dec", ">f8")]), ("kernel", "<f4", (3, 3)),
               ("name", "S4"), ("label", "<U3")])
rec = np.zeros(5, dtype=dt)
rec["id"] = np.arange(5)
rec["coord"]["ra"] = np.linspace(0, 1, 5)
rec["coord"]["dec"] = -np.linspace(0, 1, 5)
rec["kernel"] = np.arange(45, dtype="f4").reshape(5, 3, 3)
rec["name"] = [b"a", b"bb", b"ccc", b"dddd", b""]
rec["label"] = ["x", "\u00e9", "z\U00010020", "", "abc"]
path = write("structured", {"rec": rec, "unnamed": np.array([(b"ab", 3)], dtype=[("f0", "S2"), ("f1", "<u2")])})
compare_file(path, {"/rec": rec})

# Strings.
tree = {"ascii": np.array([b"", b"ascii", b"x"]), "ucs4": np.array(["", "\u00e9t\u00e9", "\U00010020"]),
        "ucs4_be": np.array(["ab", "c"], dtype=">U2")}
path = write("strings", tree)
compare_file(path, {"/" + k: v for k, v in tree.items()})

# Compression (numeric types: 2.14 cannot compress complex, string or structured data).
big = np.cumsum(rng.standard_normal(700_000)).astype("<f8")  # 5.6 MB: two lz4 chunks
for comp in ["zlib", "bzp2", "lz4"]:
    tree = {"big": big, "ints": np.arange(1000, dtype=">i8"), "view": big[10:20:3]}
    path = write("compressed_" + comp, tree, all_array_compression=comp)
    compare_file(path, {"/" + k: v for k, v in tree.items()})

# No block index, and an index that does not match (ignored).
tree = {"a": np.arange(10), "b": np.arange(5.0)}
path = write("no_index", tree, include_block_index=False)
compare_file(path, {"/a": tree["a"], "/b": tree["b"]})
data = open(path, "rb").read() + b"#ASDF BLOCK INDEX\n%YAML 1.1\n---\n- 99999\n...\n"
bad_index = os.path.join(WORK, "bad_index.asdf")
open(bad_index, "wb").write(data)
compare_file(bad_index, {"/a": tree["a"], "/b": tree["b"]})

# Masks: an array mask of its own block, and inline.
m = np.ma.array(np.arange(5.0), mask=[0, 1, 0, 0, 1])
path = write("masked", {"m": m})
ours = compare_file(path, {"/m": m.data, "/m_mask": m.mask})
check(ours["/m"].get("storage", {}).get("mask") is not None, "masked: storage has no mask")

# Exploded: one file per array beside the main one.
tree = {"x": np.arange(8), "y": np.linspace(0, 1, 4)}
path = write("exploded", tree, all_array_storage="external")
compare_file(path, {"/x": tree["x"], "/y": tree["y"]})

# The same tree one directory down, its sources naming the files above it ("../"): refused
# unless --allow-external-outside says so, then read as python-asdf reads it.
inner = os.path.join(WORK, "inner")
os.makedirs(inner, exist_ok=True)
text = open(path, "rb").read()
check(b"source: exploded0000.asdf" in text, "exploded: python-asdf named its blocks otherwise")
outside = os.path.join(inner, "exploded.asdf")
open(outside, "wb").write(text.replace(b"source: exploded", b"source: ../exploded"))
r = subprocess.run([DUDLEY, "dump", outside, "/x"], capture_output=True, text=True)
check(r.returncode == 1, f"outside the directory: exit {r.returncode}, expected 1")
check("lies outside the directory" in r.stderr and "--allow-external-outside" in r.stderr,
      f"outside the directory: {r.stderr!r}")
ours = ours_by_path(dump(outside, "--allow-external-outside"))
for name in ["x", "y"]:
    node = ours.get("/" + name)
    check(node is not None and "error" not in node, f"--allow-external-outside: /{name} {node}")
    if node is not None and "error" not in node:
        same_array(node, tree[name], f"--allow-external-outside /{name}")
with asdf.open(outside) as af:
    check(np.array_equal(np.asarray(af["x"]), tree["x"]), "python-asdf reads ../ sources otherwise")

# A streamed block: rows appended after the tree.
path = os.path.join(WORK, "stream.asdf")
af = asdf.AsdfFile({"s": asdf.stream.Stream([4], np.float64)})
with open(path, "wb") as fd:
    af.write_to(fd)
    for i in range(6):
        fd.write(np.full(4, i, np.float64).tobytes())
compare_file(path, {"/s": np.repeat(np.arange(6.0), 4).reshape(6, 4)})

# Tree values: scalars, strings, maps, lists, arrays in lists and maps.
tree = {"title": "run 7", "count": 42, "ratio": 0.25, "big": -2**52, "flag": True, "nothing": None,
        "odd": "yes", "nested": {"a": [1, 2.5, "x"], "b": {"c": None}},
        "frames": [np.arange(3), np.arange(4.0)], "meta": {"inner": np.arange(2, dtype="u1"), "unit": "K"}}
tree_values = dict(tree)
path = write("tree", tree)
ours = compare_file(path, {"/frames/0": tree["frames"][0], "/frames/1": tree["frames"][1],
                           "/meta/inner": tree["meta"]["inner"]})
attrs = ours["/"].get("attributes", {})
for key in ["title", "count", "ratio", "big", "flag", "nothing", "odd", "nested"]:
    check(attrs.get(key) == tree[key], f"tree: attribute {key} = {attrs.get(key)!r}, expected {tree[key]!r}")
check(ours["/meta"].get("attributes", {}).get("unit") == "K", "tree: /meta unit")

# us -> peer: every file above, rewritten by `dudley convert` (plain, each compression,
# small arrays inline), must open and validate in python3-asdf (schemas and checksums) with
# the values the original holds.
def arrays_of(tree, prefix=""):
    out = {}
    items = tree.items() if isinstance(tree, dict) else enumerate(tree) if isinstance(tree, list) else []
    for k, v in items:
        if str(k) in ("asdf_library", "history"):
            continue
        p = f"{prefix}/{k}"
        if isinstance(v, (dict, list)):
            out.update(arrays_of(v, p))
        elif hasattr(v, "shape") and hasattr(v, "dtype"):
            out[p] = v
    return out


def same_values(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.fields is not None:
        return all(same_values(a[n], b[n]) for n in a.dtype.names)
    if a.dtype.kind in "fc":
        return np.array_equal(a, b, equal_nan=True)
    return np.array_equal(a, b)


sources = ["scalars", "views", "inline", "structured", "strings", "compressed_zlib", "no_index", "masked",
           "exploded", "stream", "tree"]
variants = [("plain", []), ("zlib", ["--compression", "zlib"]), ("bzp2", ["--compression", "bzp2"]),
            ("lz4", ["--compression", "lz4"]), ("inline", ["--inline-max", "50"])]
for name in sources:
    src = os.path.join(WORK, name + ".asdf")
    with asdf.open(src, copy_arrays=True) as f:
        want = {p: (np.ma.getdata(v).copy(), np.ma.getmaskarray(v).copy() if np.ma.isMaskedArray(v) else None)
                for p, v in arrays_of(f.tree).items()}
    for variant, flags in variants:
        dst = os.path.join(WORK, f"ours_{name}_{variant}.asdf")
        if os.path.exists(dst):
            os.remove(dst)
        r = subprocess.run([DUDLEY, "convert", "-q", *flags, src, dst], capture_output=True, text=True)
        check(r.returncode == 0, f"convert {name} ({variant}): exit {r.returncode} {r.stderr}")
        if r.returncode != 0:
            continue
        try:
            with asdf.open(dst, validate_checksums=True, copy_arrays=True) as f:
                got = {p: v for p, v in arrays_of(f.tree).items()}
                for p, (data, mask) in want.items():
                    check(p in got, f"{name} ({variant}): python finds no {p} in our file")
                    if p not in got:
                        continue
                    g = got[p]
                    check(same_values(np.ma.getdata(g), data), f"{name} ({variant}) {p}: values differ")
                    if mask is not None:
                        check(np.ma.isMaskedArray(g) and np.array_equal(np.ma.getmaskarray(g), mask),
                              f"{name} ({variant}) {p}: mask lost")
                if name == "tree":
                    for key in ["title", "count", "ratio", "big", "flag", "nothing", "odd", "nested"]:
                        check(f.tree.get(key) == tree_values[key], f"tree ({variant}): {key} = {f.tree.get(key)!r}")
        except Exception as e:  # noqa: BLE001
            check(False, f"{name} ({variant}): python cannot open our file: {e}")

# Dudley data (the bundled restart example) -> ASDF: python3-asdf reads the values dudley
# dumps from the Dudley original.
examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
run = os.path.join(WORK, "run.bin")
subprocess.run([sys.executable, os.path.join(examples, "make_restart_data.py"), run], check=True,
               capture_output=True)
with open(os.path.join(examples, "restart.dud")) as src, open(os.path.join(WORK, "run.dud"), "w") as dst:
    dst.write(src.read())
run_asdf = os.path.join(WORK, "run.asdf")
if os.path.exists(run_asdf):
    os.remove(run_asdf)
r = subprocess.run([DUDLEY, "convert", "-q", run, run_asdf], capture_output=True, text=True)
check(r.returncode == 0, f"convert restart example: {r.stderr}")
original = ours_by_path(dump(run))
with asdf.open(run_asdf, validate_checksums=True, copy_arrays=True) as f:
    for p in ["/mesh/x", "/hydro/rho", "/hydro/vel/u", "/history/time"]:
        node, keys = f.tree, p.strip("/").split("/")
        for k in keys:
            node = node[k]
        same_array(original[p], np.asarray(node), f"restart example {p}")
    check(f.tree["title"].tobytes().rstrip(b" \0").decode() == original["/title"]["data"].rstrip(" "),
          "restart example: title")

sys.exit(check.summary())
