"""Asserts that two `dudley dump --json` outputs hold the same arrays (paths, shapes, data).

Usage: same_arrays.py A.json B.json COUNT [--any-order]
COUNT is the number of arrays expected; --any-order accepts another byte order in dtypes.
"""
import json
import sys


def arrays(node, path, out):
    if node["kind"] == "array":
        out[path] = (node["dtype"], node["shape"], node["data"])
    for k, v in node.get("members", {}).items():
        arrays(v, path + "/" + k, out)
    for i, v in enumerate(node.get("items", [])):
        arrays(v, path + "/" + str(i), out)
    return out


a = arrays(json.load(open(sys.argv[1]))["root"], "", {})
b = arrays(json.load(open(sys.argv[2]))["root"], "", {})
assert a.keys() == b.keys(), (a.keys() ^ b.keys())
assert len(a) == int(sys.argv[3]), len(a)
any_order = "--any-order" in sys.argv[4:]
for k in a:
    assert a[k][1:] == b[k][1:], k
    if any_order:
        same = json.dumps(b[k][0]).replace(">", "<") == json.dumps(a[k][0]).replace(">", "<")
    else:
        same = a[k][0] == b[k][0]
    assert same, (k, a[k][0], b[k][0])
