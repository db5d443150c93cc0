"""HDF5 datatypes and dataspaces of real files (issue 36), against h5py: compounds holding
variable-length strings, sequences, arrays and compounds; bitfields; empty (null)
dataspaces; through `dudley ls`/`dump` (text and --json, exit codes) and the Python module."""
import json

import h5py
import numpy as np
import pytest

import dudley
from cli_runner import ENV, program, run





def dumped(path, item):
    """`dump --json` of one item: its data, and the text dump's value, both parsed."""
    p = run("dump", "--json", str(path), item)
    assert p.returncode == 0, p.stderr
    node = json.loads(p.stdout)["root"]
    for part in item.strip("/").split("/"):
        node = node["members"][part]
    t = run("dump", str(path), item)
    assert t.returncode == 0, t.stderr
    return node, t.stdout.split(" = ", 1)[1].strip()


def as_plain(x):
    """An h5py value as the JSON dump prints it (bytes decoded, arrays as lists)."""
    if isinstance(x, bytes):
        return x.decode()
    if isinstance(x, np.void) and x.dtype.names:
        return {k: as_plain(x[k]) for k in x.dtype.names}
    if isinstance(x, np.ndarray):
        if x.dtype.names:
            return [as_plain(v) for v in x]
        return [as_plain(v) for v in x] if x.dtype == object else x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x


@pytest.fixture(scope="module")
def compounds(tmp_path_factory):
    path = tmp_path_factory.mktemp("h5") / "compounds.h5"
    with h5py.File(path, "w") as f:
        # h5py packs members as numpy does: the vlen string (8 bytes in the library's
        # memory) sits at 4, the array at 12; the model's string slot is 16 bytes.
        dt = np.dtype([("a", "<i4"), ("name", h5py.string_dtype()), ("arr", "<i4", (7,))])
        d = np.zeros(3, dtype=dt)
        d["a"] = [1, 2, 3]
        d["name"] = ["x", "hello wörld", ""]
        d["arr"] = np.arange(21).reshape(3, 7)
        f["strings"] = d
        dt2 = np.dtype([("id", "<i8"), ("seq", h5py.vlen_dtype(np.dtype("<f8"))),
                        ("inner", [("p", "<f4"), ("tag", h5py.string_dtype("ascii"))])])
        e = np.zeros(2, dtype=dt2)
        e["id"] = [7, 8]
        e["seq"][0] = np.array([1.5, 2.5])
        e["seq"][1] = np.array([], dtype="<f8")
        e["inner"] = [(0.5, b"p"), (1.5, b"qq")]
        f["nested"] = e
        f["vstr"] = np.array(["ab", "c", "три"], dtype=h5py.string_dtype())
        f["vseq"] = np.array([np.arange(3, dtype="i2"), np.arange(0, dtype="i2")],
                             dtype=h5py.vlen_dtype("i2"))
        f.attrs["names"] = ["one", "two"]
    return path


def test_compounds_with_vlen_fields_dump_as_h5py_reads_them(compounds):
    # They crashed (heap overflow in the dump) or failed: the vlen field lay in the file's
    # 8-byte slot, the model read 16.
    with h5py.File(compounds) as f:
        for name in ("strings", "nested", "vstr", "vseq"):
            want = as_plain(f[name][()])
            node, text = dumped(compounds, "/" + name)
            assert node["data"] == want, name
            assert json.loads(text) == want, name


def test_compound_fields_and_selections(compounds):
    with h5py.File(compounds) as f:
        want = f["strings"][()]
    p = run("dump", str(compounds), "/strings.name[::-1]")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout.split(" = ", 1)[1]) == [s.decode() for s in want["name"][::-1]]
    p = run("dump", str(compounds), "/nested.seq[0]")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout.split(" = ", 1)[1]) == [1.5, 2.5]


def test_big_endian_vlen_in_compound_as_h5dump_reads_it(tmp_path):
    # h5py 3.7 reads this field wrongly ([3.1e-319, 5.4e-321]); h5dump reads (1.5, 2.5).
    path = tmp_path / "be.h5"
    with h5py.File(path, "w") as f:
        dt = np.dtype([("id", "<i8"), ("seq", h5py.vlen_dtype(np.dtype(">f8")))])
        e = np.zeros(1, dtype=dt)
        e["seq"][0] = np.array([1.5, 2.5], ">f8")
        f["n"] = e
    h5dump = program("h5dump", "-d", "/n", str(path))
    assert "(1.5, 2.5)" in h5dump.stdout
    node, text = dumped(path, "/n")
    assert node["data"] == [{"id": 0, "seq": [1.5, 2.5]}] and json.loads(text) == node["data"]
    assert dudley.open(str(path))["n"][0]["seq"][()].tolist() == [1.5, 2.5]


