"""Zarr v3 as zarr-python 3 writes it (issue 63), on the PyPI stack's zarr 3: groups carrying
"consolidated_metadata" (filled by zarr.consolidate_metadata, or null as zarr-python 3.0
writes it in every group), "dimension_names": null, and numcodecs' Delta where zarr-python 3
puts it (an array -> array codec before "bytes", its dtype a numpy name). Every array's
values, through the module and the CLI (text and --json), are zarr 3's."""
import json
import os

import numpy as np
import pytest

import dudley
from cli_runner import run

zarr = pytest.importorskip("zarr")
if int(zarr.__version__.split(".")[0]) < 3:
    pytest.skip("zarr-python 3 writes these stores (the PyPI stack has it)",
                allow_module_level=True)


def edit(path, change):
    with open(path) as f:
        doc = json.load(f)
    change(doc)
    with open(path, "w") as f:
        json.dump(doc, f)


def arrays(group, prefix=""):
    for name, a in group.arrays():
        yield f"{prefix}/{name}", a
    for name, g in group.groups():
        yield from arrays(g, f"{prefix}/{name}")


def check_store(path):
    """Every array of the store at `path`, as zarr 3 reads it, equals ours (module, CLI)."""
    group = zarr.open_group(str(path), mode="r")
    f = dudley.open(str(path))
    p = run("dump", "--json", str(path))
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)["root"]
    found = list(arrays(group))
    assert found
    for item, a in found:
        want = a[...]
        assert np.array_equal(f[item][...], want), item
        node = doc
        for part in item.strip("/").split("/"):
            node = node["members"][part]
        assert np.array_equal(np.array(node["data"], want.dtype), want), item
    return found


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_consolidated_groups_filled_and_null(tmp_path):
    path = tmp_path / "g.zarr"
    g = zarr.open_group(str(path), mode="w")
    g.attrs["title"] = "consolidated"
    g.create_array("a", shape=(4, 5), chunks=(2, 5), dtype="i4")[:] = np.arange(20).reshape(4, 5)
    sub = g.create_group("sub")
    sub.create_array("b", shape=(3,), dtype="f8")[:] = [1.5, 2.5, 3.5]
    zarr.consolidate_metadata(str(path))
    with open(path / "zarr.json") as f:
        assert json.load(f)["consolidated_metadata"]["metadata"]
    assert [item for item, _ in check_store(path)] == ["/a", "/sub/b"]
    # Every group's "consolidated_metadata": null, every array's "dimension_names": null.
    for group_doc in (path / "zarr.json", path / "sub" / "zarr.json"):
        edit(group_doc, lambda d: d.__setitem__("consolidated_metadata", None))
    for array_doc in (path / "a" / "zarr.json", path / "sub" / "b" / "zarr.json"):
        edit(array_doc, lambda d: d.__setitem__("dimension_names", None))
    check_store(path)
    listing = run("ls", str(path))
    assert listing.returncode == 0, listing.stderr
    assert "/sub/b" in listing.stdout and "array <f8 [3]" in listing.stdout
    # Not an object or null: refused, naming the field.
    edit(path / "zarr.json", lambda d: d.__setitem__("consolidated_metadata", 7))
    p = run("ls", str(path))
    assert p.returncode != 0 and "consolidated_metadata must be an object or null" in p.stderr


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_delta_before_bytes_as_zarr_python_3_writes_it(tmp_path):
    from zarr.codecs.numcodecs import Delta
    values = {"i4": np.arange(10, dtype="i4") ** 2, "u2": np.arange(30, 0, -3, dtype="u2"),
              "f8": np.linspace(0, 1, 10)}
    for code, data in values.items():
        path = tmp_path / f"{code}.zarr"
        name = np.dtype(code).name
        a = zarr.create_array(str(path), shape=data.shape, chunks=(4,), dtype=code,
                              filters=[Delta(dtype=name)])
        a[:] = data
        with open(path / "zarr.json") as f:
            codecs = json.load(f)["codecs"]
        assert codecs[0]["name"] == "numcodecs.delta" and codecs[1]["name"] == "bytes"
        assert codecs[0]["configuration"]["dtype"] == name
        assert np.array_equal(dudley.open(str(path))[...], data), code
        p = run("dump", str(path))
        assert p.returncode == 0 and json.loads(p.stdout.split(" = ", 1)[1]) == data.tolist()
    # A delta given in the other byte order than the bytes codec's reads otherwise: refused.
    path = tmp_path / "i4.zarr"
    edit(path / "zarr.json", lambda d: d["codecs"][0]["configuration"].__setitem__("dtype", ">i4"))
    p = run("dump", str(path))
    assert p.returncode != 0 and "numcodecs.delta" in p.stderr and "byte order" in p.stderr


