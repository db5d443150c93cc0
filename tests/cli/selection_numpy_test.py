#!/usr/bin/python3
"""Every selection `dudley dump` accepts, checked against numpy's own indexing of the same array.

Arrays of several ranks, dtypes and byte orders (text and structs included) are written with
numpy as raw bytes beside a layout; each selection, hand-picked edge cases plus random ones
from a fixed seed, is dumped with --json and compared with numpy's result for the same text.
Selections numpy refuses must be refused (exit 2). Run with Debian's python3 (numpy).

usage: selection_numpy_test.py DUDLEY
"""
import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

DUDLEY = sys.argv[1]
failures = 0
checks = 0


def fail(message):
    global failures
    failures += 1
    print("FAIL: " + message)


def as_json_values(a):
    """numpy values in dump's JSON form: nested lists, NaN as "NaN", structs as objects."""
    if isinstance(a, np.ndarray) and a.dtype.names is None and a.dtype.kind != 'S':
        return as_json_values(a.tolist())
    if isinstance(a, np.ndarray):
        return [as_json_values(x) for x in a]
    if isinstance(a, np.void):
        return {n: as_json_values(a[n]) for n in a.dtype.names}
    if isinstance(a, list):
        return [as_json_values(x) for x in a]
    if isinstance(a, bytes):
        return a.decode('latin-1')
    if isinstance(a, np.bytes_):
        return bytes(a).decode('latin-1')
    if isinstance(a, np.generic):
        return as_json_values(a.item())
    if isinstance(a, float) and a != a:
        return "NaN"
    return a