def test_python_reads_vlen_as_objects(compounds):
    f = dudley.open(str(compounds))
    with h5py.File(compounds) as h:
        s = f["strings"][...]
        assert s["name"].tolist() == [x.decode() for x in h["strings"]["name"]]
        assert np.array_equal(s["arr"], h["strings"]["arr"])
        n = f["nested"][::-1]
        assert [x.tolist() for x in n["seq"]] == [x.tolist() for x in h["nested"]["seq"][::-1]]
        assert n["inner"]["tag"].tolist() == [b"qq", b"p"]  # ASCII: bytes, as h5py reads them
        assert h["nested"]["inner"]["tag"][::-1].tolist() == [b"qq", b"p"]
        assert f["vstr"][1:].tolist() == ["c", "три"]
        assert [x.tolist() for x in f["vseq"][...]] == [[0, 1, 2], []]
        assert f.attrs["names"].tolist() == ["one", "two"]


def test_compound_with_vlen_converts_to_hdf5(compounds, tmp_path):
    out = tmp_path / "copy.h5"
    p = run("convert", str(compounds), str(out))
    assert p.returncode == 0, p.stderr
    with h5py.File(compounds) as a, h5py.File(out) as b:
        for name in ("strings", "nested", "vstr", "vseq"):
            assert as_plain(a[name][()]) == as_plain(b[name][()]), name


@pytest.fixture(scope="module")
def bitfields(tmp_path_factory):
    path = tmp_path_factory.mktemp("h5") / "bits.h5"
    with h5py.File(path, "w") as f:
        for name, ft, mt, dt, vals in [(b"b8", h5py.h5t.STD_B8LE, h5py.h5t.NATIVE_B8, "u1", [1, 2, 255]),
                                       (b"b16be", h5py.h5t.STD_B16BE, h5py.h5t.NATIVE_B16, "<u2",
                                        [1, 258, 65535]),
                                       (b"b64", h5py.h5t.STD_B64LE, h5py.h5t.NATIVE_B64, "<u8",
                                        [7, 1 << 63, 5])]:
            ds = h5py.h5d.create(f.id, name, ft, h5py.h5s.create_simple((3,)))
            ds.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array(vals, dtype=dt), mtype=mt)
        rec_t = h5py.h5t.create(h5py.h5t.COMPOUND, 6)
        rec_t.insert(b"x", 0, h5py.h5t.STD_I32LE)
        rec_t.insert(b"flags", 4, h5py.h5t.STD_B16BE)
        mem_t = h5py.h5t.create(h5py.h5t.COMPOUND, 6)
        mem_t.insert(b"x", 0, h5py.h5t.NATIVE_INT32)
        mem_t.insert(b"flags", 4, h5py.h5t.NATIVE_B16)
        ds = h5py.h5d.create(f.id, b"rec", rec_t, h5py.h5s.create_simple((2,)))
        ds.write(h5py.h5s.ALL, h5py.h5s.ALL,
                 np.array([(1, 513), (2, 3)], dtype=[("x", "<i4"), ("flags", "<u2")]), mtype=mem_t)
    return path


def test_bitfields_read_as_unsigned_integers(bitfields):
    # They listed as r8 and failed to read.
    ls = json.loads(run("ls", "--json", str(bitfields)).stdout)["root"]["members"]
    assert ls["b16be"]["dtype"] == ">u2" and ls["b8"]["dtype"] == "|u1"
    f = dudley.open(str(bitfields))
    with h5py.File(bitfields) as h:
        for name in ("b8", "b16be", "b64", "rec"):
            node, text = dumped(bitfields, "/" + name)
            assert node["data"] == as_plain(h[name][()]), name
            assert json.loads(text) == as_plain(h[name][()]), name
            assert f[name][...].tolist() == h[name][()].tolist(), name
            assert f[name][::-2].tolist() == h[name][()][::-2].tolist(), name