REALWORLD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "realworld")


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(n for n in os.listdir(REALWORLD) if n.endswith(".zarr")))
def test_real_stores_as_zarr_3_reads_them(name):
    """Stores other projects wrote (tests/data/realworld/SOURCES.md): every array as zarr 3
    reads it (zarrita.js's test store failed to open before: consolidated_metadata null)."""
    assert len(check_store(os.path.join(REALWORLD, name))) >= 5


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_numcodecs_compressors_as_zarr_python_3_names_them(tmp_path):
    """numcodecs' compressors under the names zarr-python 3 writes (numcodecs.zlib ...)."""
    from zarr.codecs import numcodecs as nc
    data = np.arange(1000, dtype="<f8").reshape(10, 100) / 7
    for name, codec in {"zlib": nc.Zlib(level=3), "gzip": nc.GZip(level=5), "bz2": nc.BZ2(level=9),
                        "zstd": nc.Zstd(level=2), "blosc": nc.Blosc(cname="lz4", clevel=5)}.items():
        path = tmp_path / f"{name}.zarr"
        a = zarr.create_array(str(path), shape=data.shape, chunks=(4, 30), dtype="<f8",
                              compressors=[codec])
        a[:] = data
        with open(path / "zarr.json") as f:
            assert json.load(f)["codecs"][-1]["name"] == f"numcodecs.{name}"
        assert np.array_equal(dudley.open(str(path))[...], data), name
        p = run("dump", "--json", str(path))
        assert p.returncode == 0, p.stderr
        assert np.array_equal(np.array(json.loads(p.stdout)["root"]["data"]), data), name


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_bitround_reads_the_rounded_values(tmp_path):
    """numcodecs' BitRound (lossy: it rounds when written) reads as zarr 3 reads it; a
    keepbits beyond the type's mantissa is refused."""
    from zarr.codecs import numcodecs as nc
    data = np.linspace(0, 1, 50, dtype="f4")
    path = tmp_path / "r.zarr"
    a = zarr.create_array(str(path), shape=data.shape, chunks=(16,), dtype="f4",
                          filters=[nc.BitRound(keepbits=3)])
    a[:] = data
    want = zarr.open_array(str(path), mode="r")[...]
    assert not np.array_equal(want, data)  # rounded
    assert np.array_equal(dudley.open(str(path))[...], want)
    p = run("dump", "--json", str(path))
    assert np.array_equal(np.array(json.loads(p.stdout)["root"]["data"], "f4"), want)
    edit(path / "zarr.json", lambda d: d["codecs"][0]["configuration"].__setitem__("keepbits", 40))
    p = run("ls", str(path))
    assert "keepbits must be a whole number from 0 to 23" in p.stderr


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_fixedscaleoffset_as_zarr_3_writes_it(tmp_path):
    """numcodecs' FixedScaleOffset (values packed as round((x - offset) * scale) in a smaller
    type), v3 and v2, read as zarr 3 reads it."""
    import numcodecs
    from zarr.codecs import numcodecs as nc
    data = np.linspace(1000, 1010, 40, dtype="f8")
    stores = {
        "v3-f8-i2": dict(filters=[nc.FixedScaleOffset(offset=1000, scale=10, dtype="f8",
                                                      astype="i2")]),
        "v3-f4-u1": dict(filters=[nc.FixedScaleOffset(offset=1000, scale=20, dtype="f4",
                                                      astype="u1")], dtype="f4"),
        "v2-f8-i2": dict(filters=[numcodecs.FixedScaleOffset(offset=1000, scale=10, dtype="<f8",
                                                             astype="<i2")], zarr_format=2),
    }
    for name, options in stores.items():
        path = tmp_path / f"{name}.zarr"
        dtype = options.pop("dtype", "f8")
        a = zarr.create_array(str(path), shape=data.shape, chunks=(16,), dtype=dtype, **options)
        a[:] = data.astype(dtype)
        want = zarr.open_array(str(path), mode="r")[...]
        got = dudley.open(str(path))[...]
        assert got.dtype == want.dtype and np.array_equal(got, want), (name, got, want)
        p = run("dump", "--json", str(path))
        assert p.returncode == 0, p.stderr
        assert np.array_equal(np.array(json.loads(p.stdout)["root"]["data"], want.dtype), want)


