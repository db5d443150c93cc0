"""The HDF Group's own test files (tests/data/realworld/hdfgroup/, source and license in
../SOURCES.md): array and variable-length types read as h5py reads them, every link listed as
h5py has it (soft, hard and external, dangling ones too) and followed to groups, a dataset
whose chunk index libhdf5 1.10 answers wrongly about, and what libhdf5 1.10 cannot read
(16-byte floats, HDF5 1.12's references, unlistable attributes) named, in text and --json."""
import json
import os
import re
import subprocess
import sys

import h5py
import numpy as np
import pytest

import dudley
from cli_runner import run
from test_realworld import plain

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.path.join(HERE, "..", "data", "realworld", "hdfgroup")
FILES = sorted(f for f in os.listdir(FOLDER) if f.endswith(".h5"))

# What libhdf5 1.10 (and so h5py on it) cannot read, and how our commands say so.
UNREADABLE_DATA = {
    "tldouble.h5": ("/dset", "no type for HDF5 floats of 16 bytes"),
    "trefer_obj.h5": ("/Dataset3", "references of the kind HDF5 1.12 introduced"),
}
UNLISTABLE = {"err_attr_dspace.h5": "/: its attributes cannot be listed"}


def path_of(name):
    return os.path.join(FOLDER, name)


def member(listing, item):
    node = listing["root"]
    for part in filter(None, item.split("/")):
        node = node["members"][part]
    return node


@pytest.mark.parametrize("name", FILES)
def test_ls_and_dump_exit_as_the_file_allows(name):
    path = path_of(name)
    for json_flag in ([], ["--json"]):
        ls = run("ls", *json_flag, path)
        dump = run("dump", *json_flag, path)
        if name in UNLISTABLE:
            assert ls.returncode == 1 and UNLISTABLE[name] in ls.stderr, ls.stderr
        else:
            assert ls.returncode == 0, (json_flag, ls.stderr)
        if name in UNREADABLE_DATA:
            item, why = UNREADABLE_DATA[name]
            assert dump.returncode == 1, dump.stderr
            assert item in dump.stderr and why in dump.stderr, dump.stderr
        elif name not in UNLISTABLE or json_flag:
            # Text dumps print arrays only; a JSON dump prints attributes and fails with them.
            assert dump.returncode == (1 if name in UNLISTABLE else 0), (json_flag, dump.stderr)
        if json_flag:
            json.loads(ls.stdout)
            json.loads(dump.stdout)


@pytest.mark.parametrize("name", [f for f in FILES if f not in UNLISTABLE])
def test_every_dataset_and_attribute_as_h5py_reads_it(name):
    path = path_of(name)
    f = dudley.open(path)
    compared, datasets = [], []
    refused = UNREADABLE_DATA.get(name, (None, None))[0]

    def visit(item, obj):
        if isinstance(obj, h5py.Dataset):
            datasets.append(item)
            if "/" + item == refused:  # h5py reads it (a float128); this build names why not
                with pytest.raises(dudley.DataTypeError):
                    f["/" + item][...]
                return
            try:
                want = obj[()]
            except (TypeError, ValueError, OSError):
                return  # h5py 3.7 cannot (opaque data, new references); ours is checked above
            if obj.dtype.kind == "O" and h5py.check_dtype(ref=obj.dtype):
                return  # references: tests/interop/hdf5_peer_test.py compares them
            got = f["/" + item][...]
            assert np.array_equal(np.asarray(got), np.asarray(want)) or \
                plain(np.asarray(got)) == plain(np.asarray(want)), item
            compared.append(item)
        for key in obj.attrs:
            try:
                want = obj.attrs[key]
            except OSError:  # h5py 3.7 reads no opaque attribute; we do (checked elsewhere)
                continue
            if h5py.check_dtype(ref=obj.attrs.get_id(key).dtype):
                continue
            got = f["/" + item].attrs[key]
            assert plain(np.asarray(got)) == plain(np.asarray(want)), (item, key)
            compared.append(f"{item}@{key}")

    with h5py.File(path, "r") as h:
        visit("", h)
        h.visititems(visit)
    assert compared or not datasets or name in UNREADABLE_DATA