@pytest.fixture(scope="module")
def empties(tmp_path_factory):
    path = tmp_path_factory.mktemp("h5") / "empty.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("nothing", data=h5py.Empty("<f4"))
        f["nothing"].attrs["units"] = "K"
        f.attrs["none"] = h5py.Empty("<i8")
        f["scalar"] = np.float64(2.5)
        f.create_dataset("grows", data=np.arange(6), maxshape=(None,), chunks=(2,))
        f["grows"].attrs["_FillValue"] = np.array([-999.0], dtype="<f4")
        f.create_dataset("bounded", data=np.arange(4), maxshape=(10,), chunks=(2,))
    return path


def test_empty_dataspaces(empties):
    # Datasets were refused ("has no shape", exit 1), attributes dropped silently.
    p = run("ls", str(empties))
    assert p.returncode == 0, p.stderr
    lines = {line.split()[0]: line for line in p.stdout.splitlines()}
    assert "array <f4 Empty" in lines["/nothing"]
    assert "none=Empty(<i8)" in lines["/"]
    assert "array <f8 []" in lines["/scalar"]  # a 0-d scalar is not empty
    j = json.loads(run("ls", "--json", str(empties)).stdout)["root"]
    assert j["members"]["nothing"]["shape"] is None and j["members"]["nothing"]["empty"] is True
    assert j["attributes"]["none"] == {"dtype": "<i8", "shape": None, "empty": True, "data": None}
    node, text = dumped(empties, "/nothing")
    assert node["data"] is None and text == "Empty(<f4)"
    f = dudley.open(str(empties))
    with h5py.File(empties) as h:
        assert f["nothing"].shape is None and h["nothing"].shape is None
        assert f["nothing"][()] == dudley.Empty("<f4")
        assert f["nothing"][()].dtype == h["nothing"][()].dtype
        assert f.attrs["none"] == dudley.Empty("<i8") and f.attrs["none"].dtype == h.attrs["none"].dtype
        assert f["scalar"][()] == h["scalar"][()]


def test_empty_dataspaces_round_trip(empties, tmp_path):
    out = tmp_path / "copy.h5"
    p = run("convert", str(empties), str(out))
    assert p.returncode == 0, p.stderr
    with h5py.File(out) as h:
        assert isinstance(h["nothing"][()], h5py.Empty) and h["nothing"].dtype == "<f4"
        assert isinstance(h.attrs["none"], h5py.Empty) and h.attrs["none"].dtype == "<i8"
        assert h["nothing"].attrs["units"] == "K"
    # Zarr has no empty arrays: one of shape [0], said.
    z = tmp_path / "copy.zarr"
    p = run("convert", "--lossy", str(empties), str(z))
    assert p.returncode == 0, p.stderr
    assert "note: /nothing: an empty (null) dataspace; written as an array of shape [0]" in p.stderr


def test_ls_shows_attribute_values_and_growable_extents(empties):
    # It showed "_FillValue=<f4[1]" and hid unlimited extents (h5ls: {6/Inf}).
    lines = {line.split()[0]: line for line in run("ls", str(empties)).stdout.splitlines()}
    assert "[6/Inf]" in lines["/grows"] and "_FillValue=[-999.0]" in lines["/grows"]
    assert "[4/10]" in lines["/bounded"]
    j = json.loads(run("ls", "--json", str(empties)).stdout)["root"]["members"]["grows"]
    assert j["shape"] == [6] and j["storage"]["max_shape"] == [None]


@pytest.fixture(scope="module")
def filtered(tmp_path_factory):
    """Datasets compressed with the plugin filters h5py users write (python3-hdf5plugin and
    h5py's own LZF), and one whose filter (Zstandard, 32015) no Debian package provides."""
    hdf5plugin = pytest.importorskip("hdf5plugin")  # Debian's python3-hdf5plugin (not on the PyPI stack)
    import struct
    d = tmp_path_factory.mktemp("h5")
    path = d / "filters.h5"
    data = np.arange(2000, dtype="<f4").reshape(100, 20) / 7
    with h5py.File(path, "w") as f:
        f.create_dataset("lzf", data=data, compression="lzf", chunks=(10, 10))
        for name, kw in [("lz4", hdf5plugin.LZ4()), ("bzip2", hdf5plugin.BZip2()),
                         ("blosc", hdf5plugin.Blosc(cname="zstd", shuffle=hdf5plugin.Blosc.BITSHUFFLE)),
                         ("zfp", hdf5plugin.Zfp(reversible=True))]:
            f.create_dataset(name, data=data, chunks=(10, 10), **kw)
    missing = d / "missing.h5"
    with h5py.File(missing, "w") as f:
        f.create_dataset("x", data=data, chunks=(10, 10), **hdf5plugin.LZ4())
    raw = bytearray(missing.read_bytes())
    at = [i for i in range(len(raw) - 1) if raw[i:i + 2] == struct.pack("<H", 32004)]
    assert len(at) == 1  # the filter pipeline message (a version 1 header: no checksum)
    raw[at[0]:at[0] + 2] = struct.pack("<H", 32015)
    missing.write_bytes(bytes(raw))
    return path, missing


