"""`cmake --install` gives a working package anywhere: the Python package and the tool, each
finding the HDF5 module it loads on first use relative to itself, and xarray the engine."""
import os
import pathlib
import subprocess
import sys

import h5py
import numpy as np
import pytest

BUILD = os.environ.get("DUDLEY_BUILD_DIR")


@pytest.mark.skipif(not BUILD, reason="DUDLEY_BUILD_DIR not set (ctest sets it)")
def test_installed_package_and_tool_read_hdf5(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", BUILD, "--prefix", str(prefix)], check=True,
                   capture_output=True)
    site = prefix / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "dist-packages"
    with h5py.File(tmp_path / "m.h5", "w") as h:
        h["x"] = np.arange(5.0)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    code = ("import dudley, xarray as xr\n"
            "assert dudley.__file__.startswith(%r), dudley.__file__\n"
            "print(dudley.open(%r)['x'][::-1].tolist())\n"
            "print(float(xr.open_dataset(%r, engine='dudley')['x'].sum()))\n"
            % (str(site), str(tmp_path / "m.h5"), str(tmp_path / "m.h5")))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["[4.0, 3.0, 2.0, 1.0, 0.0]", "10.0"]
    # The tool, which links its own sanitizer runtime when the interpreter's is preloaded.
    env.pop("LD_PRELOAD", None)
    r = subprocess.run([str(prefix / "bin" / "dudley"), "dump", str(tmp_path / "m.h5"), "/x[1]"],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "/x[1] = 1.0", r.stdout + r.stderr