def h5py_links(path):
    """Every link of the file as h5py has it: {path: (kind, target, file)}, walking groups
    by hard link (each once) as h5py's visititems does."""
    out = {}
    with h5py.File(path, "r") as h:
        groups = [("", h)]
        seen = set()
        while groups:
            prefix, group = groups.pop()
            for name in group:
                full = f"{prefix}/{name}"
                try:
                    link = group.get(name, getlink=True)
                except TypeError:  # h5py has no class for a user-defined link
                    out[full] = ("user-defined", None, "")
                    continue
                if isinstance(link, h5py.SoftLink):
                    out[full] = ("soft", link.path, "")
                elif isinstance(link, h5py.ExternalLink):
                    out[full] = ("external", link.path, link.filename)
                else:
                    obj = group.get(name)
                    addr = h5py.h5o.get_info(obj.id).addr
                    if isinstance(obj, h5py.Group) and addr not in seen:
                        seen.add(addr)
                        groups.append((full, obj))
    return out


@pytest.mark.parametrize("name", ["tall.h5", "tsoftlinks.h5", "textlinksrc.h5", "textlinkfar.h5",
                                  "h5diff_danglelinks1.h5", "thlink.h5", "tloop.h5"])
def test_every_link_listed_as_h5py_has_it(name):
    path = path_of(name)
    listing = json.loads(run("ls", "--json", path).stdout)
    text = run("ls", path)
    assert text.returncode == 0, text.stderr
    links = h5py_links(path)
    for item, (kind, target, file) in links.items():
        node = member(listing, item)
        assert node["link"]["kind"] == kind, (item, node)
        if target is None:
            assert node["kind"] == "link" and node["link"]["end"] == "other", (item, node)
            continue
        assert node["link"]["target"] == target, (item, node)
        assert node["link"].get("file", "") == file, (item, node)
        assert f"-> {file + ':' if file else ''}{target}" in text.stdout, item
    if name in ("thlink.h5", "tloop.h5"):  # hard links to groups listed before
        assert "another hard link to the group" in text.stdout


def test_dangling_links_are_listed_and_only_reading_them_fails():
    path = path_of("tall.h5")
    listing = json.loads(run("ls", "--json", path).stdout)
    node = member(listing, "/g1/g1.2/extlink")
    assert node["kind"] == "link" and node["link"]["end"] == "nothing", node
    whole = run("dump", path)
    assert whole.returncode == 0 and "extlink" in whole.stderr, whole.stderr  # a note
    one = run("dump", path, "/g1/g1.2/extlink")
    assert one.returncode == 1 and "somefile" in one.stderr, one.stderr
    one_json = run("dump", "--json", path, "/g1/g1.2/extlink")
    assert one_json.returncode == 1, one_json.stderr
    dangling = member(json.loads(run("ls", "--json", path_of("tsoftlinks.h5")).stdout),
                      "/soft_dangle")
    assert dangling["link"] == {"kind": "soft", "target": "not_yet", "end": "nothing"}


def test_paths_through_links_to_groups_lead_where_h5py_goes():
    cases = [("thlink.h5", "/g1/g1.1"), ("tsoftlinks.h5", "/soft_group1"),
             ("textlinksrc.h5", "/ext_link1"), ("tloop.h5", "/g1/g1.1/g2.1")]
    for name, item in cases:
        path = path_of(name)
        f = dudley.open(path)
        with h5py.File(path, "r") as h:
            assert sorted(f[item].keys()) == sorted(h[item].keys()), (name, item)
            for key in h[item]:
                obj = h[item].get(key)
                if isinstance(obj, h5py.Dataset):
                    assert np.array_equal(f[f"{item}/{key}"][...], obj[()]), (name, item, key)
        listed = run("ls", path, item)
        assert listed.returncode == 0, listed.stderr
    # A member of a group in another file, by a path through the external link.
    dump = run("dump", "--json", path_of("textlinksrc.h5"), "/ext_link1/dset")
    assert dump.returncode == 0, dump.stderr
    with h5py.File(path_of("textlinktar.h5"), "r") as h:
        assert member(json.loads(dump.stdout), "/ext_link1/dset")["data"] == h["/group/dset"][()].tolist()