@pytest.mark.parametrize("name", ["lzf", "lz4", "bzip2", "blosc", "zfp"])
def test_plugin_filters_read_as_h5py_reads_them(filtered, name):
    # They failed with "can't read data"; LZF's Debian plugin needs libhdf5 and liblzf
    # loaded globally, which the module arranges. No HDF5_PLUGIN_PATH is set.
    path, _ = filtered
    env = {k: v for k, v in ENV.items() if k != "HDF5_PLUGIN_PATH"}
    with h5py.File(path) as h:
        want = h[name][()]
    p = run("dump", "--json", str(path), "/" + name, env=env)
    assert p.returncode == 0, p.stderr
    got = np.array(json.loads(p.stdout)["root"]["members"][name]["data"], dtype="<f4")
    assert np.array_equal(got, want)
    f = dudley.open(str(path))
    assert np.array_equal(f[name][3:17, ::-3], want[3:17, ::-3])
    assert "not available" not in run("ls", str(path)).stdout


def test_plugin_dir_found_past_a_stale_plugin_path(filtered, tmp_path):
    # libhdf5 ends its search at a directory it cannot open; Debian's comes after the user's.
    path, _ = filtered
    env = dict(ENV, HDF5_PLUGIN_PATH=f"{tmp_path}/gone:{tmp_path}")
    p = run("dump", str(path), "/lz4[0, :2]", env=env)
    assert p.returncode == 0 and p.stdout.startswith("/lz4[0, :2] = ["), p.stderr


def test_missing_filter_is_named_with_its_remedy(filtered):
    _, missing = filtered
    why = "filter 32015 (Zstandard) is not available"
    ls = run("ls", str(missing))
    assert ls.returncode == 0 and why in ls.stdout, ls.stdout
    j = json.loads(run("ls", "--json", str(missing)).stdout)["root"]["members"]["x"]
    assert why in j["storage"]["codecs"][0]["unavailable"]
    p = run("dump", str(missing), "/x")
    assert p.returncode == 1 and why in p.stderr and "HDF5_PLUGIN_PATH" in p.stderr, p.stderr
    p = run("dump", "--json", str(missing), "/x")
    assert p.returncode == 1 and why in p.stdout + p.stderr
    with pytest.raises(dudley.DataError, match="32015"):
        dudley.open(str(missing))["x"][0]


@pytest.fixture(scope="module")
def linked(tmp_path_factory):
    d = tmp_path_factory.mktemp("links")
    (d / "sub").mkdir()
    with h5py.File(d / "sub" / "other.h5", "w") as f:
        f["x"] = np.arange(5.0)
    with h5py.File(d / "outside.h5", "w") as f:
        f["y"] = np.arange(3)
    main = d / "sub" / "main.h5"
    with h5py.File(main, "w") as f:
        g = f.create_group("grid")
        g["x"] = np.arange(4, dtype="f4")
        g["x"].attrs["units"] = "m"
        f["soft"] = h5py.SoftLink("/grid/x")
        f["dangling"] = h5py.SoftLink("/nope")
        f["togroup"] = h5py.SoftLink("/grid")
        f["ext"] = h5py.ExternalLink("other.h5", "/x")
        f["out"] = h5py.ExternalLink("../outside.h5", "/y")
        f["zhard"] = f["grid/x"]
    return main


