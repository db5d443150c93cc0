#!/usr/bin/env python3
"""Builds the files of the read-rule test (issue 62, "Safe with hostile files"): data that
names files outside its folder, in every way a reader could be led there.

In a directory ROOT it makes:

  ROOT/outside/   files holding the canary (arrays of 31337.0, the text CANARY), which no
                  command may show unless told it may read that folder
  ROOT/data/      the data: one file (or store) per case, each with a harmless /ok array
                  beside the item that leads outside
  ROOT/cwd/       the current directory of the commands, holding a real HDF5 file of the
                  name a decoy link gives (libhdf5 looks in the current directory last)

and returns the cases, one per way out (see CASES below): the data, the item, the environment
and current directory to run in, the words its error must hold (the link's name and its
target as stored), and whether `--allow-outside ROOT/outside` makes the canary readable.

Usage: read_rule_files.py ROOT   (prints the cases as JSON; the test imports make_files)
"""
import json
import os
import struct
import sys

import h5py
import numpy as np

CANARY = 31337.0
HARMLESS = 7.0


def canary(n=4):
    return np.full(n, CANARY)


def data_file(path):
    """An HDF5 file with the harmless /ok beside whatever the case adds."""
    f = h5py.File(path, "w")
    f["ok"] = np.array([1.0, 2.0, 3.0])
    return f


def make_outside(root):
    out = os.path.join(root, "outside")
    os.makedirs(out, exist_ok=True)
    with h5py.File(os.path.join(out, "x.h5"), "w") as f:
        f["x"] = canary()
        f["g/x"] = canary()
    with h5py.File(os.path.join(out, "y.h5"), "w") as f:
        f["x"] = canary()
    with open(os.path.join(out, "raw.bin"), "wb") as f:
        f.write(canary().astype("<f8").tobytes())
    with open(os.path.join(out, "canary.txt"), "w") as f:
        f.write("CANARY\n")
    # A Zarr v3 array directory, for a group member that is a symbolic link to it.
    arr = os.path.join(out, "a")
    os.makedirs(os.path.join(arr, "c"), exist_ok=True)
    write_zarr_array_json(arr)
    with open(os.path.join(arr, "c", "0"), "wb") as f:
        f.write(canary().astype("<f8").tobytes())
    # An ASDF file whose one block is the canary, for an external source.
    with open(os.path.join(out, "blk.asdf"), "wb") as f:
        f.write(asdf_with_block(canary().astype("<f8").tobytes()))
    # A Dudley data file (with its layout) holding the canary, a family index's member.
    with open(os.path.join(out, "m.bin"), "wb") as f:
        f.write(canary().astype("<f8").tobytes())
    return out


def write_zarr_array_json(directory, shape=4):
    meta = {"zarr_format": 3, "node_type": "array", "shape": [shape], "data_type": "float64",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [shape]}},
            "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
            "fill_value": 0.0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}
    with open(os.path.join(directory, "zarr.json"), "w") as f:
        json.dump(meta, f)


def asdf_with_block(data):
    """An ASDF file of one block (no checksum), its first array `x` in that block."""
    tree = ("#ASDF 1.0.0\n#ASDF_STANDARD 1.5.0\n%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n"
            "--- !core/asdf-1.1.0\n"
            "x: !core/ndarray-1.0.0\n  source: 0\n  datatype: float64\n  byteorder: little\n"
            "  shape: [4]\n...\n")
    header = struct.pack(">HI4sQQQ16s", 48, 0, b"\0" * 4, len(data), len(data), len(data),
                         b"\0" * 16)
    return tree.encode() + b"\xd3BLK" + header + data


def asdf_with_source(source):
    """An ASDF file with /ok inline and /ext read from block 0 of the file `source`."""
    tree = ("#ASDF 1.0.0\n#ASDF_STANDARD 1.5.0\n%YAML 1.1\n%TAG ! tag:stsci.edu:asdf/\n"
            "--- !core/asdf-1.1.0\n"
            "ok: !core/ndarray-1.0.0\n  data: [1.0, 2.0, 3.0]\n  datatype: float64\n"
            f"ext: !core/ndarray-1.0.0\n  source: {source}\n  datatype: float64\n"
            "  byteorder: little\n  shape: [4]\n...\n")
    return tree.encode()


def virtual(f, name, source_file, source_path):
    layout = h5py.VirtualLayout(shape=(4,), dtype="f8")
    layout[:] = h5py.VirtualSource(source_file, source_path, shape=(4,))
    f.create_virtual_dataset(name, layout, fillvalue=-1.0)


def external(f, name, files):
    f.create_dataset(name, shape=(4,), dtype="<f8", external=files)