def test_array_types_read_as_sub_arrays_never_as_bytes():
    """HDF5's tarray1.h5: a dataset of i4[4] elements (h5dump's tarray1.ddl shows [0, 1, 2,
    3], [10, 11, 12, 13], ...); tvlenstr_array.h5: arrays of variable-length strings."""
    dump = run("dump", "--json", path_of("tarray1.h5"), "/Dataset1")
    assert dump.returncode == 0, dump.stderr
    data = member(json.loads(dump.stdout), "/Dataset1")["data"]
    assert data[:2] == [[0, 1, 2, 3], [10, 11, 12, 13]]
    text = run("dump", path_of("tvlenstr_array.h5"))
    assert text.returncode == 0, text.stderr
    with h5py.File(path_of("tvlenstr_array.h5"), "r") as h:
        want = h["ScalarArrayOfVlenStr"][()]  # (5, 3) strings
        fields = h["CompoundArrayOfVlenStr"]["vlen_str_array"]
    for strings in (want, fields):
        for s in np.ravel(strings):
            assert json.dumps(s.decode()) in text.stdout, s
    got = dudley.open(path_of("tvlenstr_array.h5"))["ScalarArrayOfVlenStr"][...]
    assert plain(got) == plain(want)


def test_chunks_libhdf5_misplaces_read_as_libhdf5_reads_them():
    """h5fc_ext1_f.h5's /DSET_EA: an extensible-array index whose unlimited dimension is
    the second. libhdf5 1.10's chunk queries give one chunk's address for another's; its
    reads (and HDF5 2.0's) give the fill value there, as h5dump shows."""
    path = path_of("h5fc_ext1_f.h5")
    with h5py.File(path, "r") as h:
        want = h["/DSET_EA"][()]
    got = dudley.open(path)["/DSET_EA"][...]
    assert np.array_equal(got, want)
    assert np.array_equal(got[:, 3:], np.zeros((4, 3)))
    assert np.array_equal(dudley.open(path)["/DSET_EA"][1:3, 2:5], want[1:3, 2:5])


def test_unlistable_attributes_are_named_never_dropped(tmp_path):
    path = path_of("err_attr_dspace.h5")
    text = run("ls", path)
    assert text.returncode == 1 and "/: its attributes cannot be listed" in text.stderr
    assert "(attributes)=ERROR" in text.stdout
    listing = run("ls", "--json", path)
    assert listing.returncode == 1
    assert json.loads(listing.stdout)["root"]["attribute_errors"][""]
    convert = run("convert", path, str(tmp_path / "out.zarr"))
    assert convert.returncode == 1 and "attributes cannot be listed" in convert.stderr


def test_a_newer_hdf5_type_is_refused_with_libhdf5s_reason():
    """HDF5 2.0's native complex numbers (tests/data/hdf5/README.md): libhdf5 1.10.8 cannot
    read the dataset's header; it is named with libhdf5's words, the rest of the file reads."""
    path = os.path.join(HERE, "..", "data", "hdf5", "hdf5_2_complex.h5")
    ls = run("ls", path)
    assert ls.returncode == 1
    assert "/c: cannot read the object's header: bad version number for datatype message" \
        in ls.stderr and "(libhdf5 1.10" in ls.stderr, ls.stderr
    assert "/ok" in ls.stdout
    dump = run("dump", "--json", path, "/ok")
    assert dump.returncode == 0 and member(json.loads(dump.stdout), "/ok")["data"] == [0, 1, 2]
    assert dudley.open(path)["ok"][...].tolist() == [0, 1, 2]


# The child's end as the message names it: SIGSEGV; SIGABRT or AddressSanitizer's exit
# status 1 where the sanitizer meets the wild read first (the sanitizer build of `make test`).
CRASHED = re.compile(r"crashed \((SIG(SEGV|BUS|ABRT)|exit status 1)\)")