def test_links_listed_with_their_targets(linked):
    # Soft links were invisible to ls and dump; external ones vanished (exit 0).
    p = run("ls", str(linked))
    # Listed whole, but one link points where ls may not look (outside the file's folder):
    # exit 1 naming it, in text as with --json. A dangling link is listed as h5ls lists it,
    # and a soft link to a group of the file loses nothing (the group is listed where it
    # is): neither is an error.
    assert p.returncode == 1, p.stderr
    assert "/out" in p.stderr and "/dangling" not in p.stderr and "/togroup" not in p.stderr
    assert run("ls", "--json", str(linked)).returncode == 1
    lines = {line.split()[0]: line for line in p.stdout.splitlines()}
    assert "array <f4 [4]" in lines["/soft"] and "-> /grid/x" in lines["/soft"]
    assert "array <f8 [5]" in lines["/ext"] and "-> other.h5:/x" in lines["/ext"]
    assert "link -> /nope (a soft link to /nope, which does not exist)" in lines["/dangling"]
    assert "link -> /grid (a soft link to /grid; the group is listed at /grid)" in lines["/togroup"]
    assert "link -> ../outside.h5:/y (an external link" in lines["/out"]
    assert "not followed (outside" in lines["/out"]
    # One object, two names: the name listed first is the object, the other a link to it.
    assert "-> /grid/x" in lines["/zhard"] or "-> /zhard" in lines["/grid/x"]
    j = json.loads(run("ls", "--json", str(linked)).stdout)["root"]["members"]
    assert j["soft"]["link"] == {"kind": "soft", "target": "/grid/x", "end": "followed"}
    assert j["ext"]["link"] == {"kind": "external", "target": "/x", "file": "other.h5",
                                "end": "followed"}
    assert (j["zhard"].get("link") == {"kind": "hard", "target": "/grid/x", "end": "followed"} or
            j["grid"]["members"]["x"].get("link") == {"kind": "hard", "target": "/zhard",
                                                      "end": "followed"})
    assert j["out"]["link"]["kind"] == "external" and "not followed" in j["out"]["error"]
    assert j["out"]["link"]["end"] == "refused"
    assert j["dangling"] == {"kind": "link", "link": {"kind": "soft", "target": "/nope",
                                                      "end": "nothing"},
                             "note": "a soft link to /nope, which does not exist"}
    assert j["togroup"]["link"] == {"kind": "soft", "target": "/grid", "end": "group here",
                                    "listed_at": "/grid"}
    # Paths through the link to the group lead to it, as h5py follows it.
    assert np.array_equal(dudley.open(str(linked))["/togroup/x"][...], np.arange(4, dtype="f4"))