def numcodecs_stores():
    """Arrays zarr 3 writes with each numcodecs codec zarr-python 3 registers that this build
    reads: (name, dtype, create_array options, values)."""
    from zarr.codecs import numcodecs as nc
    floats = np.linspace(-5, 5, 100, dtype="f4")
    squares = np.arange(100, dtype="i4") ** 2
    return [
        ("crc32", "f4", dict(compressors=[nc.CRC32()]), floats),
        ("crc32-end", "f4", dict(compressors=[nc.CRC32(location="end")]), floats),
        ("adler32", "f4", dict(compressors=[nc.Adler32()]), floats),
        ("crc32c", "f4", dict(compressors=[nc.CRC32C()]), floats),
        ("fletcher32", "f4", dict(compressors=[nc.Fletcher32()]), floats),
        ("jenkins_lookup3", "f4", dict(compressors=[nc.JenkinsLookup3(initval=5)]), floats),
        ("lzma", "f4", dict(compressors=[nc.LZMA(preset=3)]), floats),
        ("lzma-crc32", "f4", dict(compressors=[nc.LZMA(preset=1), nc.CRC32()]), floats),
        ("astype", "f4", dict(filters=[nc.AsType(encode_dtype="f8", decode_dtype="f4")]), floats),
        ("quantize", "f4", dict(filters=[nc.Quantize(digits=2, dtype="f4")]), floats),
        ("packbits", "bool", dict(filters=[nc.PackBits()]), np.arange(100) % 3 == 0),
        ("delta", "i4", dict(filters=[nc.Delta(dtype="i4")]), squares),
        ("delta-lzma", "i4", dict(filters=[nc.Delta(dtype="i4")], compressors=[nc.LZMA()]),
         squares),
        ("zfpy", "f4", dict(serializer=nc.ZFPY(mode=4, tolerance=0.01), compressors=None),
         floats),
        ("astype-zfpy", "f4", dict(filters=[nc.AsType(encode_dtype="f8", decode_dtype="f4")],
                                   serializer=nc.ZFPY(mode=4, tolerance=0.01), compressors=None),
         floats),
    ]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_numcodecs_codecs_both_ways(tmp_path):
    """Each numcodecs codec zarr-python 3 registers (but pcodec: no C library in Debian) reads
    as zarr 3 reads it, module and CLI; converted Zarr to Zarr, the lossless ones are kept
    (zarr 3 reads our store with the same codecs, delta before bytes as it wants), the lossy
    ones give their values to the default compressor."""
    kept = {"crc32", "crc32-end", "adler32", "crc32c", "fletcher32", "jenkins_lookup3", "lzma",
            "lzma-crc32", "packbits", "delta", "delta-lzma"}
    for name, dtype, options, values in numcodecs_stores():
        src = tmp_path / f"{name}.zarr"
        a = zarr.create_array(str(src), shape=values.shape, chunks=(30,), dtype=dtype, **options)
        a[:] = values.astype(dtype)
        want = zarr.open_array(str(src), mode="r")[...]
        got = dudley.open(str(src))[...]
        assert got.dtype == want.dtype and np.array_equal(got, want), name
        p = run("dump", "--json", str(src))
        assert p.returncode == 0, (name, p.stderr)
        assert np.array_equal(np.array(json.loads(p.stdout)["root"]["data"], want.dtype), want)
        with open(src / "zarr.json") as f:
            theirs = [c["name"] for c in json.load(f)["codecs"]]
        out = tmp_path / f"{name}.out.zarr"
        p = run("convert", str(src), str(out))
        assert p.returncode == 0, (name, p.stderr)
        assert np.array_equal(zarr.open_array(str(out), mode="r")[...], want), name
        with open(out / "zarr.json") as f:
            ours = [c["name"] for c in json.load(f)["codecs"]]
        if name in kept:
            assert ours == theirs, name
        else:
            assert ours == ["bytes", "zstd"], name
    # A damaged chunk is refused, naming the checksum; pcodec is refused by name.
    chunk = tmp_path / "fletcher32.zarr" / "c" / "0"
    damaged = bytearray(chunk.read_bytes())
    damaged[10] ^= 1
    chunk.write_bytes(bytes(damaged))
    p = run("dump", str(tmp_path / "fletcher32.zarr"))
    assert p.returncode != 0 and "numcodecs.fletcher32: checksum mismatch" in p.stderr
    edit(tmp_path / "zfpy.zarr" / "zarr.json",
         lambda d: d["codecs"][0].__setitem__("name", "numcodecs.pcodec"))
    p = run("ls", str(tmp_path / "zfpy.zarr"))
    assert p.returncode != 0 and "pcodec has no C or C++ library in Debian" in p.stderr


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_numcodecs_codecs_in_v2_stores(tmp_path):
    """The same codecs as zarr-python 3 writes them in Zarr v2 (.zarray filters and
    compressor by numcodecs id), read as zarr 3 reads them; converted to v2, kept where
    zarr-python 2's numcodecs has them."""
    import numcodecs
    floats = np.linspace(-5, 5, 100, dtype="<f4")
    stores = [
        ("crc32", dict(compressor=numcodecs.CRC32())),
        ("adler32", dict(compressor=numcodecs.Adler32())),
        ("fletcher32", dict(compressor=numcodecs.Fletcher32())),
        ("jenkins", dict(compressor=numcodecs.JenkinsLookup3())),
        ("lzma", dict(compressor=numcodecs.LZMA(preset=2))),
        ("astype", dict(filters=[numcodecs.AsType(encode_dtype="<f8", decode_dtype="<f4")])),
        ("quantize", dict(filters=[numcodecs.Quantize(digits=1, dtype="<f4")])),
        ("crc32-then-zstd", dict(filters=[numcodecs.CRC32()], compressor=numcodecs.Zstd())),
        ("zfpy", dict(compressor=numcodecs.ZFPY(tolerance=0.01))),
    ]
    for name, options in stores:
        src = tmp_path / f"{name}.zarr"
        compressor = options.pop("compressor", None)
        a = zarr.create_array(str(src), shape=(100,), chunks=(30,), dtype="<f4", zarr_format=2,
                              compressors=compressor, **options)
        a[:] = floats
        want = zarr.open_array(str(src), mode="r")[...]
        assert np.array_equal(dudley.open(str(src))[...], want), name
        p = run("dump", "--json", str(src))
        assert p.returncode == 0, (name, p.stderr)
        assert np.array_equal(np.array(json.loads(p.stdout)["root"]["data"], "f4"), want), name
        out = tmp_path / f"{name}.out.zarr"
        p = run("convert", "--zarr-format", "2", str(src), str(out))
        assert p.returncode == 0, (name, p.stderr)
        assert np.array_equal(zarr.open_array(str(out), mode="r")[...], want), name
        with open(out / ".zarray") as f:
            meta = json.load(f)
        if name in ("crc32", "adler32", "lzma"):
            assert meta["compressor"]["id"] == name, meta
        if name == "crc32-then-zstd":
            assert meta["filters"] == [{"id": "crc32"}] and meta["compressor"]["id"] == "zstd"


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_zarr_python_3_data_types_both_ways(tmp_path):
    """numpy.datetime64 / numpy.timedelta64 (units, scale factors, NaT fill), and the fixed
    and variable-length strings and bytes zarr-python 3 writes (fixed_length_utf32,
    null_terminated_bytes, variable_length_bytes), read as zarr 3 reads them; the times
    written back (v3 and v2) read in zarr 3 as they were."""
    nat = np.iinfo("i8").min
    arrays = {
        "dates": np.array([0, nat, 12345, -400], dtype="i8").view("M8[D]"),
        "tens": np.array([0, 7, nat, -3], dtype="i8").view("M8[10ms]"),
        "durations": np.array([1, nat, -5, 10**15], dtype="i8").view("m8[ps]"),
        "utf32": np.array(["abc", "🎉", "", "xyzw"], dtype="U4"),
        "nul": np.array([b"ab", b"", b"\x01\x02", b"zzz"], dtype="S3"),
    }
    for name, values in arrays.items():
        path = tmp_path / f"{name}.zarr"
        a = zarr.create_array(str(path), shape=values.shape, chunks=(3,), dtype=values.dtype)
        a[:3] = values[:3]  # the last chunk partly: fill in the rest
        a[3:] = values[3:]
        want = zarr.open_array(str(path), mode="r")[...]
        got = dudley.open(str(path))[...]
        assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
        if want.dtype.kind in "mM":
            assert np.array_equal(got.view("i8"), want.view("i8")), name
            for fmt_ in ("3", "2"):
                out = tmp_path / f"{name}.v{fmt_}.zarr"
                p = run("convert", "--zarr-format", fmt_, str(path), str(out))
                assert p.returncode == 0, p.stderr
                back = zarr.open_array(str(out), mode="r")[...]
                assert back.dtype == want.dtype and np.array_equal(back.view("i8"),
                                                                   want.view("i8")), name
        else:
            assert np.array_equal(got, want), (name, got, want)
        p = run("dump", "--json", str(path))
        assert p.returncode == 0, p.stderr
        data = json.loads(p.stdout)["root"]["data"]
        if want.dtype.kind == "M":
            assert data == np.datetime_as_string(want).tolist()
        elif want.dtype.kind == "U":
            assert data == want.tolist()
    vb = tmp_path / "vb.zarr"
    a = zarr.create_array(str(vb), shape=(3,), dtype=zarr.dtype.VariableLengthBytes())
    a[:] = np.array([b"New York", b"", b"\x00\xff"], dtype=object)
    assert dudley.open(str(vb))[...].tolist() == [b"New York", b"", b"\x00\xff"]
    p = run("dump", "--json", str(vb))
    assert json.loads(p.stdout)["root"]["data"] == [list(b"New York"), [], [0, 255]]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_damaged_zfp_and_wider_filters(tmp_path):
    """A zfp chunk cut short, or holding another type than the array gives zfp, is refused
    (the padding that keeps zfp's reads inside the chunk never passes for data); filters
    that store a wider type (int16 as float64 for zfp, int8 as float64 before LZMA) read
    as zarr 3 reads them."""
    from zarr.codecs import numcodecs as nc
    path = tmp_path / "z.zarr"
    values = np.sin(np.arange(64 * 64).reshape(64, 64) / 50.0)
    a = zarr.create_array(str(path), shape=values.shape, chunks=(64, 64), dtype="f8",
                          serializer=nc.ZFPY(mode=4, tolerance=1e-6), compressors=None)
    a[...] = values
    chunk = path / "c" / "0" / "0"
    whole = chunk.read_bytes()
    chunk.write_bytes(whole[: len(whole) // 3])
    p = run("dump", str(path))
    assert p.returncode == 1 and "numcodecs.zfpy: truncated input" in p.stderr, p.stderr
    # A float32 stream where the array gives zfp float64.
    f4 = tmp_path / "f4.zarr"
    zarr.create_array(str(f4), shape=(8, 8), chunks=(8, 8), dtype="f4",
                      serializer=nc.ZFPY(mode=4, tolerance=1e-3), compressors=None)[...] = 1.5
    chunk.write_bytes((f4 / "c" / "0" / "0").read_bytes())
    p = run("dump", str(path))
    assert p.returncode == 1 and "holds zfp's f4 values, the array f8" in p.stderr, p.stderr
    for name, dtype, options in (
            ("i2-f8-zfp", "i2", dict(filters=[nc.AsType(encode_dtype="f8", decode_dtype="i2")],
                                     serializer=nc.ZFPY(mode=4, tolerance=1e-3),
                                     compressors=None)),
            ("i2-f8-lzma", "i2", dict(filters=[nc.AsType(encode_dtype="f8", decode_dtype="i2")],
                                      compressors=[nc.LZMA()]))):
        src = tmp_path / f"{name}.zarr"
        b = zarr.create_array(str(src), shape=(40, 30), chunks=(20, 30), dtype=dtype, **options)
        b[...] = (np.arange(1200).reshape(40, 30) % 200 - 100).astype(dtype)
        want = zarr.open_array(str(src), mode="r")[...]
        assert np.array_equal(dudley.open(str(src))[...], want), name


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_written_stores_open_in_zarr_3(tmp_path):
    """What Zarr to Zarr writes opens in zarr 3: bytes arrays with a base64 fill value (a
    list made zarr 3 refuse the whole consolidated group), numpy's V<n> as raw_bytes, and in
    v2 a CRC32 kept only where numcodecs 0.11 reads it (its checksum first)."""
    from zarr.codecs import numcodecs as nc
    src = tmp_path / "src.zarr"
    g = zarr.open_group(str(src), mode="w")
    vb = g.create_array("vb", shape=(3,), dtype=zarr.dtype.VariableLengthBytes())
    vb[...] = np.array([b"a", b"", b"\x00\xff"], dtype=object)
    raw = g.create_array("raw", shape=(2,), dtype="V3")
    raw[...] = np.array([b"abc", b"\x00\x01\x02"], dtype="V3")
    g.create_array("crc_end", shape=(10,), dtype="f8",
                   compressors=[nc.CRC32(location="end")])[...] = np.arange(10.0)
    zarr.consolidate_metadata(str(src))
    out = tmp_path / "out.zarr"
    p = run("convert", str(src), str(out))
    assert p.returncode == 0, p.stderr
    h = zarr.open_group(str(out), mode="r")
    assert h["vb"][...].tolist() == [b"a", b"", b"\x00\xff"]
    assert h["raw"][...].tobytes() == b"abc\x00\x01\x02" and h["raw"].dtype == np.dtype("V3")
    assert np.array_equal(h["crc_end"][...], np.arange(10.0))
    out2 = tmp_path / "out2.zarr"
    p = run("convert", "--zarr-format", "2", str(src), str(out2), "/crc_end")
    assert p.returncode == 0, p.stderr
    assert "numcodecs.crc32 with its checksum at the end" in p.stderr
    (written,) = out2.rglob(".zarray")
    assert "crc32" not in written.read_text()
    # A data type's keys are all checked, whatever their order; numpy's scales end at 2^31-1.
    dt = tmp_path / "dt.zarr"
    zarr.create_array(str(dt), shape=(2,), dtype="M8[s]")[...] = np.array([0, 1], "M8[s]")
    edit(dt / "zarr.json", lambda d: d["data_type"].__setitem__("bogus", 1))
    p = run("ls", str(dt))
    assert p.returncode != 0 and '"bogus" is not understood here' in p.stderr
    edit(dt / "zarr.json", lambda d: (d["data_type"].pop("bogus"),
                                      d["data_type"]["configuration"].__setitem__(
                                          "scale_factor", 2**31)))
    p = run("ls", str(dt))
    assert p.returncode != 0 and "scale_factor must be a whole number from 1 to 2^31 - 1" in p.stderr


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_v2_string_fill_numbers_as_zarr_3_reads_them(tmp_path):
    """A v2 string array's numeric fill_value fills with the number's text, as zarr 3 (Python's
    str()) gives it: 0 as "0", True as "True", 1.5 as "1.5", and integers beyond 64 bits with
    every digit."""
    for fill in (0, True, 1.5, -12345678901234567890, 10**30):
        path = tmp_path / f"s{abs(hash(str(fill)))}.zarr"
        a = zarr.create_array(str(path), shape=(4,), chunks=(2,), dtype=str, zarr_format=2)
        a[:2] = ["a", "b"]
        edit(path / ".zarray", lambda d, f=fill: d.__setitem__("fill_value", f))
        want = zarr.open_array(str(path), mode="r")[...].tolist()
        assert want[2:] == [str(fill)] * 2
        assert dudley.open(str(path))[...].tolist() == want, fill
