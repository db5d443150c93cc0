#!/usr/bin/env python3
"""HDF5 and NDL against Debian's python3-h5py and numpy, both ways.

Files written by h5py cover every NDL entity and datatype; `dudley describe` of them is
compared, by meaning (both sides loaded with PyYAML), with NDL written by hand below; values
and hyperslab selections are compared with h5py/numpy's own; `dudley convert` to HDF5 is read
back by h5py; NDL we write is read back by us to the same description; the NDL author's
examples parse (their known flaws are errors naming the line); broken files fail cleanly.

Usage: hdf5_peer_test.py DUDLEY
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np
import yaml
from peer_checks import Checks

DUDLEY = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "..", "shared", "testdata", "ndl-examples")
check = Checks()  # counted, every failure kept (peer_checks.py)


def run(*args, ok=True):
    p = subprocess.run([DUDLEY, *args], capture_output=True, text=True)
    if ok and p.returncode != 0:
        raise SystemExit(f"dudley {' '.join(args)} failed ({p.returncode}):\n{p.stderr}")
    return p


def make_peer_file(path):
    with h5py.File(path, "w") as f:
        f.attrs["title"] = "peer file"
        f.attrs["version"] = np.int32(3)
        f.attrs["scale"] = np.array([1.5, 2.5])
        f.attrs["names"] = np.array([b"a", b"bc"], dtype="S2")
        g = f.create_group("grid")
        x = g.create_dataset("x", data=np.array([0.0, 0.5, 1.0, 1.5], dtype="f4"))
        x.make_scale("x")
        y = g.create_dataset("y", data=np.arange(3, dtype=">i2"))
        y.make_scale("y")
        t = g.create_dataset("temp", data=np.arange(12, dtype="f8").reshape(3, 4), chunks=(2, 2),
                             compression="gzip", compression_opts=4, shuffle=True,
                             fletcher32=True, fillvalue=-1.0, maxshape=(None, 4))
        t.dims[0].attach_scale(y)
        t.dims[1].attach_scale(x)
        t.attrs["units"] = "K"
        f.create_group("empty")
        f.create_group("a/b/c")
        f["strings"] = np.array([b"ab", b"cde"], dtype="S4")
        f.create_dataset("vstr", data=["one", "two", "три"], dtype=h5py.string_dtype())
        ct = np.dtype([("a", "<i4"), ("b", "<f8", (2,)), ("c", "S3")])
        f["comp"] = np.array([(1, (2.0, 3.0), b"xy"), (4, (5.0, 6.0), b"z")], dtype=ct)
        e = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 42}, basetype="u1")
        f.create_dataset("enum", data=np.array([0, 1, 42], dtype="u1"), dtype=e)
        f["bools"] = np.array([True, False])
        f["cplx"] = np.array([1 + 2j, 3 - 4j])
        vl = h5py.vlen_dtype(np.dtype("i4"))
        d = f.create_dataset("vlen", (3,), dtype=vl)
        d[0] = [1]
        d[1] = [1, 2]
        d[2] = []
        f["opaque"] = np.void(b"\x01\x02\x03")
        # An array datatype: h5py needs the HDF5 type made explicitly.
        at = h5py.h5t.array_create(h5py.h5t.IEEE_F32LE, (2, 2))
        arr = h5py.h5d.create(f.id, b"arr", at, h5py.h5s.create_simple((2,)))
        arr.write(h5py.h5s.ALL, h5py.h5s.ALL, np.arange(8, dtype="f4").reshape(2, 2, 2), mtype=at)
        r = f.create_dataset("refs", (2,), dtype=h5py.ref_dtype)
        r[0] = f["grid/temp"].ref
        r[1] = f["grid"].ref
        rr = f.create_dataset("rrefs", (1,), dtype=h5py.regionref_dtype)
        rr[0] = f["grid/temp"].regionref[0:2, 1:3]
        f["scalar"] = 7.25
        f["big"] = np.arange(5, dtype=">f4")
        f["u64"] = np.array([2**64 - 1, 0], dtype="u8")
        f["half"] = np.array([1.5], dtype="f2")
        f["soft"] = h5py.SoftLink("/grid/temp")
        big3 = np.random.default_rng(1).normal(size=(7, 9, 11))
        f.create_dataset("cube", data=big3, chunks=(3, 4, 5), compression="gzip")


EXPECTED = """
/:
  attributes:
    title: peer file
    version: {shape: [], type: int32, value: 3}
    scale: {shape: [2], type: float64, value: [1.5, 2.5]}
    names: {shape: [2], type: string, value: [a, bc]}
  ndarrays:
    arr: {shape: [2], type: {array: {base: float32, shape: [2, 2]}}}
    big: {shape: [5], type: float32, storage: {endian: big}}
    bools: {shape: [2], type: {enum: {base: int8, members: {"FALSE": 0, "TRUE": 1}}}, storage: {endian: little}}
    comp:
      shape: [2]
      type: {compound: [{a: int32}, {b: {array: {base: float64, shape: [2]}}}, {c: string}]}
    cplx: {shape: [2], type: {compound: [{r: float64}, {i: float64}]}}
    cube: {shape: [7, 9, 11], type: float64, storage: {chunk: [3, 4, 5], filter: [{deflate: {level: 4}}], endian: little}}
    enum: {shape: [3], type: {enum: {base: uint8, members: {RED: 0, GREEN: 1, BLUE: 42}}}, storage: {endian: little}}
    opaque: {shape: [], type: {opaque: {size: 3}}}
    refs: {shape: [2], type: objref}
    rrefs: {shape: [1], type: {regref: {selection: block}}}
    scalar: {shape: [], type: float64, storage: {endian: little}}
    strings: {shape: [2], type: string, storage: {charset: ascii}}
    u64: {shape: [2], type: uint64, storage: {endian: little}}
    vlen: {shape: [3], type: {vlen: {base: int32}}}
    vstr: {shape: [3], type: string, storage: {charset: utf-8}}