def test_links_followed_by_dump_and_python(linked, tmp_path):
    with h5py.File(linked) as h:
        for name in ("soft", "ext", "zhard"):
            node, text = dumped(linked, "/" + name)
            assert node["data"] == h[name][()].tolist() and json.loads(text) == node["data"]
        f = dudley.open(str(linked))
        assert np.array_equal(f["soft"][::-1], h["soft"][()][::-1])
        assert np.array_equal(f["ext"][1:], h["ext"][1:])
        assert f["soft"].attrs["units"] == "m"
    # Not from the current directory: the file's own directory.
    p = run("dump", str(linked), "/ext", cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.startswith("/ext = [0.0,1.0"), p.stderr
    p = run("dump", str(linked), "/out")
    assert p.returncode == 1 and "not followed (outside" in p.stderr
    p = run("dump", "--json", str(linked), "/dangling")
    assert p.returncode == 1 and "/nope, which does not exist" in p.stdout + p.stderr


def test_links_kept_as_links_in_hdf5_and_copied_elsewhere(linked, tmp_path):
    out = tmp_path / "copy.h5"
    p = run("convert", str(linked), str(out))
    assert p.returncode == 0, p.stderr
    with h5py.File(out) as h:
        assert h.get("soft", getlink=True).path == "/grid/x"
        assert h.get("dangling", getlink=True).path == "/nope"
        ext = h.get("ext", getlink=True)
        assert (ext.filename, ext.path) == ("other.h5", "/x")
        # One object under two names: written once.
        assert h["zhard"].id == h["grid/x"].id
    z = tmp_path / "copy.zarr"
    p = run("convert", str(linked), str(z))
    assert p.returncode == 1 and "/out: an external link" in p.stderr and not z.exists()
    p = run("convert", "--lossy", str(linked), str(z))
    assert p.returncode == 0, p.stderr
    assert "note: /soft: a soft link to /grid/x; written as a copy of it" in p.stderr
    assert "note: left out: /togroup" in p.stderr
    f = dudley.open(str(z))
    assert np.array_equal(f["soft"][...], np.arange(4, dtype="f4"))


def test_item_paths_with_any_name(tmp_path):
    # '/a/CurrentSettings.ini' could not be dumped: the '.' was read as a field (exit 2).
    path = tmp_path / "names.h5"
    with h5py.File(path, "w") as f:
        g = f.create_group("a")
        g["CurrentSettings.ini"] = np.array([1, 2, 3])
        g["x[0]"] = np.arange(2)
        g["my data"] = np.arange(3)
        g['q"uote'] = np.arange(1)
        g["rec"] = np.array([(1, 2.0)], dtype=[("a b", "i4"), ("c", "f8")])
    cases = {"/a/CurrentSettings.ini": [1, 2, 3], '/a/"CurrentSettings.ini"[::-1]': [3, 2, 1],
             '/a/"x[0]"': [0, 1], "/a/my data[1:]": [1, 2], '/a/"q\\"uote"': [0],
             '/a/rec."a b"': [1]}
    for item, want in cases.items():
        p = run("dump", str(path), item)
        assert p.returncode == 0, (item, p.stderr)
        assert json.loads(p.stdout.split(" = ", 1)[1]) == want, item
        p = run("dump", "--json", str(path), item)
        assert p.returncode == 0, (item, p.stderr)
    p = run("dump", str(path), '/a/"oops')
    assert p.returncode == 2 and "no closing" in p.stderr
    f = dudley.open(str(path))  # Python keys are names, as in h5py
    assert f["a"]["CurrentSettings.ini"][...].tolist() == [1, 2, 3]
    assert f["/a/x[0]"][...].tolist() == [0, 1]


def test_netcdf4_fill_values_carried_to_zarr(tmp_path):
    # Zarr got "fill_value": 0.0 for every array and lost _FillValue: xarray then masked real
    # zeros and no longer masked -999.
    import netCDF4
    path = tmp_path / "nc4.nc"
    with netCDF4.Dataset(path, "w") as d:
        d.createDimension("x", 3)
        lat = d.createVariable("lat", "f4", ("x",))
        lat[:] = [-10, 0, 10]
        v = d.createVariable("v", "i2", ("x",), fill_value=-999)
        v[:] = [1, -999, 0]
    out = tmp_path / "nc4.zarr"
    p = run("convert", str(path), str(out))
    assert p.returncode == 0, p.stderr
    v = json.loads((out / "v" / "zarr.json").read_text())
    assert v["fill_value"] == -999 and v["attributes"]["_FillValue"] == -999
    lat = json.loads((out / "lat" / "zarr.json").read_text())
    assert lat["fill_value"] != 0  # netCDF-4's default fill of float, not zero
    f = dudley.open(str(out))
    assert f["v"][...].tolist() == [1, -999, 0] and f["lat"][...].tolist() == [-10, 0, 10]


def test_floats_of_another_layout_are_refused_not_misread(tmp_path):
    """bfloat16 (a 2-byte float with an 8-bit exponent) is not IEEE half: read as <f2 its
    values would be wrong (70000 would become infinity). Listed with why; reading it fails
    naming it, in text, --json and Python."""
    path = tmp_path / "bf16.h5"
    with h5py.File(path, "w") as f:
        t = h5py.h5t.IEEE_F32LE.copy()
        t.set_fields(15, 7, 8, 0, 7)
        t.set_size(2)
        t.set_ebias(127)
        t.set_precision(16)
        h5py.h5d.create(f.id, b"bf", t, h5py.h5s.create_simple((3,)))
        f["half"] = np.array([1.0, 2.5, -3.0], dtype="<f2")
    ls = run("ls", str(path))
    assert ls.returncode == 0, ls.stderr
    assert "/bf" in ls.stdout and "ERROR" in ls.stdout
    assert "array <f2 [3]" in ls.stdout  # IEEE half is still half
    for flags in ([], ["--json"]):
        p = run("dump", *flags, str(path), "/bf")
        assert p.returncode == 1, p.stderr
        assert "8-bit exponent and a 7-bit mantissa (bfloat16)" in p.stderr, p.stderr
    with pytest.raises(dudley.DataTypeError, match="bfloat16"):
        dudley.open(str(path))["bf"][...]
    assert dudley.open(str(path))["half"][...].tolist() == [1.0, 2.5, -3.0]
