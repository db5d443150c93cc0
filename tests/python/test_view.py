"""`dudley view`: its JSON API answered as documented (src/view/api.hpp), bounded, read-only,
for 127.0.0.1 only, and the server stopping cleanly (issue 42). The server runs on 127.0.0.1
on a port the system picks, started by each test and always stopped."""
import contextlib
import json
import os
import pathlib
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import h5py
import numpy as np
import pytest
import zarr

from cli_runner import DUDLEY, ENV

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
from nginx_server import NginxServer  # noqa: E402  (tests/interop: nginx on 127.0.0.1)


@contextlib.contextmanager
def viewer(path, *options):
    p = subprocess.Popen([DUDLEY, "view", str(path), "--json", *options], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        line = p.stdout.readline()
        assert line, p.stderr.read()
        started = json.loads(line)
        host = options[options.index("--bind") + 1] if "--bind" in options else "127.0.0.1"
        assert started["url"] == f"http://{host}:{started['port']}/"
        yield started["port"], p
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                raise


def get(port, path, params=None, headers=None):
    """(status, content type, body bytes) of GET path?params."""
    url = f"http://127.0.0.1:{port}{path}"
    if params:
        url += "?" + urllib.parse.urlencode(params)
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read()


def get_json(port, path, params=None):
    status, kind, body = get(port, path, params)
    assert kind.startswith("application/json"), (status, kind, body[:200])
    return status, json.loads(body)


def slice_of(body):
    """The head and the values of a /api/slice answer."""
    (length,) = struct.unpack_from("<I", body)
    head = json.loads(body[4:4 + length])
    at = (4 + length + 7) // 8 * 8
    dtype = {"float64": "<f8", "float32": "<f4", "uint8": "u1"}[head["data"]]
    count = (len(body) - at) // (np.dtype(dtype).itemsize + (1 if "mask" in head else 0))
    values = np.frombuffer(body[at:], dtype=dtype, count=count)
    return head, values


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "sample.h5"
    with h5py.File(path, "w") as f:
        f["cube"] = np.arange(4 * 30 * 50, dtype="<f4").reshape(4, 30, 50)
        f["g/line"] = np.sin(np.arange(100_000) / 1000.0)
        f["g/names"] = np.array([b"alpha", b"beta", b"gamma"])
        f["big"] = np.zeros((5000, 3000), dtype="<f8")
        f["recs"] = np.array([(1, 2.5), (3, 4.5)], dtype=[("a", "<i4"), ("b", "<f8")])
        f["cube"].attrs["units"] = "K"
    return path


def test_page_and_info(sample):
    with viewer(sample) as (port, _):
        status, kind, body = get(port, "/")
        assert status == 200 and kind.startswith("text/html") and b"viewer.js" in body
        status, kind, body = get(port, "/viewer.js")
        assert status == 200 and kind.startswith("text/javascript") and len(body) > 1000
        status, info = get_json(port, "/api/info")
        assert status == 200 and info["data"] == str(sample) and info["format"] == "hdf5"
        assert set(info["colormaps"]) >= {"viridis", "magma", "grey", "coolwarm"}
        assert len(info["colormaps"]["viridis"]) == 256


def without_counts(node):
    """A tree of /api/tree without its "members_count" (the count of each group's members,
    which `ls --json` lists whole)."""
    if isinstance(node, dict):
        return {k: without_counts(v) for k, v in node.items() if k != "members_count"}
    if isinstance(node, list):
        return [without_counts(v) for v in node]
    return node


def test_tree_is_the_model_json_ls_prints(sample):
    with viewer(sample) as (port, _):
        status, tree = get_json(port, "/api/tree")
        assert status == 200
    ls = json.loads(subprocess.run([DUDLEY, "ls", str(sample), "--json"], capture_output=True,
                                   text=True, env=ENV, check=True).stdout)
    assert without_counts(tree["root"]) == ls["root"] and tree["format"] == ls["format"]
    assert tree["root"]["members_count"] == 4 and tree["root"]["members"]["g"]["members_count"] == 2


def test_item(sample):
    with viewer(sample) as (port, _):
        status, item = get_json(port, "/api/item", {"path": "/cube"})
        assert status == 200 and item["item"]["shape"] == [4, 30, 50]
        assert item["item"]["attributes"]["units"] == "K"
        status, answer = get_json(port, "/api/item", {"path": "/nothing"})
        assert status == 400 and "no item /nothing" in answer["error"]


def test_slice_values_match_numpy(sample):
    with viewer(sample) as (port, _):
        status, kind, body = get(port, "/api/slice", {"path": "/cube", "sel": "[2, :, ::-1]"})
        assert status == 200 and kind == "application/octet-stream"
        head, values = slice_of(body)
        want = np.arange(4 * 30 * 50, dtype="<f4").reshape(4, 30, 50)[2, :, ::-1]
        assert head["kind"] == "heatmap" and head["shown"] == [30, 50] and head["step"] == [1, 1]
        assert head["data"] == "float32"  # float32 values go as float32: half the bytes
        assert head["x"] == {"name": "axis 2", "start": 49, "step": -1}
        assert np.array_equal(values.reshape(30, 50), want)
        assert head["min"] == want.min() and head["max"] == want.max()


def test_huge_slices_are_decimated_and_bounded(sample):
    """A 5000 x 3000 array asked for 300 x 200 pixels: every k-th element, at most that many
    values; asking for more than 4096 a side is refused."""
    with viewer(sample) as (port, _):
        status, _, body = get(port, "/api/slice", {"path": "/big", "rows": 300, "cols": 200})
        head, values = slice_of(body)
        assert status == 200 and head["step"] == [17, 15]
        assert head["shown"] == [len(range(0, 5000, 17)), len(range(0, 3000, 15))]
        assert values.size == head["shown"][0] * head["shown"][1] <= 300 * 200
        status, answer = get_json(port, "/api/slice", {"path": "/big", "rows": 100000})
        assert status == 400 and "rows=100000" in answer["error"]


def test_long_lines_come_as_least_and_greatest(sample):
    with viewer(sample) as (port, _):
        status, _, body = get(port, "/api/slice", {"path": "/g/line", "cols": 500})
        head, values = slice_of(body)
    line = np.sin(np.arange(100_000) / 1000.0)
    assert status == 200 and head["kind"] == "line" and head["buckets"] == 500
    assert values.size == 1000
    for b in (0, 123, 499):
        part = line[b * 100_000 // 500:(b + 1) * 100_000 // 500]
        assert values[2 * b] == part.min() and values[2 * b + 1] == part.max()


def test_values_page(sample):
    with viewer(sample) as (port, _):
        status, page = get_json(port, "/api/values", {"path": "/cube", "sel": "[1]", "row": 10,
                                                      "rows": 3, "col": 45, "cols": 10})
        cube = np.arange(4 * 30 * 50, dtype="<f4").reshape(4, 30, 50)
        assert status == 200 and page["selected"] == [30, 50] and page["page"] == [3, 10]
        assert np.array_equal(np.array(page["values"], dtype="<f4"), cube[1, 10:13, 45:50])
        status, page = get_json(port, "/api/values", {"path": "/g/names"})
        assert page["values"] == ["alpha", "beta", "gamma"]
        status, page = get_json(port, "/api/values", {"path": "/recs"})
        assert page["values"] == [{"a": 1, "b": 2.5}, {"a": 3, "b": 4.5}]
        status, answer = get_json(port, "/api/values", {"path": "/big", "rows": 20000})
        assert status == 400 and "rows=20000" in answer["error"]
        status, answer = get_json(port, "/api/values", {"path": "/big", "rows": 1000, "cols": 1000})
        assert status == 413 and "at most 10000 values" in answer["error"]


def test_exports(sample, tmp_path):
    with viewer(sample) as (port, _):
        status, kind, body = get(port, "/api/export", {"path": "/cube", "sel": "[3, 0:2, 0:4]",
                                                       "format": "csv"})
        assert status == 200 and kind.startswith("text/csv")
        cube = np.arange(4 * 30 * 50, dtype="<f4").reshape(4, 30, 50)
        rows = [list(map(float, line.split(","))) for line in body.decode().splitlines()]
        assert np.array_equal(np.array(rows, dtype="<f4"), cube[3, 0:2, 0:4])
        status, kind, body = get(port, "/api/export", {"path": "/cube", "sel": "[3]",
                                                       "format": "npy"})
        (tmp_path / "x.npy").write_bytes(body)
        assert np.array_equal(np.load(tmp_path / "x.npy"), cube[3])
        status, kind, body = get(port, "/api/plot", {"path": "/cube", "sel": "[0]",
                                                     "colormap": "magma"})
        assert status == 200 and kind == "image/png" and body[:8] == b"\x89PNG\r\n\x1a\n"
        # Every parameter the page's "export PNG" link sends is taken, and each tells.
        every = {"path": "/cube", "sel": "[0]", "colormap": "magma", "scale": "symlog",
                 "vmin": "1", "vmax": "900", "width": "320", "height": "200", "fill": "1",
                 "complex": "magnitude"}
        pictures = {}
        for reverse in ("0", "1"):
            status, kind, picture = get(port, "/api/plot", dict(every, reverse=reverse))
            assert status == 200 and kind == "image/png", picture[:200]
            assert struct.unpack(">II", picture[16:24]) == (320, 200)  # IHDR width, height
            pictures[reverse] = picture
        assert pictures["0"] != pictures["1"]
        status, answer = get_json(port, "/api/export", {"path": "/cube", "format": "xls"})
        assert status == 400 and "csv or npy" in answer["error"]


@pytest.mark.parametrize("path, params, status, words", [
    ("/api/slice", {}, 400, "needs path="),
    ("/api/slice", {"path": "cube"}, 400, "starts with /"),
    ("/api/slice", {"path": "/cube", "sel": "[0, 0, 0]"}, 400, "selects 0 dimensions"),
    ("/api/slice", {"path": "/cube", "sel": "[9]"}, 400, "out of bounds"),
    ("/api/slice", {"path": "/cube", "sel": "[0", "rows": "x"}, 400, "rows=x"),
    ("/api/slice", {"path": "/g/names"}, 400, "a figure draws numbers"),
    ("/api/values", {"path": "/cube"}, 400, "a table shows 1 or 2"),
    ("/api/plot", {"path": "/cube", "sel": "[0]", "colormap": "jet"}, 400, "no colour map"),
    ("/api/plot", {"path": "/cube", "sel": "[0]", "vmin": "nan"}, 400, "finite number"),
    # A parameter the request does not read is refused with the list of those it does (a
    # misspelt cmap= was once drawn with the default colour map), and so are flag values
    # other than those it takes (reverse=yes was once taken as not reversed).
    ("/api/plot", {"path": "/cube", "sel": "[0]", "cmap": "magma"}, 400,
     "/api/plot takes path, sel, width, height, colormap, reverse, scale, vmin, vmax, fill, "
     "complex, not cmap="),
    ("/api/tree", {"depth": "1"}, 400, "/api/tree takes no query parameters, not depth="),
    ("/api/item", {"path": "/cube", "sel": "[0]"}, 400, "/api/item takes path, not sel="),
    ("/api/plot", {"path": "/cube", "sel": "[0]", "reverse": "yes"}, 400, "reverse=yes: give 0 or 1"),
    ("/api/plot", {"path": "/cube", "sel": "[0]", "fill": "true"}, 400, "fill=true: give 0 or 1"),
    ("/api/slice", {"path": "/cube", "sel": "[0]", "complex": "angle"}, 400,
     "complex=angle: give magnitude or phase"),
    ("/api/nothing", {}, 404, "nothing at /api/nothing"),
    ("/../../etc/passwd", {}, 404, "nothing at"),
])
def test_malformed_queries_get_400_and_a_message(sample, path, params, status, words):
    with viewer(sample) as (port, _):
        got, answer = get_json(port, path, params)
        assert got == status and words in answer["error"], answer


def test_a_file_claiming_huge_elements_is_read_in_pages_that_fit(tmp_path):
    # A 2 KB file whose datasets were never written claims 16 MiB strings and 8000-byte
    # compounds: a page of them read as fill values would allocate gigabytes (a page of
    # 1000 strings once asked for 16 GB). Each request reads at most 64 MiB: a table page
    # holds fewer rows, then fewer columns, and says so; an element alone larger is refused.
    path = tmp_path / "claims.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("s", shape=(10000,), dtype="S16777216")
        f.create_dataset("t", shape=(3, 100), dtype="S1048576")
        f.create_dataset("c", shape=(20000,), dtype=np.dtype([("a", "f8", (1000,))]))
        f.create_dataset("huge", shape=(2,), dtype="S83886080")  # 80 MiB an element
    assert path.stat().st_size < 4096
    with viewer(path) as (port, _):
        for endpoint, params, words in [
                ("/api/values", {"path": "/huge", "rows": "1"},
                 "1 elements of 83886080 bytes each are more than the 64 MiB a request reads; "
                 "a table page holds one at least"),
                ("/api/array", {"path": "/c", "sel": "[0:9000]"}, "select a part")]:
            status, answer = get_json(port, endpoint, params)
            assert status == 413 and words in answer["error"], (endpoint, answer)
            assert "more than the 64 MiB a request reads" in answer["error"]
        with h5py.File(path) as f:
            for params, page, want in [
                    ({"path": "/s", "row": "10", "rows": "1000"}, [4, 1], f["s"][10:14]),
                    ({"path": "/t", "row": "1", "rows": "50", "cols": "20"}, [3, 20],
                     f["t"][1:3, :20]),  # 64 MiB holds 64 strings: 20 columns, 3 rows
                    ({"path": "/t", "rows": "50", "col": "10", "cols": "100"}, [1, 64],
                     f["t"][0:1, 10:74])]:
                status, answer = get_json(port, "/api/values", params)
                assert status == 200 and answer["page"] == page, answer
                expected = np.vectorize(bytes.decode, otypes=[object])(want).tolist()
                assert answer["values"] == expected, params
            status, answer = get_json(port, "/api/values", {"path": "/c", "rows": "3"})
            rows = np.array([v["a"] for v in answer["values"]])
            assert status == 200 and answer["page"] == [3, 1] and rows.shape == (3, 1000)
            assert not rows.any() and not f["c"][:3]["a"].any()  # the fill value, as h5py reads it


def test_only_reads_and_only_for_this_host(sample):
    with viewer(sample) as (port, _):
        status, _, body = get(port, "/api/tree", headers={"Host": "evil.example:80"})
        assert status == 403 and b"127.0.0.1" in body
        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/tree", data=b"x",
                                         method="POST")
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(request, timeout=10)
        assert e.value.code == 405
        assert get(port, "/api/tree", headers={"Host": f"localhost:{port}"})[0] == 200


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_server_stops_cleanly(sample, sig):
    with viewer(sample) as (port, p):
        assert get(port, "/api/info")[0] == 200
        p.send_signal(sig)
        assert p.wait(timeout=10) == 0
        assert p.stdout.read() == ""  # --json: the one line, nothing after it
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/api/info", timeout=2)


def test_text_mode_and_refusals(sample, tmp_path):
    p = subprocess.Popen([DUDLEY, "view", str(sample)], stdout=subprocess.PIPE, text=True, env=ENV)
    line = p.stdout.readline()
    assert line.startswith(f"dudley view: {sample} at http://127.0.0.1:") and "Ctrl-C" in line
    p.send_signal(signal.SIGINT)
    assert p.wait(timeout=10) == 0 and p.stdout.read() == "dudley view: stopped\n"
    # A missing file: said at once, exit 2, no server left behind.
    p = subprocess.run([DUDLEY, "view", str(tmp_path / "missing.h5")], capture_output=True,
                       text=True, env=ENV, timeout=30)
    assert p.returncode == 2 and "missing.h5" in p.stderr
    p = subprocess.run([DUDLEY, "view", str(sample), "--port", "70000"], capture_output=True,
                       text=True, env=ENV, timeout=30)
    assert p.returncode != 0 and "70000" in p.stderr
    # A port in use: refused with the address named.
    with viewer(sample) as (port, _):
        p = subprocess.run([DUDLEY, "view", str(sample), "--port", str(port), "--json"],
                           capture_output=True, text=True, env=ENV, timeout=30)
        assert p.returncode == 2
        assert f"cannot listen on 127.0.0.1:{port}" in json.loads(p.stdout)["error"]["message"]


def test_bind_elsewhere_warns(sample):
    with viewer(sample, "--bind", "0.0.0.0") as (port, p):
        time.sleep(0.2)
        assert get(port, "/api/info", headers={"Host": f"127.0.0.1:{port}"})[0] == 200
        p.send_signal(signal.SIGINT)
        p.wait(timeout=10)
        assert "warning: serving on 0.0.0.0" in p.stderr.read()


def test_family_shows_its_members(tmp_path):
    """--family: one group per member, named by its file; a member's arrays read by their
    quoted paths ('/"run_1.h5"/x'), as the page asks for them."""
    for i in range(3):
        with h5py.File(tmp_path / f"run_{i}.h5", "w") as f:
            f["x"] = np.arange(6.0).reshape(2, 3) + 10 * i
    p = subprocess.Popen([DUDLEY, "view", "--family", str(tmp_path / "run_*.h5"), "--json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        started = json.loads(p.stdout.readline())
        port = started["port"]
        assert started["data"] == str(tmp_path / "run_*.h5")
        status, tree = get_json(port, "/api/tree")
        assert status == 200 and list(tree["root"]["members"]) == ["run_0.h5", "run_1.h5", "run_2.h5"]
        assert tree["format"] == "hdf5 family"
        status, page = get_json(port, "/api/values", {"path": '/"run_1.h5"/x'})
        assert status == 200 and page["values"] == [[10.0, 11.0, 12.0], [13.0, 14.0, 15.0]]
    finally:
        p.send_signal(signal.SIGINT)
        assert p.wait(timeout=10) == 0
    p = subprocess.run([DUDLEY, "view", "--family", str(tmp_path / "none_*.h5")],
                       capture_output=True, text=True, env=ENV, timeout=30)
    assert p.returncode == 2 and "no file matches" in p.stderr


def test_slices_carry_their_mask(tmp_path):
    import asdf
    values = np.arange(6.0).reshape(2, 3)
    mask = np.array([[True, False, False], [False, False, True]])
    path = tmp_path / "m.asdf"
    asdf.AsdfFile({"m": np.ma.array(values, mask=mask)}).write_to(path)
    with viewer(path) as (port, _):
        status, _, body = get(port, "/api/slice", {"path": "/m"})
    (length,) = struct.unpack_from("<I", body)
    head = json.loads(body[4:4 + length])
    at = (4 + length + 7) // 8 * 8
    assert status == 200 and head["masked"] == 2 and head["mask"] == "uint8"
    data = np.frombuffer(body[at:at + 48], "<f8").reshape(2, 3)
    assert np.array_equal(np.frombuffer(body[at + 48:], "u1").reshape(2, 3), mask.astype("u1"))
    assert np.array_equal(data[~mask], values[~mask]) and np.isnan(data[mask]).all()

    with viewer(path) as (port, _):
        status, page = get_json(port, "/api/values", {"path": "/m"})
    assert status == 200 and page["values"] == [[None, 1.0, 2.0], [3.0, 4.0, None]]
    # Exports: masked values are empty CSV fields; .npy, which cannot say so, is refused.
    with viewer(path) as (port, _):
        status, _, body = get(port, "/api/export", {"path": "/m", "format": "csv"})
        assert status == 200 and body.decode() == ",1.0,2.0\n3.0,4.0,\n"
        status, answer = get_json(port, "/api/export", {"path": "/m", "format": "npy"})
        assert status == 400 and "masked, which .npy cannot say" in answer["error"]
        status, whole = get_json(port, "/api/array", {"path": "/m"})
        assert status == 200 and whole["masked"] == 2
        assert whole["data"] == [[None, 1.0, 2.0], [3.0, 4.0, None]]
        status, row = get_json(port, "/api/array", {"path": "/m", "sel": "[1]"})
        assert status == 200 and row["data"] == [3.0, 4.0, None] and row["masked"] == 1


def test_item_of_a_group_is_the_group_alone(sample):
    with viewer(sample) as (port, _):
        status, item = get_json(port, "/api/item", {"path": "/g"})
    assert status == 200 and item["item"]["kind"] == "group" and "members" not in item["item"]


@pytest.fixture
def chunked(tmp_path):
    """A gzip-chunked array whose chunks the viewer's bands follow (chunk rows of 37)."""
    path = tmp_path / "chunked.h5"
    values = np.random.default_rng(11).standard_normal((1000, 700))
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=values, chunks=(37, 50), compression="gzip")
    return path, values


@pytest.mark.parametrize("sel, rows, cols", [("", 100, 80), ("[::-1, 3:]", 1000, 700),
                                             ("[5:990:3, ::-7]", 64, 64)])
def test_slices_read_in_bands_match_numpy(chunked, sel, rows, cols):
    """Slices are read in bands of whole chunk rows (so that the time limit is looked at
    between them): the values are numpy's, steps and reversed selections alike."""
    path, values = chunked
    index = eval("np.s_" + (sel or "[:, :]"))
    with viewer(path) as (port, _):
        status, _, body = get(port, "/api/slice", {"path": "/x", "sel": sel, "rows": rows,
                                                   "cols": cols})
        assert status == 200
        head, got = slice_of(body)
        ry, rx = head["step"]
        want = values[index][::ry, ::rx]
        assert list(want.shape) == head["shown"]
        assert np.array_equal(got.reshape(want.shape), want)
        status, _, body = get(port, "/api/export", {"path": "/x", "sel": sel, "format": "npy"})
        assert status == 200
        assert np.array_equal(np.load(__import__("io").BytesIO(body)), values[index])


def test_a_read_past_the_time_limit_is_refused(chunked):
    """With a time limit of a millisecond, a slice that takes longer is answered 503 with a
    message saying how much was read and what to do; the server answers on, and without the
    limit the same slice is drawn."""
    path, _ = chunked
    with viewer(path, "--time-limit", "0.001") as (port, _):
        for endpoint in ["/api/slice", "/api/plot", "/api/export"]:
            status, answer = get_json(port, endpoint, {"path": "/x"})
            assert status == 503, (endpoint, answer)
            assert "time limit of 0.001 s" in answer["error"]
            assert "selected rows read" in answer["error"] and "--time-limit" in answer["error"]
        status, tree = get_json(port, "/api/tree")
        assert status == 200 and tree["root"]["members"]
    with viewer(path) as (port, _):
        assert get(port, "/api/slice", {"path": "/x"})[0] == 200
    help_text = subprocess.run([DUDLEY, "view", "--help"], capture_output=True, text=True,
                               env=ENV).stdout
    assert "--time-limit" in help_text


@pytest.mark.parametrize("path, sel", [("/cube", "[1:3, ::7, -3:]"), ("/cube", "[2, 4, 5]"),
                                       ("/recs", ""), ("/g/names", "[::-1]"),
                                       ("/g/line", "[10:20]")])
def test_array_values_are_what_dump_json_prints(sample, path, sel):
    """/api/array answers a selection of any number of dimensions with the values `dudley dump
    --json` prints for it (checked against numpy's indexing where the values are numbers)."""
    item = path + sel
    dumped = json.loads(subprocess.run([DUDLEY, "dump", str(sample), item, "--json"],
                                       check=True, capture_output=True, text=True,
                                       env=ENV).stdout)
    node = dumped["root"]
    for name in path.strip("/").split("/"):
        node = node["members"][name]
    want = node["selections"][sel]["data"] if sel else node["data"]
    with viewer(sample) as (port, _):
        status, answer = get_json(port, "/api/array", {"path": path, "sel": sel})
    assert status == 200 and answer["data"] == want and answer["masked"] == 0
    if path == "/cube":
        cube = np.arange(4 * 30 * 50, dtype="<f4").reshape(4, 30, 50)
        numpy_values = cube[eval("np.s_" + sel)]
        assert np.array_equal(np.array(answer["data"], "<f4"), numpy_values)
        assert answer["shape"] == list(numpy_values.shape)


def test_array_answers_are_bounded(sample):
    with viewer(sample) as (port, _):
        status, answer = get_json(port, "/api/array", {"path": "/big"})
        assert status == 413 and "15000000 elements" in answer["error"]
        assert "/api/export" in answer["error"]
        status, answer = get_json(port, "/api/array", {"path": "/big", "sel": "[0, :]"})
        assert status == 200 and answer["shape"] == [3000] and answer["data"][:2] == [0.0, 0.0]


def test_a_url_is_viewed_as_a_file_is():
    """`dudley view URL`: an HDF5 file and a Zarr store served by nginx (Debian's, on
    127.0.0.1, started and stopped here); the tree is what `ls --json URL` prints, slices and
    values are numpy's."""
    # nginx's workers run as another user: a directory they can read (pytest's are the
    # owner's alone), removed at the end.
    top = pathlib.Path(tempfile.mkdtemp(prefix="dudley-view-url-"))
    os.chmod(top, 0o755)
    try:
        www, scratch = top / "www", top / "nginx"
        www.mkdir()
        scratch.mkdir()
        values = np.random.default_rng(2).standard_normal((300, 200)).astype("<f4")
        with h5py.File(www / "v.h5", "w") as f:
            f.create_dataset("x", data=values, chunks=(64, 64), compression="gzip")
        more = {"zarr_format": 2} if int(zarr.__version__.split(".")[0]) >= 3 else {}
        z = zarr.open_array(str(www / "v.zarr"), mode="w", shape=values.shape,
                            chunks=(64, 64), dtype="<f4", **more)
        z[...] = values
        with NginxServer(str(www), str(scratch)) as server:
            for name, path in [("v.h5", "/x"), ("v.zarr", "/")]:
                check_viewed_url(f"{server.url}/{name}", path, values)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def check_viewed_url(url, path, values):
    listed = json.loads(subprocess.run([DUDLEY, "ls", url, "--json"], check=True,
                                       capture_output=True, text=True, env=ENV).stdout)
    with viewer(url) as (port, _):
        status, tree = get_json(port, "/api/tree")
        assert status == 200 and without_counts(tree) == listed
        status, _, body = get(port, "/api/slice", {"path": path, "sel": "[::-2, 5:]",
                                                   "rows": 100, "cols": 100})
        head, got = slice_of(body)
        ry, rx = head["step"]
        want = values[::-2, 5:][::ry, ::rx]
        assert status == 200 and np.array_equal(got.reshape(want.shape), want)
        status, answer = get_json(port, "/api/array", {"path": path, "sel": "[7, :4]"})
        assert status == 200
        assert np.array_equal(np.array(answer["data"], "<f4"), values[7, :4])
