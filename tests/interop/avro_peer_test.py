#!/usr/bin/python3
"""Avro both ways against its peers, in `make test`.

1. Container files of YEP-113 ndarray records written by python3-avro (codecs null, deflate,
   bzip2) and by avsc (null, deflate), every typestr of the resolutions in both byte orders,
   0-d and empty arrays: `dudley dump --json` gives numpy's values of each record.
2. A yaq-like nested schema (a record with an ndarray field, a union with one, a map and an
   array of them, plain fields) written by python3-avro: each record is a group whose
   ndarrays are members and whose other fields are attributes.
3. Containers we write (from an ASDF file of every type, Fortran-order and big-endian arrays
   among them) with each codec, read by python3-avro (null, deflate, bzip2) and avsc (null,
   deflate); and records of the nested schema converted Avro -> Avro, read by python3-avro.
4. Our records' datum bytes (the block of a one-block null container) equal python3-avro's
   DatumWriter and avsc's toBuffer for the same records.

Usage: avro_peer_test.py DUDLEY
"""
import io
import json
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np

warnings.simplefilter("ignore")  # python3-avro warns that it does not know logicalType ndarray
import avro.datafile  # noqa: E402
import avro.io  # noqa: E402
import avro.schema  # noqa: E402

DUDLEY = os.path.abspath(sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
failures = []
checked = 0

NDARRAY = {"name": "ndarray", "type": "record", "logicalType": "ndarray",
           "fields": [{"name": "shape", "type": {"type": "array", "items": "int"}},
                      {"name": "typestr", "type": "string"}, {"name": "data", "type": "bytes"},
                      {"name": "version", "type": "int"}]}
TYPESTRS = ["|b1", "|i1", "<i2", ">i2", "<i4", ">i4", "<i8", ">i8", "|u1", "<u2", ">u2", "<u4",
            ">u4", "<u8", ">u8", "<f2", ">f2", "<f4", ">f4", "<f8", ">f8", "<c8", ">c8", "<c16",
            ">c16", "=f8", "<u1"]
SHAPES = [[2, 3], [], [0], [4, 0, 2], [5]]


def check(name, ok, detail=""):
    global checked
    checked += 1
    if not ok:
        failures.append(f"{name}: {detail}"[:2000])


def sample(typestr, shape):
    dt = np.dtype(typestr.replace("=", "<") if typestr[0] == "=" else typestr)
    n = int(np.prod(shape)) if shape else 1
    k = np.arange(n)
    if dt.kind == "b":
        a = k % 3 == 0
    elif dt.kind == "c":
        a = k * 0.5 - 1j * k
    elif dt.kind == "f":
        a = k * 0.25 - 1
    elif dt.kind == "u":
        a = k * 3
    else:
        a = k * 5 - 7
    return np.asarray(a).astype(dt).reshape(shape)


def record_of(a, typestr=None):
    return {"shape": list(a.shape), "typestr": typestr or a.dtype.str, "data": a.tobytes(),
            "version": 3}


def run(*args):
    return subprocess.run([DUDLEY, *args], capture_output=True, text=True)


def dumped(path):
    proc = run("dump", "--json", path)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    return json.loads(proc.stdout)["root"]


def values_equal(got, want):
    want = np.asarray(want)
    if want.dtype.kind == "c":
        got = np.array(got, dtype=float)
        if want.ndim == 0:
            return complex(*got) == complex(want)
        return np.array_equal(got[..., 0] + 1j * got[..., 1], want)
    return np.array_equal(np.array(got, dtype=want.dtype) if want.size else np.zeros(want.shape, want.dtype),
                          want)


def cases():
    return [(t, s, sample(t, s)) for t in TYPESTRS for s in SHAPES[:2]] + \
           [("<f8", s, sample("<f8", s)) for s in SHAPES[2:]]


def peers_write(tmp):
    records = [(t, a, record_of(a, t)) for t, _, a in cases()]
    schema = avro.schema.parse(json.dumps(NDARRAY))
    files = {}
    for codec in ("null", "deflate", "bzip2"):
        path = f"{tmp}/py_{codec}.avro"
        with avro.datafile.DataFileWriter(open(path, "wb"), avro.io.DatumWriter(), schema,
                                          codec=codec) as w:
            for _, _, r in records:
                w.append(r)
        files[f"python3-avro {codec}"] = path
    for codec in ("null", "deflate"):
        path = f"{tmp}/js_{codec}.avro"
        doc = {"schema": NDARRAY, "records": [dict(r, data={"hex": r["data"].hex()}) for _, _, r in records]}
        proc = subprocess.run(["node", f"{HERE}/avsc_peer.mjs", "write", path, codec],
                              input=json.dumps(doc), capture_output=True, text=True)
        check(f"avsc writes {codec}", proc.returncode == 0, proc.stderr)
        files[f"avsc {codec}"] = path
    for peer, path in files.items():
        try:
            root = dumped(path)
        except RuntimeError as e:
            check(f"read {peer}", False, str(e))
            continue
        items = root["items"]
        check(f"{peer}: every record", len(items) == len(records), str(len(items)))
        for item, (typestr, a, _) in zip(items, records):
            ok = item["kind"] == "array" and item["shape"] == list(a.shape) and values_equal(item["data"], a)
            check(f"{peer}: {typestr} {list(a.shape)}", ok, f"{item} != {a.tolist()}")
        check(f"{peer}: the codec is named", root["attributes"]["avro.codec"] == peer.split()[-1],
              str(root.get("attributes")))
    # Zero records: the header alone.
    path = f"{tmp}/py_empty.avro"
    avro.datafile.DataFileWriter(open(path, "wb"), avro.io.DatumWriter(), schema, codec="deflate").close()
    root = dumped(path)
    check("zero records read as an empty list", root["items"] == [], str(root))


MESSAGE = {"type": "record", "name": "Message", "namespace": "yaq", "fields": [
    {"name": "id", "type": "long"},
    {"name": "label", "type": "string"},
    {"name": "image", "type": NDARRAY},
    {"name": "maybe", "type": ["null", "string", "yaq.ndarray"]},
    {"name": "channels", "type": {"type": "map", "values": "yaq.ndarray"}},
    {"name": "frames", "type": {"type": "array", "items": "yaq.ndarray"}},
    {"name": "mode", "type": {"type": "enum", "name": "Mode", "symbols": ["fast", "slow"]}},
    {"name": "gain", "type": "double"}]}


def messages():
    out = []
    for k in range(4):
        out.append({"id": k - 2, "label": f"scan {k}", "image": record_of(sample("<f4", [2, 2]) + k),
                    "maybe": None if k == 0 else ("text" if k == 1 else record_of(sample(">i2", [3]))),
                    "channels": {"a": record_of(sample("<u2", [2])), "b": record_of(sample("|b1", [3]))},
                    "frames": [record_of(sample("<c8", [k]))] * (k % 3),
                    "mode": "slow" if k % 2 else "fast", "gain": 0.5 * k})
    return out


def meaning(value):
    """A datum with each ndarray record as (shape, its values as a list)."""
    if isinstance(value, dict) and set(value) == {"shape", "typestr", "data", "version"}:
        a = np.frombuffer(value["data"], dtype=value["typestr"]).reshape(value["shape"])
        return ("ndarray", tuple(value["shape"]), a.tolist())
    if isinstance(value, dict):
        return {k: meaning(v) for k, v in value.items()}
    if isinstance(value, list):
        return [meaning(v) for v in value]
    return value


def nested(tmp):
    schema = avro.schema.parse(json.dumps(MESSAGE))
    path = f"{tmp}/nested.avro"
    with avro.datafile.DataFileWriter(open(path, "wb"), avro.io.DatumWriter(), schema, codec="deflate") as w:
        for m in messages():
            w.append(m)
    root = dumped(path)
    for k, (item, m) in enumerate(zip(root["items"], messages())):
        attrs = item.get("attributes", {})
        ok = (item["kind"] == "group" and attrs.get("id") == m["id"] and attrs.get("label") == m["label"]
              and attrs.get("mode") == m["mode"] and attrs.get("gain") == m["gain"])
        check(f"nested record {k}: plain fields are attributes", ok, str(attrs))
        members = item["members"]
        check(f"nested record {k}: image", values_equal(members["image"]["data"], sample("<f4", [2, 2]) + k),
              str(members.get("image")))
        if k == 0:
            check("a null union branch is an attribute", attrs.get("maybe", "missing") is None, str(attrs))
        elif k == 1:
            check("a string union branch is an attribute", attrs.get("maybe") == "text", str(attrs))
        else:
            check("an ndarray union branch is a member", values_equal(members["maybe"]["data"], sample(">i2", [3])),
                  str(members.get("maybe")))
        ch = members["channels"]["members"]
        check(f"nested record {k}: map of ndarrays", values_equal(ch["a"]["data"], sample("<u2", [2])) and
              values_equal(ch["b"]["data"], sample("|b1", [3])), str(ch))
        frames = members["frames"]["items"]
        check(f"nested record {k}: array of ndarrays", len(frames) == k % 3 and
              all(values_equal(f["data"], sample("<c8", [k])) for f in frames), str(frames))
    # Avro -> Avro keeps the schema: python3-avro reads the same messages back.
    out = f"{tmp}/nested_ours.avro"
    proc = run("convert", "-q", "--avro-codec", "deflate", path, out)
    check("nested records convert Avro -> Avro", proc.returncode == 0, proc.stderr)
    if proc.returncode == 0:
        got = list(avro.datafile.DataFileReader(open(out, "rb"), avro.io.DatumReader()))
        # Equal in meaning: ndarray records as arrays (ours are little endian, resolution 2).
        check("python3-avro reads our nested records as written",
              meaning(got) == meaning(messages()), f"{got[:1]} != {messages()[:1]}")


def ours_read_by_peers(tmp):
    import asdf
    # ASDF has no float16: those records are covered by the peers' files and the datums.
    # (Names sort as written: the ASDF writer sorts keys.)
    arrays = {f"a{i:03d}": a for i, (t, _, a) in enumerate(cases()) if t[1:] != "f2"}
    arrays["fortran"] = np.asfortranarray(np.arange(12, dtype="<f8").reshape(3, 4))
    arrays["strided"] = np.arange(20, dtype=">i4")[::3]
    src = f"{tmp}/src.asdf"
    asdf.AsdfFile(arrays).write_to(src)
    want = list(arrays.values())
    for codec in ("null", "deflate", "bzip2", "zstandard"):
        out = f"{tmp}/ours_{codec}.avro"
        proc = run("convert", "-q", "--avro-codec", codec, src, out)
        check(f"convert to Avro ({codec})", proc.returncode == 0, proc.stderr)
        if proc.returncode != 0:
            continue
        # Back through ourselves (zstandard has no peer here).
        root = dumped(out)
        check(f"our {codec} container reads back", len(root["items"]) == len(want) and all(
            values_equal(i["data"], w) for i, w in zip(root["items"], want)), str(root["items"][:2]))
        if codec in ("null", "deflate", "bzip2"):
            got = list(avro.datafile.DataFileReader(open(out, "rb"), avro.io.DatumReader()))
            ok = len(got) == len(want)
            for r, w in zip(got, want):
                a = np.frombuffer(r["data"], dtype=r["typestr"]).reshape(r["shape"])
                exp_type = "|b1" if w.dtype.kind == "b" else ("|" if w.dtype.itemsize == 1 else "<") + w.dtype.str[1:]
                ok = ok and r["version"] == 3 and r["typestr"] == exp_type and np.array_equal(a, w)
            check(f"python3-avro reads our {codec} container", ok, str(got[:2]))
        if codec in ("null", "deflate"):
            proc = subprocess.run(["node", f"{HERE}/avsc_peer.mjs", "read", out], capture_output=True, text=True)
            ok = proc.returncode == 0
            if ok:
                got = json.loads(proc.stdout)
                ok = len(got) == len(want) and all(
                    np.array_equal(np.frombuffer(bytes.fromhex(r["data"]["hex"]), r["typestr"]).reshape(r["shape"]), w)
                    for r, w in zip(got, want))
            check(f"avsc reads our {codec} container", ok, proc.stderr or proc.stdout[:300])


def varint(buf, at):
    shift = value = 0
    while True:
        b = buf[at]
        at += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return (value >> 1) ^ -(value & 1), at


def block_bytes(path):
    """The records of the first block of a null container (its header walked by hand)."""
    buf = open(path, "rb").read()
    at = 4
    while True:
        n, at = varint(buf, at)
        if n == 0:
            break
        for _ in range(abs(n)):
            k, at = varint(buf, at)
            at += k
            v, at = varint(buf, at)
            at += v
    at += 16
    _, at = varint(buf, at)
    size, at = varint(buf, at)
    return buf[at:at + size]


def datums_identical(tmp):
    import asdf
    arrays = [sample(t, s) for t, s in (("<f8", [2, 3]), ("|b1", [4]), ("<i2", []), ("<c16", [0]), ("|u1", [3, 1]))]
    src = f"{tmp}/datum_src.asdf"
    asdf.AsdfFile({f"x{i}": a for i, a in enumerate(arrays)}).write_to(src)
    out = f"{tmp}/datums.avro"
    proc = run("convert", "-q", src, out)
    check("convert for datums", proc.returncode == 0, proc.stderr)
    ours = block_bytes(out)
    schema = avro.schema.parse(json.dumps(NDARRAY))
    theirs = b""
    for a in arrays:
        buf = io.BytesIO()
        avro.io.DatumWriter(schema).write(record_of(a), avro.io.BinaryEncoder(buf))
        theirs += buf.getvalue()
    check("our datums are byte for byte python3-avro's", ours == theirs, f"{ours.hex()} != {theirs.hex()}")
    js = b""
    for a in arrays:
        r = record_of(a)
        doc = {"schema": NDARRAY, "record": dict(r, data={"hex": r["data"].hex()})}
        proc = subprocess.run(["node", f"{HERE}/avsc_peer.mjs", "datum"], input=json.dumps(doc),
                              capture_output=True, text=True)
        js += bytes.fromhex(proc.stdout)
    check("our datums are byte for byte avsc's", ours == js, f"{ours.hex()} != {js.hex()}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        peers_write(tmp)
        nested(tmp)
        ours_read_by_peers(tmp)
        datums_identical(tmp)
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        sys.exit(1)
    print(f"avro peers: {checked} checks passed")


main()