def crashing_copy(tmp_path):
    """HDF5's tattr2.h5 with one byte changed (at 30949, in the global heap a
    variable-length attribute points into): libhdf5 1.10.8's H5Aread follows the damaged
    heap to a wild address (SIGSEGV in H5HG_read, as h5ls and h5py on it meet too)."""
    data = bytearray(open(path_of("tattr2.h5"), "rb").read())
    data[30949] = 0xE6
    out = tmp_path / "damaged.h5"
    out.write_bytes(bytes(data))
    return str(out)


def test_a_file_that_crashes_libhdf5_costs_one_refused_command(tmp_path):
    damaged = crashing_copy(tmp_path)
    for args in (["ls"], ["ls", "--json"], ["dump"], ["dump", "--json"], ["describe"]):
        p = run(*args, damaged)
        assert p.returncode == 1, (args, p.returncode, p.stderr)  # not 139
        assert "libhdf5 1.10" in p.stderr and CRASHED.search(p.stderr), p.stderr
        assert "damaged.h5" in p.stderr
    out = tmp_path / "out.zarr"
    p = run("convert", damaged, str(out))
    assert p.returncode == 1 and CRASHED.search(p.stderr) and not out.exists()


def test_the_python_process_survives_a_file_that_crashes_libhdf5(tmp_path):
    """In a fresh interpreter, as a user's session or a Dask worker starts: the wild read
    lands outside every mapping there (in this long test process it may land in one and
    read garbage, which no isolation can tell from data)."""
    damaged = crashing_copy(tmp_path)
    script = f"""
import re
import dudley, h5py, numpy as np
try:
    dudley.open({damaged!r})
    print("opened")
except dudley.DataError as e:
    print("refused" if re.search({CRASHED.pattern!r}, str(e)) else "other: " + str(e))
f = dudley.open({path_of("tattr2.h5")!r})  # the same process goes on
with h5py.File({path_of("tattr2.h5")!r}, "r") as h:
    print("read", np.array_equal(f["dset"][...], h["dset"][()]))
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       env=dict(os.environ), timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["refused", "read", "True"], (p.stdout, p.stderr)


def test_a_variable_length_read_that_crashes_libhdf5_is_refused(tmp_path):
    """HDF5's tvldtypes1.h5 with one byte changed (at 2317): it opens, but reading a
    variable-length dataset sends libhdf5 1.10.8 into the damaged global heap (SIGSEGV in
    H5HG_read under H5Dread)."""
    data = bytearray(open(path_of("tvldtypes1.h5"), "rb").read())
    data[2317] = 0xEA
    damaged = tmp_path / "damaged_vlen.h5"
    damaged.write_bytes(bytes(data))
    assert run("ls", str(damaged)).returncode == 0
    dump = run("dump", str(damaged))
    assert dump.returncode == 1, (dump.returncode, dump.stderr)
    assert re.search(CRASHED.pattern + " reading /Dataset", dump.stderr), dump.stderr
    script = f"""
import re
import dudley
f = dudley.open({str(damaged)!r})
for name in f.keys():
    try:
        f[name][...]
        print(name, "read")
    except dudley.DataError as e:
        print(name, "refused" if re.search({CRASHED.pattern!r}, str(e)) else "other")
print("alive")
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       env=dict(os.environ), timeout=120)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[-1] == "alive" and any(line.endswith(" refused") for line in lines), p.stdout


def test_python_attrs_keep_unreadable_attributes_by_name_and_give_reference_targets():
    unlistable = dudley.open(path_of("err_attr_dspace.h5")).attrs
    assert "" in unlistable and "" in unlistable.errors
    with pytest.raises(dudley.DataError, match="its attributes cannot be listed"):
        unlistable[""]
    # tattr2.h5's object references (attributes of /dset and /g1): what they point to, as
    # h5py dereferences them.
    with h5py.File(path_of("tattr2.h5"), "r") as h:
        want = [h[r].name for r in h["dset"].attrs["reference"].ravel()]
    got = dudley.open(path_of("tattr2.h5"))["dset"].attrs["reference"]
    assert [str(x) for x in got.ravel()] == want