/a: {}
/a/b: {}
/a/b/c: {}
/empty: {}
/grid:
  dimcoords:
    x: {size: 4, type: float32, storage: {endian: little}}
    y: {size: 3, type: int16, storage: {endian: big}}
  ndarrays:
    temp:
      shape: [/grid/y, /grid/x]
      type: float64
      storage: {shape: [3, 4], chunk: [2, 2], filter: [shuffle, {deflate: {level: 4}}, fletcher32], endian: little, fillvalue: -1.0}
      attributes:
        units: K
"""

# Values as NDL writes them (P7), checked by hand against h5py's reading of the same file.
EXPECTED_VALUES = {
    ("/", "bools"): ["TRUE", "FALSE"],
    ("/", "comp"): [{"a": 1, "b": [2.0, 3.0], "c": "xy"}, {"a": 4, "b": [5.0, 6.0], "c": "z"}],
    ("/", "cplx"): [{"r": 1.0, "i": 2.0}, {"r": 3.0, "i": -4.0}],
    ("/", "enum"): ["RED", "GREEN", "BLUE"],
    ("/", "opaque"): b"\x01\x02\x03",
    ("/", "refs"): ["/grid/temp", "/grid"],
    ("/", "rrefs"): [{"target": "/grid/temp", "start": [0, 1], "opposite": [1, 2]}],
    ("/", "scalar"): 7.25,
    ("/", "strings"): ["ab", "cde"],
    ("/", "vlen"): [[1], [1, 2], []],
    ("/", "vstr"): ["one", "two", "три"],
    ("/", "u64"): [2**64 - 1, 0],
    ("/", "arr"): [[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]],
    ("/grid", "x"): [0.0, 0.5, 1.0, 1.5],
}


def without_values(doc):
    for body in doc.values():
        for kind in ("ndarrays", "dimcoords"):
            for entity in (body or {}).get(kind, {}).values():
                entity.pop("value", None)
    return doc


def json_selection(doc, path, sel):
    node = doc["root"]
    for part in [p for p in path.split("/") if p]:
        node = node["members"][part]
    return node["selections"][sel]["data"]


def main():
    tmp = tempfile.mkdtemp(prefix="dudley-hdf5-")
    peer = os.path.join(tmp, "peer.h5")
    make_peer_file(peer)

    # describe vs the hand-written NDL, by meaning.
    p = run("describe", peer)
    got = yaml.safe_load(p.stdout)
    want = yaml.safe_load(EXPECTED)
    for key in sorted(set(want) | set(got)):
        check(got.get(key) == want.get(key), f"describe {key}: got {got.get(key)!r}, want {want.get(key)!r}")
    check("/soft: a soft link" in p.stderr, "the soft link is named on stderr")
    check("/half: float16" in p.stderr, "float16 is named as not expressible")

    # --values: every value as P7 spells it.
    vals = yaml.safe_load(run("describe", peer, "--values").stdout)
    for (group, name), value in EXPECTED_VALUES.items():
        body = vals[group]
        entity = body.get("ndarrays", {}).get(name) or body.get("dimcoords", {}).get(name)
        check(entity is not None and entity.get("value") == value,
              f"value of {group}/{name}: {entity and entity.get('value')!r} != {value!r}")
    check(without_values(vals) == got, "describe --values is describe plus values")

    # --json: the same text in a document.
    j = json.loads(run("describe", peer, "--json").stdout)
    check(j["format"] == "hdf5" and yaml.safe_load(j["ndl"]) == got and any("float16" in w for w in j["warnings"]),
          "describe --json")

    # Values and hyperslabs against h5py / numpy.
    rng = random.Random(7)
    with h5py.File(peer, "r") as f:
        cube = f["cube"][()]
        for _ in range(40):
            parts, idx = [], []
            for n in cube.shape:
                kind = rng.randrange(3)
                if kind == 0:
                    i = rng.randrange(-n, n)
                    parts.append(str(i))
                    idx.append(i)
                else:
                    a, b = sorted(rng.sample(range(-n, n + 1), 2))
                    step = rng.choice([1, 2, 3, -1, -2])
                    if step < 0:
                        a, b = b, a
                    parts.append(f"{a}:{b}:{step}")
                    idx.append(slice(a, b, step))
            sel = "[" + ", ".join(parts) + "]"
            data = json_selection(json.loads(run("dump", peer, "/cube" + sel, "--json").stdout), "/cube", sel)
            expect = cube[tuple(idx)]
            check(np.allclose(np.array(data, dtype="f8").reshape(expect.shape), expect),
                  f"/cube{sel} equals numpy's")
        for name in ("grid/temp", "big", "u64", "scalar", "grid/y"):
            data = json.loads(run("dump", peer, "/" + name, "--json").stdout)
            node = data["root"]
            for part in name.split("/"):
                node = node["members"][part]
            check(np.array_equal(np.array(node["data"]), f[name][()]), f"dump /{name} equals h5py's")

    # Enums read as the integers h5py reads (they printed as their bytes: [[0],[1],[42]]), in
    # text and JSON, whatever their size, sign and byte order, alone or in a compound.
    enums = os.path.join(tmp, "enums.h5")
    with h5py.File(enums, "w") as f:
        big = h5py.enum_dtype({"LOW": -1, "HIGH": 70000}, basetype=">i4")
        f.create_dataset("be", data=np.array([70000, -1, 70000], dtype=">i4"), dtype=big)
        f.create_dataset("u2", data=np.array([[0, 1], [2, 3]], dtype="<u2"),
                         dtype=h5py.enum_dtype({"R": 0, "G": 1, "B": 2, "W": 3}, basetype="<u2"))
        rec = np.dtype([("x", "<i4"), ("e", big)])
        f.create_dataset("rec", data=np.array([(1, -1), (2, 70000)], dtype=rec))
    with h5py.File(peer, "r") as a, h5py.File(enums, "r") as b:
        for path, want in (("/enum", a["enum"][()].tolist()), ("/be", b["be"][()].tolist()),
                           ("/u2", b["u2"][()].tolist()),
                           ("/rec", [{"x": int(x), "e": int(e)} for x, e in b["rec"][()]])):
            source = peer if path == "/enum" else enums
            doc = json.loads(run("dump", "--json", source, path).stdout)
            node = doc["root"]["members"][path[1:]]
            check(node["data"] == want, f"dump --json {path}: {node['data']} == h5py's {want}")
            text = run("dump", source, path).stdout
            check(json.loads(text.split(" = ", 1)[1]) == want, f"dump {path}: {text!r}")

    # convert HDF5 -> HDF5: h5py reads ours with every type, attribute, scale and reference.
    out = os.path.join(tmp, "out.h5")
    # The soft link stays a soft link (it was left out, before links were followed).
    p = run("convert", peer, out)
    with h5py.File(out, "r") as b:
        check(b.get("soft", getlink=True).path == "/grid/temp", "convert keeps the soft link")
    # NDL has no links: describe names it, and NDL output refuses to drop it silently.
    p = run("convert", peer, os.path.join(tmp, "refused.yaml"), ok=False)
    check(p.returncode == 1 and "  /soft: a soft link to /grid/temp; NDL has no links" in p.stderr,
          f"NDL output refuses to drop the soft link: {p.returncode} {p.stderr}")
    with h5py.File(peer, "r") as a, h5py.File(out, "r") as b:
        for name in ("arr", "big", "bools", "comp", "cplx", "cube", "enum", "grid/temp", "grid/x",
                     "grid/y", "half", "opaque", "scalar", "strings", "u64"):
            check(a[name].dtype == b[name].dtype and np.array_equal(a[name][()], b[name][()]),
                  f"convert keeps {name} ({a[name].dtype} vs {b[name].dtype})")
        check([list(x) for x in b["vlen"][()]] == [[1], [1, 2], []], "convert keeps vlen")
        check([s.decode() for s in b["vstr"][()]] == ["one", "two", "три"], "convert keeps strings")
        check(b[b["refs"][0]].name == "/grid/temp" and b[b["refs"][1]].name == "/grid",
              "object references point to the same objects")
        check(np.array_equal(b["grid/temp"][b["rrefs"][0]], a["grid/temp"][0:2, 1:3]),
              "region references select the same elements")
        t = b["grid/temp"]
        check(t.chunks == (2, 2) and t.compression == "gzip" and t.shuffle and t.fletcher32 and
              t.maxshape == (None, 4) and t.fillvalue == -1.0, "chunks, filters, maxshape and fill kept")
        check([d.keys() for d in t.dims] == [["y"], ["x"]] and h5py.h5ds.is_scale(b["grid/x"].id),
              "dimension scales kept and attached")
        check(b.attrs["title"] == "peer file" and b.attrs["version"] == 3 and
              list(b.attrs["scale"]) == [1.5, 2.5], "attributes kept")
        check("a/b/c" in b and "empty" in b, "groups kept")
    # Our file describes as the peer's (float16 aside).
    check(yaml.safe_load(run("describe", out).stdout) == got, "describe of our copy equals the peer's")

    # NDL round trip: what we write reads back to the same description and values.
    ndl = os.path.join(tmp, "peer.yaml")
    run("describe", peer, "--values", "-o", ndl)
    again = yaml.safe_load(run("describe", ndl, "--values").stdout)
    # P4 writes a dimension with a DimCoord as the DimCoord's path, so temp's unlimited first
    # dimension reads back as the DimCoord's size: its storage.shape then says nothing more.
    expected = yaml.safe_load(run("describe", peer, "--values").stdout)
    del expected["/grid"]["ndarrays"]["temp"]["storage"]["shape"]
    check(again == expected, "NDL we write reads back to the same description and values")
    # NDL with values converts to HDF5 that h5py reads.
    from_ndl = os.path.join(tmp, "from_ndl.h5")
    run("convert", ndl, from_ndl)
    with h5py.File(from_ndl, "r") as b, h5py.File(peer, "r") as a:
        check(np.array_equal(b["cube"][()], a["cube"][()]), "NDL -> HDF5 keeps values")
        check(b[b["refs"][0]].name == "/grid/temp", "NDL -> HDF5 keeps references")
        check([d.keys() for d in b["grid/temp"].dims] == [["y"], ["x"]], "NDL -> HDF5 makes dimension scales")

    # An array the document describes without values: listed, and reading it says why.
    desc = os.path.join(tmp, "desc.yaml")
    run("describe", peer, "-o", desc)
    p = run("dump", desc, "/cube", ok=False)
    check(p.returncode == 1 and "has no values" in p.stderr, f"dump of a described-only array: {p.stderr}")

    # The NDL author's examples: CF and HDF-EOS5 parse; JPSS's known flaws are errors.
    for name, bad_line in (("cf", None), ("hdf-eos5", None), ("jpss", 504)):
        text = open(os.path.join(EXAMPLES, name + ".md")).read()
        block = re.findall(r"```yaml\n(.*?)```", text, re.S)[0]
        path = os.path.join(tmp, name + ".yaml")
        open(path, "w").write(block)
        p = run("describe", path, ok=False)
        if bad_line is None:
            check(p.returncode == 0, f"{name} example parses: {p.stderr}")
            check(yaml.safe_load(run("describe", path).stdout) is not None, f"{name} describes")
        else:
            check(p.returncode == 1 and f"{name}.yaml:{bad_line}:" in p.stderr,
                  f"{name}'s `value: No` is an error at its line: {p.stderr}")
            fixed = block.splitlines()
            fixed[bad_line - 1] = fixed[bad_line - 1].replace("value: No", 'value: [["No"]]')
            open(path, "w").write("\n".join(fixed) + "\n")
            p = run("describe", path, ok=False)
            check(p.returncode == 1 and re.search(r"jpss\.yaml:\d+:\d+: error: .*(Off|list of 1 values)", p.stderr),
                  f"jpss's next flaw is an error too: {p.stderr}")
    cf = yaml.safe_load(run("describe", os.path.join(tmp, "cf.yaml")).stdout)
    check(cf["/"]["ndarrays"]["geoparam"]["shape"] == ["/t", "/z", "/lat", "/lon"],
          "CF: dimcoord names in a shape resolve to their paths")

    # Broken HDF5 files: an error naming the file, exit 1 or 2, never a crash.
    data = open(peer, "rb").read()
    for cut in (100, 1000, len(data) // 2, len(data) - 10):
        broken = os.path.join(tmp, f"cut{cut}.h5")
        open(broken, "wb").write(data[:cut])
        for cmd in (["ls"], ["describe", "--values"], ["dump"]):
            args = cmd[:1] + [broken] + cmd[1:] + (["/cube"] if cmd[0] == "dump" else [])
            p = run(*args, ok=False)
            # libhdf5 refuses a file shorter than its superblock says: every command exits 1
            # naming the file (ls too: nothing of a cut file is listed as if whole).
            check(p.returncode == 1 and broken in p.stderr and "truncated" in p.stderr,
                  f"{' '.join(args)}: exit {p.returncode}: {p.stderr[-300:]}")
    rng2 = random.Random(3)
    for i in range(20):
        b = bytearray(data)
        for _ in range(8):
            b[rng2.randrange(8, len(b))] = rng2.randrange(256)
        broken = os.path.join(tmp, f"flip{i}.h5")
        open(broken, "wb").write(bytes(b))
        p = run("describe", broken, "--values", ok=False)
        check(p.returncode >= 0 and p.returncode in (0, 1, 2), f"flipped bytes {i}: exit {p.returncode} {p.stderr[-300:]}")

    return check.summary()


if __name__ == "__main__":
    sys.exit(main())