def make_files(root):
    """Makes every case's files under `root`; returns the cases (dicts)."""
    root = os.path.abspath(root)
    out = make_outside(root)
    data = os.path.join(root, "data")
    cwd = os.path.join(root, "cwd")
    os.makedirs(os.path.join(data, "sub"), exist_ok=True)
    os.makedirs(cwd, exist_ok=True)
    harmless_raw = np.full(4, HARMLESS).astype("<f8").tobytes()
    cases = []

    def case(name, path, item, words, what, env=None, run_in=cwd, allowed=True, family=False):
        cases.append({"name": name, "data": os.path.join(data, path), "item": item,
                      "words": words, "what": what, "env": env or {}, "cwd": run_in,
                      "allowed": allowed, "family": family, "outside": out})

    # --- HDF5 external links ---
    with data_file(os.path.join(data, "elink.h5")) as f:
        f["ext"] = h5py.ExternalLink("../outside/x.h5", "/x")
    case("h5-elink", "elink.h5", "/ext", ["/ext", "../outside/x.h5"],
         "an external link to ../outside/x.h5")

    with data_file(os.path.join(data, "soft.h5")) as f:
        f["e"] = h5py.ExternalLink("../outside/x.h5", "/x")
        f["soft"] = h5py.SoftLink("/e")
    case("h5-soft-to-elink", "soft.h5", "/soft", ["/soft", "../outside/x.h5"],
         "a soft link to an external link")

    with data_file(os.path.join(data, "softg.h5")) as f:
        f["eg"] = h5py.ExternalLink("../outside/x.h5", "/g")
        f["soft"] = h5py.SoftLink("/eg/x")
    case("h5-soft-through-elink", "softg.h5", "/soft", ["/soft", "../outside/x.h5"],
         "a soft link to a path through an external link to a group")

    with data_file(os.path.join(data, "chain.h5")) as f:
        f["chain"] = h5py.ExternalLink("sub/a.h5", "/y")
    with h5py.File(os.path.join(data, "sub", "a.h5"), "w") as f:
        f["y"] = h5py.ExternalLink("../../outside/x.h5", "/x")
    case("h5-elink-chain", "chain.h5", "/chain", ["/chain", "../../outside/x.h5"],
         "an external link to sub/a.h5, whose link leads to ../../outside/x.h5")

    with data_file(os.path.join(data, "decoy.h5")) as f:
        f["twin"] = h5py.ExternalLink("twin.h5", "/x")
    with open(os.path.join(data, "twin.h5"), "w") as f:
        f.write("not an HDF5 file\n")
    with h5py.File(os.path.join(cwd, "twin.h5"), "w") as f:
        f["x"] = canary()
    # The current directory is never searched, allowed or not.
    case("h5-elink-decoy", "decoy.h5", "/twin", ["/twin", "twin.h5", "not an HDF5 file"],
         "an external link to a non-HDF5 file, a real one of that name in the current directory",
         allowed=False)

    with data_file(os.path.join(data, "envlink.h5")) as f:
        f["e"] = h5py.ExternalLink("y.h5", "/x")
    with h5py.File(os.path.join(data, "y.h5"), "w") as f:
        f["x"] = np.full(4, HARMLESS)
    case("h5-elink-env-prefix", "envlink.h5", "/e", ["/e", "y.h5", "HDF5_EXT_PREFIX"],
         "an external link while HDF5_EXT_PREFIX names the outside folder",
         env={"HDF5_EXT_PREFIX": out})

    with data_file(os.path.join(data, "elink_symlink.h5")) as f:
        f["e"] = h5py.ExternalLink("link.h5", "/x")
    os.symlink(os.path.join("..", "outside", "x.h5"), os.path.join(data, "link.h5"))
    case("h5-elink-symlink", "elink_symlink.h5", "/e", ["/e", "link.h5"],
         "an external link to a symbolic link in the folder that leads outside")

    with data_file(os.path.join(data, "elink_abs.h5")) as f:
        f["e"] = h5py.ExternalLink(os.path.join(out, "x.h5"), "/x")
    case("h5-elink-absolute", "elink_abs.h5", "/e", ["/e", os.path.join(out, "x.h5")],
         "an external link by absolute name")

    # --- HDF5 external raw storage ---
    with data_file(os.path.join(data, "efile_abs.h5")) as f:
        external(f, "raw", [(os.path.join(out, "raw.bin"), 0, 32)])
    case("h5-efile-absolute", "efile_abs.h5", "/raw", ["/raw", os.path.join(out, "raw.bin")],
         "external raw storage in a file named by absolute path")

    with data_file(os.path.join(data, "efile_rel.h5")) as f:
        external(f, "raw", [("../outside/raw.bin", 0, 32)])
    case("h5-efile-relative", "efile_rel.h5", "/raw", ["/raw", "../outside/raw.bin"],
         "external raw storage in ../outside/raw.bin")

    with data_file(os.path.join(data, "efile_env.h5")) as f:
        external(f, "raw", [("raw.bin", 0, 32)])
    with open(os.path.join(data, "raw.bin"), "wb") as f:
        f.write(harmless_raw)
    case("h5-efile-env-prefix", "efile_env.h5", "/raw", ["/raw", "raw.bin"],
         "external raw storage while HDF5_EXTFILE_PREFIX names the outside folder",
         env={"HDF5_EXTFILE_PREFIX": out})

    with data_file(os.path.join(data, "efile_link.h5")) as f:
        external(f, "raw", [("rawlink.bin", 0, 32)])
    os.symlink(os.path.join("..", "outside", "raw.bin"), os.path.join(data, "rawlink.bin"))
    # Run in the data's folder, where libhdf5 (which reads external storage relative to the
    # current directory) finds the symbolic link.
    case("h5-efile-symlink", "efile_link.h5", "/raw", ["/raw", "rawlink.bin"],
         "external raw storage in a symbolic link that leads outside", run_in=data)

    # --- HDF5 virtual datasets ---
    with data_file(os.path.join(data, "vds.h5")) as f:
        virtual(f, "v", "../outside/x.h5", "/x")
    case("h5-vds", "vds.h5", "/v", ["/v", "../outside/x.h5"],
         "a virtual dataset whose source is ../outside/x.h5")

    with data_file(os.path.join(data, "vds_link.h5")) as f:
        virtual(f, "v", "link.h5", "/x")
    case("h5-vds-symlink", "vds_link.h5", "/v", ["/v", "link.h5"],
         "a virtual dataset whose source is a symbolic link leading outside")

    with data_file(os.path.join(data, "vds_env.h5")) as f:
        virtual(f, "v", "y.h5", "/x")
    case("h5-vds-env-prefix", "vds_env.h5", "/v", ["/v", "y.h5"],
         "a virtual dataset while HDF5_VDS_PREFIX names the outside folder",
         env={"HDF5_VDS_PREFIX": out})

    with data_file(os.path.join(data, "vds_dot.h5")) as f:
        f["e"] = h5py.ExternalLink("../outside/x.h5", "/x")
        virtual(f, "v", ".", "/e")
    case("h5-vds-same-file-elink", "vds_dot.h5", "/v", ["/v", "/e"],
         "a virtual dataset whose source, in the same file, is an external link leading outside")

    # --- Zarr directory stores ---
    z = os.path.join(data, "chunk.zarr")
    os.makedirs(os.path.join(z, "c"), exist_ok=True)
    write_zarr_array_json(z)
    os.symlink(os.path.join(out, "raw.bin"), os.path.join(z, "c", "0"))
    case("zarr-chunk-symlink", "chunk.zarr", "/", ["c/0"],
         "a Zarr array whose chunk file is a symbolic link to a file outside")

    zg = os.path.join(data, "group.zarr")
    os.makedirs(os.path.join(zg, "ok", "c"), exist_ok=True)
    with open(os.path.join(zg, "zarr.json"), "w") as f:
        json.dump({"zarr_format": 3, "node_type": "group"}, f)
    write_zarr_array_json(os.path.join(zg, "ok"), 3)
    with open(os.path.join(zg, "ok", "c", "0"), "wb") as f:
        f.write(np.array([1.0, 2.0, 3.0]).astype("<f8").tobytes())
    os.symlink(os.path.join(out, "a"), os.path.join(zg, "a"))
    case("zarr-array-symlink", "group.zarr", "/a", ["a/zarr.json"],
         "a Zarr group whose member array is a symbolic link to a directory outside")

    # --- ASDF external sources ---
    with open(os.path.join(data, "asdf_rel.asdf"), "wb") as f:
        f.write(asdf_with_source("../outside/blk.asdf"))
    case("asdf-source-relative", "asdf_rel.asdf", "/ext", ["../outside/blk.asdf"],
         "an ASDF array whose source is ../outside/blk.asdf")

    os.symlink(os.path.join("..", "outside", "blk.asdf"), os.path.join(data, "blk.asdf"))
    with open(os.path.join(data, "asdf_link.asdf"), "wb") as f:
        f.write(asdf_with_source("blk.asdf"))
    case("asdf-source-symlink", "asdf_link.asdf", "/ext", ["blk.asdf"],
         "an ASDF array whose source is a symbolic link leading outside")

    # --- A Dudley family index naming a member outside ---
    with open(os.path.join(data, "m.dud"), "w") as f:
        f.write("x = <f8[4]\n")
    member = "../outside/m.bin"
    index_layout = ("layout = S1[5]\nin_files = u1\nfiles = S1[1, {n}]\n"
                    "param_paths = S1[0, 1]\nvalues = <i8[1, 0]\n").format(n=len(member))
    with open(os.path.join(data, "run.index.dud"), "w") as f:
        f.write(index_layout)
    with open(os.path.join(data, "run.index.bin"), "wb") as f:
        f.write(b"m.dud" + b"\x00" + member.encode())
    case("dudley-family-index", "run.index.bin", "/x", ["../outside/m.bin"],
         "a Dudley family index whose member lies outside", family=True)
    return cases


if __name__ == "__main__":
    print(json.dumps(make_files(sys.argv[1]), indent=1))