def dump(data, item, *extra):
    r = subprocess.run([DUDLEY, "dump", "--json", *extra, data, item], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def node_of(doc, path):
    node = doc["root"]
    for part in [p for p in path.split("/") if p]:
        node = node["members"][part] if node["kind"] == "group" else node["items"][int(part)]
    return node


def check(data, path, array, selection, expect_refused=None):
    """dump DATA PATH+SELECTION against numpy's array[selection]."""
    global checks
    checks += 1
    item = path + selection
    try:
        # "[]" is dudley's whole array, Python's x[()].
        text = "[()]" if selection == "[]" else selection
        want = eval("array" + text) if selection else array  # noqa: S307 (test text)
        refused = False
    except (IndexError, ValueError, TypeError, SyntaxError):
        refused = True
    code, out, err = dump(data, item)
    if refused:
        if code != 2:
            fail(f"{item}: numpy refuses it, dudley exited {code}: {out[:200]}")
        return
    if code != 0:
        fail(f"{item}: exit {code}: {err.strip()}")
        return
    node = node_of(json.loads(out), path.split('.')[0])
    key = item[len(path.split('.')[0]):]
    got = node["selections"][key]["data"] if key else node["data"]
    if isinstance(want, (np.ndarray, np.generic)) and want.dtype == np.float16:
        # Halves print as the shortest text that reads back as the same half (0.1, not
        # 0.0999755859375): compare the halves they read back as.
        if np.array(got, dtype="<f2").tobytes() != np.asarray(want, dtype="<f2").tobytes():
            fail(f"{item}: got {got}, numpy {want}")
        return
    if got != as_json_values(want):
        fail(f"{item}: got {str(got)[:200]}, numpy {str(as_json_values(want))[:200]}")


def check_lines(data, path, array, selection):
    """--lines row and value: each line's label, as numpy indexing text, gives its values."""
    global checks
    for style in ("row", "value"):
        r = subprocess.run([DUDLEY, "dump", "--lines", style, data, path + selection],
                           capture_output=True, text=True)
        checks += 1
        if r.returncode != 0:
            fail(f"--lines {style} {path}{selection}: exit {r.returncode}: {r.stderr.strip()}")
            continue
        count = 0
        for line in r.stdout.splitlines():
            label, values = line.split(" = ", 1)
            index = label[len(path):]
            want = eval("array" + (index if index not in ("", "[]") else "[()]"))  # noqa: S307
            count += np.size(want)
            if json.loads(values) != as_json_values(want):
                fail(f"--lines {style} {path}{selection}: line '{line}', numpy {want}")
        total = np.size(eval("array" + (selection if selection not in ("", "[]") else "[()]")))  # noqa: S307
        if count != total:
            fail(f"--lines {style} {path}{selection}: {count} values in the lines, numpy {total}")


def random_selection(rng, shape):
    parts = []
    dims = list(range(len(shape)))
    used = rng.randint(0, len(shape))
    ellipsis_at = rng.randint(0, used) if rng.random() < 0.3 else None
    for i in range(used):
        if i == ellipsis_at:
            parts.append("...")
        n = shape[i]
        kind = rng.random()
        if kind < 0.25:
            parts.append(str(rng.randint(-n - 1, n)))  # out of range sometimes: refused
        else:
            def bound():
                return "" if rng.random() < 0.3 else str(rng.randint(-n - 3, n + 3))
            step = "" if rng.random() < 0.3 else str(rng.choice([-7, -3, -2, -1, 1, 2, 3, 5, 100, -100]))
            parts.append(f"{bound()}:{bound()}" + (f":{step}" if step or rng.random() < 0.5 else ""))
    if ellipsis_at is not None and ellipsis_at >= used:
        parts.append("...")
    return "[" + ", ".join(parts) + "]"


with tempfile.TemporaryDirectory() as tmp:
    data = os.path.join(tmp, "sel.bin")
    rng = np.random.default_rng(7)
    arrays = {
        "ids": np.arange(7, dtype="<i4"),
        "cube": rng.standard_normal((3, 4, 5)).astype("<f8"),
        "big": (np.arange(2 * 3 * 4 * 2, dtype=">u2") * 7).reshape(2, 3, 4, 2),
        "half": np.array([0.1, -2.5, 65504, 1e-4, 0.3333], dtype="<f2"),
        "one": np.array(42, dtype="<i8"),
        "empty": np.zeros((0, 3), dtype="<f4"),
    }
    names = np.array([b"alpha", b"beta", b"gamma", b"delta"], dtype="S6")
    rec_t = np.dtype([("pos", "<f4", (3,)), ("id", "<i4"), ("tag", "S4")])
    recs = np.zeros(5, dtype=rec_t)
    recs["pos"] = np.arange(15, dtype="<f4").reshape(5, 3) / 4
    recs["id"] = np.arange(5) * 10 - 20
    recs["tag"] = [b"a", b"bb", b"ccc", b"dddd", b""]
    layout = []
    blob = b""
    for name, a in arrays.items():
        code = {"i": "i", "u": "u", "f": "f"}[a.dtype.kind] + str(a.dtype.itemsize)
        order = ">" if a.dtype.byteorder == ">" else "<"
        shape = "[" + ", ".join(map(str, a.shape)) + "]" if a.shape else ""
        layout.append(f"{name} = {order}{code}{shape} @ {len(blob)}")
        blob += a.tobytes()
    layout.append(f"names = S1[4, 6] @ {len(blob)}")
    blob += names.tobytes()
    layout.append("rec := { pos = <f4[3]  id = <i4  tag = S1[4] }")
    layout.append(f"recs = rec[5] @ {len(blob)}")
    blob += recs.tobytes()
    open(data, "wb").write(blob)
    open(os.path.join(tmp, "sel.dud"), "w").write("\n".join(layout) + "\n")

    edge = ["", "[::-1]", "[::-2]", "[::-100]", "[5:1:-2]", "[-1]", "[-8]", "[7]", "[...]",
            "[::0]", "[1:1]", "[10:-10:-1]", "[-100:100]", "[..., 2]", "[..., ...]", "[1,]"]
    for sel in edge:
        check(data, "/ids", arrays["ids"], sel)
    for sel in ["[1]", "[-1, -1, -1]", "[..., 0]", "[0, ..., 1:3]", "[::-1, ::2, 4:0:-2]",
                "[1, 2, 3, 4]", "[:, -1]", "[2:0:-1, ..., ::-3]"]:
        check(data, "/cube", arrays["cube"], sel)
    for sel in ["", "[0]", "[::-1]", "[1:3]"]:
        check(data, "/half", arrays["half"], sel)
    for sel in ["", "[...]", "[0]"]:
        check(data, "/one", arrays["one"], sel)
    for sel in ["", "[:, 0]", "[0]", "[::-1, 1:]"]:
        check(data, "/empty", arrays["empty"], sel)
    # Text: the last dimension is the strings; numpy's S6 array has it inside each element.
    for sel, want in [("", names), ("[::-1]", names[::-1]), ("[2]", names[2]), ("[1:3]", names[1:3])]:
        code, out, err = dump(data, "/names" + sel)
        got = node_of(json.loads(out), "/names")
        got = got["selections"][sel]["data"] if sel else got["data"]
        checks += 1
        if got != as_json_values(want):
            fail(f"/names{sel}: got {got}, numpy {as_json_values(want)}")
    # Struct fields: /recs.pos[...] is numpy's recs['pos'][...]; /recs[...].id is recs[...]['id'].
    for sel in ["", "[0]", "[::-1]", "[1:4:2, ::-1]", "[..., 0]", "[-1, -1]"]:
        check(data, "/recs.pos", recs["pos"], sel)
    for sel, want in [("[::-2]", recs[::-2]["id"]), ("[3]", recs[3]["id"]), ("", recs["id"])]:
        checks += 1
        code, out, err = dump(data, "/recs" + sel + ".id")
        want = as_json_values(want)
        got = node_of(json.loads(out), "/recs")["selections"][sel + ".id"]["data"]
        if got != want:
            fail(f"/recs{sel}.id: got {got}, numpy {want}")
    check(data, "/recs", recs, "[::-2]")

    for sel in ["", "[::-1, 1:3]", "[1, 1:, ::-2]", "[:, 3:0:-1]", "[2:0:-1, ..., ::-3]", "[0]",
                "[..., 2]", "[-1, -1, -1]", "[:, ::-1, 4:0:-2]"]:
        check_lines(data, "/cube", arrays["cube"], sel)
    for sel in ["", "[::-1]", "[5:1:-2]", "[-1]", "[::-3]"]:
        check_lines(data, "/ids", arrays["ids"], sel)

    # Random selections of a 4-D big-endian array and the 3-D one.
    pick = random.Random(11)
    for i in range(150):
        sel = random_selection(pick, arrays["big"].shape)
        check(data, "/big", arrays["big"], sel)
        if i % 10 == 0 and subprocess.run([DUDLEY, "dump", data, "/big" + sel],
                                          capture_output=True).returncode == 0:
            check_lines(data, "/big", arrays["big"], sel)
    for _ in range(100):
        check(data, "/cube", arrays["cube"], random_selection(pick, arrays["cube"].shape))

print(f"selections against numpy: {checks - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
