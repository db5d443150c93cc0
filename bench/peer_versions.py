"""The versions of every peer `make bench` compares against, as one markdown table."""
import json
import os
import subprocess

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def _run(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def _python_versions(python, modules):
    code = ("import importlib.metadata as m, json, sys\n"
            "out = {}\n"
            "for name in sys.argv[1:]:\n"
            "    try: out[name] = m.version(name)\n"
            "    except Exception: pass\n"
            "print(json.dumps(out))")
    text = _run([python, "-c", code, *modules])
    return json.loads(text) if text else {}


def _debian(package):
    return _run(["dpkg-query", "-W", "-f=${Version}", package])


def _npm(package):
    path = os.path.join(ROOT, "tests", "interop", "node_modules", package, "package.json")
    try:
        with open(path) as f:
            return json.load(f)["version"]
    except OSError:
        return ""


def versions():
    """(peer, version, where it comes from) for every peer found on this machine."""
    rows = []
    # Debian's Python peers, by their packages' versions (Debian's xarray calls itself 999).
    for name in ("numpy", "h5py", "netcdf4", "asdf", "zarr", "xarray", "dask", "avro",
                 "h5netcdf"):
        if version := _debian(f"python3-{name}"):
            rows.append((name, version, f"Debian (python3-{name})"))
    for venv, modules in ((".venv-stack", ["zarr", "tensorstore", "zarrs", "numcodecs", "s3fs"]),
                          (".venv", ["fastavro"])):
        python = os.path.join(ROOT, venv, "bin", "python")
        if os.path.exists(python):
            for name, version in _python_versions(python, modules).items():
                rows.append((name, version, f"PyPI ({venv})"))
    for package in ("avsc", "zarrita"):
        if version := _npm(package):
            rows.append((package, version, "npm"))
    for package, what in (("gdal-bin", "GDAL"), ("libhdf5-dev", "libhdf5"),
                          ("hdf5-tools", "h5dump, h5ls"), ("libsimdjson-dev", "simdjson"),
                          ("libyaml-cpp-dev", "yaml-cpp"), ("nlohmann-json3-dev", "nlohmann-json"),
                          ("netcdf-bin", "ncdump"), ("libnetcdf-dev", "libnetcdf"),
                          ("libdeflate-dev", "libdeflate"), ("libzstd-dev", "libzstd"),
                          ("libblosc-dev", "c-blosc"), ("libssl-dev", "OpenSSL (MD5)")):
        if version := _debian(package):
            rows.append((what, version, f"Debian ({package})"))
    return rows


def markdown():
    lines = ["| peer | version | from |", "|---|---|---|"]
    lines += [f"| {name} | {version} | {where} |" for name, version, where in versions()]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())
